# ESS, leverage, residuals, outliers and diagnostic plots.

test_that("ess() on known vectors", {
  expect_equal(ess(rep(3, 8)), 1)
  expect_equal(ess(c(0, 0, 5, 0)), 1 / 4)
  expect_equal(ess(c(2, 2, 0, 0)), 1 / 2)                 # zeros contribute nothing but count in m
  p <- c(4, 2, 1, 1) / 8
  expect_equal(ess(c(4, 2, 1, 1)), exp(-sum(p * log(p))) / 4)
  expect_equal(ess(c(4, 2, 1, 1), order = 2), 1 / sum(p^2) / 4)
  expect_equal(ess(c(4, 2, 1, 1), order = Inf), 1 / max(p) / 4)
  expect_equal(ess(c(4, 2, 0, 1), order = 0), 3 / 4)
  expect_equal(ess(rep(1, 5), order = 2), 1)
  expect_equal(ess(c(1, 0, 0), order = 2), 1 / 3)
  expect_equal(ess(c(4, 2, 1, 1)), ess(10 * c(4, 2, 1, 1)))  # scale-free
  expect_true(is.na(ess(c(0, 0, 0))))
  # Renyi effective numbers decrease with the order
  v <- c(5, 3, 1, 1, 0.5)
  expect_true(ess(v, order = 0) >= ess(v, order = 1) && ess(v, order = 1) >= ess(v, order = 2))
})

test_that("ess() rejects bad scores and orders", {
  expect_error(ess(c(1, -1)), "`x` must be non-negative")
  expect_error(ess(c(1, NA)), "`x` contains NA")
  expect_error(ess(c(1, Inf)), "`x` contains infinite")
  expect_error(ess(numeric(0)), "`x` is empty")
  expect_error(ess("a"), "`x` must be a numeric vector")
  expect_error(ess(c(1, 2), order = -1), "`order` must be")
  expect_error(ess(c(1, 2), order = c(1, 2)), "`order` must be")
  expect_error(ess(c(1, 2), foo = 1), "unknown argument")
})

test_that("ess() of a fit uses 1/alpha over all basis functions and 1/lambda over samples", {
  fit <- rvm(accel ~ times, data = MASS::mcycle)
  scores <- ifelse(is.finite(fit$alpha), 1 / fit$alpha, 0)
  expect_equal(ess(fit), ess(scores))
  expect_equal(ess(fit, order = 2), ess(scores, order = 2))
  expect_lt(ess(fit), length(fit$relevant) / fit$n_basis + 1e-12)
  expect_equal(ess(fit, which = "samples"), 1)             # shared noise
  fake <- fit
  fake$lambda <- c(rep(1, 100), rep(100, nrow(MASS::mcycle) - 100))
  expect_equal(ess(fake, which = "samples"), ess(1 / fake$lambda))
  expect_error(ess(fit, which = "nope"), "`which` must be one of")
})

# A joint-ARD-shaped fit with given precisions on a linear design: the
# posterior in closed form, to check the diagnostics against lm().
closed_form_fit <- function(X, y, alpha, lambda) {
  keep <- which(is.finite(alpha))  # Inf: pruned
  Xr <- X[, keep, drop = FALSE]
  Sigma <- solve(crossprod(Xr / sqrt(rep_len(lambda, nrow(X)))) + diag(alpha[keep], length(keep)))
  mu <- drop(Sigma %*% crossprod(Xr, y / rep_len(lambda, nrow(X))))
  fitted <- drop(Xr %*% mu)
  structure(list(x = X, y = y, relevant = keep, weights = mu, Sigma = Sigma,
                 alpha = stats::setNames(alpha, colnames(X)), lambda = lambda, family = stats::gaussian(),
                 fitted.values = fitted, residuals = y - fitted, n_basis = ncol(X)),
            class = c("sb_ard", "sparsebayes"))
}

test_that("with tiny precisions and shared noise, hatvalues and LOO residuals are lm's", {
  d <- linear_data()
  X <- cbind("(Intercept)" = 1, d$X)
  fit <- closed_form_fit(X, d$y, alpha = rep(1e-10, ncol(X)), lambda = 0.3)
  ols <- lm(d$y ~ d$X)
  expect_equal(unname(hatvalues(fit)), unname(stats::hatvalues(ols)), tolerance = 1e-7)
  expect_equal(residuals(fit, type = "loo"), unname(rstandard(ols, type = "predictive")), tolerance = 1e-6)
  expect_equal(residuals(fit, type = "pearson"), unname(residuals(ols)) / sqrt(0.3), tolerance = 1e-6)
  expect_equal(residuals(fit), fit$residuals)
})

test_that("hatvalues follow h_i = x_i' Sigma x_i / lambda_i with per-sample noise", {
  d <- linear_data()
  lambda <- exp(seq(-2, 2, length.out = length(d$y)))
  fit <- closed_form_fit(d$X, d$y, alpha = c(0.1, 1, 10, 100, 1e3, 1e4), lambda = lambda)
  h <- hatvalues(fit)
  expect_equal(unname(h), diag(d$X %*% fit$Sigma %*% t(d$X)) / lambda)
  # the diagonal of H = X Sigma X' Lambda^-1, whose trace is sum(1 - alpha_j Sigma_jj)
  expect_equal(sum(h), sum(1 - fit$alpha * diag(fit$Sigma)))
  expect_true(all(h >= 0 & h < 1))
  expect_equal(residuals(fit, type = "pearson"), fit$residuals / sqrt(lambda))
  # LOO residual = residual of the fit without sample i at fixed alpha and lambda
  i <- 7
  drop_i <- closed_form_fit(d$X[-i, ], d$y[-i], alpha = fit$alpha, lambda = lambda[-i])
  expect_equal(residuals(fit, type = "loo")[i], d$y[i] - sum(d$X[i, ] * drop_i$weights))
  ol <- outliers(fit, n = 5)
  expect_equal(ol$index, order(lambda, decreasing = TRUE)[1:5])
  expect_equal(ol$leverage, unname(h[ol$index]))
})

test_that("diagnostics of rvm fits (shared noise) satisfy the closed forms", {
  fit <- rvm(accel ~ times, data = MASS::mcycle)
  h <- hatvalues(fit)
  Phi <- sparsebayes:::training_design(fit)
  expect_equal(dim(Phi), c(nrow(MASS::mcycle), length(fit$relevant)))
  expect_equal(drop(Phi %*% fit$weights), unname(fit$fitted.values), tolerance = 1e-8)
  # mcycle has rows that are exact copies (time and acceleration): pooled,
  # so lambda is the noise of a row of average weight and a single row's is
  # lambda * weight_unit
  expect_gt(fit$weight_unit, 1)
  noise <- fit$lambda * fit$weight_unit
  expect_equal(unname(h), rowSums((Phi %*% fit$Sigma) * Phi) / noise)
  expect_equal(sum(h), sum(1 - fit$alpha[fit$relevant] * diag(fit$Sigma)), tolerance = 1e-8)
  expect_equal(residuals(fit, "pearson"), fit$residuals / sqrt(noise))
  expect_equal(residuals(fit, "loo"), fit$residuals / (1 - unname(h)))
  ol <- outliers(fit, n = 4)
  expect_named(ol, c("index", "lambda", "residual", "loo_residual", "leverage", "std_residual", "distance", "inlier_leverage", "type"))
  expect_equal(ol$index, order(abs(residuals(fit, "loo")), decreasing = TRUE)[1:4])  # ties in lambda
  expect_equal(nrow(outliers(fit, n = 1000)), nrow(MASS::mcycle))
})

test_that("binomial fits use the working weights, like glm", {
  cls <- rvm(yc ~ xs + ys, data = transform(MASS::synth.tr, yc = factor(yc)),
             kernel = kernel_gaussian(0.5), scale = FALSE)
  h <- hatvalues(cls)
  expect_equal(sum(h), sum(1 - cls$alpha[cls$relevant] * diag(cls$Sigma)), tolerance = 1e-6)
  mu <- cls$fitted.values
  expect_equal(residuals(cls, "pearson"), (cls$y - mu) / sqrt(mu * (1 - mu)))
})

test_that("diagnostics explain what they cannot do", {
  d <- linear_data()
  fit <- rvm(basis = exp(-as.matrix(dist(d$X))^2 / 10), y = d$y)
  expect_error(hatvalues(fit), "user `basis` is not stored")
  expect_error(residuals(fit, type = "loo"), "user `basis` is not stored")
  expect_equal(residuals(fit, type = "pearson"), fit$residuals / sqrt(fit$lambda))
  iris_fit <- structure(list(models = list()), class = c("sb_rvm_multiclass", "sparsebayes"))
  expect_error(ess(iris_fit), "single model")
  expect_error(outliers(rvm(accel ~ times, data = MASS::mcycle), n = 0), "`n` must be >= 1")
  expect_error(residuals(fit, type = "deviance"), "`type` must be one of")
})

test_that("diagnostic plots draw, and trajectory needs a path", {
  fit <- rvm(accel ~ times, data = MASS::mcycle)
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(fit, which = "relevance"))
  expect_invisible(plot(fit, which = "leverage", highlight = c(1, 5)))
  expect_error(plot(fit, which = "trajectory"), "no `path`")
  expect_error(plot(fit, which = "leverage", highlight = 1000), "`highlight` must hold sample indices")
  # one range on both axes (equality is the diagonal): the squared residuals of the Student-t fit of
  # mcycle span seven decades, its noise variances less than one, and the residuals far below every
  # variance sit at the left edge
  robust <- rvm(accel ~ times, data = MASS::mcycle, noise = "student")
  plot(robust, which = "leverage")
  usr <- graphics::par("usr")
  lambda <- sparsebayes:::sample_noise(robust)
  lower <- function(u) 10^(u[1L] + 0.04 * (u[2L] - u[1L]) / 1.08)  # the data limit inside R's 4% margin
  expect_equal(lower(usr[1:2]), min(lambda) / 100)
  expect_equal(lower(usr[3:4]), min(lambda) / 100)
  expect_lt(usr[2L] - usr[1L], 4)
  d <- linear_data()
  lambda <- exp(seq(-2, 2, length.out = length(d$y)))
  af <- closed_form_fit(d$X, d$y, alpha = c(0.1, 1, 10, 100, 1e3, Inf), lambda = lambda)
  af$path <- list(iteration = 1:3, alpha = rbind(rep(1, 6), rep(2, 6), af$alpha),
                  lambda = rbind(rep(1, 60), rep(1.5, 60), lambda))
  expect_invisible(plot(af))
  expect_invisible(plot(af, which = "trajectory", highlight = 1:3))
  expect_invisible(plot(af, which = "relevance"))
  expect_invisible(plot(af, which = "leverage"))
})

test_that("diagnostics of ard() fits: closed forms, lm limit and plots", {
  d <- linear_data()
  y <- d$y
  y[1:4] <- y[1:4] + 10                                  # outliers
  fit <- ard(d$X, y, noise = "sample", method = "em")
  h <- hatvalues(fit)
  Phi <- sparsebayes:::training_design(fit)
  expect_equal(Phi, fit$x[, fit$relevant, drop = FALSE])
  expect_equal(unname(h), rowSums((Phi %*% fit$Sigma) * Phi) / fit$lambda)
  expect_equal(sum(h), sum(1 - fit$alpha[fit$relevant] * diag(fit$Sigma)), tolerance = 1e-8)
  expect_equal(residuals(fit, "pearson"), fit$residuals / sqrt(fit$lambda))
  expect_setequal(outliers(fit, n = 4)$index, 1:4)
  expect_lt(ess(fit, which = "samples"), 1)
  expect_equal(ess(fit, which = "samples"), ess(1 / fit$lambda))
  # no ARD (tiny fixed precision) and shared noise: least squares
  ls_fit <- ard(d$X, d$y, control = ard_control(fixed_alpha = 1e-10))
  expect_equal(unname(hatvalues(ls_fit)), unname(stats::hatvalues(lm(d$y ~ d$X))), tolerance = 1e-6)
  expect_equal(residuals(ls_fit, "loo"), unname(rstandard(lm(d$y ~ d$X), type = "predictive")), tolerance = 1e-5)
  pdf(NULL)
  on.exit(dev.off())
  expect_false(is.null(fit$path))
  expect_invisible(plot(fit))
  expect_invisible(plot(fit, which = "trajectory", highlight = 1:4))
  expect_invisible(plot(fit, which = "relevance", highlight = 1:4))
  expect_invisible(plot(fit, which = "leverage", highlight = 1:4))
  no_path <- ard(d$X, y, noise = "sample", control = ard_control(path_max = 0))
  expect_error(plot(no_path, which = "trajectory"), "no `path`")
})

test_that("diagnostics of rvm() fits with per-sample noise (batch and fast solvers)", {
  d <- sinc_data(n = 80, seed = 4)
  y <- d$y
  y[1:4] <- y[1:4] + 2
  for (method in c("em", "fast")) {
    fit <- rvm(d$x, y, method = method, noise = "sample")
    h <- hatvalues(fit)
    expect_equal(sum(h), sum(1 - fit$alpha[fit$relevant] * diag(fit$Sigma)), tolerance = 1e-6, info = method)
    expect_setequal(outliers(fit, n = 4)$index, 1:4)
    expect_equal(ess(fit, which = "samples"), ess(1 / fit$lambda), info = method)
  }
  pdf(NULL)
  on.exit(dev.off())
  expect_invisible(plot(fit, which = "leverage", highlight = 1:4))
  em <- rvm(d$x, y, method = "em", noise = "sample")
  expect_invisible(plot(em, which = "trajectory", highlight = 1:4))
})

test_that("outliers() types leverage from the inliers' hat value of the inputs against 3p/n, not from the fit's hat value", {
  set.seed(8)
  n <- 200
  X <- matrix(rnorm(n * 20), n, 20)
  y <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + rnorm(n, sd = 0.5)
  y[1:10] <- y[1:10] + 20  # vertical outliers: down-weighted, their hat values near 0
  X[11, 1:3] <- c(8, 8, 8)  # one row far out in x: a bad leverage point
  y[11] <- y[11] + 20
  fit <- ard(X, y, noise = "sample", method = "em")
  map <- outliers(fit, n = n)
  cut <- attr(map, "cutoffs")
  expect_equal(cut[["inlier_leverage"]], 3 * 21 / n)
  lev <- map$type %in% c("good leverage", "bad leverage")
  expect_true(all(map$inlier_leverage[lev] > cut[["inlier_leverage"]]))
  expect_true(all(map$inlier_leverage[!lev] <= cut[["inlier_leverage"]]))
  expect_true(all(map$distance[lev] > cut[["distance"]]))
  # Row 11's own hat value is ~0 (the fit set it aside), yet it is far in x; rows 1-10 are not.
  expect_lt(map$leverage[map$index == 11], cut[["inlier_leverage"]] / 100)
  expect_identical(as.character(map$type[map$index == 11]), "bad leverage")
  expect_true(all(map$type[map$index %in% 1:10] == "vertical outlier"))
  # Clean Gaussian rows in 20 dimensions are not leverage points by chance.
  expect_lte(sum(lev[!map$index %in% 1:11]), 1)
})
