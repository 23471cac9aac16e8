# Every argument check of rvm(), rvm_control() and predict().

test_that("rvm() rejects bad data with a message naming the argument", {
  d <- sinc_data(30, 0.1, 31)
  expect_error(rvm(d$x, d$y[-1]), "`y` has length 29 but the inputs have 30 rows")
  expect_error(rvm(d$x, replace(d$y, 2, NA)), "`y` contains NA")
  expect_error(rvm(d$x, replace(d$y, 2, Inf)), "`y` contains infinite")
  expect_error(rvm(replace(d$x, 2, NaN), d$y), "`x` contains NA")
  expect_error(rvm(replace(d$x, 2, -Inf), d$y), "`x` contains infinite")
  expect_error(rvm(d$x, rep(1, 30)), "`y` is constant")
  expect_error(rvm(d$x[1:2], d$y[1:2]), "`y` needs at least 3")
  expect_error(rvm(d$x, as.character(d$y)), "`y` is character; convert it to a factor")
  expect_error(rvm(d$x, factor(d$y > 0), family = gaussian()), "`y` must be numeric for the gaussian family")
  expect_error(rvm(matrix(character(0), 0, 1), numeric(0)), "`x` must be a numeric matrix|`x` has no rows")
  expect_error(rvm(list(1, 2), d$y), "`x` must be a numeric matrix")
  expect_error(rvm(data.frame(a = letters[1:30]), d$y), "`x` must be numeric; use the formula")
  expect_error(rvm(NULL, d$y), "`x` is NULL")
  expect_error(rvm(y = d$y, basis = matrix(NA_real_, 30, 2)), "`basis` contains NA")
  expect_error(rvm(d$x, d$y, kernel = "nope"), "`kernel` must be one of")
  expect_error(rvm(d$x, d$y, bias = NA), "`bias` must be TRUE or FALSE")
  expect_error(rvm(d$x, d$y, scale = "yes"), "`scale` must be TRUE or FALSE")
  expect_error(rvm(d$x, d$y, method = "slow"), "`method` must be one of")
  expect_error(rvm(d$x, d$y, control = list(max_iterations = -1)), "`max_iterations` must be >= 1")
  expect_error(rvm(d$x, d$y, control = 3), "`control` must be made by rvm_control")
  expect_error(rvm(d$x, d$y, colour = "red"), "unknown argument.*colour")
  expect_error(rvm(y ~ 1, data = d), "`formula` has no predictors")
  expect_error(rvm(~ x, data = d), "`formula` has no response")
})

test_that("a width rule for a kernel without a width says so (issue 43, item 8)", {
  set.seed(1)
  y <- rnorm(20)
  expect_error(rvm(1:20, y, kernel = kernel_linear("evidence")),
               "`variance` is \"evidence\", a rule that chooses a kernel width, but the linear kernel has no width to choose")
  expect_error(kernel_linear("learn"), "the linear kernel has no width to choose")
  expect_error(kernel_polynomial("median"), "`degree` is \"median\", .* the polynomial kernel has no width to choose")
  # the linear kernel fits as it is; other bad values keep their message
  expect_s3_class(rvm(1:20, y, kernel = kernel_linear()), "sb_rvm")
  expect_error(kernel_linear("big"), "`variance` must be a single finite number")
})

test_that("rvm_control() checks every setting", {
  expect_error(rvm_control(max_iterations = 1.5), "max_iterations.*whole number")
  expect_error(rvm_control(time_limit = 0), "time_limit.*> 0")
  expect_error(rvm_control(min_delta_log_alpha = -1), "min_delta_log_alpha")
  expect_error(rvm_control(min_delta_log_beta = NA), "min_delta_log_beta.*single finite number")
  expect_error(rvm_control(min_noise_move = -1e-3), "min_noise_move")
  expect_error(rvm_control(min_noise_move = c(0, 1)), "min_noise_move.*single finite number")
  expect_error(rvm_control(noise_update_start = -1), "noise_update_start")
  expect_error(rvm_control(noise_update_frequency = 0), "noise_update_frequency")
  expect_error(rvm_control(alignment_test = 1), "alignment_test.*TRUE or FALSE")
  expect_error(rvm_control(alignment_max = 2), "alignment_max")
  expect_error(rvm_control(priority_deletion = NA), "priority_deletion")
  expect_error(rvm_control(priority_addition = "no"), "priority_addition")
  expect_error(rvm_control(zero_factor = -1), "zero_factor")
  expect_error(rvm_control(beta_max_factor = 0), "beta_max_factor")
  expect_error(rvm_control(tolerance = 0), "tolerance")
  expect_error(rvm_control(alpha_max = Inf), "alpha_max.*finite")
  expect_error(rvm_control(verbose = -2), "verbose")
  expect_s3_class(rvm_control(), "sb_control")
})

test_that("predict() checks its arguments and newdata", {
  d <- sinc_data(40, 0.1, 32)
  fit <- rvm(d$x, d$y)
  expect_error(predict(fit, "a"), "`newdata` must be a numeric matrix")
  expect_error(predict(fit, matrix(1, 2, 2)), "`newdata` has 2 columns but the model was fitted with 1 input")
  expect_error(predict(fit, 1, level = 1.5), "`level`")
  expect_error(predict(fit, 1, level = 1), "`level` must be below 1")
  expect_error(predict(fit, 1, se.fit = NA), "`se.fit`")
  expect_error(predict(fit, 1, interval = "both"), "`interval` must be one of")
  expect_error(predict(fit, 1, type = "class"), "`type` must be one of \"response\"")
  f2 <- rvm(y ~ x, data = d)
  expect_error(predict(f2, 1:3), "`newdata` must be a data frame")
  expect_error(summary(fit, n_weights = -1), "n_weights")
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(fit, level = 2), "level")
})

test_that("errors from the C++ core arrive as R errors", {
  expect_error(sparsebayes:::.sb_fit(matrix(1, 3, 2), c(1, 2), "gaussian", sparsebayes:::solver_problem("fast"), sparsebayes:::core_settings(rvm_control())),
               "different number of rows")
  expect_error(sparsebayes:::.sb_fit(matrix(1, 3, 2), c(1, 2, 3), "gaussian", sparsebayes:::solver_problem("nope"), sparsebayes:::core_settings(rvm_control())),
               "unknown method")
  expect_error(sparsebayes:::.sb_kernel_design(list(type = "bad", width = 1, variance = 1, degree = 2, offset = 1),
                                               matrix(1), matrix(1), FALSE, 1L), "unknown kernel type")
})

test_that("a basis too large for memory stops before it is allocated", {
  old <- options(sparsebayes.max_memory_gb = 1e-6)
  on.exit(options(old))
  d <- sinc_data(200)
  expect_error(rvm(d$x, d$y), "200 x 201 basis matrix would need .* GB.*sparse_gp")
  expect_error(rvm(d$x, d$y, kernel = list("gaussian", "laplace")), "200 x 401 basis matrix")
  expect_error(kernel_matrix("gaussian", matrix(1:300)), "300 x 300 basis matrix")
  options(old)
  expect_s3_class(rvm(d$x, d$y), "sb_rvm")
})

test_that("rvm() and ard() take their method names from the core's table of methods", {
  table <- sparsebayes:::.sb_methods()$name
  listed <- paste0("\"", table, "\"", collapse = ", ")
  d <- sinc_data(30, 0.1, 31)
  X <- cbind(d$x, d$x^2)
  for (f in list(function(...) rvm(d$x, d$y, ...), function(...) ard(X, d$y, ...))) {
    # every bad value names every method of the table
    expect_error(f(method = "slow"), sprintf("`method` must be one of %s; got \"slow\".", listed), fixed = TRUE)
    expect_error(f(method = "irls"), "got \"irls\"", fixed = TRUE)  # irls1 or irls2: ambiguous
    expect_error(f(method = ""), "`method` must be one of")
    expect_error(f(method = NA_character_), sprintf("`method` must be one of %s.", listed), fixed = TRUE)
    expect_error(f(method = c("em", "mackay")), "`method` must be one of")
    expect_error(f(method = 1), "`method` must be one of")
    expect_error(f(method = NULL), "`method` must be one of")
    expect_identical(f(method = "mac")$method, "mackay")  # partial matching, as before
  }
  expect_identical(rvm(d$x, d$y)$method, "fast")  # the defaults
  expect_identical(ard(X, d$y, prior = "none")$method, "em")
})
