# cross_validate(): K-fold refits through update(), over a grid of
# settings, with the same numbers under every future plan.

# The scores of a hand-made loop over the folds of `cv`, each refit made by
# update(fit, <training rows>, ...) as a user would.
hand_rmse <- function(cv, refit, predict_fold, truth) {
  per_fold <- vapply(seq_len(max(cv$fold)), function(k) {
    m <- refit(cv$fold != k)
    r <- truth[cv$fold == k] - predict_fold(m, cv$fold == k)
    c(rmse = sqrt(mean(r^2)), mae = mean(abs(r)))
  }, numeric(2))
  rbind(mean = rowMeans(per_fold), se = apply(per_fold, 1L, sd) / sqrt(ncol(per_fold)))
}

test_that("gaussian rvm: the CV scores are those of update() over the same folds", {
  d <- sinc_data(100)
  x <- d$x
  y <- d$y
  fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
  cv <- cross_validate(fit, folds = 5, seed = 11)
  expect_s3_class(cv, "sb_cv")
  expect_identical(sort(tabulate(cv$fold)), rep(20L, 5L))
  hand <- hand_rmse(cv, function(tr) update(fit, x = x[tr], y = y[tr]), function(m, te) predict(m, x[te]), y)
  expect_equal(cv$results$rmse, hand["mean", "rmse"], tolerance = 1e-12)
  expect_equal(cv$results$rmse_se, hand["se", "rmse"], tolerance = 1e-12)
  expect_equal(cv$results$mae, hand["mean", "mae"], tolerance = 1e-12)
  expect_equal(cv$results$mae_se, hand["se", "mae"], tolerance = 1e-12)
  expect_identical(cv$metric, "rmse")
  expect_identical(cv$best, 1L)
  expect_identical(cv$fit, fit)  # no grid: the fit itself
  expect_identical(nrow(cv$folds), 5L)
  expect_identical(cv$folds$n, tabulate(cv$fold)[cv$folds$fold])
  expect_equal(mean(cv$folds$rmse), cv$results$rmse, tolerance = 1e-14)
})

test_that("the seed fixes the folds and leaves the caller's random stream alone", {
  d <- sinc_data(60)
  x <- d$x
  y <- d$y
  fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
  set.seed(5)
  before <- .Random.seed
  a <- cross_validate(fit, folds = 4, seed = 1)
  expect_identical(.Random.seed, before)
  b <- cross_validate(fit, folds = 4, seed = 1)
  expect_identical(a$results, b$results)
  expect_identical(a$fold, b$fold)
  expect_false(identical(a$fold, cross_validate(fit, folds = 4, seed = 2)$fold))
  # seed = NULL draws from (and moves) the current stream, as sample() does
  set.seed(5)
  c1 <- cross_validate(fit, folds = 4)
  expect_false(identical(.Random.seed, before))
  set.seed(5)
  expect_identical(cross_validate(fit, folds = 4)$fold, c1$fold)
  # leave-one-out
  loo <- cross_validate(fit, folds = 60, seed = 1)
  expect_identical(sort(loo$fold), 1:60)
  expect_equal(loo$results$mae, loo$results$rmse, tolerance = 1e-6)  # one point per fold: |r| = sqrt(r^2)
})

test_that("a grid of kernels and noise models: every setting, its labels, the best, the refit", {
  d <- MASS::mcycle
  fit <- rvm(accel ~ times, data = d)
  kernels <- list(kernel_gaussian(0.3), kernel_gaussian(1))
  cv <- cross_validate(fit, folds = 4, seed = 3, grid = list(kernel = kernels, noise = c("shared", "student")))
  res <- cv$results
  expect_identical(nrow(res), 4L)
  expect_identical(res$kernel, rep(c("gaussian(width = 0.3)", "gaussian(width = 1)"), 2L))
  expect_identical(res$noise, rep(c("shared", "student"), each = 2L))
  expect_identical(names(res), c("kernel", "noise", "rmse", "rmse_se", "mae", "mae_se"))
  expect_identical(cv$settings[[4L]], list(kernel = kernels[[2L]], noise = "student"))
  expect_identical(cv$best, which.min(res$rmse))
  # setting 3 (width 0.3, student noise) by hand
  hand <- hand_rmse(cv, function(tr) update(fit, data = d[tr, ], kernel = kernels[[1L]], noise = "student"),
                    function(m, te) predict(m, d[te, ]), d$accel)
  expect_equal(res$rmse[3L], hand["mean", "rmse"], tolerance = 1e-12)
  expect_equal(res$mae_se[3L], hand["se", "mae"], tolerance = 1e-12)
  # the refit on all the data at the best setting is update(fit, <best setting>)
  best <- cv$settings[[cv$best]]
  ref <- update(fit, kernel = best$kernel, noise = best$noise)
  expect_equal(fitted(cv$fit), fitted(ref), tolerance = 1e-12)
  expect_equal(logLik(cv$fit), logLik(ref), tolerance = 1e-12)
  expect_identical(cv$fit$noise, best$noise)
  # its call reads as a user would write it, and update() works on it
  expect_identical(cv$fit$call$kernel, call("kernel_gaussian", width = best$kernel$width))
  expect_equal(fitted(update(cv$fit)), fitted(cv$fit), tolerance = 0)
  # another metric chooses by its own column
  cv_mae <- cross_validate(fit, folds = 4, seed = 3, grid = list(kernel = kernels), metric = "mae")
  expect_identical(cv_mae$best, which.min(cv_mae$results$mae))
  expect_output(print(cv), "4-fold cross-validation, n = 133, 4 settings \\(seed 3\\)")
  expect_output(print(cv), "Best by rmse: kernel = gaussian")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(cv))
})

test_that("settings held fixed through ... and single values in the grid", {
  d <- MASS::mcycle
  fit <- rvm(accel ~ times, data = d)
  cv <- cross_validate(fit, folds = 3, seed = 1, grid = list(kernel = kernel_gaussian(0.5)), bias = FALSE)
  expect_identical(cv$results$kernel, "gaussian(width = 0.5)")
  expect_false(cv$fit$bias)
  hand <- hand_rmse(cv, function(tr) update(fit, data = d[tr, ], kernel = kernel_gaussian(0.5), bias = FALSE),
                    function(m, te) predict(m, d[te, ]), d$accel)
  expect_equal(cv$results$rmse, hand["mean", "rmse"], tolerance = 1e-12)
})

test_that("binomial and multiclass fits are scored by log loss and misclassification", {
  tr <- transform(MASS::synth.tr, yc = factor(yc, labels = c("a", "b")))
  fit <- rvm(yc ~ xs + ys, data = tr, kernel = kernel_gaussian(0.5), scale = FALSE)
  cv <- cross_validate(fit, folds = 5, seed = 2)
  expect_identical(cv$metric, "log_loss")
  expect_identical(names(cv$results), c("log_loss", "log_loss_se", "error", "error_se"))
  # stratified: each class dealt evenly over the folds
  counts <- table(tr$yc, cv$fold)
  expect_true(all(apply(counts, 1L, function(v) diff(range(v))) <= 1L))
  scores <- vapply(1:5, function(k) {
    m <- update(fit, data = tr[cv$fold != k, ])
    te <- tr[cv$fold == k, ]
    p <- predict(m, te, type = "response")
    y <- te$yc == "b"
    c(-mean(ifelse(y, log(p), log(1 - p))), mean(predict(m, te) != te$yc))
  }, numeric(2))
  expect_equal(cv$results$log_loss, mean(scores[1L, ]), tolerance = 1e-12)
  expect_equal(cv$results$error, mean(scores[2L, ]), tolerance = 1e-12)
  expect_equal(cv$results$error_se, sd(scores[2L, ]) / sqrt(5), tolerance = 1e-12)

  multi <- rvm(Species ~ ., data = iris)
  cvm <- cross_validate(multi, folds = 3, seed = 4, metric = "error")
  scores <- vapply(1:3, function(k) {
    m <- update(multi, data = iris[cvm$fold != k, ])
    te <- iris[cvm$fold == k, ]
    p <- predict(m, te, type = "prob")
    c(-mean(log(p[cbind(seq_len(nrow(te)), as.integer(te$Species))])), mean(predict(m, te) != te$Species))
  }, numeric(2))
  expect_equal(cvm$results$log_loss, mean(scores[1L, ]), tolerance = 1e-12)
  expect_equal(cvm$results$error, mean(scores[2L, ]), tolerance = 1e-12)
  expect_true(all(apply(table(iris$Species, cvm$fold), 1L, function(v) diff(range(v))) <= 1L))
})

test_that("poisson fits are scored by the mean deviance", {
  set.seed(8)
  x <- matrix(runif(80, -2, 2), ncol = 1)
  counts <- rpois(80, exp(1 + sin(2 * x[, 1])))
  fit <- rvm(x, counts, family = "poisson", kernel = kernel_gaussian(1), scale = FALSE)
  cv <- cross_validate(fit, folds = 4, seed = 1)
  expect_identical(cv$metric, "deviance")
  dev <- vapply(1:4, function(k) {
    m <- update(fit, x = x[cv$fold != k, , drop = FALSE], y = counts[cv$fold != k])
    mu <- predict(m, x[cv$fold == k, , drop = FALSE], type = "response")
    yk <- counts[cv$fold == k]
    mean(2 * (ifelse(yk == 0, 0, yk * log(yk / mu)) - (yk - mu)))
  }, numeric(1))
  expect_equal(cv$results$deviance, mean(dev), tolerance = 1e-12)
})

test_that("ard() and sparse_gp() fits, matrix and formula", {
  dat <- linear_data()
  X <- dat$X
  y <- dat$y
  a <- ard(X, y)
  cv <- cross_validate(a, folds = 5, seed = 1, grid = list(method = c("em", "mackay")))
  hand <- hand_rmse(cv, function(tr) update(a, x = X[tr, ], y = y[tr], method = "mackay"),
                    function(m, te) predict(m, X[te, ]), y)
  expect_equal(cv$results$rmse[2L], hand["mean", "rmse"], tolerance = 1e-12)
  expect_identical(cv$fit$method, cv$settings[[cv$best]]$method)

  d <- data.frame(X, y = y)
  gp <- sparse_gp(y ~ v1 + v2, data = d, inducing = 10, seed = 3)
  cvg <- cross_validate(gp, folds = 3, seed = 1)
  hand <- hand_rmse(cvg, function(tr) update(gp, data = d[tr, ]), function(m, te) predict(m, d[te, ]), y)
  expect_equal(cvg$results$rmse, hand["mean", "rmse"], tolerance = 1e-12)
  # without a seed of its own the GP's k-means start draws random numbers:
  # cross_validate() seeds each refit, so its results are reproducible
  gp0 <- sparse_gp(X[, 1:2], y, inducing = 10)
  expect_identical(cross_validate(gp0, folds = 3, seed = 1)$results, cross_validate(gp0, folds = 3, seed = 1)$results)
})

test_that("weights, offsets, subset and missing values are split with the rows", {
  dat <- linear_data()
  set.seed(4)
  d <- data.frame(dat$X, y = dat$y, w = runif(60, 0.5, 2), o = rnorm(60), o2 = rnorm(60))
  d$y <- d$y + d$o + d$o2
  d$v1[5] <- NA
  fit <- rvm(y ~ v1 + v2 + offset(o), data = d, weights = w, offset = o2, subset = v3 > -1.5,
             na.action = na.exclude, kernel = kernel_gaussian(2))
  cv <- cross_validate(fit, folds = 4, seed = 1)
  used <- d[!is.na(d$v1) & d$v3 > -1.5, ]
  expect_identical(cv$n, nrow(used))
  expect_identical(cv$n, nobs(fit))
  rmse <- vapply(1:4, function(k) {
    m <- update(fit, data = used[cv$fold != k, ])
    te <- used[cv$fold == k, ]
    sqrt(weighted.mean((te$y - predict(m, te))^2, te$w))
  }, numeric(1))
  expect_equal(cv$results$rmse, mean(rmse), tolerance = 1e-12)
  # the refit keeps the fit's own subset, weights and na.exclude padding
  cvk <- cross_validate(fit, folds = 4, seed = 1, grid = list(kernel = list(kernel_gaussian(2), kernel_gaussian(3))))
  ref <- update(fit, kernel = cvk$settings[[cvk$best]]$kernel)
  expect_equal(fitted(cvk$fit), fitted(ref), tolerance = 1e-12)
  expect_identical(length(residuals(cvk$fit)), length(residuals(fit)))

  # matrix fit with weights and offset
  X <- dat$X
  yy <- dat$y + d$o
  wfit <- rvm(X, yy, weights = d$w, offset = d$o, kernel = kernel_gaussian(2))
  cvw <- cross_validate(wfit, folds = 3, seed = 2)
  rmse <- vapply(1:3, function(k) {
    tr <- cvw$fold != k
    m <- update(wfit, x = X[tr, ], y = yy[tr], weights = d$w[tr], offset = d$o[tr])
    sqrt(weighted.mean((yy[!tr] - predict(m, X[!tr, ], offset = d$o[!tr]))^2, d$w[!tr]))
  }, numeric(1))
  expect_equal(cvw$results$rmse, mean(rmse), tolerance = 1e-12)
})

test_that("a fit made inside a function finds its data through the formula's environment", {
  make_fit <- function() {
    local_data <- MASS::mcycle[1:80, ]
    rvm(accel ~ times, data = local_data)
  }
  fit <- make_fit()
  expect_false(exists("local_data"))
  cv <- cross_validate(fit, folds = 4, seed = 1, grid = list(kernel = list(kernel_gaussian(0.5))))
  expect_identical(cv$n, 80L)
  expect_s3_class(cv$fit, "sb_rvm")
})

test_that("identical results under plan(sequential) and plan(multisession)", {
  skip_on_cran()
  skip_if_not_installed("future")
  d <- MASS::mcycle
  fit <- rvm(accel ~ times, data = d)
  grid <- list(kernel = list(kernel_gaussian(0.3), kernel_gaussian(1)), noise = c("shared", "student"))
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_cv <- cross_validate(fit, folds = 4, seed = 9, grid = grid)
  seq_multi <- rvm(Species ~ ., data = iris)
  future::plan(future::multisession, workers = 2)
  old_opt <- options(progressr.enable = TRUE)
  on.exit(options(old_opt), add = TRUE)
  steps <- 0L
  par_cv <- withCallingHandlers(cross_validate(fit, folds = 4, seed = 9, grid = grid),
    progression = function(cond) if (identical(cond$type, "update")) steps <<- steps + cond$amount)
  expect_identical(as.integer(steps), 16L)  # relayed from the workers
  par_multi <- rvm(Species ~ ., data = iris)
  future::plan(future::sequential)
  expect_identical(par_cv$results, seq_cv$results)
  expect_identical(par_cv$folds, seq_cv$folds)
  expect_equal(fitted(par_cv$fit), fitted(seq_cv$fit), tolerance = 0)
  # the one-against-rest classes fitted in parallel
  expect_equal(predict(par_multi, iris, type = "prob"), predict(seq_multi, iris, type = "prob"), tolerance = 0)
  expect_equal(logLik(par_multi), logLik(seq_multi), tolerance = 0)
  expect_identical(lapply(par_multi$models, `[[`, "relevant"), lapply(seq_multi$models, `[[`, "relevant"))
})

test_that("progress: one step per job through progressr, silent by default", {
  d <- sinc_data(40)
  x <- d$x
  y <- d$y
  fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
  expect_silent(cross_validate(fit, folds = 4, seed = 1))
  old <- options(progressr.enable = TRUE)  # progressr is off in non-interactive sessions by default
  on.exit(options(old), add = TRUE)
  steps <- 0L
  withCallingHandlers(
    cross_validate(fit, folds = 4, seed = 1, grid = list(bias = c(TRUE, FALSE))),
    progression = function(cond) if (identical(cond$type, "update")) steps <<- steps + cond$amount)
  expect_identical(as.integer(steps), 8L)
})

test_that("bad arguments are refused with messages that name them", {
  d <- sinc_data(40)
  x <- d$x
  y <- d$y
  fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
  expect_error(cross_validate(lm(y ~ x)), "`fit` must be a model fitted by rvm\\(\\), ard\\(\\) or sparse_gp\\(\\)")
  expect_error(cross_validate(list(call = quote(rvm(x)))), "`fit` must be a model fitted")
  expect_error(cross_validate(fit, folds = 1), "`folds` must be >= 2 and <= 40, not 1")
  expect_error(cross_validate(fit, folds = 41), "`folds` must be >= 2 and <= 40, not 41")
  expect_error(cross_validate(fit, folds = 2.5), "`folds` must be a whole number")
  expect_error(cross_validate(fit, folds = "5"), "`folds` must be a single finite number")
  expect_error(cross_validate(fit, folds = c(2, 3)), "`folds` must be a single finite number")
  expect_error(cross_validate(fit, seed = 1.5), "`seed` must be a whole number")
  expect_error(cross_validate(fit, seed = NA), "`seed` must be a single finite number")
  expect_error(cross_validate(fit, grid = c(bias = TRUE)), "`grid` must be NULL or a named list")
  expect_error(cross_validate(fit, grid = list(TRUE, FALSE)), "`grid` must have a name for every element")
  expect_error(cross_validate(fit, grid = list(bias = TRUE, bias = FALSE)), "`grid` names `bias` twice")
  expect_error(cross_validate(fit, grid = list(widht = 1)), "`grid` names `widht`, which is not an argument of rvm\\(\\)")
  expect_error(cross_validate(fit, grid = list(x = list(x))), "`grid` cannot set `x`: cross_validate\\(\\) splits the data")
  expect_error(cross_validate(fit, grid = list(weights = list(rep(1, 40)))), "`grid` cannot set `weights`")
  expect_error(cross_validate(fit, grid = list(family = c("gaussian", "poisson"))), "`grid` cannot set `family`")
  expect_error(cross_validate(fit, grid = list(noise = character(0))), "`grid` has no values for `noise`")
  expect_error(cross_validate(fit, grid = list(kernel = list())), "`grid` has no values for `kernel`")
  expect_error(cross_validate(fit, metric = "error"), "`metric` must be one of \"rmse\", \"mae\"; got \"error\"")
  expect_error(cross_validate(fit, metric = 1), "`metric` must be one of")
  expect_error(cross_validate(fit, widht = 2), "`...` names `widht`, which is not an argument of rvm\\(\\)")
  expect_error(cross_validate(fit, 5, 1, NULL, NULL, TRUE), "`...` must have a name for every element")
  expect_error(cross_validate(fit, data = d), "`...` cannot set `data`")
  # refits failing at every setting: an error naming each with its message
  expect_error(cross_validate(fit, folds = 2, seed = 1, grid = list(noise = c("bogus", "wrong"))),
               "refitting failed at every setting: setting 1 \\(noise = bogus\\) in every fold \\(2\\): `noise` must be one of .*; setting 2 \\(noise = wrong\\)")
  expect_error(cross_validate(fit, folds = 2, seed = 1, method = "bogus"),
               "refitting failed at every setting: setting 1 \\(the fit's own settings\\) in every fold")
  # the data of the call must be there and match the fit
  x_gone <- x
  fit_gone <- rvm(x_gone, y, kernel = kernel_gaussian(3), scale = FALSE)
  rm(x_gone)
  expect_error(cross_validate(fit_gone), "`fit` has `x = x_gone` in its call, which cannot be evaluated here")
  y <- y[-1]
  expect_error(cross_validate(fit), "`fit` has `y` of length 39 in its call but was fitted to 40 observations")
  no_data <- with(d, rvm(y ~ x, kernel = kernel_gaussian(3)))
  expect_error(cross_validate(no_data), "`fit` was fitted by a formula without `data`")
  outside <- d$f
  ext <- rvm(y ~ x + outside, data = d[, c("x", "y")])
  expect_error(cross_validate(ext), "`fit` has variables outside `data` \\(outside\\)")
  dd <- d
  fd <- rvm(y ~ x, data = dd)
  dd <- dd[1:30, ]
  expect_error(cross_validate(fd), "`fit` has `data` that no longer matches the fit")
  fl <- rvm(y ~ x, data = as.list(d))
  expect_error(cross_validate(fl), "`fit` has `data` that is not a data frame")
})

test_that("a setting that fails in every fold is scored NA with a warning, and the others are compared", {
  d <- sinc_data(60)
  x <- d$x
  y <- d$y
  fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
  grid <- list(control = list(list(max_iterations = 200), list(max_iterations = -1), list(tolerance = 1e-6)))
  expect_warning(cv <- cross_validate(fit, folds = 3, seed = 1, grid = grid),
                 "refitting at setting 2 \\(control = <list>\\) failed in every fold \\(3\\): .*max_iterations.*; it is scored NA and not chosen")
  expect_identical(nrow(cv$results), 3L)
  expect_true(all(is.na(unlist(cv$results[2L, c("rmse", "rmse_se", "mae", "mae_se")]))))
  expect_true(all(is.finite(unlist(cv$results[c(1L, 3L), c("rmse", "mae")]))))
  expect_true(all(is.na(cv$folds$rmse[cv$folds$setting == 2L])))
  expect_identical(cv$failed$setting, 2L)
  expect_identical(cv$failed$folds, 3L)
  expect_match(cv$failed$message, "max_iterations")
  expect_true(cv$best %in% c(1L, 3L))
  expect_identical(cv$best, which.min(cv$results$rmse))
  # the scores of the settings that worked are those of a grid without the failing one
  good <- cross_validate(fit, folds = 3, seed = 1, grid = list(control = grid$control[c(1L, 3L)]))
  expect_identical(nrow(good$failed), 0L)
  expect_equal(cv$results$rmse[c(1L, 3L)], good$results$rmse, tolerance = 0)
  expect_equal(fitted(cv$fit), fitted(good$fit), tolerance = 0)
  expect_output(print(cv), "1 setting failed and is scored NA \\(see \\$failed\\)")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(cv))
})
