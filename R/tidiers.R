# tidy(), glance() and augment() through the generics package (the
# generics broom re-exports), returning tibbles as broom's tidiers do.
# tibble is suggested, not imported (generics does not bring it): broom
# imports it, so wherever broom is installed the tidiers give tibbles;
# without tibble they give the same columns as a plain data frame.

#' @importFrom generics tidy
#' @export
generics::tidy

#' @importFrom generics glance
#' @export
generics::glance

#' @importFrom generics augment
#' @export
generics::augment

#' Tidy a sparsebayes fit
#'
#' `tidy()` gives one row per retained weight (or per hyperparameter of a
#' sparse GP), `glance()` one row describing the fit, `augment()` the data
#' with per-observation columns; methods of the [generics::tidy()] generics
#' that broom uses, returning tibbles as broom's tidiers do.
#'
#' @param x A fitted [rvm()] (also multiclass), [ard()] or [sparse_gp()]
#'   model.
#' @param conf.int Add `conf.low` and `conf.high`, the posterior normal
#'   interval `estimate -/+ z std.error` of each weight? A sparse GP's
#'   hyperparameters are point estimates (type-II maximum likelihood) with no
#'   standard error: `conf.int = TRUE` stops there.
#' @param conf.level Coverage of the interval.
#' @param what For `tidy`: `"weights"` (the default for [rvm()] and
#'   [ard()] fits; `"hyperparameters"` for [sparse_gp()]) or `"inputs"`,
#'   the width and relevance of each input of a kernel with one width per
#'   input (shared by the classes of a multiclass fit), as
#'   [input_relevance()] gives them.
#' @param data For `augment`: a data frame to add the columns to, with one
#'   row per row of the data the model was fitted on (rows that `na.omit`
#'   removed may be included: they are dropped; rows that `na.exclude` set
#'   aside get `NA` columns, as [residuals()] pads them). `NULL` (the
#'   default): for formula fits the model frame rebuilt by
#'   [model.frame()][model.frame.sparsebayes] (its variables, with every
#'   row `na.exclude` kept); for matrix fits no data columns.
#' @param newdata For `augment`: new data (as for `predict()`); then only
#'   `.fitted` and `.se.fit` are added.
#' @param se_fit For `augment`: add `.se.fit`?
#' @param type.predict For `augment` of binomial and poisson RVMs: `.fitted`
#'   on the `"response"` scale (the default; probabilities or rates),
#'   `"link"` scale, or (binomial) the `"class"`. Unlike broom's
#'   `augment.glm()`, whose default is the link, the default is the scale of
#'   `fitted()` and `residuals()`, so that `.resid = y - .fitted`.
#' @param ... For `augment` with `newdata`: passed to `predict()` (e.g.
#'   `offset`, `variance`); unused otherwise.
#' @details
#' **tidy.** Columns `term` (the name of the weight, as in `coef()`),
#' `estimate` (posterior mean), `std.error` (posterior sd, the square root
#' of the diagonal of `vcov()`), `alpha` (the weight's prior precision; 0
#' for an unpenalised intercept or centring), `log_bf` (the log Bayes factor
#' of keeping the weight against pruning it, `NA` when unpenalised; see
#' [selected()]), for [ard()] fits `selected` (whether [selected()] keeps
#' the weight: ARD keeps a superset, most of it where `d` is much smaller
#' than `n`; `NA` for the intercept) and, for RVMs, `relevance`: the
#' training row (counted among the fitted cases; with `centres`, the row of
#' `fit$centres`) on which the retained kernel is centred, `NA` for the bias,
#' wavelets and user bases. A multiclass RVM adds a first column `class`. A
#' sparse GP has rows `term`, `estimate` for the hyperparameters of
#' [coef.sb_sparse_gp()] (the constant mean, kernel width(s) in scaled
#' units when the inputs were standardised, kernel variance, noise variance)
#' and `estimated`, whether the fit optimised it (the inducing locations
#' are in `fit$inducing`).
#'
#' **glance.** One row with `nobs`; `logLik`, the log evidence (the Laplace
#' approximation for binomial and poisson fits, the sum over classes for
#' multiclass fits, the ELBO, a lower bound, for VFE sparse GPs; see
#' [logLik.sparsebayes()]); `relevant`, the number of retained basis
#' functions (inducing points for a sparse GP, the total over classes for a
#' multiclass fit); `sigma`, the noise sd for shared gaussian noise (`NA`
#' for per-sample noise, whose variances `augment()` gives as `.lambda`,
#' and for binomial and poisson fits); `ess_weights` and `ess_samples`, the
#' effective support sizes of [ess()] (`NA` where undefined: multiclass
#' fits, and the weights of a sparse GP); `edf` and `df.residual` (see
#' [df.residual()][sparsebayes_generics]); `deviance`; `converged`;
#' `iterations` (solver iterations, the sum over classes for a multiclass
#' fit, L-BFGS-B function evaluations for a sparse GP); `method` (the
#' solver, or the sparse GP's approximation) and `family`. No AIC or BIC:
#' see [logLik.sparsebayes()] for why.
#'
#' **augment.** Adds `.fitted` (as [fitted()]: for binomial and poisson
#' fits the plug-in value at the posterior mode; with `newdata` the value of
#' `predict()`, for these families the moderated probability or the
#' posterior mean rate), `.resid` (response residual `y - fitted`),
#' `.se.fit` (the standard error of `predict(se.fit = TRUE)`: of the mean
#' function for gaussian fits, with the RVM* augmentation of
#' [predict.sb_rvm()] for kernel RVMs; on the link scale for binomial and
#' poisson fits), `.hat` ([hatvalues()]), `.loo_resid`
#' (`residuals(type = "loo")`), and `.lambda`, the noise variance of each
#' observation, for `noise = "sample"` or `"student"`. Fits with a
#' user-supplied `basis` store no training design: they get `.fitted` and
#' `.resid` only. Multiclass fits get `.fitted`, the predicted class, and a
#' column `.prob_<class>` per class (the normalised probabilities).
#' Like broom's `augment()`, row names that are not `1, 2, ...` (rows
#' `na.omit` dropped, or a data frame's own names) become a first column
#' `.rownames`: tibbles keep no row names.
#' @return A tibble (a [tibble::tibble()]; a plain data frame with the same
#'   columns when the tibble package, which broom imports, is not
#'   installed).
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' tidy(fit, conf.int = TRUE)
#' glance(fit)
#' head(augment(fit))
#' augment(fit, newdata = data.frame(times = c(10, 20)))
#' @name tidy.sb_rvm
NULL

#' @rdname tidy.sb_rvm
#' @export
tidy.sparsebayes <- function(x, conf.int = FALSE, conf.level = 0.95, what = c("weights", "inputs"), ...) {
  if (tidy_what(match_arg(what), conf.int, conf.level, ...) == "inputs") return(as_tidy(input_relevance(x)))
  out <- weight_rows(x, x$weights, x$Sigma)
  if (inherits(x, "sb_rvm")) out$relevance <- relevance_of_terms(x)
  as_tidy(add_conf(out, conf.int, conf.level))
}

#' @rdname tidy.sb_rvm
#' @param standardised For [ard()] fits: the weights of the standardised
#'   columns (`TRUE`; what the prior and `alpha` refer to) instead of the
#'   coefficients on the data's scale (`FALSE`, the default; see
#'   [coef.sb_ard()]).
#' @export
tidy.sb_ard <- function(x, conf.int = FALSE, conf.level = 0.95, standardised = FALSE, ...) {
  check_dots_empty(...)
  check_conf(conf.int, conf.level)
  check_flag(standardised, "standardised")
  out <- weight_rows(x, coef(x, standardised = standardised), vcov(x, standardised = standardised))
  # selected(): the weights the data support (NA for the intercept, which is not a candidate)
  out$selected <- ifelse(out$term %in% names(which(candidate_columns(x))), out$term %in% selected(x), NA)
  as_tidy(add_conf(out, conf.int, conf.level))
}

# A tidier's data frame as broom gives it: a tibble, with no row names (a
# plain data frame when tibble is not installed).
as_tidy <- function(out) {
  rownames(out) <- NULL
  if (requireNamespace("tibble", quietly = TRUE)) tibble::as_tibble(out) else out
}

# One row per term: estimate, posterior sd, the standardised weight's alpha
# and log Bayes factor (NA for a term the fit has no weight of, such as the
# implied intercept on the data's scale).
weight_rows <- function(x, est, V) {
  own <- match(names(est), names(x$weights))
  data.frame(term = names(est), estimate = unname(est), std.error = sqrt(pmax(unname(diag(V)), 0)),
             alpha = unname(x$alpha[x$relevant])[own], log_bf = unname(log_bayes_factors(x))[own],
             stringsAsFactors = FALSE)
}

# The normal interval estimate -/+ z std.error.
add_conf <- function(out, conf.int, conf.level) {
  if (conf.int) {
    q <- stats::qnorm((1 + conf.level) / 2)
    out$conf.low <- out$estimate - q * out$std.error
    out$conf.high <- out$estimate + q * out$std.error
  }
  out
}

check_conf <- function(conf.int, conf.level) {
  check_flag(conf.int, "conf.int")
  check_probability(conf.level, "conf.level")
}

# The checks every tidy() method with a `what` makes; returns `what`.
tidy_what <- function(what, conf.int, conf.level, ...) {
  check_dots_empty(...)
  if (what != "inputs") check_conf(conf.int, conf.level)
  what
}

# The training row (or row of `centres`) of each retained kernel column of
# an RVM; NA for the bias, wavelet columns and user bases.
relevance_of_terms <- function(x) {
  out <- rep(NA_integer_, length(x$relevant))
  if (is.null(x$kernel)) return(out)
  parts <- column_parts(x)
  kernels <- fit_kernels(x)
  is_kernel <- parts$part > 0L
  is_kernel[is_kernel] <- !vapply(kernels[parts$part[is_kernel]], is_wavelet, logical(1))
  out[is_kernel] <- as.integer(parts$index[is_kernel])
  out
}

#' @rdname tidy.sb_rvm
#' @export
tidy.sb_rvm_multiclass <- function(x, conf.int = FALSE, conf.level = 0.95, what = c("weights", "inputs"), ...) {
  # the classes share one kernel: one row per input, as input_relevance() gives them
  if (tidy_what(match_arg(what), conf.int, conf.level, ...) == "inputs") return(as_tidy(input_relevance(x)))
  parts <- lapply(names(x$models), function(k) {
    t <- as.data.frame(tidy(x$models[[k]], conf.int = conf.int, conf.level = conf.level))
    cbind(data.frame(class = rep(k, nrow(t)), stringsAsFactors = FALSE), t)
  })
  as_tidy(do.call(rbind, parts))
}

#' @rdname tidy.sb_rvm
#' @export
tidy.sb_sparse_gp <- function(x, conf.int = FALSE, conf.level = 0.95, what = c("hyperparameters", "inputs"), ...) {
  if (tidy_what(match_arg(what), conf.int, conf.level, ...) == "inputs") return(as_tidy(input_relevance(x)))
  if (conf.int)
    stop_arg("conf.int", "must be FALSE for a sparse GP: its hyperparameters are point estimates (type-II ",
             "maximum likelihood) with no standard errors.")
  est <- coef(x)
  hyper <- gp_optimizes[[x$optimize]]$hyper
  estimated <- c(TRUE, rep(hyper, length(est) - 2L), isTRUE(x$noise_estimated))  # the mean is y's weighted mean
  as_tidy(data.frame(term = names(est), estimate = unname(est), estimated = estimated, stringsAsFactors = FALSE))
}

#' @rdname tidy.sb_rvm
#' @export
glance.sparsebayes <- function(x, ...) {
  check_dots_empty(...)
  multiclass <- inherits(x, "sb_rvm_multiclass")
  gp <- inherits(x, "sb_sparse_gp")
  models <- if (multiclass) x$models else list(x)
  shared_gaussian <- has_noise(family(x)) && length(x$lambda) == 1L
  edf <- effective_parameters(x)
  as_tidy(data.frame(nobs = stats::nobs(x), logLik = as.numeric(logLik(x)), relevant = relevant_count(x),
             sigma = if (shared_gaussian) sqrt(x$lambda) else NA_real_,
             ess_weights = if (multiclass || gp) NA_real_ else ess(x, which = "weights"),
             ess_samples = if (multiclass || !is.null(x$chunks)) NA_real_ else ess(x, which = "samples"),  # reads the rows
             edf = edf, deviance = deviance(x), df.residual = df.residual(x),
             converged = all(vapply(models, function(m) isTRUE(m$converged), logical(1))),
             iterations = if (gp || is_multinomial(x)) as.integer(x$iterations[[1L]])
                          else as.integer(sum(vapply(models, function(m) m$iterations, numeric(1)))),
             method = if (gp) x$approx else x$method, family = family(x)$family, stringsAsFactors = FALSE))
}

#' @rdname tidy.sb_rvm
#' @export
augment.sparsebayes <- function(x, data = NULL, newdata = NULL, se_fit = TRUE, type.predict = NULL, ...) {
  if (is.null(newdata)) check_has_rows(x, "augment() without newdata")
  check_flag(se_fit, "se_fit")
  multiclass <- inherits(x, "sb_rvm_multiclass")
  allowed <- if (multiclass) "class" else union("response", setdiff(likelihood_of(family(x))$types, "prob"))
  if (is.null(type.predict)) type.predict <- allowed[1L]
  if (!is.character(type.predict) || length(type.predict) != 1L || !type.predict %in% allowed)
    stop_arg("type.predict", sprintf("must be one of %s for this model.", paste0("\"", allowed, "\"", collapse = ", ")))
  if (!is.null(newdata)) return(augment_new(x, newdata, se_fit, type.predict, multiclass, ...))
  check_dots_empty(...)
  cols <- if (multiclass) augment_multiclass(x) else augment_training(x, se_fit, type.predict)
  n_rows <- length(cols[[1L]])
  if (is.null(data) && !is.null(x$terms)) data <- model.frame(x, na.action = stats::na.pass)
  if (is.null(data)) {
    out <- as.data.frame(cols, stringsAsFactors = FALSE)
    rownames(out) <- names(stats::naresid(x$na.action, stats::setNames(numeric(length(x$y)), training_names(x))))
    return(as_augmented(out))
  }
  data <- as.data.frame(data)
  omitted <- x$na.action
  if (nrow(data) != n_rows && inherits(omitted, "omit") && nrow(data) == n_rows + length(omitted))
    data <- data[-omitted, , drop = FALSE]  # the rows na.omit removed
  if (nrow(data) != n_rows)
    stop_arg("data", sprintf("has %d rows but the fit has %d%s; give the data the model was fitted on.", nrow(data),
                             n_rows, if (inherits(omitted, "exclude")) " (na.exclude rows included)" else ""))
  clash <- intersect(names(cols), names(data))
  if (length(clash)) data <- data[setdiff(names(data), clash)]  # augment's columns replace stale ones
  as_augmented(cbind(data, as.data.frame(cols, stringsAsFactors = FALSE)))
}

# augment()'s data frame as broom's as_augment_tibble() gives it: row names
# other than 1, 2, ... kept as a first column .rownames (a tibble has none).
as_augmented <- function(out) {
  keep <- !is.null(rownames(out)) && !identical(rownames(out), as.character(seq_len(nrow(out))))
  if (keep && !".rownames" %in% names(out))
    out <- cbind(data.frame(.rownames = rownames(out), stringsAsFactors = FALSE), out)
  as_tidy(out)
}

training_names <- function(x) case_names(first_class_model(x))

# The per-observation columns at the training data, padded for na.exclude.
augment_training <- function(x, se_fit, type.predict) {
  pad <- function(v) unname(stats::naresid(x$na.action, stats::setNames(v, case_names(x))))
  fitted <- switch(type.predict,
    response = x$fitted.values,
    link = x$linear.predictors,
    class = factor(x$levels[1L + (x$fitted.values > 0.5)], levels = x$levels))
  cols <- list(.fitted = pad(unname(fitted)), .resid = pad(unname(x$residuals)))
  if (inherits(x, "sb_rvm") && is.null(x$kernel)) return(cols)  # no stored design: nothing more
  if (se_fit) {  # binomial and poisson RVMs give standard errors on the link scale only
    link <- if (inherits(x, "sb_rvm")) list(type = if (has_noise(x$family)) "response" else "link")
    cols$.se.fit <- unname(do.call(predict, c(list(x), link, list(se.fit = TRUE)))$se.fit)
  }
  cols$.hat <- unname(hatvalues(x))
  cols$.loo_resid <- unname(residuals(x, type = "loo"))
  if (!inherits(x, "sb_sparse_gp") && length(x$lambda) > 1L) cols$.lambda <- pad(x$lambda)
  cols
}

augment_multiclass <- function(x) class_columns(predict(x, type = "prob"), x$levels)

# A multiclass fit's .fitted (the most probable class) and one .prob_<class>
# column per class, from its matrix of class probabilities.
class_columns <- function(p, levels) {
  cols <- list(.fitted = class_of(p, levels))
  for (k in colnames(p)) cols[[paste0(".prob_", k)]] <- unname(p[, k])
  cols
}

# .fitted (and .se.fit) at new data, from predict().
augment_new <- function(x, newdata, se_fit, type.predict, multiclass, ...) {
  nd <- if (is.data.frame(newdata)) newdata else as.data.frame(if (is.null(dim(newdata))) matrix(newdata, ncol = 1L)
                                                                 else newdata)
  if (multiclass) {
    check_dots_empty(...)
    cols <- class_columns(predict(x, newdata, type = "prob"), x$levels)
  } else {
    rvm_type <- if (inherits(x, "sb_rvm")) list(type = type.predict)
    want_se <- se_fit && type.predict != "class"
    pr <- do.call(predict, c(list(x, newdata), rvm_type, list(se.fit = want_se), list(...)))
    cols <- if (want_se) list(.fitted = unname(pr$fit), .se.fit = unname(pr$se.fit)) else list(.fitted = unname(pr))
  }
  if (length(cols$.fitted) != nrow(nd))
    stop_arg("newdata", "must be a data frame or matrix with one row per new observation.")
  clash <- intersect(names(cols), names(nd))
  if (length(clash)) nd <- nd[setdiff(names(nd), clash)]
  as_augmented(cbind(nd, as.data.frame(cols, stringsAsFactors = FALSE)))
}
