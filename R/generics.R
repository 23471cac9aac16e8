# The generics users expect of a model fit beyond predict/coef/residuals:
# model.frame, model.matrix, deviance, df.residual, weights, family,
# logLik (documented here), AIC/BIC and anova. Shared by rvm(), ard() and
# sparse_gp() fits (all of class "sparsebayes") and multiclass RVMs.

#' Model frame, design matrices, deviance and weights of a fit
#'
#' The generics of [stats::lm()] and [stats::glm()] for [rvm()], [ard()] and
#' [sparse_gp()] fits.
#'
#' @param formula,object A fitted [rvm()], [ard()] or [sparse_gp()] model.
#' @param type For `model.matrix`: `"basis"` (the default) or `"inputs"`;
#'   for `weights`: `"prior"` (the default) or `"working"`. See Details.
#' @param ... For `model.frame`, arguments of [stats::model.frame()] that
#'   replace those of the fit (e.g. `na.action = na.pass`); unused otherwise.
#' @details
#' **`model.frame()`** rebuilds the model frame of a formula fit from its
#' call, evaluating `data` in the formula's environment as
#' [stats::model.frame.lm()] does (so `data` must still exist, unchanged).
#' Matrix fits have none and stop.
#'
#' **`model.matrix()`**. `type = "basis"`: the columns the retained weights
#' multiply, so that `model.matrix(fit) %*% coef(fit)` is the linear
#' predictor (without an offset), as for `lm` and `glm`. For an RVM these are
#' the retained kernel functions (and the bias column) at the training
#' inputs, named as `coef(fit)`; for [ard()] the retained columns of the
#' fitted design, in the standardised units the weights refer to (with
#' `scale = TRUE`); for a sparse GP the n x m kernel matrix between the
#' training inputs and the inducing points (all training inputs for
#' `approx = "exact"`), whose product with `fit$weights` plus `fit$mean` is
#' the fitted mean. `type = "inputs"`: what the model was given. For an RVM
#' or a sparse GP the input matrix (for formula fits the formula's model
#' matrix without its intercept column, which the bias replaces), in the
#' units of the data; for [ard()] the design in the units of the data with
#' its `"(Intercept)"` column, which is `model.matrix()` of the same formula
#' for `lm`. Both come from the stored fit: no data are re-evaluated, and
#' rows that `na.action` removed are absent. Multiclass RVMs give the shared
#' inputs, or a list of one basis per class (each class keeps its own
#' relevance vectors). Fits with a user-supplied `basis` store neither (the
#' basis is the user's own matrix): they stop.
#'
#' **`deviance()`**: as [stats::glm()] defines it, the sum of
#' `family$dev.resids(y, fitted, w)`: the prior-weighted residual sum of
#' squares for gaussian fits (and sparse GPs), the binomial and poisson
#' deviance at the posterior mode (the `fitted.values`, not the moderated
#' probabilities of `predict()`). Multiclass RVMs give the multinomial
#' deviance `-2 sum(w_i log p_i)` of the normalised class probabilities
#' `p_i` of the observed classes (those of `predict(fit, type = "prob")`).
#'
#' **`df.residual()`**: `n - edf`, with `n` the number of observations of
#' non-zero weight (as for `lm`) and `edf` the effective number of
#' parameters: for RVM and ARD fits `sum(gamma_j)`, `gamma_j = 1 - alpha_j
#' Sigma_jj` over the retained weights, which is the trace of the hat matrix
#' (`sum(hatvalues(fit))`) with an unpenalised column (`alpha = 0`: the
#' intercept of [ard()], or the centring that stands for a pruned bias)
#' counting one, as an intercept does for `lm`; for a sparse GP
#' `sum(hatvalues(fit)) + 1`, the constant mean counting one; for a
#' multiclass RVM the sum of its class models' `edf`. It is not an integer
#' and no F or t test in this package uses it.
#'
#' **`weights()`**: `"prior"` gives the prior weights given at the fit,
#' `NULL` when none were given (as for `lm`). `"working"` gives the
#' precision of each observation in the final least-squares system of the
#' posterior: `w_i / lambda_i` for gaussian fits (the reciprocal noise
#' variance of the row, so unlike `glm`'s working weights it includes the
#' noise level), `w_i V(mu_i)` for binomial and poisson fits (`glm`'s
#' working weights at the posterior mode), and `1 / Lambda_i` for a sparse GP
#' (its FITC correction included); the hat values are `x_i' Sigma x_i` times
#' these. Multiclass RVMs have one set per class: `"working"` stops.
#' Note that `fit$weights` is the posterior mean of the weights, which
#' [coef()] returns: `weights(fit)` is not `fit$weights`.
#'
#' **`family()`**: the [stats::family()] object of the likelihood
#' ([stats::gaussian()] for a sparse GP).
#' @return `model.frame`: a data frame. `model.matrix`: a numeric matrix (a
#'   list of them for `type = "basis"` of a multiclass fit). `deviance`,
#'   `df.residual`: a number. `weights`: a numeric vector padded as
#'   `residuals()` for `na.exclude`, or `NULL`. `family`: a family object.
#' @seealso [logLik.sparsebayes()], [anova.sparsebayes()], [tidy.sb_rvm()].
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' X <- model.matrix(fit)
#' all.equal(drop(X %*% coef(fit)), fitted(fit))
#' head(model.matrix(fit, type = "inputs"))
#' c(deviance = deviance(fit), df.residual = df.residual(fit))
#' family(fit)
#' @name sparsebayes_generics
NULL

#' @rdname sparsebayes_generics
#' @importFrom stats model.frame
#' @export
model.frame.sparsebayes <- function(formula, ...) {
  object <- formula
  check_has_rows(object, "model.frame()")
  if (is.null(object$terms))
    stop("a fit from a matrix has no model frame; its inputs are `model.matrix(fit, type = \"inputs\")`.",
         call. = FALSE)
  # As model.frame.lm: the fit's call with its data, subset, weights,
  # na.action and offset, the arguments in `...` replacing them.
  fcall <- object$call[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"),
                                   names(object$call), 0L))]
  fcall$drop.unused.levels <- TRUE
  fcall[[1L]] <- quote(stats::model.frame)
  fcall$formula <- object$terms
  fcall$xlev <- object$xlevels
  extra <- list(...)
  fcall[names(extra)] <- extra
  env <- environment(object$terms) %||% parent.frame()
  tryCatch(eval(fcall, env), error = function(e)
    stop("cannot rebuild the model frame from the fit's call (", conditionMessage(e), "); the data must ",
         "still exist where the model was fitted.", call. = FALSE))
}

#' @rdname sparsebayes_generics
#' @importFrom stats model.matrix
#' @export
model.matrix.sparsebayes <- function(object, type = c("basis", "inputs"), ...) {
  check_dots_empty(...)
  type <- match_arg(type)
  check_has_rows(object, "model.matrix()")
  if (inherits(object, "sb_rvm_multiclass")) {
    if (type == "inputs") return(stored_inputs(object))
    return(lapply(object$models, model.matrix, type = "basis"))
  }
  if (type == "inputs") {
    if (!inherits(object, "sb_ard")) return(stored_inputs(object))
    # ard stores the design in standardised units: undo the scaling
    return(unscale_rows(object$x, object$scaling, colnames(object$x)))
  }
  if (inherits(object, "sb_sparse_gp")) {
    K <- kernel_design(object$kernel, apply_scaling(object$x, object$scaling), object$centres)
    rownames(K) <- rownames(object$x)
    return(K)
  }
  if (inherits(object, "sb_rvm") && is.null(object$kernel))
    stop("a fit with a user-supplied `basis` does not store it: the basis is `basis[, fit$relevant]` of your ",
         "own matrix.", call. = FALSE)
  Phi <- training_design(object)
  dimnames(Phi) <- list(rownames(object$x), names(object$weights))
  Phi
}

# The input matrix a fit stored (in the units of the data).
stored_inputs <- function(object) {
  if (is.null(object$x))
    stop("a fit with a user-supplied `basis` and no `x` stores no inputs.", call. = FALSE)
  object$x
}

#' @rdname sparsebayes_generics
#' @export
fitted.sparsebayes <- function(object, ...) {
  check_has_rows(object, "fitted()")
  stats::napredict(object$na.action, object$fitted.values)
}

#' @rdname sparsebayes_generics
#' @importFrom stats deviance
#' @export
deviance.sparsebayes <- function(object, ...) {
  check_dots_empty(...)
  if (inherits(object, "sb_rvm_multiclass")) {
    w <- prior_weights(object) %||% rep(1, length(object$y))
    p <- training_prob(object)[cbind(seq_along(object$y), as.integer(object$y))]
    return(-2 * sum(ifelse(w > 0, w * log(p), 0)))  # a weight-0 row counts nothing, even at p = 0
  }
  deviance_of(object)
}

# The effective number of parameters of a fit (see df.residual above).
effective_parameters <- function(object) {
  if (inherits(object, "sb_rvm_multiclass")) return(sum(vapply(object$models, effective_parameters, numeric(1))))
  if (inherits(object, "sb_sparse_gp")) return(sum(leverage_gp(object)) + 1)
  sum(1 - object$alpha[object$relevant] * diag(object$Sigma))
}

#' @rdname sparsebayes_generics
#' @importFrom stats df.residual
#' @export
df.residual.sparsebayes <- function(object, ...) {
  check_dots_empty(...)
  stats::nobs(object) - effective_parameters(object)
}

#' @rdname sparsebayes_generics
#' @importFrom stats weights
#' @export
weights.sparsebayes <- function(object, type = c("prior", "working"), ...) {
  check_dots_empty(...)
  type <- match_arg(type)
  if (type == "prior") {
    w <- prior_weights(object)
    if (is.null(w)) return(NULL)
    names(w) <- training_names(object)
    return(stats::naresid(object$na.action, w))
  }
  check_has_rows(object, "weights(type = \"working\")")
  if (inherits(object, "sb_rvm_multiclass"))
    stop("a multiclass fit has working weights per class; use `weights(fit$models[[k]], type = \"working\")`.",
         call. = FALSE)
  w <- if (inherits(object, "sb_sparse_gp")) 1 / object$Lambda else 1 / sample_noise(object)
  names(w) <- case_names(object)
  stats::naresid(object$na.action, w)
}

#' @rdname sparsebayes_generics
#' @importFrom stats family
#' @export
family.sparsebayes <- function(object, ...) object$family %||% stats::gaussian()

#' Log evidence of a fit, and why AIC and BIC refuse it
#'
#' `logLik()` of a sparsebayes fit is its **log evidence**, the log marginal
#' likelihood `log p(y | alpha, lambda)` with the weights integrated out, at
#' the precisions `alpha` and noise `lambda` the solver chose (type-II
#' maximum likelihood): for binomial and poisson fits its Laplace
#' approximation at the posterior mode. With a smoothness prior (`prior =
#' "AIC"`, `"BIC"`, ...) it is still the evidence alone: the log prior of
#' `alpha` is in `fit$log_posterior`, which the solver maximised. With
#' `noise = "sample"` it is the Gaussian evidence given the fitted
#' per-sample variances; with `noise = "student"` it is the variational
#' lower bound on `log p(y | alpha, nu, s2)`, the per-sample variances
#' integrated out under their inverse-gamma prior (so it differs from the
#' Gaussian evidence at the fitted variances by the bound's terms of that
#' prior). Gaussian fits are computed in standard
#' units and reported as a density of `y` in its own units. A multinomial
#' RVM gives its joint log evidence (Laplace), a one-against-the-rest fit the
#' sum over its binary models. For [sparse_gp()] it is
#' the log marginal likelihood of the exact or FITC model, and for `approx =
#' "VFE"` the variational lower bound (ELBO) on the exact GP's, which is
#' what VFE maximises.
#'
#' **AIC and BIC.** The evidence already integrates over the weights and so
#' carries its own Occam penalty, and an RVM or ARD fit chooses its retained
#' basis functions among all candidates by maximising it: no parameter count
#' makes `-2 logLik + k df` an information criterion then (counting the
#' retained weights ignores the search, counting all candidates is
#' meaningless for a kernel basis of n columns). So `logLik()` of RVM, ARD
#' and multiclass fits has `df = NA` (any AIC computed from it is `NA`) and
#' `AIC()` and `BIC()` stop with a pointer to [anova.sparsebayes()], which
#' compares fits by their log evidence directly (log Bayes factors). A
#' sparse GP with FITC or exact inference has a handful of estimated
#' hyperparameters and a true log marginal likelihood, as a mixed model's
#' marginal AIC: there `df` counts the constant mean, the kernel width and
#' variance when optimised, the noise when estimated and the inducing
#' coordinates when optimised, and `AIC()`/`BIC()` work. For VFE, whose
#' `logLik` is only a bound, they stop.
#'
#' @param object A fitted [rvm()], [ard()] or [sparse_gp()] model.
#' @param ... Further fits (`AIC`, `BIC`); unused by `logLik`.
#' @param k The penalty per parameter, as for [stats::AIC()].
#' @return `logLik`: an object of class `"logLik"` with attributes `df` and
#'   `nobs`. `AIC`, `BIC`: as [stats::AIC()] (FITC and exact sparse GPs).
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' logLik(fit)
#' try(AIC(fit))
#' gp <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, approx = "FITC", seed = 1)
#' AIC(gp)
#' @importFrom stats logLik
#' @export
logLik.sparsebayes <- function(object, ...) {
  structure(object$logLik, df = NA_real_, nobs = stats::nobs(object), class = "logLik")
}

#' @rdname logLik.sparsebayes
#' @importFrom stats AIC
#' @export
AIC.sparsebayes <- function(object, ..., k = 2) {
  information_criterion(list(object, ...), k, "AIC", fit_labels(match.call()))
}

#' @rdname logLik.sparsebayes
#' @importFrom stats BIC
#' @export
BIC.sparsebayes <- function(object, ...) {
  information_criterion(list(object, ...), NULL, "BIC", fit_labels(match.call()))
}

# -2 logLik + k df for fits whose logLik is a marginal likelihood of a few
# hyperparameters (FITC and exact sparse GPs); a data frame like
# stats::AIC's for several fits. BIC: k = log(nobs) per fit.
information_criterion <- function(objects, k, what, labels) {
  for (o in objects) {
    if (!inherits(o, "sb_sparse_gp"))
      stop(sprintf("%s() is not defined for RVM and ARD fits: their log evidence already penalises complexity ",
                   what), "and has no parameter count; compare fits by their log evidence with anova().",
           call. = FALSE)
    if (gp_approxes[[o$approx]]$bound)
      stop(sprintf("%s() is not defined for a VFE sparse GP: its logLik is a lower bound (ELBO), not a ", what),
           "likelihood; use approx = \"FITC\" or \"exact\", or compare bounds with anova().", call. = FALSE)
  }
  lls <- lapply(objects, logLik)
  df <- vapply(lls, attr, numeric(1), "df")
  penalty <- if (is.null(k)) vapply(lls, function(l) log(attr(l, "nobs")), numeric(1)) else k
  value <- -2 * vapply(lls, as.numeric, numeric(1)) + penalty * df
  if (length(objects) == 1L) return(value)
  out <- data.frame(df = df, value = value)
  names(out)[2L] <- what
  row.names(out) <- make.unique(labels)
  out
}

# The expressions of the fits in a call of AIC or BIC, as stats::AIC names
# its rows.
fit_labels <- function(call) {
  args <- as.list(call)[-1L]
  args$k <- NULL
  vapply(args, function(a) paste(deparse(a), collapse = ""), "")
}

#' Compare fits by their log evidence
#'
#' A table of log Bayes factors: each fit's log evidence ([logLik()]) and
#' its difference from the first fit's. With the precisions and noise at
#' their optima (type-II maximum likelihood) this is the log of the ratio of
#' the fits' marginal likelihoods of the same data; a positive value favours
#' the fit over the first (2 to 3 is usually read as positive, above 5 as
#' strong evidence on the log scale). The fits need not be nested, and any
#' mix of [rvm()], [ard()] and [sparse_gp()] fits is allowed, but they must
#' be fitted to the same response with the same family and prior weights:
#' otherwise their evidences are probabilities of different data. VFE and
#' Student-t noise fits report a lower bound, so their rows compare bounds
#' (marked in the heading). `noise = "sample"` fits maximise the evidence
#' over one variance per sample, so against fits with a few noise
#' parameters their log Bayes factors are inflated (also marked). No test statistic or p-value is given: the evidence is itself
#' the comparison.
#'
#' @param object A fitted model.
#' @param ... Further fitted models.
#' @return A data frame of class `"anova"` with one row per fit and columns
#'   `Relevant` (retained basis functions; inducing points for a sparse GP;
#'   the total over classes for a multiclass RVM), `logLik` (log evidence)
#'   and `log BF` (log Bayes factor against the first fit).
#' @examples
#' d <- MASS::mcycle
#' anova(rvm(accel ~ times, data = d), rvm(accel ~ times, data = d, kernel = "laplace"),
#'       sparse_gp(accel ~ times, data = d, inducing = 20, approx = "FITC", seed = 1))
#' @importFrom stats anova
#' @export
anova.sparsebayes <- function(object, ...) {
  fits <- list(object, ...)
  if (length(fits) < 2L)
    stop("anova() compares two or more fits by their log evidence; a single sparsebayes fit has no analysis ",
         "of variance (see summary()).", call. = FALSE)
  if (!all(vapply(fits, inherits, logical(1), "sparsebayes")))
    stop("anova() compares sparsebayes fits only (rvm, ard, sparse_gp).", call. = FALSE)
  first <- fits[[1L]]
  for (f in fits[-1L]) {
    if (family(f)$family != family(first)$family)
      stop("the fits have different families; their evidences are not of the same data.", call. = FALSE)
    if (!identical(unname(unclass(f$y)), unname(unclass(first$y))) || !identical(levels(f$y), levels(first$y)))
      stop("the fits were fitted to different responses (or different rows); a Bayes factor needs the same data.",
           call. = FALSE)
    if (!same_weights(prior_weights(f), prior_weights(first), length(first$y)))
      stop("the fits have different prior weights; their evidences are not of the same data.", call. = FALSE)
  }
  ll <- vapply(fits, function(f) as.numeric(logLik(f)), numeric(1))
  out <- data.frame(Relevant = vapply(fits, relevant_count, integer(1)), logLik = ll, `log BF` = ll - ll[1L],
                    check.names = FALSE)
  calls <- vapply(fits, function(f) paste(deparse(f$call, width.cutoff = 500L), collapse = " "), "")
  vfe <- vapply(fits, function(f) inherits(f, "sb_sparse_gp") && gp_approxes[[f$approx]]$bound, logical(1))
  noise <- vapply(fits, function(f) first_class_model(f)$noise, "")
  student <- vapply(noise, student_noise, logical(1))
  ml_per_sample <- vapply(noise, per_sample_noise, logical(1)) & !student  # noise = "sample": maximum likelihood
  heading <- c("Comparison by log evidence (log Bayes factors against model 1)\n",
               paste0(sprintf("Model %d: %s", seq_along(fits), calls), collapse = "\n"),
               if (any(vfe)) "\nVFE fits report a lower bound (ELBO) on the log evidence.",
               if (any(student)) "\nStudent-t noise fits report a variational lower bound on the log evidence.",
               if (any(ml_per_sample) && any(!ml_per_sample))
                 paste("\nnoise = \"sample\" fits maximise the evidence over one variance per sample: against fits",
                       "with fewer noise parameters their Bayes factors are inflated."))
  structure(out, heading = heading, class = c("anova", "data.frame"))
}

# Do two fits of n rows have the same prior weights? Compared by value, unit
# weights equal to none.
same_weights <- function(a, b, n) {
  identical(as.numeric(a %||% rep(1, n)), as.numeric(b %||% rep(1, n)))
}

# The prior weights given at the fit (NULL: none); a multiclass fit's are its
# class models' (all the same).
prior_weights <- function(object) first_class_model(object)$prior.weights

# Basis functions the predictor uses: retained weights, inducing points, or
# those a multinomial fit's classes share, or the total over a one-against-
# the-rest fit's classes.
relevant_count <- function(object) {
  if (is_multinomial(object)) return(nrow(object$weights))
  if (inherits(object, "sb_rvm_multiclass")) return(sum(vapply(object$models, relevant_count, integer(1))))
  if (inherits(object, "sb_sparse_gp")) return(as.integer(object$m))
  length(object$relevant)
}
