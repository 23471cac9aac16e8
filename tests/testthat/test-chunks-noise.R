# Per-sample and Student-t noise from data_chunks(): the batch solver in
# this process on the response held here, two passes over the chunks per
# noise step (the rows' residuals and x_i' Sigma x_i, then their statistics
# weighted by the new noise). From the plain start, the fit of the rows in
# memory with start = "plain".

noise_chunk_data <- function(n = 1500, seed = 2) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), f = factor(sample(c("a", "b", "c"), n, TRUE)))
  d$w <- sample(c(0, 0.5, 1, 2), n, TRUE)
  d$o <- runif(n)
  d$y <- 1 + 2 * d$x1 - d$x2 + (d$f == "b") + d$o + stats::rt(n, df = 3)
  d$y[5:30] <- d$y[5:30] - 12
  d$x2[7] <- NA
  d
}

test_that("ard() with Student-t or per-sample noise from chunks is the fit from the rows, to 1e-6", {
  d <- noise_chunk_data()
  new <- noise_chunk_data(40, seed = 3)
  for (noise in c("student", "sample")) {
    a <- ard(y ~ x1 + x2 + f + offset(o), data = d, weights = w, noise = noise, na.action = na.exclude,
             control = ard_control(start = "plain"))
    b <- ard(y ~ x1 + x2 + f + offset(o), data = data_chunks(d, chunk_size = 400), weights = w, noise = noise,
             na.action = na.exclude)
    expect_identical(b$relevant, a$relevant)
    expect_equal(coef(b), coef(a), tolerance = 1e-6)
    expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-6)
    expect_equal(b$iterations, a$iterations)
    expect_equal(predict(b, new, interval = "prediction"), predict(a, new, interval = "prediction"), tolerance = 1e-6)
    expect_equal(confint(b), confint(a), tolerance = 1e-6)
    if (noise == "student") {
      expect_equal(b$student, a$student, tolerance = 1e-6)
      expect_equal(b$chunks$outliers, sum(a$outlier_probability > 0.5, na.rm = TRUE))
    }
    # passes: sums, response, then two per noise step
    steps <- sum(seq_len(a$iterations) - 1L >= 50L & (seq_len(a$iterations) - 1L - 50L) %% 5L == 0L)
    expect_gte(b$chunks$passes, 2L + 2L * steps)
    # no per-row vector kept; what print() and summary() say of the noise comes from the fit's
    expect_lt(max(lengths(unclass(b))), 1000)
    expect_null(b$lambda)
    expect_equal(summary(b)$lambda_summary, summary(a)$lambda_summary, tolerance = 1e-6)
    expect_equal(summary(b)$down_weighted, summary(a)$down_weighted)
    expect_output(print(summary(b)), "Start: +the plain one only")
    expect_output(print(b), sprintf("%d samples down-weighted", summary(a)$down_weighted))
    expect_error(outliers(b), "does not keep")
    expect_error(residuals(b), "does not keep")
  }
})

test_that("per-sample noise from chunks passes over a chunk with no complete row", {
  d <- noise_chunk_data(600, seed = 5)
  d$x1[201:300] <- NA  # the third chunk of 100 rows gives nothing
  a <- ard(y ~ x1 + x2, data = d, noise = "student", control = ard_control(start = "plain"))
  b <- ard(y ~ x1 + x2, data = data_chunks(d, chunk_size = 100), noise = "student")
  expect_equal(coef(b), coef(a), tolerance = 1e-6)
  expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-6)
})

test_that("per-sample noise from chunks is the same under a sequential and a multisession plan", {
  skip_on_cran()
  d <- noise_chunk_data(800, seed = 4)
  ctl <- ard_control(warm_start = 5L, max_iterations = 30L)
  fit <- function() suppressWarnings(ard(y ~ x1 + x2, data = data_chunks(d, chunk_size = 300), noise = "student",
                                         control = ctl))
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  a <- fit()
  future::plan(future::multisession, workers = 2)
  b <- fit()
  expect_identical(coef(b), coef(a))
  expect_identical(b$student, a$student)
  expect_identical(b$logLik, a$logLik)
})

test_that("per-sample noise from chunks says what it cannot do", {
  d <- noise_chunk_data(300)
  src <- data_chunks(d, chunk_size = 100)
  expect_error(ard(y ~ x1, data = src, noise = "student", control = ard_control(start = "robust")),
               "robust.*rows in memory")
  expect_error(ard(y ~ x1, data = src, noise = "student", method = "fast"), "reads every row at every step")
  expect_error(ard(y ~ x1, data = src, noise = "sample", method = "irls1"), "reads every row at every step")
  expect_error(ard(y ~ x1, data = src, noise = "sample", control = ard_control(studentized = TRUE)),
               "studentized")
  # a source whose chunks change between passes
  k <- 0L
  shifting <- function(reset) {
    if (reset) {
      k <<- 0L
      return(invisible(NULL))
    }
    k <<- k + 1L
    if (k > 3L) return(NULL)
    rows <- (k - 1L) * 100L + seq_len(100L)
    d[rows[seq_len(100L - (k == 3L) * sample(0:1, 1L))], ]
  }
  set.seed(1)
  expect_error(suppressWarnings(ard(y ~ x1, data = data_chunks(shifting), noise = "student")),
               "must not change between passes|wrong number of rows")
})

test_that("the plots of a fit from chunks show what it keeps: weights, not samples", {
  d <- noise_chunk_data(400)
  b <- ard(y ~ x1 + x2, data = data_chunks(d, chunk_size = 200), noise = "student")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(b, which = "relevance"))
  expect_silent(plot(b, which = "trajectory"))
  expect_equal(ncol(b$path$lambda), 0L)  # no T x n trajectory of the per-row noise
  expect_silent(plot(b, which = "evidence"))  # every candidate selected: no bar for a further one
  expect_error(plot(b, which = "leverage"), "does not keep")
  expect_silent(plot(ard(y ~ x1 + x2, data = data_chunks(d, chunk_size = 200)), which = "relevance"))
})
