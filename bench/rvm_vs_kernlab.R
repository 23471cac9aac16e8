# The fast RVM against kernlab::rvm and against our own O(n^3) MacKay solver
# on Tipping's sinc data (noise sd 0.1, Gaussian width 3), all in one process.
# kernlab's rbfdot uses exp(-sigma d^2), ours exp(-d^2 / width^2): sigma = 1/9.
# Run from the repository root: Rscript bench/rvm_vs_kernlab.R
library(sparsebayes)
suppressPackageStartupMessages(library(kernlab))  # masks rvm() and predict(): call both by namespace
cat(sprintf("R %s, %s, %s\n", getRversion(), sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            format(Sys.time(), "%Y-%m-%d")))
sinc_set <- function(n, seed) {
  set.seed(seed)
  x <- runif(n, -10, 10)
  list(x = x, y = sin(x) / x + rnorm(n, sd = 0.1))
}
test <- seq(-10, 10, length.out = 1001)
truth <- ifelse(test == 0, 1, sin(test) / test)
rmse <- function(pred) sqrt(mean((pred - truth)^2))
timed <- function(expr) {
  gc()
  t <- system.time(value <- expr)[["elapsed"]]
  list(time = t, value = value)
}
cat("\n| n | sparsebayes fast (s) | RVs | RMSE | kernlab::rvm (s) | RVs | RMSE | kernlab / fast | sparsebayes mackay O(n^3) (s) | mackay / fast |\n")
cat("|---|---|---|---|---|---|---|---|---|---|\n")
for (n in c(500, 1000, 2000)) {
  d <- sinc_set(n, seed = n)
  ours <- timed(sparsebayes::rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE))
  kl <- timed(kernlab::rvm(matrix(d$x), d$y, kernel = "rbfdot", kpar = list(sigma = 1 / 9)))
  slow <- if (n <= 1000) timed(sparsebayes::rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE, method = "mackay")) else NULL
  cat(sprintf("| %d | %.3f | %d | %.4f | %.2f | %d | %.4f | %.0fx | %s | %s |\n", n, ours$time,
              length(ours$value$relevant), rmse(stats::predict(ours$value, test)), kl$time, length(kernlab::RVindex(kl$value)),
              rmse(kernlab::predict(kl$value, matrix(test))), kl$time / max(ours$time, 1e-3),
              if (is.null(slow)) "-" else sprintf("%.2f", slow$time),
              if (is.null(slow)) "-" else sprintf("%.0fx", slow$time / max(ours$time, 1e-3))))
}
cat("\n| n | sparsebayes fast (s) | RVs | RMSE |\n|---|---|---|---|\n")
for (n in c(5000, 10000)) {
  d <- sinc_set(n, seed = n)
  ours <- timed(sparsebayes::rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE))
  cat(sprintf("| %d | %.2f | %d | %.4f |\n", n, ours$time, length(ours$value$relevant), rmse(stats::predict(ours$value, test))))
}
