# Kernel evaluation: ns per entry of the n x n Gaussian kernel matrix
# against n, with 1 and 2 threads (options(sparsebayes.threads =)), against
# base R's exp(-outer(x, x, "-")^2 / r^2) (1 input) and exp(-dist(x)^2 / r^2)
# (2 inputs), all in one process; best of 3 runs each. Every call allocates
# a fresh n x n result, as a fit does.
# Run from the repository root: Rscript bench/kernel_speed.R
library(sparsebayes)
cat(sprintf("R %s, %s, %d cores, %s\n", getRversion(),
            sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            parallel::detectCores(), format(Sys.time(), "%Y-%m-%d")))
best_of <- function(expr, reps = 3L) {
  expr <- substitute(expr)
  env <- parent.frame()
  min(vapply(seq_len(reps), function(i) {
    gc()
    system.time(eval(expr, env))[["elapsed"]]
  }, numeric(1)))
}
ns <- function(seconds, n) 1e9 * seconds / n^2
threads <- function(k) options(sparsebayes.threads = k)
r <- 3
cat("\n| inputs | n | ours, 1 thread (ns/entry) | ours, 2 threads | base R | base R / ours (1 thread) | identical |\n")
cat("|---|---|---|---|---|---|---|\n")
for (d in 1:2) for (n in c(1000, 2000, 4000, 8000, 12000)) {
  set.seed(n)
  x <- matrix(runif(n * d, -10, 10), n, d)
  k <- kernel_gaussian(r)
  threads(1); t1 <- best_of(K1 <- kernel_matrix(k, x))
  threads(2); t2 <- best_of(K2 <- kernel_matrix(k, x))
  same <- identical(K1, K2)
  rm(K1, K2)
  tb <- if (d == 1) best_of(Kb <- exp(-outer(x[, 1], x[, 1], "-")^2 / r^2))
        else best_of(Kb <- exp(-as.matrix(stats::dist(x))^2 / r^2))
  rm(Kb)
  cat(sprintf("| %d | %d | %.1f | %.1f | %.1f | %.1fx | %s |\n", d, n, ns(t1, n), ns(t2, n), ns(tb, n), tb / t1, same))
}
