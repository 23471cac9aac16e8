# The statistics layer: a gaussian fit with shared noise from Phi'Phi,
# Phi't, t't, sum(t) and n alone equals the fit from the rows, and the
# statistics of blocks of rows add up to those of all of them.

ns <- asNamespace("sparsebayes")

stats_problems <- function() {
  set.seed(11)
  x <- sort(runif(200, -10, 10))
  y <- sin(x) / x + rnorm(200, sd = 0.1)
  kernel <- ns$.sb_kernel_design(unclass(kernel_gaussian(width = 2)), matrix(x), matrix(x), TRUE, 1L)
  X <- matrix(rnorm(300 * 20), 300)
  z <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + rnorm(300)
  list(kernel = list(Phi = kernel, y = (y - mean(y)) / sd(y), problem = ns$solver_problem("fast")),
       linear = list(Phi = cbind(1, X), y = z / sd(z), problem = ns$solver_problem("fast")),
       fixed_noise = list(Phi = cbind(1, X), y = z / sd(z), problem = ns$solver_problem("fast", noise_variance = 0.3)),
       smooth = list(Phi = kernel, y = (y - mean(y)) / sd(y), problem = ns$solver_problem("fast", smoothness = 1e-3)),
       replicated = list(Phi = cbind(1, X), y = z / sd(z),
                         problem = ns$solver_problem("fast", n_effective = 450, target_variance = 1.1)))
}

test_that("a fast fit from the statistics equals the fit from the rows", {
  settings <- ns$core_settings(rvm_control())
  for (name in names(p <- stats_problems())) {
    case <- p[[name]]
    rows <- ns$.sb_fit(case$Phi, case$y, "gaussian", case$problem, settings)
    from <- ns$.sb_fit_statistics(ns$.sb_statistics(case$Phi, case$y), case$problem, settings)
    expect_equal(from$relevant, rows$relevant, info = name)
    expect_equal(from$mu, rows$mu, tolerance = 1e-8, info = name)
    expect_equal(from$Sigma, rows$Sigma, tolerance = 1e-8, info = name)
    expect_equal(from$log_evidence, rows$log_evidence, tolerance = 1e-8, info = name)
    expect_equal(from$lambda, rows$lambda, tolerance = 1e-8, info = name)
    expect_equal(from$iterations, rows$iterations, info = name)
    expect_length(from$fitted, 0L)  # no rows, no fitted values
  }
})

test_that("the batch rules that read no row statistics fit from the statistics as from the rows", {
  case <- stats_problems()$linear
  s <- ns$.sb_statistics(case$Phi, case$y)
  for (method in c("em", "mackay", "irls2", "gradient")) {
    settings <- ns$core_settings(ard_control())
    problem <- ns$solver_problem(method)
    rows <- ns$.sb_fit(case$Phi, case$y, "gaussian", problem, settings)
    from <- ns$.sb_fit_statistics(s, problem, settings)
    expect_equal(from$relevant, rows$relevant, info = method)
    expect_equal(from$mu, rows$mu, tolerance = 1e-8, info = method)
    expect_equal(from$log_evidence, rows$log_evidence, tolerance = 1e-8, info = method)
    expect_equal(from$lambda, rows$lambda, tolerance = 1e-8, info = method)
    expect_equal(from$iterations, rows$iterations, info = method)
  }
})

test_that("the statistics of blocks of rows add up to those of all rows, and give the same fit", {
  case <- stats_problems()$linear
  whole <- ns$.sb_statistics(case$Phi, case$y)
  blocks <- lapply(split(seq_len(300), rep(1:3, c(97, 103, 100))), function(i)
    ns$.sb_statistics(case$Phi[i, , drop = FALSE], case$y[i]))
  summed <- Reduce(function(a, b) Map(`+`, a, b), blocks)
  expect_equal(summed, whole, tolerance = 1e-12)
  expect_equal(whole$n, 300)
  expect_equal(whole$gram, crossprod(case$Phi), tolerance = 1e-12)
  settings <- ns$core_settings(rvm_control())
  a <- ns$.sb_fit_statistics(whole, case$problem, settings)
  b <- ns$.sb_fit_statistics(summed, case$problem, settings)
  expect_equal(b$mu, a$mu, tolerance = 1e-8)
  expect_equal(b$log_evidence, a$log_evidence, tolerance = 1e-8)
})

test_that("a fit from statistics says what it cannot do", {
  case <- stats_problems()$linear
  s <- ns$.sb_statistics(case$Phi, case$y)
  settings <- ns$core_settings(rvm_control())
  expect_error(ns$.sb_fit_statistics(s, ns$solver_problem("fast", noise = "sample"), settings), "shared noise")
  expect_error(ns$.sb_fit_statistics(s, ns$solver_problem("irls1"), ns$core_settings(ard_control())), "reads the rows")
  expect_error(ns$.sb_fit_statistics(s, ns$solver_problem("gradient", gradient_form = "primal"), ns$core_settings(ard_control())),
               "sample space")
  bad <- s
  bad$cross <- bad$cross[-1]
  expect_error(ns$.sb_fit_statistics(bad, case$problem, settings), "do not match")
  bad <- s
  bad$gram[2, 3] <- NaN
  expect_error(ns$.sb_fit_statistics(bad, case$problem, settings), "NaN")
  bad <- s
  bad$n <- 1
  expect_error(ns$.sb_fit_statistics(bad, case$problem, settings), "two observations")
  expect_error(ns$.sb_statistics(case$Phi, case$y[-1]), "does not match")
})
