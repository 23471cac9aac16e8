# The matrix of what fits from data_chunks(): every supported model x
# likelihood x noise x method, from chunks and from the same rows in memory,
# on rows with exact copies, rows with NA and a factor level that appears
# only in the last chunk. Given the same basis the two agree (Gaussian fits
# to 1e-8, per-sample noise and Laplace fits to 1e-6), because each is the
# core's one algorithm reading another source of rows (data.hpp).

matrix_chunk_data <- function(n = 900, seed = 11) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n, -2, 2), x2 = runif(n, -2, 2))
  d$f <- factor(sample(c("a", "b"), n, replace = TRUE), levels = c("a", "b", "c"))
  d$f[(n - 60):n] <- "c"  # a level that appears late
  d$y <- sin(2 * d$x1) + 0.5 * d$x2 + c(a = 0, b = 0.5, c = -0.5)[as.character(d$f)] + rnorm(n, sd = 0.2)
  d$y[c(7, 300, 650)] <- d$y[c(7, 300, 650)] + 5  # gross outliers, for Student-t noise
  d$cls <- factor(ifelse(runif(n) < plogis(2 * sin(2 * d$x1) + d$x2), "yes", "no"))
  d$cnt <- rpois(n, exp(0.5 + sin(d$x1) + 0.3 * d$x2))
  d$x2[c(50, 400)] <- NA  # rows with NA
  d <- rbind(d, d[c(3, 3, 500, 880), ])  # exact copies, within and across chunks
  d[sample(nrow(d)), ]
}

test_that("every model fits the same from chunks as from the rows in memory", {
  d <- matrix_chunk_data()
  chunks <- data_chunks(d, chunk_size = 250)
  same <- function(b, a, tol, what) {
    expect_identical(b$relevant, a$relevant, label = paste(what, "relevant"))
    expect_equal(coef(b), coef(a), tolerance = tol, label = paste(what, "coefficients"))
    expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = tol, label = paste(what, "logLik"))
  }
  # linear ARD, shared noise: every method that reads only the sums
  for (method in c("fast", "em", "mackay", "irls2")) {
    a <- ard(y ~ x1 + x2 + f, data = d, method = method)
    b <- ard(y ~ x1 + x2 + f, data = chunks, method = method)
    same(b, a, 1e-8, paste("ard", method))
  }
  a <- ard(y ~ x1 + x2 + f, data = d, method = "gradient", gradient_form = "dual")
  b <- ard(y ~ x1 + x2 + f, data = chunks, method = "gradient", gradient_form = "dual")
  same(b, a, 1e-8, "ard gradient")
  # linear ARD, per-sample and Student-t noise: the methods whose noise steps read passes (the plain start)
  for (noise in c("sample", "student")) for (method in c("em", "mackay", "irls2")) {
    a <- ard(y ~ x1 + x2 + f, data = d, method = method, noise = noise, control = ard_control(start = "plain"))
    b <- ard(y ~ x1 + x2 + f, data = chunks, method = method, noise = noise)
    same(b, a, 1e-6, paste("ard", method, noise))
  }
  # kernel fits, given the basis: Gaussian, two classes, counts
  centres <- as.matrix(na.omit(d[seq(1, nrow(d), length.out = 40), c("x1", "x2")]))
  k <- kernel_gaussian(1)
  a <- rvm(y ~ x1 + x2, data = d, kernel = k, centres = centres)
  b <- rvm(y ~ x1 + x2, data = chunks, kernel = k, centres = centres)
  same(b, a, 1e-8, "rvm gaussian")
  ctl <- rvm_control(temperature = 1)  # a fit from chunks holds no rows to temper on
  a <- rvm(cls ~ x1 + x2, data = d, kernel = k, centres = centres, control = ctl)
  b <- rvm(cls ~ x1 + x2, data = chunks, kernel = k, centres = centres, control = ctl)
  same(b, a, 1e-6, "rvm binomial")
  expect_equal(predict(b, d[1:50, ], type = "prob"), predict(a, d[1:50, ], type = "prob"), tolerance = 1e-6)
  a <- rvm(cnt ~ x1 + x2, data = d, family = poisson(), kernel = k, centres = centres)
  b <- rvm(cnt ~ x1 + x2, data = chunks, family = poisson(), kernel = k, centres = centres)
  same(b, a, 1e-6, "rvm poisson")
  expect_equal(nobs(b), nobs(a))
})
