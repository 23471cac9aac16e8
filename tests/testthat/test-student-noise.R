# Student-t noise (noise = "student") and the joint-ARD paper's schedule
# (ard_control(schedule = "paper")).

top_k_recall <- function(fit, truth) mean(truth %in% order(fit$lambda, decreasing = TRUE)[seq_along(truth)])

# The bound on the evidence recomputed from the fit (no intercept, no input
# scaling, so the caller's units are the solver's up to the response scale):
# log N(y | 0, L + X A^-1 X') - n (log a - digamma(a)) / 2 - sum KL(q(1/lambda_i) || p),
# q = Gamma(a, a lambda_i), a = (nu + 1) / 2, p = Gamma(nu / 2, nu s2 / 2).
# With the outlier class (share eps, density h = 1 / range(y), row i in it
# with probability pi_i), L holds lambda_i / (1 - pi_i) and row i's terms
# are weighted by 1 - pi_i, plus those of the class: derived afresh here
# from E_q[log p(y, w, tau, z)] - E_q[log q] rather than from the C++.
student_bound <- function(fit, X, y) {
  n <- length(y)
  rel <- fit$relevant
  Xr <- X[, rel, drop = FALSE]
  C <- diag(fit$lambda) + Xr %*% diag(1 / fit$alpha[rel], length(rel)) %*% t(Xr)
  L <- chol(C)
  z <- backsolve(L, y, transpose = TRUE)
  log_n <- -0.5 * (n * log(2 * pi) + 2 * sum(log(diag(L))) + sum(z^2))
  nu <- fit$student[["df"]]
  a <- (nu + 1) / 2
  b <- a * fit$lambda
  a0 <- nu / 2
  b0 <- nu * fit$student[["scale"]] / 2
  p <- fit$outlier_probability %||% rep(0, n)
  lambda_t <- fit$lambda * (1 - p)  # 1 / E[tau_i] given the t class
  b <- a * lambda_t
  kl <- (a - a0) * digamma(a) - lgamma(a) + lgamma(a0) + a0 * (log(b) - log(b0)) + a * (b0 - b) / b
  # E_q over the t class of log N(y_i | x_i'w, 1 / tau_i), minus what log_n counts for row i
  t_class <- (1 - p) * (0.5 * (digamma(a) - log(b)) - 0.5 * log(2 * pi)) + 0.5 * log(2 * pi * fit$lambda)
  eps <- fit$student[["outlier_share"]]
  xlogy <- function(x, y) ifelse(x > 0, x * log(y), 0)
  kl_z <- if (is.na(eps)) 0 else xlogy(p, p / eps) + xlogy(1 - p, (1 - p) / (1 - eps))
  log_h <- if (is.na(eps)) 0 else -log(diff(range(y)))
  log_n + sum(t_class - (1 - p) * kl + p * log_h - kl_z)
}

heavy_tailed <- function(seed, n = 150) {
  set.seed(seed)
  X <- matrix(rnorm(n * 6), n, 6)
  list(X = X, y = drop(X[, 1:3] %*% c(2, -1, 0.5)) + 0.3 * rt(n, df = 3))
}

test_that("Student-t noise keeps the inliers at one level at convergence, where per-sample noise collapses them", {
  for (seed in 1:3) {
    dat <- sparse_data(seed)
    for (method in c("em", "fast")) {
      fit <- ard(dat$X, dat$y, intercept = FALSE, method = method, noise = "student")
      expect_true(fit$converged)
      expect_gte(ess(fit, which = "samples"), 0.85)
      expect_length(fit$lambda, 500)
      expect_named(fit$student, c("df", "scale", "outlier_share"))
    }
    free <- ard(dat$X, dat$y, intercept = FALSE, method = "em", noise = "sample")
    expect_lt(ess(free, which = "samples"), 0.6)  # lambda_i (1 - h_i) = r_i^2 at its optimum
  }
})

test_that("Student-t noise finds outliers at least as well as per-sample noise", {
  for (seed in 1:3) {
    dat <- sparse_data(seed, rate = 0.1)
    student <- ard(dat$X, dat$y, intercept = FALSE, noise = "student")
    sample <- ard(dat$X, dat$y, intercept = FALSE, noise = "sample")
    expect_gte(top_k_recall(student, dat$outliers), 0.8)
    expect_gte(top_k_recall(student, dat$outliers), top_k_recall(sample, dat$outliers))
    # the contamination makes the tails heavy or fills the outlier class
    expect_true(student$student[["df"]] < 10 || student$student[["outlier_share"]] > 0.05)
  }
})

test_that("logLik of Student-t noise is the variational bound, and EM raises it at every step", {
  dat <- heavy_tailed(3, n = 120)
  for (method in c("em", "mackay", "fast")) {
    fit <- ard(dat$X, dat$y, intercept = FALSE, scale = FALSE, noise = "student", method = method)
    expect_equal(as.numeric(logLik(fit)), student_bound(fit, dat$X, dat$y), tolerance = 1e-8)
  }
  fit <- ard(dat$X, dat$y, intercept = FALSE, scale = FALSE, noise = "student", method = "em")
  after_warm_start <- fit$trace$log_posterior[fit$trace$iteration > ard_control()$warm_start + 1]
  expect_gte(min(diff(after_warm_start)), -1e-8)
})

test_that("every solver reaches the same Student-t optimum", {
  dat <- heavy_tailed(5)
  fits <- lapply(c(em = "em", mackay = "mackay", irls2 = "irls2", fast = "fast", gradient = "gradient"), function(m)
    ard(dat$X, dat$y, noise = "student", method = m))
  ll <- vapply(fits, function(f) as.numeric(logLik(f)), 0)
  expect_lt(max(ll) - min(ll), 0.05)
  df <- vapply(fits, function(f) f$student[["df"]], 0)
  expect_lt(max(df) / min(df), 1.05)
  irls1 <- suppressWarnings(ard(dat$X, dat$y, noise = "student", method = "irls1"))
  expect_lt(max(ll) - as.numeric(logLik(irls1)), 3)  # its ADMM steps stop short
})

test_that("the degrees of freedom are estimated from the tails, or held where given", {
  nus <- vapply(1:4, function(seed) {
    dat <- heavy_tailed(seed, n = 600)
    ard(dat$X, dat$y, noise = "student")$student[["df"]]
  }, 0)
  expect_true(all(nus > 1.5 & nus < 8))  # t(3) noise
  set.seed(1)
  X <- matrix(rnorm(400 * 3), 400, 3)
  gauss <- ard(X, drop(X %*% c(1, 0, -1)) + rnorm(400), noise = "student")
  expect_gt(gauss$student[["df"]], 30)  # Gaussian noise: the Gaussian limit
  dat <- heavy_tailed(1)
  fixed <- ard(dat$X, dat$y, noise = "student", control = ard_control(student_df = 4))
  expect_equal(fixed$student[["df"]], 4)
})

test_that("Student-t fits are equivariant and predict with t intervals", {
  dat <- heavy_tailed(2)
  fit <- ard(dat$X, dat$y, noise = "student")
  moved <- ard(dat$X, 10 * dat$y + 1000, noise = "student")
  expect_equal(fitted(moved), 10 * fitted(fit) + 1000, tolerance = 1e-6)
  expect_equal(moved$lambda, 100 * fit$lambda, tolerance = 1e-6)
  expect_equal(moved$student[["scale"]], 100 * fit$student[["scale"]], tolerance = 1e-6)
  expect_equal(moved$student[["df"]], fit$student[["df"]], tolerance = 1e-6)
  new <- dat$X[1:5, ]
  p <- predict(fit, new, interval = "prediction", se.fit = TRUE)
  nu <- fit$student[["df"]]
  half <- stats::qt(0.975, nu) * sqrt(p$se.fit^2 + fit$student[["scale"]])
  expect_equal(unname(p$fit[, "upr"] - p$fit[, "fit"]), unname(half))
  expect_output(print(fit), "Student-t noise")
  expect_output(print(fit), "t scale")
  expect_output(print(summary(fit)), "Student-t with df")
  k <- rvm(dat$X[, 1, drop = FALSE], dat$y, noise = "student")
  expect_length(k$lambda, length(dat$y))
  expect_output(print(summary(k)), "Student-t with df")
  expect_identical(update(k, noise = "sample")$noise, "sample")
  expect_true(all(is.finite(predict(k, dat$X[1:3, 1, drop = FALSE], interval = "prediction"))))
})

test_that("Student-t noise and the schedule refuse what they cannot do", {
  dat <- heavy_tailed(1)
  expect_error(ard(dat$X, dat$y, noise = "student", control = ard_control(studentized = TRUE)),
               "needs noise = \"sample\"")
  expect_error(ard(dat$X, dat$y, method = "fast", noise = "sample", control = ard_control(schedule = "paper")),
               "batch solvers")
  expect_error(ard_control(schedule = "fixed"), "schedule")
  expect_error(ard_control(student_df = -1), "student_df")
  expect_error(ard_control(student_df = NA), "student_df")
  expect_error(rvm(dat$X[, 1, drop = FALSE], dat$y > 0, noise = "student"), "must be gaussian")
  expect_error(rvm(dat$X[, 1, drop = FALSE], dat$y, noise = "student", prior = "BIC"), "noise = \"shared\"")
  expect_error(ard(dat$X, dat$y, noise = "t"), "noise")
})

test_that("the paper's schedule runs its whole budget, damps alpha and lambda themselves, and keeps inliers", {
  ctl <- ard_control(schedule = "paper")
  expect_equal(ctl[c("damping_alpha", "damping_lambda", "init_alpha", "init_lambda", "warm_start", "noise_every",
                     "max_iterations")],
               list(damping_alpha = 5e-3, damping_lambda = 5e-3, init_alpha = 0.1, init_lambda = 0.1,
                    warm_start = 100L, noise_every = 5L, max_iterations = 1000L))
  expect_equal(ard_control(schedule = "paper", max_iterations = 300)$max_iterations, 300L)  # the call wins
  dat <- sparse_data(1)
  expect_silent(fit <- ard(dat$X, dat$y, intercept = FALSE, noise = "sample", control = ctl))
  expect_equal(fit$iterations, 1000L)
  expect_false(fit$converged)
  expect_identical(fit$schedule, "paper")
  expect_output(print(fit), "the paper's schedule")
  expect_gte(ess(fit, which = "samples"), 0.9)
  expect_identical(ard(dat$X, dat$y, intercept = FALSE, method = "em")$schedule, "converge")
})

test_that("the studentized update moves the StarsCYG slope inside the paper's schedule", {
  skip_if_not_installed("robustbase")
  data(starsCYG, package = "robustbase", envir = environment())
  slope <- function(control) {
    f <- ard(log.light ~ log.Te, data = starsCYG, method = "em", noise = "sample", control = control)
    unname(diff(predict(f, data.frame(log.Te = c(4, 5)))))
  }
  em <- slope(ard_control(schedule = "paper"))
  studentized <- slope(ard_control(schedule = "paper", studentized = TRUE, studentized_power = 4))
  expect_lt(em, 0)  # pulled by the four giants
  expect_gt(studentized - em, 0.15)
  # At convergence from the same start both share a fixed point once h_i -> 0: no power moves it.
  at_optimum <- c(slope(ard_control(start = "plain")),
                  slope(ard_control(studentized = TRUE, studentized_power = 4, start = "plain")))
  expect_lt(abs(diff(at_optimum)), 0.01)
})

top_rows <- function(fit, k) order(fit$lambda, decreasing = TRUE)[seq_len(k)]

test_that("the outlier class finds the classic data's outliers, by default or from the robust start it names", {
  skip_if_not_installed("robustbase")
  data(starsCYG, wood, package = "robustbase", envir = environment())
  cases <- list(list(log.light ~ log.Te, starsCYG, c(11, 20, 30, 34)), list(y ~ ., wood, c(4, 6, 8, 19)),
                list(stack.loss ~ ., stackloss, c(1, 3, 4, 21)))
  for (cs in cases) {
    fit <- ard(cs[[1]], data = cs[[2]], noise = "student")
    # where the evidence prefers another explanation, the default says so and names the robust start
    if (!all(fit$outlier_probability[cs[[3]]] > 0.5)) {
      expect_output(print(fit), "Two starts explain the data differently")
      fit <- ard(cs[[1]], data = cs[[2]], noise = "student", control = ard_control(start = "robust"))
    }
    expect_setequal(top_rows(fit, 4), cs[[3]])
    expect_true(all(fit$outlier_probability[cs[[3]]] > 0.5))
    expect_equal(fit$student[["outlier_share"]], mean(fit$outlier_probability))
    # every coefficient within two of lmrob's standard errors of lmrob's
    ref <- robustbase::lmrob(cs[[1]], data = cs[[2]])
    b <- setNames(numeric(ncol(fit$x)), colnames(fit$x))
    b[names(coef(fit))] <- coef(fit)
    expect_lt(max(abs(b[names(coef(ref))] - coef(ref)) / sqrt(diag(vcov(ref)))), 2)
  }
  # wood and stackloss by default
  expect_true(all(ard(y ~ ., data = wood, noise = "student")$outlier_probability[c(4, 6, 8, 19)] > 0.5))
  # StarsCYG's giants pull the plain t from both starts (nu -> infinity)
  plain <- ard(log.light ~ log.Te, data = starsCYG, noise = "student", control = ard_control(outlier_class = FALSE))
  expect_lt(sum(top_rows(plain, 4) %in% c(11, 20, 30, 34)), 4)
  expect_lt(unname(diff(predict(plain, data.frame(log.Te = c(4, 5))))), 0)
  fit <- ard(log.light ~ log.Te, data = starsCYG, noise = "student", control = ard_control(start = "robust"))
  expect_gt(unname(diff(predict(fit, data.frame(log.Te = c(4, 5))))), 0.5)
})

test_that("the outlier class is on for ard() and off for rvm() by default; FALSE is the plain Student-t", {
  d <- outlier_data(n = 80, n_out = 4, seed = 2)
  on <- ard(d$X, d$y, noise = "student")
  off <- ard(d$X, d$y, noise = "student", control = ard_control(outlier_class = FALSE))
  expect_true(on$control$outlier_class)
  expect_false(off$control$outlier_class)
  expect_length(on$outlier_probability, 80)
  expect_null(off$outlier_probability)
  expect_identical(off$student[["outlier_share"]], 0)  # eps = 0: the plain Student-t, not NaN
  expect_identical(rvm(d$X[, 1], d$y, noise = "student")$student[["outlier_share"]], 0)
  expect_setequal(top_rows(on, 4), d$out)
  expect_setequal(top_rows(off, 4), d$out)
  expect_true(update(on, noise = "student")$control$outlier_class)
  s <- sinc_data(60)
  r <- rvm(s$x, s$y, noise = "student")
  expect_false(r$control$outlier_class)
  expect_null(r$outlier_probability)
  r_on <- rvm(s$x, s$y, noise = "student", control = rvm_control(outlier_class = TRUE))
  expect_length(r_on$outlier_probability, 60)
  expect_error(ard_control(outlier_class = "yes"), "outlier_class")
  expect_error(ard_control(outlier_class = NA), "outlier_class")
})

test_that("logLik with the outlier class is the variational bound for every solver, and EM raises it", {
  d <- outlier_data(n = 120, n_out = 10, seed = 4)
  for (method in c("em", "mackay", "fast")) {
    fit <- ard(d$X, d$y, intercept = FALSE, scale = FALSE, noise = "student", method = method)
    expect_gt(fit$student[["outlier_share"]], 0.05)
    expect_gt(max(fit$outlier_probability), 0.99)
    expect_equal(as.numeric(logLik(fit)), student_bound(fit, d$X, d$y), tolerance = 1e-8)
  }
  fit <- ard(d$X, d$y, intercept = FALSE, scale = FALSE, noise = "student", method = "em")
  after_warm_start <- fit$trace$log_posterior[fit$trace$iteration > ard_control()$warm_start + 1]
  expect_gte(min(diff(after_warm_start)), -1e-8)
})

test_that("on clean data the outlier class stays (nearly) empty and the fit is the plain t's", {
  for (seed in 1:5) {
    dat <- linear_data(150, seed = seed)
    on <- ard(dat$X, dat$y, noise = "student")
    off <- ard(dat$X, dat$y, noise = "student", control = ard_control(outlier_class = FALSE))
    expect_lt(on$student[["outlier_share"]], 0.02)
    expect_lt(max(abs(fitted(on) - fitted(off))), 0.05 * sd(dat$y))
  }
})

test_that("rows of weight 0 belong to no class", {
  d <- outlier_data(n = 80, n_out = 4, seed = 2)
  w <- rep(1, 80)
  w[c(3, 7)] <- 0
  fit <- ard(d$X, d$y, noise = "student", weights = w)
  expect_true(all(is.na(fit$outlier_probability[c(3, 7)])))
  expect_false(anyNA(fit$outlier_probability[-c(3, 7)]))
})

test_that("on clean data with a weak signal the outlier class stays empty and intervals cover", {
  # the issue's reproducer (share 0.5, 22 of 50 rows in the class) and 12 seeds at n = 40 and 60
  set.seed(7)
  X <- matrix(runif(250), 50, 5)
  y <- drop(X %*% c(1, 0, 1, -1, 0)) + 1 + rnorm(50)
  f <- ard(X, y, noise = "student")
  expect_lt(f$student[["outlier_share"]], 0.1)
  expect_lte(sum(f$outlier_probability > 0.5), 2)
  for (n in c(40, 60)) {
    res <- sapply(1:12, function(seed) {
      set.seed(seed)
      X <- matrix(runif(n * 5), n, 5)
      beta <- c(1, 0, 1, -1, 0)
      y <- drop(X %*% beta) + 1 + rnorm(n)
      Xt <- matrix(runif(500 * 5), 500, 5)
      yt <- drop(Xt %*% beta) + 1 + rnorm(500)
      fit <- suppressWarnings(ard(X, y, noise = "student"))
      p <- predict(fit, Xt, interval = "prediction")
      c(share = fit$student[["outlier_share"]], cover = mean(yt >= p[, "lwr"] & yt <= p[, "upr"]))
    })
    expect_lte(median(res["share", ]), 0.1)
    expect_gte(mean(res["cover", ]), 0.88)
    expect_lte(mean(res["cover", ]), 0.98)
  }
})

test_that("tied responses keep the t scale, intervals and outlier map finite", {
  for (zeros in c(160, 100, 60)) {
    set.seed(1)
    X <- matrix(rnorm(1000), 200)
    set.seed(3)
    y <- c(rep(0, zeros), rnorm(200 - zeros))
    for (fit in list(ard(X, y, noise = "student"),
                     ard(X, y, noise = "student", control = ard_control(outlier_class = FALSE)),
                     rvm(X, y, noise = "student"))) {
      expect_false(anyNA(fit$student[c("df", "scale")]))
      expect_gt(sqrt(fit$student[["scale"]]), 1e-3 * sd(y))
      p <- predict(fit, X[1:2, ], interval = "prediction")
      expect_true(all(is.finite(p)))
      expect_true(all(p[, "upr"] - p[, "lwr"] > 1e-3 * sd(y)))
      o <- outliers(fit, 200)
      expect_true(all(is.finite(o$std_residual)))
      expect_false(anyNA(o$type))
      expect_lte(mean(o$type != "regular"), 0.5)
    }
  }
  # two distinct values leave no robust scale: a clear error
  expect_error(ard(X, rep(0:1, 100), noise = "student"), "2 distinct values")
  expect_error(rvm(X, rep(0:1, 100), noise = "sample"), "2 distinct values")
  expect_s3_class(ard(X, rep(0:1, 100)), "sb_ard")
})

test_that("per-sample noise says its selection is not calibrated; Student-t noise selects the true features", {
  set.seed(1)
  X <- matrix(rnorm(200 * 20), 200, 20)
  colnames(X) <- paste0("x", 1:20)
  y <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + rnorm(200, sd = 0.5)
  y[1:10] <- y[1:10] + 20
  joint <- ard(X, y, noise = "sample", method = "em")
  expect_output(print(joint), "Not calibrated")
  expect_output(print(summary(joint)), "Not calibrated")
  student <- ard(X, y, noise = "student")
  expect_false(any(grepl("Not calibrated", capture.output(print(student), print(summary(student))))))
  expect_setequal(selected(student), c("x1", "x2", "x3"))
  r <- rvm(X[, 1], y, noise = "sample")
  expect_output(print(r), "Not calibrated")
  expect_output(print(summary(r)), "Not calibrated")
  expect_false(any(grepl("Not calibrated", capture.output(print(rvm(X[, 1], y, noise = "student"))))))
  paper <- ard(X, y, noise = "sample", control = ard_control(schedule = "paper"))
  expect_false(any(grepl("Not calibrated", capture.output(print(paper)))))
})
