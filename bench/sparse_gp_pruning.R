# sparse_gp()'s pruning of inducing points (issue 60): the default fit
# against the same fit keeping every point (inducing_tol = 0), over seeds,
# start widths, noise levels and inducing layouts (a grid, a line, tight
# clusters, copies and near-copies), VFE with the hyperparameters learned
# ("hyper") or the inducing points too ("all"). Prints each cell (points
# kept, restored, the bound of each fit, their test latent RMSE) and the
# worst loss of the bound and ratio of RMSE.
#
#   Rscript bench/sparse_gp_pruning.R [seeds, default 1,2,3]
#   Rscript bench/sparse_gp_pruning.R reproducers
#     the issue's reproducers (a grid at a width of 50, Branin without
#     noise, a segment at width 1, inducing points on a line), the default
#     against every point.
# Run from the package root after installing.
suppressPackageStartupMessages(library(sparsebayes))
args <- commandArgs(TRUE)
if (identical(args[1L], "reproducers")) {
  every <- sparse_gp_control(inducing_tol = 0)
  out <- function(what, a, b, ra, rb) cat(sprintf("%-34s default: m %3d, bound %9.2f, %s %.4g | every point: m %3d, bound %9.2f, %s %.4g\n",
                                                  what, a$m, a$logLik, names(ra), ra, b$m, b$logLik, names(rb), rb))
  set.seed(8)
  X <- cbind(x1 = runif(400), x2 = runif(400))
  y <- sin(8 * X[, 2]) + 0.2 * X[, 1] + rnorm(400, sd = 0.05)
  Z <- as.matrix(expand.grid(x1 = seq(0.1, 0.9, length.out = 5), x2 = seq(0.05, 0.95, length.out = 8)))
  fits <- lapply(list(sparse_gp_control(), every), function(control)
    sparse_gp(X, y, inducing = Z, optimize = "hyper", kernel = kernel_gaussian(c(1, 50)), control = control))
  lat <- function(fit) c(latent_rmse = sqrt(mean((fitted(fit) - sin(8 * X[, 2]) - 0.2 * X[, 1])^2)))
  out("grid, width (1, 50)", fits[[1]], fits[[2]], lat(fits[[1]]), lat(fits[[2]]))
  branin <- function(x) (x[, 2] - 5.1 / (4 * pi^2) * x[, 1]^2 + 5 / pi * x[, 1] - 6)^2 +
    10 * (1 - 1 / (8 * pi)) * cos(x[, 1]) + 10
  for (s in 1:3) {
    set.seed(s)
    X <- cbind(x1 = runif(500, -5, 10), x2 = runif(500, 0, 15))
    Xt <- cbind(x1 = runif(2000, -5, 10), x2 = runif(2000, 0, 15))
    fits <- lapply(list(sparse_gp_control(), every), function(control)
      sparse_gp(X, branin(X), inducing = 150, seed = 1, control = control))
    test <- function(fit) c(test_rmse = sqrt(mean((predict(fit, Xt) - branin(Xt))^2)))
    out(sprintf("Branin, n 500, 150 k-means, seed %d", s), fits[[1]], fits[[2]], test(fits[[1]]), test(fits[[2]]))
  }
  set.seed(1)
  x <- runif(100, 0, 2)
  xt <- c(-0.3, -0.1, 2.1, 2.3)
  for (noise in c(1e-2, 1e-4, 1e-6)) {
    y <- sin(2 * x) + rnorm(100, sd = sqrt(noise))
    fits <- lapply(list(sparse_gp_control(), every), function(control)
      sparse_gp(x, y, inducing = matrix(seq(0, 2, length.out = 40)), kernel = kernel_gaussian(1), optimize = "none",
                noise_variance = noise, scale = FALSE, control = control))
    v <- lapply(fits, function(f) predict(f, xt, se.fit = TRUE)$se.fit^2)
    out(sprintf("segment, width 1, noise %g", noise), fits[[1]], fits[[2]],
        c(max_var_change = max(abs(v[[1]] / v[[2]] - 1))), c(max_var_change = 0))
  }
  f <- function(x) sin(4 * x[, 1]) + cos(5 * x[, 2])
  for (s in 1:4) {
    set.seed(s)
    X <- cbind(x1 = runif(300), x2 = runif(300))
    y <- f(X) + rnorm(300, sd = 0.1)
    for (layout in c("line", "diagonal")) {
      t <- seq(0, 1, length.out = 15)
      Z <- if (layout == "line") cbind(x1 = t, x2 = 0.5) else cbind(x1 = t, x2 = t)
      fits <- lapply(list(sparse_gp_control(), every), function(control)
        sparse_gp(X, y, inducing = Z, optimize = "hyper", control = control))
      r2 <- function(fit) c(R2 = 1 - sum(residuals(fit)^2) / sum((y - mean(y))^2))
      out(sprintf("VFE, points on a %s, seed %d", layout, s), fits[[1]], fits[[2]], r2(fits[[1]]), r2(fits[[2]]))
    }
  }
  quit(save = "no")
}
seeds <- if (length(args)) as.integer(strsplit(args[1L], ",")[[1L]]) else 1:3
f <- function(x) sin(8 * x[, 2]) + 0.2 * x[, 1] + 0.5 * cos(3 * x[, 1])
layouts <- list(
  grid = function() as.matrix(expand.grid(x1 = seq(0.1, 0.9, length.out = 5), x2 = seq(0.05, 0.95, length.out = 8))),
  line = function() cbind(x1 = seq(0, 1, length.out = 30), x2 = 0.5),
  diagonal = function() cbind(x1 = seq(0, 1, length.out = 30), x2 = seq(0, 1, length.out = 30)),
  clusters = function() {
    c0 <- cbind(c(0.2, 0.8, 0.2, 0.8, 0.5), c(0.2, 0.2, 0.8, 0.8, 0.5))
    z <- c0[rep(1:5, each = 8), ] + matrix(rnorm(80, sd = 0.02), 40, 2)
    colnames(z) <- c("x1", "x2")
    z
  },
  copies = function() {
    z <- cbind(x1 = runif(15), x2 = runif(15))
    rbind(z, z, z[1:10, ] + 1e-7, z[1:5, ] + 1e-3)
  },
  kmeans = function() 60)
starts <- list(learned = NULL, `1,50` = c(1, 50), `0.3` = c(0.3, 0.3), `10` = c(10, 10))
rows <- list()
for (s in seeds) for (sd in c(0.05, 1e-3)) for (lay in names(layouts)) for (st in names(starts)) for (opt in c("hyper", "all")) {
  set.seed(s)
  X <- cbind(x1 = runif(300), x2 = runif(300))
  y <- f(X) + rnorm(300, sd = sd)
  Xt <- cbind(x1 = runif(2000), x2 = runif(2000))
  Z <- layouts[[lay]]()
  k <- if (is.null(starts[[st]])) kernel_gaussian() else kernel_gaussian(starts[[st]])
  fit <- function(tol) {
    t <- system.time(g <- suppressWarnings(sparse_gp(X, y, inducing = Z, kernel = k, optimize = opt, seed = 1,
                                                    control = sparse_gp_control(inducing_tol = tol))))
    list(fit = g, time = t[["elapsed"]], rmse = sqrt(mean((predict(g, Xt) - f(Xt))^2)))
  }
  a <- fit(NULL)
  b <- fit(0)
  ind <- a$fit$learned$inducing
  rows[[length(rows) + 1L]] <- data.frame(seed = s, noise_sd = sd, layout = lay, start = st, optimize = opt,
    asked = b$fit$m, kept = a$fit$m, restored = if ("restored" %in% names(ind)) ind[["restored"]] else 0,
    worth = if ("worth" %in% names(ind)) signif(ind[["worth"]], 3) else 0,
    bound = round(a$fit$logLik, 2), bound_all = round(b$fit$logLik, 2), loss = round(b$fit$logLik - a$fit$logLik, 3),
    rmse = signif(a$rmse, 4), rmse_all = signif(b$rmse, 4), ratio = round(a$rmse / b$rmse, 4),
    time = a$time, time_all = b$time)
}
res <- do.call(rbind, rows)
options(width = 200)
print(res, row.names = FALSE)
cat(sprintf("\n%d cells: points dropped in %d, restored in %d; bound loss (every point minus default): max %.3f nats (%.2g a row), min %.3f; RMSE ratio: max %.4f, median %.4f; time %.1f s against %.1f s\n",
            nrow(res), sum(res$kept < res$asked), sum(res$restored > 0), max(res$loss), max(res$loss) / 300, min(res$loss),
            max(res$ratio), stats::median(res$ratio), sum(res$time), sum(res$time_all)))
