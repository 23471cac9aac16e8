# Sparse GPs: objective, gradients and posterior against dense formulas;
# the relations between VFE, FITC and exact; LOO and leverage; interfaces
# and errors.

test_that("the objective equals a dense implementation for VFE, FITC and exact", {
  for (p in 1:2) {
    d <- gp_toy(35, p)
    r <- d$y - mean(d$y)
    z <- d$x[seq(1, 35, by = 5), , drop = FALSE] + 0.13
    for (approx in c("VFE", "FITC", "exact")) {
      got <- cpp_gp_objective(d$x, r, z, 1.2, 0.7, 0.04, approx)$value
      want <- dense_gp_objective(d$x, r, z, 1.2, 0.7, 0.04, approx)
      expect_equal(got, want, tolerance = 1e-8, info = paste(approx, "p =", p))
    }
  }
})

test_that("the VFE bound never exceeds the exact log marginal likelihood", {
  d <- gp_toy(40)
  r <- d$y - mean(d$y)
  exact <- cpp_gp_objective(d$x, r, NULL, 0.9, 1.1, 0.05, "exact")$value
  set.seed(11)
  for (m in c(2, 5, 10, 20)) {
    z <- matrix(runif(m, -3, 3))
    expect_gte(cpp_gp_objective(d$x, r, z, 0.9, 1.1, 0.05, "VFE")$value, exact)
  }
})

test_that("inducing points at the data make VFE and FITC exact", {
  d <- gp_toy(25)
  r <- d$y - mean(d$y)
  exact <- cpp_gp_objective(d$x, r, NULL, 1, 1, 0.1, "exact", jitter = 0)$value
  for (approx in c("VFE", "FITC"))
    expect_equal(cpp_gp_objective(d$x, r, d$x, 1, 1, 0.1, approx, jitter = 1e-12)$value, exact,
                 tolerance = 1e-6, info = approx)
  # ... and through sparse_gp(): same likelihood and predictions.
  k <- kernel_gaussian(1, 1)
  ex <- sparse_gp(d$x, d$y, kernel = k, approx = "exact", noise_variance = 0.1, optimize = "none", scale = FALSE)
  xt <- matrix(seq(-3, 3, length.out = 7))
  for (approx in c("VFE", "FITC")) {
    sp <- sparse_gp(d$x, d$y, kernel = k, inducing = d$x, approx = approx, noise_variance = 0.1, optimize = "none",
                    scale = FALSE, control = sparse_gp_control(jitter = 1e-12))
    expect_equal(sp$logLik, ex$logLik, tolerance = 1e-6, info = approx)
    expect_equal(predict(sp, xt, interval = "prediction"), predict(ex, xt, interval = "prediction"),
                 tolerance = 1e-5, info = approx)
  }
})

test_that("analytic gradients match finite differences, inducing locations included", {
  for (p in 1:2) {
    d <- gp_toy(30, p, seed = 5)
    r <- d$y - mean(d$y)
    z <- d$x[c(2, 9, 14, 20, 27), , drop = FALSE] + 0.07
    for (approx in c("VFE", "FITC", "exact")) {
      th <- c(log(0.8), log(1.5), log(0.03), if (approx != "exact") as.vector(z))
      f <- function(t) {
        zz <- if (approx == "exact") NULL else matrix(t[-(1:3)], nrow(z))
        cpp_gp_objective(d$x, r, zz, exp(t[1]), exp(t[2]), exp(t[3]), approx, gradient = FALSE)$value
      }
      fd <- vapply(seq_along(th), function(i) {
        h <- 1e-5
        (f(replace(th, i, th[i] + h)) - f(replace(th, i, th[i] - h))) / (2 * h)
      }, numeric(1))
      g <- cpp_gp_objective(d$x, r, if (approx == "exact") NULL else z, 0.8, 1.5, 0.03, approx)$gradient
      expect_equal(g, fd, tolerance = 1e-6, info = paste(approx, "p =", p))
    }
  }
})

test_that("the exact GP's blocked inverse gives the dense gradient and leverages over several blocks", {
  # n = 150 spans three 64-column blocks of the in-place inverse, the last
  # one partial; a shared workspace (reused across sizes) changes nothing
  for (kernel in list(kernel_gaussian(c(0.9, 1.4), 1.3), kernel_cauchy(1.1, 0.8), kernel_laplace(c(1.2, 2), 1))) {
    d <- gp_toy(150, 2, seed = 8)
    r <- d$y - mean(d$y)
    k <- unclass(kernel)
    none <- matrix(0, 0, 2)
    exact_value <- sparsebayes:::gp_settings("exact", 0, FALSE)
    f <- function(t) {
      kt <- k
      kt$width <- exp(t[seq_along(k$width)])
      kt$variance <- exp(t[length(k$width) + 1])
      sparsebayes:::.sb_gp_objective(kt, exp(t[length(t)]), d$x, r, none, numeric(0), exact_value)$value
    }
    th <- c(log(k$width), log(k$variance), log(0.05))
    fd <- vapply(seq_along(th), function(i) {
      h <- 1e-5
      (f(replace(th, i, th[i] + h)) - f(replace(th, i, th[i] - h))) / (2 * h)
    }, numeric(1))
    ws <- sparsebayes:::.sb_gp_workspace()
    exact_gradient <- sparsebayes:::gp_settings("exact", 0, TRUE)
    small <- sparsebayes:::.sb_gp_objective(k, 0.05, d$x[1:70, ], r[1:70], none, numeric(0), exact_gradient, ws)
    g <- sparsebayes:::.sb_gp_objective(k, 0.05, d$x, r, none, numeric(0), exact_gradient)
    again <- sparsebayes:::.sb_gp_objective(k, 0.05, d$x, r, none, numeric(0), exact_gradient, ws)
    expect_equal(g$gradient, fd, tolerance = 1e-6, info = kernel$type)
    expect_identical(again, g)
    S <- kernel_matrix(kernel, d$x, d$x) + diag(0.05, 150)
    post <- sparsebayes:::.sb_gp_posterior(k, 0.05, d$x, r, none, numeric(0), "exact", 0)
    expect_equal(post$pi_diag, diag(solve(S)), tolerance = 1e-10, info = kernel$type)
    expect_equal(post$chol[upper.tri(post$chol)], rep(0, 150 * 149 / 2))
  }
})

test_that("predictions equal the dense sparse-GP predictive", {
  d <- gp_toy(40)
  z <- matrix(c(-2.5, -1, 0, 1.2, 2.4))
  for (approx in c("VFE", "FITC")) {
    fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(0.8, 1.3), inducing = z, approx = approx, noise_variance = 0.05,
                     optimize = "none", scale = FALSE)
    xt <- matrix(seq(-3, 3, length.out = 9))
    Kuu <- gp_k(z, z, 0.8, 1.3) + diag(1e-6 * 1.3, 5)
    Kuf <- gp_k(z, d$x, 0.8, 1.3)
    Ksu <- gp_k(xt, z, 0.8, 1.3)
    Q <- t(Kuf) %*% solve(Kuu, Kuf)
    lam <- if (approx == "FITC") pmax(1.3 - diag(Q), 0) + 0.05 else rep(0.05, 40)
    Sig <- solve(Kuu + Kuf %*% (t(Kuf) / lam))
    mu <- mean(d$y) + Ksu %*% Sig %*% Kuf %*% ((d$y - mean(d$y)) / lam)
    v <- 1.3 - rowSums((Ksu %*% solve(Kuu)) * Ksu) + rowSums((Ksu %*% Sig) * Ksu)
    pr <- predict(fit, xt, se.fit = TRUE)
    expect_equal(pr$fit, drop(mu), tolerance = 1e-8, info = approx)
    expect_equal(pr$se.fit, sqrt(v), tolerance = 1e-6, info = approx)
    expect_equal(fit$logLik, -dense_gp_objective(d$x, d$y - mean(d$y), z, 0.8, 1.3, 0.05, approx), tolerance = 1e-8)
  }
})

test_that("q(u) of VFE equals the predictive at the inducing points and Titsias' formula", {
  d <- gp_toy(40)
  z <- matrix(c(-2, -0.5, 0.7, 2.2))
  fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(1, 0.9), inducing = z, noise_variance = 0.04, optimize = "none",
                   scale = FALSE, control = sparse_gp_control(jitter = 0))
  for (approx in c("VFE", "FITC")) {
    f <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(1, 0.9), inducing = z, noise_variance = 0.04, optimize = "none",
                   approx = approx, scale = FALSE, control = sparse_gp_control(jitter = 0))
    lat <- sparsebayes:::gp_latent(f, z, full_cov = TRUE)
    expect_equal(lat$mean - f$mean, f$qu_mean, tolerance = 1e-8, info = approx)
    expect_equal(lat$cov, f$qu_cov, tolerance = 1e-8, info = approx)
    expect_equal(predict(f, z, se.fit = TRUE)$se.fit, sqrt(diag(f$qu_cov)), tolerance = 1e-6, info = approx)
  }
  Kuu <- gp_k(z, z, 1, 0.9)
  Kuf <- gp_k(z, d$x, 1, 0.9)
  S <- solve(Kuu + Kuf %*% t(Kuf) / 0.04)
  expect_equal(fit$qu_mean, drop(Kuu %*% S %*% Kuf %*% (d$y - mean(d$y))) / 0.04, tolerance = 1e-7)
  expect_equal(fit$qu_cov, Kuu %*% S %*% Kuu, tolerance = 1e-7)
})

test_that("95% prediction intervals cover about 95% of held-out points", {
  set.seed(21)
  f <- function(x) sin(x) / x
  xtr <- runif(400, -10, 10)
  ytr <- f(xtr) + rnorm(400, sd = 0.1)
  xte <- runif(1000, -10, 10)
  yte <- f(xte) + rnorm(1000, sd = 0.1)
  for (approx in c("VFE", "FITC")) {
    # FITC's inducing points collapse and it reaches maxit: a warning, expected here
    fit <- suppressWarnings(sparse_gp(xtr, ytr, inducing = 20, approx = approx, seed = 1))
    pr <- predict(fit, xte, interval = "prediction")
    cover <- mean(yte >= pr[, "lwr"] & yte <= pr[, "upr"])
    expect_gte(cover, 0.90)
    expect_lte(cover, 0.99)
    expect_lt(sqrt(mean((pr[, "fit"] - f(xte))^2)), 0.05)
  }
})

test_that("LOO residuals equal brute-force refits with the hyperparameters fixed", {
  d <- gp_toy(20, seed = 8)
  z <- matrix(c(-2.2, -0.8, 0.4, 1.9))
  k <- kernel_gaussian(0.9, 1.2)
  ybar <- mean(d$y)
  for (approx in c("VFE", "FITC", "exact")) {
    fit <- sparse_gp(d$x, d$y, kernel = k, inducing = z, approx = approx, noise_variance = 0.05, optimize = "none",
                     scale = FALSE)
    brute <- vapply(seq_len(20), function(i) {
      # refit on the other 19 points: the predictive mean of the dense model
      # at x_i (Q_if (Q_ff + Lambda)^-1 r, K for exact), mean held fixed
      xi <- d$x[-i, , drop = FALSE]
      if (approx == "exact") {
        Kx <- gp_k(d$x[i, , drop = FALSE], xi, 0.9, 1.2)
        S <- gp_k(xi, xi, 0.9, 1.2) + diag(0.05, 19)
      } else {
        Kuu <- gp_k(z, z, 0.9, 1.2) + diag(1.2e-6, 4)
        Kuf <- gp_k(z, xi, 0.9, 1.2)
        Q <- t(Kuf) %*% solve(Kuu, Kuf)
        lam <- if (approx == "FITC") pmax(1.2 - diag(Q), 0) + 0.05 else rep(0.05, 19)
        S <- Q + diag(lam)
        Kx <- gp_k(d$x[i, , drop = FALSE], z, 0.9, 1.2) %*% solve(Kuu, Kuf)
      }
      d$y[i] - ybar - drop(Kx %*% solve(S, d$y[-i] - ybar))
    }, numeric(1))
    expect_equal(residuals(fit, type = "loo"), brute, tolerance = 1e-7, info = approx)
  }
  # and a refit through sparse_gp() itself when the left-out response
  # equals the mean (so the refit's mean is unchanged)
  y <- d$y
  y[7] <- mean(y[-7])
  fit <- sparse_gp(d$x, y, kernel = k, inducing = z, noise_variance = 0.05, optimize = "none", scale = FALSE)
  refit <- sparse_gp(d$x[-7, , drop = FALSE], y[-7], kernel = k, inducing = z, noise_variance = 0.05, optimize = "none",
                     scale = FALSE)
  expect_equal(residuals(fit, type = "loo")[7], y[7] - predict(refit, d$x[7, , drop = FALSE]), tolerance = 1e-8)
})

test_that("exact predictions equal the dense GP predictive, in original input units", {
  d <- gp_toy(30)
  fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(0.7, 1.1), approx = "exact", noise_variance = 0.05, optimize = "none")
  xs <- (d$x - mean(d$x)) / sd(d$x)
  xt <- matrix(c(-2, 0.3, 2.9))
  xts <- (xt - mean(d$x)) / sd(d$x)
  S <- gp_k(xs, xs, 0.7, 1.1) + diag(0.05, 30)
  Ks <- gp_k(xts, xs, 0.7, 1.1)
  pr <- predict(fit, xt, se.fit = TRUE)
  expect_equal(pr$fit, drop(mean(d$y) + Ks %*% solve(S, d$y - mean(d$y))), tolerance = 1e-8)
  expect_equal(pr$se.fit, sqrt(1.1 - rowSums((Ks %*% solve(S)) * Ks)), tolerance = 1e-7)
  # inducing locations given in input units come back in input units
  Z <- matrix(c(-2, -1, 0.5, 2))
  sp <- sparse_gp(d$x, d$y, inducing = Z, optimize = "hyper")
  expect_equal(unname(sp$inducing), Z)
  expect_equal(unname(sp$inducing_scaled), (Z - mean(d$x)) / sd(d$x))
})

test_that("hatvalues are leverages of the fitted latent mean", {
  d <- gp_toy(30)
  fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(1, 1), approx = "exact", noise_variance = 0.1, optimize = "none",
                   scale = FALSE)
  K <- gp_k(d$x, d$x, 1, 1)
  H <- K %*% solve(K + diag(0.1, 30))
  expect_equal(hatvalues(fit), diag(H), tolerance = 1e-8)
  expect_equal(fit$fitted.values, drop(mean(d$y) + H %*% (d$y - mean(d$y))), tolerance = 1e-8)
  for (approx in c("VFE", "FITC")) {
    sp <- sparse_gp(d$x, d$y, inducing = 8, approx = approx, seed = 2)
    h <- hatvalues(sp)
    expect_true(all(h > 0 & h < 1), info = approx)
    expect_lte(sum(h), 8 + 1e-8)  # rank of Q_ff is at most m
    expect_equal(residuals(sp, "loo"), residuals(sp) / (1 - h), tolerance = 1e-8, info = approx)
  }
})

test_that("optimisation increases the objective and recovers the noise", {
  set.seed(4)
  x <- runif(300, -10, 10)
  y <- sin(x) / x + rnorm(300, sd = 0.1)
  start <- sparse_gp(x, y, inducing = 15, optimize = "none", seed = 1)
  hyper <- sparse_gp(x, y, inducing = 15, optimize = "hyper", seed = 1)
  all <- sparse_gp(x, y, inducing = 15, optimize = "all", seed = 1)
  expect_gt(hyper$logLik, start$logLik)
  expect_gte(all$logLik, hyper$logLik - 1e-6)
  expect_equal(sqrt(all$noise_variance), 0.1, tolerance = 0.15)
  expect_equal(hyper$inducing, start$inducing)
  expect_true(all$converged)
  ex <- sparse_gp(x, y, approx = "exact")
  expect_lte(all$logLik, ex$logLik + 1e-6)
  expect_equal(all$logLik, ex$logLik, tolerance = 1e-3)
  # restarts keep the best start
  re <- sparse_gp(x, y, inducing = 15, optimize = "hyper", restarts = 2, seed = 1)
  expect_length(re$restart_values, 3L)
  expect_equal(re$logLik, max(re$restart_values), tolerance = 1e-10)
  # a fixed noise stays fixed
  fx <- sparse_gp(x, y, inducing = 15, noise_variance = 0.02, seed = 1)
  expect_identical(fx$noise_variance, 0.02)
})

test_that("fits are deterministic and leave the caller's random stream alone", {
  d <- gp_toy(60)
  set.seed(99)
  before <- .Random.seed
  a <- sparse_gp(d$x, d$y, inducing = 6, optimize = "hyper")
  expect_identical(.Random.seed, before)
  b <- sparse_gp(d$x, d$y, inducing = 6, optimize = "hyper")
  expect_identical(a$inducing, b$inducing)
  c1 <- sparse_gp(d$x, d$y, inducing = 6, seed = 5, optimize = "none")
  c2 <- sparse_gp(d$x, d$y, inducing = 6, seed = 5, optimize = "none")
  expect_identical(c1$inducing, c2$inducing)
  expect_identical(.Random.seed, before)
})

test_that("formula and matrix interfaces give the same fit; objects survive saveRDS", {
  dat <- transform(data.frame(gp_toy(50, 2)$x, y = gp_toy(50, 2)$y))
  names(dat)[1:2] <- c("a", "b")
  f1 <- sparse_gp(y ~ a + b, data = dat, inducing = 7, seed = 3)
  X <- as.matrix(dat[, c("a", "b")])
  f2 <- sparse_gp(X, dat$y, inducing = 7, seed = 3)
  expect_identical(f1$logLik, f2$logLik)
  expect_identical(coef(f1), coef(f2))
  expect_identical(unname(f1$inducing), unname(f2$inducing))
  expect_identical(unname(fitted(f1)), unname(fitted(f2)))
  expect_identical(unname(hatvalues(f1)), unname(hatvalues(f2)))
  nd <- data.frame(a = c(0, 1, NA), b = c(1, -1, 0))
  p1 <- predict(f1, nd, interval = "confidence")
  expect_equal(unname(p1[1:2, ]), unname(predict(f2, as.matrix(nd[1:2, ]), interval = "confidence")))
  expect_true(all(is.na(p1[3, ])))
  path <- tempfile(fileext = ".rds")
  saveRDS(f1, path)
  f3 <- readRDS(path)
  expect_identical(predict(f3, nd, se.fit = TRUE), predict(f1, nd, se.fit = TRUE))
  expect_identical(hatvalues(f3), hatvalues(f1))
})

test_that("methods return the documented shapes", {
  d <- gp_toy(50)
  fit <- sparse_gp(d$x, d$y, inducing = 8, seed = 1)
  expect_named(coef(fit), c("(mean)", "width", "variance", "noise"))
  ll <- logLik(fit)
  expect_equal(as.numeric(ll), fit$logLik)
  expect_equal(attr(ll, "df"), 1 + 3 + 8)
  expect_equal(nobs(fit), 50L)
  expect_equal(fitted(fit), predict(fit))
  expect_equal(residuals(fit, "pearson"), residuals(fit) / sqrt(fit$noise_variance))
  pr <- predict(fit, c(0, 1), interval = "prediction", se.fit = TRUE)
  expect_named(pr, c("fit", "se.fit", "df", "residual.scale"))
  expect_equal(colnames(pr$fit), c("fit", "lwr", "upr"))
  ci <- predict(fit, c(0, 1), interval = "confidence", level = 0.9)
  expect_true(all(pr$fit[, "upr"] - pr$fit[, "lwr"] > ci[, "upr"] - ci[, "lwr"]))
  expect_output(print(fit), "VFE")
  expect_output(print(summary(fit)), "Hyperparameters")
  expect_identical(summary(fit)$criterion, "ELBO")
  expect_identical(summary(fit)$objective, "ELBO")  # the former name, kept for one release
  expect_output(print(sparse_gp_control()), "maxit")
  pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  expect_invisible(plot(fit, ylim = c(-3, 3), xlab = "input"))  # the caller's arguments override the defaults
  # several inputs: the two panels of rvm()'s and ard()'s plot (fitted against observed, residuals against fitted)
  panels <- function(draw) {
    grDevices::dev.control("enable")
    draw
    sum(vapply(grDevices::recordPlot()[[1L]], function(e) identical(e[[2L]][[1L]]$name, "C_plot_new"), logical(1)))
  }
  toy <- gp_toy(40, 2)
  expect_identical(panels(plot(sparse_gp(toy$x, toy$y, inducing = 5, seed = 1))), 2L)
  expect_identical(panels(plot(rvm(toy$x, toy$y))), 2L)
  # laplace and cauchy kernels with fixed hyperparameters
  lp <- sparse_gp(d$x, d$y, kernel = kernel_laplace(1), inducing = 8, optimize = "none", noise_variance = 0.04, seed = 1)
  expect_equal(lp$logLik, -dense_gp_objective_kernel(d$x, d$y, lp), tolerance = 1e-8)
})

test_that("bad inputs give clear errors", {
  d <- gp_toy(30)
  x <- d$x
  y <- d$y
  expect_error(sparse_gp(x, y, approx = "SoR"), "`approx` must be one of")
  expect_error(outliers(sparse_gp(x, y, inducing = 5, seed = 1)), "`object` is a sparse GP.*noise = \"student\"")
  expect_error(sparse_gp(x, y, optimize = "some"), "`optimize` must be one of")
  expect_error(sparse_gp(x, y[-1]), "`y` has length 29")
  expect_error(sparse_gp(x, factor(y > 0)), "`y` must be numeric: sparse_gp\\(\\) is for regression")
  expect_error(sparse_gp(x, rep(1, 30)), "`y` is constant")
  expect_error(sparse_gp(x, replace(y, 3, NA)), "`y` contains NA")
  expect_error(sparse_gp(replace(x, 2, Inf), y), "`x` contains infinite")
  expect_error(sparse_gp(x, y, inducing = 31),
               "`inducing` asks for 31 inducing points but the inputs have only 30 distinct rows \\(of 30 observations\\)")
  expect_error(sparse_gp(x, y, inducing = 0), "`inducing` must be >= 1")
  expect_error(sparse_gp(x, y, inducing = 2.5), "`inducing` must be a whole number")
  expect_error(sparse_gp(x, y, inducing = "ten"), "`inducing` must be a number of inducing points or a matrix")
  expect_error(sparse_gp(x, y, inducing = matrix(0, 3, 2)), "`inducing` has 2 columns but the inputs have 1")
  expect_error(sparse_gp(x, y, inducing = matrix(NA_real_, 3, 1)), "`inducing` contains NA")
  expect_error(sparse_gp(rep(c(1, 2), 15), y, inducing = 5), "only 2 distinct rows")
  # exact copies of rows are pooled before the inducing points are placed: the message counts the distinct
  # inputs against the observations, not the pooled rows (issue 61: "only 132 observations" of 133)
  expect_error(sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 500),
               "asks for 500 inducing points but the inputs have only 94 distinct rows \\(of 133 observations\\)")
  # the default number is capped at the distinct rows (a given one is not),
  # before those K_uu cannot tell apart are dropped
  few <- sparse_gp(eruptions ~ waiting, data = faithful[1:120, ])
  expect_equal(few$learned$inducing[["asked"]], sum(!duplicated(faithful$waiting[1:120])))
  expect_error(sparse_gp(x, y, noise_variance = -1), "`noise_variance` must be >")
  expect_error(sparse_gp(x, y, noise_variance = c(1, 2)), "`noise_variance` must be a single finite number")
  expect_error(sparse_gp(x, y, restarts = -1), "`restarts` must be >= 0")
  expect_error(sparse_gp(x, y, seed = "a"), "`seed` must be a single finite number")
  expect_error(sparse_gp(x, y, scale = NA), "`scale` must be TRUE or FALSE")
  expect_error(sparse_gp(x, y, kernel = kernel_polynomial()), "must be a gaussian, laplace or cauchy kernel")
  expect_error(sparse_gp(x, y, kernel = "nope"), "`kernel` must be one of")
  expect_error(sparse_gp(x, y, control = list(maxit = 0)), "`maxit` must be >= 1")
  expect_error(sparse_gp(x, y, control = list(max_it = 5)), "unknown setting\\(s\\) max_it")
  expect_error(sparse_gp(x, y, control = "fast"), "`control` must be made by sparse_gp_control")
  expect_error(sparse_gp(x, y, approx = "exact", control = sparse_gp_control(exact_max_n = 10)),
               "exceeds control\\$exact_max_n = 10")
  expect_error(sparse_gp(x, y, foo = 1), "unknown argument\\(s\\): `foo`")
  expect_error(sparse_gp(~ x), "`formula` has no response")
  expect_error(sparse_gp_control(maxit = 0), "`maxit` must be >= 1")
  expect_error(sparse_gp_control(jitter = -1), "`jitter` must be >= 0")
  expect_error(sparse_gp_control(verbose = "yes"), "`verbose` must be TRUE or FALSE")
  expect_error(sparse_gp_control(noise_lower = 0), "`noise_lower` must be >")
  fit <- sparse_gp(x, y, inducing = 5, seed = 1)
  expect_error(predict(fit, matrix(0, 2, 2)), "`newdata` has 2 columns but the model was fitted with 1")
  expect_error(predict(fit, interval = "both"), "`interval` must be one of")
  expect_error(predict(fit, 1, level = 1), "`level` must be below 1")
  expect_error(predict(fit, 1, se.fit = "yes"), "`se.fit` must be TRUE or FALSE")
  expect_error(residuals(fit, type = "deviance"), "`type` must be one of")
  expect_error(vcov(fit), "no covariance matrix of its hyperparameters")
  expect_error(plot(fit, level = 2), "`level` must be >")
  # the core rejects what the R layer would never send, with a message
  expect_error(cpp_gp_objective(x, y, x[1:3, , drop = FALSE], 1, 1, -1, "VFE"), "noise variance must be positive")
  expect_error(cpp_gp_objective(x, y, x[1:3, , drop = FALSE], 1, 1, 0.1, "SoR"), "unknown approximation")
})

test_that("coincident inducing points are factorised with jitter, and it is recorded", {
  d <- gp_toy(40)
  z <- matrix(c(-1, -1, -1, 1, 2))
  fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(1, 1), inducing = z, noise_variance = 0.05, optimize = "none",
                   scale = FALSE, control = sparse_gp_control(jitter = 0))
  expect_gt(fit$jitter_events, 0L)
  pr <- predict(fit, matrix(seq(-3, 3, length.out = 5)), se.fit = TRUE)
  expect_true(all(is.finite(pr$fit)) && all(pr$se.fit >= 0))
  # three copies of a point carry what one carries
  one <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(1, 1), inducing = z[3:5, , drop = FALSE], noise_variance = 0.05,
                   optimize = "none", scale = FALSE, control = sparse_gp_control(jitter = 0))
  expect_equal(fit$logLik, one$logLik, tolerance = 1e-5)
  expect_output(print(summary(fit)), "Jitter retries")
})

test_that("objective and gradients hold when n spans several blocks of the C++ loop", {
  d <- gp_toy(4500, 2, seed = 9)
  r <- d$y - mean(d$y)
  z <- d$x[c(5, 700, 1900, 2600, 3300, 4400), ]
  for (approx in c("VFE", "FITC")) {
    o <- cpp_gp_objective(d$x, r, z, 1.1, 0.9, 0.05, approx)
    expect_equal(o$value, woodbury_gp_objective(d$x, r, z, 1.1, 0.9, 0.05, approx), tolerance = 1e-9, info = approx)
    th <- c(log(1.1), log(0.9), log(0.05), as.vector(z))
    f <- function(t) cpp_gp_objective(d$x, r, matrix(t[-(1:3)], 6), exp(t[1]), exp(t[2]), exp(t[3]), approx,
                                      gradient = FALSE)$value
    check <- c(1:3, 4, 9, 15)  # the hyperparameters and some coordinates
    fd <- vapply(check, function(i) {
      h <- 1e-5
      (f(replace(th, i, th[i] + h)) - f(replace(th, i, th[i] - h))) / (2 * h)
    }, numeric(1))
    expect_equal(o$gradient[check], fd, tolerance = 1e-5, info = approx)
  }
})

test_that("verbose fits report the optimiser's progress", {
  d <- gp_toy(40)
  expect_output(sparse_gp(d$x, d$y, inducing = 5, seed = 1, control = sparse_gp_control(verbose = TRUE)), "iter")
})

test_that("ess() of a GP scores samples by their likelihood precision", {
  set.seed(3)
  x <- runif(200, -5, 5)
  y <- sin(x) + rnorm(200, sd = 0.1)
  vfe <- sparse_gp(x, y, inducing = 8, approx = "VFE", optimize = "none", seed = 1)
  fitc <- sparse_gp(x, y, inducing = 8, approx = "FITC", optimize = "none", seed = 1)
  expect_equal(ess(vfe), 1)
  expect_equal(ess(fitc), ess(1 / fitc$Lambda))
  expect_lt(ess(fitc), 1)
  expect_error(ess(vfe, which = "weights"), "no weights.*sum\\(hatvalues")
})

test_that("case weights: gradients match finite differences and the objective is the dense one", {
  d <- gp_toy(30, 1, seed = 6)
  r <- d$y - mean(d$y)
  w <- rep(c(0.5, 1, 2, 3), length.out = 30)
  z <- d$x[c(3, 10, 17, 25), , drop = FALSE] + 0.05
  for (approx in c("VFE", "FITC", "exact")) {
    th <- c(log(0.7), log(1.2), log(0.05), if (approx != "exact") as.vector(z))
    f <- function(t) {
      zz <- if (approx == "exact") NULL else matrix(t[-(1:3)], nrow(z))
      cpp_gp_objective(d$x, r, zz, exp(t[1]), exp(t[2]), exp(t[3]), approx, gradient = FALSE, weights = w)$value
    }
    fd <- vapply(seq_along(th), function(i) {
      h <- 1e-5
      (f(replace(th, i, th[i] + h)) - f(replace(th, i, th[i] - h))) / (2 * h)
    }, numeric(1))
    g <- cpp_gp_objective(d$x, r, if (approx == "exact") NULL else z, 0.7, 1.2, 0.05, approx, weights = w)$gradient
    expect_equal(g, fd, tolerance = 1e-6, info = approx)
    # Dense: -log N(r | 0, Q + Lam) + tr(W (K - Q)) / (2 s2n), Lam = s2n W^-1 (+ FITC's diagonal).
    K <- sparsebayes::kernel_matrix(d$x, kernel = kernel_gaussian(0.7, 1.2))
    Q <- if (approx == "exact") K else {
      Kfu <- sparsebayes::kernel_matrix(d$x, z, kernel = kernel_gaussian(0.7, 1.2))
      Kuu <- sparsebayes::kernel_matrix(z, kernel = kernel_gaussian(0.7, 1.2)) + diag(1e-6 * 1.2, nrow(z))
      Kfu %*% solve(Kuu, t(Kfu))
    }
    lam <- 0.05 / w + if (approx == "FITC") pmax(diag(K) - diag(Q), 0) else 0
    dense <- -mvn_log_density(r, Q + diag(lam)) + if (approx == "VFE") sum(w * (diag(K) - diag(Q))) / (2 * 0.05) else 0
    dense <- dense + (sum(w) - 30) * log(2 * pi * 0.05) / 2 + sum(log(w)) / 2  # as replicated rows
    expect_equal(f(th), dense, tolerance = 1e-6, info = approx)
  }
})

test_that("integer case weights act like replicated rows", {
  # A weight w_i is a noise variance noise / w_i counted w_i times, so the
  # posterior, the evidence and the estimated hyperparameters are those of
  # replicated rows. FITC is left out: its correction diag(K - Q) is
  # independent per row, so a replicated row is not a row with less noise.
  d <- gp_toy(25, 1, seed = 8)
  w <- rep(1, 25)
  w[c(4, 11)] <- c(2, 3)
  rows <- c(seq_len(25), 4, 11, 11)
  at <- matrix(c(-2, 0, 1.5))
  for (approx in c("exact", "VFE")) {
    z <- if (approx == "exact") 10 else d$x[c(2, 8, 14, 20), , drop = FALSE]
    fixed <- list(kernel = kernel_gaussian(0.8, 1.1), approx = approx, inducing = z, noise_variance = 0.04,
                  optimize = "none", scale = FALSE)
    weighted <- do.call(sparse_gp, c(list(d$x, d$y, weights = w), fixed))
    replicated <- do.call(sparse_gp, c(list(d$x[rows, , drop = FALSE], d$y[rows]), fixed))
    expect_equal(predict(weighted, at, se.fit = TRUE)[1:2], predict(replicated, at, se.fit = TRUE)[1:2],
                 tolerance = 1e-8, info = approx)
    expect_equal(unname(fitted(weighted)), unname(fitted(replicated)[1:25]), tolerance = 1e-8, info = approx)
    expect_equal(weighted$logLik, replicated$logLik, tolerance = 1e-10, info = approx)
    tuned <- list(approx = approx, inducing = z, optimize = "hyper", scale = FALSE,
                  control = sparse_gp_control(factr = 1e8))
    weighted <- do.call(sparse_gp, c(list(d$x, d$y, weights = w), tuned))
    replicated <- do.call(sparse_gp, c(list(d$x[rows, , drop = FALSE], d$y[rows]), tuned))
    # The same objective from the same start (the variance of the replicated
    # rows), to the optimiser's tolerance (2e-8 nats per observation an iteration)
    expect_equal(weighted$logLik, replicated$logLik, tolerance = 1e-6, info = approx)
    expect_equal(weighted$noise_variance, replicated$noise_variance, tolerance = 1e-3, info = approx)  # to the optimiser's tolerance
  }
  fit <- sparse_gp(d$x, d$y, weights = w, inducing = 5, seed = 1)
  # the noise is that of a row of average weight (weight_unit)
  expect_equal(fit$weight_unit, mean(w))
  expect_equal(residuals(fit, type = "pearson"), fit$residuals / sqrt(fit$noise_variance * mean(w) / w))
  expect_error(sparse_gp(d$x, d$y, weights = rep(0, 25)), "`weights` are all zero")
  expect_error(sparse_gp(d$x, d$y, weights = rep(-1, 25)), "`weights` must be non-negative")
  expect_error(sparse_gp(d$x, d$y, weights = 1:3), "`weights` has length 3")
})

test_that("predictive variances are sums of squares: >= 0 with no clamp, far away, at the inducing and training points", {
  # An ill-conditioned case: 60 inducing points at the 60 training inputs,
  # no jitter, noise 1e-8. The former k** - k' V k form went to -1.7e-4
  # (VFE), -4e-5 (FITC) and -3e-8 (exact) here before its clamp at 0.
  set.seed(2)
  x <- sort(runif(60, -3, 3))
  y <- sin(2 * x) + rnorm(60, sd = 0.01)
  at <- matrix(c(-1e4, -50, -5, seq(-3.5, 3.5, length.out = 201), 5, 50, 1e4, x))
  for (approx in c("VFE", "FITC", "exact")) {
    for (z in list(10, matrix(x))) {
      if (approx == "exact" && is.matrix(z)) next
      for (jitter in c(1e-6, 0)) {
        fit <- sparse_gp(x, y, inducing = z, approx = approx, seed = 1, kernel = kernel_gaussian(1, 1), noise_variance = 1e-8,
                         optimize = "none", scale = FALSE, control = sparse_gp_control(jitter = jitter))
        pts <- rbind(at, fit$inducing)
        lat <- sparsebayes:::gp_latent(fit, pts)
        info <- sprintf("%s m = %d jitter %g", approx, fit$m, jitter)
        expect_true(all(lat$var >= 0), info = info)
        expect_true(all(sparsebayes:::gp_row_variances(fit)$fitted_var >= 0), info = info)
        # far from the data the prior variance comes back
        expect_equal(lat$var[abs(pts) >= 1e4], c(1, 1), tolerance = 1e-12, info = info)
      }
    }
  }
  # and on an optimised fit, in the units of y
  fit <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 12, seed = 1)
  se <- predict(fit, data.frame(times = c(-1e3, seq(0, 60, by = 0.25), fit$inducing[, 1], 1e3)), se.fit = TRUE)$se.fit
  expect_true(all(is.finite(se) & se > 0))
})

test_that("predictions from the stored factors equal the dense FITC/VFE/exact predictive (n = 30, m = 5)", {
  d <- gp_toy(30, seed = 12)
  z <- matrix(c(-2.4, -1.1, 0.2, 1.3, 2.6))
  xt <- matrix(c(-6, seq(-3, 3, length.out = 13), z, 7))
  width <- 0.9
  variance <- 1.4
  noise <- 0.03
  for (w in list(NULL, rep(c(0.5, 1, 2), 10))) {
    lam_noise <- noise / if (is.null(w)) rep(1, 30) else w / mean(w)  # the noise of a row of average weight
    ybar <- if (is.null(w)) mean(d$y) else weighted.mean(d$y, w)
    r <- d$y - ybar
    for (approx in c("VFE", "FITC", "exact")) {
      fit <- sparse_gp(d$x, d$y, kernel = kernel_gaussian(width, variance), inducing = z, approx = approx,
                       noise_variance = noise, optimize = "none", scale = FALSE, weights = w)
      Kss <- gp_k(xt, xt, width, variance)
      if (approx == "exact") {
        S <- gp_k(d$x, d$x, width, variance) + diag(lam_noise)
        Ksf <- gp_k(xt, d$x, width, variance)
        mu <- ybar + Ksf %*% solve(S, r)
        v <- diag(Kss) - rowSums((Ksf %*% solve(S)) * Ksf)
      } else {
        # straight from the notes: mu = K_*u (K_uu + K_uf Lam^-1 K_fu)^-1 K_uf Lam^-1 r,
        # var = k** - K_*u K_uu^-1 K_u* + K_*u (K_uu + K_uf Lam^-1 K_fu)^-1 K_u*
        Kuu <- gp_k(z, z, width, variance) + diag(1e-6 * variance, 5)
        Kuf <- gp_k(z, d$x, width, variance)
        Ksu <- gp_k(xt, z, width, variance)
        Q <- t(Kuf) %*% solve(Kuu, Kuf)
        lam <- lam_noise + if (approx == "FITC") pmax(variance - diag(Q), 0) else 0
        M <- Kuu + Kuf %*% (t(Kuf) / lam)
        mu <- ybar + Ksu %*% solve(M, Kuf %*% (r / lam))
        v <- diag(Kss) - rowSums((Ksu %*% solve(Kuu)) * Ksu) + rowSums((Ksu %*% solve(M)) * Ksu)
      }
      lat <- sparsebayes:::gp_latent(fit, xt)
      info <- paste(approx, if (is.null(w)) "unweighted" else "weighted")
      expect_equal(lat$mean, drop(mu), tolerance = 1e-8, info = info)
      expect_equal(lat$var, drop(v), tolerance = 1e-8, info = info)
      expect_equal(predict(fit, xt, se.fit = TRUE)$se.fit, sqrt(drop(v)), tolerance = 1e-8, info = info)
      # the training points: fitted values and their variance, the same formula
      rv <- sparsebayes:::gp_row_variances(fit)
      expect_equal(rv$fitted_var, sparsebayes:::gp_latent(fit, d$x)$var, tolerance = 1e-10, info = info)
      if (approx != "exact") {
        # the posterior's own pass (row_variances = TRUE: one solve by L LB) gives the same, and Pi's diagonal
        wt <- if (is.null(w)) numeric(0) else w / fit$weight_unit
        post <- sparsebayes:::.sb_gp_posterior(unclass(fit$kernel), fit$noise_variance, d$x, d$y - fit$mean,
                                               fit$inducing_scaled, wt, approx, fit$jitter, 1L, TRUE)
        expect_null(fit$fitted_var)
        expect_equal(as.numeric(post$fitted_var), rv$fitted_var, tolerance = 1e-10, info = info)
        expect_equal(as.numeric(post$pi_diag), rv$pi_diag, tolerance = 1e-10, info = info)
        expect_equal(fit$edf, sum(hatvalues(fit)), tolerance = 1e-10, info = info)
      }
    }
  }
})

test_that("predictions are identical after saveRDS/readRDS, and FITC/VFE objects hold no n x n matrix", {
  d <- MASS::mcycle
  nd <- data.frame(times = c(-10, 0, 14.6, 30, 57.6, 100))
  for (approx in c("VFE", "FITC", "exact")) {
    fit <- suppressWarnings(sparse_gp(accel ~ times, data = d, inducing = 10, approx = approx, seed = 1))
    path <- tempfile(fileext = ".rds")
    saveRDS(fit, path)
    back <- readRDS(path)
    unlink(path)
    expect_identical(predict(back, nd, se.fit = TRUE), predict(fit, nd, se.fit = TRUE), info = approx)
    expect_identical(predict(back, nd, interval = "prediction"), predict(fit, nd, interval = "prediction"),
                     info = approx)
    expect_identical(hatvalues(back), hatvalues(fit), info = approx)
    expect_identical(residuals(back, type = "loo"), residuals(fit, type = "loo"), info = approx)
    expect_false(any(vapply(unclass(fit), function(f) is.environment(f) || inherits(f, "externalptr"), logical(1))),
                 info = approx)
    n <- nrow(d)
    big <- vapply(unclass(fit), function(f) is.matrix(f) && nrow(f) >= n && ncol(f) >= n, logical(1))
    if (approx == "exact") {
      expect_identical(names(which(big)), "chol")
    } else {
      expect_false(any(big), info = approx)
      expect_equal(dim(fit$chol), c(10L, 10L))
      expect_equal(dim(fit$chol_b), c(10L, 10L))
      expect_true(all(fit$chol[upper.tri(fit$chol)] == 0) && all(fit$chol_b[upper.tri(fit$chol_b)] == 0))
      expect_null(fit$var_matrix)
    }
  }
})

test_that("the prediction entry point rejects a stored posterior that does not fit", {
  fit <- sparse_gp(gp_toy(30)$x, gp_toy(30)$y, inducing = 5, seed = 1, optimize = "none")
  k <- unclass(fit$kernel)
  expect_error(sparsebayes:::.sb_gp_predict(k, fit$centres, fit$weights[-1], fit$chol, fit$chol_b, matrix(0), TRUE, FALSE),
               "weights and Cholesky factor must match")
  expect_error(sparsebayes:::.sb_gp_predict(k, fit$centres, fit$weights, fit$chol, fit$chol_b, matrix(0, 1, 2), TRUE, FALSE),
               "number of columns")
  expect_error(sparsebayes:::.sb_gp_predict(k, fit$centres, fit$weights, fit$chol, fit$chol_b[-1, ], matrix(0), TRUE, FALSE),
               "factor of B")
})

test_that("objective, gradient, posterior and predictions are identical for 1 and 2 threads", {
  d <- gp_toy(20000, 2, seed = 4)  # 10 blocks of 2048 rows: every lane holds more than one block
  z <- d$x[seq(1, 20000, length.out = 12), ]
  w <- rep(c(1, 2), 10000)
  k <- unclass(kernel_gaussian(c(0.8, 1.4), 1.1))
  r <- d$y - mean(d$y)
  for (approx in c("VFE", "FITC")) {
    for (wt in list(numeric(0), w)) {
      one <- sparsebayes:::.sb_gp_objective(k, 0.05, d$x, r, z, wt, sparsebayes:::gp_settings(approx, 1e-6, TRUE, 1L))
      two <- sparsebayes:::.sb_gp_objective(k, 0.05, d$x, r, z, wt, sparsebayes:::gp_settings(approx, 1e-6, TRUE, 2L))
      expect_identical(one, two, info = approx)
      one <- sparsebayes:::.sb_gp_posterior(k, 0.05, d$x, r, z, wt, approx, 1e-6, 1L)
      two <- sparsebayes:::.sb_gp_posterior(k, 0.05, d$x, r, z, wt, approx, 1e-6, 2L)
      expect_identical(one, two, info = approx)
    }
  }
  # and through the R interface, where options(sparsebayes.threads) sets the count
  fits <- lapply(1:2, function(th) {
    old <- options(sparsebayes.threads = th)
    on.exit(options(old))
    fit <- sparse_gp(d$x[1:6000, ], d$y[1:6000], inducing = 8, seed = 1)
    list(fit = fit[c("kernel", "noise", "logLik", "fitted.values", "inducing")],
         pred = predict(fit, d$x[6001:12000, ], interval = "prediction"))
  })
  expect_identical(fits[[1]], fits[[2]])
})

test_that("beyond control$subsample rows, learning uses a subsample and the posterior every row", {
  d <- gp_toy(3000, 2, seed = 5)
  full <- sparse_gp(d$x, d$y, inducing = 15, seed = 1, control = sparse_gp_control(subsample = Inf))
  sub <- sparse_gp(d$x, d$y, inducing = 15, seed = 1, control = sparse_gp_control(subsample = 1000))
  expect_null(full$subsample)
  expect_equal(sub$subsample, 1000)
  # beyond 1000 rows the default stop is on the gain over every row the
  # posterior serves, learned on a subsample or not
  expect_equal(sub$control$factr, full$control$factr)
  expect_equal(full$control$factr, sparse_gp(d$x[1:500, ], d$y[1:500], inducing = 15, seed = 1)$control$factr / 3)
  expect_equal(sparse_gp(d$x, d$y, inducing = 15, seed = 1, control = sparse_gp_control(subsample = 1000, factr = 1e7))$control$factr, 1e7)
  expect_output(print(sub), "on 1000 rows")
  expect_output(print(summary(sub)), "on 1000 rows")
  # the reported bound and fitted values are those of every row at the learned hyperparameters
  again <- sparse_gp(d$x, d$y, kernel = sub$kernel, inducing = sub$inducing, noise_variance = sub$noise_variance, optimize = "none")
  expect_equal(sub$logLik, again$logLik, tolerance = 1e-10)
  expect_equal(fitted(sub), fitted(again), tolerance = 1e-10)
  # The cost of learning on a third of the rows, measured over seeds 1-5
  # (0.007-0.012 nats per row, latent RMSE 6-14% higher): stated here as the
  # tolerance of the route.
  expect_lt((full$logLik - sub$logLik) / 3000, 0.015)
  rmse <- function(fit) sqrt(mean((fitted(fit) - d$f)^2))
  expect_lt(rmse(sub), 1.15 * rmse(full))
  # the same call gives the same fit, and the caller's random stream is untouched
  set.seed(9)
  before <- .Random.seed
  expect_identical(sparse_gp(d$x, d$y, inducing = 15, seed = 1, control = sparse_gp_control(subsample = 1000))$logLik,
                   sub$logLik)
  expect_identical(.Random.seed, before)
  # nothing is learned on a subsample when nothing is optimised, or for the exact GP
  expect_null(sparse_gp(d$x, d$y, kernel = sub$kernel, inducing = 5, noise_variance = 1, optimize = "none",
                        control = sparse_gp_control(subsample = 100))$subsample)
  expect_error(sparse_gp_control(subsample = 5), "`subsample` must be >= 10")
  expect_error(sparse_gp_control(subsample = NA), "`subsample` must be a single finite number")
})

test_that("sparse_gp()'s choices of approx and optimize are the rows of its tables", {
  approxes <- sparsebayes:::gp_approxes
  optimizes <- sparsebayes:::gp_optimizes
  f <- formals(sparsebayes:::sparse_gp.default)
  expect_identical(eval(f$approx), names(approxes))
  expect_identical(eval(f$optimize), c("auto", names(optimizes)))
  expect_identical(vapply(approxes, `[[`, "", "name"), setNames(names(approxes), names(approxes)))
  expect_identical(vapply(optimizes, `[[`, "", "name"), setNames(names(optimizes), names(optimizes)))
  expect_true(all(vapply(approxes, `[[`, "", "default_optimize") %in% names(optimizes)))
})

test_that("optimize = \"auto\" frees the inducing points for VFE and keeps them for FITC", {
  d <- gp_toy(60, 1, seed = 2)
  expect_equal(sparse_gp(d$x, d$y, inducing = 6, seed = 1)$optimize, "all")
  fitc <- sparse_gp(d$x, d$y, inducing = 6, seed = 1, approx = "FITC")
  expect_equal(fitc$optimize, "hyper")
  expect_identical(fitc$logLik, sparse_gp(d$x, d$y, inducing = 6, seed = 1, approx = "FITC", optimize = "hyper")$logLik)
  expect_equal(sparse_gp(d$x, d$y, approx = "exact")$optimize, "all")
})

test_that("FITC converges within its default budget on mcycle with weights and on Servo's CV folds", {
  skip_on_cran()
  m <- MASS::mcycle
  set.seed(2)
  w <- sample(1:3, nrow(m), TRUE)
  fit <- sparse_gp(accel ~ times, data = m, weights = w, approx = "FITC", seed = 1)
  expect_true(fit$converged)
  skip_if_not_installed("mlbench")
  data("Servo", package = "mlbench", envir = environment())
  Servo$Pgain <- as.numeric(as.character(Servo$Pgain))
  Servo$Vgain <- as.numeric(as.character(Servo$Vgain))
  set.seed(1)
  folds <- sample(rep(1:5, length.out = nrow(Servo)))
  for (k in 1:5) {
    fit <- expect_silent(sparse_gp(Class ~ ., data = Servo[folds != k, ], approx = "FITC", seed = 1))
    expect_true(fit$converged, info = k)
    # the noise is not traded for FITC's heteroscedastic term (its bound is 1e-6 var(y))
    expect_gt(fit$noise_variance, 1e-3 * var(Servo$Class[folds != k]))
  }
})

test_that("the default tolerance is looser on noisy responses than on responses without noise", {
  set.seed(1)
  x <- matrix(runif(120), 60, 2)
  noisy <- sparse_gp(x, sin(4 * x[, 1]) + rnorm(60, sd = 0.3), inducing = 10, seed = 1)
  quiet <- sparse_gp(x, sin(4 * x[, 1]) + x[, 2], inducing = 10, seed = 1)
  expect_identical(noisy$control$factr, 1e11)
  expect_identical(quiet$control$factr, 1e10)
  # a tolerance given, or a kernel not learned, keeps the tolerance as it was
  given <- sparse_gp(x, noisy$y, inducing = 10, seed = 1, control = sparse_gp_control(factr = 1e7))
  expect_identical(given$control$factr, 1e7)
  median <- sparse_gp(x, noisy$y, kernel = kernel_gaussian("median"), inducing = 10, seed = 1)
  expect_identical(median$control$factr, 1e10)
  expect_null(sparse_gp_control()$factr)
  expect_error(sparse_gp_control(factr = 0), "`factr` must be >")
})

test_that("sparse_gp()'s deprecated `noise =` warns and fits as `noise_variance =`", {
  set.seed(3)
  x <- matrix(runif(60, -2, 2), 30)
  y <- sin(x[, 1]) + rnorm(30, sd = 0.1)
  new <- sparse_gp(x, y, inducing = 8, noise_variance = 0.02, optimize = "none", seed = 1)
  expect_warning(old <- sparse_gp(x, y, inducing = 8, noise = 0.02, optimize = "none", seed = 1),
                 "`noise` is deprecated in sparse_gp\\(\\); use `noise_variance`")
  old$call <- new$call
  expect_identical(old, new)
})

test_that("inducing points K_uu cannot tell apart are dropped before learning, and summary() says so", {
  d <- gp_toy(300, seed = 3)
  k <- kernel_gaussian(1.5, 1)
  # 60 k-means points on a smooth 1-D curve: most lie in the span of others
  fit <- sparse_gp(d$x, d$y, kernel = k, inducing = 60, noise_variance = 0.04, optimize = "none", seed = 1,
                   scale = FALSE)
  all <- sparse_gp(d$x, d$y, kernel = k, inducing = 60, noise_variance = 0.04, optimize = "none", seed = 1,
                   scale = FALSE, control = sparse_gp_control(inducing_tol = 0))
  expect_equal(all$m, 60L)
  expect_null(all$learned$inducing)
  expect_lt(fit$m, 30L)
  expect_equal(nrow(fit$inducing), fit$m)
  expect_equal(fit$learned$inducing[c("asked", "kept", "restored")], c(asked = 60L, kept = fit$m, restored = 0L))
  # what the dropped points are worth is the bound they would add (at fixed
  # hyperparameters, the difference to keeping every point)
  expect_equal(fit$learned$inducing[["worth"]], all$logLik - fit$logLik, tolerance = 1e-6)
  expect_output(print(summary(fit)), sprintf("%d of 60 inducing points kept: .* worth 0.0036 nats", fit$m))
  expect_output(print(fit), sprintf("%d inducing points of 60 asked, the rest worth 0.0036 nats \\(n = 300\\)", fit$m))
  expect_output(print(all), "60 inducing points \\(n = 300\\)")
  # every dropped point has a variance given the kept ones of at most the
  # tolerance (the jitter, relative to the kernel variance) ...
  kept <- match(data.frame(t(fit$inducing)), data.frame(t(all$inducing)))
  expect_false(anyNA(kept))
  K <- gp_k(all$inducing, all$inducing, 1.5, 1)
  cond <- diag(K)[-kept] - colSums(K[kept, -kept] * solve(K[kept, kept], K[kept, -kept]))
  expect_true(all(cond <= 1e-6))
  # ... so the bound and the predictive distribution hardly move
  # (here 0.004 nats and 3e-5)
  expect_lt(abs(fit$logLik - all$logLik), 0.01)
  xt <- matrix(seq(-3, 3, length.out = 11))
  expect_lt(max(abs(predict(fit, xt, interval = "prediction") - predict(all, xt, interval = "prediction"))), 1e-4)
  # a stricter tolerance keeps more
  expect_gt(sparse_gp(d$x, d$y, kernel = k, inducing = 60, noise_variance = 0.04, optimize = "none", seed = 1,
                      scale = FALSE, control = sparse_gp_control(inducing_tol = 1e-10))$m, fit$m)
  # copies of given points carry nothing the first copy does not
  z <- matrix(c(-2, 0, 0, 1, 2, 2, 2))
  twice <- sparse_gp(d$x, d$y, kernel = k, inducing = z, noise_variance = 0.04, optimize = "none")
  once <- sparse_gp(d$x, d$y, kernel = k, inducing = unique(z), noise_variance = 0.04, optimize = "none")
  expect_equal(twice$m, 4L)
  expect_equal(twice$logLik, once$logLik, tolerance = 1e-12)
  expect_equal(predict(twice, xt), predict(once, xt), tolerance = 1e-12)
  expect_equal(unname(twice$inducing), unname(once$inducing))
  # learned fits drop from the k-means points at the starting widths
  learned <- sparse_gp(d$x, d$y, inducing = 60, seed = 1)
  expect_lt(learned$m, 60L)
  expect_equal(learned$learned$inducing[["kept"]], learned$m)
  # ... in any units of x and y, and the same from a bootstrap's distinct rows with their counts
  expect_identical(sparse_gp(d$x * 100 - 3, d$y * 1e3 + 5, inducing = 60, seed = 1)$m, learned$m)
  boot <- c(seq_len(300), 1:40)
  expect_identical(sparse_gp(d$x[boot, , drop = FALSE], d$y[boot], inducing = 60, seed = 1)$m,
                   sparse_gp(d$x, d$y, weights = tabulate(boot, 300), inducing = 60, seed = 1)$m)
  expect_error(sparse_gp_control(inducing_tol = -1), "`inducing_tol` must be >= 0 and <= 1")
  expect_error(sparse_gp_control(inducing_tol = 2), "`inducing_tol` must be >= 0 and <= 1")
  expect_error(sparse_gp_control(inducing_cost = -1), "`inducing_cost` must be >= 0")
  expect_error(sparse_gp_control(inducing_cost = NA), "`inducing_cost` must be a single finite number")
  expect_identical(sparse_gp_control(inducing_cost = Inf)$inducing_cost, Inf)
})
