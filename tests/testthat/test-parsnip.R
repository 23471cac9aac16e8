# The "sparsebayes" parsnip engines and the model types rvm_model() and
# sparse_gp_model(): registration, fits equal to the direct calls, the
# prediction types, tuning inside a workflow, and the error paths.

# tune's dependencies ask for the system's time zone when they load; a
# container without systemd answers with a warning that is not ours.
if (!nzchar(Sys.getenv("TZ"))) withr::local_envvar(TZ = "UTC", .local_envir = testthat::teardown_env())

skip_parsnip <- function() {
  skip_if_not_installed("parsnip")
  library(parsnip)  # loading it registers the engines (the hook of .onLoad)
}

skip_tune <- function() {
  skip_parsnip()
  for (p in c("dials", "rsample", "tune", "workflows", "yardstick")) skip_if_not_installed(p)
}

two_iris <- function() droplevels(iris[iris$Species != "setosa", ])

test_that("loading parsnip registers the engines and model types once", {
  skip_parsnip()
  env <- parsnip::get_model_env()
  expect_true(all(c("rvm_model", "sparse_gp_model") %in% env$models))
  for (m in c("linear_reg", "logistic_reg", "multinom_reg", "rvm_model", "sparse_gp_model"))
    expect_true("sparsebayes" %in% env[[m]]$engine, info = m)
  expect_identical(sort(unique(env$rvm_model_predict$type[env$rvm_model_predict$mode == "regression"])),
                   c("conf_int", "numeric", "pred_int"))
  expect_identical(sort(unique(env$rvm_model_predict$type[env$rvm_model_predict$mode == "classification"])),
                   c("class", "prob"))
  expect_false(sparsebayes:::register_parsnip())  # already done: skipped
  expect_identical(sum(env$models == "rvm_model"), 1L)
})

test_that("linear_reg() fits ard() and predicts with intervals", {
  skip_parsnip()
  fit <- linear_reg() |> set_engine("sparsebayes") |> fit(mpg ~ ., data = mtcars)
  expect_s3_class(fit$fit, "sb_ard")
  X <- as.matrix(mtcars[, -1])
  direct <- ard(X, mtcars$mpg)
  new <- mtcars[1:5, ]
  p <- predict(fit, new)
  expect_named(p, ".pred")
  expect_equal(p$.pred, predict(direct, X[1:5, ]), tolerance = 1e-10)
  ci <- predict(fit, new, type = "conf_int", level = 0.9)
  pi <- predict(fit, new, type = "pred_int", level = 0.9)
  expect_named(ci, c(".pred_lower", ".pred_upper"))
  expect_named(pi, c(".pred_lower", ".pred_upper"))
  ref <- predict(direct, X[1:5, ], interval = "prediction", level = 0.9)
  expect_equal(pi$.pred_lower, unname(ref[, "lwr"]), tolerance = 1e-10)
  expect_equal(pi$.pred_upper, unname(ref[, "upr"]), tolerance = 1e-10)
  expect_true(all(pi$.pred_lower < ci$.pred_lower & ci$.pred_lower < p$.pred & p$.pred < ci$.pred_upper &
                    ci$.pred_upper < pi$.pred_upper))
  wide <- predict(fit, new, type = "pred_int", level = 0.99)
  expect_true(all(wide$.pred_upper - wide$.pred_lower > pi$.pred_upper - pi$.pred_lower))
  # engine arguments reach ard()
  robust <- linear_reg() |> set_engine("sparsebayes", noise = "student") |> fit(mpg ~ wt + hp, data = mtcars)
  expect_identical(robust$fit$noise, "student")
})

test_that("factors become dummy columns and case weights reach the fit", {
  skip_parsnip()
  skip_if_not_installed("hardhat")
  d <- transform(mtcars, cyl = factor(cyl))
  fit <- linear_reg() |> set_engine("sparsebayes") |> fit(mpg ~ cyl + wt, data = d)
  expect_setequal(setdiff(colnames(fit$fit$x), "(Intercept)"), c("cyl6", "cyl8", "wt"))
  expect_length(predict(fit, d[1:3, ])$.pred, 3L)
  w <- rep(c(1, 3), 16)
  weighted <- linear_reg() |> set_engine("sparsebayes") |>
    fit(mpg ~ wt + hp, data = mtcars, case_weights = hardhat::frequency_weights(w))
  expect_equal(unname(weighted$fit$prior.weights), w)
  direct <- ard(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, weights = w)
  expect_equal(predict(weighted, mtcars[1:4, ])$.pred, predict(direct, as.matrix(mtcars[1:4, c("wt", "hp")])),
               tolerance = 1e-10)
})

test_that("logistic_reg() and multinom_reg() fit a linear-kernel RVM", {
  skip_parsnip()
  d <- two_iris()
  fit <- logistic_reg() |> set_engine("sparsebayes") |> fit(Species ~ ., data = d)
  expect_s3_class(fit$fit, "sb_rvm")
  expect_identical(fit$fit$kernel$type, "linear")
  direct <- rvm(as.matrix(d[, 1:4]), d$Species, kernel = "linear")
  pr <- predict(fit, d[c(1, 2, 51, 52), ], type = "prob")
  expect_named(pr, c(".pred_versicolor", ".pred_virginica"))
  expect_equal(unname(as.matrix(pr)), unname(predict(direct, as.matrix(d[c(1, 2, 51, 52), 1:4]), type = "prob")),
               tolerance = 1e-10)
  expect_equal(rowSums(pr), rep(1, 4))
  cls <- predict(fit, d, type = "class")$.pred_class
  expect_identical(levels(cls), levels(d$Species))
  expect_gt(mean(cls == d$Species), 0.9)

  multi <- multinom_reg() |> set_engine("sparsebayes") |> fit(Species ~ ., data = iris)
  expect_s3_class(multi$fit, "sb_rvm_multiclass")
  pm <- predict(multi, iris[c(1, 51, 101), ], type = "prob")
  expect_named(pm, paste0(".pred_", levels(iris$Species)))
  expect_equal(rowSums(pm), rep(1, 3))
  expect_gt(mean(predict(multi, iris)$.pred_class == iris$Species), 0.9)
})

test_that("rvm_model() passes the kernel and its width to rvm()", {
  skip_parsnip()
  spec <- rvm_model(kernel = "laplace", width = 2) |> set_mode("regression")
  fit <- fit(spec, mpg ~ wt + hp, data = mtcars)
  expect_identical(fit$fit$kernel$type, "laplace")
  expect_equal(unname(fit$fit$kernel$width), 2)
  direct <- rvm(as.matrix(mtcars[, c("wt", "hp")]), mtcars$mpg, kernel = kernel_laplace(2))
  new <- as.matrix(mtcars[1:4, c("wt", "hp")])
  expect_equal(predict(fit, mtcars[1:4, ])$.pred, predict(direct, new), tolerance = 1e-10)
  ci <- predict(fit, mtcars[1:4, ], type = "conf_int", std_error = TRUE)
  expect_equal(ci$.std_error, unname(predict(direct, new, interval = "confidence", se.fit = TRUE)$se.fit),
               tolerance = 1e-10)
  expect_false(".std_error" %in% names(predict(fit, mtcars[1:4, ], type = "conf_int")))
  expect_output(print(rvm_model(mode = "regression")), "^Relevance Vector Machine Model Specification \\(regression\\)")
  expect_output(print(sparse_gp_model()), "^Sparse Gaussian Process Model Specification \\(regression\\)")
  pi <- predict(fit, mtcars[1:4, ], type = "pred_int")
  ref <- predict(direct, new, interval = "prediction")
  expect_equal(pi$.pred_upper, unname(ref[, "upr"]), tolerance = 1e-10)
  # NULL width: rvm()'s default (learned per input); 0 also means learned
  learned <- fit(rvm_model(mode = "regression"), mpg ~ wt + hp, data = mtcars)
  expect_identical(learned$fit$kernel$width_rule, "learn")
  zero <- fit(rvm_model(mode = "regression", width = 0), mpg ~ wt + hp, data = mtcars)
  expect_identical(zero$fit$kernel$width_rule, "learn")
  expect_equal(predict(zero, mtcars[1:3, ]), predict(learned, mtcars[1:3, ]))
  # width_multiple: the learned widths times one factor, the learned kernel kept (its noise starts too)
  twice <- fit(rvm_model(mode = "regression", width_multiple = 2), mpg ~ wt + hp, data = mtcars)
  expect_equal(twice$fit$kernel$width, 2 * learned$fit$kernel$width, tolerance = 1e-12)
  expect_identical(twice$fit$kernel$width_rule, "learn")
  expect_identical(twice$fit$kernel$learned$multiple, 2)
  expect_identical(nrow(twice$fit$noise_starts), nrow(learned$fit$noise_starts))
  expect_output(print(summary(twice$fit)), "2 times the learned \\(width_multiple\\)")
  one <- fit(rvm_model(mode = "regression", width_multiple = 1), mpg ~ wt + hp, data = mtcars)
  expect_equal(predict(one, mtcars[1:3, ]), predict(learned, mtcars[1:3, ]))
  expect_error(fit(rvm_model(mode = "regression", width = 1, width_multiple = 2), mpg ~ wt + hp, data = mtcars),
               "not both")
  expect_error(fit(rvm_model(mode = "regression", width_multiple = -1), mpg ~ wt + hp, data = mtcars),
               "width_multiple")
  expect_error(sparsebayes:::caret_kernel(0, "linear", multiple = 2), "has none")
  # classification: the default is one learned width for all inputs; 0 means it too
  d <- two_iris()
  default <- fit(rvm_model(mode = "classification"), Species ~ ., data = d)
  expect_length(default$fit$kernel$width, 1L)
  expect_identical(default$fit$kernel$width_rule, "learn")
  expect_equal(fit(rvm_model(mode = "classification", width = 0), Species ~ ., data = d)$fit$kernel$width,
               default$fit$kernel$width)
  half <- fit(rvm_model(mode = "classification", width_multiple = 0.5), Species ~ ., data = d)
  expect_equal(half$fit$kernel$width, default$fit$kernel$width / 2, tolerance = 1e-12)
  cl <- fit(rvm_model(mode = "classification", width = 1), Species ~ ., data = d)
  expect_equal(unname(cl$fit$kernel$width), 1)
  expect_equal(rowSums(predict(cl, d[1:5, ], type = "prob")), rep(1, 5))
  expect_identical(levels(predict(cl, d[1:5, ])$.pred_class), levels(d$Species))
  # update()
  spec2 <- update(spec, width = 4)
  expect_identical(rlang::eval_tidy(spec2$args$width), 4)
  expect_identical(rlang::eval_tidy(spec2$args$kernel), "laplace")
  expect_identical(rlang::eval_tidy(update(spec, parameters = data.frame(width = 0.5))$args$width), 0.5)
})

test_that("sparse_gp_model() fits sparse_gp() with the inducing points given", {
  skip_parsnip()
  # the points asked for, before those K_uu cannot tell apart are dropped
  asked <- function(fit) as.integer(fit$learned$inducing[["asked"]] %||% fit$m)
  fit <- fit(sparse_gp_model(inducing = 15), mpg ~ wt + hp, data = mtcars)
  expect_s3_class(fit$fit, "sb_sparse_gp")
  expect_identical(asked(fit$fit), 15L)
  expect_identical(nrow(fit$fit$inducing), fit$fit$m)
  ci <- predict(fit, mtcars[1:4, ], type = "conf_int")
  p <- predict(fit, mtcars[1:4, ])$.pred
  expect_true(all(ci$.pred_lower < p & p < ci$.pred_upper))
  pi <- predict(fit, mtcars[1:4, ], type = "pred_int")
  expect_true(all(pi$.pred_upper - pi$.pred_lower > ci$.pred_upper - ci$.pred_lower))
  # more inducing points than rows are cut to the distinct rows (two Mercs share wt and hp)
  many <- fit(sparse_gp_model(inducing = 500), mpg ~ wt + hp, data = mtcars)
  expect_identical(asked(many$fit), 31L)
  expect_identical(rlang::eval_tidy(update(sparse_gp_model(), inducing = 7)$args$inducing), 7)
  # a bootstrap resample has fewer distinct rows, which sparse_gp() pools
  boot <- mtcars[c(1:20, 1:12), ]
  repeated <- fit(sparse_gp_model(inducing = 30), mpg ~ wt + hp, data = boot)
  expect_identical(asked(repeated$fit), 19L)
})

test_that("the tuning parameters are dials parameter objects", {
  skip_parsnip()
  skip_if_not_installed("dials")
  expect_equal(dials::value_seq(rvm_width(c(-3, 3)), 3), c(0.125, 1, 8))
  expect_true(dials::has_unknowns(rvm_width()))
  h <- sparsebayes:::caret_median_width(mtcars[, -1])
  expect_equal(dials::value_seq(dials::finalize(rvm_width(), x = mtcars[, -1]), 3), h * c(0.125, 1, 8))
  expect_equal(dials::value_seq(rvm_width_multiple(), 3), c(0.5, 1, 2))
  expect_false(dials::has_unknowns(rvm_width_multiple()))
  expect_identical(dials::value_seq(inducing_points(c(10L, 30L)), 3), c(10L, 20L, 30L))
  expect_identical(rvm_kernel()$values, c("gaussian", "laplace", "cauchy"))
  params <- hardhat::extract_parameter_set_dials(rvm_model(kernel = tune(), width = tune()))
  expect_identical(sort(params$id), c("kernel", "width"))
  multiple <- hardhat::extract_parameter_set_dials(rvm_model(width_multiple = tune()))
  expect_identical(multiple$id, "width_multiple")
  expect_false(dials::has_unknowns(multiple$object[[1L]]))
  expect_s3_class(params$object[[which(params$id == "width")]], "quant_param")
  gp <- hardhat::extract_parameter_set_dials(sparse_gp_model(inducing = tune()))
  expect_identical(gp$id, "inducing")
})

test_that("tune_grid() tunes the RVM and the sparse GP in a workflow", {
  skip_tune()
  set.seed(1)
  folds <- rsample::vfold_cv(mtcars, v = 3)
  wf <- workflows::workflow(mpg ~ wt + hp + disp, rvm_model(mode = "regression", width = tune()))
  res <- tune::tune_grid(wf, folds, grid = data.frame(width = c(0, 1, 4)))
  m <- tune::collect_metrics(res)
  expect_identical(nrow(m), 6L)  # rmse and rsq for three widths
  expect_true(all(is.finite(m$mean[m$.metric == "rmse"])))
  expect_true(all(m$mean[m$.metric == "rmse"] < stats::sd(mtcars$mpg)))
  expect_identical(nrow(tune::collect_notes(res)), 0L)
  best <- tune::select_best(res, metric = "rmse")
  final <- fit(tune::finalize_workflow(wf, best), mtcars)
  expect_length(predict(final, mtcars[1:3, ])$.pred, 3L)

  gp_wf <- workflows::workflow(mpg ~ wt + hp + disp, sparse_gp_model(inducing = tune()))
  gp <- tune::tune_grid(gp_wf, folds, grid = data.frame(inducing = c(5L, 15L)))
  expect_identical(nrow(tune::collect_notes(gp)), 0L)
  expect_true(all(is.finite(tune::collect_metrics(gp)$mean)))

  # a grid size: dials builds the grid from the finalized ranges
  gp_boot <- tune::tune_grid(gp_wf, rsample::bootstraps(mtcars, times = 2), grid = 2)
  expect_identical(nrow(tune::collect_notes(gp_boot)), 0L)
  expect_message(auto <- tune::tune_grid(wf, folds, grid = 2), "finalize 1 unknown parameter")
  widths <- unique(tune::collect_metrics(auto)$width)
  h <- sparsebayes:::caret_median_width(mtcars[, c("wt", "hp", "disp")])
  expect_length(widths, 2L)
  expect_true(all(widths >= h / 8 & widths <= 8 * h))

  d <- two_iris()
  cls_folds <- rsample::vfold_cv(d, v = 3, strata = Species)
  cls_wf <- workflows::workflow(Species ~ ., rvm_model(mode = "classification", kernel = tune(), width = tune()))
  grid <- expand.grid(kernel = c("gaussian", "laplace"), width = c(1, 4), stringsAsFactors = FALSE)
  cls <- tune::tune_grid(cls_wf, cls_folds, grid = grid)
  expect_identical(nrow(tune::collect_notes(cls)), 0L)
  acc <- tune::collect_metrics(cls)
  acc <- acc[acc$.metric == "accuracy", ]
  expect_identical(nrow(acc), 4L)
  expect_gt(max(acc$mean), 0.85)
})

test_that("the error paths are clear", {
  expect_error(sparsebayes:::need_package("notapackage.sb", "rvm_model()"),
               "rvm_model\\(\\) needs the package notapackage.sb: install.packages\\(\"notapackage.sb\"\\)")
  d <- linear_data()
  expect_error(parsnip_fit(d$X, d$y, "rvm", width = -1), "`width` must be > 0")
  expect_error(parsnip_fit(d$X, d$y, "rvm", kernel = "linear", width = 1), "has no width")
  skip_parsnip()
  expect_error(sparse_gp_model(mode = "classification"), "classification")
  expect_error(fit(rvm_model(mode = "regression", width = -1), mpg ~ wt, data = mtcars), "`width` must be > 0")
  expect_error(fit(logistic_reg() |> set_engine("sparsebayes"), mpg ~ wt, data = mtcars), "factor")
})

test_that("a registration that fails warns and the package still loads", {
  hook <- packageEvent("stats", "onLoad")
  withr::defer(setHook(hook, NULL, "replace"))
  expect_warning(sparsebayes:::on_package_load("stats", function() stop("no engine table")),
                 "sparsebayes could not register with stats: no engine table")
  ran <- FALSE
  expect_silent(sparsebayes:::on_package_load("notapackage.sb", function() ran <<- TRUE))
  withr::defer(setHook(packageEvent("notapackage.sb", "onLoad"), NULL, "replace"))
  expect_false(ran)  # not loaded: only the hook is set
  for (h in getHook(packageEvent("notapackage.sb", "onLoad"))) h()
  expect_true(ran)
})

test_that("translate() shows the user's function: ard() and rvm() for parsnip's models (issue 61)", {
  skip_parsnip()
  expect_identical(translate(set_engine(linear_reg(), "sparsebayes"))$method$fit$func,
                   c(pkg = "sparsebayes", fun = "ard"))
  lr <- translate(set_engine(logistic_reg(), "sparsebayes"))
  expect_identical(lr$method$fit$func, c(pkg = "sparsebayes", fun = "rvm"))
  expect_identical(rlang::eval_tidy(lr$method$fit$args$kernel), "linear")
  expect_identical(translate(set_engine(multinom_reg(), "sparsebayes"))$method$fit$func[["fun"]], "rvm")
  expect_output(print(translate(set_engine(linear_reg(), "sparsebayes"))), "sparsebayes::ard\\(")
  expect_false(any(grepl("parsnip_fit", capture.output(print(translate(set_engine(logistic_reg(), "sparsebayes")))))))
  # the model types of their own: parsnip_fit(), a documented exported function
  rt <- translate(rvm_model(mode = "regression", kernel = "laplace", width = 2))
  expect_identical(rt$method$fit$func, c(pkg = "sparsebayes", fun = "parsnip_fit"))
  expect_true("parsnip_fit" %in% getNamespaceExports("sparsebayes"))
  expect_false("internal" %in% unlist(lapply(tools::Rd_db("sparsebayes")[["parsnip_fit.Rd"]], function(x)
    if (identical(attr(x, "Rd_tag"), "\\keyword")) as.character(x))))
  # the fits are the direct calls'
  fit <- logistic_reg() |> set_engine("sparsebayes") |> fit(Species ~ ., data = two_iris())
  expect_s3_class(fit$fit, "sb_rvm")
  expect_identical(fit$fit$kernel$type, "linear")
  X <- as.matrix(mtcars[, c("wt", "hp")])
  expect_equal(fitted(parsnip_fit(X, mtcars$mpg, "rvm", kernel = "laplace", width = 2)),
               fitted(rvm(X, mtcars$mpg, kernel = kernel_laplace(2))))
})
