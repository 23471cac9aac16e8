# Reference results from Tipping (2001) and closed-form checks of the fit.

test_that("Tipping's sinc example: about 7 relevance vectors, RMSE 0.03-0.04", {
  grid <- seq(-10, 10, length.out = 1000)
  res <- t(vapply(1:10, function(seed) {
    d <- sinc_data(100, 0.1, seed)
    fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
    c(rv = length(fit$relevant), rmse = sqrt(mean((predict(fit, grid) - sinc(grid))^2)),
      sigma = sqrt(fit$lambda), converged = fit$converged)
  }, numeric(4)))
  expect_true(all(res[, "converged"] == 1))
  expect_gt(mean(res[, "rv"]), 5)
  expect_lt(mean(res[, "rv"]), 9.5)
  expect_gt(mean(res[, "rmse"]), 0.015)
  expect_lt(mean(res[, "rmse"]), 0.045)
  expect_equal(mean(res[, "sigma"]), 0.1, tolerance = 0.1)
})

test_that("the reported log evidence equals the dense Gaussian log density", {
  d <- sinc_data(80, 0.1, 3)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  Phi <- cbind(1, kernel_matrix(kernel_gaussian(3), d$x))
  # the evidence of the model in standard units: of y minus its centre
  expect_equal(fit$logLik, dense_log_evidence(Phi, d$y - fit$standard_units[["center"]], fit$alpha, fit$lambda),
               tolerance = 1e-8)
  expect_equal(as.numeric(logLik(fit)), fit$logLik)
})

test_that("weights and covariance are the posterior at the returned alpha and noise", {
  d <- sinc_data(80, 0.1, 4)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  Phi <- cbind(1, kernel_matrix(kernel_gaussian(3), d$x))[, fit$relevant, drop = FALSE]
  beta <- 1 / fit$lambda
  # The fit runs on y minus its centre u; the bias weight carries u on top.
  # If the centred fit pruned the bias, it holds u alone as an unpenalised
  # intercept (alpha 0) with variance lambda / n, uncorrelated with the rest.
  u <- fit$standard_units[["center"]]
  a <- fit$alpha[fit$relevant] > 0
  Sigma <- solve(beta * crossprod(Phi[, a]) + diag(fit$alpha[fit$relevant][a], sum(a)))
  expect_equal(unname(fit$Sigma[a, a]), Sigma, tolerance = 1e-8)
  w <- numeric(length(a))
  w[a] <- drop(beta * Sigma %*% crossprod(Phi[, a], d$y - u))
  w[1] <- w[1] + u
  expect_equal(unname(fit$weights), w, tolerance = 1e-8)
  if (!a[1]) {
    expect_equal(fit$Sigma[1, 1], fit$lambda / length(d$y), tolerance = 1e-12)
    expect_true(all(fit$Sigma[1, -1] == 0))
  }
  expect_equal(fit$fitted.values, drop(Phi %*% fit$weights), tolerance = 1e-10)
  expect_equal(sum(is.finite(fit$alpha)), length(fit$relevant))
  expect_true(all(is.infinite(fit$alpha[-fit$relevant])))
})

test_that("at the optimum every retained alpha is at its stationary point", {
  # Fixed point of the marginal likelihood: alpha_i = s_i^2 / (q_i^2 - s_i),
  # equivalently gamma_i / mu_i^2 (MacKay); checked to the solver's tolerance.
  d <- sinc_data(100, 0.1, 5)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  # (ARD weights only: an unpenalised intercept, alpha 0, carries the centre of y)
  a <- fit$alpha[fit$relevant] > 0
  gamma <- 1 - fit$alpha[fit$relevant] * diag(fit$Sigma)
  expect_equal(unname(log(gamma / fit$weights^2))[a], unname(log(fit$alpha[fit$relevant]))[a], tolerance = 0.05)
})

test_that("each fast-solver step never lowers the log evidence", {
  d <- sinc_data(150, 0.2, 6)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(2), scale = FALSE)
  expect_true(all(diff(fit$trace$log_posterior) > -1e-8))
  expect_equal(tail(fit$trace$log_posterior, 1), fit$logLik, tolerance = 1e-8)
})

test_that("fast and MacKay solvers reach the same log evidence on small problems", {
  d <- linear_data()
  fast <- rvm(y = d$y, basis = d$X)
  slow <- rvm(y = d$y, basis = d$X, method = "mackay")
  expect_true(slow$converged)
  expect_equal(fast$logLik, slow$logLik, tolerance = 1e-4)
  expect_setequal(fast$relevant, slow$relevant)
  expect_equal(fast$weights[order(fast$relevant)], slow$weights[order(slow$relevant)], tolerance = 1e-3)

  for (seed in 1:4) {
    set.seed(seed)
    X <- matrix(rnorm(50 * 10), 50)
    y <- X[, 1] - X[, 2] + rnorm(50)
    expect_equal(rvm(y = y, basis = X)$logLik, rvm(y = y, basis = X, method = "mackay")$logLik,
                 tolerance = 1e-6, info = paste("seed", seed))
  }
  # On kernel bases the evidence has several local maxima and the two routes
  # may stop at different ones; on this one they meet (since the fits centre
  # y, seed 7 is no longer such a case; seed 2 is).
  s <- sinc_data(30, 0.1, 2)
  Phi <- cbind(1, kernel_matrix(kernel_gaussian(3), s$x))
  expect_equal(rvm(y = s$y, basis = Phi)$logLik, rvm(y = s$y, basis = Phi, method = "mackay")$logLik,
               tolerance = 1e-4)
})

test_that("scaling the response scales the fit (equivariance)", {
  d <- sinc_data(100, 0.1, 8)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  for (k in c(1e-6, 1e6)) {
    fk <- rvm(d$x, k * d$y, kernel = kernel_gaussian(3), scale = FALSE)
    expect_equal(fk$relevant, fit$relevant)
    expect_equal(fk$weights, k * fit$weights, tolerance = 1e-6)
    expect_equal(fk$lambda, k^2 * fit$lambda, tolerance = 1e-6)
    expect_equal(fk$logLik, fit$logLik - length(d$y) * log(k), tolerance = 1e-6)
  }
})

test_that("a relevant basis duplicated is not added twice (alignment test)", {
  d <- linear_data()
  X <- cbind(d$X, d$X[, 1])
  fit <- rvm(y = d$y, basis = X)
  expect_false(all(c(1, 7) %in% fit$relevant))
})

test_that("fits are deterministic", {
  d <- sinc_data(100, 0.1, 9)
  a <- rvm(d$x, d$y)
  b <- rvm(d$x, d$y)
  expect_identical(a$weights, b$weights)
  expect_identical(a$trace, b$trace)
})
