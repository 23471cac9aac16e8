# README.md's R code runs as written: every ```r block, in order, in a
# fresh R process whose working directory is an empty temporary folder,
# and leaves no file there. Shell blocks (```sh) and unlabelled blocks are
# not run. The README is at the package root of the source tree; R CMD
# check's copy of the tests has none, and skips.

readme_path <- function() test_path("..", "..", "README.md")

# The R code blocks of a Markdown file: ```r or ```{r ...} up to the next ```.
markdown_r_blocks <- function(lines) {
  opens <- grep("^```[[:space:]]*(r|\\{r([ ,][^}]*)?\\})[[:space:]]*$", lines)
  closes <- grep("^```[[:space:]]*$", lines)
  lapply(opens, function(o) {
    end <- closes[closes > o][1L]
    if (is.na(end)) stop(sprintf("the R block at line %d has no closing fence", o), call. = FALSE)
    list(line = o, code = lines[seq_len(end - o - 1L) + o])
  })
}

test_that("the R blocks of a Markdown file are found and the others are not", {
  md <- c("text", "```r", "a <- 1", "```", "```sh", "make test", "```", "```{r, eval = TRUE}", "b <- 2", "```",
          "```", "plain", "```", "```{r}", "```")
  blocks <- markdown_r_blocks(md)
  expect_equal(vapply(blocks, `[[`, integer(1), "line"), c(2L, 8L, 14L))
  expect_equal(lapply(blocks, `[[`, "code"), list("a <- 1", "b <- 2", character(0)))
})

test_that("every R block of README.md runs in a fresh session and leaves no file behind", {
  skip_on_cran()
  skip_if_not(file.exists(readme_path()), "no README.md beside the tests (an installed or checked package)")
  for (p in c("MASS", "DBI", "RSQLite", "future")) skip_if_not_installed(p)
  blocks <- markdown_r_blocks(readLines(readme_path(), warn = FALSE))
  expect_gt(length(blocks), 5)
  code <- unlist(lapply(blocks, function(b) c(sprintf("message('README.md, the block at line %d')", b$line), b$code)))
  run <- run_fresh_r(code)
  expect_identical(run$status, 0L, info = fresh_r_tail(run))
  expect_identical(run$left, character(0))
  expect_lt(run$seconds, 60)
})
