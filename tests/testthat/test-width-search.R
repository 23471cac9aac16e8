# Kernel widths chosen by the evidence: kernel_*(width = "evidence") in rvm().

test_that("the chosen width maximises the evidence and is reproduced by a fixed-width fit", {
  d <- sinc_data(n = 100, seed = 1)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian("evidence"))
  ws <- fit$width_search
  w <- fit$kernel$width
  expect_s3_class(ws, "data.frame")
  expect_named(ws, c("width", "logLik", "relevant", "converged", "noise_at_floor"))
  expect_false(is.unsorted(ws$width, strictly = TRUE))
  expect_gte(nrow(ws), 10L)
  expect_equal(attr(ws, "heuristic"), sparsebayes:::default_width(scale(d$x)), tolerance = 1e-12)
  expect_identical(attr(ws, "criterion"), "log evidence")
  expect_identical(attr(ws, "objective"), "log evidence")  # the former name, kept for one release
  expect_identical(fit$kernel$width_rule, "evidence")
  # the best point of the curve, and no worse than its neighbours at +-10%
  expect_true(w %in% ws$width)
  expect_equal(fit$logLik, max(ws$logLik))
  expect_true(all(fit$logLik >= ws$logLik))
  for (m in c(0.9, 1.1))
    expect_gt(fit$logLik, rvm(d$x, d$y, kernel = kernel_gaussian(w * m))$logLik)
  # it beats the median heuristic clearly on this example
  expect_gt(fit$logLik, rvm(d$x, d$y)$logLik + 1)
  # a fit at the chosen width is the same fit
  fixed <- rvm(d$x, d$y, kernel = kernel_gaussian(w))
  expect_equal(fixed$logLik, fit$logLik, tolerance = 1e-10)
  expect_identical(fixed$relevant, fit$relevant)
  expect_equal(predict(fixed, c(-5, 0, 5)), predict(fit, c(-5, 0, 5)), tolerance = 1e-12)
  expect_null(fixed$width_search)
  expect_null(fixed$kernel$width_rule)
  # the rule is the fit's own: a searched fit's kernel reused with its number is a fixed width
  expect_null(rvm(d$x, d$y, kernel = fit$kernel)$kernel$width_rule)
})

test_that("print and summary say the width was chosen by the evidence", {
  d <- sinc_data(n = 60, seed = 3)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian("evidence"))
  expect_output(print(fit), sprintf("width = %s, chosen by the evidence", format(fit$kernel$width, digits = 4)),
                fixed = TRUE)
  s <- summary(fit)
  expect_match(s$kernel, "chosen by the evidence")
  expect_output(print(s), sprintf("Width search: +%d widths from", nrow(fit$width_search)))
  expect_null(summary(rvm(d$x, d$y))$width_search)
  expect_output(print(kernel_gaussian("evidence")), "width = \"evidence\"", fixed = TRUE)
})

test_that("update() searches again, and a smoothness prior searches on the log posterior", {
  skip_if_not_installed("MASS")
  fit <- rvm(accel ~ times, data = MASS::mcycle, kernel = kernel_gaussian(width = "evidence"))
  expect_identical(eval(fit$call$kernel)$width, "evidence")
  again <- update(fit)
  expect_equal(again$kernel$width, fit$kernel$width, tolerance = 1e-12)
  bic <- update(fit, prior = "BIC")
  expect_identical(attr(bic$width_search, "criterion"), "log posterior")
  expect_equal(bic$log_posterior, max(bic$width_search$logLik))
  fixed <- rvm(accel ~ times, data = MASS::mcycle, kernel = kernel_gaussian(bic$kernel$width), prior = "BIC")
  expect_equal(fixed$log_posterior, bic$log_posterior, tolerance = 1e-10)
  expect_gt(bic$log_posterior, rvm(accel ~ times, data = MASS::mcycle, prior = "BIC")$log_posterior)
})

test_that("the chosen width does not depend on the location and scale of the response", {
  d <- sinc_data(n = 80, seed = 4)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian("evidence"))
  moved <- rvm(d$x, 1e4 + 250 * d$y, kernel = kernel_gaussian("evidence"))
  expect_equal(moved$kernel$width, fit$kernel$width, tolerance = 1e-6)
  expect_equal(moved$logLik, fit$logLik - 80 * log(250), tolerance = 1e-6)
  expect_equal(predict(moved, c(-3, 2)), 1e4 + 250 * predict(fit, c(-3, 2)), tolerance = 1e-8)
  expect_equal(rvm(d$x, -d$y / 1e3, kernel = kernel_gaussian("evidence"))$kernel$width, fit$kernel$width,
               tolerance = 1e-6)
})

test_that("classifiers and Poisson fits choose their width by the Laplace evidence", {
  skip_if_not_installed("MASS")
  tr <- transform(MASS::synth.tr, yc = factor(yc))
  te <- transform(MASS::synth.te, yc = factor(yc))
  cls <- rvm(yc ~ xs + ys, data = tr, kernel = kernel_gaussian("evidence"), scale = FALSE)
  expect_identical(cls$levels, c("0", "1"))
  expect_equal(cls$logLik, max(cls$width_search$logLik))
  fixed <- rvm(yc ~ xs + ys, data = tr, kernel = kernel_gaussian(cls$kernel$width), scale = FALSE)
  expect_equal(fixed$logLik, cls$logLik, tolerance = 1e-10)
  expect_lt(mean(predict(cls, te) != te$yc), 0.15)

  # multiclass: one width shared by the classes, maximising the sum of their evidences
  ir <- rvm(Species ~ ., data = iris, kernel = kernel_laplace("evidence"))
  widths <- vapply(ir$models, function(m) m$kernel$width, numeric(1))
  expect_true(all(widths == ir$kernel$width))
  expect_true(all(vapply(ir$models, function(m) identical(m$kernel$width_rule, "evidence"), logical(1))))
  expect_equal(as.numeric(logLik(ir)), max(ir$width_search$logLik), tolerance = 1e-12)
  expect_output(print(ir), "chosen by the evidence")
  expect_gt(mean(predict(ir) == iris$Species), 0.95)
  expect_identical(ir$models[[1L]]$call, ir$call)
  grDevices::pdf(NULL)
  expect_silent(plot(ir, which = "width"))
  grDevices::dev.off()
  expect_error(plot(rvm(Species ~ ., data = iris), which = "width"), "no width search")

  set.seed(2)
  x <- runif(150, 0, 5)
  counts <- rpois(150, exp(1 + sin(2 * x)))
  po <- rvm(x, counts, family = "poisson", kernel = kernel_cauchy("evidence"))
  expect_equal(po$logLik, max(po$width_search$logLik))
  expect_equal(rvm(x, counts, family = "poisson", kernel = kernel_cauchy(po$kernel$width))$logLik, po$logLik,
               tolerance = 1e-10)
})

test_that("every kernel with a width can be searched", {
  d <- sinc_data(n = 60, seed = 5)
  for (k in list(kernel_laplace("evidence"), kernel_cauchy("evidence"), kernel_lspline("evidence"),
                 kernel_tpspline("evidence"))) {
    fit <- rvm(d$x, d$y, kernel = k)
    expect_equal(fit$logLik, max(fit$width_search$logLik))
    expect_true(is.numeric(fit$kernel$width) && fit$kernel$width > 0)
  }
})

test_that("non-convergence during the search is quiet; the final fit's is warned once", {
  d <- sinc_data(n = 80, seed = 6)
  msgs <- character(0)
  fit <- withCallingHandlers(rvm(d$x, d$y, kernel = kernel_gaussian("evidence"),
                                 control = rvm_control(max_iterations = 5)),
                             warning = function(w) {
                               msgs <<- c(msgs, conditionMessage(w))
                               invokeRestart("muffleWarning")
                             })
  expect_length(msgs, 1L)
  expect_match(msgs, "at the width chosen by the evidence .*did not converge")
  expect_false(fit$converged)
  expect_false(all(fit$width_search$converged))
  expect_silent(rvm(d$x, d$y, kernel = kernel_gaussian("evidence")))
})

test_that("bad widths and unsupported uses of \"evidence\" are refused clearly", {
  expect_error(kernel_gaussian("foo"), "`width` must be positive numbers .* or \"evidence\"; got \"foo\"")
  expect_error(kernel_laplace(-1), "`width` must be > 0")
  expect_error(kernel_cauchy(0), "`width` must be > 0")
  expect_error(kernel_gaussian(c(1, -2)), "`width` must be positive and finite in every input column")
  expect_error(kernel_gaussian(NA), "`width` must be positive numbers")
  expect_error(kernel_gaussian(c("evidence", "evidence")), "`width` must be positive numbers")
  d <- sinc_data(n = 40, seed = 7)
  expect_error(rvm(d$x, d$y, kernel = list(kernel_gaussian("evidence"), kernel_laplace(1))),
               "`kernel` is a dictionary .*width = \"evidence\"")
  expect_error(kernel_matrix(kernel_gaussian("evidence"), matrix(1:3)), "`kernel` has width = \"evidence\"")
  expect_error(sparse_gp(d$x, d$y, kernel = kernel_gaussian("evidence"), optimize = "none"),
               "`kernel` has width = \"evidence\", but optimize = \"none\"")
  # bad input is reported as such, not as a failed search
  expect_error(rvm(d$x, d$y[-1], kernel = kernel_gaussian("evidence")), "`y` has length 39")
})

test_that("sparse_gp() takes \"evidence\" as its own width optimisation from the median heuristic", {
  d <- sinc_data(n = 60, seed = 8)
  a <- sparse_gp(d$x, d$y, kernel = kernel_gaussian("evidence"), optimize = "hyper", inducing = 15, seed = 1)
  b <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(), optimize = "hyper", inducing = 15, seed = 1)
  expect_identical(a$kernel$width, b$kernel$width)
  expect_equal(logLik(a), logLik(b))
})

test_that("plot(which = \"width\") draws the evidence curve, and refuses a fit without a search", {
  skip_if_not_installed("MASS")
  fit <- rvm(accel ~ times, data = MASS::mcycle, kernel = kernel_gaussian("evidence"))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(plot(fit, which = "width"), fit)
  expect_error(plot(rvm(accel ~ times, data = MASS::mcycle), which = "width"),
               "which = \"width\" needs a fit whose kernel width was chosen by the evidence")
})

test_that("widths whose noise falls to the floor are recorded but never chosen, and interpolation is warned", {
  # several noisy inputs: narrow kernels let every point carry its own weight
  set.seed(1)
  X <- matrix(rnorm(80 * 6), 80)
  y <- X[, 1] + rnorm(80)
  expect_warning(fit <- rvm(X, y, kernel = kernel_gaussian("evidence")),
                 "keeps [0-9]+ of 80 training points as relevance vectors")
  ws <- fit$width_search
  expect_true(any(ws$noise_at_floor))
  expect_false(ws$noise_at_floor[ws$width == fit$kernel$width])
  expect_equal(fit$logLik, max(ws$logLik[!ws$noise_at_floor]))
  floor <- var(y) / fit$control$beta_max_factor
  expect_gt(fit$lambda, 2 * floor)
  at_floor <- suppressWarnings(rvm(X, y, kernel = kernel_gaussian(ws$width[which(ws$noise_at_floor)[1L]])))
  expect_lte(at_floor$lambda, 2 * floor)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit, which = "width"))
})

test_that("the evidence search walks the whole grid and warns when its best width is at an end", {
  # The walk used to stop after two widths without a new best, so a better
  # width beyond a dip was never tried; now every grid width h * 2^k,
  # k = -4.5, ..., 4, is fitted unless fits interpolate or fail.
  set.seed(1)
  x <- runif(200)
  y <- sin(8 * x) + rnorm(200, sd = 0.1)
  fit <- rvm(x, y, kernel = kernel_gaussian(width = "evidence"))
  ws <- fit$width_search
  k <- log2(ws$width / attr(ws, "heuristic"))
  expect_true(all(seq(-4.5, 4, by = 0.5) %in% round(k, 10)))
  expect_equal(fit$logLik, max(ws$logLik[!ws$noise_at_floor]))
  # a straight line: the evidence keeps rising with the width
  set.seed(1)
  x <- runif(100)
  expect_warning(rvm(x, 2 * x + rnorm(100, sd = 0.1), kernel = kernel_gaussian(width = "evidence")),
                 "at the wide end of the grid")
})
