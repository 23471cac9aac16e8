# The RIC prior that keeps ard() from interpolating when features outnumber
# rows, the "auto" choice of it, and the interpolation warning.

wide_design <- function(seed, n = 100, d = 1000, k = 10) {
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, d, dimnames = list(NULL, paste0("x", 1:d)))
  beta <- c(sample(c(-2, 2), k, TRUE), rep(0, d - k))
  Xt <- matrix(rnorm(500 * d), 500, d, dimnames = list(NULL, paste0("x", 1:d)))
  list(X = X, y = drop(X %*% beta + rnorm(n)), Xt = Xt, yt = drop(Xt %*% beta + rnorm(500)), true = paste0("x", 1:k))
}

test_that("with d >= n the default fit has the RIC prior, keeps the true features and honest intervals", {
  cover <- numeric(0)
  for (seed in 1:3) {
    w <- wide_design(seed)
    fit <- expect_silent(ard(w$X, w$y))
    expect_identical(fit$prior, "auto")
    expect_equal(fit$smoothness, log(1000))  # at d >= n "auto" is RIC's price
    expect_identical(fit$method, "fast")
    expect_true(all(w$true %in% names(fit$weights)))
    expect_lte(length(fit$relevant), 13L)  # the intercept and at most two false features
    expect_gt(sqrt(fit$lambda), 0.7)
    expect_lt(sqrt(fit$lambda), 1.4)
    p <- predict(fit, w$Xt, interval = "prediction")
    cover <- c(cover, mean(w$yt > p[, "lwr"] & w$yt < p[, "upr"]))
  }
  expect_gt(mean(cover), 0.88)
  expect_lt(mean(cover), 0.99)
  expect_output(print(fit), "prior auto \\(6.91 nats per effective parameter\\)")
})

test_that("the flat prior interpolates at d >= n, and says so", {
  w <- wide_design(1)
  expect_warning(fit <- ard(w$X, w$y, method = "em"), "nearly interpolates")
  expect_identical(fit$prior, "none")
  expect_lt(sqrt(fit$lambda), 0.1)
  p <- predict(fit, w$Xt, interval = "prediction")
  expect_lt(mean(w$yt > p[, "lwr"] & w$yt < p[, "upr"]), 0.2)
  expect_warning(ard(w$X, w$y, prior = "none", method = "fast"), "nearly interpolates")
  expect_warning(ard(w$X, w$y, noise = "sample"), "nearly interpolates")  # auto: no prior with per-sample noise
  # the warning stays with the fit: print() and summary() repeat it
  expect_match(fit$interpolation, "^the fit spends [0-9.]+ effective parameters on n = [0-9]+ rows: it nearly interpolates")
  expect_output(print(fit), "Warning: the fit spends .* nearly\\s+interpolates")
  expect_output(print(summary(fit)), "Warning: the fit spends .* nearly\\s+interpolates.*prior = \"RIC\"")
  expect_null(suppressWarnings(ard(w$X, w$y, prior = "RIC", method = "fast"))$interpolation)
})

test_that("with n >> d the auto price is near zero and the fit the flat prior's, without a warning", {
  d <- outlier_data(n = 150, d = 8, n_out = 0)
  fit <- expect_silent(ard(d$X, d$y))
  expect_lt(fit$smoothness, 0.05)
  flat <- ard(d$X, d$y, prior = "none")
  expect_identical(flat$method, "em")
  expect_equal(fitted(fit), fitted(flat), tolerance = 1e-3)
  expect_equal(fit$lambda, flat$lambda, tolerance = 0.03)
  expect_silent(ard(d$X, d$y, method = "fast"))
  # as many features as rows: the price is RIC's; the formula counts features without the intercept
  X <- d$X[1:8, ]
  expect_equal(ard(X, d$y[1:8])$smoothness, log(8))
  df <- data.frame(y = d$y[1:9], d$X[1:9, ])
  f9 <- ard(y ~ ., df)
  expect_identical(f9$prior_choice$d, 8L)
  expect_gt(f9$smoothness, (8 / 9)^4 * log(8) - 1e-12)
  # a method without a prior, or per-sample noise, keeps the flat prior
  expect_identical(ard(d$X, d$y, method = "em")$prior, "none")
  expect_identical(ard(d$X, d$y, noise = "sample")$prior, "none")
})

test_that("a numeric prior is the same c, and named priors give their c", {
  w <- wide_design(2, n = 60, d = 200, k = 5)
  a <- ard(w$X, w$y, prior = "RIC")
  b <- ard(w$X, w$y, prior = log(200))
  expect_equal(a[c("weights", "Sigma", "lambda")], b[c("weights", "Sigma", "lambda")])
  expect_equal(ard(w$X, w$y, prior = "BIC")$smoothness, log(60) / 2)
  expect_equal(ard(w$X, w$y, prior = "AIC")$smoothness, 1)
  # a prior selects the fast solver, whose log evidence excludes the prior
  expect_identical(a$method, "fast")
  expect_gt(a$log_posterior - a$logLik, -Inf)
  expect_lt(a$log_posterior, a$logLik)
})

test_that("selection and intervals hold with correlated columns, AR(1) 0.5 and 0.9, wide and tall", {
  ar1 <- function(m, d, rho) {
    Z <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("x", 1:d)))
    for (j in 2:d) Z[, j] <- rho * Z[, j - 1] + sqrt(1 - rho^2) * Z[, j]
    Z
  }
  for (rho in c(0.5, 0.9)) {
    cover <- c(wide = 0, tall = 0)
    for (seed in 1:3) {
      set.seed(seed)
      # wide: d = 300 > n = 150, the default RIC fit, five weights of +-2
      idx <- sort(sample(300, 5))
      b <- replace(numeric(300), idx, sample(c(-2, 2), 5, TRUE))
      X <- ar1(150, 300, rho)
      Xt <- ar1(1000, 300, rho)
      fit <- ard(X, drop(X %*% b) + rnorm(150))
      expect_identical(fit$prior, "auto")
      expect_equal(fit$smoothness, log(300))
      expect_setequal(selected(fit), paste0("x", idx))
      p <- predict(fit, Xt, interval = "prediction")
      yt <- drop(Xt %*% b) + rnorm(1000)
      cover["wide"] <- cover["wide"] + mean(yt > p[, "lwr"] & yt < p[, "upr"]) / 3
      # tall: n = 200 > d = 50, the flat prior; the selection keeps few false features
      idx <- c(5, 15, 25, 35, 45)
      b <- replace(numeric(50), idx, c(2, -1.5, 1, -0.75, 0.5))
      X <- ar1(200, 50, rho)
      Xt <- ar1(1000, 50, rho)
      fit <- ard(X, drop(X %*% b) + rnorm(200))
      sel <- selected(fit)
      expect_gte(sum(sel %in% paste0("x", idx)), 4L)
      expect_lte(sum(!sel %in% paste0("x", idx)), 3L)
      p <- predict(fit, Xt, interval = "prediction")
      yt <- drop(Xt %*% b) + rnorm(1000)
      cover["tall"] <- cover["tall"] + mean(yt > p[, "lwr"] & yt < p[, "upr"]) / 3
    }
    expect_true(all(cover > 0.88 & cover < 0.98), info = paste(rho, cover))
  }
})

# Issue 43, item 6: "auto" switched to RIC only at d >= n; at d = 49, n = 50
# the flat prior kept 12 features, a noise sd of 0.60 and 62% coverage.
test_that("just below d = n the auto prior prices features: honest noise, few false features", {
  set.seed(2)
  X <- matrix(rnorm(50 * 49), 50)
  y <- 2 * X[, 1] + rnorm(50)
  f <- expect_silent(ard(X, y))
  expect_identical(f$prior, "auto")
  expect_gt(f$smoothness, 2)
  expect_gt(sqrt(f$lambda), 0.8)
  expect_lt(sqrt(f$lambda), 1.25)
  expect_true("x1" %in% selected(f))
  expect_lte(length(selected(f)), 2L)
  # the choice is recorded and summary() says it in one line
  expect_identical(f$prior_choice$n_distinct, 50L)
  expect_identical(f$prior_choice$d, 49L)
  expect_equal(f$prior_choice$share, (49 / 50)^2)
  expect_output(print(summary(f)), "Prior \\(auto\\): +[0-9.]+ nats per effective parameter")
})

test_that("the auto price is continuous in d / n: coverage and false features near d = n", {
  cover <- fp <- numeric(0)
  for (ratio in c(0.8, 0.9, 1, 1.2)) for (seed in 1:2) {
    set.seed(seed)
    n <- 50
    d <- round(ratio * n)
    X <- matrix(rnorm(n * d), n, dimnames = list(NULL, paste0("x", 1:d)))
    Xt <- matrix(rnorm(1000 * d), 1000, dimnames = list(NULL, paste0("x", 1:d)))
    f <- ard(X, 2 * X[, 1] + rnorm(n))
    p <- predict(f, Xt, interval = "prediction")
    yt <- 2 * Xt[, 1] + rnorm(1000)
    cover <- c(cover, mean(yt > p[, "lwr"] & yt < p[, "upr"]))
    fp <- c(fp, sum(selected(f) != "x1"))
  }
  expect_gt(mean(cover), 0.88)
  expect_lte(mean(fp), 1)
  # the price grows with d / n, without a jump at d = n
  price <- function(d) { set.seed(3); X <- matrix(rnorm(50 * d), 50); ard(X, 2 * X[, 1] + rnorm(50))$smoothness }
  p <- vapply(46:51, price, numeric(1))  # 2.9 3.3 3.6 3.9 3.9 (RIC's log(d) from d = n)
  expect_true(all(diff(p) > -0.1))
  expect_lt(max(abs(diff(p))), 0.6)
  expect_equal(p[5:6], log(50:51))
})

# Issue 43, item 7: weights 2 gave "RIC" and the replicated rows "none".
test_that("the auto prior counts distinct rows: copies, weights 2 and constant weights choose the same price", {
  set.seed(5)
  X <- matrix(rnorm(3000), 50)
  y <- 2 * X[, 1] + rnorm(50)
  a <- ard(X, y, weights = rep(2, 50))
  b <- ard(X[rep(1:50, 2), ], rep(y, 2))
  c1 <- ard(X, y)
  expect_identical(a$prior, b$prior)
  expect_equal(a$smoothness, b$smoothness)
  expect_equal(a$smoothness, c1$smoothness)
  expect_identical(b$prior_choice$n_distinct, 50L)
  for (w in c(3, 0.5)) expect_equal(ard(X, y, weights = rep(w, 50))$smoothness, c1$smoothness)
  # below d = n, where the price depends on n and on the fits: the same price again
  X40 <- X[, 1:40]
  p1 <- ard(X40, y)$prior_choice
  expect_gt(p1$smoothness, 0.5)
  for (f in list(ard(X40, y, weights = rep(2, 50)), ard(X40[rep(1:50, 2), ], rep(y, 2)),
                 ard(X40, y, weights = rep(0.5, 50)), ard(X40[rep(1:50, 3), ], rep(y, 3), weights = rep(1 / 3, 150))))
    expect_equal(f$prior_choice[c("smoothness", "n_distinct", "kept")], p1[c("smoothness", "n_distinct", "kept")])
  # a bootstrap resample chooses on its distinct rows
  set.seed(1)
  i <- sample(50, replace = TRUE)
  expect_identical(ard(X[i, ], y[i])$prior_choice$n_distinct, length(unique(i)))
})

test_that("the interpolation warning suggests only calls that run for the noise model at hand", {
  # Student-t noise with more features than rows and one outlier: the RIC
  # prior is refused there (it prices parameters against one shared noise),
  # so the warning must not send the user to it alone.
  w <- wide_design(2, n = 60, d = 150)
  y <- w$y
  y[7] <- y[7] + 25
  expect_warning(fit <- ard(w$X, y, noise = "student"),
                 "nearly interpolates.*noise = \"student\" takes no prior on the weights: use fewer features than rows, or noise = \"shared\" with prior = \"RIC\"")
  expect_error(ard(w$X, y, noise = "student", prior = "RIC"), "needs noise = \"shared\"")
  ric <- expect_silent(ard(w$X, y, noise = "shared", prior = "RIC"))  # the suggested call runs, and does not interpolate
  expect_lt(sparsebayes:::effective_parameters(ric), 30)
  expect_warning(ard(w$X, y, noise = "sample"), "noise = \"sample\" takes no prior on the weights")
  # shared noise: prior = "RIC" with the fit's own method where it takes one, else with one that does
  expect_warning(ard(w$X, w$y, prior = "none", method = "fast"), "nearly interpolates.*Use prior = \"RIC\"\\.$")
  expect_warning(ard(w$X, w$y, method = "em"), "Use prior = \"RIC\" with method = \"fast\"")
  expect_silent(ard(w$X, w$y, prior = "RIC", method = "fast"))
})
