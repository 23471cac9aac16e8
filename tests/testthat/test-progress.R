# Long fits report progress through progressr from start to end (the core's
# heartbeat, the solvers' iterations, the width learner's evaluations, the
# chunk passes), and verbose traces are labelled and on the data's scale.

# The largest gap in seconds between the start, the progress conditions
# `expr` signals and its end, with the messages.
progress_gaps <- function(expr) {
  withr::local_options(progressr.enable = TRUE)
  times <- numeric(0)
  messages <- character(0)
  start <- proc.time()[[3L]]
  withCallingHandlers(expr, progression = function(c) {
    times <<- c(times, proc.time()[[3L]] - start)
    messages <<- c(messages, paste(c$message, collapse = " "))
  })
  list(gap = max(diff(c(0, times, proc.time()[[3L]] - start))), messages = messages)
}

test_that("a long in-memory fit is never silent for more than 2 s (the issue's 1e5 rows)", {
  skip_on_cran()
  set.seed(1)
  n <- 1e5
  X <- matrix(runif(2 * n, -3, 3), n)
  y <- sin(2 * X[, 1]) * cos(X[, 2]) + rnorm(n, sd = 0.1)
  p <- progress_gaps(rvm(X, y, centres = 1000))
  expect_lt(p$gap, 2)
  expect_true(any(grepl("^rvm\\(\\): working", p$messages)))
  expect_true(any(grepl("^candidate [0-9] of [0-9] .*: iteration [0-9]+, [0-9]+ relevant", p$messages)))
})

test_that("a fit from chunks is never silent for more than 2 s", {
  skip_on_cran()
  set.seed(2)
  n <- 5e4
  d <- data.frame(x1 = runif(n, -3, 3), x2 = runif(n, -3, 3))
  d$y <- sin(2 * d$x1) * cos(d$x2) + rnorm(n, sd = 0.1)
  p <- suppressMessages(progress_gaps(rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 1e4))))
  expect_lt(p$gap, 2)
})

test_that("verbose traces say which fit they belong to, on the data's scale", {
  out <- capture.output(fit <- rvm(accel ~ times, data = MASS::mcycle, control = rvm_control(verbose = 20)))
  expect_match(out[1L], "^candidate 1 of 3 \\(noise estimated\\): iteration +1 +log evidence")
  expect_true(any(grepl("^candidate 3 of 3 \\(noise fixed at the GP's\\)", out)))
  chosen <- which(fit$noise_starts$chosen)
  last <- utils::tail(grep(sprintf("^candidate %d of 3", chosen), out, value = TRUE), 1L)
  sd <- as.numeric(sub(".*noise sd ([0-9.]+).*", "\\1", last))
  evidence <- as.numeric(sub(".*log evidence (-?[0-9.]+) .*", "\\1", last))
  expect_equal(sd, sqrt(fit$lambda), tolerance = 0.05)  # mcycle's noise sd 22, not the standard units' 0.5
  expect_equal(evidence, as.numeric(logLik(fit)), tolerance = 1e-3)
  out <- capture.output(ard(mpg ~ ., data = mtcars, control = ard_control(verbose = 5)))
  expect_match(out[1L], "^fast solver: iteration +1 +log evidence -[0-9.]+ +relevant [0-9]+ +noise sd [0-9.]+$")
  out <- capture.output(rvm(Species ~ ., data = iris, control = rvm_control(verbose = 50)))
  expect_match(out[1L], "^multinomial fast solver: iteration +1 +log evidence")
})
