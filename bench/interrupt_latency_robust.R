# SIGINT latency of a robust fit, ard(X, y, noise = "student") at n = 5000,
# d = 200 with 5% outliers (the issue's case: the LTS start's concentration
# steps ran seconds without a check). A child R process fits; the parent
# sends SIGINT `after` seconds into the fit and times the child's report
# that it caught the interrupt (polled every 10 ms). The child also reports
# how long the whole fit takes when left alone (first run, no signal).
#   Rscript bench/interrupt_latency_robust.R [after seconds ...]
args <- commandArgs(trailingOnly = TRUE)
afters <- if (length(args)) as.numeric(args) else c(0.5, 1, 2, 3, 4, 6, 8, 10, 12, 15, 20)

child_lines <- function(status, fit_line) c(
  "suppressPackageStartupMessages(library(sparsebayes))",
  "set.seed(1); n <- 5000; d <- 200; X <- matrix(rnorm(n * d), n)",
  "beta <- c(rnorm(10, sd = 2), rep(0, d - 10)); y <- drop(X %*% beta) + rnorm(n)",
  "bad <- sample.int(n, n * 0.05); y[bad] <- y[bad] + rnorm(length(bad), 15, 5)",
  sprintf("status <- %s", deparse(status)),
  "cat('PID', Sys.getpid(), '\\n', file = status)",
  "t0 <- Sys.time()",
  sprintf("r <- tryCatch({ %s; 'FINISHED' }, interrupt = function(e) 'INTERRUPTED')", fit_line),
  "cat(r, format(as.numeric(Sys.time() - t0, units = 'secs')), '\\n', file = status, append = TRUE)")

run_child <- function(after, fit_line = "suppressWarnings(ard(X, y, noise = 'student'))") {
  dir <- tempfile("latency")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  status <- file.path(dir, "status")
  script <- file.path(dir, "child.R")
  writeLines(child_lines(status, fit_line), script)
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), wait = FALSE,
          stdout = FALSE, stderr = FALSE)
  lines <- function() if (file.exists(status)) readLines(status, warn = FALSE) else character(0)
  while (!any(grepl("^PID", lines()))) Sys.sleep(0.01)
  pid <- as.integer(strsplit(trimws(lines()[1]), " +")[[1]][2])
  if (is.na(after)) {  # no signal: the time of the whole fit
    while (length(lines()) < 2L) Sys.sleep(0.05)
    return(as.numeric(strsplit(trimws(lines()[2]), " +")[[1]][2]))
  }
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  while (length(lines()) < 2L && Sys.time() - sent < 120) Sys.sleep(0.01)
  if (!any(grepl("INTERRUPTED", lines()))) return(NA_real_)
  as.numeric(Sys.time() - sent, units = "secs")
}

total <- run_child(NA)
cat(sprintf("ard(noise = \"student\"), n = 5000, d = 200, 5%% outliers: %.1f s uninterrupted\n", total))
lat <- vapply(afters, run_child, numeric(1))
tab <- data.frame(after_s = afters, latency_s = round(lat, 3))
cat("SIGINT latency (s) by time into the fit; NA: the fit ended first\n")
print(tab, row.names = FALSE)
cat(sprintf("largest: %.3f s\n", max(lat, na.rm = TRUE)))
