# Kernels on candidate centres: an n x m basis, with prediction, intervals
# and diagnostics as for the full basis.

centres_data <- function(n = 600, seed = 1) {
  set.seed(seed)
  x <- cbind(a = runif(n, -3, 3), b = runif(n, -3, 3))
  list(x = x, y = sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2), f = function(z) sin(2 * z[, 1]) * cos(z[, 2]))
}

# The exact RVM* term: the augmented model's variance at x* minus the plain
# one, both over the penalised (kernel) weights, by brute-force inverses.
augmented_extra <- function(fit, x, xt) {
  xs <- sparsebayes:::apply_scaling(x, fit$scaling)
  xts <- sparsebayes:::apply_scaling(xt, fit$scaling)
  pen <- fit$alpha[fit$relevant] > 0
  Phi <- sparsebayes:::relevant_design(fit, x)[, pen, drop = FALSE]
  v <- mean(1 / fit$alpha[fit$relevant[fit$relevant > 1]])
  B <- rep_len(1 / fit$lambda, nrow(x))
  vapply(seq_len(nrow(xt)), function(i) {
    ps <- kernel_matrix(fit$kernel, xs, xts[i, , drop = FALSE])
    ph <- sparsebayes:::relevant_design(fit, xt[i, , drop = FALSE])[pen]
    Sa <- solve(crossprod(cbind(Phi, ps) * sqrt(B)) + diag(c(fit$alpha[fit$relevant][pen], 1 / v)))
    S <- solve(crossprod(Phi * sqrt(B)) + diag(fit$alpha[fit$relevant][pen], sum(pen)))
    drop(c(ph, 1) %*% Sa %*% c(ph, 1)) - drop(ph %*% S %*% ph)
  }, numeric(1))
}

test_that("a fit on k-means++ centres has an n x m basis and predicts like a full fit", {
  d <- centres_data()
  full <- rvm(d$x, d$y)
  fit <- rvm(d$x, d$y, centres = 150)
  expect_equal(fit$n_basis, 151L)
  expect_equal(dim(fit$centres), c(150L, 2L))
  expect_identical(colnames(fit$centres), c("a", "b"))
  expect_identical(fit$centres, kmeans_centres(d$x, 150))
  expect_equal(unname(predict(fit, d$x)), unname(fitted(fit)), tolerance = 1e-12)
  xt <- cbind(runif(500, -3, 3), runif(500, -3, 3))
  rmse <- function(m) sqrt(mean((predict(m, xt) - d$f(xt))^2))
  expect_lt(rmse(fit), 1.25 * rmse(full))
  # relevance vectors are the retained centres
  rv <- relevance_vectors(fit)
  expect_equal(unname(rv), unname(fit$centres[fit$relevance_index, ]))
  expect_identical(rownames(rv), paste0("c", fit$relevance_index))
  expect_match(utils::capture.output(print(fit))[3], "on 150 centres")
  # diagnostics on the n training rows
  h <- hatvalues(fit)
  expect_length(h, 600L)
  expect_equal(sum(h), sum(1 - fit$alpha[fit$relevant] * diag(fit$Sigma)), tolerance = 1e-6)
  expect_length(residuals(fit, type = "loo"), 600L)
})

test_that("RVM* intervals are the exact augmented-model variance, with or without centres", {
  d <- centres_data(300, 2)
  xt <- cbind(c(-2, 0, 1, 3.5, 6), c(1, 0, -2, 3.5, 6))
  extra <- function(fit) {
    predict(fit, xt, se.fit = TRUE)$se.fit^2 - predict(fit, xt, se.fit = TRUE, variance = "rvm")$se.fit^2
  }
  for (fit in list(rvm(d$x, d$y), rvm(d$x, d$y + 50), rvm(d$x, d$y, centres = 40),
                   rvm(d$x, d$y, centres = 40, noise = "student"))) {
    expect_equal(extra(fit), augmented_extra(fit, d$x, xt), tolerance = 1e-8)
  }
  # a pruned bias (alpha 0, the centring alone) no longer inflates the band inside the data
  fit <- rvm(d$x, d$y)
  expect_equal(unname(fit$alpha[1]), 0)
  se <- predict(fit, xt[1:3, ], se.fit = TRUE)$se.fit
  expect_true(all(se < 0.15))
})

test_that("centres given as a matrix, in the formula interface, for classification, with update()", {
  d <- centres_data(400, 3)
  z <- kmeans_centres(d$x, 30, seed = 7)
  df <- data.frame(d$x, y = d$y)
  fit <- rvm(y ~ a + b, data = df, centres = z)
  expect_identical(unname(fit$centres), unname(z))
  expect_equal(unname(predict(fit, df[1:5, ])), unname(fitted(fit)[1:5]), tolerance = 1e-12)
  expect_equal(update(fit, centres = 30)$n_basis, 31L)
  cls <- rvm(d$x, factor(d$y > 0), centres = 40)
  expect_equal(cls$n_basis, 41L)
  expect_gt(mean(predict(cls) == factor(d$y > 0)), 0.85)
  three <- rvm(d$x, cut(d$y, 3), centres = 40)
  expect_true(all(vapply(three$models, function(m) m$n_basis, integer(1)) == 41L))
  # m >= n means the training inputs
  expect_null(rvm(d$x[1:50, ], d$y[1:50], centres = 50)$centres)
  tmp <- tempfile(fileext = ".rds")
  saveRDS(fit, tmp)
  expect_identical(predict(readRDS(tmp), df[1:7, ], interval = "prediction"),
                   predict(fit, df[1:7, ], interval = "prediction"))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(rvm(d$x[, 1], d$y, centres = 20)))
  expect_silent(plot(cls, which = "fit"))
})

test_that("large data get centres by default, with a message", {
  set.seed(4)
  x <- runif(5200, -10, 10)
  y <- sin(x) / x + rnorm(5200, sd = 0.1)
  expect_message(fit <- rvm(x, y), "5200 training inputs.*1000 k-means\\+\\+ centres")
  expect_equal(fit$n_basis, 1001L)
  expect_lt(sqrt(mean((predict(fit, seq(-9, 9, 0.1)) - sin(seq(-9, 9, 0.1)) / seq(-9, 9, 0.1))^2, na.rm = TRUE)), 0.02)
})

test_that("kmeans_centres is deterministic, thread-independent and spreads over the data", {
  set.seed(5)
  x <- rbind(matrix(rnorm(4000, 0, 0.1), ncol = 2), matrix(rnorm(4000, 5, 0.1), ncol = 2))
  old <- options(sparsebayes.threads = 1)
  on.exit(options(old))
  a <- kmeans_centres(x, 10, seed = 3)
  options(sparsebayes.threads = 2)
  expect_identical(kmeans_centres(x, 10, seed = 3), a)
  expect_false(identical(kmeans_centres(x, 10, seed = 4), a))
  # both clusters get centres
  expect_true(any(a[, 1] < 1) && any(a[, 1] > 4))
  # fewer distinct points than centres: the distinct points
  expect_equal(nrow(kmeans_centres(rbind(c(0, 0), c(1, 1), c(0, 0)), 5)), 2L)
  # subsampled when n is far above 50 m
  big <- matrix(runif(60000), ncol = 2)
  expect_equal(dim(kmeans_centres(big, 20)), c(20L, 2L))
})

test_that("bad centres are refused clearly", {
  d <- centres_data(100, 6)
  expect_error(rvm(d$x, d$y, centres = 0), "centres.*>= 1")
  expect_error(rvm(d$x, d$y, centres = 2.5), "centres.*whole number")
  expect_error(rvm(d$x, d$y, centres = matrix(1, 3, 3)), "centres.*3 columns.*2")
  expect_error(rvm(d$x, d$y, centres = matrix(c(1, NA), 1)), "centres.*NA")
  expect_error(rvm(d$x, d$y, centres = matrix(c(1, Inf), 1)), "centres.*infinite")
  expect_error(rvm(d$x, d$y, centres = "many"), "centres")
  expect_error(rvm(NULL, d$y, basis = cbind(1, d$x), centres = 5), "centres.*NULL.*basis")
  s <- make_signal("bumps", n = 64, snr = 7, seed = 1)
  expect_error(rvm(s$x, s$y, kernel = kernel_wavelet("haar"), prior = "BIC", centres = 8), "centres.*wavelet")
  expect_error(kmeans_centres(d$x, 0), "m.*>= 1")
  expect_error(kmeans_centres(d$x, 3, seed = -1), "seed")
  expect_error(kmeans_centres(matrix(c(1, NA), 2), 1), "x.*NA")
})

test_that("a width chosen by the evidence keeps the centres", {
  d <- centres_data(300, 8)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian("evidence"), centres = 40)
  expect_equal(fit$n_basis, 41L)
  expect_identical(fit$centres, kmeans_centres(d$x, 40))
  fixed <- rvm(d$x, d$y, kernel = kernel_gaussian(fit$kernel$width), centres = 40)
  expect_equal(fit$logLik, fixed$logLik, tolerance = 1e-10)
})
