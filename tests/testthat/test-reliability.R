# Extreme scales, degenerate designs and tiny samples: a correct,
# equivariant fit or a clear error, never NaN returned silently.

test_that("y -> k y and x -> k x give the matching fit and intervals at extreme scales", {
  d <- sinc_data(60)
  base <- rvm(d$x, d$y)
  base_fixed <- rvm(d$x, d$y, scale = FALSE, kernel = kernel_gaussian(3))
  at <- c(0, 1, 30)
  base_pred <- predict(base, at, interval = "prediction")
  for (k in c(1e150, 1e-150, 1e100, 1e-100)) {
    fy <- rvm(d$x, d$y * k)
    expect_equal(fitted(fy) / k, fitted(base), tolerance = 1e-8, info = format(k))
    expect_equal(fy$relevant, base$relevant, info = format(k))
    expect_equal(predict(fy, at, interval = "prediction") / k, base_pred, tolerance = 1e-8, info = format(k))
    expect_equal(fy$logLik, base$logLik - length(d$y) * log(k), tolerance = 1e-8, info = format(k))
    fx <- rvm(d$x * k, d$y)
    expect_equal(fitted(fx), fitted(base), tolerance = 1e-8, info = format(k))
    expect_equal(predict(fx, at * k, interval = "prediction"), base_pred, tolerance = 1e-8, info = format(k))
    fx_fixed <- rvm(d$x * k, d$y, scale = FALSE, kernel = kernel_gaussian(3 * k))
    expect_equal(fitted(fx_fixed), fitted(base_fixed), tolerance = 1e-8, info = format(k))
  }
})

test_that("overflowing bases stop with a clear message instead of returning NaN", {
  d <- sinc_data(30)
  expect_error(rvm(d$x * 1e200, d$y, kernel = "linear", scale = FALSE), "linear kernel overflows.*rescale the inputs")
})

test_that("duplicated rows and columns and collinear dictionaries still fit", {
  d <- sinc_data(50)
  dup_cols <- rvm(cbind(d$x, d$x), d$y)
  expect_false(anyNA(fitted(dup_cols)))
  dup_rows <- rvm(c(d$x, d$x), c(d$y, d$y))
  expect_false(anyNA(fitted(dup_rows)))
  expect_lt(sqrt(mean((fitted(dup_rows)[1:50] - d$f)^2)), 0.1)
  collinear <- rvm(d$x, d$y, kernel = list(kernel_gaussian(3), kernel_gaussian(3)), scale = FALSE)
  expect_equal(fitted(collinear), fitted(rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)), tolerance = 1e-4)
  expect_lte(length(collinear$relevant), length(rvm(d$x, d$y, kernel = kernel_gaussian(3), scale = FALSE)$relevant))
})

test_that("tiny samples fit or stop clearly", {
  expect_error(rvm(1:2, c(1, 2)), "at least 3 observations")
  fit <- rvm(1:3, c(1, 2, 4))
  expect_true(all(is.finite(fitted(fit))))
  expect_true(all(is.finite(predict(fit, 2, interval = "prediction"))))
})

test_that("choices are checked with messages that name the argument", {
  expect_error(kernel_wavelet("db4"), "`family` must be one of \"haar\", \"symmlet8\"; got \"db4\"")
  expect_error(kernel_wavelet(NA), "`family` must be one of")
  expect_equal(kernel_wavelet("sym")$family, "symmlet8")
  expect_error(make_signal("nope", 64), "`name` must be one of")
  multi <- rvm(Species ~ ., data = iris[c(1:15, 51:65, 101:115), ])
  expect_error(predict(multi, type = 3), "`type` must be one of \"class\", \"prob\"")
})

test_that("control lists are checked setting by setting", {
  d <- sinc_data(30)
  expect_error(rvm(d$x, d$y, control = list(bogus = 1)), "`control` has unknown setting\\(s\\) bogus; see \\?rvm_control")
  expect_error(rvm(d$x, d$y, control = list(1)), "`control` must be made by rvm_control\\(\\) or be a list of named")
  expect_error(ard(cbind(d$x), d$y, control = list(max_iter = 3)), "unknown setting\\(s\\) max_iter; see \\?ard_control")
  expect_equal(rvm(d$x, d$y, control = list(max_iterations = 500))$weights, rvm(d$x, d$y)$weights)
})

test_that("sparse GPs stop clearly where double precision runs out", {
  d <- sinc_data(40)
  expect_error(sparse_gp(d$x * 1e200, d$y, inducing = 5, scale = FALSE), "`x` is too large for squared distances")
  expect_error(sparse_gp(d$x, d$y * 1e-160, inducing = 5), "`y` has variance .* rescale it")
  expect_equal(sparse_gp(d$x * 1e300, d$y, inducing = 5, seed = 1)$noise_variance,
               sparse_gp(d$x, d$y, inducing = 5, seed = 1)$noise_variance, tolerance = 1e-6)
})
