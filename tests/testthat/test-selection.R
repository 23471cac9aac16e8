# The log Bayes factor of each retained weight and the selection built on it.

# The log evidence difference of keeping weight j against pruning it, the
# other precisions and the noise at the fitted values, computed densely.
dense_log_bf <- function(fit, y) {
  Phi <- fit$x[, seq_along(fit$alpha), drop = FALSE]
  full <- dense_log_evidence(Phi, y, fit$alpha, fit$lambda)
  vapply(fit$relevant, function(j) {
    if (fit$alpha[j] == 0) return(NA_real_)
    a <- fit$alpha
    a[j] <- Inf
    full - dense_log_evidence(Phi, y, a, fit$lambda)
  }, numeric(1))
}

test_that("log Bayes factors equal the difference of two full log evidences", {
  d <- outlier_data(n = 80, d = 8, n_out = 4, seed = 5)
  centred <- function(fit) d$y - (fit$standard_units[["center"]] %||% 0)
  fits <- list(ard(d$X, d$y), ard(d$X, d$y, method = "fast"), ard(d$X, d$y, method = "mackay"),
               ard(d$X, d$y, noise = "sample"), ard(d$X, d$y, noise = "student"),
               ard(d$X, d$y, intercept = FALSE))
  for (fit in fits) {
    lb <- sparsebayes:::log_bayes_factors(fit)
    y <- centred(fit)  # the solver's response: an intercept it keeps is a weight beside the centre
    expect_equal(unname(lb), dense_log_bf(fit, y), tolerance = 1e-6)
    expect_identical(unname(is.na(lb)), unname(fit$alpha[fit$relevant] == 0))
  }
})

test_that("log Bayes factors of an RVM match the dense evidence too", {
  s <- sinc_data(60)
  Phi <- cbind(1, exp(-outer(s$x, s$x, "-")^2 / 4))
  fit <- rvm(basis = Phi, y = s$y, bias = FALSE)
  fit$x <- Phi
  y <- s$y - (fit$standard_units[["center"]] %||% 0)
  expect_equal(unname(sparsebayes:::log_bayes_factors(fit)), dense_log_bf(fit, y), tolerance = 1e-6)
})

test_that("at an optimum the log Bayes factor is (z^2 - log(1 + z^2)) / 2", {
  d <- linear_data(200)
  fit <- ard(d$X, d$y, method = "fast")
  z2 <- fit$weights^2 / diag(fit$Sigma)
  pen <- fit$alpha[fit$relevant] > 0
  expect_equal(sparsebayes:::log_bayes_factors(fit)[pen], (z2 - log1p(z2))[pen] / 2, tolerance = 1e-3)
})

beta5 <- c(2, -1.5, 1, -0.75, 0.5, rep(0, 45))
sparse_design <- function(seed, n = 200) {
  set.seed(seed)
  X <- matrix(rnorm(n * 50), n, 50, dimnames = list(NULL, paste0("x", 1:50)))
  list(X = X, y = drop(X %*% beta5 + rnorm(n)))
}

test_that("the confident selection keeps the true features and few false ones", {
  for (seed in 1:4) {
    d <- sparse_design(seed)
    fit <- ard(d$X, d$y)
    sel <- selected(fit)
    expect_true(all(paste0("x", 1:5) %in% sel))
    expect_lte(length(setdiff(sel, paste0("x", 1:5))), 2L)
    expect_lt(length(sel), length(fit$relevant) - 1L)  # fewer than ARD keeps
    expect_true(all(sel %in% names(fit$weights)))
    p <- inclusion_probabilities(fit)
    expect_true(all(p[sel] > 0.5) && all(p[setdiff(names(p), sel)] <= 0.5))
    expect_false("(Intercept)" %in% names(p))
    expect_setequal(names(p), setdiff(names(fit$weights), "(Intercept)"))
    expect_null(attributes(sel))
  }
})

test_that("a stricter probability or a smaller prior inclusion selects a subset", {
  d <- sparse_design(7)
  fit <- ard(d$X, d$y)
  expect_true(all(selected(fit, probability = 0.95) %in% selected(fit)))
  expect_true(all(selected(fit, prior_inclusion = 0.01) %in% selected(fit, prior_inclusion = 0.5)))
  lb <- sparsebayes:::log_bayes_factors(fit)
  expect_setequal(selected(fit, prior_inclusion = 0.5), names(lb)[!is.na(lb) & lb > 0])
  # the multiplicity prior asks more of a feature than even odds
  expect_true(all(selected(fit) %in% selected(fit, prior_inclusion = 0.5)))
})

test_that("tidy, summary and the evidence plot show the log Bayes factors", {
  d <- sparse_design(2)
  fit <- ard(d$X, d$y)
  td <- tidy(fit)
  expect_true("log_bf" %in% names(td))
  expect_true(is.na(td$log_bf[td$term == "(Intercept)"]))
  expect_equal(td$log_bf, unname(sparsebayes:::log_bayes_factors(fit)))
  s <- summary(fit)
  expect_identical(s$selected, selected(fit))
  expect_identical(s$n_candidates, 50L)
  expect_true("log BF" %in% colnames(s$coefficients))
  expect_output(print(s), "Selected: +[0-9]+ of 50 candidates with inclusion probability > 0.5")
  expect_output(print(s), "Relevant weights: +[0-9]+ of 51 kept by ARD \\(the intercept among them")
  # what a user reads first is the calibrated set (issue 60, item 4): print() leads with it, tidy() marks it
  expect_output(print(fit), sprintf("^[^\n]*\n[^\n]*\n%d of 50 features selected \\(inclusion probability > 0.5\\); ARD keeps %d of 51 weights",
                                    length(selected(fit)), length(fit$relevant)))
  expect_identical(td$selected, ifelse(td$term == "(Intercept)", NA, td$term %in% selected(fit)))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit, which = "evidence"))
  expect_invisible(plot(fit, which = "evidence", top = 5, main = "evidence"))
  expect_error(plot(fit, which = "evidence", top = 0), "top")
  expect_true("log_bf" %in% names(tidy(rvm(accel ~ times, data = MASS::mcycle))))
})

test_that("selected() refuses bad arguments and multiclass fits", {
  d <- sparse_design(3, n = 60)
  fit <- ard(d$X, d$y)
  expect_error(selected(fit, probability = 1), "probability")
  expect_error(selected(fit, probability = 0), "probability")
  expect_error(selected(fit, probability = NA), "probability")
  expect_error(selected(fit, prior_inclusion = "flat"), "beta-binomial")
  expect_error(selected(fit, prior_inclusion = 1.5), "prior_inclusion")
  expect_error(inclusion_probabilities(fit, probability = 2), "probability")
  expect_error(inclusion_probabilities(fit, prior_inclusion = 0), "prior_inclusion")
  expect_error(selected(list()), "not a fitted")
  mc <- rvm(Species ~ ., data = iris[c(1:20, 51:70, 101:120), ])
  expect_error(selected(mc), "single model")
})
