# predict, print and summary for ard() fits.

#' Predict from a joint ARD fit
#'
#' The predictive distribution at a new input x is Gaussian with mean
#' `x' mu` and variance `x' Sigma x` for the mean function, plus a base noise
#' level `lambda_b` for a new observation (App. D of Timans et al.).
#'
#' @param object A fitted [ard()].
#' @param newdata A data frame for formula fits, a numeric matrix with the
#'   training columns (without the intercept column that `intercept = TRUE`
#'   adds) otherwise. `NULL` gives the fitted values.
#' @param se.fit Return standard errors of the predictive mean?
#' @param interval `"none"`, `"confidence"` (for the mean function) or
#'   `"prediction"` (for a new observation, adding `lambda_b`).
#' @param level Coverage of the interval.
#' @param noise_level The base noise level `lambda_b` of a new observation:
#'   `"mean"`, the mean of the learned variances `lambda` (conservative: a
#'   few large outlier variances can only widen the intervals), or
#'   `"trimmed"`, the mean of the `lambda_i` between their 5% and 95%
#'   quantiles. Both equal the noise variance for shared noise. Student-t
#'   noise ignores it: a new observation's noise is `t_nu(0, s^2)` (the
#'   prior of its `lambda`), and the prediction interval uses the t
#'   quantile with `nu` degrees of freedom on `sqrt(se^2 + s^2)`. With an
#'   outlier class (see `outlier_class` in [ard_control()]) it is the
#'   interval of a new row of the t class: it leaves out the class, into
#'   which a new row falls with probability `fit$student[["outlier_share"]]`
#'   and whose values the model does not predict (uniform over the
#'   response's range). On clean data that share is near 0 (n = 40 to 120:
#'   median below 1e-6, intervals covering 0.91 to 0.95 of new rows;
#'   `bench/robust_clean.R`).
#' @param offset Matrix fits made with an `offset`: its value at each row of
#'   `newdata` (required then; without `newdata` the training offset is
#'   used). Formula fits evaluate their offset in `newdata`, as
#'   [stats::predict.lm()] does, and take none here.
#' @param ... Unused.
#' @return As [stats::predict.lm()]: a vector, or a matrix with columns
#'   `fit`, `lwr`, `upr` with an interval; with `se.fit = TRUE` a list with
#'   `fit`, `se.fit`, `df` (`Inf`) and `residual.scale` (`sqrt(lambda_b)`).
#'   Rows of `newdata` with missing values give `NA`.
#' @examples
#' fit <- ard(accel ~ poly(times, 6), data = MASS::mcycle, noise = "sample")
#' predict(fit, data.frame(times = c(10, 20, 30)), interval = "prediction")
#' predict(fit, data.frame(times = 20), interval = "prediction", noise_level = "trimmed")
#' @export
predict.sb_ard <- function(object, newdata = NULL, se.fit = FALSE, interval = c("none", "confidence", "prediction"),
                        level = 0.95, noise_level = c("mean", "trimmed"), offset = NULL, ...) {
  interval <- match_arg(interval)
  noise_level <- match_arg(noise_level)
  check_prediction_args(se.fit, level)
  want_var <- se.fit || interval != "none"
  if (is.null(newdata)) check_has_rows(object, "predict() without newdata")
  if (is.null(newdata) && !want_var) return(pad_training(object, object$fitted.values))
  X <- if (is.null(newdata)) object$x else ard_new_design(object, newdata)
  off <- prediction_offset(object, newdata, offset, nrow(X))
  Xr <- X[, object$relevant, drop = FALSE]
  fit <- as.vector(Xr %*% object$weights) + off
  if (!want_var) return(fit)
  se <- sqrt(pmax(rowSums((Xr %*% object$Sigma) * Xr), 0))
  noise <- new_point_noise(object, noise_level)
  out <- gaussian_prediction(fit, se, noise$variance, se.fit, interval, level, noise$df)
  if (is.null(newdata)) pad_training(object, out) else out
}

# The noise of a new observation: lambda_b (base_noise()), or for Student-t
# noise its scale s^2 with nu degrees of freedom (the prior of lambda, as no
# residual of the new point is seen).
new_point_noise <- function(object, noise_level = "mean") {
  if (student_noise(object$noise) && is.finite(object$student[["df"]] %||% NA))
    return(list(variance = object$student[["scale"]], df = object$student[["df"]]))
  ns <- sample_noise_summary(object)
  list(variance = if (is.null(ns)) base_noise(object$lambda, noise_level) else ns[[noise_level]], df = Inf)
}

# What print(), summary() and predict() read of per-sample noise variances
# (NULL for shared noise): from the fit's lambda, or as a fit from chunks
# kept it (it keeps no per-row noise).
sample_noise_summary <- function(object) object$chunks$noise %||% noise_summary(object$lambda)

noise_summary <- function(lambda) {
  if (length(lambda) <= 1L) return(NULL)
  list(median = stats::median(lambda), mean = base_noise(lambda, "mean"), trimmed = base_noise(lambda, "trimmed"),
       quantiles = stats::quantile(lambda, c(0, 0.25, 0.5, 0.75, 1)), down_weighted = down_weighted(lambda))
}

# lambda_b: the mean, or the mean within the 5% and 95% quantiles, of the
# learned noise variances.
base_noise <- function(lambda, noise_level = "mean") {
  lambda <- lambda[is.finite(lambda)]  # zero-weight rows have lambda = Inf
  if (noise_level == "mean" || length(lambda) == 1L) return(mean(lambda))
  q <- stats::quantile(lambda, c(0.05, 0.95), names = FALSE)
  mean(lambda[lambda >= q[1L] & lambda <= q[2L]])
}

# The fitted design at new inputs: model matrix (formula fits) or the
# training columns, plus the intercept, scaled as in training.
ard_new_design <- function(object, newdata) {
  if (!is.null(object$terms)) {
    x <- formula_newdata(object, newdata, intercept = TRUE)
  } else {
    cols <- colnames(object$x)
    given <- if (isTRUE(object$intercept)) setdiff(cols, "(Intercept)") else cols
    x <- numeric_newdata(newdata, length(given), given, "features")
    if (isTRUE(object$intercept)) x <- cbind(1, x)
    colnames(x) <- cols
  }
  apply_scaling(x, object$scaling)
}

#' @export
print.sb_ard <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat("Joint ARD regression (", noise_model_name(x$noise), ")\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n  "), "\n", sep = "")
  # The calibrated set first: where the prior's price is small (d << n) ARD
  # keeps weights the data do not support (187 of 501 at n = 20000, d = 500,
  # 20 true; selected() keeps 21).
  candidates <- sum(candidate_columns(x))
  cat(if (candidates > 0L)
        sprintf("%d of %d features selected (inclusion probability > 0.5); ARD keeps %d of %d weights\n",
                length(selected(x)), candidates, length(x$relevant), x$n_basis)
      else sprintf("%d of %d weights relevant\n", length(x$relevant), x$n_basis))
  cat(sprintf("n = %d; %s; log evidence %s\n", stats::nobs(x), noise_label(x, digits),
              format(x$logLik, digits = digits + 2L)))
  cat(solver_label(x), prior_label(x), "\n", sep = "")
  cat(restart_note(x))
  cat(calibration_note(x))
  cat(interpolation_note(x))
  cat(span_note(x))
  invisible(x)
}

# Per-sample noise at its optimum lets the clean rows' variances follow their
# own residuals (every stationary point has lambda_i (1 - h_i) = r_i^2), so
# the clean rows look nearly noiseless and the weights' sds, z values, Bayes
# factors and selected() are overconfident: on README's example (3 true
# features of 20, 10 outliers) 4 to 11 false features were selected over 5
# seeds, against 0 to 1 with noise = "student", whose variances stay above
# nu s^2 / (nu + 1). The paper's schedule stops early, near its start.
calibration_note <- function(object) {
  if (!per_sample_noise(object$noise) || student_noise(object$noise) || identical(object$schedule, "paper"))
    return(NULL)
  paste0("Not calibrated: per-sample variances follow their own residuals, so sds, z, Bayes factors and ",
         "selected() are overconfident; noise = \"student\" is calibrated\n")
}

# The fit's interpolation warning (interpolation(), R/ard.R), kept for the reader.
interpolation_note <- function(object) {
  if (is.null(object$interpolation)) return(NULL)
  paste0(strwrap(paste0("Warning: ", object$interpolation), width = 0.9 * getOption("width"), exdent = 2),
         "\n", collapse = "")
}

# An exact fit the prior priced away (exact_span(), R/ard.R).
span_note <- function(object) {
  if (is.null(object$exact_span)) return(NULL)
  sprintf(paste0("Note: least squares fits y exactly (R-squared %.10g); the prior's price keeps %d of %d weights\n",
                 "  (on n = %d rows an exact fit looks like interpolation); prior = \"none\" fits it\n"),
          object$exact_span, length(object$relevant), object$n_basis, stats::nobs(object))
}

# "; prior RIC (6.91 nats per effective parameter)", "; prior adaptive (0
# to 6.2 nats per effective parameter, by level)", or "" without one.
prior_label <- function(x) {
  if (!any(x$smoothness > 0)) return("")
  name <- if (is.character(x$prior)) x$prior else "c"
  if (length(x$smoothness) == 1L) return(sprintf("; prior %s (%.3g nats per effective parameter)", name, x$smoothness))
  sprintf("; prior %s (%.3g to %.3g nats per effective parameter, by level)", name, min(x$smoothness),
          max(x$smoothness))
}

noise_model_name <- function(noise) {
  c(shared = "shared noise", sample = "per-sample noise", student = "Student-t noise")[[noise]]
}

# "Solver: em, 120 iterations", with "(NOT converged)" or the paper's schedule.
solver_label <- function(x) {
  sprintf("Solver: %s, %d iterations%s", x$method, x$iterations,
          if (identical(x$schedule, "paper")) " (the paper's schedule: a fixed budget)"
          else if (x$converged) "" else " (NOT converged)")
}

# "noise sd 0.31", "noise sd: median 0.30, 12 samples down-weighted", or for
# Student-t noise its scale and degrees of freedom as well.
noise_label <- function(x, digits) {
  ns <- sample_noise_summary(x)
  if (is.null(ns)) return(sprintf("noise sd %s", format(sqrt(x$lambda), digits = digits)))
  student <- if (!is.null(x$student) && is.finite(x$student[["df"]]))
    sprintf(" (t scale %s, df %s)", format(sqrt(x$student[["scale"]]), digits = digits),
            format(x$student[["df"]], digits = digits))
  sprintf("noise sd: median %s%s, %d samples down-weighted", format(sqrt(ns$median), digits = digits),
          student %||% "", ns$down_weighted)
}

# ", Student-t with df 4.2 and scale sd 0.31", or "" for other noise models.
student_label <- function(student, digits) {
  if (is.null(student) || !is.finite(student[["df"]])) return("")
  sprintf(", Student-t with df %s and scale sd %s", format(student[["df"]], digits = digits),
          format(sqrt(student[["scale"]]), digits = digits))
}

# Samples whose variance exceeds 10 times the median: the outliers data ARD
# has set aside.
down_weighted <- function(lambda) length(flagged_rows(lambda))

#' Summarise a joint ARD fit
#'
#' Condenses a joint ARD fit into what a reader checks first: the solver
#' and whether it converged, the log evidence, the noise model and its
#' level, the training error, and the largest weights with their posterior
#' standard deviations.
#'
#' @param object A fitted [ard()].
#' @param n_weights How many of the largest weights to list.
#' @param x A `summary.sb_ard` object.
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `summary.sb_ard` returns an object of class `"summary.sb_ard"`: a list
#'   with `call`, `method`, `noise`, `n`, `d`, `n_relevant`, `sigma` (the
#'   noise sd, shared noise) or `lambda_summary` (quantiles of the per-sample
#'   variances) and `down_weighted` (samples whose variance exceeds ten times
#'   the median), `student` (Student-t noise: `c(df, scale)`), `logLik`, `iterations`, `converged`, `jitter_events`,
#'   `rmse` and `r_squared` (training), `inlier_errors` (per-sample noise:
#'   `rmse` over the `n` of `of` rows not down-weighted and `median_abs`, the
#'   median absolute residual, measures the outliers do not dominate; `NULL`
#'   otherwise), `coefficients`, a matrix of the
#'   retained coefficients on the data's scale ([coef.sb_ard()]) with the
#'   largest |z| values, with their posterior sd, z value and log Bayes
#'   factor, `n_coefficients` (the retained coefficients, listed or not), `n_candidates` (penalised weights other than the
#'   intercept), `selected`, the weights [selected()] keeps, and `prior`,
#'   `smoothness` and `prior_choice` as in the fit.
#' @examples
#' summary(ard(accel ~ poly(times, 6), data = MASS::mcycle, noise = "sample"))
#' @export
summary.sb_ard <- function(object, n_weights = 10L, ...) {
  coefs <- weight_table(object, n_weights)
  ns <- sample_noise_summary(object)
  structure(list(call = object$call, method = object$method, noise = object$noise, n = stats::nobs(object),
                 d = object$n_basis, n_relevant = length(object$relevant),
                 sigma = if (is.null(ns)) sqrt(object$lambda) else NA_real_,
                 lambda_summary = ns$quantiles, down_weighted = ns$down_weighted %||% 0L, student = object$student,
                 logLik = object$logLik, prior = object$prior, smoothness = object$smoothness,
                 prior_choice = object$prior_choice,
                 iterations = object$iterations, converged = object$converged,
                 jitter_events = object$jitter_events,
                 rmse = training_rmse(object), r_squared = training_r_squared(object),
                 inlier_errors = inlier_errors(object), coefficients = coefs,
                 chunks = object$chunks,
                 n_coefficients = length(coef(object)),
                 n_candidates = sum(candidate_columns(object)), selected = selected(object),
                 restart_note = restart_note(object), calibration_note = calibration_note(object),
                 interpolation_note = interpolation_note(object), span_note = span_note(object)),
            class = "summary.sb_ard")
}

# The line of summary() that says what prior = "auto" chose and why.
prior_choice_line <- function(pc) {
  why <- if (is.na(pc$kept)) sprintf("RIC's log(d) at d = %d >= n = %d distinct rows", pc$d, pc$n_distinct)
         else sprintf("%d of %d features kept, d/n = %d/%d distinct rows", pc$kept, pc$d, pc$d, pc$n_distinct)
  sprintf("Prior (auto):       %.3g nats per effective parameter (%s)\n", pc$smoothness, why)
}

#' @rdname summary.sb_ard
#' @export
print.summary.sb_ard <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat("Joint ARD regression\n\nCall:\n", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n\n", sep = "")
  cat(sprintf("Selected:           %d of %d candidates with inclusion probability > 0.5 (beta-binomial prior)\n",
              length(x$selected), x$n_candidates))
  cat(sprintf("Relevant weights:   %d of %d kept by ARD (%sn = %d), a superset of the selected\n", x$n_relevant, x$d,
              if (x$d > x$n_candidates) "the intercept among them; " else "", x$n))
  cat(chunk_line(x$chunks))
  if (!per_sample_noise(x$noise)) {
    cat(sprintf("Noise:              shared, sd %s\n", format(x$sigma, digits = digits)))
  } else {
    cat(sprintf("Noise:              per sample%s; variances\n", student_label(x$student, digits)))
    print(x$lambda_summary, digits = digits)
    cat(sprintf("Down-weighted:      %d samples (variance > 10 x median)\n", x$down_weighted))
  }
  print_training_errors(x, digits)
  cat(sprintf("Log evidence:       %s\n", format(x$logLik, digits = digits + 2L)))
  if (!is.null(x$prior_choice)) cat(prior_choice_line(x$prior_choice))
  cat(sprintf("Solver:             %s, %d iterations, %s%s%s\n", x$method, x$iterations,
              if (x$converged) "converged" else "NOT converged",
              if (x$jitter_events > 0) sprintf(", %d jittered factorisations", x$jitter_events) else "", prior_label(x)))
  cat(x$restart_note)
  cat(x$calibration_note)
  cat(x$interpolation_note)
  cat(x$span_note)
  if (nrow(x$coefficients)) {
    cat(sprintf("\nCoefficients on the data's scale (the %d of %d largest |z|):\n", nrow(x$coefficients),
                x$n_coefficients))
    stats::printCoefmat(x$coefficients, digits = digits, has.Pvalue = FALSE)
  }
  invisible(x)
}

#' Coefficients of a joint ARD fit on the data's scale
#'
#' With `scale = TRUE`, [ard()] fits the weights of centred and scaled
#' columns. `coef()`, `vcov()` and `confint()` report the coefficients of
#' the columns as given, as [stats::lm()] and `glmnet` do: a weight `w_j` of
#' the column `(x_j - c_j) / s_j` is the coefficient `w_j / s_j` of `x_j`,
#' and the intercept absorbs `-sum_j w_j c_j / s_j` (it is reported even when
#' its own weight was pruned, or with `intercept = FALSE`, whenever the
#' centring implies one). The posterior covariance is mapped the same
#' linear way. `standardised = TRUE` gives the weights of the standardised
#' columns, the scale the prior and `alpha` refer to. Fits with
#' `scale = FALSE` have one scale only.
#'
#' @param object A fitted [ard()].
#' @param standardised Report the weights of the standardised columns?
#' @param parm,level As in [stats::confint()]: the terms (names or
#'   positions; all by default) and the coverage of the posterior normal
#'   interval.
#' @param ... Unused.
#' @return `coef()`: a named vector of the retained terms; `vcov()`: their
#'   posterior covariance; `confint()`: a matrix with the interval's limits.
#' @examples
#' fit <- ard(mpg ~ wt + hp + qsec, data = mtcars)
#' cbind(ard = coef(fit), lm = coef(lm(mpg ~ wt + hp + qsec, data = mtcars)))
#' coef(fit, standardised = TRUE)
#' confint(fit)
#' @export
coef.sb_ard <- function(object, standardised = FALSE, ...) {
  check_dots_empty(...)
  check_flag(standardised, "standardised")
  map <- if (!standardised) data_scale_map(object)
  if (is.null(map)) object$weights else drop(map %*% object$weights)
}

#' @rdname coef.sb_ard
#' @export
vcov.sb_ard <- function(object, standardised = FALSE, ...) {
  check_dots_empty(...)
  check_flag(standardised, "standardised")
  map <- if (!standardised) data_scale_map(object)
  if (is.null(map)) object$Sigma else map %*% object$Sigma %*% t(map)
}

#' @rdname coef.sb_ard
#' @export
confint.sb_ard <- function(object, parm, level = 0.95, standardised = FALSE, ...) {
  check_dots_empty(...)
  check_probability(level, "level")
  est <- coef(object, standardised = standardised)
  se <- sqrt(pmax(diag(vcov(object, standardised = standardised)), 0))
  if (!missing(parm)) {
    keep <- if (is.numeric(parm)) parm else match(parm, names(est))
    if (anyNA(keep) || any(keep < 1 | keep > length(est)))
      stop_arg("parm", "must name or number retained terms of the fit.")
    est <- est[keep]
    se <- se[keep]
  }
  q <- stats::qnorm((1 + level) / 2)
  pct <- paste(format(100 * c(1 - level, 1 + level) / 2, trim = TRUE, scientific = FALSE, digits = 3), "%")
  matrix(c(est - q * se, est + q * se), ncol = 2L, dimnames = list(names(est), pct))
}

# The linear map from the retained standardised weights to the coefficients
# of the columns as given (rows: the intercept, if any, then the retained
# features); NULL when the fit was not standardised.
data_scale_map <- function(object) {
  sc <- object$scaling
  if (is.null(sc)) return(NULL)
  terms <- names(object$weights)
  features <- terms[terms != "(Intercept)"]
  center <- sc$center[features]
  scale <- sc$scale[features]
  implied <- "(Intercept)" %in% terms || any(center != 0)
  rows <- c(if (implied) "(Intercept)", features)
  map <- matrix(0, length(rows), length(terms), dimnames = list(rows, terms))
  if (length(features)) map[cbind(features, features)] <- 1 / scale
  if (implied) {
    if ("(Intercept)" %in% terms) map["(Intercept)", "(Intercept)"] <- 1
    map["(Intercept)", features] <- -center / scale
  }
  map
}
