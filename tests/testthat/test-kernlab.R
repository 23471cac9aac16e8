# kernlab defines an S4 class "rvm" and S4 generics for predict, coef,
# fitted: our classes must not collide with it, in either attach order.
# Each order runs in a fresh R process, as a user's session would.

run_beside_kernlab <- function(first) {
  skip_if_not_installed("kernlab")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  pkgs <- if (first == "kernlab") c("kernlab", "sparsebayes") else c("sparsebayes", "kernlab")
  writeLines(c(
    sprintf("suppressPackageStartupMessages(library(%s))", pkgs),
    "set.seed(1); x <- seq(-10, 10, length.out = 80); y <- sin(x) / x + rnorm(80, sd = 0.05)",
    "ours <- sparsebayes::rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)",
    "p <- predict(ours, c(-1, 0, 1)); stopifnot(length(p) == 3, all(is.finite(p)))",
    "stopifnot(length(coef(ours)) == length(ours$relevant), length(fitted(ours)) == 80)",
    "out <- capture.output(print(ours)); stopifnot(any(grepl('Relevance vector machine', out)))",
    "s <- capture.output(summary(ours)); stopifnot(length(s) > 3)",
    "a <- sparsebayes::ard(cbind(x, x^2), y); stopifnot(length(predict(a)) == 80)",
    "theirs <- kernlab::rvm(matrix(x), y, kernel = 'rbfdot', kpar = list(sigma = 0.1))",
    "q <- predict(theirs, matrix(c(-1, 0, 1))); stopifnot(length(q) == 3, all(is.finite(q)))",
    "out2 <- capture.output(show(theirs)); stopifnot(any(grepl('Relevance Vector', out2)))",
    "cat('OK\\n')"), script)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", script),
                                  stdout = TRUE, stderr = TRUE))
  list(ok = identical(utils::tail(out, 1L), "OK"), out = paste(out, collapse = "\n"))
}

test_that("our fits and kernlab's both work with kernlab attached first", {
  res <- run_beside_kernlab("kernlab")
  expect_true(res$ok, info = res$out)
})

test_that("our fits and kernlab's both work with sparsebayes attached first", {
  res <- run_beside_kernlab("sparsebayes")
  expect_true(res$ok, info = res$out)
})
