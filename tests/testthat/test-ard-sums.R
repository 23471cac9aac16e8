# With rows at least twice the columns, the fast solver's fits of the auto
# prior read the sums Phi'Phi, Phi't, t't once formed (gram_statistics())
# instead of the rows: the same path and fit to rounding.
test_that("fits from the sums of rows in memory are the fits from the rows", {
  ns <- asNamespace("sparsebayes")
  for (seed in 1:4) {
    set.seed(seed)
    n <- c(60, 200, 500, 1000)[seed]
    d <- c(8, 30, 40, 100)[seed]
    X <- matrix(rnorm(n * d), n)
    b <- numeric(d)
    b[sample(d, 5)] <- rnorm(5)
    y <- drop(X %*% b) + rnorm(n, sd = 0.5)
    w <- if (seed %% 2 == 0) rpois(n, 2) + 1
    xs <- cbind(`(Intercept)` = 1, X)
    wo <- list(weights = w)
    st <- ns$basis_statistics(xs, y, "shared", wo)
    summed <- ns$gram_statistics(st)
    expect_false(is.null(summed$sums))
    solver <- ns$solver_spec("fast", ns$solver_control(NULL, "fast", "ard_control"))
    a <- ns$fit_basis(xs, y, stats::gaussian(), solver, "shared", 0.5, wo, statistics = st)
    s <- ns$fit_basis(xs, y, stats::gaussian(), solver, "shared", 0.5, wo, statistics = summed)
    label <- sprintf("n %d, d %d", n, d)
    expect_identical(s$relevant, a$relevant, label = label)
    expect_identical(s$iterations, a$iterations, label = label)
    expect_equal(s$mu, a$mu, tolerance = 1e-10, label = label)
    expect_equal(s$log_evidence, a$log_evidence, tolerance = 1e-10, label = label)
    expect_equal(s$fitted, a$fitted, tolerance = 1e-10, label = label)
  }
  # fewer than twice as many rows as columns: the rows
  st <- ns$basis_statistics(cbind(1, matrix(rnorm(600), 30)), rnorm(30), "shared", list())
  expect_null(ns$gram_statistics(st)$sums)
})

test_that("ard() with the auto prior at n >= 2 d fits from the sums and equals the fit of its rows", {
  set.seed(5)
  X <- matrix(rnorm(400 * 20), 400)
  y <- X[, 1] - 2 * X[, 3] + rnorm(400)
  fit <- ard(X, y)
  expect_identical(fit$prior, "auto")
  # the same fit with the sums withheld (the rows read at every addition)
  summing <- sparsebayes:::gram_statistics
  utils::assignInNamespace("gram_statistics", function(st) st, "sparsebayes")
  on.exit(utils::assignInNamespace("gram_statistics", summing, "sparsebayes"))
  unsummed <- ard(X, y)
  expect_identical(fit$relevant, unsummed$relevant)
  expect_equal(coef(fit), coef(unsummed), tolerance = 1e-10)
  expect_equal(fit$logLik, unsummed$logLik, tolerance = 1e-10)
})
