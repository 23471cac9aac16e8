# Poisson rvm() from data_chunks(): one pass over the chunks per outer
# (IRLS) iteration, as for two classes (test-chunks-binomial.R), from a
# first pass at the counts' own linear predictor log(t + 1/2). The
# in-memory fast solver undoes steps on these data (its path is not the
# passes'), so the two end at nearby fixed points of the same equations:
# asserted are the Laplace mode (the penalised score is zero), the
# deviance from the sums, and a held-out deviance as good as in memory.

poisson_chunk_data <- function(n = 6000, seed = 1, scale = 1) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$f <- log(scale) + 1 + sin(2 * d$x1) + 0.5 * d$x2
  d$y <- rpois(n, exp(d$f))
  d$w <- sample(0:3, n, replace = TRUE)
  d$o <- runif(n, -0.3, 0.3)
  d
}

# The penalised score of a Poisson rvm() at its weights, relative to the
# size of its terms, and the linear predictor (checked against predict()).
poisson_score <- function(fit, d) {
  X <- as.matrix(d[c("x1", "x2")])
  Phi <- sparsebayes:::kernel_design(fit$kernel, sparsebayes:::apply_scaling(X, fit$scaling),
                                     sparsebayes:::apply_scaling(fit$centres, fit$scaling), TRUE)[, fit$relevant]
  eta <- drop(Phi %*% coef(fit)) + d$o
  expect_equal(eta, unname(predict(fit, d, type = "link")), tolerance = 1e-12)
  g <- drop(crossprod(Phi, d$w * (d$y - exp(eta)))) - fit$alpha[fit$relevant] * coef(fit)
  max(abs(g) / drop(crossprod(abs(Phi), d$w * d$y)))
}

heldout_deviance <- function(fit, new)
  sum(poisson()$dev.resids(new$y, predict(fit, new, type = "response"), rep(1, nrow(new)))) / nrow(new)

test_that("a Poisson rvm() from chunks reaches the Laplace mode and fits as well as from the rows", {
  k <- kernel_gaussian(1)
  for (s in list(c(scale = 1, seed = 1), c(scale = 0.05, seed = 4), c(scale = 1, seed = 4))) {
    d <- poisson_chunk_data(seed = s[["seed"]], scale = s[["scale"]])
    new <- poisson_chunk_data(3000, seed = 50 + s[["seed"]], scale = s[["scale"]])
    centres <- as.matrix(d[seq(1, 6000, length.out = 40), c("x1", "x2")])
    a <- rvm(y ~ x1 + x2 + offset(o), weights = w, data = d, family = poisson(), kernel = k, centres = centres)
    b <- rvm(y ~ x1 + x2 + offset(o), weights = w, data = data_chunks(d, chunk_size = 2500), family = poisson(),
             kernel = k, centres = centres)
    info <- paste("scale", s[["scale"]], "seed", s[["seed"]])
    expect_true(b$chunks$passes_converged, info = info)
    expect_lt(poisson_score(b, d), 1e-8)  # (1e-11 to 1e-10 here)
    # the deviance is the sums' at the last pass, as glm defines it
    expect_equal(deviance(b), sum(poisson()$dev.resids(d$y, exp(predict(b, d, type = "link")), d$w)),
                 tolerance = 1e-6, info = info)
    # a nearby fixed point: log evidence -3.1 to +4.6 nats from the in-memory fit's, held-out deviance within 0.1%
    expect_gt(as.numeric(logLik(b)), as.numeric(logLik(a)) - 5)
    expect_lt(heldout_deviance(b, new), 1.005 * heldout_deviance(a, new))
    expect_identical(nobs(b), sum(d$w > 0))
  }
})

test_that("a Poisson rvm() from chunks converges on large counts, where moving off a column is a projection", {
  # counts near 80: weights of 1e3 on nearby centres cancel; a mode search that set a leaving
  # column's weight to 0 lost the fit (log-likelihood -28531 -> -3e6) and stopped at pass 27
  d <- poisson_chunk_data(seed = 2, scale = 30)
  new <- poisson_chunk_data(3000, seed = 52, scale = 30)
  centres <- as.matrix(d[seq(1, 6000, length.out = 40), c("x1", "x2")])
  b <- rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 2500), family = poisson(), kernel = kernel_gaussian(1),
           centres = centres)
  expect_true(b$chunks$passes_converged)
  expect_lt(sqrt(mean((predict(b, new, type = "link") - new$f)^2)), 0.25)
  # (the start of a mode search from a point with a column that leaves, its projection: tests/cpp/test-laplace-passes.cpp)
})

test_that("a Poisson rvm() from chunks prints, summarises and predicts without its rows, and checks its counts", {
  d <- poisson_chunk_data(3000, seed = 3)
  b <- rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 1000), family = poisson(), kernel = kernel_gaussian(1),
           centres = 20)
  expect_output(print(b), "Poisson counts")
  expect_output(print(b), "deviance")
  expect_output(print(summary(b)), "Data: +a data frame of 3000 rows in chunks, [0-9]+ passes")
  expect_equal(summary(b)$deviance, deviance(b))
  expect_null(b$fitted.values)
  expect_lt(max(lengths(unclass(b))), 1000)
  expect_true(all(predict(b, d[1:10, ], type = "response") > 0))
  expect_error(fitted(b), "does not keep")
  bad <- d
  bad$y[2500] <- -1
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(bad, chunk_size = 1000), family = poisson(), centres = 20),
               "non-negative whole numbers \\(counts\\) for the poisson family")
  bad$y[2500] <- 2.5
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(bad, chunk_size = 1000), family = poisson(), centres = 20),
               "non-negative whole numbers")
  zero <- d
  zero$y <- 0
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(zero, chunk_size = 1000), family = poisson(), centres = 20),
               "all zero")
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(d), family = poisson(), method = "em"),
               "\"em\" is not supported for a poisson fit from data_chunks\\(\\)")
})
