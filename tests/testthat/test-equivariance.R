# Gaussian fits run in standard units (R/standard_units.R): shifting y by c
# shifts every prediction by c, scaling y by c scales means by c and
# predictive variances by c^2, for every solver, with shared and per-sample
# noise; noise bounds are relative to the residuals, not var(y).

equivariance_case <- function(fit0, fit1, shift, scale, sd_y, newdata, tol, info) {
  expect_identical(fit1$relevant, fit0$relevant, info = info)
  expect_lt(max(abs((fitted(fit1) - shift) / scale - fitted(fit0))) / sd_y, tol)
  p0 <- predict(fit0, newdata, se.fit = TRUE)
  p1 <- predict(fit1, newdata, se.fit = TRUE)
  expect_lt(max(abs((p1$fit - shift) / scale - p0$fit)) / sd_y, tol)
  expect_equal(p1$se.fit / abs(scale), p0$se.fit, tolerance = tol, info = info)
  expect_equal(p1$residual.scale / abs(scale), p0$residual.scale, tolerance = tol, info = info)
  expect_equal(fit1$lambda / scale^2, fit0$lambda, tolerance = tol, info = info)
  # the Jacobian: logLik(y * c) = logLik(y) - n log|c|
  expect_equal(fit1$logLik + length(fit0$y) * log(abs(scale)), fit0$logLik, tolerance = tol, info = info)
}

transforms <- list(c(shift = 1e3, scale = 1), c(shift = 1e8, scale = 1), c(shift = 0, scale = 1e100),
                   c(shift = 0, scale = 1e-100), c(shift = -1e6, scale = -3))

test_that("rvm(): y + c and y * c move every solver's fit exactly (sinc, shared and per-sample noise)", {
  quiet <- function(expr) suppressWarnings(expr)
  xt <- seq(-9, 9, length.out = 7)
  for (method in c("fast", "mackay", "em", "irls2", "irls1", "gradient")) {
    for (noise in c("shared", "sample")) {
      seeds <- if (method %in% c("fast", "mackay")) 1:10 else 1:2
      n <- if (method %in% c("fast", "mackay")) 100 else 50
      ctl <- if (method %in% c("irls1", "gradient")) ard_control(max_iterations = 300)
      for (seed in seeds) {
        d <- sinc_data(n, 0.1, seed)
        fit_of <- function(y) quiet(rvm(d$x, y, kernel = kernel_gaussian(3), scale = FALSE, method = method,
                                        noise = noise, control = ctl))
        fit0 <- fit_of(d$y)
        for (tr in transforms) {
          info <- sprintf("rvm %s/%s seed %d shift %g scale %g", method, noise, seed, tr[["shift"]], tr[["scale"]])
          fit1 <- fit_of(d$y * tr[["scale"]] + tr[["shift"]])
          equivariance_case(fit0, fit1, tr[["shift"]], tr[["scale"]], sd(d$y), xt, 1e-6, info)
        }
      }
    }
  }
})

test_that("ard(): y + c and y * c move every solver's fit exactly", {
  quiet <- function(expr) suppressWarnings(expr)
  for (method in c("em", "mackay", "irls2", "irls1", "gradient", "fast")) {
    for (noise in c("shared", "sample")) {
      seeds <- if (method %in% c("em", "fast")) 1:10 else 1:2
      ctl <- if (method %in% c("irls1", "gradient")) ard_control(max_iterations = 300) else ard_control()
      for (seed in seeds) {
        d <- outlier_data(n = 80, n_out = 3, seed = seed)
        fit_of <- function(y) quiet(ard(d$X, y, method = method, noise = noise, control = ctl))
        fit0 <- fit_of(d$y)
        for (tr in transforms) {
          info <- sprintf("ard %s/%s seed %d shift %g scale %g", method, noise, seed, tr[["shift"]], tr[["scale"]])
          fit1 <- fit_of(d$y * tr[["scale"]] + tr[["shift"]])
          equivariance_case(fit0, fit1, tr[["shift"]], tr[["scale"]], sd(d$y), d$X[1:5, ], 1e-6, info)
        }
      }
    }
  }
})

test_that("the wavelet shortcut and a user basis with a constant column are equivariant", {
  s <- make_signal("bumps", n = 128, snr = 7, seed = 6)
  for (shortcut in c(TRUE, FALSE)) {
    ctl <- rvm_control(orthonormal_shortcut = shortcut)
    fit0 <- rvm(s$x, s$y, kernel = kernel_wavelet("haar"), prior = "BIC", control = ctl)
    fit1 <- rvm(s$x, 1e6 + 1e50 * s$y, kernel = kernel_wavelet("haar"), prior = "BIC", control = ctl)
    expect_identical(fit1$relevant, fit0$relevant)
    expect_lt(max(abs((fitted(fit1) - 1e6) / 1e50 - fitted(fit0))) / sd(s$y), 1e-6)
    expect_equal(fit1$lambda / 1e100, fit0$lambda, tolerance = 1e-6)
  }
  d <- sinc_data(60, 0.1, 3)
  Phi <- cbind(2, kernel_matrix(kernel_gaussian(3), d$x))
  fit0 <- rvm(y = d$y, basis = Phi)
  fit1 <- rvm(y = d$y + 1e4, basis = Phi)
  expect_identical(fit1$relevant, fit0$relevant)
  expect_lt(max(abs(fitted(fit1) - 1e4 - fitted(fit0))), 1e-8)
  expect_equal(unname(coef(fit1)[1] - coef(fit0)[1]), 1e4 / 2, tolerance = 1e-10)
  # without a constant column y is scaled but not centred
  fit2 <- rvm(y = d$y * 1e-30, basis = Phi[, -1])
  fit3 <- rvm(y = d$y, basis = Phi[, -1])
  expect_equal(fitted(fit2) * 1e30, fitted(fit3), tolerance = 1e-8)
})

test_that("Tipping's sinc + 1000 keeps its relevance vectors", {
  d <- sinc_data(100, 0.1, 1)
  fit0 <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  fit1 <- rvm(d$x, d$y + 1000, kernel = kernel_gaussian(3), scale = FALSE)
  expect_gt(length(fit1$relevance_index), 2)
  expect_identical(fit1$relevance_index, fit0$relevance_index)
  expect_lt(max(abs(fitted(fit1) - 1000 - fitted(fit0))), 1e-8)
  # a fixed noise variance is in the units of y
  fit2 <- rvm(d$x, 10 * d$y, kernel = kernel_gaussian(3), scale = FALSE, control = rvm_control(noise_variance = 1))
  fit3 <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE, control = rvm_control(noise_variance = 0.01))
  expect_equal(fit2$lambda, 1)
  expect_equal(fitted(fit2) / 10, fitted(fit3), tolerance = 1e-8)
})

test_that("shared-noise EM and MacKay are not clipped by a floor relative to var(y)", {
  set.seed(11)
  n <- 600
  d <- 80
  X <- matrix(rnorm(n * d), n)
  b <- numeric(d)
  b[1:40] <- rnorm(40, sd = 2)
  y <- drop(X %*% b) + rnorm(n, sd = 0.2)
  # the old floor, 1e-3 var(y), sits above the true noise variance 0.04
  expect_gt(1e-3 * var(y), 0.2^2)
  fast <- ard(X, y, method = "fast")
  for (m in c("em", "mackay")) {
    fit <- ard(X, y, method = m)
    expect_equal(sqrt(fit$lambda), sqrt(fast$lambda), tolerance = 0.03, info = m)
    expect_equal(sqrt(fit$lambda), 0.2, tolerance = 0.1, info = m)
    # the floor is now relative to the residuals (0.05 of their squared MAD): far below
    expect_gt(fit$lambda, 1.05 * ard_control()$lambda_min * stats::mad(residuals(fit))^2)
    expect_lt(fit$lambda, 1e-3 * var(y))
  }
})

test_that("a 1e12 outlier with per-sample noise leaves the clean points' fit alone", {
  set.seed(2)
  n <- 200
  X <- matrix(rnorm(n * 5), n)
  y <- drop(X[, 1:2] %*% c(1, -1)) + rnorm(n, sd = 0.1)
  y2 <- y
  y2[7] <- 1e12
  rms <- function(a) sqrt(mean(a^2))
  # (noise sd 0.1; before, the floors from var(y) moved these fits by 1e2 to 1e6)
  for (m in c("em", "mackay", "fast")) {
    f0 <- ard(X, y, noise = "sample", method = m)
    f1 <- ard(X, y2, noise = "sample", method = m)
    expect_lt(rms(fitted(f1)[-7] - fitted(f0)[-7]), if (m == "em") 0.005 else 0.05)
    expect_equal(which.max(f1$lambda), 7L)
  }
  d <- sinc_data(100, 0.1, 3)
  y2 <- d$y
  y2[10] <- 1e12
  for (m in c("fast", "em")) {
    f0 <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE, noise = "sample", method = m)
    f1 <- suppressWarnings(rvm(d$x, y2, kernel = kernel_gaussian(3), scale = FALSE, noise = "sample", method = m))
    # (the kernel fits may stop at another local optimum: compare accuracy)
    expect_lt(rms(fitted(f1)[-10] - sinc(d$x[-10])), rms(fitted(f0)[-10] - sinc(d$x[-10])) + 0.015)
  }
})

test_that("features of any magnitude are scaled, not taken for constants", {
  set.seed(1)
  X <- matrix(rnorm(100 * 6), 100)
  y <- drop(X[, 1:2] %*% c(1, -2)) + rnorm(100, sd = 0.3)
  a <- ard(X, y)
  b <- ard(X * 1e-200, y)
  expect_identical(names(coef(b)), names(coef(a)))
  expect_equal(fitted(b), fitted(a), tolerance = 1e-10)
  expect_equal(predict(b, X[1:5, ] * 1e-200), predict(a, X[1:5, ]), tolerance = 1e-10)
  c1 <- ard(X * 1e200, y)
  expect_equal(fitted(c1), fitted(a), tolerance = 1e-10)
  r1 <- rvm(X, y, scale = TRUE, kernel = kernel_gaussian("median"))
  r2 <- rvm(X * 1e-200, y, scale = TRUE, kernel = kernel_gaussian("median"))
  expect_identical(r2$relevant, r1$relevant)
  expect_equal(fitted(r2), fitted(r1), tolerance = 1e-10)
  # learned widths: the same to the optimiser's tolerance
  expect_equal(fitted(rvm(X * 1e-200, y)), fitted(rvm(X, y)), tolerance = 1e-6)
  # a constant column is still found when its values carry roundoff
  Xc <- cbind(X, 5 + c(0, 1e-15))
  expect_equal(unname(ard(Xc, y)$scaling$scale[ncol(Xc) + 1L]), 1)
})

test_that("sparse_gp(): y + c and y * c move the fit exactly (VFE to the optimiser's tolerance)", {
  set.seed(1)
  x <- runif(150, -10, 10)
  y <- sin(x) / x + rnorm(150, sd = 0.1)
  xt <- seq(-9, 9, length.out = 7)
  for (approx in c("VFE", "exact")) {
    tol <- if (approx == "exact") 1e-6 else 1e-4
    # VFE's bound is flat along trades between the noise and the inducing
    # points: equal bounds (to 1e-4) can sit 1e-3 apart in the noise.
    tol_flat <- if (approx == "exact") 1e-6 else 2e-3
    f0 <- sparse_gp(x, y, inducing = 15, approx = approx, seed = 1)
    for (tr in transforms) {
      info <- sprintf("%s shift %g scale %g", approx, tr[["shift"]], tr[["scale"]])
      f1 <- sparse_gp(x, y * tr[["scale"]] + tr[["shift"]], inducing = 15, approx = approx, seed = 1)
      p0 <- predict(f0, xt, se.fit = TRUE)
      p1 <- predict(f1, xt, se.fit = TRUE)
      expect_lt(max(abs((p1$fit - tr[["shift"]]) / tr[["scale"]] - p0$fit)) / sd(y), tol)
      expect_equal(p1$se.fit / abs(tr[["scale"]]), p0$se.fit, tolerance = tol_flat, info = info)
      expect_equal(f1$noise_variance / tr[["scale"]]^2, f0$noise_variance, tolerance = tol_flat, info = info)
      expect_equal(f1$logLik + length(y) * log(abs(tr[["scale"]])), f0$logLik, tolerance = tol, info = info)
    }
  }
})
