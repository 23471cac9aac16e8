# Formula and matrix interfaces, predict, persistence and methods.

test_that("formula and matrix interfaces give identical fits", {
  d <- sinc_data(100, 0.1, 11)
  a <- rvm(y ~ x, data = d)
  b <- rvm(d$x, d$y)
  expect_identical(a$weights, b$weights)
  expect_identical(a$Sigma, b$Sigma)
  expect_identical(a$logLik, b$logLik)
  expect_identical(predict(a, data.frame(x = c(-3, 0.5))), predict(b, c(-3, 0.5)))
})

test_that("factors are expanded and newdata keeps the training levels", {
  set.seed(12)
  d <- data.frame(x = runif(90, -3, 3), g = factor(sample(c("a", "b", "c"), 90, TRUE)))
  d$y <- sin(d$x) + c(a = 0, b = 1, c = -1)[as.character(d$g)] + rnorm(90, sd = 0.1)
  fit <- rvm(y ~ x + g, data = d)
  expect_equal(colnames(fit$x), c("x", "gb", "gc"))
  expect_equal(fit$xlevels, list(g = c("a", "b", "c")))
  nd <- data.frame(x = c(0, 0), g = factor(c("b", "c")))  # fewer levels than in training
  p <- predict(fit, nd)
  expect_equal(unname(p[1] - p[2]), 2, tolerance = 0.2)
  expect_error(predict(fit, data.frame(x = 0, g = "z")), "newdata.*new level")
  expect_error(predict(fit, data.frame(g = "a")), "newdata.*lacks the variable.*x")
})

test_that("subset and na.action are honoured, and NA rows predict NA", {
  d <- sinc_data(100, 0.1, 13)
  d$y[c(3, 50)] <- NA
  fit <- rvm(y ~ x, data = d, subset = x > -8)
  expect_equal(nobs(fit), sum(d$x > -8 & !is.na(d$y)))
  expect_s3_class(fit$na.action, "omit")
  expect_error(rvm(y ~ x, data = d, na.action = na.fail), "missing values")
  p <- predict(fit, data.frame(x = c(1, NA, 2)))
  expect_true(is.na(p[2]))
  expect_false(anyNA(p[-2]))
})

test_that("predict matches predict.lm's shapes and the intervals are Gaussian", {
  d <- sinc_data(100, 0.1, 14)
  fit <- rvm(y ~ x, data = d)
  nd <- data.frame(x = c(-5, 0, 5))
  p <- predict(fit, nd)
  expect_type(p, "double")
  expect_length(p, 3)
  ci <- predict(fit, nd, interval = "confidence", level = 0.9)
  expect_equal(colnames(ci), c("fit", "lwr", "upr"))
  se <- predict(fit, nd, se.fit = TRUE)
  expect_named(se, c("fit", "se.fit", "df", "residual.scale"))
  expect_equal(unname(ci[, "upr"] - ci[, "fit"]), qnorm(0.95) * se$se.fit)
  expect_equal(se$fit, p)
  pi <- predict(fit, nd, interval = "prediction")
  expect_equal(unname(pi[, "upr"] - pi[, "fit"]), qnorm(0.975) * sqrt(se$se.fit^2 + fit$lambda))
  expect_equal(se$residual.scale, sqrt(fit$lambda))
  expect_equal(predict(fit), fitted(fit))
  expect_equal(predict(fit, interval = "confidence")[, "fit"], fitted(fit))
})

test_that("interval widths grow away from the data", {
  d <- sinc_data(100, 0.1, 15)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)
  at <- c(0, 11, 13, 16, 30)
  se <- predict(fit, at, se.fit = TRUE)$se.fit
  expect_true(all(diff(se[-1]) > 0))
  expect_gt(se[5], 3 * se[1])
  pi <- predict(fit, at, interval = "prediction")
  expect_true(all(diff(pi[-1, "upr"] - pi[-1, "lwr"]) > 0))
  # Far away the augmented variance tends to the prior variance of a kernel weight.
  kernel_w <- fit$relevant[fit$relevant > 1]
  plain <- predict(fit, 1e3, se.fit = TRUE, variance = "rvm")$se.fit
  expect_equal(se[5]^2, plain^2 + mean(1 / fit$alpha[kernel_w]), tolerance = 1e-6)
  # The plain RVM variance is the textbook phi' Sigma phi, which shrinks away from the data.
  Phi <- kernel_matrix(kernel_gaussian(3), at, d$x[fit$relevance_index])
  if (1 %in% fit$relevant) Phi <- cbind(1, Phi)
  expect_equal(predict(fit, at, se.fit = TRUE, variance = "rvm")$se.fit,
               sqrt(rowSums((Phi %*% fit$Sigma) * Phi)), tolerance = 1e-10)
})

test_that("saveRDS/readRDS leaves predictions identical", {
  d <- sinc_data(100, 0.1, 16)
  fit <- rvm(y ~ x, data = d)
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  back <- readRDS(path)
  nd <- data.frame(x = seq(-9, 9, length.out = 7))
  expect_identical(predict(back, nd, interval = "prediction"), predict(fit, nd, interval = "prediction"))
})

test_that("several inputs, scaling and kernel choices work", {
  set.seed(17)
  X <- matrix(runif(300, -2, 2), 100, 3, dimnames = list(NULL, c("a", "b", "c")))
  y <- sin(X[, 1]) + X[, 2]^2 / 4 + rnorm(100, sd = 0.05)
  for (k in list("gaussian", kernel_laplace(2), kernel_cauchy(1), kernel_polynomial(2), "linear",
                 kernel_lspline(), kernel_tpspline(2))) {
    fit <- rvm(X, y, kernel = k)
    expect_s3_class(fit, "sb_rvm")
    expect_true(all(is.finite(fit$fitted.values)))
    expect_lt(sqrt(mean(residuals(fit)^2)), sd(y))
  }
  # newdata columns are matched by name
  fit <- rvm(X, y)
  expect_equal(predict(fit, X[1:5, c("c", "a", "b")]), predict(fit, X[1:5, ]))
  # scale = TRUE makes the fit invariant to rescaling an input
  X2 <- X
  X2[, 2] <- X2[, 2] * 1000
  expect_equal(rvm(X2, y)$logLik, rvm(X, y)$logLik, tolerance = 1e-6)
})

test_that("a user-supplied basis is used as given", {
  d <- linear_data()
  fit <- rvm(y = d$y, basis = d$X)
  expect_true(all(c(1, 2) %in% fit$relevant))
  expect_equal(names(fit$weights), colnames(d$X)[fit$relevant])
  expect_equal(predict(fit, d$X), fitted(fit), tolerance = 1e-10)
  expect_error(predict(fit, d$X[, 1:3]), "newdata.*6 basis functions")
  expect_error(relevance_vectors(fit), "no relevance vectors")
})

test_that("methods report the fit", {
  d <- sinc_data(100, 0.1, 18)
  fit <- rvm(y ~ x, data = d)
  expect_equal(coef(fit), fit$weights)
  expect_equal(residuals(fit), d$y - fitted(fit))
  expect_equal(nobs(fit), 100L)
  expect_equal(vcov(fit), fit$Sigma)
  ll <- logLik(fit)
  expect_s3_class(ll, "logLik")
  expect_identical(attr(ll, "df"), NA_real_)  # no parameter count: see ?logLik.sparsebayes
  rv <- relevance_vectors(fit)
  expect_equal(unname(rv[, "x"]), d$x[fit$relevance_index])
  expect_output(print(fit), "basis functions relevant")
  s <- summary(fit)
  expect_s3_class(s, "summary.sb_rvm")
  expect_output(print(s), "Relevance vectors:")
  expect_lte(nrow(s$coefficients), 10)
  expect_output(print(kernel_gaussian(2)), "gaussian kernel\\(width = 2\\)")
  expect_output(print(rvm_control()), "Solver control settings \\(rvm_control")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(fit), fit)
  X <- cbind(d$x, d$x^2)
  expect_silent(plot(rvm(X, d$y)))
  # the caller's graphical arguments override the view's defaults
  expect_silent(plot(fit, ylim = c(-2, 2), xlab = "input", ylab = "response", main = "sinc"))
  # a given ylim is the data region: the legend's band is added above it, or nothing with legend = FALSE
  expect_equal(graphics::par("usr")[3L], -2 - 0.04 * diff(graphics::par("usr")[3:4]) / 1.08)
  expect_gt(graphics::par("usr")[4L], 2.2)
  plot(fit, ylim = c(-2, 2), legend = FALSE)
  expect_equal(graphics::par("usr")[3:4], c(-2, 2) + c(-1, 1) * 0.04 * 4)
  cls <- rvm(d$x, factor(d$y > 0.2))
  expect_silent(plot(cls, ylim = c(-0.5, 1.5), ylab = "probability"))
  two <- rvm(cbind(d$x, d$x^2), factor(d$y > 0.2))
  expect_silent(plot(two, xlab = "a", ylab = "b", ylim = c(-5, 110)))
})

test_that("verbose prints progress", {
  d <- sinc_data(100, 0.1, 19)
  expect_output(rvm(d$x, d$y, control = rvm_control(verbose = 5)), "iteration")
})

test_that("hitting the iteration limit warns and flags non-convergence", {
  d <- sinc_data(100, 0.1, 20)
  expect_warning(fit <- rvm(d$x, d$y, control = rvm_control(max_iterations = 3)), "did not converge")
  expect_false(fit$converged)
  expect_equal(fit$iterations, 3)
})

test_that("print and summary say which relevant basis function is the bias, as the plot counts relevance vectors", {
  fit <- rvm(accel ~ times, data = MASS::mcycle)
  expect_true(1L %in% fit$relevant)  # the bias is relevant on mcycle
  n_rv <- length(fit$relevant) - 1L
  expect_equal(nrow(relevance_vectors(fit)), n_rv)
  expect_output(print(fit), sprintf("(%d vectors and the bias)", n_rv), fixed = TRUE)
  expect_output(print(summary(fit)), sprintf("(%d vectors and the bias)", n_rv), fixed = TRUE)
  plain <- rvm(accel ~ times, data = MASS::mcycle, bias = FALSE)
  expect_false(any(grepl("the bias", capture.output(print(plain)))))
})
