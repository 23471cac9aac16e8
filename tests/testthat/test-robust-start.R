top_rows <- function(fit, k) order(fit$lambda, decreasing = TRUE)[seq_len(k)]

test_that("the high-breakdown start finds hbk's bad leverage points that the plain start masks", {
  skip_if_not_installed("robustbase")
  data(hbk, package = "robustbase", envir = environment())
  for (noise in c("sample", "student")) {
    best <- ard(Y ~ ., data = hbk, noise = noise)
    robust <- ard(Y ~ ., data = hbk, noise = noise, control = ard_control(start = "robust"))
    # The evidence prefers the fit that follows the ten rows (masking is in
    # the model, not only in the search): "best" keeps it and says so.
    expect_identical(best$restarts$start, c("plain", "robust"))
    expect_gt(best$restarts$logLik[1], best$restarts$logLik[2])
    expect_identical(best$restarts$kept, c(TRUE, FALSE))
    expect_equal(robust$restarts$logLik, best$restarts$logLik)
    expect_identical(robust$restarts$kept, c(FALSE, TRUE))
    expect_equal(logLik(robust)[[1]], robust$restarts$logLik[2])
    expect_setequal(top_rows(robust, 10), 1:10)
    expect_lt(sum(top_rows(best, 10) %in% 1:10), 3)
  }
})

test_that("Fig. 6: EM with per-sample noise puts the four StarsCYG giants on top with a positive slope", {
  skip_if_not_installed("robustbase")
  data(starsCYG, package = "robustbase", envir = environment())
  fit <- ard(log.light ~ log.Te, data = starsCYG, method = "em", noise = "sample")
  expect_setequal(top_rows(fit, 4), c(11, 20, 30, 34))
  expect_gt(unname(diff(predict(fit, data.frame(log.Te = c(4, 5))))), 0.5)
  # Here the robust start's optimum also has the higher evidence.
  expect_identical(fit$restarts$kept, c(FALSE, TRUE))
  expect_gt(fit$restarts$logLik[2], fit$restarts$logLik[1])
  plain <- ard(log.light ~ log.Te, data = starsCYG, method = "em", noise = "sample",
               control = ard_control(start = "plain"))
  expect_null(plain$restarts)
  expect_lt(logLik(plain), logLik(fit))
})

test_that("start = \"best\" never returns a lower evidence than the plain start (seeds, solvers, noise models)", {
  for (seed in 1:6) for (method in c("em", "mackay")) for (noise in c("sample", "student")) {
    set.seed(seed)
    n <- 120
    X <- matrix(rnorm(n * 4), n, 4)
    y <- drop(X %*% c(1, -1, 0.5, 0)) + rnorm(n, sd = 0.3)
    k <- 12  # a cluster of bad leverage points
    X[1:k, 1:2] <- X[1:k, 1:2] + 4
    y[1:k] <- -4 + rnorm(k, sd = 0.3)
    plain <- suppressWarnings(ard(X, y, method = method, noise = noise, control = ard_control(start = "plain")))
    best <- suppressWarnings(ard(X, y, method = method, noise = noise))
    expect_equal(best$restarts$logLik[1], logLik(plain)[[1]], tolerance = 1e-10)
    expect_gte(logLik(best)[[1]], logLik(plain)[[1]])
    expect_equal(logLik(best)[[1]], max(best$restarts$logLik, na.rm = TRUE))
  }
})

test_that("the robust start is deterministic, independent of R's RNG, and skipped where it cannot help", {
  set.seed(3)
  n <- 80
  X <- matrix(rnorm(n * 3), n, 3)
  y <- drop(X %*% c(2, 0, -1)) + rnorm(n)
  X[1:8, 1] <- X[1:8, 1] + 5
  y[1:8] <- -10
  set.seed(1)
  a <- ard(X, y, noise = "sample", control = ard_control(start = "robust"))
  set.seed(2)
  b <- ard(X, y, noise = "sample", control = ard_control(start = "robust"))
  expect_identical(a$weights, b$weights)
  expect_identical(a$lambda, b$lambda)
  # Shared noise: one start.
  expect_null(ard(X, y)$restarts)
  # Clean data: the plain fit agrees with the high-breakdown fit, so no second fit.
  clean <- ard(X[-(1:8), ], y[-(1:8)], noise = "student")
  expect_true(is.na(clean$restarts$logLik[2]))
  expect_identical(clean$restarts$kept, c(TRUE, FALSE))
  # A basis with half as many columns as rows or more has no high-breakdown start.
  wide <- ard(X[9:14, ], y[9:14], noise = "sample", intercept = FALSE)
  expect_null(wide$restarts)
  # The paper's schedule is an early-stopped estimator of its own: one start.
  expect_null(ard(X, y, noise = "sample", control = ard_control(schedule = "paper", max_iterations = 200))$restarts)
})

test_that("start settings are checked", {
  expect_error(ard_control(start = "random"), "start")
  expect_error(ard_control(start = c("best", "robust")), "start")
  expect_error(ard_control(start_subsets = 0), "start_subsets")
  ctl <- ard_control()
  ctl$start <- "nope"
  expect_error(ard(matrix(rnorm(40), 20), rnorm(20), noise = "sample", control = ctl), "start")
})
