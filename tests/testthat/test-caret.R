# sparsebayes_caret(): custom model lists for caret::train().

# caret's dependencies ask for the system's time zone when they load; a
# container without systemd answers with a warning that is not ours.
if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC", .local_envir = testthat::teardown_env())

caret_boston <- function(n = 150) {
  data("BostonHousing", package = "mlbench", envir = environment())
  d <- BostonHousing[seq_len(n), c("crim", "rm", "age", "dis", "tax", "ptratio", "lstat", "medv")]
  list(x = d[, -8L], y = d$medv)
}

cv3 <- function(...) caret::trainControl(method = "cv", number = 3, ...)

two_iris <- function() {
  d <- droplevels(iris[iris$Species != "setosa", ])
  list(x = d[, 1:4], y = d$Species)
}

test_that("sparsebayes_caret() returns caret's custom-model fields", {
  for (m in c("rvm", "ard", "sparse_gp")) {
    info <- sparsebayes_caret(m)
    expect_true(all(c("label", "library", "type", "parameters", "grid", "fit", "predict", "prob", "sort",
                      "levels", "varImp", "tags") %in% names(info)), info = m)
    expect_identical(info$library, "sparsebayes")
    expect_s3_class(info$parameters, "data.frame")
    expect_named(info$parameters, c("parameter", "class", "label"))
  }
  expect_identical(sparsebayes_caret("rvm")$type, c("Regression", "Classification"))
  expect_identical(sparsebayes_caret("ard")$type, "Regression")
  expect_identical(sparsebayes_caret("sparse_gp")$type, "Regression")
})

test_that("the default grids start at the package's defaults and are small", {
  d <- caret_boston()
  g <- sparsebayes_caret("rvm")$grid(d$x, d$y, len = 3)
  expect_identical(nrow(g), 3L)
  expect_identical(g$width[1], 0)
  expect_true(all(g$width[-1] > 0))
  expect_equal(g$width[3], 2 * g$width[2])
  expect_identical(nrow(sparsebayes_caret("rvm")$grid(d$x, d$y, len = 1)), 1L)
  expect_identical(sparsebayes_caret("ard")$grid(d$x, d$y, len = 3)$prior, c("auto", "none", "RIC"))
  expect_identical(sparsebayes_caret("sparse_gp")$grid(d$x, d$y, len = 3)$inducing, c(50, 100, 25))
  expect_identical(sparsebayes_caret("sparse_gp")$grid(d$x[1:30, ], d$y[1:30], len = 3)$inducing, c(30, 15, 8))
  set.seed(1)
  r <- sparsebayes_caret("rvm")$grid(d$x, d$y, len = 4, search = "random")
  expect_true(r$width[1] == 0 && nrow(r) == 4L)
  # sort: simplest first
  expect_identical(sparsebayes_caret("rvm")$sort(g)$width, g$width[c(3, 2, 1)])
  expect_identical(sparsebayes_caret("ard")$sort(data.frame(prior = c("auto", "none", "RIC")))$prior,
                   c("RIC", "auto", "none"))
})

test_that("caret::train() tunes and predicts with the three regression models", {
  skip_if_not_installed("caret")
  skip_if_not_installed("mlbench")
  d <- caret_boston()
  for (m in c("rvm", "ard", "sparse_gp")) {
    grid <- switch(m, rvm = NULL, ard = NULL, sparse_gp = data.frame(inducing = c(20, 40)))
    set.seed(1)
    warned <- character()
    fit <- withCallingHandlers(
      caret::train(d$x, d$y, method = sparsebayes_caret(m), trControl = cv3(), tuneLength = 2, tuneGrid = grid),
      warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      })
    expect_identical(warned, character(), info = m)  # no failed fit, no NA in the grid
    expect_s3_class(fit, "train")
    expect_identical(nrow(fit$results), 2L, info = m)
    expect_true(all(is.finite(fit$results$RMSE)), info = m)
    expect_true(min(fit$results$RMSE) < stats::sd(d$y), info = m)
    p <- predict(fit, d$x[1:5, ])
    expect_length(p, 5L)
    expect_true(all(is.finite(p)))
    v <- caret::varImp(fit)$importance
    expect_identical(sort(rownames(v)), sort(colnames(d$x)), info = m)
    expect_true(all(is.finite(v$Overall)), info = m)
  }
})

test_that("a bootstrap's repeated rows cut the sparse GP's inducing points", {
  skip_if_not_installed("caret")
  skip_if_not_installed("mlbench")
  d <- caret_boston(30)
  set.seed(1)
  warned <- character()
  fit <- withCallingHandlers(
    caret::train(d$x, d$y, method = sparsebayes_caret("sparse_gp"), tuneGrid = data.frame(inducing = 30),
                 trControl = caret::trainControl(method = "boot", number = 2)),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_identical(warned, character())  # no resample failed
  expect_true(is.finite(fit$results$RMSE))
  x <- as.matrix(d$x[c(1:10, 1:10, 21:30), ])
  expect_identical(nrow(sparsebayes_caret("sparse_gp")$fit(x, d$y[c(1:10, 1:10, 21:30)], NULL,
                                                               data.frame(inducing = 30), NULL, TRUE, FALSE)$inducing),
                   20L)
})

test_that("the learned widths rank the inputs; a single width refuses varImp()", {
  skip_if_not_installed("caret")
  skip_if_not_installed("mlbench")
  d <- caret_boston()
  set.seed(1)
  fit <- caret::train(d$x, d$y, method = sparsebayes_caret("rvm"), trControl = caret::trainControl(method = "none"),
                      tuneGrid = data.frame(width = NA))
  expect_identical(fit$finalModel$kernel$width_rule, "learn")
  v <- caret::varImp(fit, scale = FALSE)$importance
  expect_equal(max(v$Overall), 1)
  expect_equal(v[input_relevance(fit$finalModel)$input, "Overall"], input_relevance(fit$finalModel)$relevance)
  fixed <- caret::train(d$x, d$y, method = sparsebayes_caret("rvm"), trControl = caret::trainControl(method = "none"),
                        tuneGrid = data.frame(width = 2))
  expect_equal(unname(fixed$finalModel$kernel$width), 2)
  expect_error(caret::varImp(fixed), "one kernel width for all inputs")
  expect_s3_class(caret::varImp(fixed, useModel = FALSE), "varImp.train")
})

test_that("the ARD fit's importance is its log Bayes factors", {
  skip_if_not_installed("caret")
  skip_if_not_installed("mlbench")
  d <- caret_boston()
  fit <- caret::train(d$x, d$y, method = sparsebayes_caret("ard"), trControl = caret::trainControl(method = "none"),
                      tuneGrid = data.frame(prior = "none"))
  expect_identical(fit$finalModel$prior, "none")
  v <- caret::varImp(fit, scale = FALSE)$importance
  lbf <- sparsebayes:::log_bayes_factors(fit$finalModel)
  kept <- intersect(names(lbf), colnames(d$x))
  expect_equal(v[kept, "Overall"], pmax(unname(lbf[kept]), 0))
  expect_true(all(v[setdiff(colnames(d$x), kept), "Overall"] == 0))
  # a number as the prior's price
  num <- caret::train(d$x, d$y, method = sparsebayes_caret("ard"), trControl = caret::trainControl(method = "none"),
                      tuneGrid = data.frame(prior = "2"))
  expect_equal(num$finalModel$smoothness, 2)
})

test_that("case weights reach the fits", {
  skip_if_not_installed("caret")
  skip_if_not_installed("mlbench")
  d <- caret_boston(80)
  w <- rep(c(1, 3), length.out = 80)
  none <- caret::trainControl(method = "none")
  fit <- caret::train(d$x, d$y, method = sparsebayes_caret("ard"), trControl = none, weights = w,
                      tuneGrid = data.frame(prior = "none"))
  expect_equal(unname(fit$finalModel$prior.weights), w)
  direct <- ard(as.matrix(d$x), d$y, weights = w, prior = "none")
  expect_equal(unname(predict(fit, d$x)), unname(predict(direct, as.matrix(d$x))), tolerance = 1e-8)
  gp <- caret::train(d$x, d$y, method = sparsebayes_caret("sparse_gp"), trControl = none, weights = w,
                     tuneGrid = data.frame(inducing = 20))
  expect_equal(unname(gp$finalModel$prior.weights), w)
  rv <- caret::train(d$x, d$y, method = sparsebayes_caret("rvm"), trControl = none, weights = w,
                     tuneGrid = data.frame(width = 2))
  expect_equal(unname(rv$finalModel$prior.weights), w)
})

test_that("caret::train() classifies with the RVM, with class probabilities", {
  skip_if_not_installed("caret")
  d <- two_iris()
  set.seed(1)
  fit <- caret::train(d$x, d$y, method = sparsebayes_caret("rvm"), tuneLength = 2,
                      trControl = cv3(classProbs = TRUE))
  expect_identical(nrow(fit$results), 2L)
  expect_true(max(fit$results$Accuracy) > 0.85)
  cls <- predict(fit, d$x[c(1, 51), ])
  expect_s3_class(cls, "factor")
  expect_identical(levels(cls), levels(d$y))
  pr <- predict(fit, d$x[c(1:3, 51:53), ], type = "prob")
  expect_named(pr, levels(d$y))
  expect_equal(rowSums(pr), rep(1, 6), ignore_attr = TRUE)
  expect_identical(as.character(cls), c("versicolor", "virginica"))
  expect_true(all(is.finite(caret::varImp(fit, useModel = FALSE)$importance[[1]])))
})

test_that("multiclass RVM through caret gives normalised probabilities", {
  skip_if_not_installed("caret")
  set.seed(2)
  rows <- c(sample(1:50, 25), sample(51:100, 25), sample(101:150, 25))
  fit <- caret::train(iris[rows, 1:4], iris$Species[rows], method = sparsebayes_caret("rvm"),
                      trControl = caret::trainControl(method = "none", classProbs = TRUE),
                      tuneGrid = data.frame(width = 0), kernel = kernel_gaussian("learn"))
  expect_length(fit$finalModel$models[[1L]]$kernel$width, 4L)  # a kernel that asks for widths per input keeps them
  pr <- predict(fit, iris[-rows, 1:4], type = "prob")
  expect_named(pr, levels(iris$Species))
  expect_equal(rowSums(pr), rep(1, 75), ignore_attr = TRUE)
  expect_true(mean(predict(fit, iris[-rows, 1:4]) == iris$Species[-rows]) > 0.85)
  v <- caret::varImp(fit)$importance
  expect_setequal(rownames(v), colnames(iris)[1:4])
  default <- caret::train(iris[rows, 1:4], iris$Species[rows], method = sparsebayes_caret("rvm"),
                          trControl = caret::trainControl(method = "none", classProbs = TRUE),
                          tuneGrid = data.frame(width = 0))
  expect_length(default$finalModel$models[[1L]]$kernel$width, 1L)  # the classifier's default: one learned width
  expect_error(caret::varImp(default), "widths learned per input")
})

test_that("data frames with factors are fitted by the formula interface", {
  skip_if_not_installed("caret")
  set.seed(3)
  x <- data.frame(a = rnorm(60), g = factor(sample(c("p", "q"), 60, TRUE)))
  y <- 2 * x$a + (x$g == "q") + rnorm(60, sd = 0.2)
  fit <- caret::train(x, y, method = sparsebayes_caret("ard"), trControl = caret::trainControl(method = "none"),
                      tuneGrid = data.frame(prior = "auto"))
  expect_false(is.null(fit$finalModel$terms))
  expect_true(all(is.finite(predict(fit, x[1:4, ]))))
})

test_that("the error paths are clear", {
  expect_error(sparsebayes_caret("foo"), "`model` must be one of \"rvm\", \"ard\", \"sparse_gp\"; got \"foo\"")
  expect_error(sparsebayes_caret(), "`model` is missing")
  expect_error(sparsebayes_caret(c("rvm", "ard")), "`model` must be one of")
  info <- sparsebayes_caret("rvm")
  d <- linear_data()
  expect_error(info$fit(d$X, d$y, NULL, data.frame(width = -1), NULL, TRUE, FALSE), "`width` must be > 0")
  expect_error(info$fit(d$X, d$y, NULL, data.frame(width = 1), NULL, TRUE, FALSE, kernel = kernel_linear()),
               "has no width")
  skip_if_not_installed("caret")
  expect_error(suppressWarnings(caret::train(iris[, 1:4], iris$Species, method = sparsebayes_caret("ard"),
                                             trControl = caret::trainControl(method = "none"))),
               "wrong model type")
})
