# Issue 60: inducing points dropped at the starting hyperparameters are
# decided again at the learned ones (they may cost the bound and the
# prediction at most control$inducing_cost nats a row), and a start that
# runs to the constant model is followed by a second one.

all_points <- sparse_gp_control(inducing_tol = 0)

test_that("points dropped at a width the optimum leaves are restored (grid, width 50 in an input that needs 1.5)", {
  set.seed(8)
  X <- cbind(x1 = runif(400), x2 = runif(400))
  y <- sin(8 * X[, 2]) + 0.2 * X[, 1] + rnorm(400, sd = 0.05)
  Z <- as.matrix(expand.grid(x1 = seq(0.1, 0.9, length.out = 5), x2 = seq(0.05, 0.95, length.out = 8)))
  k <- kernel_gaussian(c(1, 50))
  a <- sparse_gp(X, y, inducing = Z, optimize = "hyper", kernel = k)
  b <- sparse_gp(X, y, inducing = Z, optimize = "hyper", kernel = k, control = all_points)
  # before: 15 kept, bound 98.2 (latent RMSE 0.151) against 40 and 579.4 (0.0078)
  expect_identical(a$m, 40L)
  expect_equal(a$logLik, b$logLik, tolerance = 1e-8)
  expect_gt(a$logLik, 579)
  expect_equal(a$learned$inducing[c("asked", "kept", "restored")], c(asked = 40, kept = 40, restored = 25))
  expect_output(print(summary(a)), "25 inducing points dropped at the starting hyperparameters were restored")
  expect_output(print(a), "40 inducing points \\(n = 400\\)")
})

test_that("Branin without noise, 150 k-means points: the default predicts as every point does", {
  branin <- function(x) (x[, 2] - 5.1 / (4 * pi^2) * x[, 1]^2 + 5 / pi * x[, 1] - 6)^2 +
    10 * (1 - 1 / (8 * pi)) * cos(x[, 1]) + 10
  set.seed(2)
  X <- cbind(x1 = runif(300, -5, 10), x2 = runif(300, 0, 15))
  Xt <- cbind(x1 = runif(1000, -5, 10), x2 = runif(1000, 0, 15))
  a <- sparse_gp(X, branin(X), inducing = 150, seed = 1)
  b <- sparse_gp(X, branin(X), inducing = 150, seed = 1, control = all_points)
  rmse <- function(fit) sqrt(mean((predict(fit, Xt) - branin(Xt))^2))
  # before: 91 kept, bound 112.0 against 162.1, test RMSE 18% higher
  expect_gte(b$logLik - a$logLik, -1e-8)
  expect_lte(b$logLik - a$logLik, 1e-4 * 300)
  expect_lte(rmse(a), 1.02 * rmse(b))
})

test_that("40 points on a segment at width 1: the predictive variance beside it stays that of every point", {
  set.seed(1)
  x <- runif(100, 0, 2)
  xt <- c(-0.3, -0.1, 2.1, 2.3)
  z <- matrix(seq(0, 2, length.out = 40))
  for (noise in c(1e-2, 1e-6)) {
    y <- sin(2 * x) + rnorm(100, sd = sqrt(noise))
    fits <- lapply(list(sparse_gp_control(), all_points), function(control)
      sparse_gp(x, y, inducing = z, kernel = kernel_gaussian(1), optimize = "none", noise_variance = noise,
                scale = FALSE, control = control))
    # fixed hyperparameters: what the dropped points are worth is the bound lost
    loss <- fits[[2]]$logLik - fits[[1]]$logLik
    expect_lte(loss, 1e-4 * 100)
    expect_equal(loss, fits[[1]]$learned$inducing[["worth"]] %||% 0, tolerance = 1e-6)
    v <- lapply(fits, function(f) predict(f, xt, se.fit = TRUE)$se.fit^2)
    # before, at noise 1e-6: 13 of 40 kept, variances up to 28% off, 25 nats lost
    expect_lt(max(abs(v[[1]] / v[[2]] - 1)), 0.01)
  }
  expect_lt(fits[[1]]$m, 40L + 1L)
})

test_that("the default pruning never costs more than inducing_cost a row of the bound, nor 2% of test RMSE", {
  # grids, lines, clusters, copies; start widths learned, too long in one
  # input, short, long; seeds vary with the cell (bench/sparse_gp_pruning.R
  # runs the full table)
  f <- function(x) sin(8 * x[, 2]) + 0.2 * x[, 1] + 0.5 * cos(3 * x[, 1])
  layouts <- list(
    grid = function() as.matrix(expand.grid(x1 = seq(0.1, 0.9, length.out = 5), x2 = seq(0.05, 0.95, length.out = 6))),
    line = function() cbind(x1 = seq(0, 1, length.out = 25), x2 = 0.5),
    clusters = function() {
      z <- cbind(c(0.2, 0.8, 0.2, 0.8), c(0.2, 0.2, 0.8, 0.8))[rep(1:4, each = 6), ] + rnorm(48, sd = 0.02)
      colnames(z) <- c("x1", "x2")
      z
    },
    copies = function() {
      z <- cbind(x1 = runif(12), x2 = runif(12))
      rbind(z, z, z[1:6, ] + 1e-7)
    })
  starts <- list(NULL, c(1, 50), c(0.3, 0.3), c(10, 10))
  cell <- 0L
  for (lay in names(layouts)) for (st in seq_along(starts)) {
    cell <- cell + 1L
    set.seed(cell)
    X <- cbind(x1 = runif(200), x2 = runif(200))
    y <- f(X) + rnorm(200, sd = if (cell %% 2L) 0.05 else 1e-3)
    Xt <- cbind(x1 = runif(500), x2 = runif(500))
    Z <- layouts[[lay]]()
    k <- if (is.null(starts[[st]])) kernel_gaussian() else kernel_gaussian(starts[[st]])
    fits <- lapply(list(NULL, 0), function(tol)
      sparse_gp(X, y, inducing = Z, kernel = k, optimize = "hyper", control = sparse_gp_control(inducing_tol = tol)))
    rmse <- vapply(fits, function(fit) sqrt(mean((predict(fit, Xt) - f(Xt))^2)), numeric(1))
    info <- sprintf("%s, start %d: %d of %d kept", lay, st, fits[[1]]$m, fits[[2]]$m)
    expect_lte(fits[[2]]$logLik - fits[[1]]$logLik, 1e-4 * 200, label = info)
    expect_lte(rmse[1], 1.02 * rmse[2], label = info)
  }
})

test_that("a width started where the kernel is flat, and left there, is followed by a second start", {
  # 15 inducing points and 15 near-copies (1e-7 and 1e-3 apart), start
  # widths (1, 50), inducing points learned: the fit stayed at x2's start
  # width (48, bound -321, latent RMSE 0.71) where the kernel is flat in x2;
  # the second start reaches 1358. With 15 exact copies more, the default
  # dropped them, stalled the same way, and lost 1721 nats to every point.
  f <- function(x) sin(8 * x[, 2]) + 0.2 * x[, 1] + 0.5 * cos(3 * x[, 1])
  set.seed(3)
  X <- cbind(x1 = runif(300), x2 = runif(300))
  y <- f(X) + rnorm(300, sd = 1e-3)
  invisible(runif(4000))
  z <- cbind(x1 = runif(15), x2 = runif(15))
  Z <- rbind(z, z[1:10, ] + 1e-7, z[1:5, ] + 1e-3)
  fit <- sparse_gp(X, y, inducing = Z, kernel = kernel_gaussian(c(1, 50)), optimize = "all")
  expect_lt(fit$kernel$width[["x2"]], 5)
  expect_gt(fit$logLik, 1300)
  expect_identical(fit$learned$stalled, "x2")
  expect_equal(fit$learned$collapse[["first"]], -320.9, tolerance = 1e-3)
  expect_equal(fit$learned$collapse[["second"]], fit$logLik, tolerance = 1e-8)
  expect_output(print(summary(fit)), "x2 stayed at the start, where the kernel is flat in it \\(-320\\.\\d+\\); a second start .* reached 1[0-9]{3}")
  copies <- sparse_gp(X, y, inducing = rbind(z, Z), kernel = kernel_gaussian(c(1, 50)), optimize = "all")
  expect_gt(copies$logLik, 1300)
  # a learned start is not second-guessed: the search had the widths in view
  expect_null(sparse_gp(X, y, inducing = Z, optimize = "all")$learned$stalled)
})

test_that("VFE with inducing points on a line does not collapse to the constant model", {
  f <- function(x) sin(4 * x[, 1]) + cos(5 * x[, 2])
  set.seed(1)
  X <- cbind(x1 = runif(300), x2 = runif(300))
  y <- f(X) + rnorm(300, sd = 0.1)
  Z <- cbind(x1 = seq(0, 1, length.out = 15), x2 = 0.5)
  fit <- sparse_gp(X, y, inducing = Z, optimize = "hyper")
  # before: the exact GP's start ran to the kernel variance's lower bound,
  # R^2 2e-5 and bound -372.4; from the heuristic start -302.4
  r2 <- 1 - sum(residuals(fit)^2) / sum((y - mean(y))^2)
  expect_gt(r2, 0.4)
  expect_gt(fit$logLik, -303)
  expect_equal(fit$learned$collapse[["first"]], -372.4, tolerance = 1e-3)
  expect_equal(fit$learned$collapse[["second"]], fit$logLik, tolerance = 1e-8)
  expect_equal(fit$restart_values, unname(fit$learned$collapse[c("first", "second")]), tolerance = 1e-8)
  expect_output(print(summary(fit)), "the start ran to the constant model \\(-372\\.\\d+\\); a second start .* reached -302")
  # pure noise: both starts are the constant model, and summary() says so
  noise <- sparse_gp(X, rnorm(300), inducing = Z, optimize = "hyper")
  expect_lt(noise$learned$collapse[["gain"]], noise$learned$collapse[["price"]])
  expect_output(print(summary(noise)), "close to the constant model from both starts")
})
