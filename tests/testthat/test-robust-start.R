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

test_that("the outlier map tells hbk's bad leverage points from its good ones, as robust regression reads it", {
  skip_if_not_installed("robustbase")
  data(hbk, package = "robustbase", envir = environment())
  robust <- ard(Y ~ ., data = hbk, noise = "student", control = ard_control(start = "robust"))
  ol <- outliers(robust, n = 75)
  type <- setNames(as.character(ol$type), ol$index)[as.character(1:75)]
  expect_true(all(type[1:10] == "bad leverage"))
  expect_true(all(type[11:14] == "good leverage"))
  expect_true(all(type[15:75] %in% c("regular", "vertical outlier")))
  expect_equal(attr(ol, "cutoffs")[c("residual", "inlier_leverage")], c(residual = 2.5, inlier_leverage = 3 * 4 / 75))
  # The masked fit reads as masked: rows 1-10 look regular there.
  masked <- outliers(ard(Y ~ ., data = hbk, noise = "student"), n = 75)
  expect_true(all(masked$type[masked$index %in% 1:10] == "regular"))
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(robust, which = "outlier_map", highlight = 1:10))
  expect_invisible(plot(robust, which = "outlier_map", legend = FALSE, col = "black", main = "hbk"))
})

test_that("outlier-map distances are Mahalanobis distances of the inputs from their inliers", {
  set.seed(4)
  n <- 60
  angle <- runif(n, 0, 2 * pi)
  X <- sqrt(runif(n)) * cbind(cos(angle), sin(angle))  # a disc: squared distances near 4 at most, cut-off 7.4
  y <- drop(X %*% c(1, -1)) + rnorm(n, sd = 0.1)
  y[1:3] <- y[1:3] + 3  # vertical outliers
  for (noise in c("shared", "student")) {
    fit <- ard(X, y, noise = noise)
    map <- outliers(fit, n = n)
    map <- map[order(map$index), ]
    inlier <- abs(map$std_residual) <= 2.5
    expect_equal(map$distance, sqrt(mahalanobis(X, colMeans(X[inlier, ]), cov(X[inlier, ]))), tolerance = 1e-10)
    expect_true(all(map$type[1:3] == "vertical outlier"))
    expect_true(all(map$type[-(1:3)] %in% c("regular", "vertical outlier")))
    expect_lte(sum(map$type[-(1:3)] != "regular"), 2)
  }
  # rvm(): the inputs are the raw inputs; a row of weight 0 has no type.
  fit <- rvm(X, y, weights = c(0, rep(1, n - 1)))
  map <- outliers(fit, n = n)
  expect_true(is.na(map$type[map$index == 1]))
  expect_true(all(map$type[map$index %in% 2:3] == "vertical outlier"))
  # A user basis has no inputs: distances from the retained basis's hat values.
  ub <- rvm(basis = cbind(1, X), y = y, bias = FALSE)
  expect_error(outliers(ub), "user `basis` is not stored")
  cls <- rvm(yc ~ xs + ys, data = transform(MASS::synth.tr, yc = factor(yc)), kernel = kernel_gaussian(0.5))
  expect_error(plot(cls, which = "outlier_map"), "needs a gaussian fit")
})

test_that("the default says in one line when the high-breakdown start explains hbk differently", {
  skip_if_not_installed("robustbase")
  data(hbk, package = "robustbase", envir = environment())
  for (noise in c("sample", "student")) {
    best <- ard(Y ~ ., data = hbk, noise = noise)
    rs <- best$restarts
    # Both optima are kept: the masked one sets aside rows 11-14, the robust one rows 1-10.
    expect_true(all(11:14 %in% rs$flagged[[1]]))
    expect_gte(sum(1:10 %in% rs$flagged[[2]]), 8)
    expect_false(any(1:10 %in% rs$flagged[[1]]))
    expect_identical(names(rs$weights[[2]]), "(Intercept)")
    note <- capture.output(print(best))
    line <- grep("Two starts explain the data differently", note, value = TRUE)
    expect_length(line, 1L)
    expect_match(line, "kept the plain start", fixed = TRUE)
    expect_match(line, format(rs$logLik[2], digits = 5), fixed = TRUE)
    expect_match(line, "flags rows 1-10", fixed = TRUE)
    expect_match(line, "start = \"robust\"", fixed = TRUE)
    expect_length(grep("Two starts", capture.output(print(summary(best)))), 1L)
    # The robust fit states the masked one the same way, from the other side.
    robust <- ard(Y ~ ., data = hbk, noise = noise, control = ard_control(start = "robust"))
    expect_match(restart_note(robust), "kept the robust start (logLik", fixed = TRUE)
  }
})

test_that("no line when the starts agree or one start ran", {
  set.seed(3)
  n <- 80
  X <- matrix(rnorm(n * 3), n, 3)
  y <- drop(X %*% c(2, 0, -1)) + rnorm(n)
  clean <- ard(X, y, noise = "student")
  expect_null(restart_note(clean))
  expect_length(grep("Two starts", capture.output(print(clean), print(summary(clean)))), 0L)
  expect_null(restart_note(ard(X, y, noise = "sample", control = ard_control(start = "plain"))))
  # A weight that moves by more than 2 sds counts as a different explanation, the same rows or not.
  rs <- data.frame(start = c("plain", "robust"), logLik = c(-1, -2), kept = c(TRUE, FALSE))
  rs$flagged <- I(list(1:2, 1:2))
  rs$weights <- I(list(c(a = 1, b = 2), c(a = 1.1, b = 2)))
  rs$sd <- I(list(c(a = 0.1, b = 0.1), c(a = 0.1, b = 0.1)))
  expect_false(restarts_disagree(rs))
  rs$weights[[2]] <- c(a = 1.3)  # b pruned: 0 is 20 sds from 2
  expect_true(restarts_disagree(rs))
  rs$weights[[2]] <- c(a = 1, b = 2)
  rs$flagged[[2]] <- 1:3
  expect_true(restarts_disagree(rs))
})
