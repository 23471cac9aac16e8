# Runs the testthat suite against the installed package and prints the totals
# as "N passed, N failed[, N skipped]"; exits non-zero on any failure.
library(testthat)
# The suite is the developers' (as devtools would run it): skip_on_cran() tests run too.
Sys.setenv(NOT_CRAN = "true")
library(sparsebayes)
res <- as.data.frame(test_dir("tests/testthat", package = "sparsebayes", load_package = "installed",
                              reporter = ProgressReporter$new(show_praise = FALSE), stop_on_failure = FALSE))
failed <- sum(res$failed) + sum(res$error)
skipped <- sum(res$skipped)
passed <- sum(res$passed)
cat(sprintf("%d passed, %d failed%s\n", passed, failed, if (skipped > 0) sprintf(", %d skipped", skipped) else ""))
quit(status = if (failed > 0) 1L else 0L)
