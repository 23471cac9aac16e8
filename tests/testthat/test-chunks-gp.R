# sparse_gp() from data_chunks(): given its hyperparameters and inducing
# points, the fit from the rows in memory; learned on a sample otherwise.

gp_chunk_data <- function(n = 6000, seed = 4) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n, -3, 3), x2 = runif(n, -3, 3))
  d$y <- sin(2 * d$x1) * cos(d$x2) + rnorm(n, sd = 0.2)
  d$w <- sample(1:3, n, replace = TRUE)
  d$off <- runif(n)
  d
}

expect_same_gp <- function(a, b, newdata) {
  expect_equal(coef(b), coef(a), tolerance = 1e-8)
  expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-8)
  expect_equal(attr(logLik(b), "df"), attr(logLik(a), "df"))
  expect_equal(b$weights, a$weights, tolerance = 1e-8)
  expect_equal(b$qu_mean, a$qu_mean, tolerance = 1e-8)
  expect_equal(b$qu_cov, a$qu_cov, tolerance = 1e-8)
  expect_equal(predict(b, newdata, interval = "prediction"), predict(a, newdata, interval = "prediction"),
               tolerance = 1e-8)
  expect_equal(predict(b, newdata, se.fit = TRUE)$se.fit, predict(a, newdata, se.fit = TRUE)$se.fit, tolerance = 1e-8)
  expect_equal(nobs(b), nobs(a))
  sb <- summary(b)
  sa <- summary(a)
  expect_equal(sb$edf, sa$edf, tolerance = 1e-8)
  expect_equal(sb$logLik, sa$logLik, tolerance = 1e-8)
}

test_that("sparse_gp() from chunks, given its hyperparameters and inducing points, is the fit from the rows", {
  d <- gp_chunk_data()
  new <- gp_chunk_data(40, seed = 5)
  Z <- as.matrix(d[seq(1, 6000, by = 150), c("x1", "x2")])
  k <- kernel_gaussian(width = c(0.5, 0.7), variance = 0.3)
  chunks <- data_chunks(d, chunk_size = 3000)
  for (approx in c("VFE", "FITC")) {
    a <- sparse_gp(y ~ x1 + x2, data = d, inducing = Z, kernel = k, noise_variance = 0.04, optimize = "none",
                   approx = approx)
    b <- sparse_gp(y ~ x1 + x2, data = chunks, inducing = Z, kernel = k, noise_variance = 0.04, optimize = "none",
                   approx = approx)
    expect_same_gp(a, b, new)
    expect_equal(summary(b)$rmse, summary(a)$rmse, tolerance = 1e-8, info = approx)
    expect_equal(summary(b)$r_squared, summary(a)$r_squared, tolerance = 1e-8, info = approx)
    expect_equal(b$chunks$passes, 2L)
    # with weights (as precisions: row i's noise is noise * unit / w_i) and an offset
    a <- sparse_gp(y ~ x1 + x2, data = d, weights = w, offset = off, inducing = Z, kernel = k, noise_variance = 0.04,
                   optimize = "none", approx = approx)
    b <- sparse_gp(y ~ x1 + x2, data = chunks, weights = w, offset = off, inducing = Z, kernel = k,
                   noise_variance = 0.04, optimize = "none", approx = approx)
    expect_same_gp(a, b, new)
    expect_equal(b$weight_unit, a$weight_unit, tolerance = 1e-12)
    # the training residuals' sum of squares, of the rows replicated as their weights
    expect_equal(b$chunks$rss, sum(d$w / mean(d$w) * residuals(a)^2), tolerance = 1e-8, info = approx)
  }
  # a width for all inputs, and a laplace kernel
  a <- sparse_gp(y ~ x1 + x2, data = d, inducing = Z, kernel = kernel_laplace(width = 1), noise_variance = 0.05,
                 optimize = "none")
  b <- sparse_gp(y ~ x1 + x2, data = data_chunks(d, chunk_size = 1000), inducing = Z,
                 kernel = kernel_laplace(width = 1), noise_variance = 0.05, optimize = "none")
  expect_same_gp(a, b, new)
})

test_that("sparse_gp() from chunks pools exact copies as the fit from the rows", {
  d <- gp_chunk_data(2000)
  new <- gp_chunk_data(40, seed = 5)
  dup <- rbind(d, d[1:700, ])  # copies in the chunk of their row and in others
  Z <- as.matrix(d[seq(1, 2000, by = 100), c("x1", "x2")])
  k <- kernel_gaussian(width = c(0.5, 0.7), variance = 0.3)
  chunks <- data_chunks(dup, chunk_size = 900)
  for (approx in c("VFE", "FITC")) {
    a <- sparse_gp(y ~ x1 + x2, data = dup, weights = w, inducing = Z, kernel = k, noise_variance = 0.04,
                   optimize = "none", approx = approx)
    b <- sparse_gp(y ~ x1 + x2, data = chunks, weights = w, inducing = Z, kernel = k, noise_variance = 0.04,
                   optimize = "none", approx = approx)
    expect_same_gp(a, b, new)
    expect_equal(b$weight_unit, a$weight_unit, tolerance = 1e-12)
  }
})

test_that("a sparse GP from chunks keeps no rows and says what needs them", {
  d <- gp_chunk_data(3000)
  Z <- as.matrix(d[seq(1, 3000, by = 100), c("x1", "x2")])
  k <- kernel_gaussian(width = 0.6, variance = 0.3)
  fit <- sparse_gp(y ~ x1 + x2, data = data_chunks(d, chunk_size = 1000), inducing = Z, kernel = k,
                   noise_variance = 0.04, optimize = "none")
  for (field in c("fitted.values", "residuals", "Lambda", "pi_diag", "pi_r", "fitted_var", "x", "y"))
    expect_null(fit[[field]])
  big <- sparse_gp(y ~ x1 + x2, data = data_chunks(gp_chunk_data(9000), chunk_size = 3000), inducing = Z, kernel = k,
                   noise_variance = 0.04, optimize = "none")
  expect_equal(as.numeric(object.size(big)), as.numeric(object.size(fit)), tolerance = 0.01)
  expect_output(print(fit), "n = 3000")
  expect_output(print(summary(fit)), "Training RMSE")
  for (f in list(fitted, residuals, hatvalues, function(x) predict(x), function(x) predict(x, interval = "prediction"),
                 function(x) plot(x), function(x) ess(x, which = "samples"), model.frame))
    expect_error(f(fit), "does not keep")
  # saveRDS round trip predicts the same
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  new <- gp_chunk_data(10, seed = 9)
  expect_identical(predict(readRDS(path), new), predict(fit, new))
})

test_that("sparse_gp() from chunks learns on a sample of the rows and predicts as the fit from the rows", {
  d <- gp_chunk_data(6000)
  new <- gp_chunk_data(2000, seed = 6)
  f <- function(x) sin(2 * x$x1) * cos(x$x2)
  rmse <- function(fit) sqrt(mean((predict(fit, new) - f(new))^2))
  control <- sparse_gp_control(subsample = 2000)
  b <- sparse_gp(y ~ x1 + x2, data = data_chunks(d, chunk_size = 2500), inducing = 40, seed = 1, control = control)
  a <- sparse_gp(y ~ x1 + x2, data = d, inducing = 40, seed = 1, control = control)
  # both learn on 2000 rows (a sample drawn in the sums pass, or a subsample) and form the posterior on all:
  # latent errors under a fifth of the noise's sd, and within 25% of each other
  expect_lt(rmse(b), 0.04)
  expect_lt(rmse(b), 1.25 * rmse(a))
  expect_equal(b$subsample, 2000L)
  # the default stop is on the gain over the 6000 rows the posterior serves, as in memory
  expect_equal(a$control$factr, 1e11 * 1000 / 6000)
  expect_equal(b$control$factr, a$control$factr)
  expect_equal(b$m, 40)
  expect_length(b$kernel$width, 2L)
  expect_true(b$noise_estimated)
  expect_output(print(summary(b)), "on 2000 rows")
  # the same call gives the same fit (the sample's keys are seeded by the chunk's number)
  b2 <- sparse_gp(y ~ x1 + x2, data = data_chunks(d, chunk_size = 2500), inducing = 40, seed = 1, control = control)
  expect_identical(predict(b2, new), predict(b, new))
})

test_that("the sample is uniform for a generator that seeds chunk i with set.seed(i)", {
  f <- function(x) sin(2 * x$x1) * cos(x$x2)
  make <- local(function(i, rows = 2000) {
    set.seed(i)  # the sample's keys must not be these draws
    d <- data.frame(x1 = runif(rows, -3, 3), x2 = runif(rows, -3, 3))
    d$y <- f(d) + rnorm(rows, sd = 0.2)
    d
  }, list2env(list(f = f)))
  new <- gp_chunk_data(2000, seed = 6)
  b <- sparse_gp(y ~ x1 + x2, data = data_chunks(make, chunks = 3), inducing = 40, seed = 1,
                 control = sparse_gp_control(subsample = 1500))
  expect_lt(sqrt(mean((predict(b, new) - f(new))^2)), 0.05)
  # the keys leave the caller's generator, its kind and its seed, as they were
  set.seed(3)
  before <- .Random.seed
  kinds <- RNGkind()
  keys <- sparsebayes:::chunk_keys(2L, 5L)
  expect_identical(.Random.seed, before)
  expect_identical(RNGkind(), kinds)
  expect_identical(sparsebayes:::chunk_keys(2L, 5L), keys)
  set.seed(2)
  expect_false(isTRUE(all.equal(keys, runif(5))))
  rm(".Random.seed", envir = globalenv())
  sparsebayes:::chunk_keys(2L, 5L)
  expect_false(exists(".Random.seed", envir = globalenv(), inherits = FALSE))
  expect_identical(RNGkind(), kinds)
})

test_that("sparse_gp() from chunks refuses what it cannot do, clearly", {
  d <- gp_chunk_data(500)
  chunks <- data_chunks(d, chunk_size = 200)
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, approx = "exact"), "\"exact\" factorises")
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, control = sparse_gp_control(subsample = Inf)), "finite `subsample`")
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, inducing = matrix(0, 3, 3), optimize = "none",
                         kernel = kernel_gaussian(1)), "has 3 columns but the inputs have 2")
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, optimize = "none", kernel = kernel_gaussian("learn")),
               "optimize = \"none\"")
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, kernel = kernel_polynomial()), "kernel")
  expect_error(sparse_gp(y ~ x1 + x2, data = chunks, control = "fast"), "sparse_gp_control")
})

test_that("the sums and the posterior from them refuse what does not fit together", {
  d <- gp_chunk_data(300)
  x <- as.matrix(d[c("x1", "x2")])
  Z <- x[1:10, ]
  k <- unclass(kernel_gaussian(width = 0.8, variance = 0.3))
  factor <- sparsebayes:::.sb_gp_inducing_factor(k, Z, 1e-6)
  r <- d$y - mean(d$y)
  sums <- sparsebayes:::.sb_gp_sums(k, 0.04, x, r, Z, numeric(0), "VFE", factor$chol, FALSE, 1L)
  post <- sparsebayes:::.sb_gp_posterior_from_sums(0.04, factor$chol, sums, "VFE")
  full <- sparsebayes:::.sb_gp_posterior(k, 0.04, x, r, Z, numeric(0), "VFE", 1e-6, 1L, TRUE)
  expect_equal(post$value, full$value, tolerance = 1e-12)
  expect_equal(post$weights, full$weights, tolerance = 1e-12)
  expect_equal(post$edf, sum(1 - full$lambda * full$pi_diag), tolerance = 1e-10)
  expect_equal(post$rss, sum((r - full$fitted)^2), tolerance = 1e-10)
  # FITC's residual sum of squares needs its own sums (Lam is not noise / w)
  fitc <- sparsebayes:::.sb_gp_sums(k, 0.04, x, r, Z, numeric(0), "FITC", factor$chol, FALSE, 1L)
  expect_true(is.na(sparsebayes:::.sb_gp_posterior_from_sums(0.04, factor$chol, fitc, "FITC")$rss))
  expect_error(sparsebayes:::.sb_gp_posterior_from_sums(0.04, factor$chol, sums, "exact"), "no posterior from sums")
  expect_error(sparsebayes:::.sb_gp_posterior_from_sums(-1, factor$chol, sums, "VFE"), "noise variance must be positive")
  expect_error(sparsebayes:::.sb_gp_posterior_from_sums(0.04, factor$chol[-1, -1], sums, "VFE"),
               "inducing points' size")
  expect_error(sparsebayes:::.sb_gp_sums(k, 0.04, x, r, Z, numeric(0), "VFE", factor$chol[-1, -1], FALSE, 1L),
               "must be m x m")
  expect_error(sparsebayes:::.sb_gp_sums(k, 0.04, x, r[-1], Z, numeric(0), "VFE", factor$chol, FALSE, 1L),
               "different lengths")
})
