# tidy/glance/augment (through the generics package) and the generics of
# lm and glm: model.frame, model.matrix, deviance, df.residual, weights,
# family, logLik/AIC/BIC and anova, for every model class.

tidy_fits <- function() {
  d <- MASS::mcycle
  set.seed(4)
  x <- seq(-3, 3, length.out = 80)
  counts <- rpois(80, exp(1 + sin(x)))
  list(
    gaussian = rvm(accel ~ times, data = d),
    sample = rvm(accel ~ times, data = d, noise = "sample"),
    student = rvm(accel ~ times, data = d, noise = "student"),
    smooth = rvm(accel ~ times, data = d, prior = "BIC"),
    centres = rvm(accel ~ times, data = d, centres = 30),
    binomial = rvm(yc ~ xs + ys, data = transform(MASS::synth.tr, yc = factor(yc)), kernel = kernel_gaussian(0.5),
                   scale = FALSE),
    poisson = rvm(x, counts, family = "poisson"),
    ard = ard(accel ~ poly(times, 4), data = d),
    ard_sample = ard(accel ~ poly(times, 4), data = d, noise = "sample"))
}
fits <- tidy_fits()
gp_vfe <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 10, seed = 1, optimize = "none",
                    kernel = kernel_gaussian(0.3, variance = 2000), noise_variance = 500)
gp_fitc <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 10, seed = 1, approx = "FITC")
iris_fit <- rvm(Species ~ ., data = iris)

test_that("tidy gives one row per retained weight: coef, posterior sd, alpha, relevance", {
  for (k in names(fits)) {
    fit <- fits[[k]]
    t <- tidy(fit)
    expect_s3_class(t, "data.frame")
    expect_named(t, c("term", "estimate", "std.error", "alpha", "log_bf", if (inherits(fit, "sb_rvm")) "relevance",
                      if (inherits(fit, "sb_ard")) "selected"), info = k)
    expect_identical(t$term, names(coef(fit)), info = k)
    expect_equal(t$estimate, unname(coef(fit)), info = k)
    expect_equal(t$std.error, sqrt(unname(diag(vcov(fit)))), info = k)
    expect_equal(t$alpha, unname(fit$alpha[fit$relevant]), info = k)
    if (inherits(fit, "sb_rvm")) {
      expect_identical(t$relevance[!is.na(t$relevance)], fit$relevance_index, info = k)
      expect_identical(is.na(t$relevance), t$term == "(bias)", info = k)
    }
  }
  # with centres, relevance is the row of fit$centres
  t <- tidy(fits$centres)
  expect_equal(unname(fits$centres$centres[t$relevance[-1L], , drop = FALSE]),
               unname(relevance_vectors(fits$centres)))
  # and for the training rows, the data row
  t <- tidy(fits$gaussian)
  expect_equal(MASS::mcycle$times[t$relevance[-1L]], unname(relevance_vectors(fits$gaussian)[, "times"]))
})

test_that("tidy of a dictionary fit: wavelet terms have no relevance row, kernel terms their data row", {
  s <- make_signal("doppler", n = 128, snr = 7, seed = 9)
  fit <- rvm(s$x, s$y, kernel = list(kernel_gaussian(0.1), kernel_wavelet("haar")), scale = FALSE)
  t <- tidy(fit)
  expect_equal(t$estimate, unname(coef(fit)))
  wavelet <- startsWith(t$term, "haar:")
  expect_true(any(wavelet) && any(!wavelet))
  expect_true(all(is.na(t$relevance[wavelet])))
  expect_identical(t$relevance[!wavelet], as.integer(sub("gaussian:", "", t$term[!wavelet])))
})

test_that("tidy(conf.int = TRUE) adds posterior normal intervals, and checks its arguments", {
  fit <- fits$gaussian
  t <- tidy(fit, conf.int = TRUE, conf.level = 0.9)
  expect_named(t, c("term", "estimate", "std.error", "alpha", "log_bf", "relevance", "conf.low", "conf.high"))
  z <- qnorm(0.95)
  expect_equal(t$conf.low, t$estimate - z * t$std.error)
  expect_equal(t$conf.high, t$estimate + z * t$std.error)
  expect_named(tidy(fits$ard, conf.int = TRUE), c("term", "estimate", "std.error", "alpha", "log_bf", "selected",
                                                  "conf.low", "conf.high"))
  expect_error(tidy(fit, conf.int = "yes"), "`conf.int`")
  expect_error(tidy(fit, conf.int = TRUE, conf.level = 1), "`conf.level` must be below 1")
  expect_error(tidy(fit, conf.int = TRUE, conf.level = 0), "`conf.level`")
  expect_error(tidy(fit, level = 0.9), "unknown argument")
})

test_that("tidy of a multiclass fit stacks the class models with a class column", {
  t <- tidy(iris_fit, conf.int = TRUE)
  expect_named(t, c("class", "term", "estimate", "std.error", "alpha", "log_bf", "relevance", "conf.low", "conf.high"))
  expect_identical(unique(t$class), levels(iris$Species))
  for (k in levels(iris$Species)) {
    tk <- t[t$class == k, ]
    # a multinomial fit: one column per class, over the columns any class keeps
    expect_equal(tk$estimate, unname(coef(iris_fit)[tk$term, k]))
    expect_equal(tk$std.error, sqrt(unname(diag(vcov(iris_fit))[paste0(k, ":", tk$term)])))
  }
  expect_identical(rownames(t), as.character(seq_len(nrow(t))))
})

test_that("tidy, glance and augment return tibbles, as broom's tidiers do (issue 61)", {
  skip_if_not_installed("tibble")
  fit <- fits$gaussian
  nd <- data.frame(times = c(5, 15.5))
  outputs <- list(tidy = tidy(fit), tidy_ard = tidy(fits$ard, conf.int = TRUE), glance = glance(fit),
                  augment = augment(fit), augment_new = augment(fit, newdata = nd),
                  augment_matrix = augment(fits$poisson), multiclass = tidy(iris_fit), glance_mc = glance(iris_fit),
                  augment_mc = augment(iris_fit), gp = tidy(gp_fitc), gp_glance = glance(gp_fitc),
                  gp_augment = augment(gp_fitc), inputs = tidy(rvm(Species ~ ., iris, kernel = kernel_gaussian("learn")),
                                                               what = "inputs"))
  for (k in names(outputs)) expect_s3_class(outputs[[k]], "tbl_df")
  # one column is a vector, not a one-column data frame
  expect_type(tidy(fit)[["estimate"]], "double")
  expect_s3_class(tidy(fit)[, "estimate"], "tbl_df")
  # the data's own row names become a first column .rownames, as broom's augment() makes them
  d <- MASS::mcycle[seq(1, 133, by = 2), ]
  a <- augment(rvm(accel ~ times, data = d), data = d)
  expect_identical(names(a)[1L], ".rownames")
  expect_identical(a$.rownames, rownames(d))
  expect_false(".rownames" %in% names(augment(fit)))  # 1, 2, ...: none
})

test_that("tidy(what = \"inputs\") of a multiclass fit is input_relevance() (issue 43, item 8)", {
  fit <- rvm(Species ~ ., iris, kernel = kernel_gaussian("learn"))
  t <- tidy(fit, what = "inputs")
  expect_equal(as.data.frame(t), input_relevance(fit), ignore_attr = "row.names")
  expect_setequal(t$input, names(iris)[1:4])
  expect_identical(generics::tidy(fit, what = "inputs"), t)
  # the weights, as before; bad arguments are still refused
  expect_identical(tidy(fit), tidy(fit, what = "weights"))
  expect_error(tidy(fit, what = "inputs", colour = 1), "unknown argument")
  expect_error(tidy(fit, what = "nope"), "`what` must be one of")
})

test_that("tidy of a sparse GP lists its hyperparameters and refuses intervals", {
  t <- tidy(gp_fitc)
  expect_named(t, c("term", "estimate", "estimated"))
  expect_identical(t$term, c("(mean)", "width", "variance", "noise"))
  expect_equal(t$estimate, unname(coef(gp_fitc)))
  expect_true(all(t$estimated))
  t0 <- tidy(gp_vfe)
  expect_identical(t0$estimated, c(TRUE, FALSE, FALSE, FALSE))  # optimize = "none" with a fixed noise
  expect_equal(t0$estimate[3:4], c(2000, 500))
  expect_error(tidy(gp_fitc, conf.int = TRUE), "`conf.int` must be FALSE for a sparse GP")
})

glance_names <- c("nobs", "logLik", "relevant", "sigma", "ess_weights", "ess_samples", "edf", "deviance",
                  "df.residual", "converged", "iterations", "method", "family")

test_that("glance gives one row: nobs, log evidence, relevant, noise sd, ESS, convergence", {
  for (k in names(fits)) {
    fit <- fits[[k]]
    g <- glance(fit)
    expect_named(g, glance_names)
    expect_identical(nrow(g), 1L)
    expect_identical(g$nobs, nobs(fit), info = k)
    expect_equal(g$logLik, as.numeric(logLik(fit)), info = k)
    expect_identical(g$relevant, length(fit$relevant), info = k)
    expect_equal(g$ess_weights, ess(fit), info = k)
    expect_equal(g$ess_samples, ess(fit, which = "samples"), info = k)
    expect_equal(g$deviance, deviance(fit), info = k)
    expect_equal(g$df.residual, df.residual(fit), info = k)
    expect_equal(g$edf, nobs(fit) - df.residual(fit), info = k)
    expect_identical(g$converged, fit$converged, info = k)
    expect_identical(g$iterations, as.integer(fit$iterations), info = k)
    expect_identical(g$method, fit$method, info = k)
    expect_identical(g$family, fit$family$family, info = k)
  }
  expect_equal(glance(fits$gaussian)$sigma, sqrt(fits$gaussian$lambda))
  expect_equal(glance(fits$ard)$sigma, sqrt(fits$ard$lambda))
  for (k in c("sample", "student", "binomial", "poisson", "ard_sample")) expect_identical(glance(fits[[k]])$sigma, NA_real_)
  expect_error(glance(fits$gaussian, foo = 1), "unknown argument")
})

test_that("glance of a multiclass fit and of a sparse GP", {
  g <- glance(iris_fit)
  expect_named(g, glance_names)
  # a multinomial fit: one evidence, the relevance vectors of any class, one solver run
  expect_equal(g$logLik, iris_fit$logLik)
  expect_identical(g$relevant, length(iris_fit$relevant))
  expect_identical(g$iterations, as.integer(iris_fit$iterations))
  ovr <- glance(rvm(Species ~ ., data = iris, multiclass = "one_vs_rest"))
  expect_identical(ovr$relevant, sum(vapply(rvm(Species ~ ., data = iris, multiclass = "one_vs_rest")$models,
                                            function(m) length(m$relevant), 0L)))
  expect_identical(c(g$sigma, g$ess_weights, g$ess_samples), rep(NA_real_, 3))
  expect_identical(g$family, "binomial")
  g <- glance(gp_fitc)
  expect_named(g, glance_names)
  expect_equal(g$logLik, gp_fitc$logLik)
  expect_identical(g$relevant, 10L)
  expect_equal(g$sigma, sqrt(gp_fitc$noise_variance))
  expect_identical(g$ess_weights, NA_real_)
  expect_equal(g$ess_samples, ess(gp_fitc))
  expect_identical(g$method, "FITC")
  expect_identical(g$iterations, as.integer(gp_fitc$iterations[[1L]]))
  expect_identical(glance(gp_vfe)$method, "VFE")
})

test_that("augment adds fitted, residuals, standard errors, leverage and LOO residuals", {
  for (k in names(fits)) {
    fit <- fits[[k]]
    a <- augment(fit)
    per_sample <- length(fit$lambda) > 1L
    expect_named(a, c(if (k == "poisson") character(0) else names(model.frame(fit)), ".fitted", ".resid", ".se.fit",
                      ".hat", ".loo_resid", if (per_sample) ".lambda"), info = k)
    expect_equal(a$.fitted, unname(fitted(fit)), info = k)
    expect_equal(a$.resid, unname(residuals(fit)), info = k)
    expect_equal(a$.hat, unname(hatvalues(fit)), info = k)
    expect_equal(a$.loo_resid, unname(residuals(fit, type = "loo")), info = k)
    se_type <- if (inherits(fit, "sb_rvm")) list(type = if (fit$family$family == "gaussian") "response" else "link")
    expect_equal(a$.se.fit, unname(do.call(predict, c(list(fit), se_type, list(se.fit = TRUE)))$se.fit), info = k)
    if (per_sample) expect_equal(a$.lambda, fit$lambda, info = k)
  }
  a <- augment(fits$gaussian, se_fit = FALSE)
  expect_named(a, c("accel", "times", ".fitted", ".resid", ".hat", ".loo_resid"))
  expect_equal(a$accel, MASS::mcycle$accel)
  expect_identical(rownames(a), rownames(MASS::mcycle))
  expect_false(".rownames" %in% names(a))
})

test_that("augment of binomial and poisson fits follows type.predict", {
  fit <- fits$binomial
  expect_equal(augment(fit, type.predict = "link")$.fitted, unname(fit$linear.predictors))
  cls <- augment(fit, type.predict = "class")$.fitted
  expect_identical(levels(cls), c("0", "1"))
  expect_identical(as.character(cls), unname(ifelse(fitted(fit) > 0.5, "1", "0")))
  expect_equal(augment(fits$poisson, type.predict = "link")$.fitted, unname(fits$poisson$linear.predictors))
  expect_error(augment(fits$poisson, type.predict = "class"), "`type.predict` must be one of \"response\", \"link\"")
  expect_error(augment(fits$gaussian, type.predict = "link"), "`type.predict` must be one of \"response\"")
  te <- MASS::synth.te[1:20, ]
  a <- augment(fit, newdata = te)
  expect_named(a, c(names(te), ".fitted", ".se.fit"))
  p <- predict(fit, te, type = "response", se.fit = TRUE)
  expect_equal(a$.fitted, p$fit)
  expect_equal(a$.se.fit, p$se.fit)
  a <- augment(fit, newdata = te, type.predict = "class")
  expect_named(a, c(names(te), ".fitted"))
  expect_identical(a$.fitted, predict(fit, te, type = "class"))
})

test_that("augment with newdata gives predict()'s fit and standard error", {
  nd <- data.frame(times = c(5, 15.5, 30, 50))
  for (k in c("gaussian", "sample", "student", "smooth", "centres", "ard", "ard_sample")) {
    fit <- fits[[k]]
    a <- augment(fit, newdata = nd)
    expect_named(a, c("times", ".fitted", ".se.fit"), info = k)
    p <- predict(fit, nd, se.fit = TRUE)
    expect_equal(a$.fitted, unname(p$fit), info = k)
    expect_equal(a$.se.fit, unname(p$se.fit), info = k)
    expect_named(augment(fit, newdata = nd, se_fit = FALSE), c("times", ".fitted"))
  }
  a <- augment(gp_fitc, newdata = nd)
  expect_equal(a$.fitted, predict(gp_fitc, nd))
  expect_equal(a$.se.fit, predict(gp_fitc, nd, se.fit = TRUE)$se.fit)
  # matrix fits take a matrix
  a <- augment(fits$poisson, newdata = c(-1, 0, 1))
  expect_equal(a$.fitted, predict(fits$poisson, c(-1, 0, 1)))
  # `...` reaches predict
  expect_equal(augment(fits$gaussian, newdata = nd, variance = "rvm")$.se.fit,
               predict(fits$gaussian, nd, se.fit = TRUE, variance = "rvm")$se.fit)
  expect_error(augment(fits$gaussian, newdata = data.frame(time = 1)), "`newdata` lacks the variable\\(s\\) times")
  expect_error(augment(fits$poisson, newdata = matrix(1, 2, 3)), "`newdata` has 3 columns")
  expect_error(augment(fits$gaussian, se_fit = NA), "`se_fit`")
  expect_error(augment(fits$gaussian, foo = 1), "unknown argument")
})

test_that("augment pads na.exclude rows, drops na.omit rows, and checks `data`", {
  d <- MASS::mcycle
  d$accel[c(3, 10)] <- NA
  fit <- rvm(accel ~ times, data = d, na.action = na.exclude)
  a <- augment(fit)
  expect_identical(nrow(a), nrow(d))
  expect_true(all(is.na(a[c(3, 10), c(".fitted", ".resid", ".se.fit", ".hat", ".loo_resid")])))
  expect_equal(a$.fitted, unname(fitted(fit)))
  expect_equal(a$.hat, unname(hatvalues(fit)))
  expect_equal(a$.resid, unname(residuals(fit)))
  expect_identical(rownames(a), rownames(d))
  # the user's data with every column
  a2 <- augment(fit, data = cbind(d, extra = seq_len(nrow(d))))
  expect_identical(a2$extra, seq_len(nrow(d)))
  expect_equal(a2$.fitted, a$.fitted)
  # na.omit: the data may include the omitted rows, which are dropped
  fo <- rvm(accel ~ times, data = d)
  ao <- augment(fo, data = d)
  expect_identical(nrow(ao), nrow(d) - 2L)
  expect_identical(ao$.rownames, rownames(d)[-c(3, 10)])
  expect_equal(ao$.fitted, unname(fitted(fo)))
  expect_identical(nrow(augment(fo)), nrow(d) - 2L)
  # LOO residuals of an na.omit fit: one per fitted case (the rows were dropped once, not twice)
  expect_equal(ao$.loo_resid, unname(residuals(fo) / (1 - hatvalues(fo))))
  expect_error(augment(fo, data = d[1:50, ]), "`data` has 50 rows but the fit has 131")
  expect_error(augment(fit, data = d[-1, ]), "`data` has 132 rows but the fit has 133 \\(na.exclude rows included\\)")
  # the training data must still exist to be rebuilt
  e <- new.env()
  local({
    dd <- MASS::mcycle
    f <- rvm(accel ~ times, data = dd)
    rm(dd)
    assign("f", f, envir = e)
  }, envir = e)
  expect_error(augment(e$f), "cannot rebuild the model frame")
  expect_named(augment(e$f, data = MASS::mcycle)[1:2], c("times", "accel"))
})

test_that("augment of multiclass fits, sparse GPs and user-basis fits", {
  a <- augment(iris_fit)
  expect_named(a, c(names(iris)[c(5, 1:4)], ".fitted", ".prob_setosa", ".prob_versicolor", ".prob_virginica"))
  expect_identical(a$.fitted, unname(predict(iris_fit)))
  expect_equal(as.matrix(a[, 7:9]), unname(predict(iris_fit, type = "prob")), ignore_attr = TRUE)
  an <- augment(iris_fit, newdata = iris[c(1, 51, 101), 1:4])
  expect_identical(an$.rownames, c("1", "51", "101"))
  expect_identical(as.character(an$.fitted), c("setosa", "versicolor", "virginica"))
  expect_equal(rowSums(an[, 7:9]), rep(1, 3), ignore_attr = TRUE)
  expect_error(augment(iris_fit, type.predict = "prob"), "`type.predict` must be one of \"class\"")
  a <- augment(gp_fitc)
  expect_named(a, c("accel", "times", ".fitted", ".resid", ".se.fit", ".hat", ".loo_resid"))
  expect_equal(a$.fitted, unname(fitted(gp_fitc)))
  expect_equal(a$.hat, unname(hatvalues(gp_fitc)))
  expect_equal(a$.loo_resid, unname(residuals(gp_fitc, type = "loo")))
  expect_equal(a$.se.fit, predict(gp_fitc, se.fit = TRUE)$se.fit, ignore_attr = TRUE)
  B <- cbind(1, poly(MASS::mcycle$times, 3))
  ub <- rvm(NULL, MASS::mcycle$accel, basis = B)
  a <- augment(ub)
  expect_named(a, c(".fitted", ".resid"))
  expect_equal(a$.fitted, unname(fitted(ub)))
})

test_that("the generics broom uses dispatch to these methods", {
  fit <- fits$gaussian
  expect_identical(generics::tidy(fit), tidy(fit))
  expect_identical(generics::glance(fit), glance(fit))
  expect_identical(generics::augment(fit), augment(fit))
  skip_if_not_installed("broom")
  expect_identical(broom::tidy(fit), tidy(fit))
  expect_identical(broom::glance(fit), glance(fit))
  expect_identical(broom::augment(fit), augment(fit))
})

test_that("model.matrix: the basis times coef is the linear predictor; the inputs are the data's", {
  d <- MASS::mcycle
  for (k in c("gaussian", "sample", "smooth", "centres", "ard")) {
    fit <- fits[[k]]
    X <- model.matrix(fit)
    b <- if (k == "ard") coef(fit, standardised = TRUE) else coef(fit)
    expect_identical(colnames(X), names(b), info = k)
    expect_equal(drop(X %*% b), fitted(fit), info = k)
  }
  fit <- fits$binomial
  expect_equal(drop(model.matrix(fit) %*% coef(fit)), fit$linear.predictors, ignore_attr = TRUE)
  expect_equal(unname(model.matrix(fits$gaussian, type = "inputs")), matrix(d$times))
  expect_identical(colnames(model.matrix(fits$gaussian, type = "inputs")), "times")
  # ard: the inputs are lm's model matrix; the basis is in standardised units
  expect_equal(model.matrix(fits$ard, type = "inputs"), model.matrix(lm(accel ~ poly(times, 4), data = d)),
               ignore_attr = TRUE)
  # and coef() is on the inputs' scale
  X <- model.matrix(fits$ard, type = "inputs")
  expect_equal(drop(X[, names(coef(fits$ard))] %*% coef(fits$ard)), fitted(fits$ard), ignore_attr = TRUE)
  # sparse GP: mean + K weights is the fitted mean
  K <- model.matrix(gp_fitc)
  expect_identical(dim(K), c(nrow(d), 10L))
  expect_equal(gp_fitc$mean + drop(K %*% gp_fitc$weights), fitted(gp_fitc), ignore_attr = TRUE)
  expect_equal(unname(model.matrix(gp_fitc, type = "inputs")), matrix(d$times))
  # multiclass: one basis per class
  B <- model.matrix(iris_fit)
  expect_named(B, levels(iris$Species))
  expect_equal(drop(B$versicolor %*% coef(iris_fit$models$versicolor)), iris_fit$models$versicolor$linear.predictors,
               ignore_attr = TRUE)
  expect_identical(dim(model.matrix(iris_fit, type = "inputs")), c(150L, 4L))
  ub <- rvm(NULL, d$accel, basis = cbind(1, poly(d$times, 3)))
  expect_error(model.matrix(ub), "user-supplied `basis` does not store it")
  expect_error(model.matrix(ub, type = "inputs"), "stores no inputs")
  expect_error(model.matrix(fits$gaussian, type = "design"), "`type` must be one of")
})

test_that("model.frame rebuilds formula fits' frames and refuses matrix fits", {
  mf <- model.frame(fits$gaussian)
  expect_identical(names(mf), c("accel", "times"))
  expect_identical(nrow(mf), nrow(MASS::mcycle))
  d <- MASS::mcycle
  d$accel[3] <- NA
  fit <- rvm(accel ~ times, data = d, subset = times > 5)
  expect_identical(nrow(model.frame(fit)), length(fit$y))
  expect_identical(nrow(model.frame(fit, na.action = na.pass)), sum(d$times > 5))
  expect_error(model.frame(fits$poisson), "a fit from a matrix has no model frame")
})

test_that("deviance is glm's for every family", {
  fit <- fits$gaussian
  expect_equal(deviance(fit), sum(residuals(fit)^2))
  fit <- fits$binomial
  y <- fit$y
  p <- fitted(fit)
  expect_equal(deviance(fit), -2 * sum(y * log(p) + (1 - y) * log(1 - p)))
  fit <- fits$poisson
  y <- fit$y
  mu <- fitted(fit)
  expect_equal(deviance(fit), 2 * sum(ifelse(y > 0, y * log(y / mu), 0) - (y - mu)))
  # a glm with the same linear predictor has the same deviance
  g <- glm(fit$y ~ offset(fit$linear.predictors) - 1, family = poisson())
  expect_equal(deviance(fit), deviance(g))
  expect_equal(deviance(gp_fitc), sum(residuals(gp_fitc)^2))
  p <- predict(iris_fit, type = "prob")
  expect_equal(deviance(iris_fit), -2 * sum(log(p[cbind(1:150, as.integer(iris$Species))])))
  # prior weights weight the squared residuals
  set.seed(2)
  w <- runif(nrow(MASS::mcycle), 0.5, 2)
  fw <- rvm(accel ~ times, data = MASS::mcycle, weights = w)
  expect_equal(deviance(fw), sum(w * residuals(fw)^2))
})

test_that("df.residual is n minus the trace of the hat matrix (sum of gamma)", {
  for (k in c("gaussian", "sample", "student", "binomial", "poisson", "ard", "ard_sample")) {
    fit <- fits[[k]]
    gamma <- 1 - fit$alpha[fit$relevant] * diag(fit$Sigma)
    expect_equal(df.residual(fit), nobs(fit) - sum(gamma), info = k)
    expect_equal(df.residual(fit), nobs(fit) - sum(hatvalues(fit)), tolerance = 1e-6, info = k)
  }
  expect_equal(df.residual(gp_fitc), nobs(gp_fitc) - sum(hatvalues(gp_fitc)) - 1)
  expect_equal(df.residual(iris_fit),
               150 - sum(vapply(iris_fit$models, function(m) sum(1 - m$alpha[m$relevant] * diag(m$Sigma)), 0)))
  # zero weights leave rows out of n, as for lm
  w <- rep(1, nrow(MASS::mcycle))
  w[1:3] <- 0
  fw <- rvm(accel ~ times, data = MASS::mcycle, weights = w)
  expect_equal(df.residual(fw), 130 - sum(hatvalues(fw)), tolerance = 1e-6)
  expect_identical(unname(hatvalues(fw)[1:3]), c(0, 0, 0))
})

test_that("with prior weights hat values and Pearson residuals are lm's and glm's", {
  set.seed(5)
  d <- MASS::mcycle
  w <- runif(nrow(d), 0.5, 2)
  fit <- ard(accel ~ poly(times, 3), data = d, weights = w)
  gamma <- 1 - fit$alpha[fit$relevant] * diag(fit$Sigma)
  expect_equal(sum(hatvalues(fit)), sum(gamma), tolerance = 1e-8)
  # the hat matrix X (X' W X / lambda + A)^-1 X' W / lambda, from alpha, lambda and w alone (a fit
  # without intercept: no centring in standard units)
  f0 <- ard(poly(d$times, 3), d$accel - mean(d$accel), intercept = FALSE, scale = FALSE, weights = w)
  X <- model.matrix(f0)
  S <- solve(crossprod(X * sqrt(w)) / f0$lambda + diag(f0$alpha[f0$relevant], ncol(X)))
  # lambda is the noise of a row of average weight: row i's is lambda * weight_unit / w_i
  w0 <- w / f0$weight_unit
  S <- solve(crossprod(X * sqrt(w0)) / f0$lambda + diag(f0$alpha[f0$relevant], ncol(X)))
  expect_equal(unname(hatvalues(f0)), rowSums((X %*% S) * X) * w0 / f0$lambda, tolerance = 1e-6)
  expect_equal(residuals(fit, type = "pearson"), sqrt(w / fit$weight_unit) * residuals(fit) / sqrt(fit$lambda))
  # binomial: pearson residuals and working weights as glm's, with the prior weights
  tr <- transform(MASS::synth.tr, yc = factor(yc))
  wb <- rep(c(1, 2), length.out = nrow(tr))
  fb <- rvm(yc ~ xs + ys, data = tr, kernel = kernel_gaussian(0.5), scale = FALSE, weights = wb)
  p <- fitted(fb)
  expect_equal(residuals(fb, type = "pearson"), sqrt(wb) * (fb$y - p) / sqrt(p * (1 - p)), ignore_attr = TRUE)
  expect_equal(unname(weights(fb, type = "working")), unname(wb * p * (1 - p)))
  X <- model.matrix(fb)
  expect_equal(unname(hatvalues(fb)), unname(rowSums((X %*% vcov(fb)) * X) * weights(fb, type = "working")))
})

test_that("weights() gives the prior weights (not the posterior mean) and the working weights", {
  expect_null(weights(fits$gaussian))
  set.seed(2)
  d <- MASS::mcycle
  w <- runif(nrow(d), 0.5, 2)
  fw <- rvm(accel ~ times, data = d, weights = w)
  expect_equal(unname(weights(fw)), w)
  expect_identical(names(weights(fw)), rownames(d))
  expect_equal(unname(weights(fw, type = "working")), w / fw$weight_unit / fw$lambda)
  expect_equal(unname(weights(fits$sample, type = "working")), 1 / fits$sample$lambda)
  expect_equal(unname(weights(fits$poisson, type = "working")), unname(fitted(fits$poisson)))
  expect_equal(unname(weights(gp_fitc, type = "working")), 1 / gp_fitc$Lambda)
  # padded for na.exclude, as residuals
  d$accel[4] <- NA
  fe <- rvm(accel ~ times, data = d, weights = w, na.action = na.exclude)
  expect_identical(length(weights(fe)), nrow(d))
  expect_true(is.na(weights(fe)[4]))
  expect_equal(unname(weights(fe)[-4]), w[-4])
  expect_equal(unname(weights(iris_fit)), NULL)
  expect_error(weights(iris_fit, type = "working"), "working weights per class")
  expect_error(weights(fw, type = "posterior"), "`type` must be one of")
})

test_that("family() gives the likelihood's family object", {
  expect_identical(family(fits$gaussian), fits$gaussian$family)
  expect_identical(family(fits$binomial)$family, "binomial")
  expect_identical(family(fits$poisson)$link, "log")
  expect_identical(family(fits$ard)$family, "gaussian")
  expect_identical(family(gp_fitc)$family, "gaussian")
  expect_identical(family(iris_fit)$family, "binomial")
})

test_that("logLik is the log evidence with no df; AIC and BIC refuse it, except for FITC and exact GPs", {
  for (k in names(fits)) {
    ll <- logLik(fits[[k]])
    expect_equal(as.numeric(ll), fits[[k]]$logLik, info = k)
    expect_identical(attr(ll, "df"), NA_real_, info = k)
    expect_identical(attr(ll, "nobs"), nobs(fits[[k]]), info = k)
    expect_error(AIC(fits[[k]]), "AIC\\(\\) is not defined for RVM and ARD fits.*anova\\(\\)", info = k)
    expect_error(BIC(fits[[k]]), "BIC\\(\\) is not defined for RVM and ARD fits", info = k)
  }
  # with a smoothness prior, logLik is the evidence alone: the prior is in log_posterior
  expect_false(isTRUE(all.equal(fits$smooth$logLik, fits$smooth$log_posterior)))
  expect_error(AIC(iris_fit), "AIC\\(\\) is not defined")
  expect_error(AIC(gp_vfe), "not defined for a VFE sparse GP: its logLik is a lower bound")
  expect_error(AIC(gp_fitc, fits$gaussian), "not defined for RVM and ARD fits")
  ll <- logLik(gp_fitc)
  expect_equal(AIC(gp_fitc), -2 * gp_fitc$logLik + 2 * attr(ll, "df"))
  expect_equal(AIC(gp_fitc, k = 3), -2 * gp_fitc$logLik + 3 * attr(ll, "df"))
  expect_equal(BIC(gp_fitc), -2 * gp_fitc$logLik + log(133) * attr(ll, "df"))
  gp2 <- sparse_gp(accel ~ times, data = MASS::mcycle, approx = "exact", optimize = "hyper")
  tab <- AIC(gp_fitc, gp2)
  expect_named(tab, c("df", "AIC"))
  expect_identical(rownames(tab), c("gp_fitc", "gp2"))
  expect_equal(tab$AIC, c(AIC(gp_fitc), AIC(gp2)))
  expect_equal(BIC(gp_fitc, gp2)$BIC, c(BIC(gp_fitc), BIC(gp2)))
})

test_that("anova compares fits of the same data by log Bayes factors", {
  d <- MASS::mcycle
  f1 <- fits$gaussian
  f2 <- rvm(accel ~ times, data = d, kernel = "laplace")
  tab <- anova(f1, f2, fits$ard, gp_fitc)
  expect_s3_class(tab, "anova")
  expect_named(tab, c("Relevant", "logLik", "log BF"))
  ll <- c(f1$logLik, f2$logLik, fits$ard$logLik, gp_fitc$logLik)
  expect_equal(tab$logLik, ll)
  expect_equal(tab$`log BF`, ll - ll[1])
  expect_equal(tab$Relevant, c(length(f1$relevant), length(f2$relevant), length(fits$ard$relevant), 10))
  expect_output(print(tab), "Model 2: rvm\\(formula = accel ~ times, data = d, kernel = \"laplace\"\\)")
  expect_false(any(grepl("VFE", attr(tab, "heading"))))
  expect_match(attr(anova(f1, gp_vfe), "heading"), "VFE fits report a lower bound", all = FALSE)
  ir2 <- rvm(Species ~ Petal.Length + Petal.Width, data = iris)
  expect_equal(anova(iris_fit, ir2)$`log BF`[2], as.numeric(logLik(ir2)) - as.numeric(logLik(iris_fit)))
  expect_error(anova(f1), "compares two or more fits")
  expect_error(anova(f1, lm(accel ~ times, data = d)), "compares sparsebayes fits only")
  expect_error(anova(f1, rvm(accel ~ times, data = d[-1, ])), "fitted to different responses")
  expect_error(anova(fits$binomial, iris_fit), "fitted to different responses")
  expect_error(anova(fits$poisson, rvm(seq(-3, 3, length.out = 80), fits$poisson$y)), "different families")
  expect_error(anova(f1, rvm(accel ~ times, data = d, weights = rep(2, 133))), "different prior weights")
  # the noise models' evidences: a bound for Student-t, inflated by n variances for "sample"
  st <- rvm(accel ~ times, data = d, noise = "student")
  sa <- suppressWarnings(rvm(accel ~ times, data = d, noise = "sample"))
  expect_match(attr(anova(f1, st), "heading"), "variational lower bound", all = FALSE)
  expect_match(attr(anova(st, sa), "heading"), "one variance per sample.*inflated", all = FALSE)
  expect_false(any(grepl("per sample|variational", attr(anova(f1, f2), "heading"))))
  expect_false(any(grepl("per sample", attr(anova(sa, sa), "heading"))))
})
