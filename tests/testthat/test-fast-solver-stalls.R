# The fast solver never runs to its iteration cap (issue 59, item 2): on 21
# rows at narrow widths an interpolating model crawled (noise and one
# precision towards zero, 4e-4 nats in 10000 iterations) until the cap; the
# stall rule ends such a crawl. Property over surfaces, widths and seeds,
# including three that hit the cap before.
test_that("small noisy fits at narrow and wide widths never hit the iteration cap", {
  surfaces <- list(sine = function(x) sin(2 * x[, 1]), product = function(x) sin(x[, 1]) * cos(x[, 2] / 2),
                   product2 = function(x) sin(2 * x[, 1]) * cos(x[, 2]))
  cases <- rbind(expand.grid(surface = names(surfaces), width = c(0.05, 0.1, 0.3, 1, 3), seed = 1:4,
                             stringsAsFactors = FALSE),
                 data.frame(surface = c("product", "product", "product2"), width = c(0.05, 0.1, 0.05), seed = c(28, 24, 2)))
  for (i in seq_len(nrow(cases))) {
    cs <- cases[i, ]
    set.seed(cs$seed)
    d <- if (cs$surface == "sine") 1L else 2L
    x <- matrix(runif(21 * d, -3, 3), 21)
    y <- surfaces[[cs$surface]](x) + rnorm(21, sd = 0.1)
    fit <- rvm(x, y, kernel = kernel_gaussian(cs$width))
    label <- sprintf("%s, width %g, seed %d", cs$surface, cs$width, cs$seed)
    expect_true(fit$converged, label = label)
    expect_lt(fit$iterations, fit$control$max_iterations, label = label)
  }
})

test_that("1000 centres at n = 1e5 do not cycle between adding and deleting a column", {
  # Before: add A, re-estimate B, delete A, re-estimate B, ... from iteration
  # 1000 to the cap of 10000 (100 s), each re-estimate a phantom nat of S
  # and Q updated incrementally; the summed log posterior ended 6500 nats
  # above the exact one. A reversal now recomputes them first (818
  # iterations). (On another machine's rounding the same fit converged
  # before too.)
  skip_on_cran()
  set.seed(1)
  n <- 1e5
  X <- matrix(runif(2 * n, -5, 5), n)
  y <- sin(X[, 1]) * cos(X[, 2] / 2) + rnorm(n, 0, 0.1)
  fit <- rvm(X, y, centres = 1000)
  expect_true(fit$converged)
  expect_lt(fit$iterations, 2000)
  # the summed log posterior the solver climbed is the exact one at the end
  expect_equal(tail(fit$trace$log_posterior, 1), fit$log_posterior, tolerance = 1e-6)
})
