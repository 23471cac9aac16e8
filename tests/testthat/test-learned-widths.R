# Per-input kernel widths and widths learned by the GP marginal likelihood
# (kernel_gaussian(width = "learn")).

fd_gradient <- function(f, t, h = 1e-5) {
  vapply(seq_along(t), function(i) {
    e <- replace(numeric(length(t)), i, h)
    (f(t + e) - f(t - e)) / (2 * h)
  }, numeric(1))
}

test_that("GP gradients match finite differences for every kernel, approximation and width form", {
  set.seed(1)
  x <- matrix(rnorm(60), 20, 3)
  z <- matrix(rnorm(15), 5, 3)
  r <- sin(x[, 1]) + 0.1 * rnorm(20)
  for (type in c("gaussian", "laplace", "cauchy")) for (approx in c("exact", "VFE", "FITC")) for (nw in c(1L, 3L)) {
    objective <- function(t, gradient = FALSE) {
      k <- unclass(sparsebayes:::kernel_constructor(type)(exp(t[seq_len(nw)]), exp(t[nw + 1L])))
      zt <- if (approx == "exact") matrix(0, 0, 3) else matrix(t[-seq_len(nw + 2L)], 5, 3)
      sparsebayes:::.sb_gp_objective(k, exp(t[nw + 2L]), x, r, zt, numeric(0),
                                     sparsebayes:::gp_settings(approx, 1e-6, gradient))
    }
    t0 <- c(log(c(0.8, 1.3, 2)[seq_len(nw)]), log(1.2), log(0.05), if (approx != "exact") as.vector(z))
    analytic <- objective(t0, TRUE)$gradient
    numeric_ <- fd_gradient(function(t) objective(t)$value, t0)
    expect_lt(max(abs(analytic - numeric_) / (abs(numeric_) + 1e-3)), 1e-5)
  }
})

test_that("the Laplace GP classifier's gradient matches finite differences", {
  set.seed(1)
  x <- matrix(rnorm(90), 30, 3)
  t <- as.numeric(x[, 1] + 0.5 * rnorm(30) > 0)
  w <- runif(30, 0.5, 2)
  for (type in c("gaussian", "laplace", "cauchy")) for (nw in c(1L, 3L)) for (wt in list(numeric(0), w)) {
    objective <- function(th, gradient = FALSE) {
      k <- unclass(sparsebayes:::kernel_constructor(type)(exp(th[seq_len(nw)]), exp(th[nw + 1L])))
      sparsebayes:::.sb_laplace_gp_objective(k, x, t, wt, 0.3, numeric(0), gradient)
    }
    t0 <- c(log(c(0.8, 1.5, 2.5)[seq_len(nw)]), log(2))
    analytic <- objective(t0, TRUE)$gradient
    numeric_ <- fd_gradient(function(th) objective(th)$value, t0)
    expect_lt(max(abs(analytic - numeric_) / (abs(numeric_) + 1e-3)), 1e-4)
  }
  # the value is the Laplace evidence of a dense reference (R&W Algorithm 3.1)
  K <- kernel_matrix(kernel_gaussian(1.5, 2), x)
  f <- rep(0, 30)
  for (i in 1:50) {
    p <- plogis(f)
    sw <- sqrt(p * (1 - p))
    B <- diag(30) + sw * t(sw * K)
    b <- p * (1 - p) * f + (t - p)
    a <- as.vector(b - sw * solve(B, sw * (K %*% b)))
    f <- as.vector(K %*% a)
  }
  p <- plogis(f)
  B <- diag(30) + sqrt(p * (1 - p)) * t(sqrt(p * (1 - p)) * K)
  dense <- -(sum(t * f - log1p(exp(f))) - sum(a * f) / 2 - as.numeric(determinant(B)$modulus) / 2)
  got <- sparsebayes:::.sb_laplace_gp_objective(unclass(kernel_gaussian(1.5, 2)), x, t, numeric(0), 0, numeric(0), FALSE)
  expect_equal(got$value, dense, tolerance = 1e-10)
  expect_error(sparsebayes:::.sb_laplace_gp_objective(unclass(kernel_gaussian(1)), x, t + 0.5, numeric(0), 0,
                                                      numeric(0), FALSE), "targets must be 0 or 1")
})

test_that("the default width is learned for regressions and classifiers, the median heuristic elsewhere", {
  set.seed(5)
  x <- matrix(runif(200, -2, 2), 100, 2)
  y <- sin(2 * x[, 1]) + rnorm(100, sd = 0.1)
  expect_identical(rvm(x, y)$kernel$width_rule, "learn")
  expect_length(sparse_gp(x, y, inducing = 10, seed = 1)$kernel$width, 2L)
  classifier <- rvm(x, factor(y > 0))$kernel  # a classifier: one width for all inputs, learned
  expect_length(classifier$width, 1L)
  expect_identical(classifier$width_rule, "learn")
  expect_identical(classifier$learned$criterion, "Laplace GP classifier evidence")
  expect_null(rvm(x, rpois(100, 2), family = poisson())$kernel$width_rule)  # counts: the median heuristic
  expect_length(rvm(x, y, kernel = kernel_gaussian("median"))$kernel$width, 1L)
  expect_length(rvm(x[1:4, ], y[1:4])$kernel$width, 1L)  # too few rows to learn from
  # pure noise: no signal beyond the constant model, so the median heuristic
  # (an RVM on the GP's near-white kernel would interpolate)
  noise_only <- rvm(x, rnorm(100))
  expect_identical(noise_only$kernel$width_rule, "median")
  expect_length(noise_only$kernel$width, 1L)
  expect_lt(length(noise_only$relevant), 10)
  # a response near the double range: the GP's noise in its units overflows
  expect_s3_class(rvm(x, 1e200 * y), "sb_rvm")
  fit <- rvm(x, y)
  expect_true(sum(fit$noise_starts$chosen) == 1L)
  expect_equal(max(fit$noise_starts$logLik), fit$logLik)
  expect_gte(min(fit$kernel$width[2]) / fit$kernel$width[1], 10)  # x2 is irrelevant
})

test_that("few rows and many inputs learn one width for all when per-input widths do not pay", {
  # 30 rows, 12 inputs, half of them relevant
  set.seed(4)
  x <- matrix(rnorm(360), 30, 12)
  fit <- rvm(x, rowSums(x[, 1:6]) / 2 + rnorm(30))
  learned <- fit$kernel$learned
  expect_identical(fit$kernel$width_rule, "learn")
  expect_length(fit$kernel$width, 1L)
  # per-input widths gain 8 nats over one width, less than their BIC price
  # of 11 more parameters over the constant model: (11 / 2) log 30 = 18.7
  expect_gt(diff(learned$logLik_widths), 0)
  expect_lt(diff(learned$logLik_widths), 11 / 2 * log(30))
  expect_equal(unname(learned$logLik), unname(learned$logLik_widths["one"]))
})

test_that("a noise start that fails is left out; only when all fail is the first one's error the user's", {
  y <- 1:10 + 0
  problem <- list(family = gaussian(), noise = "shared", solver = list(control = list(init_lambda = 0.1)), y = y,
                  wo = list(weights = NULL, offset = NULL), in_fit = rep(TRUE, 10),
                  kernels = list(list(width = 1, width_rule = "learn", learned = list(noise_variance = 0.5))))
  candidates <- sparsebayes:::learned_kernel_candidates(problem)
  expect_identical(candidates$labels$noise, c("estimated", "estimated from the GP's", "fixed at the GP's"))
  expect_identical(candidates$by, "evidence")
  ok <- list(logLik = -5, lambda = 1, relevant = 1:2)
  fit_with <- function(fit_one) sparsebayes:::fit_candidates(candidates, fit_one)
  fit <- fit_with(function(p) if (!is.null(p$solver$control$noise_variance)) stop("singular") else ok)
  expect_identical(fit$noise_starts$noise, c("estimated", "estimated from the GP's"))
  fit <- fit_with(function(p) if (is.null(p$solver$control$noise_variance)) stop("singular") else ok)
  expect_identical(fit$noise_starts$noise, "fixed at the GP's")
  expect_true(fit$noise_starts$chosen)
  expect_error(fit_with(function(p) stop(if (is.null(p$solver$control$noise_variance)) "singular" else "other")), "singular")
})

test_that("the fast solver keeps its state at join_at and stops there when it has reached a given one", {
  ns <- asNamespace("sparsebayes")
  set.seed(3)
  x <- matrix(runif(120, -3, 3), 60, 2)
  y <- sin(x[, 1]) + 0.5 * x[, 2] + rnorm(60, sd = 0.2)
  Phi <- cbind(1, exp(-as.matrix(dist(x))^2 / 2))
  solver <- ns$solver_spec("fast", rvm_control())
  fit <- function(join) ns$fit_basis(Phi, y, stats::gaussian(), solver, join = join)
  join <- function(alpha = numeric(0), noise = 0) list(join_at = 12L, join_alpha = alpha, join_noise = noise,
                                                      join_tolerance = 1e-2)
  plain <- fit(NULL)
  first <- fit(join())
  expect_null(plain$checkpoint)
  expect_false(first$checkpoint$joined)
  expect_length(first$checkpoint$alpha, ncol(Phi))
  expect_identical(first$alpha, plain$alpha)  # keeping the state changes nothing
  expect_identical(first$log_evidence, plain$log_evidence)
  cp <- first$checkpoint
  same <- fit(join(cp$alpha, cp$noise))
  expect_true(same$checkpoint$joined)
  expect_identical(same$iterations, 12L)
  for (other in list(join(cp$alpha, cp$noise * 1.05), join(replace(cp$alpha, which(is.finite(cp$alpha))[1L], Inf), cp$noise),
                     join(cp$alpha * 1.05, cp$noise))) {
    apart <- fit(other)
    expect_false(apart$checkpoint$joined)
    expect_identical(apart$log_evidence, plain$log_evidence)
  }
})

test_that("a noise start that joins another's path loses no evidence against running both to the end", {
  ns <- asNamespace("sparsebayes")
  without_joins <- function(expr) {
    old <- mget(c("join_tolerance", "join_tolerance_quiet"), envir = ns)
    for (nm in names(old)) {
      unlockBinding(nm, ns)
      assign(nm, -1, envir = ns)
    }
    on.exit(for (nm in names(old)) assign(nm, old[[nm]], envir = ns))
    expr
  }
  joined <- 0L
  for (seed in 1:6) {
    set.seed(seed)
    n <- 60 + 20 * seed
    x <- matrix(runif(3 * n), n, 3)
    y <- 10 * sin(pi * x[, 1] * x[, 2]) + 5 * x[, 3] + rnorm(n, sd = c(0.3, 1, 2)[seed %% 3 + 1])
    fit <- rvm(x, y)
    full <- without_joins(rvm(x, y))
    starts <- fit$noise_starts
    expect_true(all(is.na(full$noise_starts$joined)))
    joined <- joined + sum(!is.na(starts$joined))
    # a joined start is the fit it joined, and the fit kept is as good as with every start run out
    expect_identical(starts$logLik[!is.na(starts$joined)], starts$logLik[starts$joined[!is.na(starts$joined)]])
    expect_gt(fit$logLik, full$logLik - 1e-3)
    expect_equal(fitted(fit), fitted(full), tolerance = 1e-3)
  }
  expect_gt(joined, 0L)
})

test_that("the default rvm() fits a noiseless surface whose first noise start once failed (mlbench.peak)", {
  skip_if_not_installed("mlbench")
  set.seed(2)
  p <- mlbench::mlbench.peak(300, 4)
  d <- data.frame(x = p$x, y = p$y)
  set.seed(2)
  train <- d[sample(rep(1:5, length.out = 300)) != 3, ]
  # the fast solver's own noise start: the gammas summed past n and the noise
  # turned NaN (a Cholesky error); the noise update now keeps its last value
  fit <- expect_no_error(rvm(y ~ ., data = train))
  expect_true(all(is.finite(fit$noise_starts$logLik)))
  expect_lt(sqrt(mean(residuals(fit)^2)), 0.05 * sd(train$y))
})

test_that("on a response without noise the basis of widths / sqrt(2) is fitted too, and the smaller LOO error kept", {
  surface <- function(n, seed) {
    set.seed(seed)
    d <- data.frame(x1 = runif(n), x2 = runif(n))
    d$y <- sin(6 * d$x1) * cos(4 * d$x2)
    d
  }
  d <- surface(80, 4)
  fit <- rvm(y ~ ., data = d)
  expect_lt(fit$kernel$learned$noise_variance, 0.01 * var(d$y))
  starts <- fit$noise_starts
  expect_identical(unique(starts$basis), c("the GP's widths", "the GP's widths / sqrt(2)"))
  expect_identical(which(starts$chosen), which.min(starts$loo_mse))
  expect_equal(starts$loo_mse[starts$chosen], mean(residuals(fit, type = "loo")^2))
  expect_equal(starts$logLik[starts$chosen], fit$logLik)
  # a smooth surface: the narrow basis (the GP's covariance) is kept
  expect_identical(starts$basis[starts$chosen], "the GP's widths / sqrt(2)")
  expect_equal(unname(fit$kernel$learned$width / sqrt(2)), unname(fit$kernel$width))
  test <- surface(200, 5)
  expect_lt(sqrt(mean((predict(fit, test) - test$y)^2)), 0.02)
  expect_equal(predict(update(fit), test), predict(fit, test))
  # a noisy response keeps the one basis
  noisy <- transform(d, y = y + rnorm(80, sd = 0.3))
  expect_identical(unique(rvm(y ~ ., data = noisy)$noise_starts$basis), "the GP's widths")
})

test_that("equal per-input widths reproduce the one-width fit", {
  set.seed(2)
  x <- matrix(rnorm(120), 40, 3)
  y <- sin(x[, 1]) + x[, 2]^2 / 4 + rnorm(40, sd = 0.1)
  for (type in c("gaussian", "laplace", "cauchy", "lspline", "tpspline")) {
    make <- sparsebayes:::kernel_constructor(type)
    expect_equal(kernel_matrix(make(rep(1.7, 3)), x), kernel_matrix(make(1.7), x), tolerance = 1e-12, info = type)
  }
  a <- rvm(x, y, kernel = kernel_gaussian(2))
  b <- rvm(x, y, kernel = kernel_gaussian(c(2, 2, 2)))
  expect_equal(b$fitted.values, a$fitted.values, tolerance = 1e-10)
  expect_equal(b$logLik, a$logLik, tolerance = 1e-10)
  expect_equal(predict(b, x[1:5, ] + 0.1, interval = "prediction"),
               predict(a, x[1:5, ] + 0.1, interval = "prediction"), tolerance = 1e-10)
  g1 <- sparse_gp(x, y, kernel = kernel_gaussian(2), approx = "exact", optimize = "none", noise_variance = 0.01)
  g3 <- sparse_gp(x, y, kernel = kernel_gaussian(rep(2, 3)), approx = "exact", optimize = "none", noise_variance = 0.01)
  expect_equal(g3$fitted.values, g1$fitted.values, tolerance = 1e-10)
  expect_equal(g3$logLik, g1$logLik, tolerance = 1e-10)
})

test_that("learned widths put irrelevant inputs at widths at least 10 times the relevant ones", {
  for (seed in 1:4) {
    set.seed(seed)
    x <- matrix(runif(150 * 5, -2, 2), 150, 5)
    y <- sin(2 * x[, 1]) + 0.5 * x[, 2]^2 + rnorm(150, sd = 0.1)
    fit <- rvm(x, y, kernel = kernel_gaussian("learn"))
    w <- fit$kernel$width
    expect_length(w, 5L)
    expect_gte(min(w[3:5]) / max(w[1:2]), 10)
    expect_setequal(input_relevance(fit)$input[1:2], c("x1", "x2"))
    g <- sparse_gp(x, y, kernel = kernel_gaussian("learn"), inducing = 20, optimize = "hyper", seed = 1)
    expect_gte(min(g$kernel$width[3:5]) / max(g$kernel$width[1:2]), 10)
  }
})

test_that("learned widths are equivariant under rescaling an input column", {
  set.seed(3)
  x <- matrix(runif(100 * 3, -2, 2), 100, 3)
  y <- sin(2 * x[, 1]) + x[, 2] + 0.5 * x[, 3]^2 + rnorm(100, sd = 0.1)
  x2 <- x
  x2[, 2] <- 10 * x2[, 2]
  a <- rvm(x, y, kernel = kernel_gaussian("learn"), scale = FALSE)
  b <- rvm(x2, y, kernel = kernel_gaussian("learn"), scale = FALSE)
  # exact, not within the optimiser's tolerance: each stage starts and is
  # bounded relative to the columns' spreads
  expect_equal(unname(b$kernel$width / a$kernel$width), c(1, 10, 1), tolerance = 1e-8)
  for (factor in c(1e-3, 1e3)) {
    x3 <- x
    x3[, 1] <- factor * x3[, 1]
    g0 <- sparse_gp(x, y, kernel = kernel_gaussian("learn"), approx = "exact", scale = FALSE)
    g3 <- sparse_gp(x3, y, kernel = kernel_gaussian("learn"), approx = "exact", scale = FALSE)
    expect_equal(unname(g3$kernel$width / g0$kernel$width), c(factor, 1, 1), tolerance = 1e-8)
  }
  # with scale = TRUE (the default) the widths do not move at all
  c1 <- rvm(x, y, kernel = kernel_gaussian("learn"))
  c2 <- rvm(x2, y, kernel = kernel_gaussian("learn"))
  expect_equal(c2$kernel$width, c1$kernel$width, tolerance = 1e-8)
})

test_that("a learned kernel serves predict, update, saveRDS, the formula interface and classification", {
  d <- transform(mtcars, cyl = factor(cyl))
  fit <- rvm(mpg ~ cyl + wt + hp + qsec, data = d, kernel = kernel_gaussian("learn"))
  expect_equal(names(fit$kernel$width), colnames(fit$x))
  expect_identical(fit$kernel$width_rule, "learn")
  expect_equal(unname(predict(fit, d)), unname(fitted(fit)), tolerance = 1e-10)
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  expect_equal(predict(readRDS(path), d[1:3, ]), predict(fit, d[1:3, ]))
  expect_equal(update(fit)$kernel$width, fit$kernel$width)
  expect_s3_class(summary(fit), "summary.sb_rvm")
  expect_output(print(summary(fit)), "Input relevance")
  expect_output(print(fit), "one per input, learned")
  expect_equal(as.data.frame(tidy(fit, what = "inputs")), input_relevance(fit), ignore_attr = "row.names")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_silent(plot(fit, which = "inputs"))
  # classification: binary and multiclass share one kernel
  b <- rvm(am ~ wt + hp + qsec, data = transform(mtcars, am = factor(am)), kernel = kernel_gaussian("learn"))
  expect_length(b$kernel$width, 3L)
  m <- rvm(Species ~ ., data = iris, kernel = kernel_gaussian("learn"))
  expect_length(m$models[[1L]]$kernel$width, 4L)
  expect_lt(mean(predict(m, iris) != iris$Species), 0.1)
  expect_identical(input_relevance(m)$input[4L] %in% colnames(iris)[1:4], TRUE)
})

test_that("sparse_gp() optimises laplace and cauchy kernels, with one width or one per input", {
  d <- gp_toy(n = 60, p = 2, seed = 4)
  for (type in c("laplace", "cauchy")) for (width in c("median", "learn")) {
    # the laplace kernel's bound has local optima here (6 of 20 seeded starts
    # end above 0.75 sd): one random restart, kept if its bound is higher
    fit <- sparse_gp(d$x, d$y, kernel = sparsebayes:::kernel_constructor(type)(width), inducing = 15, seed = 1,
                     restarts = 1)
    expect_true(fit$converged)
    expect_length(fit$kernel$width, if (width == "median") 1L else 2L)
    expect_lt(sqrt(mean((fit$fitted.values - d$f)^2)), 0.75 * sd(d$f))  # a real fit, not the constant
  }
})

test_that("bad width specifications give clear errors", {
  x <- matrix(rnorm(40), 20, 2)
  y <- rnorm(20)
  expect_error(kernel_gaussian(c(1, -1)), "positive and finite in every input column")
  expect_error(kernel_gaussian("wide"), "learn")
  expect_error(rvm(x, y, kernel = kernel_gaussian(c(1, 2, 3))), "3 widths but the kernel sees 2")
  expect_error(kernel_matrix(kernel_gaussian("learn"), x), "chosen when a model is fitted")
  expect_error(kernel_matrix(kernel_gaussian("learn_one"), x), "chosen when a model is fitted")
  expect_error(sparse_gp(x, y, kernel = kernel_gaussian("learn_one"), optimize = "none"), "learn_one")
  expect_error(rvm(x, y, kernel = kernel_lspline("learn")), "learned for a gaussian, laplace or cauchy kernel")
  expect_error(rvm(x, y, kernel = list(kernel_gaussian("learn"), kernel_laplace(1))), "single kernel")
  expect_error(sparse_gp(x, y, kernel = kernel_gaussian("learn"), optimize = "none"), "optimize")
  expect_error(input_relevance(lm(y ~ x)), "rvm\\(\\) or sparse_gp\\(\\)")
  expect_error(sparsebayes:::.sb_kernel_design(unclass(kernel_gaussian(c(1, 2, 3))), x, x, FALSE, 1L),
               "3 input widths but the inputs have 2 columns")
})

test_that("a classifier's one learned width survives what users do to data", {
  set.seed(11)
  n <- 120
  x <- cbind(a = runif(n, -2, 2), b = runif(n, -2, 2), c = runif(n, -2, 2))
  cls <- factor(ifelse(runif(n) < plogis(3 * sin(1.5 * x[, "a"]) + x[, "b"]), "yes", "no"))
  fit <- rvm(x, cls)
  width <- fit$kernel$width
  expect_equal(rvm(x, cls, kernel = kernel_gaussian("learn_one"))$kernel$width, width)
  # the width is in units of the standardised inputs: rescaling a column leaves it and the fit alone
  scaled <- rvm(x * rep(c(1, 1e3, 1e-3), each = n), cls)
  expect_equal(scaled$kernel$width, width, tolerance = 1e-6)
  expect_equal(predict(scaled, x * rep(c(1, 1e3, 1e-3), each = n), type = "prob"),
               predict(fit, x, type = "prob"), tolerance = 1e-6)
  # copies of every row are pooled, and constant weights learn what no weights learn: the same
  # width in the inputs' units (in standard units it moves with the replicated rows' sd)
  in_units <- function(f) f$kernel$width * f$scaling$scale
  expect_equal(in_units(rvm(rbind(x, x), factor(c(cls, cls), labels = levels(cls)))), in_units(fit), tolerance = 1e-6)
  expect_equal(in_units(rvm(x, cls, weights = rep(3, n))), in_units(fit), tolerance = 1e-6)
  # a constant column is ignored; too few rows fall back to the median heuristic
  expect_true(is.finite(rvm(cbind(x, k = 1), cls)$kernel$width[1L]))
  expect_null(rvm(x[1:4, ], factor(c("u", "v", "u", "v")))$kernel$width_rule)
  # K classes share one learned width
  multi <- rvm(Species ~ ., data = iris)
  widths <- vapply(multi$models, function(m) m$kernel$width, numeric(1))
  expect_length(unique(widths), 1L)
  expect_identical(multi$models[[1L]]$kernel$width_rule, "learn")
  expect_equal(unname(rowSums(predict(multi, iris, type = "prob"))), rep(1, 150), tolerance = 1e-12)
  # a sparse GP with one learned width keeps one width
  y <- sin(2 * x[, "a"]) + rnorm(n, sd = 0.1)
  expect_length(sparse_gp(x, y, kernel = kernel_gaussian("learn_one"), inducing = 10, seed = 1)$kernel$width, 1L)
})
