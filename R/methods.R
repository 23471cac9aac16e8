# S3 methods shared by sparsebayes models, and the RVM's own.

#' Predict from an RVM
#'
#' Predictions of a fitted RVM at new inputs (or the training inputs):
#' the mean with optional standard errors and confidence or prediction
#' intervals for gaussian fits, classes or probabilities for binomial fits,
#' rates for poisson fits.
#'
#' @param object A fitted [rvm()].
#' @param newdata New inputs: a data frame for formula fits, a numeric
#'   matrix (or vector for one input) otherwise, or the new design matrix
#'   for fits with a user-supplied `basis`. `NULL` gives the fitted values.
#' @param type Gaussian fits: `"response"`. Binomial fits: `"class"` (the
#'   default, a factor with the training levels), `"prob"` (a matrix with a
#'   column of probabilities per class), `"response"` (the probability of the
#'   second class, as [stats::predict.glm()]) or `"link"` (log-odds).
#'   Poisson fits: `"response"` (the default, the rate) or `"link"`.
#'   Multiclass fits: `"class"` or `"prob"`.
#' @param se.fit Return standard errors of the predictive mean? For binomial
#'   and poisson fits they are on the link scale.
#' @param interval `"none"`, `"confidence"` (for the mean function) or
#'   `"prediction"` (for a new observation, adding the noise variance;
#'   Gaussian fits only). For binomial and poisson fits the confidence
#'   interval is computed on the link scale and mapped to the response.
#' @param level Coverage of the interval.
#' @param variance How the variance of the mean is computed.
#'   `"augmented"` (the default for Gaussian kernel fits) adds the
#'   uncertainty of a weight on a kernel centred at the new input, as in the
#'   RVM* of Rasmussen and Quiñonero-Candela (2005), with prior variance the
#'   mean prior variance `mean(1/alpha)` of the retained kernel weights: error
#'   bars then grow away from the data, where the plain RVM's shrink. `"rvm"`
#'   gives the plain posterior variance `phi' Sigma phi`. The predictive mean
#'   is the RVM's in both cases. Fits with a user `basis` and non-Gaussian
#'   fits always use `"rvm"`; fits from [data_chunks()] use it by default
#'   (the augmentation sums over the training rows, which they do not keep).
#' @param noise_level Per-sample noise fits: the base noise variance of a
#'   new observation, `"mean"` or `"trimmed"` mean of the learned `lambda`
#'   (see [predict.sb_ard()]).
#' @param offset Matrix fits made with an `offset`: its value at each row of
#'   `newdata` (required then; without `newdata` the training offset is
#'   used). Formula fits evaluate their offset in `newdata`, as
#'   [stats::predict.lm()] does, and take none here.
#' @param ... Unused.
#' @details Binomial probabilities are the moderated output
#'   `plogis(m / sqrt(1 + pi v / 8))` of the linear predictor's posterior
#'   mean `m` and variance `v` (MacKay 1992), which shrinks overconfident
#'   probabilities where the weights are uncertain; a two-class fit then
#'   scales their logit by a temperature chosen by inner CV (`temperature`
#'   in [rvm_control()], `fit$temperature`), which leaves the class the
#'   more probable one. Poisson rates are the posterior mean `exp(m + v / 2)`.
#' @return As [stats::predict.lm()]: a vector of predictions, or with an
#'   interval a matrix with columns `fit`, `lwr`, `upr`; with `se.fit = TRUE`
#'   a list with `fit`, `se.fit`, `df` (`Inf`: the predictive distribution
#'   is Gaussian) and `residual.scale` (the noise sd). Rows of `newdata` with
#'   missing values give `NA`.
#' @references Rasmussen, C. E. and Quiñonero-Candela, J. (2005). Healing
#'   the relevance vector machine through augmentation. *Proceedings of the
#'   22nd International Conference on Machine Learning*, 689--696.
#'   \doi{10.1145/1102351.1102438}
#'
#'   MacKay, D. J. C. (1992). The evidence framework applied to
#'   classification networks. *Neural Computation*, 4, 720--736.
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' predict(fit, data.frame(times = c(10, 20, 30)), interval = "prediction")
#' @export
predict.sb_rvm <- function(object, newdata = NULL, type = NULL, se.fit = FALSE,
                        interval = c("none", "confidence", "prediction"), level = 0.95,
                        variance = c("augmented", "rvm"), noise_level = c("mean", "trimmed"), offset = NULL, ...) {
  noise_level <- match_arg(noise_level)
  family <- object$family
  type <- check_type(type, likelihood_of(family)$types)
  interval <- match_arg(interval)
  # the augmentation sums over the training rows, which a fit from chunks does not keep
  variance <- if (missing(variance) && !is.null(object$chunks)) "rvm" else match_arg(variance)
  if (variance == "augmented") check_has_rows(object, "predict(variance = \"augmented\")")
  check_prediction_args(se.fit, level)
  if (!has_noise(family) && interval == "prediction")
    stop_arg("interval", "\"prediction\" is for gaussian fits; use \"confidence\".")
  if (type %in% c("class", "prob") && (se.fit || interval != "none"))
    stop_arg("type", sprintf("\"%s\" gives no standard errors or intervals; use type = \"response\".", type))
  if (is.null(newdata)) check_has_rows(object, "predict() without newdata")
  x <- if (is.null(newdata)) NULL else new_inputs(object, newdata)
  padded <- function(out) if (is.null(newdata)) pad_training(object, out) else out
  if (has_noise(family)) {
    off <- prediction_offset(object, newdata, offset, if (is.null(x)) length(object$y) else nrow(x))
    if (is.null(x) && !se.fit && interval == "none") return(padded(object$fitted.values))
    return(padded(shift_prediction(predict_gaussian(object, x, se.fit, interval, level, variance, noise_level),
                                   off)))
  }
  lp <- linear_predictor(object, x, need_var = TRUE)
  lp$eta <- lp$eta + prediction_offset(object, newdata, offset, length(lp$eta))
  tempered <- function(p) if (is.null(object$temperature)) p else temper(cbind(1 - p, p), object$temperature)[, 2L]
  p <- tempered(link_to_response(family, lp$eta, lp$var))  # R/temperature.R
  if (type == "class") return(padded(factor(object$levels[1L + (p > 0.5)], levels = object$levels)))
  if (type == "prob") return(padded(matrix(c(1 - p, p), ncol = 2L, dimnames = list(NULL, object$levels))))
  fit <- if (type == "link") lp$eta else p
  se <- sqrt(lp$var)
  if (interval == "confidence") {
    q <- stats::qnorm((1 + level) / 2)
    bounds <- cbind(lp$eta - q * se, lp$eta + q * se)
    if (type == "response") bounds[] <- tempered(as.vector(object$family$linkinv(bounds)))  # monotone in p
    fit <- cbind(fit = fit, lwr = bounds[, 1L], upr = bounds[, 2L])
  }
  padded(if (se.fit) list(fit = fit, se.fit = se, df = Inf, residual.scale = 1) else fit)
}

# The fit itself, or a multiclass fit's first class model, which holds what
# all its class models share (inputs, kernel, noise model, prior weights).
first_class_model <- function(object) if (is.null(object$models)) object else object$models[[1L]]

# Predictions at the training inputs padded with NA for the rows that
# na.exclude set aside, as predict.lm does; a list from se.fit = TRUE is
# padded element by element.
pad_training <- function(object, out) {
  nm <- names(first_class_model(object)$fitted.values)
  pad <- function(v) {
    if (is.matrix(v)) rownames(v) <- nm else names(v) <- nm
    stats::napredict(object$na.action, v)
  }
  if (!is.list(out)) return(pad(out))
  out[c("fit", "se.fit")] <- lapply(out[c("fit", "se.fit")], pad)
  out
}

check_type <- function(type, allowed) {
  if (is.null(type)) return(allowed[1L])
  if (!is.character(type) || length(type) != 1L || !type %in% allowed)
    stop_arg("type", sprintf("must be one of %s for this model.", paste0("\"", allowed, "\"", collapse = ", ")))
  type
}

# Posterior mean and variance of the linear predictor at inputs x (NULL: the
# training inputs).
linear_predictor <- function(object, x, need_var) {
  if (is.null(x)) {
    if (is.null(object$kernel)) stop("the training design of a fit with a user `basis` is not stored; ",
                                     "pass it as `newdata`.", call. = FALSE)
    x <- object$x
  }
  if (!is.null(object$invariant)) return(invariant_predictor(object, x, need_var))
  Phi <- relevant_design(object, x)
  list(eta = drop(Phi %*% object$weights), var = if (need_var) pmax(rowSums((Phi %*% object$Sigma) * Phi), 0),
       Phi = Phi, x = x)
}

# A translation-invariant wavelet fit's mean (and variance) at inputs x,
# interpolated linearly between its grid points as the basis functions are.
invariant_predictor <- function(object, x, need_var) {
  grid <- sort(object$x[, 1L])
  at <- function(v) {
    out <- rep(NA_real_, nrow(x))
    ok <- !is.na(x[, 1L])
    if (any(ok)) out[ok] <- stats::approx(grid, v, xout = check_on_grid(grid, x[ok, 1L]), rule = 2)$y
    out
  }
  list(eta = at(object$invariant$mean), var = if (need_var) pmax(at(object$invariant$variance), 0), Phi = NULL, x = x)
}

# Columns of the design for the retained basis functions at inputs x.
relevant_design <- function(object, x) {
  if (is.null(object$kernel)) return(x[, object$relevant, drop = FALSE])
  xs <- apply_scaling(x, object$scaling)
  ok <- stats::complete.cases(xs)
  Phi <- matrix(NA_real_, nrow(xs), length(object$relevant))
  if (any(ok)) Phi[ok, ] <- dictionary_design(object, x[ok, , drop = FALSE], xs[ok, , drop = FALSE])
  Phi
}

# Predictive mean, standard error and intervals of a Gaussian fit at inputs
# x (NULL: the training inputs).
predict_gaussian <- function(object, x, se.fit, interval, level, variance = "augmented", noise_level = "mean") {
  want_var <- se.fit || interval != "none"
  if (is.null(x) && !want_var) return(object$fitted.values)
  lp <- linear_predictor(object, x, want_var)
  fit <- lp$eta
  if (!want_var) return(fit)
  var_f <- lp$var
  if (variance == "augmented" && inherits(object$kernel, "sparsebayes_kernel") && !is_wavelet(object$kernel))
    var_f <- var_f + augmentation_variance(object, lp$x, lp$Phi)
  noise <- new_point_noise(object, noise_level)
  gaussian_prediction(fit, sqrt(var_f), noise$variance, se.fit, interval, level, noise$df)
}

# What predict.lm returns, for a Gaussian predictive mean `fit` with
# standard error `se` and noise variance `noise`: the fit, or a matrix
# fit/lwr/upr with an interval, in a list with se.fit when asked. Student-t
# noise (`noise_df` < Inf): the prediction interval takes the t quantile
# for the sum, exact when se = 0 and Gaussian as nu grows.
gaussian_prediction <- function(fit, se, noise, se.fit, interval, level, noise_df = Inf) {
  out <- fit
  if (interval != "none") {
    q <- if (interval == "prediction" && is.finite(noise_df)) stats::qt((1 + level) / 2, noise_df)
         else stats::qnorm((1 + level) / 2)
    width <- q * if (interval == "prediction") sqrt(se^2 + noise) else se
    out <- cbind(fit = fit, lwr = fit - width, upr = fit + width)
  }
  if (se.fit) list(fit = out, se.fit = se, df = Inf, residual.scale = sqrt(noise)) else out
}

# The checks every predict method makes of se.fit and level.
check_prediction_args <- function(se.fit, level) {
  check_flag(se.fit, "se.fit")
  check_probability(level, "level")
}

# RVM*: the posterior variance a weight w* ~ N(0, v) on the kernel centred at
# x* adds at x*, e*^2 / (1/v + S*), with S* = phi*' C^-1 phi* over the
# training inputs and e* = k(x*, x*) - phi(x*)' Sigma Phi' B phi*, where
# C^-1 = B - B Phi Sigma Phi' B and B = diag(1 / lambda) (lambda shared or
# per sample). A bias the standardised fit pruned is stored with the
# centring shift alone (alpha 0, no covariance with the other weights): it is
# left out here, as the kernels' posterior Sigma was computed without it
# (with it, C^-1 is indefinite, S* < 0, and the augmented variance came out
# up to 30 times too large inside the data).
# Computed in units of the mean noise variance s2 (Sigma / s2, v / s2, s2 B)
# so that responses of any magnitude neither overflow nor underflow.
augmentation_variance <- function(object, x, Phi) {
  xs <- apply_scaling(x, object$scaling)
  ok <- which(stats::complete.cases(xs))
  extra <- rep(NA_real_, nrow(xs))
  if (!length(ok)) return(extra)
  xtrain <- apply_scaling(object$x, object$scaling)
  penalised <- object$alpha[object$relevant] > 0
  Phi_train <- relevant_design(object, object$x)[, penalised, drop = FALSE]
  Phi <- Phi[, penalised, drop = FALSE]
  s2 <- mean(object$lambda[is.finite(object$lambda)])  # zero-weight rows: lambda = Inf
  unit_precision <- s2 / object$lambda  # s2 B: all ones with shared noise and no weights
  if (length(unit_precision) == 1L && !is.null(object$prior.weights)) unit_precision <- row_precisions(object)
  kernel_alpha <- object$alpha[object$relevant[object$relevant > object$bias]]
  prior_var <- mean(1 / (s2 * if (length(kernel_alpha)) kernel_alpha else object$alpha[object$relevant]))
  Sigma <- object$Sigma[penalised, penalised, drop = FALSE] / s2
  chunk <- max(1L, floor(5e6 / nrow(xtrain)))  # bound the memory of K
  for (rows in split(ok, ceiling(seq_along(ok) / chunk))) {
    K <- kernel_design(object$kernel, xs[rows, , drop = FALSE], xtrain)
    KB <- if (length(unit_precision) > 1L) sweep(K, 2L, unit_precision, "*") else K
    P <- KB %*% Phi_train
    S <- rowSums(KB * K) - rowSums((P %*% Sigma) * P)
    e <- kernel_diagonal(object$kernel, xs[rows, , drop = FALSE]) - rowSums((Phi[rows, , drop = FALSE] %*% Sigma) * P)
    extra[rows] <- s2 * e^2 / (1 / prior_var + pmax(S, 0))
  }
  extra
}

# The bias column counts among the relevant basis functions, and the plots
# mark the relevance vectors alone: " (4 vectors and the bias)",
# or "" when the bias is not among them.
bias_share <- function(object) {
  if (!isTRUE(object$bias) || is.null(object$kernel) || !(1L %in% object$relevant)) return("")
  sprintf(" (%d vector%s and the bias)", length(object$relevant) - 1L,
          if (length(object$relevant) == 2L) "" else "s")
}

#' @export
print.sb_rvm <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat(model_title(x), "\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n  "), "\n", sep = "")
  cat(sprintf("Kernel: %s\n", kernel_label(x)))
  cat(sprintf("%d of %d basis functions relevant%s (n = %d); %s; log evidence %s\n",
              length(x$relevant), x$n_basis, bias_share(x), stats::nobs(x), fit_quality(x, digits),
              format(x$logLik, digits = digits + 2L)))
  cat(solver_label(x), prior_label(x), "\n", sep = "")
  cat(calibration_note(x))
  invisible(x)
}

model_title <- function(x) likelihood_of(x$family)$title(x)

kernel_label <- function(x) {
  kern <- if (is.null(x$kernel)) "user-supplied basis"
          else paste(vapply(fit_kernels(x), function(k) utils::capture.output(print(k)), ""), collapse = " + ")
  paste0(kern, if (isTRUE(x$bias)) " + bias", if (!is.null(x$centres)) sprintf(", on %d centres", nrow(x$centres)))
}

# Noise sd, training error or deviance: the one-line quality of a fit.
fit_quality <- function(x, digits) likelihood_of(x$family)$quality(x, digits)

# glm's deviance: the sum of the family's deviance residuals at the fitted
# values, with the prior weights (a sparse GP is gaussian).
deviance_of <- function(x) {
  if (!is.null(x$chunks)) return(x$chunks$deviance %||% x$chunks$rss)
  family <- x$family %||% stats::gaussian()
  sum(family$dev.resids(x$y, x$fitted.values, if (is.null(x$prior.weights)) rep(1, length(x$y)) else x$prior.weights))
}

#' Summarise an RVM fit
#'
#' Condenses an RVM fit into what a reader checks first: the kernel, the
#' solver and whether it converged, the log evidence, the noise, the number
#' of relevance vectors, the training error, and the largest weights with their posterior
#' standard deviations.
#'
#' @param object A fitted [rvm()].
#' @param n_weights How many of the largest weights to list.
#' @param x A `summary.sb_rvm` object.
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `summary.sb_rvm` returns an object of class `"summary.sb_rvm"`: a list
#'   with `call`, `title`, `kernel` (a label), `method`, `family`, `n`,
#'   `n_basis`, `n_relevant`, `sigma` (noise sd, `NA` unless gaussian),
#'   `logLik`, `iterations`, `converged`, `rmse` and `r_squared` (gaussian,
#'   training), `inlier_errors` (per-sample noise: as in
#'   [summary.sb_ard()]), `error` (binomial training error rate), `deviance`,
#'   `coefficients`, a matrix of the largest posterior weights with their
#'   posterior sd and z value, and for overcomplete dictionaries
#'   `components`, a table of each sub-dictionary's relevant functions and
#'   the sd of its contribution to the fit (`NULL` otherwise), and
#'   `width_search`, a line describing the search of a `width = "evidence"`
#'   fit (`NULL` otherwise), and `learning`, lines naming the learned
#'   hyperparameters that fell back to a heuristic, ended at a bound of
#'   their search or were learned from pooled exact copies of rows (named
#'   when they are more than a tenth of the rows; `kernel$learned$copies`
#'   counts them in any case; empty when there is nothing to say).
#' @examples
#' summary(rvm(accel ~ times, data = MASS::mcycle))
#' @export
summary.sb_rvm <- function(object, n_weights = 10L, ...) {
  coefs <- weight_table(object, n_weights)
  gaussian <- has_noise(object$family)
  structure(list(call = object$call, title = model_title(object), kernel = kernel_label(object),
                 method = object$method, family = object$family$family, n = stats::nobs(object),
                 n_basis = object$n_basis, n_relevant = length(object$relevant), bias_share = bias_share(object),
                 sigma = sqrt(mean(object$lambda)),
                 down_weighted = if (length(object$lambda) > 1L) down_weighted(object$lambda),
                 student = object$student, logLik = object$logLik, iterations = object$iterations,
                 converged = object$converged,
                 rmse = if (gaussian) training_rmse(object) else NA_real_,
                 r_squared = if (gaussian) training_r_squared(object) else NA_real_,
                 inlier_errors = if (gaussian) inlier_errors(object), chunks = object$chunks,
                 error = if (likelihood_of(object$family)$classes) training_error(object) else NA_real_,
                 scores = if (likelihood_of(object$family)$classes) class_scores(object),
                 deviance = deviance_of(object), coefficients = coefs,
                 components = if (length(fit_kernels(object)) > 1L) component_table(object),
                 width_search = width_search_label(object),
                 learning = learning_notes(if (inherits(object$kernel, "sparsebayes_kernel")) object$kernel$learned,
                                           length(object$y)),
                 inputs = if (is_per_input_kernel(object$kernel)) input_relevance(object),
                 calibration_note = calibration_note(object), temperature = object$temperature),
            class = "summary.sb_rvm")
}

# A two-class fit's training log loss, Brier score (of the second class's
# probability) and AUC (Mann-Whitney; ties count half), weighted by the
# prior weights; NULL from chunks (no fitted values kept).
class_scores <- function(object) {
  p <- as.numeric(object$fitted.values)
  if (!length(p)) return(NULL)
  y <- object$y
  w <- prior_weights(object) %||% rep(1, length(y))
  keep <- w > 0
  p <- p[keep]; y <- y[keep]; w <- w[keep]
  pc <- pmin(pmax(p, 1e-15), 1 - 1e-15)
  pos <- y == 1
  auc <- NA_real_
  if (any(pos) && any(!pos)) {  # P(p of a positive > p of a negative), ties half, pairs weighted
    o <- order(p[!pos])
    neg <- p[!pos][o]
    cum <- c(0, cumsum(w[!pos][o]))
    below <- cum[findInterval(p[pos], neg, left.open = TRUE) + 1L]
    upto <- cum[findInterval(p[pos], neg) + 1L]
    auc <- sum(w[pos] * (below + upto) / 2) / (sum(w[pos]) * sum(w[!pos]))
  }
  c(log_loss = sum(w * -ifelse(pos, log(pc), log1p(-pc))) / sum(w), brier = sum(w * (p - y)^2) / sum(w), auc = auc)
}

# The n_weights largest posterior weights with their posterior sd and z value.
weight_table <- function(object, n_weights) {
  check_number(n_weights, "n_weights", lower = 0, integer = TRUE)
  w <- coef(object)
  sd_w <- sqrt(pmax(diag(vcov(object)), 0))
  z <- w / sd_w
  ord <- order(abs(if (inherits(object, "sb_ard")) z else w), decreasing = TRUE)[seq_len(min(n_weights, length(w)))]
  coefs <- cbind(Estimate = w[ord], `Post. SD` = sd_w[ord], `z value` = z[ord],
                 `log BF` = log_bayes_factors(object)[names(w)][ord])
  rownames(coefs) <- names(w)[ord]
  coefs
}

# Per sub-dictionary: how many functions it keeps and the spread of its
# contribution to the fit.
component_table <- function(object) {
  contrib <- component_contributions(object)
  parts <- column_parts(object)$part
  data.frame(dictionary = colnames(contrib), relevant = as.vector(table(parts)),
             `sd of contribution` = unname(apply(contrib, 2L, stats::sd)), check.names = FALSE)
}

#' @rdname summary.sb_rvm
#' @export
print.summary.sb_rvm <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat(x$title, "\n\nCall:\n", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"),
      "\n\n", sep = "")
  cat(sprintf("Kernel:             %s\n", x$kernel))
  cat(chunk_line(x$chunks))
  if (!is.null(x$width_search)) cat(sprintf("Width search:       %s\n", x$width_search))
  if (!is.null(x$inputs)) print_input_relevance(x$inputs, digits)
  print_learning_notes(x$learning)
  cat(sprintf("Relevance vectors:  %d of %d basis functions%s (n = %d)\n", x$n_relevant, x$n_basis, x$bias_share %||% "",
              x$n))
  if (has_noise(x$family)) {
    cat(sprintf("Noise sd:           %s%s\n", format(x$sigma, digits = digits),
                if (is.null(x$down_weighted)) "" else sprintf(" (root mean of per-sample variances%s; %d samples down-weighted)",
                                                              student_label(x$student, digits), x$down_weighted)))
    print_training_errors(x, digits)
  } else {
    if (likelihood_of(x$family)$classes) {
      cat(sprintf("Training error:     %.2f%%\n", 100 * x$error))
      if (!is.null(x$scores))
        cat(sprintf("Training log loss:  %s   (Brier score %s, AUC %s)\n", format(x$scores[["log_loss"]], digits = digits),
                    format(x$scores[["brier"]], digits = digits), format(x$scores[["auc"]], digits = digits)))
      cat(temperature_line(x$temperature, digits))
    }
    cat(sprintf("Deviance:           %s\n", format(x$deviance, digits = digits)))
  }
  cat(sprintf("Log evidence:       %s%s\n", format(x$logLik, digits = digits + 2L),
              if (has_noise(x$family)) "" else " (Laplace approximation)"))
  cat(sprintf("Solver:             %s, %d iterations, %s\n", x$method, x$iterations,
              if (x$converged) "converged" else "NOT converged"))
  cat(x$calibration_note)
  if (!is.null(x$components)) {
    cat("\nSub-dictionaries:\n")
    print(x$components, row.names = FALSE, digits = digits)
  }
  if (nrow(x$coefficients)) {
    cat(sprintf("\nLargest weights (%d of %d):\n", nrow(x$coefficients), x$n_relevant))
    stats::printCoefmat(x$coefficients, digits = digits, has.Pvalue = FALSE)
  }
  invisible(x)
}

#' Relevance vectors of a fit
#'
#' The training inputs (or centres) whose kernel functions the fit
#' retained: the sparse summary of the data an RVM keeps.
#'
#' @param object A fitted [rvm()].
#' @param ... Unused.
#' @return The training inputs whose kernels were retained, one row each,
#'   named by their row number in the training data; for a fit with
#'   `centres`, the retained centres, named `"c"` and their row in
#'   `object$centres`. For a multiclass fit, one data frame of the retained
#'   inputs of every class model, with columns `class` and `row` (the names
#'   above) first, as [tidy()][tidy.sb_rvm] gives its terms.
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' relevance_vectors(fit)
#' @export
relevance_vectors <- function(object, ...) UseMethod("relevance_vectors")

#' @export
relevance_vectors.sb_rvm <- function(object, ...) {
  if (is.null(object$kernel)) stop("a fit with a user-supplied `basis` has no relevance vectors; ",
                                   "see `object$relevant`.", call. = FALSE)
  rv <- basis_centres(object)[object$relevance_index, , drop = FALSE]
  rownames(rv) <- if (is.null(object$centres)) case_names(object)[object$relevance_index]
                  else centre_names(object$centres)[object$relevance_index]
  rv
}

#' @export
relevance_vectors.sb_rvm_multiclass <- function(object, ...) {
  parts <- lapply(names(object$models), function(k) {
    rv <- relevance_vectors(object$models[[k]])
    data.frame(class = rep(k, nrow(rv)), row = rownames(rv), rv, row.names = NULL, check.names = FALSE,
               stringsAsFactors = FALSE)
  })
  do.call(rbind, parts)
}

#' @export
coef.sparsebayes <- function(object, ...) object$weights

#' @export
nobs.sparsebayes <- function(object, ...) {
  if (!is.null(object$chunks)) return(object$chunks$kept)
  w <- prior_weights(object)
  if (is.null(w)) length(object$y) else sum(w > 0)  # as lm and glm: rows of weight 0 are not observations
}

#' @export
vcov.sparsebayes <- function(object, ...) object$Sigma
