# tidymodels engines: rvm(), ard() and sparse_gp() registered with parsnip
# (when parsnip is installed) as the "sparsebayes" engine of linear_reg(),
# logistic_reg() and multinom_reg(), and of two model types of their own,
# rvm_model() and sparse_gp_model(), whose main arguments tune and dials
# know (https://www.tidymodels.org/learn/develop/models/).

#' Relevance vector machines and sparse GPs in tidymodels
#'
#' With parsnip installed, loading sparsebayes registers the engine
#' `"sparsebayes"` for these parsnip models:
#'
#' | model | fits | predictions |
#' | --- | --- | --- |
#' | `parsnip::linear_reg()` | [ard()] | `"numeric"`, `"conf_int"`, `"pred_int"` |
#' | `parsnip::logistic_reg()`, `parsnip::multinom_reg()` | [rvm()] with a [kernel_linear()] (one multinomial model over the classes for several) | `"class"`, `"prob"` |
#' | `rvm_model()` | [rvm()] | regression: `"numeric"`, `"conf_int"`, `"pred_int"`; classification: `"class"`, `"prob"` |
#' | `sparse_gp_model()` | [sparse_gp()] | `"numeric"`, `"conf_int"`, `"pred_int"` |
#'
#' `parsnip::translate()` shows the call each engine makes:
#' `sparsebayes::ard(x, y, weights)` for `linear_reg()`,
#' `sparsebayes::rvm(x, y, weights, kernel = "linear")` for
#' `logistic_reg()` and `multinom_reg()`, and [parsnip_fit()], which turns
#' the tuning parameters into a kernel or a number of inducing points, for
#' `rvm_model()` and `sparse_gp_model()`.
#'
#' The main arguments of `linear_reg()`, `logistic_reg()` and
#' `multinom_reg()` (`penalty`, `mixture`) have no counterpart: the models
#' learn their sparsity. Other arguments of the fitting functions are engine
#' arguments: `set_engine("sparsebayes", noise = "student")`. Inputs are
#' expanded to dummy columns by the usual parsnip encoding and standardised
#' by the fits (`scale = TRUE`); case weights reach the fits' `weights`.
#'
#' `rvm_model()` tunes the kernel and its width. `width = NULL` (the
#' default) is [rvm()]'s own: one width per input learned by a GP marginal
#' likelihood for regression, one width for all inputs learned by a GP
#' classifier's evidence for classifiers; a number is one width for every
#' input, in standardised units; `0` in a grid means the learned widths, as
#' in [sparsebayes_caret()]. `width_multiple` scales the learned widths by
#' one factor (1: the default fit; the kernel keeps its learned noise starts
#' and its record in `summary()`): tuning it searches around the fit's own
#' widths, which a grid of absolute widths rarely meets (one width per input
#' is no point of it). Its default range, 1/2 to 2, with a grid of 10 in
#' `tune::tune_grid()`, was never worse than the untuned default on
#' BostonHousing (RMSE) and Pima (log loss) over three fold draws
#' (`bench/tune_grid.R`).
#' `sparse_gp_model()` tunes the number of inducing points (at most the rows
#' of a resample: a larger number is cut to them); its widths, variance and
#' noise are learned by every fit.
#'
#' The tuning parameters are dials parameter objects (they need dials):
#' `rvm_kernel()`; `rvm_width()`, on a log2 scale, whose range tune finalizes
#' from the predictors as the median heuristic `h` (half the median
#' distance between the standardised inputs) times 2^-3 to 2^3;
#' `rvm_width_multiple()`, on a log2 scale, 2^-1 to 2^1 by default; and
#' `inducing_points()`, 10 to 100 by default.
#'
#' @param mode `"regression"` or `"classification"` (`rvm_model()`; `"unknown"`
#'   until set) or `"regression"` (`sparse_gp_model()`).
#' @param engine `"sparsebayes"`.
#' @param kernel The kernel's name: `"gaussian"`, `"laplace"` or `"cauchy"`
#'   (kernels with a width; see [kernels]).
#' @param width The kernel width (standardised inputs); `NULL` learns it.
#' @param width_multiple A positive factor on the default (learned) widths;
#'   `NULL` is 1. Give it or `width`, not both.
#' @param inducing The number of inducing points.
#' @param range,trans The range of the parameter (on the transformed scale)
#'   and its transformation, as in dials' parameter objects. `rvm_width()`:
#'   `NULL` is a range finalized from the data, and `trans = NULL` the log2
#'   scale.
#' @param values The kernels to choose from.
#' @return `rvm_model()` and `sparse_gp_model()`: a parsnip model
#'   specification. `rvm_width()`, `rvm_width_multiple()`,
#'   `inducing_points()`: a dials quantitative parameter; `rvm_kernel()`: a
#'   dials qualitative parameter.
#' @seealso [sparsebayes_caret()] for caret; [rvm()], [ard()], [sparse_gp()].
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   spec <- parsnip::set_engine(parsnip::linear_reg(), "sparsebayes")
#'   fit <- parsnip::fit(spec, mpg ~ ., data = mtcars)
#'   predict(fit, mtcars[1:3, ], type = "pred_int")
#'   gp <- parsnip::fit(sparse_gp_model(inducing = 20), mpg ~ wt + hp, data = mtcars)
#'   predict(gp, mtcars[1:3, ], type = "conf_int")
#' }
#' @name tidymodels
NULL

#' @rdname tidymodels
#' @export
rvm_model <- function(mode = "unknown", engine = "sparsebayes", kernel = NULL, width = NULL, width_multiple = NULL) {
  need_package("parsnip", "rvm_model()")
  args <- list(kernel = rlang::enquo(kernel), width = rlang::enquo(width), width_multiple = rlang::enquo(width_multiple))
  parsnip::new_model_spec("rvm_model", args = args, eng_args = NULL, mode = mode,
                          user_specified_mode = !missing(mode), method = NULL, engine = engine,
                          user_specified_engine = !missing(engine))
}

#' @rdname tidymodels
#' @export
sparse_gp_model <- function(mode = "regression", engine = "sparsebayes", inducing = NULL) {
  need_package("parsnip", "sparse_gp_model()")
  args <- list(inducing = rlang::enquo(inducing))
  parsnip::new_model_spec("sparse_gp_model", args = args, eng_args = NULL, mode = mode,
                          user_specified_mode = !missing(mode), method = NULL, engine = engine,
                          user_specified_engine = !missing(engine))
}

#' @param object A model specification.
#' @param parameters A one-row data frame (or list) of main arguments.
#' @param fresh Replace all arguments (`TRUE`) or only those given?
#' @param ... Engine arguments.
#' @rdname tidymodels
#' @export
update.rvm_model <- function(object, parameters = NULL, kernel = NULL, width = NULL, width_multiple = NULL,
                             fresh = FALSE, ...) {
  args <- list(kernel = rlang::enquo(kernel), width = rlang::enquo(width), width_multiple = rlang::enquo(width_multiple))
  parsnip::update_spec(object, parameters, args, fresh, "rvm_model", ...)
}

#' @rdname tidymodels
#' @export
update.sparse_gp_model <- function(object, parameters = NULL, inducing = NULL, fresh = FALSE, ...) {
  parsnip::update_spec(object, parameters, list(inducing = rlang::enquo(inducing)), fresh, "sparse_gp_model", ...)
}

#' @rdname tidymodels
#' @export
rvm_width <- function(range = NULL, trans = NULL) {
  need_package("dials", "rvm_width()")
  dials::new_quant_param(type = "double", range = range %||% c(dials::unknown(), dials::unknown()),
                         inclusive = c(TRUE, TRUE), trans = trans %||% scales::transform_log2(),
                         label = c(rvm_width = "Kernel width (standardised inputs)"), finalize = finalize_width)
}

# The range of widths of a finalized rvm_width(): the median heuristic h
# of the predictors x (rvm()'s default for classifiers) times 2^-3 to 2^3.
finalize_width <- function(object, x) {
  dials::range_set(object, log2(caret_median_width(x)) + c(-3, 3))
}

#' @rdname tidymodels
#' @export
rvm_width_multiple <- function(range = c(-1, 1), trans = NULL) {
  need_package("dials", "rvm_width_multiple()")
  dials::new_quant_param(type = "double", range = range, inclusive = c(TRUE, TRUE),
                         trans = trans %||% scales::transform_log2(),
                         label = c(rvm_width_multiple = "Kernel widths, multiple of the learned"))
}

#' @rdname tidymodels
#' @export
rvm_kernel <- function(values = c("gaussian", "laplace", "cauchy")) {
  need_package("dials", "rvm_kernel()")
  dials::new_qual_param(type = "character", values = values, label = c(rvm_kernel = "Kernel"))
}

#' @rdname tidymodels
#' @export
inducing_points <- function(range = c(10L, 100L), trans = NULL) {
  need_package("dials", "inducing_points()")
  dials::new_quant_param(type = "integer", range = range, inclusive = c(TRUE, TRUE), trans = trans,
                         label = c(inducing_points = "Inducing points"))
}

#' Fit an RVM or sparse GP from tuning parameters
#'
#' The fit function of the model types [rvm_model()] and
#' [sparse_gp_model()] (what `parsnip::translate()` shows for them): it
#' turns their tuning parameters into the arguments of [rvm()] or
#' [sparse_gp()] and calls it on a matrix of inputs. `parsnip_fit(x, y,
#' "rvm", kernel = "laplace", width = 2)` is `rvm(x, y, kernel =
#' kernel_laplace(2))`; `width = 0` (or `NULL`) is the learned default
#' widths, which `width_multiple` scales; `parsnip_fit(x, y, "sparse_gp",
#' inducing = 100)` is `sparse_gp(x, y, inducing = m)` with `m` at most the
#' distinct rows of positive weight (a bootstrap resample has fewer than
#' the data). parsnip's `linear_reg()`, `logistic_reg()` and
#' `multinom_reg()` call [ard()] and [rvm()] directly.
#'
#' @param x,y Inputs (a numeric matrix) and response.
#' @param model `"rvm"`, `"ard"` or `"sparse_gp"`: the function to call.
#' @param weights Case weights or `NULL`.
#' @param kernel,width,width_multiple `model = "rvm"`: the kernel (a name,
#'   as `rvm_model(kernel = )`, or a kernel object), its width (standardised
#'   inputs) and the multiple of the default widths (see [tidymodels]).
#' @param inducing `model = "sparse_gp"`: the number of inducing points.
#' @param ... Other arguments of the fitting function.
#' @return The fit: an [rvm()], [ard()] or [sparse_gp()] model.
#' @seealso [tidymodels] for the engines.
#' @examples
#' X <- as.matrix(mtcars[, c("wt", "hp")])
#' fit <- parsnip_fit(X, mtcars$mpg, "rvm", kernel = "laplace", width = 2)
#' all.equal(fitted(fit), fitted(rvm(X, mtcars$mpg, kernel = kernel_laplace(2))))
#' @export
parsnip_fit <- function(x, y, model, weights = NULL, kernel = NULL, width = NULL, width_multiple = NULL,
                        inducing = NULL, ...) {
  args <- list(...)
  if (!is.null(width) || !is.null(width_multiple)) args$kernel <- caret_kernel(width %||% 0, kernel, width_multiple)
  else if (!is.null(kernel)) args$kernel <- kernel
  if (!is.null(inducing)) args$inducing <- inducing_cap(inducing, x, weights)
  caret_fit_call(model, x, y, as.vector(weights), args)
}

need_package <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(sprintf("%s needs the package %s: install.packages(\"%s\").", what, pkg, pkg), call. = FALSE)
  invisible(TRUE)
}

# Runs `fun` now if `pkg` is loaded, and whenever it is loaded later (as
# vctrs::s3_register() does for methods of generics in Suggests). A failure
# is a warning: the package still loads.
on_package_load <- function(pkg, fun) {
  run <- function(...) {
    tryCatch(fun(), error = function(e)
      warning(sprintf("sparsebayes could not register with %s: %s", pkg, conditionMessage(e)), call. = FALSE))
  }
  if (isNamespaceLoaded(pkg)) run()
  setHook(packageEvent(pkg, "onLoad"), run)
}

.onLoad <- function(libname, pkgname) {
  on_package_load("parsnip", register_parsnip)
}

# The registrations, as parsnip's own models make them; once per session.
register_parsnip <- function() {
  if ("rvm_model" %in% parsnip::get_model_env()$models) return(invisible(FALSE))
  parsnip::set_new_model("rvm_model")
  parsnip::set_new_model("sparse_gp_model")
  for (mode in c("regression", "classification")) parsnip::set_model_mode("rvm_model", mode)
  parsnip::set_model_mode("sparse_gp_model", "regression")
  engines <- list(list("linear_reg", "regression", "ard"), list("logistic_reg", "classification", "rvm"),
                  list("multinom_reg", "classification", "rvm"), list("rvm_model", "regression", "rvm"),
                  list("rvm_model", "classification", "rvm"), list("sparse_gp_model", "regression", "sparse_gp"))
  for (e in engines) register_engine(e[[1]], e[[2]], e[[3]])
  main_arg <- function(model, parsnip, original, fun)
    parsnip::set_model_arg(model, "sparsebayes", parsnip = parsnip, original = original,
                           func = list(pkg = "sparsebayes", fun = fun), has_submodel = FALSE)
  main_arg("rvm_model", "kernel", "kernel", "rvm_kernel")
  main_arg("rvm_model", "width", "width", "rvm_width")
  main_arg("rvm_model", "width_multiple", "width_multiple", "rvm_width_multiple")
  main_arg("sparse_gp_model", "inducing", "inducing", "inducing_points")
  invisible(TRUE)
}

# parsnip's own models fit by the user's function (translate() shows
# sparsebayes::ard() or sparsebayes::rvm(kernel = "linear")); the model
# types of their own by parsnip_fit(), which makes a kernel of their tuning
# parameters.
register_engine <- function(model, mode, fitter) {
  parsnip::set_model_engine(model, mode, "sparsebayes")
  parsnip::set_dependency(model, "sparsebayes", "sparsebayes", mode = mode)
  own_type <- model %in% c("rvm_model", "sparse_gp_model")
  defaults <- if (own_type) list(model = fitter) else if (fitter == "rvm") list(kernel = "linear") else list()
  parsnip::set_fit(model, mode, "sparsebayes",
                   list(interface = "matrix", protect = c("x", "y", "weights"),
                        func = c(pkg = "sparsebayes", fun = if (own_type) "parsnip_fit" else fitter),
                        defaults = defaults))
  parsnip::set_encoding(model, mode, "sparsebayes",
                        list(predictor_indicators = "traditional", compute_intercept = FALSE,
                             remove_intercept = TRUE, allow_sparse_x = FALSE))
  predict_args <- function(...) list(object = quote(object$fit), newdata = quote(new_data), ...)
  pred <- function(what, post, ...)
    parsnip::set_pred(model, mode, "sparsebayes", what,
                      list(pre = NULL, post = post, func = c(fun = "predict"), args = predict_args(...)))
  if (mode == "regression") {
    pred("numeric", NULL)
    pred("conf_int", parsnip_bounds, interval = "confidence", level = quote(level), se.fit = quote(std_error))
    pred("pred_int", parsnip_bounds, interval = "prediction", level = quote(level))
  } else {
    pred("class", NULL, type = "class")
    pred("prob", function(x, object) as.data.frame(x), type = "prob")
  }
}

# predict()'s fit/lwr/upr matrix as parsnip's interval columns; with
# se.fit (parsnip's std_error = TRUE) a list whose se.fit is .std_error.
parsnip_bounds <- function(results, object) {
  se <- if (is.list(results) && !is.data.frame(results)) results$se.fit
  if (!is.null(se)) results <- results$fit
  out <- data.frame(.pred_lower = unname(results[, "lwr"]), .pred_upper = unname(results[, "upr"]))
  if (!is.null(se)) out$.std_error <- unname(se)
  out
}

# Model specifications print under their models' names, as parsnip's own do.
#' @export
print.rvm_model <- function(x, ...) {
  parsnip::print_model_spec(x, desc = "Relevance Vector Machine", ...)
  invisible(x)
}

#' @export
print.sparse_gp_model <- function(x, ...) {
  parsnip::print_model_spec(x, desc = "Sparse Gaussian Process", ...)
  invisible(x)
}
