# weights = and offset = for gaussian fits (implemented in standard_units()).

test_that("integer weights act like replicated rows (shared noise, fast and em)", {
  d <- outlier_data(n = 80, n_out = 0, seed = 8)
  w <- c(2, 3, rep(1, 78))
  rep_rows <- rep(seq_len(80), w)
  for (m in c("fast", "em", "mackay")) {
    ctl <- ard_control(tolerance = 1e-8, max_iterations = 20000)
    for (sc in c(FALSE, TRUE)) {  # scale = TRUE standardises with weighted moments
      a <- ard(d$X, d$y, method = m, weights = w, scale = sc, control = ctl)
      b <- ard(d$X[rep_rows, ], d$y[rep_rows], method = m, scale = sc, control = ctl)
      expect_identical(names(coef(a)), names(coef(b)), info = m)
      expect_equal(coef(a), coef(b), tolerance = 1e-4, info = m)
      expect_equal(a$lambda, b$lambda, tolerance = 1e-4, info = m)
      expect_equal(a$logLik, b$logLik, tolerance = 1e-5, info = m)
      expect_equal(a$scaling, b$scaling, tolerance = 1e-12, info = m)
      expect_equal(a$prior.weights, w)
    }
  }
  # a formula fit with a polynomial term, non-integer-looking data: the pruned
  # intercept carries the weighted centring of y and of the columns alike
  mc <- transform(MASS::mcycle, t2 = (times / 10)^2)
  wm <- rep_len(1:3, nrow(mc))
  a <- ard(accel ~ times + t2, mc, weights = wm)
  b <- ard(accel ~ times + t2, mc[rep(seq_len(nrow(mc)), wm), ])
  expect_equal(coef(a), coef(b), tolerance = 1e-5)
  expect_equal(predict(a, mc), predict(b, mc), tolerance = 1e-6)
  s <- sinc_data(60, 0.1, 2)
  Phi <- cbind(1, kernel_matrix(kernel_gaussian(3), s$x))
  w <- c(2, rep(1, 59))
  a <- rvm(y = s$y, basis = Phi, weights = w)
  b <- rvm(y = s$y[c(1, 1:60)], basis = Phi[c(1, 1:60), ])
  expect_identical(a$relevant, b$relevant)
  expect_equal(coef(a), coef(b), tolerance = 1e-6)
  expect_equal(a$lambda, b$lambda, tolerance = 1e-6)
})

test_that("zero weights drop a row from the fit but keep its fitted value", {
  d <- outlier_data(n = 80, n_out = 0, seed = 9)
  w <- rep(1, 80)
  w[5] <- 0
  for (sc in c(FALSE, TRUE)) {
    a <- ard(d$X, d$y, weights = w, scale = sc)
    b <- ard(d$X[-5, ], d$y[-5], scale = sc)
    expect_equal(coef(a), coef(b), tolerance = 1e-8)
    expect_equal(fitted(a)[-5], fitted(b), tolerance = 1e-8)
    expect_equal(fitted(a)[5], predict(b, d$X[5, , drop = FALSE]), tolerance = 1e-8)
  }
  # per-sample noise: lambda of the dropped row is Inf, the rest as without it
  a <- ard(d$X, d$y, weights = w, noise = "sample", scale = FALSE)
  b <- ard(d$X[-5, ], d$y[-5], noise = "sample", scale = FALSE)
  expect_equal(a$lambda[-5], b$lambda, tolerance = 1e-6)
  expect_identical(a$lambda[5], Inf)
  expect_true(all(is.finite(predict(a, d$X[1:3, ], interval = "prediction"))))
})

test_that("weights are relative precisions: lambda_i = lambda / w_i", {
  s <- sinc_data(60, 0.1, 4)
  w <- runif(60, 0.5, 2)
  a <- rvm(s$x, s$y, kernel = kernel_gaussian(3), scale = FALSE, weights = w, noise = "sample")
  expect_equal(length(a$lambda), 60L)
  # per-sample noise: the lambda_i (reported per row, lambda / w_i) are free,
  # so a constant weight changes nothing
  f1 <- rvm(s$x, s$y, kernel = kernel_gaussian(3), scale = FALSE, weights = rep(4, 60), noise = "sample")
  f0 <- rvm(s$x, s$y, kernel = kernel_gaussian(3), scale = FALSE, noise = "sample")
  expect_equal(fitted(f1), fitted(f0), tolerance = 1e-6)
  expect_equal(f1$lambda, f0$lambda, tolerance = 1e-6)
  # shared noise: lambda is the noise of a row of weight 1 (weights count as
  # replicates for its estimate: see the replication test above)
})

test_that("an offset is subtracted before the fit and added to fitted values and predictions", {
  d <- outlier_data(n = 80, n_out = 0, seed = 10)
  o <- sin(seq_len(80))
  a <- ard(d$X, d$y + o, offset = o)
  b <- ard(d$X, d$y)
  expect_equal(coef(a), coef(b), tolerance = 1e-8)
  expect_equal(fitted(a), fitted(b) + o, tolerance = 1e-8)
  expect_equal(a$offset, o)
  expect_error(predict(a, d$X[1:3, ]), "`offset`")
  expect_equal(predict(a, d$X[1:3, ], offset = 1:3), predict(b, d$X[1:3, ]) + 1:3, tolerance = 1e-8)
  expect_equal(predict(a, se.fit = TRUE)$fit, fitted(a), tolerance = 1e-8)
  s <- sinc_data(60, 0.1, 5)
  o <- s$x / 10
  r1 <- rvm(s$x, s$y + o, kernel = kernel_gaussian(3), scale = FALSE, offset = o)
  r0 <- rvm(s$x, s$y, kernel = kernel_gaussian(3), scale = FALSE)
  expect_equal(fitted(r1), fitted(r0) + o, tolerance = 1e-8)
  expect_equal(predict(r1, c(1, 2), offset = c(0.1, 0.2)), predict(r0, c(1, 2)) + c(0.1, 0.2), tolerance = 1e-8)
  expect_error(predict(r1, c(1, 2)), "`offset`")
})

test_that("weights and offset are checked", {
  d <- outlier_data(n = 30, n_out = 0, seed = 1)
  expect_error(ard(d$X, d$y, weights = rep(-1, 30)), "`weights`")
  expect_error(ard(d$X, d$y, weights = rep(1, 29)), "`weights`")
  expect_error(ard(d$X, d$y, weights = rep(0, 30)), "all zero")
  expect_error(ard(d$X, d$y, weights = c(NA, rep(1, 29))), "`weights`")
  expect_error(ard(d$X, d$y, offset = c(Inf, rep(0, 29))), "`offset`")
  expect_error(rvm(d$X, d$y, offset = "a"), "`offset`")
  yb <- factor(d$y > 1)
  expect_error(rvm(d$X, yb, weights = rep(-2, 30)), "`weights` must be non-negative")
  expect_error(rvm(d$X, yb, offset = rep(NA_real_, 30)), "`offset` contains NA")
  expect_s3_class(rvm(d$X, yb, weights = rep(1, 30)), "sb_rvm")
})

test_that("binomial and poisson fits: weights count observations, offsets enter the linear predictor", {
  set.seed(3)
  n <- 200
  x <- runif(n)
  B <- cbind(1, x)
  expo <- runif(n, 1, 50)
  counts <- rpois(n, expo * exp(1 + 0.8 * x))
  g <- glm(counts ~ x, family = poisson, offset = log(expo))
  for (m in c("fast", "mackay")) {
    fit <- rvm(basis = B, y = counts, family = poisson(), offset = log(expo), method = m)
    expect_equal(unname(fit$weights), unname(coef(g)), tolerance = 1e-3, info = m)
    expect_equal(unname(fitted(fit)), unname(fitted(g)), tolerance = 1e-3, info = m)
    expect_equal(predict(fit, B[1:3, ], offset = log(expo[1:3]), type = "response"),
                 unname(fitted(fit)[1:3]), tolerance = 1e-2, info = m)  # posterior mean exp(m + v/2)
    expect_error(predict(fit, B[1:3, ]), "`offset` is needed")
  }
  # Formula offset() for a Poisson RVM, evaluated again in newdata.
  dd <- data.frame(counts, x, expo)
  ff <- rvm(counts ~ x + offset(log(expo)), data = dd, family = poisson(), kernel = kernel_gaussian(1))
  expect_equal(predict(ff, dd[1:4, ], type = "link"), unname(ff$linear.predictors[1:4]), tolerance = 1e-10)
  # A formula fit takes its offset from newdata, never from the argument, and an
  # `offset =` expression that does not follow newdata's rows is a clear error.
  expect_error(predict(ff, dd[1:4, ], offset = 1:4), "evaluates its offset\\(\\) terms")
  fo <- rvm(counts ~ x, data = dd, family = poisson(), kernel = kernel_gaussian(1), offset = log(dd$expo))
  expect_error(predict(fo, dd[1:4, ]), sprintf("gives %d offset values for 4 rows", n))
  fv <- rvm(counts ~ x, data = dd, family = poisson(), kernel = kernel_gaussian(1), offset = log(expo))
  expect_equal(predict(fv, dd[1:4, ], type = "link"), unname(fv$linear.predictors[1:4]), tolerance = 1e-10)
  # Integer weights are replicated rows (MacKay: the same fixed point).
  w <- sample(1:3, n, TRUE)
  rows <- rep(seq_len(n), w)
  yb <- factor(rbinom(n, 1, plogis(-0.5 + 2 * x)))
  a <- rvm(basis = B, y = yb, weights = w, method = "mackay")
  b <- rvm(basis = B[rows, ], y = yb[rows], method = "mackay")
  expect_equal(a$weights, b$weights, tolerance = 1e-6)
  expect_equal(a$logLik, b$logLik, tolerance = 1e-8)
  expect_equal(sum(binomial()$dev.resids(as.numeric(yb) - 1, fitted(a), w)),
               sum(binomial()$dev.resids(as.numeric(yb[rows]) - 1, fitted(b), 1)), tolerance = 1e-6)
})
