# The multinomial (softmax) RVM of more than two classes: one model on one
# basis, relevance vectors shared by the classes (multinomial.hpp).

test_that("shared precisions: one softmax model whose probabilities sum to one", {
  fit <- rvm(Species ~ ., data = iris, multiclass = "multinomial_shared")
  expect_s3_class(fit, "sb_rvm_multiclass")
  expect_identical(fit$multiclass, "multinomial_shared")
  expect_true(fit$converged)
  expect_equal(dim(fit$weights), c(length(fit$models[[1L]]$relevant), 3L))
  expect_equal(dim(vcov(fit)), rep(3L * nrow(fit$weights), 2L))
  # every class model is a view of the same relevant set
  rel <- lapply(fit$models, `[[`, "relevant")
  expect_true(all(vapply(rel, identical, logical(1), rel[[1L]])))
  p <- predict(fit, iris, type = "prob")
  expect_equal(colnames(p), levels(iris$Species))
  expect_equal(unname(rowSums(p)), rep(1, 150), tolerance = 1e-12)
  expect_equal(unname(predict(fit, type = "prob")), unname(p))
  expect_gt(mean(predict(fit, iris) == iris$Species), 0.95)
  # far from the data only the bias (not relevant here) is left: near the class shares
  far <- predict(fit, data.frame(Sepal.Length = 40, Sepal.Width = -30, Petal.Length = 50, Petal.Width = 20),
                 type = "prob")
  expect_lt(max(abs(far - 1 / 3)), 0.15)
  expect_output(print(fit), "multinomial")
  expect_output(print(fit), "shared by the classes")
  s <- summary(fit)
  expect_output(print(s), "confusion table")
  expect_equal(sum(s$confusion), 150L)
  expect_equal(s$log_loss, mean(-log(p[cbind(1:150, as.integer(iris$Species))])))
  expect_s3_class(logLik(fit), "logLik")
  expect_equal(as.numeric(logLik(fit)), fit$logLik)
  expect_equal(dim(residuals(fit)), c(150L, 3L))
  pdf(NULL)
  on.exit(dev.off())
  fit2 <- rvm(Species ~ Sepal.Length + Petal.Width, data = iris, multiclass = "multinomial_shared")
  expect_identical(plot(fit2), fit2)
})

test_that("with widths learned per input, the separable class is sure on its own rows", {
  fit <- rvm(Species ~ ., data = iris, kernel = kernel_gaussian("learn"))
  expect_gte(min(predict(fit, iris[1:50, ], type = "prob")[, "setosa"]), 0.97)
  # the probabilities integrated over the latent posterior are less sure, never more
  p <- predict(fit, iris[1:50, ], type = "prob", probability = "integrated")
  expect_true(all(p[, "setosa"] < predict(fit, iris[1:50, ], type = "prob")[, "setosa"]))
  expect_gt(min(p[, "setosa"]), 0.9)
})

test_that("probabilities are deterministic and leave the random number stream alone", {
  fit <- rvm(Species ~ Petal.Length + Petal.Width, data = iris)
  set.seed(3)
  a <- predict(fit, iris[c(1, 60, 120), ], type = "prob", probability = "integrated")
  after_a <- runif(1)
  set.seed(3)
  b <- predict(fit, iris[c(1, 60, 120), ], type = "prob", probability = "integrated")
  expect_identical(a, b)
  expect_identical(runif(1), after_a)
})

test_that("multinomial integer weights act as replicated rows", {
  set.seed(5)
  d <- iris[sample(150, 60), c("Sepal.Length", "Sepal.Width", "Species")]
  w <- rep(1:3, 20)
  C <- as.matrix(d[seq(1, 60, by = 3), 1:2])
  a <- rvm(Species ~ Sepal.Length + Sepal.Width, data = d, weights = w, kernel = kernel_gaussian(1), centres = C)
  b <- rvm(Species ~ Sepal.Length + Sepal.Width, data = d[rep(seq_len(60), w), ], kernel = kernel_gaussian(1),
           centres = C)
  expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = 1e-6)
  expect_equal(predict(a, d, type = "prob"), predict(b, d, type = "prob"), tolerance = 1e-6)
  # and so they do with the default kernel centred on every (distinct) row
  a <- rvm(Species ~ Sepal.Length + Sepal.Width, data = d, weights = w, kernel = kernel_gaussian(1))
  b <- rvm(Species ~ Sepal.Length + Sepal.Width, data = d[rep(seq_len(60), w), ], kernel = kernel_gaussian(1))
  expect_equal(predict(a, d, type = "prob"), predict(b, d, type = "prob"), tolerance = 1e-6)
})

test_that("the multinomial fit's settings are checked", {
  expect_error(rvm(Species ~ ., data = iris, method = "em"), "`method` must be \"fast\" for a multinomial")
  expect_error(rvm(Species ~ ., data = iris, offset = rep(0, 150)), "`offset` is not supported")
  expect_error(rvm(Species ~ ., data = iris, multiclass = "pairs"), "`multiclass` must be one of")
  ovr <- rvm(Species ~ ., data = iris, multiclass = "one_vs_rest")
  expect_error(predict(ovr, iris, type = "prob", probability = "mode"), "`probability` \"mode\" is for a multinomial")
  expect_error(predict(ovr, iris, type = "prob", probability = "plug"), "`probability` must be one of")
  # intervals are for one latent function: refused by name, not silently ignored
  multi <- rvm(Species ~ ., data = iris)
  expect_error(predict(multi, iris, interval = "prediction"), "`interval` is for one latent function")
  expect_error(predict(multi, iris, se.fit = TRUE), "`se.fit` is for one latent function")
  expect_error(predict(ovr, iris, level = 0.9), "`level` is for one latent function")
  expect_error(predict(multi, iris, colour = 2), "unknown argument")
  expect_s3_class(rvm(Species ~ ., data = iris, method = "em", multiclass = "one_vs_rest"), "sb_rvm_multiclass")
})

test_that("the reliability diagram of any classifier, and the two-class summary's scores", {
  pdf(NULL)
  on.exit(dev.off())
  multi <- rvm(Species ~ ., data = iris)
  expect_identical(plot(multi, which = "reliability"), multi)
  r <- sparsebayes:::reliability_table(predict(multi, type = "prob"), iris$Species)
  expect_equal(sum(r$count), 450L)
  expect_true(all(r$predicted >= 0 & r$predicted <= 1 & r$observed >= 0 & r$observed <= 1))
  d <- transform(MASS::synth.tr, yc = factor(yc))
  two <- rvm(yc ~ xs + ys, data = d)
  expect_identical(plot(two, which = "reliability"), two)
  expect_error(plot(rvm(accel ~ times, data = MASS::mcycle), which = "reliability"), "is for classifiers")
  s <- summary(two)
  p <- fitted(two)
  y <- as.integer(d$yc == "1")
  expect_equal(s$scores[["log_loss"]], mean(-log(ifelse(y == 1, p, 1 - p))))
  expect_equal(s$scores[["brier"]], mean((p - y)^2))
  auc <- (sum(rank(p)[y == 1]) - sum(y) * (sum(y) + 1) / 2) / (sum(y) * sum(1 - y))
  expect_equal(s$scores[["auc"]], auc)
  expect_output(print(s), "Training log loss")
  # integer weights count a row that many times in the scores
  w <- rep(1:2, length.out = nrow(d))
  fw <- rvm(yc ~ xs + ys, data = d, weights = w, kernel = kernel_gaussian(0.5), scale = FALSE)
  pw <- fitted(fw)
  yr <- rep(y, w)
  pr <- rep(pw, w)
  expect_equal(summary(fw)$scores[["auc"]], (sum(rank(pr)[yr == 1]) - sum(yr) * (sum(yr) + 1) / 2) /
                 (sum(yr) * sum(1 - yr)))
  expect_equal(summary(fw)$scores[["log_loss"]], mean(-log(ifelse(yr == 1, pr, 1 - pr))))
})

test_that("per-class precisions (the default): each class keeps its own relevance vectors, one softmax model", {
  fit <- rvm(Species ~ ., data = iris)
  shared <- rvm(Species ~ ., data = iris, multiclass = "multinomial_shared")
  expect_identical(fit$multiclass, "multinomial")
  # every class view holds its own columns; the weights of the others are exactly 0
  for (k in levels(iris$Species)) {
    own <- fit$models[[k]]$relevant
    expect_true(all(own %in% fit$relevant))
    expect_true(all(coef(fit)[!fit$relevant %in% own, k] == 0))
    expect_true(all(is.infinite(fit$models[[k]]$alpha[setdiff(fit$relevant, own)])))
  }
  expect_gt(length(unique(lapply(fit$models, `[[`, "relevant"))), 1L)
  p <- predict(fit, iris, type = "prob")
  expect_equal(unname(rowSums(p)), rep(1, 150), tolerance = 1e-12)
  expect_gt(mean(predict(fit) == iris$Species), 0.95)
  # the evidence of the richer model is at least that of the shared one here
  expect_gt(as.numeric(logLik(fit)), as.numeric(logLik(shared)))
  expect_output(print(fit), "(multinomial)", fixed = TRUE)
  expect_output(print(fit), "per class: ")
  expect_identical(glance(fit)$relevant, length(fit$relevant))
})

test_that("property: over seeds, class counts and both sparsity designs, integer weights equal replicated rows", {
  for (seed in 1:4) for (multiclass in c("multinomial", "multinomial_shared")) {
    set.seed(seed)
    K <- 3L + seed %% 2L
    n <- 40L + 10L * seed
    x <- matrix(rnorm(2L * n), n, dimnames = list(NULL, c("a", "b")))
    f <- cbind(x[, 1L], x[, 2L], -x[, 1L] - x[, 2L], x[, 1L] * x[, 2L])[, seq_len(K)]
    y <- factor(apply(f + matrix(rnorm(n * K, sd = 0.7), n), 1L, which.max), levels = seq_len(K))
    w <- sample(1:3, n, replace = TRUE)
    C <- x[seq(1L, n, by = 4L), , drop = FALSE]
    a <- rvm(x, y, weights = w, kernel = kernel_gaussian(1), centres = C, multiclass = multiclass)
    b <- rvm(x[rep(seq_len(n), w), ], y[rep(seq_len(n), w)], kernel = kernel_gaussian(1), centres = C,
             multiclass = multiclass)
    info <- sprintf("seed %d, %s, K = %d", seed, multiclass, K)
    p <- predict(a, x, type = "prob")
    expect_equal(p, predict(b, x, type = "prob"), tolerance = 1e-6, info = info)
    expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = 1e-6, info = info)
    expect_equal(unname(rowSums(p)), rep(1, n), tolerance = 1e-12, info = info)
    expect_true(a$converged, info = info)
  }
})

test_that("the multinomial fit does not depend on the order of the classes or of the rows", {
  set.seed(11)
  rows <- sample(150)
  for (multiclass in c("multinomial", "multinomial_shared")) {
    a <- rvm(Species ~ ., data = iris, multiclass = multiclass)
    pa <- predict(a, iris, type = "prob")
    d <- iris
    d$Species <- factor(d$Species, levels = rev(levels(d$Species)))
    b <- rvm(Species ~ ., data = d, multiclass = multiclass)
    expect_equal(predict(b, iris, type = "prob")[, levels(iris$Species)], pa, tolerance = 1e-10, info = multiclass)
    expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-10, info = multiclass)
    c <- rvm(Species ~ ., data = iris[rows, ], multiclass = multiclass)
    expect_equal(predict(c, iris, type = "prob"), pa, tolerance = 1e-10, info = multiclass)
  }
})
