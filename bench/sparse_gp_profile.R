# Where a sparse_gp() fit spends its time: the issue's case, the 2-D surface
# sin(2 x1) cos(x2) on U(-3, 3)^2, noise sd 0.2, n = 20000, m = 100, VFE,
# defaults. Reports the fit (CPU and wall), its evaluations, and the cost of
# one objective with and without its gradient (which includes the gradient
# w.r.t. the 200 inducing coordinates), on 1 and 2 threads.
#
# Run from the package root after installing:
#   Rscript bench/sparse_gp_profile.R
suppressPackageStartupMessages(library(sparsebayes))
set.seed(1)
n <- 20000
x <- matrix(runif(2 * n, -3, 3), n, 2)
y <- sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2)
set.seed(2)
xt <- matrix(runif(2 * 5000, -3, 3), 5000, 2)
ft <- sin(2 * xt[, 1]) * cos(xt[, 2])
rows <- list()
for (threads in 1:2) {
  options(sparsebayes.threads = threads)
  t <- system.time(fit <- sparse_gp(x, y, inducing = 100, seed = 1))
  xs <- scale(x, fit$scaling$center, fit$scaling$scale)
  k <- unclass(fit$kernel)
  each <- function(gradient) {
    median(vapply(1:5, function(i) system.time(
      sparsebayes:::.sb_gp_objective(k, fit$noise_variance, xs, y - mean(y), fit$inducing_scaled, numeric(0),
                                     sparsebayes:::gp_settings("VFE", 1e-6, gradient, threads)))[["elapsed"]],
      numeric(1)))
  }
  rows[[threads]] <- data.frame(threads = threads, fit_cpu = t[["user.self"]] + t[["sys.self"]],
                                fit_wall = t[["elapsed"]],
                                evaluations = fit$iterations[[1L]], objective_s = each(FALSE),
                                with_gradient_s = each(TRUE), elbo = fit$logLik,
                                rmse = sqrt(mean((predict(fit, xt) - ft)^2)))
}
res <- do.call(rbind, rows)
cat("| threads | fit CPU s | fit wall s | evaluations | objective s | objective + gradient s | ELBO | latent RMSE |\n")
cat("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
cat(sprintf("| %d | %.2f | %.2f | %d | %.3f | %.3f | %.2f | %.5f |\n", res$threads, res$fit_cpu, res$fit_wall,
            res$evaluations, res$objective_s, res$with_gradient_s, res$elbo, res$rmse), sep = "")
