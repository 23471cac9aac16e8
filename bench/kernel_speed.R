# Kernel evaluation: ns per entry of the n x n Gaussian kernel matrix
# against n, with 1 and 2 threads (options(sparsebayes.threads =)), against
# base R's exp(-outer(x, x, "-")^2 / r^2) (1 input) and exp(-dist(x)^2 / r^2)
# (2 and 10 inputs), all in one process; best of 3 runs each. Every call allocates
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
sizes <- rbind(expand.grid(n = c(1000, 2000, 4000, 8000, 12000), d = 1:2), data.frame(n = 3000, d = 10))
for (row in seq_len(nrow(sizes))) {
  n <- sizes$n[row]
  d <- sizes$d[row]
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

# The Gram product of the statistics layer (Phi'Phi of a block of rows, as a
# fit from chunks or ard() at n >> d forms it): GFlop/s (n M (M + 1) flops
# for the lower triangle) of the SIMD path (simd.hpp: AVX-512, else AVX2 +
# FMA), the same call with it switched off (Eigen at R's default flags, SSE2), and base R's
# crossprod() (this machine's BLAS; R's symmetric product also forms one
# triangle), one thread each; and the SIMD path on two threads (the same
# bits: `identical`).
simd <- get(".sb_simd", asNamespace("sparsebayes"))
statistics <- get(".sb_statistics", asNamespace("sparsebayes"))
cat(sprintf("\nAVX2 + FMA on this CPU: %s; AVX-512: %s\n", simd(NA)[["cpu"]], simd(NA)[["avx512"]]))
cat("\n| n | M | SIMD path (GFlop/s) | SSE2 (Eigen) | base R crossprod | SIMD / SSE2 | SIMD, 2 threads | identical |\n|---|---|---|---|---|---|---|---|\n")
threads(1)
for (nm in list(c(20000, 200), c(20000, 1001), c(100000, 500))) {
  set.seed(1)
  A <- matrix(rnorm(nm[1] * nm[2]), nm[1])
  t <- rnorm(nm[1])
  flops <- nm[1] * nm[2] * (nm[2] + 1)
  simd(TRUE); ta <- best_of(s1 <- statistics(A, t, 1L))
  t2 <- best_of(s2 <- statistics(A, t, 2L))
  simd(FALSE); ts <- best_of(statistics(A, t, 1L))
  simd(TRUE)
  tb <- best_of(crossprod(A))
  cat(sprintf("| %d | %d | %.1f | %.1f | %.1f | %.2fx | %.1f | %s |\n", nm[1], nm[2], flops / ta / 1e9, flops / ts / 1e9,
              flops / tb / 1e9, ts / ta, flops / t2 / 1e9, identical(s1, s2)))
}

# One evaluation of the exact GP's objective and gradient, as the width
# learner makes some 40-130 of them (a Cholesky, the triangular inverse and
# its Gram: n^3 flops in matrix products, then the kernel's slopes), per
# input widths on n rows of 13 inputs: ms per call on the SIMD path and
# with it switched off (SSE2), and whether the values agree to rounding.
objective <- get(".sb_gp_objective", asNamespace("sparsebayes"))
cat("\n| n (exact GP, 13 inputs) | SIMD path (ms) | SSE2 (ms) | SSE2 / SIMD | value and gradient within 1e-9 |\n|---|---|---|---|---|\n")
for (n in c(150L, 300L, 600L)) {
  set.seed(1)
  x <- matrix(rnorm(n * 13), n)
  r <- sin(x[, 1]) + x[, 2] * x[, 3] / 2 + rnorm(n, sd = 0.3)
  k <- unclass(kernel_gaussian(rep(2, 13)))
  call <- function() objective(k, 0.1, x, r, matrix(0, 0, 13), numeric(0),
                               list(approx = "exact", jitter = 1e-8, gradient = TRUE, threads = 1L), NULL)
  reps <- if (n < 500L) 50L else 10L
  simd(TRUE); a <- call(); ta <- best_of(for (i in seq_len(reps)) call()) / reps
  simd(FALSE); b <- call(); ts <- best_of(for (i in seq_len(reps)) call()) / reps
  simd(TRUE)
  close <- isTRUE(all.equal(a$value, b$value, tolerance = 1e-9)) && isTRUE(all.equal(a$gradient, b$gradient, tolerance = 1e-9))
  cat(sprintf("| %d | %.2f | %.2f | %.2fx | %s |\n", n, 1e3 * ta, 1e3 * ts, ts / ta, close))
}
