# Large inputs: refused up front when the fit's memory would not fit; no
# full-size copies in the input checks; no d x d matrix when d > n.

test_that("the memory guard counts the solver's working matrices and names the size", {
  old <- options(sparsebayes.max_memory_gb = 20)
  on.exit(options(old))
  x <- matrix(runif(40000), ncol = 1)
  y <- rnorm(40000)
  # the full n x n basis (centres = n; the default would use 1000 centres)
  expect_error(rvm(x, y, method = "mackay", centres = 40000), "40000 x 40001 basis matrix would need [0-9.]+ GB and the mackay solver's working matrices about [0-9.]+ GB more: [0-9.]+ GB in all")
  expect_error(rvm(x, y, method = "em", centres = 40000), "more than the 20.0 GB available")
})

test_that("infinite values are found without a logical copy, in doubles and integers", {
  x <- matrix(rnorm(20), 10)
  x[7, 2] <- Inf
  expect_error(kernel_matrix("gaussian", x), "`x` contains infinite values")
  expect_false(sparsebayes:::.sb_all_finite(c(1, -Inf)))
  expect_true(sparsebayes:::.sb_all_finite(1:5))
  expect_false(sparsebayes:::.sb_all_finite(c(1L, NA)))
})

test_that("ard() with d much larger than n never forms a d x d matrix", {
  set.seed(1)
  x <- matrix(rnorm(3e5), 3, 1e5)
  f <- ard(x, rnorm(3), method = "fast")
  expect_lte(length(f$relevant), 3)
  expect_identical(dim(f$Sigma), rep(length(f$relevant), 2L))
  # EM prunes (a column whose removal raises the evidence leaves): from 1e5
  # columns to a handful within 1000 iterations (its precisions still move)
  y <- rnorm(3)
  expect_warning(expect_warning(e <- ard(x, y, method = "em", control = ard_control(max_iterations = 1000)),
                                "did not converge"), "interpolates")
  expect_lt(length(e$relevant), 50)
  # stopped before any pruning: a clear error instead of std::bad_alloc
  expect_error(ard(x, y, method = "em", control = ard_control(max_iterations = 5)),
               "weights are still active .* posterior covariance would need")
})
