# The smoothness prior, wavelet dictionaries and overcomplete dictionaries
# (Schmolck & Everson 2007).

test_that("the cubic maximiser agrees with a brute-force search over log alpha", {
  gain <- function(a, s, q, beta, c) 0.5 * (log(a) - log(a + s) + q^2 / (a + s)) - c / (1 + a / beta)
  grid <- 10^seq(-8, 12, length.out = 40001)
  set.seed(51)
  for (i in 1:60) {
    beta <- 10^runif(1, -1, 3)
    s <- beta * runif(1, 0.05, 1)
    q <- sqrt(s) * 10^runif(1, -0.5, 1.5) * sample(c(-1, 1), 1)
    c_value <- sample(c(0, 1, log(128) / 2, log(128), 5), 1)
    a <- sparsebayes:::.sb_optimal_alpha(s, q, beta, c_value)
    g <- gain(grid, s, q, beta, c_value)
    best <- max(g)
    if (best <= 0) {
      expect_true(is.infinite(a), info = paste("case", i))
    } else {
      expect_true(is.finite(a), info = paste("case", i))
      expect_lt(abs(log(a) - log(grid[which.max(g)])), 2e-3)  # the grid's step in log alpha is 1.2e-3
      expect_gte(gain(a, s, q, beta, c_value), best - 1e-9)
    }
    # the prior only ever makes the solution sparser (App. 6.3)
    if (q^2 > s) expect_gte(a, s^2 / (q^2 - s) * (1 - 1e-9))
  }
})

test_that("stronger priors give sparser fits: S(None) >= S(AIC) >= S(BIC) >= S(RIC)", {
  for (seed in 1:3) {
    s <- make_signal("bumps", n = 128, snr = 7, seed = seed)
    S <- vapply(c("none", "AIC", "BIC", "RIC"), function(p) {
      length(rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = p)$relevant)
    }, integer(1))
    expect_true(all(diff(S) <= 0), info = paste(S, collapse = " "))
    expect_gt(S[1], S[4])
  }
  s <- make_signal("sinc", n = 128, snr = 2, seed = 4)
  S <- vapply(c("none", "AIC", "BIC", "RIC"), function(p) {
    length(rvm(s$x, s$y, kernel = kernel_gaussian(3), scale = FALSE, prior = p)$relevant)
  }, integer(1))
  expect_true(all(diff(S) <= 0))
})

test_that("scale invariance: t -> k t leaves S unchanged and scales alpha by 1/k^2 (App. 6.2)", {
  s <- make_signal("sinc", n = 128, snr = 2, seed = 5)
  for (kern in list(kernel_wavelet("symmlet8"), kernel_gaussian(3))) {
    a <- rvm(s$x, s$y, kernel = kern, scale = FALSE, prior = "BIC")
    b <- rvm(s$x, 1000 * s$y, kernel = kern, scale = FALSE, prior = "BIC")
    expect_equal(b$relevant, a$relevant)
    expect_equal(b$alpha[a$relevant], a$alpha[a$relevant] / 1000^2, tolerance = 1e-6)
    expect_equal(b$lambda, 1000^2 * a$lambda, tolerance = 1e-6)
  }
})

test_that("wavelet bases are orthonormal and the DWT is their transpose", {
  for (family in c("haar", "symmlet8")) {
    W <- sparsebayes:::.sb_wavelet_columns(64, family, 1:64)
    expect_equal(crossprod(W), diag(64), tolerance = 1e-10)
    t <- sin(1:64)
    expect_equal(sparsebayes:::.sb_dwt(t, family), drop(crossprod(W, t)), tolerance = 1e-10)
  }
  # Haar: the first function is the constant, the last the finest-scale pair.
  W <- sparsebayes:::.sb_wavelet_columns(8, "haar", c(1, 8))
  expect_equal(W[, 1], rep(1 / sqrt(8), 8))
  expect_equal(W[, 2], c(rep(0, 6), 1, -1) / sqrt(2))
  expect_error(sparsebayes:::.sb_wavelet_columns(12, "haar", 1), "power of two")
  expect_error(sparsebayes:::.sb_wavelet_columns(8, "db4", 1), "unknown wavelet family")
})

test_that("the O(N) orthonormal path equals the dense path", {
  s <- make_signal("bumps", n = 128, snr = 7, seed = 6)
  for (p in c("none", "AIC", "BIC")) {
    fast <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = p)
    dense <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = p,
                 control = rvm_control(orthonormal_shortcut = FALSE))
    # the dense path stops at |delta log alpha| < 1e-3, so a component at the
    # edge of relevance may differ
    expect_lte(length(union(fast$relevant, dense$relevant)) - length(intersect(fast$relevant, dense$relevant)), 1)
    expect_equal(fitted(fast), fitted(dense), tolerance = 1e-2, info = p)
    expect_equal(fast$lambda, dense$lambda, tolerance = 1e-2, info = p)
    expect_equal(fast$log_posterior, dense$log_posterior, tolerance = 1e-4, info = p)
  }
  # the evidence of the shortcut agrees with the dense Gaussian density
  fit <- rvm(s$x, s$y, kernel = kernel_wavelet("haar"), prior = "AIC")
  W <- sparsebayes:::.sb_wavelet_columns(128, "haar", 1:128)
  expect_equal(fit$logLik, dense_log_evidence(W, s$y - fit$standard_units[["center"]], fit$alpha, fit$lambda),
               tolerance = 1e-8)
})

test_that("a fixed noise variance is honoured", {
  s <- make_signal("doppler", n = 256, snr = 2, seed = 7)
  fit <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC",
             control = rvm_control(noise_variance = 0.02))
  expect_equal(fit$lambda, 0.02)
  dense <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC",
               control = rvm_control(noise_variance = 0.02, orthonormal_shortcut = FALSE))
  expect_equal(dense$lambda, 0.02)
  expect_equal(fast_s <- length(fit$relevant), length(dense$relevant))
})

test_that("the smoothness prior denoises a wavelet fit that the plain RVM overfits", {
  s <- make_signal("sinc", n = 128, snr = 2, seed = 8)
  none <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "none")
  bic <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC")
  expect_gt(length(none$relevant), 100)  # Table 1: 127 of 128
  expect_lt(length(bic$relevant), 25)    # Table 1: 9.1 +- 1.9
  expect_lt(mean((fitted(bic) - s$f)^2), 0.5 * mean((fitted(none) - s$f)^2))
  expect_equal(bic$smoothness, log(128) / 2)
  expect_equal(rvm(s$x, s$y, kernel = "symmlet8", prior = 2.5)$smoothness, 2.5)
  # the trace is the log posterior the solver climbs
  expect_equal(tail(bic$trace$log_posterior, 1), bic$log_posterior, tolerance = 1e-6)
})

test_that("Figs. 7-8: on BlocksSinc at N = 1024, RIC beats None with a fraction of the components", {
  # At N = 256 RIC over-smooths (MSE 0.13 against None's 0.078, which
  # interpolates; the same at every commit since the smooth RVM landed). At
  # N = 1024 the paper's result holds: MSE / var(f) 0.011 with 72
  # components against 0.021 with 1022 (paper: 0.009 with 88 against 0.024
  # with 419).
  skip_on_cran()  # None keeps ~1000 of 2048 columns: about a minute
  s <- make_signal("blockssinc", n = 1024, snr = 7, seed = 1)
  dict <- list(kernel_tpspline(0.15), kernel_wavelet("haar"))
  ric <- rvm(s$x, s$y, kernel = dict, prior = "RIC", scale = FALSE)
  none <- rvm(s$x, s$y, kernel = dict, prior = "none", scale = FALSE)
  expect_lt(mean((fitted(ric) - s$f)^2), 0.75 * mean((fitted(none) - s$f)^2))
  expect_lt(length(ric$relevant), length(none$relevant) / 5)
})

test_that("overcomplete dictionaries: BlocksSinc with tpspline + Haar", {
  s <- make_signal("blockssinc", n = 256, snr = 7, seed = 9)
  dict <- list(kernel_tpspline(0.15), kernel_wavelet("haar"))
  ric <- rvm(s$x, s$y, kernel = dict, prior = "BIC", scale = FALSE)
  none <- rvm(s$x, s$y, kernel = dict, scale = FALSE)
  expect_lt(length(ric$relevant), length(none$relevant) / 3)
  expect_lt(mean((fitted(ric) - s$f)^2), mean((fitted(none) - s$f)^2))
  expect_equal(ric$n_basis, 512)
  sm <- summary(ric)
  expect_equal(sm$components$dictionary, c("tpspline kernel(width = 0.15)", "wavelet kernel(haar)")[
    sort(unique(sparsebayes:::column_parts(ric)$part))])
  expect_equal(sum(sm$components$relevant), length(ric$relevant))
  expect_output(print(sm), "Sub-dictionaries")
  contrib <- sparsebayes:::component_contributions(ric)
  expect_equal(rowSums(contrib), fitted(ric), tolerance = 1e-10)
  # predict on the training grid reproduces the fit; between grid points it interpolates
  expect_equal(predict(ric, s$x), fitted(ric), tolerance = 1e-10)
  mid <- (s$x[10] + s$x[11]) / 2
  expect_true(is.finite(predict(ric, mid)))
  expect_error(predict(ric, 2), "outside the grid of the wavelet fit")
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(ric, which = "components"), ric)
  expect_identical(plot(ric, which = "shrinkage"), ric)
})

test_that("prior and wavelet checks", {
  s <- make_signal("sinc", n = 128, snr = 2, seed = 10)
  expect_error(rvm(s$x, s$y, prior = "XIC"), "`prior` must be \"auto\", \"none\", \"AIC\"")
  expect_error(rvm(s$x, s$y, prior = -1), "`prior` must be >= 0")
  expect_error(rvm(s$x, s$y, prior = "BIC", method = "mackay"), "`prior` needs method = \"fast\"")
  expect_error(rvm(s$x, s$y > 0, prior = "BIC"), "`prior` must be \"none\" for the binomial")
  expect_error(rvm(s$x[-1], s$y[-1], kernel = list("haar", "symmlet8")),
               "`x` has 127 rows; a wavelet dictionary beside other kernels .* needs a power of two")
  expect_error(rvm(s$x[-1], s$y[-1], kernel = "haar", method = "mackay"), "needs a power of two")
  expect_error(rvm(cbind(s$x, s$x), s$y, kernel = "haar"), "`x` must have one column")
  expect_error(rvm(s$x^2, s$y, kernel = "haar"), "`x` must be equally spaced")
  expect_error(rvm(s$x, s$y, kernel = list()), "`kernel` is an empty list")
  expect_error(make_signal("noise"), "`name` must be one of")
  expect_error(make_signal("sinc", n = 4), "`n` must be >= 8")
  expect_error(make_signal("sinc", snr = 0), "`snr` must be a positive number")
  # make_signal leaves the caller's random stream alone and is reproducible
  set.seed(1)
  a <- runif(1)
  set.seed(1)
  s1 <- make_signal("bumps", 64, 2, seed = 3)
  expect_equal(runif(1), a)
  expect_identical(make_signal("bumps", 64, 2, seed = 3), s1)
  expect_equal(attr(s1, "sigma"), sd(s1$f) / 2)
  expect_output(print(kernel_wavelet("symmlet8")), "wavelet kernel\\(symmlet8\\)")
})
