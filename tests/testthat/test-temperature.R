# Class probabilities at a temperature chosen by inner CV (R/temperature.R).

two_class <- function(n = 120, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n, -3, 3), x2 = runif(n, -3, 3))
  d$cls <- factor(ifelse(runif(n) < plogis(2 * sin(d$x1) + d$x2), "yes", "no"))
  d
}

test_that("inner folds come from the rows' content: copies one group, any row order, by class", {
  groups <- sparsebayes:::content_groups
  folds <- sparsebayes:::group_folds
  set.seed(2)
  x <- matrix(rnorm(60), 30)
  y <- factor(rep(c("a", "b"), each = 15))
  x2 <- rbind(x, x[1:5, ])  # copies of five rows
  y2 <- factor(c(as.character(y), as.character(y[1:5])))
  g <- groups(x2, y2, NULL, rep(TRUE, 35))
  expect_equal(g[31:35], g[1:5])
  expect_equal(max(g), 30L)
  o <- sample(35)
  expect_equal(groups(x2[o, ], y2[o], NULL, rep(TRUE, 35)), g[o])
  expect_false(any(duplicated(groups(x2, y2, c(1:30, rep(0, 5)), rep(TRUE, 35)))))  # another offset: not a copy
  expect_equal(groups(x2, y2, NULL, c(rep(TRUE, 34), FALSE))[35], 0L)
  f <- folds(as.integer(y)[order(g[1:30])])
  expect_true(all(table(f[1:15]) == 3) && all(table(f[16:30]) == 3))  # every fold holds each class
  expect_equal(folds(c(1L, 2L, 2L, 2L)), c(0L, 1L, 2L, 3L))  # a class of one group is never held out
})

test_that("tempering keeps each row's class and sums to one; two classes scale the logit", {
  temper <- sparsebayes:::temper
  P <- rbind(c(0.2, 0.5, 0.3), c(0.9, 0.05, 0.05), c(1, 0, 0), c(0.4, 0.4, 0.2))
  for (t in c(0.3, 1, 4)) {
    Q <- temper(P, list(t = t))
    expect_equal(rowSums(Q), rep(1, 4))
    expect_equal(max.col(Q, "first"), max.col(P, "first"))
    expect_equal(Q[4, 1], Q[4, 2])  # ties stay ties
  }
  expect_lt(temper(P, list(t = 0.5))[2, 1], 0.9)  # t < 1: less sure
  expect_gt(temper(P, list(t = 2))[2, 1], 0.9)
  expect_identical(temper(P, NULL), P)
  p <- c(0.1, 0.5, 0.8)
  expect_equal(temper(cbind(1 - p, p), list(t = 1.7))[, 2], plogis(1.7 * qlogis(p)))
})

test_that("a two-class rvm() chooses its temperature by inner CV and predict() uses it", {
  d <- two_class()
  fit <- rvm(cls ~ x1 + x2, data = d)
  tt <- fit$temperature
  expect_equal(tt$method, "cv")
  expect_true(tt$t >= 1 / 20 && tt$t <= 20)
  expect_lte(tt$log_loss[["tempered"]], tt$log_loss[["fitted"]] + 1e-12)
  expect_equal(tt$rows, nrow(d))  # every row is held out once
  raw <- rvm(cls ~ x1 + x2, data = d, control = rvm_control(temperature = 1))
  expect_null(raw$temperature)
  expect_equal(coef(raw), coef(fit))  # the temperature changes probabilities only
  p_raw <- predict(raw, d[1:10, ], type = "prob")
  p <- predict(fit, d[1:10, ], type = "prob")
  expect_equal(p, sparsebayes:::temper(p_raw, tt))
  expect_equal(rowSums(p), rep(1, 10))
  expect_equal(predict(fit, d[1:10, ], type = "response"), p[, 2])
  ci <- predict(fit, d[1:10, ], type = "response", interval = "confidence")
  expect_true(all(ci[, "lwr"] <= ci[, "fit"] & ci[, "fit"] <= ci[, "upr"]))
  expect_output(print(summary(fit)), "Probabilities: +at temperature t = ")
  expect_identical(predict(fit, d), predict(raw, d))  # the classes do not change
  given <- rvm(cls ~ x1 + x2, data = d, control = rvm_control(temperature = 0.5))
  expect_equal(given$temperature$t, 0.5)
  expect_output(print(summary(given)), "t = 0.5 \\(given\\)")
})

test_that("the temperature is the same for integer weights and replicated rows, and any row order", {
  d <- two_class(80, seed = 3)
  w <- rep(1:2, length.out = nrow(d))
  a <- rvm(cls ~ x1 + x2, data = d, weights = w)
  b <- rvm(cls ~ x1 + x2, data = d[rep(seq_len(nrow(d)), w), ])
  expect_equal(a$temperature$t, b$temperature$t, tolerance = 1e-6)
  expect_equal(a$temperature$rows, b$temperature$rows)
  expect_equal(predict(a, d, type = "prob"), predict(b, d, type = "prob"), tolerance = 1e-6)
  o <- rev(seq_len(nrow(d)))
  c2 <- rvm(cls ~ x1 + x2, data = d[o, ], weights = w[o])
  expect_equal(c2$temperature$t, a$temperature$t, tolerance = 1e-6)
})

test_that("K classes: none by default, \"cv\" on request; probabilities sum to one", {
  fit <- rvm(Species ~ ., data = iris)
  expect_null(fit$temperature)
  cv <- rvm(Species ~ ., data = iris, control = rvm_control(temperature = "cv"))
  expect_true(cv$temperature$t >= 1 / 20 && cv$temperature$t <= 20)
  p <- predict(cv, iris, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 150))
  expect_output(print(summary(cv)), "Probabilities: +at temperature")
  expect_identical(predict(cv, iris), predict(fit, iris))
  # the integrated probabilities are not those the temperature was chosen for
  expect_equal(predict(cv, iris[1:5, ], type = "prob", probability = "integrated"),
               predict(fit, iris[1:5, ], type = "prob", probability = "integrated"), tolerance = 1e-8)
})

test_that("too few rows leave the probabilities as fitted, and summary() says so", {
  d <- two_class(16, seed = 4)
  fit <- rvm(cls ~ x1 + x2, data = d)
  expect_equal(fit$temperature$t, 1)
  expect_match(fit$temperature$reason, "fewer than 20 distinct rows")
  expect_output(print(summary(fit)), "as fitted \\(t = 1\\): fewer than 20 distinct rows")
})

test_that("a bad temperature setting is a clear error", {
  expect_error(rvm_control(temperature = "platt"), "temperature.*\"auto\", \"cv\" or a number")
  expect_error(rvm_control(temperature = 0), "temperature")
  expect_error(rvm_control(temperature = 30), "temperature")
  expect_error(rvm_control(temperature = NA_real_), "temperature")
})

test_that("a two-class fit from chunks keeps its probabilities and says why", {
  d <- two_class(400, seed = 5)
  centres <- as.matrix(d[seq(1, 400, length.out = 20), c("x1", "x2")])
  fit <- rvm(cls ~ x1 + x2, data = data_chunks(d, chunk_size = 200), kernel = kernel_gaussian(1), centres = centres)
  expect_equal(fit$temperature$t, 1)
  expect_match(fit$temperature$reason, "from chunks")
  expect_output(print(summary(fit)), "as fitted \\(t = 1\\): a fit from chunks")
})
