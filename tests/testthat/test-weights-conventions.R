# Weights, zero-weight rows and R's conventions, as a new user tries them:
# integer weights are replicated rows for every solver, a row of weight 0 is
# as if absent (no scaling, width, centre or kernel column sees it), and
# anova(), nobs(), glance(), relevance_vectors() and the formula interface
# behave as lm and glm do.

# Rows of (X, y) with random integer weights (zeros among them) and, as rows
# of weight 0, far outliers in x inserted at random places.
weighted_problem <- function(seed, n = 60, d = 3) {
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, d, dimnames = list(NULL, paste0("x", seq_len(d))))
  y <- drop(X %*% c(2, -1, rep(0, d))[seq_len(d)]) + 0.5 + rnorm(n, sd = 0.5)
  w <- sample(0:3, n, replace = TRUE, prob = c(0.1, 0.5, 0.25, 0.15))
  far <- sort(sample(n + 3L, 3L))  # positions of three far rows of weight 0
  rows <- setdiff(seq_len(n + 3L), far)
  Xa <- matrix(0, n + 3L, d, dimnames = dimnames(X))
  Xa[rows, ] <- X
  Xa[far, ] <- 100 + 50 * seq_along(far)
  ya <- numeric(n + 3L)
  ya[rows] <- y
  ya[far] <- -1e3
  wa <- numeric(n + 3L)
  wa[rows] <- w
  list(X = Xa, y = ya, w = wa, copies = rep(seq_len(n + 3L), wa))
}

expect_same_fit <- function(a, b, tol, info) {
  expect_identical(names(coef(a)), names(coef(b)), info = info)
  expect_equal(unname(coef(a)), unname(coef(b)), tolerance = tol, info = info)
  expect_equal(a$lambda, b$lambda, tolerance = tol, info = info)
  expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = tol, info = info)
}

test_that("integer weights equal replicated rows for every solver with shared noise (ard and rvm)", {
  tight <- ard_control(tolerance = 1e-12, max_iterations = 50000, patience = 5)
  for (seed in 1:3) {
    p <- weighted_problem(seed)
    for (m in c("fast", "em", "mackay", "irls2", "irls1", "gradient")) {
      # the gradient solver's Adam steps reach its optimum only to about 1e-6
      tol <- if (m == "gradient") 1e-4 else 1e-8
      # (the l1-IRLS's inner ADMM stops at its own tolerance: its default)
      ctl <- switch(m, fast = rvm_control(), irls1 = ard_control(), tight)
      for (sc in c(TRUE, FALSE)) {
        info <- sprintf("ard, seed %d, %s, scale = %s", seed, m, sc)
        a <- ard(p$X, p$y, weights = p$w, method = m, scale = sc, control = ctl)
        b <- ard(p$X[p$copies, ], p$y[p$copies], method = m, scale = sc, control = ctl)
        expect_same_fit(a, b, tol, info)
        expect_equal(predict(a, p$X), predict(b, p$X), tolerance = tol, info = info)
      }
      # an RVM on given centres: the kernels see the same standardised inputs
      k <- kernel_gaussian(1.5)
      C <- p$X[p$w > 0, , drop = FALSE][1:15, ]
      for (sc in c(TRUE, FALSE)) {
        info <- sprintf("rvm, seed %d, %s, scale = %s", seed, m, sc)
        a <- rvm(p$X, p$y, kernel = k, centres = C, weights = p$w, method = m, scale = sc, control = ctl)
        b <- rvm(p$X[p$copies, ], p$y[p$copies], kernel = k, centres = C, method = m, scale = sc, control = ctl)
        expect_same_fit(a, b, tol, info)
        expect_equal(fitted(a)[p$w > 0], unname(fitted(b)[match(which(p$w > 0), p$copies)]), tolerance = tol,
                     info = info)
      }
    }
  }
})

test_that("the l1-IRLS noise under weights is that of the replicated rows (the issue's reproducer)", {
  set.seed(5)
  X <- matrix(rnorm(240), 80)
  y <- drop(X %*% c(2, 0, -1)) + rnorm(80, sd = .5)
  fw <- ard(X, y, weights = rep(2, 80), method = "irls1")
  fr <- ard(rbind(X, X), c(y, y), method = "irls1")
  expect_equal(fw$lambda, fr$lambda, tolerance = 1e-8)
  expect_equal(as.numeric(logLik(fw)), as.numeric(logLik(fr)), tolerance = 1e-8)
  expect_equal(coef(fw), coef(fr), tolerance = 1e-8)
})

test_that("sparse_gp(): integer weights equal replicated rows, VFE and exact", {
  p <- weighted_problem(4, n = 40, d = 2)
  Z <- p$X[p$w > 0, , drop = FALSE][1:8, ]
  for (approx in c("VFE", "exact")) {
    for (sc in c(TRUE, FALSE)) {
      info <- sprintf("%s, scale = %s", approx, sc)
      # A tight stop: the bound is flat along the width (equal to 1e-5 nats
      # between 14.390 and 14.398), where the default's stop leaves the two
      # optimisers 3e-4 apart. The objectives are what is compared. (At 1e5
      # the line search on the pooled rows ends at the limit of precision.)
      args <- list(kernel = kernel_gaussian(1), approx = approx, scale = sc, optimize = "hyper",
                   control = sparse_gp_control(factr = 1e6))
      if (approx != "exact") args$inducing <- Z
      a <- do.call(sparse_gp, c(list(p$X, p$y, weights = p$w), args))
      b <- do.call(sparse_gp, c(list(p$X[p$copies, ], p$y[p$copies]), args))
      # to the optimiser's tolerance: the two sums round differently
      expect_equal(a$kernel$width, b$kernel$width, tolerance = 1e-4, info = info)
      expect_equal(a$noise_variance, b$noise_variance, tolerance = 1e-4, info = info)
      expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = 1e-6, info = info)
      expect_equal(predict(a, p$X), predict(b, p$X), tolerance = 1e-5, info = info)
    }
  }
})

test_that("a row of weight 0 leaves an rvm() fit as if it were absent (the issue's reproducer)", {
  set.seed(11)
  n <- 60
  x <- sort(runif(n, -5, 5))
  y <- sin(x) + .3 * x + rnorm(n, sd = .2)
  k <- kernel_gaussian(1.5)
  f0 <- rvm(c(x, 100), c(y, 0), kernel = k, centres = cbind(x), weights = c(rep(1, n), 0))
  fd <- rvm(x, y, kernel = k, centres = cbind(x))
  expect_equal(unname(fitted(f0)[1:n]), unname(fitted(fd)), tolerance = 1e-10)
  expect_equal(unname(fitted(f0)[n + 1]), unname(predict(fd, 100)), tolerance = 1e-10)
  # the default width, the centres (every training input but the dropped
  # one) and k-means centres, for every position of the dropped row
  for (pos in c(1, 30, n + 1)) {
    xa <- append(x, 100, after = pos - 1)
    ya <- append(y, 0, after = pos - 1)
    wa <- append(rep(1, n), 0, after = pos - 1)
    f0 <- rvm(xa, ya, weights = wa)
    fd <- rvm(x, y)
    expect_equal(f0$kernel$width, fd$kernel$width, tolerance = 1e-12)
    expect_equal(f0$scaling, fd$scaling, tolerance = 1e-12)
    expect_equal(unname(fitted(f0)[wa > 0]), unname(fitted(fd)), tolerance = 1e-8)
    expect_equal(length(f0$alpha), length(fd$alpha))
    expect_false(any(relevance_vectors(f0) == 100))
    expect_equal(unname(relevance_vectors(f0)), unname(relevance_vectors(fd)))
    f0 <- rvm(xa, ya, weights = wa, centres = 10)
    fd <- rvm(x, y, centres = 10)
    expect_equal(f0$centres, fd$centres, tolerance = 1e-10)
    expect_equal(unname(fitted(f0)[wa > 0]), unname(fitted(fd)), tolerance = 1e-8)
  }
})

test_that("a row of weight 0 leaves a sparse_gp() fit as if it were absent", {
  set.seed(3)
  x <- sort(runif(50, -3, 3))
  y <- sin(2 * x) + rnorm(50, sd = 0.1)
  for (approx in c("VFE", "FITC", "exact")) {
    f0 <- sparse_gp(c(x, 50), c(y, 7), weights = c(rep(1, 50), 0), inducing = 10, approx = approx, seed = 1)
    fd <- sparse_gp(x, y, inducing = 10, approx = approx, seed = 1)
    expect_equal(nobs(f0), 50L)
    expect_equal(as.numeric(logLik(f0)), as.numeric(logLik(fd)), tolerance = 1e-10, info = approx)
    expect_equal(unname(fitted(f0)[1:50]), unname(fitted(fd)), tolerance = 1e-10, info = approx)
    expect_equal(unname(fitted(f0)[51]), unname(predict(fd, 50)), tolerance = 1e-10, info = approx)
    expect_equal(unname(hatvalues(f0)), c(unname(hatvalues(fd)), 0), tolerance = 1e-10, info = approx)
    expect_equal(unname(residuals(f0, type = "loo")[51]), 7 - unname(predict(fd, 50)), tolerance = 1e-10)
    expect_true(all(is.finite(residuals(f0, type = "pearson"))))
  }
})

test_that("anova() takes unit weights for no weights, and compares weights by value", {
  set.seed(2)
  x <- runif(40, -3, 3)
  y <- sin(x) + rnorm(40, sd = 0.2)
  a <- anova(rvm(x, y), rvm(x, y, weights = rep(1, 40)))
  expect_equal(a[["log BF"]], c(0, 0), tolerance = 1e-10)
  w <- rep(c(1, 2), 20)
  expect_s3_class(anova(rvm(x, y, weights = w), rvm(x, y, weights = as.integer(w), kernel = "laplace")), "anova")
  expect_error(anova(rvm(x, y), rvm(x, y, weights = w)), "different prior weights")
})

test_that("weights that sum to less than 2 are no information; one row of positive weight is refused", {
  # only the ratios of the weights are information (relative_weights()): weights
  # of 1/50 were refused for counting one observation; they give the fit of none
  set.seed(2)
  x <- runif(50, -3, 3)
  y <- sin(x) + rnorm(50, sd = 0.2)
  expect_equal(predict(rvm(x, y, weights = rep(1 / 50, 50)), x), predict(rvm(x, y), x), tolerance = 1e-4)
  expect_equal(coef(ard(cbind(x), y, weights = rep(1 / 50, 50))), coef(ard(cbind(x), y)), tolerance = 1e-8)
  one <- c(1, rep(0, 49))
  expect_error(rvm(x, y, weights = one), "`weights` leave 1 row of positive weight")
  expect_error(ard(cbind(x), y, weights = one), "`weights` leave 1 row of positive weight")
  # with the noise fixed, or weights as precisions (per-sample noise), they fit
  expect_s3_class(rvm(x, y, weights = rep(1 / 50, 50), control = rvm_control(noise_variance = 0.04)), "sb_rvm")
  expect_s3_class(ard(cbind(x), y, weights = rep(1 / 50, 50), noise = "sample", method = "em"), "sb_ard")
})

test_that("an all-NA response says there are no non-NA cases, as lm does", {
  d <- data.frame(x = 1:20, y = NA_real_)
  expect_error(rvm(y ~ x, data = d), "0 \\(non-NA\\) cases")
  expect_error(ard(y ~ x, data = d), "0 \\(non-NA\\) cases")
  expect_error(sparse_gp(y ~ x, data = d), "0 \\(non-NA\\) cases")
})

test_that("nobs() and glance() count rows of positive weight, as lm does", {
  set.seed(4)
  x <- runif(40, -3, 3)
  y <- sin(x) + rnorm(40, sd = 0.2)
  w <- c(rep(1, 35), rep(0, 5))
  ref <- nobs(lm(y ~ x, weights = w))
  for (f in list(rvm(x, y, weights = w), ard(cbind(x, x2 = x^2), y, weights = w),
                 sparse_gp(x, y, weights = w, inducing = 8, seed = 1))) {
    expect_identical(nobs(f), ref)
    expect_identical(glance(f)$nobs, ref)
    expect_identical(attr(logLik(f), "nobs"), ref)
  }
  expect_identical(nobs(rvm(x, y)), 40L)
})

test_that("relevance_vectors() of a multiclass fit is one table with a class column", {
  fit <- rvm(Species ~ ., data = iris)
  rv <- relevance_vectors(fit)
  expect_s3_class(rv, "data.frame")
  expect_identical(names(rv), c("class", "row", names(iris)[1:4]))
  for (k in levels(iris$Species)) {
    one <- relevance_vectors(fit$models[[k]])
    expect_equal(as.matrix(rv[rv$class == k, names(iris)[1:4]]), one, ignore_attr = TRUE)
    expect_identical(rv$row[rv$class == k], rownames(one))
  }
})

test_that("cross_validate() takes fits with rows of weight 0 (their held-out errors get weight 0)", {
  d <- MASS::mcycle
  d$w <- rep_len(c(1, 1, 1, 0), nrow(d))
  fit <- rvm(accel ~ times, data = d, weights = w)
  cv <- cross_validate(fit, folds = 3, seed = 1)
  expect_true(all(is.finite(cv$results$rmse)))
  x <- d$times
  cv2 <- cross_validate(rvm(x, d$accel, weights = d$w), folds = 3, seed = 1)
  expect_equal(cv2$results$rmse, cv$results$rmse, tolerance = 1e-10)
})

test_that("sparse_gp() takes weights that sum to less than 2 as no information", {
  set.seed(2)
  x <- runif(30, -3, 3)
  y <- sin(x) + rnorm(30, sd = 0.2)
  a <- sparse_gp(x, y, weights = rep(1 / 30, 30), inducing = 5, seed = 1)
  b <- sparse_gp(x, y, inducing = 5, seed = 1)
  # (the inputs' weighted moments divide by sum(w) - 1: scaled inputs differ
  # by a constant, and the optimiser stops at a different point of a flat optimum)
  expect_equal(predict(a, x), predict(b, x), tolerance = 1e-2)
  expect_equal(a$noise_variance, b$noise_variance, tolerance = 1e-2)
  expect_error(sparse_gp(x, y, weights = c(1, rep(0, 29)), inducing = 5, seed = 1), "`weights` leave 1 row")
  expect_s3_class(sparse_gp(x, y, weights = rep(1 / 30, 30), inducing = 5, seed = 1, noise_variance = 0.04), "sb_sparse_gp")
  expect_no_warning(rvm(x, y, weights = rep(1 / 30, 30), control = rvm_control(noise_variance = 0.04)))
})
