test_that("kernels match their formulas", {
  set.seed(21)
  x <- matrix(rnorm(10), 5, 2)
  z <- matrix(rnorm(6), 3, 2)
  d2 <- outer(rowSums(x^2), rowSums(z^2), "+") - 2 * x %*% t(z)
  expect_equal(kernel_matrix(kernel_gaussian(1.5, variance = 2), x, z), 2 * exp(-d2 / 1.5^2), tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_laplace(0.7), x, z), exp(-sqrt(d2) / 0.7), tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_cauchy(2), x, z), 1 / (1 + d2 / 4), tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_polynomial(3, 0.5), x, z), (x %*% t(z) + 0.5)^3, tolerance = 1e-12)
  expect_equal(kernel_matrix("linear", x, z), x %*% t(z), tolerance = 1e-12)
  tp <- kernel_matrix(kernel_tpspline(2), x, z)
  expect_equal(tp, d2 / 4 * log(sqrt(d2) / 2), tolerance = 1e-10)
  expect_equal(diag(kernel_matrix(kernel_tpspline(2), x)), rep(0, 5))
  # Linear spline (Schmolck & Everson eq. 38), one input, and a product over inputs.
  ls1 <- function(a, b, r) {
    m <- pmin(a, b)
    1 + a * b / r^2 + a * b * m / r^3 - (a + b) / 2 * m^2 / r^3 + m^3 / (3 * r^3)
  }
  expect_equal(kernel_matrix(kernel_lspline(3), x[, 1], z[, 1]), outer(x[, 1], z[, 1], ls1, r = 3), tolerance = 1e-12)
  expect_equal(kernel_matrix(kernel_lspline(3), x, z),
               outer(x[, 1], z[, 1], ls1, r = 3) * outer(x[, 2], z[, 2], ls1, r = 3), tolerance = 1e-12)
})

test_that("many input columns use the Gram identity without losing accuracy", {
  set.seed(22)
  x <- matrix(rnorm(200), 10, 20)
  d2 <- as.matrix(dist(x))^2
  expect_equal(kernel_matrix(kernel_gaussian(5), x), unname(exp(-d2 / 25)), tolerance = 1e-10)
})

test_that("kernel names are shorthand and widths default from the data", {
  expect_identical(sparsebayes:::as_kernel("cauchy"), kernel_cauchy())
  x <- matrix(c(0, 1, 3), 3)
  # half the median pairwise distance (distances 1, 2, 3)
  expect_equal(kernel_matrix("gaussian", x), unname(exp(-as.matrix(dist(x))^2 / 1^2)))
  expect_error(kernel_matrix("rbf", x), "kernel.*must be one of")
  expect_error(kernel_matrix(42, x), "kernel.*must be a kernel object")
  expect_error(kernel_gaussian(-1), "width.*> 0")
  expect_error(kernel_gaussian(variance = 0), "variance.*> 0")
  expect_error(kernel_polynomial(1.5), "degree.*whole number")
  expect_error(kernel_matrix("linear", x, matrix(1, 2, 2)), "y.*2 columns.*1")
  expect_error(kernel_matrix("linear", c(1, NA)), "x.*NA")
})

test_that("kernel matrices are bit-identical for any number of threads, across tiles", {
  set.seed(23)
  # 5000 rows span two row tiles of 4096; 20 inputs take the Gram-identity path
  x <- matrix(rnorm(5000 * 2), 5000)
  z <- matrix(rnorm(37 * 2), 37)
  w <- matrix(rnorm(300 * 20), 300)
  old <- options(sparsebayes.threads = 1)
  on.exit(options(old))
  one <- list(kernel_matrix(kernel_gaussian(0.7), x, z), kernel_matrix(kernel_laplace(2), w),
              kernel_matrix(kernel_lspline(1), x[1:50, ], z), rvm(x[1:400, ], x[1:400, 1] + sin(x[1:400, 2]))$logLik)
  options(sparsebayes.threads = 2)
  two <- list(kernel_matrix(kernel_gaussian(0.7), x, z), kernel_matrix(kernel_laplace(2), w),
              kernel_matrix(kernel_lspline(1), x[1:50, ], z), rvm(x[1:400, ], x[1:400, 1] + sin(x[1:400, 2]))$logLik)
  expect_identical(one, two)
  # every tile is written: the last row and column against the formula
  d2 <- colSums((t(z) - x[5000, ])^2)
  expect_equal(one[[1]][5000, ], exp(-d2 / 0.49), tolerance = 1e-14)
  expect_equal(one[[1]][, 37], exp(-colSums((t(x) - z[37, ])^2) / 0.49), tolerance = 1e-14)
})

test_that("the threads option is checked", {
  old <- options(sparsebayes.threads = 0)
  on.exit(options(old))
  expect_error(kernel_matrix("gaussian", matrix(1:3)), "sparsebayes.threads.*whole number >= 1.*0")
  options(sparsebayes.threads = "two")
  expect_error(kernel_matrix("gaussian", matrix(1:3)), "sparsebayes.threads.*whole number")
  options(sparsebayes.threads = NULL)
  expect_true(sparsebayes:::kernel_threads() >= 1L)
})

test_that("the documented conversions to kernlab's and rff_features' parameters hold", {
  skip_if_not_installed("kernlab")
  x <- matrix(rnorm(40), 20, 2)
  r <- 1.7
  expect_equal(kernel_matrix(kernel_gaussian(r), x),
               unclass(kernlab::kernelMatrix(kernlab::rbfdot(sigma = 1 / r^2), x))[, ], tolerance = 1e-12,
               ignore_attr = TRUE)
  expect_equal(kernel_matrix(kernel_laplace(r), x),
               unclass(kernlab::kernelMatrix(kernlab::laplacedot(sigma = 1 / r), x))[, ], tolerance = 1e-8,
               ignore_attr = TRUE)
  # rff_features(lengthscale = r / sqrt(2)) approximates kernel_gaussian(r)
  Z <- rff_features(x, D = 20000, lengthscale = r / sqrt(2), seed = 1)
  expect_lt(max(abs(tcrossprod(Z) - kernel_matrix(kernel_gaussian(r), x))), 0.05)
  Zwrong <- rff_features(x, D = 20000, lengthscale = r, seed = 1)
  expect_gt(max(abs(tcrossprod(Zwrong) - kernel_matrix(kernel_gaussian(r), x))), 0.1)
})

test_that("named widths are matched to the input columns by name, or refused (issue 43, item 5)", {
  set.seed(1)
  X <- matrix(runif(450, -3, 3), 150)
  y <- sin(2 * X[, 1]) + 0.3 * X[, 2]^2 + rnorm(150, sd = 0.1)
  Xn <- cbind(x1 = X[, 1], x2 = X[, 2])
  named <- kernel_gaussian(c(x2 = 5, x1 = 0.2))
  by_position <- kernel_gaussian(c(0.2, 5))
  # rvm(), matrix and formula interfaces: the fit of the widths in column order
  a <- rvm(Xn, y, kernel = named, scale = FALSE)
  b <- rvm(Xn, y, kernel = by_position, scale = FALSE)
  expect_identical(a$kernel$width, c(x1 = 0.2, x2 = 5))
  expect_equal(fitted(a), fitted(b), tolerance = 1e-12)
  expect_identical(input_relevance(a)$input, c("x1", "x2"))
  expect_equal(input_relevance(a)$width, c(0.2, 5))
  d <- data.frame(Xn, y = y)
  fa <- rvm(y ~ x1 + x2, data = d, kernel = named, scale = FALSE)
  expect_identical(fa$kernel$width, c(x1 = 0.2, x2 = 5))
  expect_equal(unname(fitted(fa)), unname(fitted(b)), tolerance = 1e-12)
  # sparse_gp(), matrix and formula interfaces
  g <- sparse_gp(Xn, y, kernel = named, optimize = "none", scale = FALSE, inducing = 20, seed = 1)
  h <- sparse_gp(Xn, y, kernel = by_position, optimize = "none", scale = FALSE, inducing = 20, seed = 1)
  expect_equal(g$kernel$width, c(x1 = 0.2, x2 = 5), tolerance = 1e-12)
  expect_equal(fitted(g), fitted(h), tolerance = 1e-12)
  gf <- sparse_gp(y ~ x1 + x2, data = d, kernel = named, optimize = "none", scale = FALSE, inducing = 20, seed = 1)
  expect_equal(gf$kernel$width, c(x1 = 0.2, x2 = 5), tolerance = 1e-12)
  expect_equal(unname(fitted(gf)), unname(fitted(h)), tolerance = 1e-12)
  # unnamed columns are x1, x2, ... as input_relevance() names them
  expect_identical(rvm(X[, 1:2], y, kernel = named, scale = FALSE)$kernel$width, c(x1 = 0.2, x2 = 5))
  expect_equal(kernel_matrix(named, Xn[1:5, ], Xn[6:9, ]), kernel_matrix(by_position, Xn[1:5, ], Xn[6:9, ]))
  # unnamed widths keep working by position
  expect_identical(b$kernel$width, c(0.2, 5))
  # names that are not one per column are refused, for both models
  expect_error(rvm(Xn, y, kernel = kernel_gaussian(c(x2 = 5, x3 = 0.2))),
               "widths named `x2`, `x3`, but the kernel sees the input columns `x1`, `x2`; no column is named `x3`; no width is given for `x1`")
  expect_error(sparse_gp(Xn, y, kernel = kernel_gaussian(c(x2 = 5, z = 0.2)), inducing = 10),
               "no column is named `z`")
  expect_error(rvm(y ~ x1 + x2, data = d, kernel = kernel_gaussian(c(x2 = 5))), "no width is given for `x1`")
  expect_error(sparse_gp(y ~ x1, data = d, kernel = kernel_gaussian(c(x2 = 5, x1 = 1)), inducing = 10),
               "no column is named `x2`")
  expect_error(rvm(Xn, y, kernel = kernel_gaussian(c(x2 = 5, x2 = 1))), "names the width of `x2` twice")
  expect_error(rvm(Xn, y, kernel = kernel_gaussian(stats::setNames(c(1, 2), c("x1", "")))),
               "names and widths without")
})

test_that("the kernel names come from the core's table", {
  table <- sparsebayes:::.sb_kernels()
  # rvm_kernel()'s default stays literal for its usage line: the kernels with a slope
  expect_identical(eval(formals(rvm_kernel)$values), table$name[table$slope])
  expect_identical(sparsebayes:::kernel_names(), c(table$name, "haar", "symmlet8"))
  for (name in table$name) expect_identical(sparsebayes:::as_kernel(name)$type, name)
  expect_identical(sparsebayes:::as_kernel("symmlet8"), kernel_wavelet("symmlet8"))
  expect_null(sparsebayes:::kernel_constructor("wavelet"))
})
