# Wavelet fits with a prior per resolution level, learned ("adaptive", the
# default) or given, and translation invariance by cycle spinning.

wavelet_fit <- function(s, translation_invariant = FALSE, ...) {
  rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8", translation_invariant), ...)
}
mse <- function(fit, s) mean((fitted(fit) - s$f)^2)
rotate <- function(v, k) v[(seq_along(v) + k - 1L) %% length(v) + 1L]  # v[i + k]

test_that("one constant per level, all equal, is the fit with that single constant", {
  s <- make_signal("doppler", n = 256, snr = 4, seed = 1)
  for (p in c("AIC", "BIC", "RIC")) {
    one <- wavelet_fit(s, prior = p)
    tied <- wavelet_fit(s, prior = rep(one$smoothness, 9))
    expect_equal(fitted(tied), fitted(one), tolerance = 1e-10)
    expect_equal(tied$relevant, one$relevant)
    expect_equal(tied$logLik, one$logLik, tolerance = 1e-10)
    expect_equal(tied$smoothness, rep(one$smoothness, 9))
    expect_equal(tied$prior, "by level")
    expect_null(tied$inclusion)
  }
  # a larger constant on the finest level prunes more of it
  s <- make_signal("bumps", n = 256, snr = 4, seed = 2)
  base <- wavelet_fit(s, prior = rep(2, 9))
  fine <- wavelet_fit(s, prior = c(rep(2, 8), 20))
  finest <- function(fit) sum(fit$relevant > 128)
  expect_lt(finest(fine), finest(base))
  expect_equal(sum(fine$relevant <= 128), sum(base$relevant <= 128), tolerance = 3)
})

test_that("the adaptive prior learns a constant per level and beats BIC over signals and draws", {
  ratios <- NULL
  for (name in c("doppler", "bumps", "blocks", "heavisine")) for (seed in 1:3) {
    s <- make_signal(name, n = 512, snr = 4, seed = seed)
    fit <- wavelet_fit(s)
    expect_equal(fit$prior, "adaptive")
    expect_length(fit$smoothness, 10)
    expect_true(all(fit$smoothness >= 0))
    # the finest level is mostly noise and pays the most
    expect_gt(fit$smoothness[10], max(fit$smoothness[1:5]))
    expect_gt(fit$smoothness[10], 2)
    expect_true(all(fit$inclusion > 0 & fit$inclusion <= 1))
    expect_named(fit$inclusion, names(fit$weights))
    # the noise is the finest level's robust estimate
    z <- sparsebayes:::.sb_dwt((s$y - mean(s$y)) / sd(s$y), "symmlet8")
    expect_equal(sqrt(fit$lambda), median(abs(z[257:512])) / 0.6745 * sd(s$y), tolerance = 1e-8)
    ratios <- c(ratios, mse(fit, s) / mse(wavelet_fit(s, prior = "BIC"), s))
  }
  expect_lt(mean(ratios), 0.9)
  expect_gt(mean(ratios < 1), 0.75)
  # the log Bayes factor of an included coefficient is (u - 1 - log u) / 2 at its evidence optimum
  s <- make_signal("bumps", n = 256, snr = 4, seed = 5)
  fit <- wavelet_fit(s)
  z <- sparsebayes:::.sb_dwt((s$y - mean(s$y)) / sd(s$y), "symmlet8")[fit$relevant]
  u <- z^2 / (fit$lambda / var(s$y))
  lb <- tidy(fit)$log_bf
  expect_equal(lb[-1], ((u - 1 - log(u)) / 2)[-1], tolerance = 1e-8)
  # fitted values are W' of the averaged weights
  s <- make_signal("blocks", n = 128, snr = 5, seed = 4)
  fit <- wavelet_fit(s)
  W <- sparsebayes:::.sb_wavelet_columns(128, "symmlet8", fit$relevant)
  expect_equal(fitted(fit), drop(W %*% fit$weights), tolerance = 1e-10)
  # a given noise variance is kept
  fixed <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), control = rvm_control(noise_variance = 0.5))
  expect_equal(fixed$lambda, 0.5)
})

test_that("the default prior is adaptive only on the O(N) wavelet path", {
  s <- make_signal("sinc", n = 64, snr = 4, seed = 1)
  expect_equal(rvm(s$x, s$y, kernel = kernel_gaussian(2))$prior, "none")
  em <- suppressWarnings(rvm(s$x, s$y, kernel = kernel_wavelet("haar"), method = "em",
                             control = ard_control(max_iterations = 50)))
  expect_equal(em$prior, "none")
  expect_error(rvm(s$x, s$y, prior = "adaptive"), "`prior` \"adaptive\" learns one constant per resolution level")
  expect_error(rvm(s$x, s$y, kernel = "haar", prior = "adaptive", method = "mackay"), "needs a single kernel_wavelet")
  expect_error(rvm(s$x, s$y, kernel = "haar", prior = c(1, 2)), "has 2 values; .* one per level \\(7 here\\)")
  expect_error(rvm(s$x, s$y, kernel = kernel_gaussian(2), prior = c(1, 2)), "none here")
  expect_error(rvm(s$x, s$y, kernel = "haar", prior = c(rep(1, 6), -1)), "finite numbers >= 0")
  expect_error(rvm(s$x, s$y, kernel = "haar", prior = c(rep(1, 6), NA)), "finite numbers >= 0")
  expect_error(rvm(s$x, s$y, kernel = kernel_wavelet("haar", translation_invariant = TRUE), method = "em"),
               "translation invariant, which needs the O\\(N\\) wavelet path")
  expect_error(kernel_wavelet("haar", translation_invariant = NA), "`translation_invariant`")
  expect_output(print(rvm(s$x, s$y, kernel = "haar")), "prior adaptive \\(.* by level\\)")
})

test_that("a translation-invariant fit is the mean of the fits on every cyclic shift", {
  s <- make_signal("blocks", n = 64, snr = 4, seed = 3)
  for (prior in list("BIC", c(0, 0, 1, 1, 2, 3, 4))) {
    ti <- wavelet_fit(s, translation_invariant = TRUE, prior = prior)
    plain <- wavelet_fit(s, prior = prior)
    expect_equal(ti$lambda, plain$lambda)
    expect_equal(ti$relevant, plain$relevant)
    ctrl <- rvm_control(noise_variance = plain$lambda)
    shifted <- sapply(0:63, function(k) {
      f <- fitted(rvm(s$x, rotate(s$y, k), kernel = kernel_wavelet("symmlet8"), prior = plain$smoothness,
                      control = ctrl))
      rotate(f, -k)
    })
    expect_equal(fitted(ti), rowMeans(shifted), tolerance = 1e-10)
    expect_equal(fitted(ti), predict(ti), tolerance = 1e-12)
  }
  # the variance: the mixture over the first 8 shifts about the invariant mean
  se <- sapply(0:7, function(k) {
    f <- rvm(s$x, rotate(s$y, k), kernel = kernel_wavelet("symmlet8"), prior = plain$smoothness, control = ctrl)
    p <- predict(f, se.fit = TRUE)
    rotate(p$se.fit^2 + (p$fit - rotate(fitted(ti), k))^2, -k)
  })
  expect_equal(predict(ti, se.fit = TRUE)$se.fit^2, rowMeans(se), tolerance = 1e-8)
  # a series of period 2 (every shift is the series or its negative, whose fits are the
  # negatives) gives the plain fit back
  flat <- data.frame(x = s$x, y = rep(c(1, -1), 32))
  expect_equal(fitted(wavelet_fit(flat, translation_invariant = TRUE, prior = "BIC")),
               fitted(wavelet_fit(flat, prior = "BIC")), tolerance = 1e-8)
})

test_that("adaptive translation-invariant fits: better than decimated, intervals that cover, prediction", {
  cover <- NULL
  for (seed in 1:3) {
    s <- make_signal("heavisine", n = 512, snr = 4, seed = seed)
    ti <- wavelet_fit(s, translation_invariant = TRUE)
    expect_lt(mse(ti, s), mse(wavelet_fit(s), s))
    band <- predict(ti, interval = "confidence")
    cover <- c(cover, mean(band[, "lwr"] <= s$f & s$f <= band[, "upr"]))
  }
  expect_gt(mean(cover), 0.85)
  # between grid points the mean and variance are interpolated linearly
  s <- make_signal("doppler", n = 128, snr = 4, seed = 1)
  ti <- wavelet_fit(s, translation_invariant = TRUE)
  mid <- (s$x[10] + s$x[11]) / 2
  p <- predict(ti, data.frame(x = c(s$x[10], mid)), se.fit = TRUE)
  expect_equal(p$fit[2], mean(fitted(ti)[10:11]))
  expect_equal(p$se.fit[2]^2, mean(predict(ti, se.fit = TRUE)$se.fit[10:11]^2))
  expect_error(predict(ti, data.frame(x = 2)), "outside the grid")
  expect_true(is.na(predict(ti, data.frame(x = NA_real_))))
  expect_output(print(ti), "symmlet8, translation invariant")
  # an unsorted design: the fit follows the rows
  o <- sample(128)
  shuffled <- wavelet_fit(s[o, ], translation_invariant = TRUE)
  expect_equal(unname(fitted(shuffled)), unname(fitted(ti)[o]), tolerance = 1e-10)
  # saved and restored
  path <- tempfile(fileext = ".rds")
  saveRDS(ti, path)
  expect_equal(predict(readRDS(path), data.frame(x = mid)), p$fit[2])
})

test_that("any number of points: the O(N) path reflects the data to the next power of two", {
  s <- make_signal("doppler", n = 128, snr = 4, seed = 2)[1:100, ]
  grid <- sparsebayes:::padded_grid(s$x)
  expect_length(grid, 128)
  expect_equal(diff(range(diff(grid))), 0, tolerance = 1e-12)
  reflected <- c(s$y[15:2], s$y, s$y[99:86])  # 14 before, 14 after, mirrored about the end points
  for (ti in c(FALSE, TRUE)) {
    fit <- wavelet_fit(s, translation_invariant = ti)
    padded <- rvm(grid, reflected, kernel = kernel_wavelet("symmlet8", ti))
    expect_equal(unname(fitted(fit)), unname(fitted(padded)[15:114]), tolerance = 1e-10)
    expect_equal(fit$lambda, padded$lambda)
    expect_equal(fit$n_basis, 128)
    expect_length(fitted(fit), 100)
    expect_length(fit$smoothness, 8)
    expect_equal(predict(fit), fitted(fit), tolerance = 1e-10)
    p <- predict(fit, data.frame(x = s$x[c(1, 100)]), se.fit = TRUE)
    expect_equal(p$fit, unname(fitted(fit)[c(1, 100)]), tolerance = 1e-10)
    expect_true(all(p$se.fit > 0))
    expect_error(predict(fit, data.frame(x = max(s$x) + 0.01)), "outside the grid")
  }
  # the sparse fit too, with its constants per level and the hat values of the observed rows
  bic <- wavelet_fit(s, prior = "BIC")
  expect_equal(predict(bic), fitted(bic), tolerance = 1e-10)
  expect_length(hatvalues(bic), 100)
  expect_error(wavelet_fit(s, prior = rep(1, 7)), "one per level \\(8 here\\)")
  expect_length(wavelet_fit(s, prior = rep(1, 8))$smoothness, 8)
  # shuffled rows, a shift and scale of the response
  o <- sample(100)
  fit <- wavelet_fit(s)
  expect_equal(unname(fitted(wavelet_fit(s[o, ]))), unname(fitted(fit)[o]), tolerance = 1e-10)
  moved <- transform(s, y = 10 + 3 * y)
  expect_equal(fitted(wavelet_fit(moved)), 10 + 3 * fitted(fit), tolerance = 1e-8)
  # the smallest grids
  tiny <- data.frame(x = 1:3, y = c(1, 3, 2))
  expect_length(fitted(wavelet_fit(tiny)), 3)
  expect_length(fitted(wavelet_fit(tiny, translation_invariant = TRUE)), 3)
  expect_error(rvm(1:2, c(1, 2), kernel = "haar"), "at least 3 observations")
})

test_that("equal weights on a wavelet fit are no weights: the same prior and fit (issue 43, item 2)", {
  set.seed(1)
  x <- seq(0, 1, length.out = 256)
  f <- (x > 0.37) + sin(6 * x)
  y <- f + rnorm(256, sd = 0.2)
  a <- rvm(x, y, kernel = kernel_wavelet("haar"))
  b <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = rep(1, 256))
  expect_identical(c(a$prior, b$prior), c("adaptive", "adaptive"))
  expect_lt(mean((fitted(b) - f)^2), 0.012)  # 0.008; without a prior it interpolated (0.036)
  expect_equal(fitted(b), fitted(a), tolerance = 1e-12)
  expect_equal(b$lambda, a$lambda, tolerance = 1e-12)
  expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-12)
  # constant weights c: the fit of no weights, noise included (lambda is the
  # noise of a row of average weight: relative_weights())
  for (c_w in c(3, 0.5)) {
    cw <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = rep(c_w, 256))
    info <- sprintf("weights %g", c_w)
    expect_identical(cw$prior, "adaptive", info = info)
    expect_identical(cw$relevant, a$relevant, info = info)
    expect_equal(coef(cw), coef(a), tolerance = 1e-12, info = info)
    expect_equal(cw$alpha, a$alpha, tolerance = 1e-12, info = info)
    expect_equal(fitted(cw), fitted(a), tolerance = 1e-12, info = info)
    expect_equal(cw$lambda, a$lambda, tolerance = 1e-12, info = info)
    expect_equal(cw$weight_unit, c_w, info = info)
    expect_equal(as.numeric(logLik(cw)), as.numeric(logLik(a)), tolerance = 1e-10, info = info)
    expect_equal(hatvalues(cw), hatvalues(a), tolerance = 1e-10, info = info)
    expect_equal(cw$prior.weights, rep(c_w, 256), info = info)
  }
  # a given noise variance is that of a row of average weight
  fixed <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = rep(2, 256), control = rvm_control(noise_variance = 0.03))
  ref <- rvm(x, y, kernel = kernel_wavelet("haar"), control = rvm_control(noise_variance = 0.03))
  expect_equal(fixed$lambda, 0.03)
  expect_equal(fitted(fixed), fitted(ref), tolerance = 1e-12)
  # translation invariance (the O(N) path only) takes equal weights
  ti <- rvm(x, y, kernel = kernel_wavelet("haar", translation_invariant = TRUE), weights = rep(2, 256))
  expect_equal(fitted(ti), fitted(rvm(x, y, kernel = kernel_wavelet("haar", translation_invariant = TRUE))),
               tolerance = 1e-12)
})

test_that("unequal weights on a wavelet fit keep a smoothness prior; what cannot be fitted is refused", {
  set.seed(1)
  x <- seq(0, 1, length.out = 256)
  f <- (x > 0.37) + sin(6 * x)
  y <- f + rnorm(256, sd = 0.2)
  set.seed(2)
  w <- runif(256, 0.5, 2)
  fit <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = w)
  expect_identical(fit$prior, "BIC")  # not "none": that fit interpolated
  expect_equal(fit$smoothness, log(256) / 2)
  expect_lt(length(fit$relevant), 40)
  expect_lt(mean((fitted(fit) - f)^2), 0.02)
  bic <- rvm(x, y, kernel = kernel_wavelet("haar"), prior = "BIC")
  expect_lt(mean((fitted(fit) - f)^2), 1.5 * mean((fitted(bic) - f)^2))
  # weights are relative precisions: scaling them changes nothing
  fit3 <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = 3 * w)
  expect_equal(fitted(fit3), fitted(fit), tolerance = 1e-10)
  expect_equal(fit3$lambda, fit$lambda, tolerance = 1e-10)
  expect_equal(as.numeric(logLik(fit3)), as.numeric(logLik(fit)), tolerance = 1e-8)
  expect_equal(hatvalues(fit3), hatvalues(fit), tolerance = 1e-8)
  # weights near 1 give nearly the unweighted fit (the dense path and the O(N)
  # one stop at different tolerances)
  near <- rvm(x, y, kernel = kernel_wavelet("haar"), weights = 1 + 1e-6 * w, prior = "BIC")
  expect_equal(fitted(near), fitted(bic), tolerance = 1e-3)
  expect_equal(as.numeric(logLik(near)), as.numeric(logLik(bic)), tolerance = 1e-3)
  # a row of weight 0 is left out
  w0 <- replace(rep(1, 256), 100, 0)
  zero <- rvm(x, replace(y, 100, 50), kernel = kernel_wavelet("haar"), weights = w0)
  expect_identical(zero$prior, "BIC")
  expect_lt(mean((fitted(zero)[-100] - f[-100])^2), 0.02)
  # refused, with what to do instead
  expect_error(rvm(x, y, kernel = kernel_wavelet("haar"), weights = w, prior = "adaptive"),
               "no weights or equal weights \\(unequal weights: give \"BIC\"")
  expect_error(rvm(x, y, kernel = kernel_wavelet("haar", translation_invariant = TRUE), weights = w),
               "translation invariant, .* no weights or equal weights")
  expect_error(rvm(x[1:200], y[1:200], kernel = kernel_wavelet("haar"), weights = w[1:200]),
               "`weights` are not all equal: .* power of two of rows \\(200 here\\)")
  expect_s3_class(rvm(x[1:200], y[1:200], kernel = kernel_wavelet("haar"), weights = rep(2, 200)), "sb_rvm")
})
