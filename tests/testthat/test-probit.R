# The binomial family with the probit link: rvm(y ~ ., family =
# binomial(link = "probit")), the core's "probit" likelihood
# (likelihood.hpp): Fisher-scoring weights as glm(), probabilities
# Phi(m / sqrt(1 + v)) under the latent posterior N(m, v).

probit_data <- function(n, seed) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$f <- 0.3 + d$x1 - 0.7 * d$x2
  d$y <- factor(ifelse(runif(n) < pnorm(d$f), "yes", "no"), levels = c("no", "yes"))
  d
}
probit <- binomial(link = "probit")

test_that("a probit rvm() on its linear basis recovers a probit model: glm's coefficients and the truth", {
  d <- probit_data(2000, 1)
  X <- cbind(1, d$x1, d$x2)
  fit <- rvm(basis = X, y = d$y, family = probit, control = rvm_control(temperature = 1))
  g <- glm(y ~ x1 + x2, data = d, family = probit)
  b <- numeric(3)
  b[fit$relevant] <- coef(fit)
  expect_equal(fit$relevant, 1:3)
  expect_equal(b, unname(coef(g)), tolerance = 0.02)  # the ARD prior's shrinkage at n = 2000
  expect_lt(max(abs(b - c(0.3, 1, -0.7))), 4 * max(sqrt(diag(vcov(g)))))
  expect_identical(fit$family$link, "probit")
  expect_equal(unname(fitted(fit)), pnorm(drop(X[, fit$relevant] %*% coef(fit))), tolerance = 1e-12)
  expect_output(print(fit), "classifier")
})

test_that("a probit rvm() with its default kernel predicts probabilities in (0, 1) close to the truth", {
  d <- probit_data(400, 2)
  new <- probit_data(500, 3)
  fit <- rvm(y ~ x1 + x2, data = d, family = probit)
  far <- data.frame(x1 = c(-50, 50, 0), x2 = c(50, -50, 1e3))
  p <- predict(fit, rbind(new[c("x1", "x2")], far), type = "prob")
  expect_true(all(p > 0 & p < 1))
  expect_equal(unname(rowSums(p)), rep(1, nrow(p)))
  expect_lt(mean(abs(p[seq_len(nrow(new)), "yes"] - pnorm(new$f))), 0.06)
  # the probit's predictive probability of the latent posterior, untempered
  untempered <- fit
  untempered$temperature <- NULL
  lp <- predict(untempered, new, type = "link", se.fit = TRUE)
  expect_equal(unname(predict(untempered, new, type = "response")), unname(pnorm(lp$fit / sqrt(1 + lp$se.fit^2))))
  expect_identical(levels(predict(fit, new, type = "class")), c("no", "yes"))
  h <- hatvalues(fit)
  expect_true(all(is.finite(h) & h >= 0 & h <= 1))
  cv <- cross_validate(fit, folds = 3, seed = 1)
  expect_true(is.finite(cv$results$log_loss) && cv$results$log_loss < log(2))
  s <- summary(fit)
  expect_output(print(s), "Training error")
})

test_that("integer weights in a probit fit equal replicated rows", {
  d <- probit_data(150, 4)
  set.seed(5)
  w <- sample(1:3, nrow(d), replace = TRUE)
  copies <- rep(seq_len(nrow(d)), w)
  C <- as.matrix(d[seq(1, 150, by = 10), c("x1", "x2")])
  ctl <- rvm_control(min_delta_log_alpha = 1e-10, tolerance = 1e-7, temperature = 1)
  # (each pass of the fast method reads the weighted rows' products, which copies and weights give alike)
  for (m in c("em", "fast")) {
    a <- rvm(y ~ x1 + x2, data = d, weights = w, family = probit, kernel = kernel_gaussian(1), centres = C,
             method = m, control = ctl)
    b <- rvm(y ~ x1 + x2, data = d[copies, ], family = probit, kernel = kernel_gaussian(1), centres = C,
             method = m, control = ctl)
    tol <- 1e-6
    expect_identical(a$relevant, b$relevant)
    expect_equal(coef(a), coef(b), tolerance = tol)
    expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = tol / 10)
    expect_equal(predict(a, d, type = "prob"), predict(b, d, type = "prob"), tolerance = tol)
  }
})

# The penalised score of a probit rvm() at its weights, relative to the size
# of its terms: 0 at the Laplace mode.
probit_score <- function(fit, d) {
  X <- as.matrix(d[c("x1", "x2")])
  Phi <- sparsebayes:::kernel_design(fit$kernel, sparsebayes:::apply_scaling(X, fit$scaling),
                                     sparsebayes:::apply_scaling(fit$centres, fit$scaling), TRUE)[, fit$relevant]
  eta <- drop(Phi %*% coef(fit))
  expect_equal(eta, unname(predict(fit, d, type = "link")), tolerance = 1e-12)
  t <- as.numeric(d$y == "yes")
  s <- dnorm(eta) * (t - pnorm(eta)) / (pnorm(eta) * pnorm(-eta))
  g <- drop(crossprod(Phi, s)) - fit$alpha[fit$relevant] * coef(fit)
  max(abs(g) / drop(crossprod(abs(Phi), abs(s))))
}

test_that("a probit fit from chunks ends at a Laplace mode, as good on held-out rows as the fit from the rows", {
  # the two take different paths to nearby optima (as a logit fit on these data does)
  d <- probit_data(3000, 6)
  new <- probit_data(2000, 7)
  C <- as.matrix(d[seq(1, 3000, length.out = 20), c("x1", "x2")])
  ctl <- rvm_control(min_delta_log_alpha = 1e-10, tolerance = 1e-7, temperature = 1)
  a <- rvm(y ~ x1 + x2, data = d, family = probit, kernel = kernel_gaussian(1), centres = C, control = ctl)
  b <- rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 1000), family = probit, kernel = kernel_gaussian(1),
           centres = C, control = ctl)
  expect_true(b$chunks$passes_converged)
  expect_lt(probit_score(a, d), 1e-5)
  expect_lt(probit_score(b, d), 1e-5)
  log_loss <- function(fit) {
    p <- predict(fit, new, type = "response")
    -mean(ifelse(new$y == "yes", log(p), log1p(-p)))
  }
  expect_lt(abs(log_loss(b) - log_loss(a)), 0.01)
  expect_equal(deviance(b), deviance(a), tolerance = 0.01)
})

test_that("the probit is a link of the binomial family only, for two classes", {
  x <- matrix(rnorm(60), 30)
  expect_error(rvm(x, rep(0:1, 15), family = binomial(link = "cloglog")), "logit or probit link only")
  expect_error(rvm(x, factor(rep(c("a", "b", "c"), 10)), family = probit), "one_vs_rest")
  m <- rvm(x, factor(rep(c("a", "b", "c"), 10)), family = probit, multiclass = "one_vs_rest")
  expect_s3_class(m, "sb_rvm_multiclass")
})

test_that("a probit rvm() from chunks is the fit of the rows in memory (the likelihood is defined once, in the core)", {
  d <- probit_data(1200, 8)
  centres <- as.matrix(d[seq(1, 1200, length.out = 25), c("x1", "x2")])
  k <- kernel_gaussian(1)
  a <- rvm(y ~ x1 + x2, data = d, family = probit, kernel = k, centres = centres, control = rvm_control(temperature = 1))
  b <- rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 400), family = probit, kernel = k, centres = centres)
  expect_identical(b$relevant, a$relevant)
  expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-6)
  expect_equal(predict(b, d, type = "prob"), predict(a, d, type = "prob"), tolerance = 1e-6)
  expect_identical(b$family$link, "probit")
})
