# Where a large sparse_gp() fit spends its time, stage by stage: the data of
# bench/sparse_gp_scale.R (sin(2 x1) cos(x2) on U(-3, 3)^2, noise sd 0.2),
# VFE, learned widths, m inducing points, default control (or `factr`).
# The stages are sparse_gp()'s own (R/sparse_gp.R): the problem, the
# learning set-up (pooling copies, the width learner's exact GP on 300
# rows, k-means on the subsample), L-BFGS-B on the subsample, and the
# posterior on every row; each is also timed apart where it hides inside
# another. CPU seconds (user + system, all threads) and wall seconds.
#
# Run from the package root after installing:
#   Rscript bench/sparse_gp_stages.R [n] [m] [factr]     # default 1e6 500
suppressPackageStartupMessages(library(sparsebayes))
args <- commandArgs(TRUE)
n <- as.numeric(if (length(args) >= 1L) args[1] else 1e6)
m <- as.integer(if (length(args) >= 2L) args[2] else 500)
factr <- if (length(args) >= 3L) as.numeric(args[3])
set.seed(1)
x <- matrix(runif(2 * n, -3, 3), n, 2, dimnames = list(NULL, c("x1", "x2")))
y <- sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2)
set.seed(2)
xt <- matrix(runif(2 * 5000, -3, 3), 5000, 2, dimnames = list(NULL, c("x1", "x2")))
ft <- sin(2 * xt[, 1]) * cos(xt[, 2])
ns <- asNamespace("sparsebayes")
timed <- function(label, expr) {
  t <- system.time(value <- expr)
  cat(sprintf("| %s | %.2f | %.2f |\n", label, t[["user.self"]] + t[["sys.self"]], t[["elapsed"]]))
  invisible(value)
}
control <- sparse_gp_control(factr = factr)
cat("| stage | CPU s | wall s |\n|---|---:|---:|\n")
p <- timed("problem (scaling, standard units)", ns$gp_problem(list(
  x = x, y = y, kernel = kernel_gaussian(), inducing = m, default_inducing = FALSE, approx = ns$gp_approxes$VFE,
  noise_variance = NULL, optimize = ns$gp_optimizes$all, restarts = 0, seed = 1, scale = TRUE, weights = NULL,
  offset = NULL, control = control)))
set.seed(1)
learning <- timed("learning set-up (all of it)", ns$gp_learning(p))
timed("- pooling copies of n rows", ns$pooled_rows(p$xs, p$std$r, NULL))
timed("- width learner (exact GP, 300 rows)", ns$learn_kernel_widths(p$kernel, p$xs, p$y, NULL, control))
timed("- k-means++ on the subsample", ns$initial_inducing(m, learning$xs, p$scaling, FALSE))
opt <- timed(sprintf("L-BFGS-B on %d rows (factr %g)", nrow(learning$xs), learning$control$factr),
             ns$gp_optimise(learning, ns$gp_optimizes$all, 0))
k <- unclass(opt$par$kernel)
settings <- function(gradient) ns$gp_settings("VFE", 1e-6, gradient, ns$kernel_threads())
timed("- one objective", ns$.sb_gp_objective(k, opt$par$noise, learning$xs, learning$r, opt$par$Z, numeric(0),
                                             settings(FALSE)))
timed("- one objective + gradient", ns$.sb_gp_objective(k, opt$par$noise, learning$xs, learning$r, opt$par$Z,
                                                        numeric(0), settings(TRUE)))
fit <- timed(sprintf("posterior on %d rows", n), ns$gp_fit(p, learning, opt, quote(sparse_gp())))
cat(sprintf("\nevaluations %d, ELBO %.2f, latent RMSE %.6f\n", opt$counts[[1L]], fit$logLik,
            sqrt(mean((predict(fit, xt) - ft)^2))))
