# Sparse GP fit time against n with m = 50 inducing points: VFE and FITC with
# a fixed budget of L-BFGS-B iterations (maxit = 50), a fit without
# optimisation, and one objective + gradient evaluation. The cost per
# evaluation is O(n m^2), so seconds / n should stay flat.
#
# Run from the package root after installing:
#   Rscript bench/sparse_gp_scaling.R
# Prints a markdown table for bench/RESULTS.md.
suppressPackageStartupMessages(library(sparsebayes))

ns <- c(5000, 10000, 20000, 50000, 100000)
m <- 50L
make_data <- function(n) {
  set.seed(n)
  x <- matrix(runif(2 * n, -5, 5), n, 2)
  y <- sin(x[, 1]) * cos(x[, 2] / 2) + rnorm(n, sd = 0.1)
  list(x = x, y = y)
}
time_it <- function(expr) {
  gc(FALSE)
  t <- system.time(val <- expr)[["elapsed"]]
  list(t = t, val = val)
}
rows <- list()
for (n in ns) {
  d <- make_data(n)
  for (approx in c("VFE", "FITC")) {
    # maxit = 50 caps the iterations; FITC often uses all of them (warning muted)
    r <- time_it(suppressWarnings(sparse_gp(d$x, d$y, inducing = m, approx = approx, seed = 1,
                                            control = sparse_gp_control(maxit = 50))))
    evals <- r$val$iterations[["function"]]
    rows[[length(rows) + 1L]] <- data.frame(n = n, fit = paste(approx, "maxit = 50"), seconds = r$t,
                                            evaluations = evals, us_per_n = 1e6 * r$t / n,
                                            us_per_n_eval = 1e6 * r$t / (n * evals))
  }
  r <- time_it(sparse_gp(d$x, d$y, inducing = m, optimize = "none", seed = 1))
  rows[[length(rows) + 1L]] <- data.frame(n = n, fit = "VFE optimize = none", seconds = r$t, evaluations = 1L,
                                          us_per_n = 1e6 * r$t / n, us_per_n_eval = 1e6 * r$t / n)
  # one objective + gradient evaluation in C++ alone (median of 5)
  fit <- r$val
  xs <- scale(d$x, fit$scaling$center, fit$scaling$scale)
  k <- unclass(fit$kernel)
  t1 <- stats::median(vapply(1:5, function(i) system.time(
    sparsebayes:::.sb_gp_objective(k, fit$noise_variance, xs, d$y - mean(d$y), fit$inducing_scaled, numeric(0),
                                   sparsebayes:::gp_settings("VFE", 1e-6, TRUE)))[["elapsed"]],
    numeric(1)))
  rows[[length(rows) + 1L]] <- data.frame(n = n, fit = "one VFE objective + gradient", seconds = t1,
                                          evaluations = 1L, us_per_n = 1e6 * t1 / n, us_per_n_eval = 1e6 * t1 / n)
  cat(sprintf("n = %6d done\n", n))
}
res <- do.call(rbind, rows)
res <- res[order(res$fit, res$n), ]
fmt <- function(v, d) formatC(v, format = "f", digits = d)
table <- c("| n | fit | seconds | evaluations | us / n | us / (n * evaluation) |",
           "|---:|---|---:|---:|---:|---:|",
           sprintf("| %d | %s | %s | %d | %s | %s |", as.integer(res$n), res$fit, fmt(res$seconds, 3),
                   as.integer(res$evaluations), fmt(res$us_per_n, 2), fmt(res$us_per_n_eval, 3)))
# growth from the smallest to the largest n, per evaluation (1 = linear)
slope <- vapply(split(res, res$fit), function(s) {
  unname(stats::coef(stats::lm(log(seconds / evaluations) ~ log(n), data = s))[2L])
}, numeric(1))
header <- c("# Sparse GP scaling with n (m = 50)", "",
            "Command: `Rscript bench/sparse_gp_scaling.R` (from the package root)", "",
            sprintf("Machine: %s, R %s, %s; 2 cores shared with other jobs, so timings are noisy.",
                    Sys.info()[["machine"]], getRversion(), format(Sys.time(), "%Y-%m-%d %H:%M UTC", tz = "UTC")),
            "", "Data: 2 inputs, y = sin(x1) cos(x2 / 2) + N(0, 0.1^2); inducing points by k-means++ (seed 1).",
            "Fit times include k-means initialisation and the final posterior.", "")
footer <- c("", "Slope of log(seconds per evaluation) on log(n) (1 = linear growth):", "",
            sprintf("- %s: %.2f", names(slope), slope))
writeLines(c(header, table, footer))
