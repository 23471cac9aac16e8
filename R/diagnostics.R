# Diagnostics shared by every sparsebayes model: effective support size,
# leverage, residuals and outliers (joint-ARD paper, section 4 and App. D).

#' Effective support size
#'
#' The effective fraction of active elements among non-negative relevance
#' scores, without a threshold (App. D of the joint-ARD paper). The scores
#' are normalised to a probability mass `p = x / sum(x)` and the effective
#' number of active entries is the exponentiated Shannon entropy
#' `exp(-sum(p log p))` (the perplexity); dividing by the number `m` of
#' scores gives the ESS in `(0, 1]`: 1 when all scores are equal, `1/m` when
#' one score holds all the mass. `order` selects the Rényi entropy of that
#' order instead: `order = 2` gives `1 / sum(p^2) / m`, the effective sample
#' size of importance sampling; `order = 0` the fraction of non-zero scores;
#' `order = Inf` gives `1 / max(p) / m`.
#'
#' For a fitted model the scores are the relevance of the weights, `1/alpha`
#' over all `n_basis` basis functions (0 for pruned ones, so pruning lowers
#' the ESS), or the relevance of the samples, `1/lambda` over the training
#' samples (1 for a shared noise level, where every sample is equally
#' relevant). For binomial and poisson fits the sample scores are the
#' working weights `V(mu_i)` of the Laplace approximation.
#'
#' @param x Non-negative finite relevance scores (a numeric vector), or a
#'   fitted model ([rvm()] or [ard()]).
#' @param which `"weights"` (relevance `1/alpha` of the basis functions) or
#'   `"samples"` (relevance `1/lambda` of the training samples).
#' @param order Order of the Rényi entropy, a number `>= 0` or `Inf`; 1 (the
#'   default) is the Shannon entropy.
#' @param ... Unused.
#' @details Zero scores contribute nothing to the entropy but count in `m`.
#'   All-zero scores have no distribution and give `NA`.
#' @return A number in `(0, 1]`, or `NA` for all-zero scores.
#' @references Martino, L., Elvira, V. and Louzada, F. (2017). Effective
#'   sample size for importance sampling based on discrepancy measures.
#'   *Signal Processing*, 131, 386--401. \doi{10.1016/j.sigpro.2016.08.025}
#' @examples
#' ess(c(1, 1, 1, 1))          # uniform: 1
#' ess(c(1, 0, 0, 0))          # one-hot: 1/4
#' ess(c(4, 2, 1, 1), order = 2)
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' ess(fit)                    # relevance of the weights
#' ess(fit, which = "samples") # shared noise: 1
#' @export
ess <- function(x, ...) UseMethod("ess")

#' @rdname ess
#' @export
ess.default <- function(x, order = 1, ...) {
  check_dots_empty(...)
  if (!is.numeric(x)) stop_arg("x", "must be a numeric vector of relevance scores or a fitted sparsebayes model.")
  x <- as.vector(x)
  if (length(x) == 0L) stop_arg("x", "is empty.")
  if (anyNA(x)) stop_arg("x", "contains NA or NaN.")
  if (any(!is.finite(x))) stop_arg("x", "contains infinite values.")
  if (any(x < 0)) stop_arg("x", "must be non-negative; relevance scores are 1/alpha or 1/lambda.")
  check_order(order)
  ess_scores(x, order)
}

#' @rdname ess
#' @export
ess.sparsebayes <- function(x, which = c("weights", "samples"), order = 1, ...) {
  check_dots_empty(...)
  which <- match_arg(which)
  check_order(order)
  check_single_model(x)
  # an unpenalised intercept (alpha 0, the centring of standard units) has no ARD relevance
  if (which == "weights") return(ess_scores(ifelse(is.finite(x$alpha) & x$alpha > 0, 1 / x$alpha, 0), order))
  check_has_rows(x, "ess(which = \"samples\")")
  ess_scores(1 / sample_noise(x), order)
}

check_order <- function(order) {
  if (!is.numeric(order) || length(order) != 1L || is.na(order) || order < 0)
    stop_arg("order", "must be a single number >= 0 (or Inf); 1 is the Shannon entropy.")
  invisible(order)
}

# Normalised Rényi effective number exp(H_q(p)) / m of non-negative scores.
ess_scores <- function(x, order) {
  m <- length(x)
  total <- sum(x)
  if (total == 0) return(NA_real_)
  p <- x[x > 0] / total  # zeros contribute nothing
  n_eff <- if (order == 1) exp(-sum(p * log(p)))
           else if (order == 0) length(p)
           else if (is.infinite(order)) 1 / max(p)
           else sum(p^order)^(1 / (1 - order))
  min(n_eff / m, 1)  # perplexity <= m; min() only absorbs rounding
}

# Multiclass fits hold one model per class; the diagnostics need one model.
check_single_model <- function(object) {
  if (inherits(object, "sb_rvm_multiclass"))
    stop("diagnostics need a single model; use one of `object$models`, e.g. `object$models[[1]]`.",
         call. = FALSE)
  if (is.null(object$alpha) || is.null(object$Sigma))
    stop("`object` is not a fitted sparsebayes model (no `alpha` or `Sigma`).", call. = FALSE)
  invisible(object)
}

# The noise variance of each training sample: lambda for gaussian fits
# (recycled when shared, then divided by row_precisions(): a shared lambda
# is the noise of a row of average weight, while per-sample lambda are already
# reported per row); for binomial and poisson fits the variance of the
# Laplace approximation's working response, 1 / (w V(mu)), so that hat
# values and Pearson residuals match those of stats::glm with prior weights.
# Rows of weight 0 get Inf (no precision, leverage 0).
sample_noise <- function(object) {
  n <- length(object$y)
  if (has_noise(object$family)) {
    lambda <- as.numeric(object$lambda)
    return(if (length(lambda) == 1L) rep_len(lambda, n) / row_precisions(object) else lambda)
  }
  w <- object$prior.weights %||% rep(1, n)
  # the IRLS weights, glm's working weights: the variance function with a
  # canonical link, else Fisher's information (the core's, likelihood.hpp)
  family <- object$family
  mu <- object$fitted.values
  info <- if (likelihood_of(family)$canonical) family$variance(mu)
          else family$mu.eta(object$linear.predictors)^2 / family$variance(mu)
  1 / (w * info)
}

# The n x length(relevant) design of the retained basis functions at the
# training inputs (the contract with the ard branch: one definition here).
training_design <- function(object) {
  check_single_model(object)
  if (inherits(object, "sb_ard")) return(object$x[, object$relevant, drop = FALSE])
  if (is.null(object$kernel))
    stop("the training design of a fit with a user `basis` is not stored; ",
         "compute diagnostics from `basis[, object$relevant]` and `object$Sigma`.", call. = FALSE)
  relevant_design(object, object$x)
}

# Hat values of the cases that were fitted (no na.exclude padding; na.omit
# pads nothing, so its rows must not be dropped again).
leverage <- function(object) {
  h <- hatvalues(object)
  if (inherits(object$na.action, "exclude")) h <- h[-object$na.action]
  unname(h)
}

# Positions in the data (after `subset`) of the cases that were fitted: rows
# that na.omit or na.exclude set aside are skipped.
data_rows <- function(object) {
  n <- length(object$y)
  omitted <- object$na.action
  if (is.null(omitted)) return(seq_len(n))
  seq_len(n + length(omitted))[-omitted]
}

#' Leverage of the training samples
#'
#' The diagonal of the hat matrix of a sparsebayes fit, `h_i = x_i' Sigma
#' x_i / lambda_i`, where `x_i` is the i-th row of the retained design,
#' `Sigma` the posterior covariance of the weights and `lambda_i` the noise
#' variance of sample i (section 4 of the joint-ARD paper; with prior
#' weights and shared noise `lambda / w_i`). It measures how
#' strongly `y_i` pulls its own fitted value. With a shared noise level and
#' precisions tending to 0 it tends to [stats::hatvalues()] of the least
#' squares fit on the same columns; in general `sum(h) = sum(1 - alpha_j
#' Sigma_jj)`, the effective number of parameters. For binomial and poisson
#' fits `1/lambda_i` is the working weight `w_i V(mu_i)` of the Laplace
#' approximation, as for [stats::glm()] (see [weights.sparsebayes()]).
#'
#' @param model A fitted model ([rvm()] or [ard()]) with a stored training
#'   design (not a fit with a user `basis`).
#' @param ... Unused.
#' @return A numeric vector of leverages in `[0, 1)`, one per training sample.
#' @seealso [residuals.sparsebayes()], [outliers()].
#' @importFrom stats hatvalues
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' h <- hatvalues(fit)
#' sum(h)   # effective number of parameters
#' @export
hatvalues.sparsebayes <- function(model, ...) {
  check_dots_empty(...)
  check_has_rows(model, "hatvalues()")
  h <- hat_diagonal(model)
  names(h) <- case_names(model)
  stats::naresid(model$na.action, h)
}

# x_i' Sigma x_i / lambda_i for the fitted cases, from the retained columns
# Phi of the design (built from the kernel unless the caller has them).
hat_diagonal <- function(model, Phi = training_design(model)) {
  pmax(rowSums((Phi %*% model$Sigma) * Phi), 0) / sample_noise(model)
}

# Names of the training cases: the data's row names for formula fits (as
# lm's residuals carry them), their positions otherwise.
case_names <- function(object) {
  n <- length(object$y)
  nm <- names(object$fitted.values)
  if (length(nm) == n) nm else as.character(seq_len(n))
}

#' Residuals of a sparsebayes fit
#'
#' Response, Pearson and leave-one-out residuals of an [rvm()] or [ard()]
#' fit, padded for `na.action = na.exclude` as [stats::residuals.lm()] is.
#'
#' @param object A fitted model ([rvm()] or [ard()]).
#' @param type `"response"`: `y - fitted`. `"pearson"`: the response
#'   residual over the noise sd of its sample, `r_i / sqrt(lambda_i)` (with
#'   prior weights `w_i` and shared noise `sqrt(w_i) r_i / sqrt(lambda)`; for
#'   binomial and poisson fits `sqrt(w_i) r_i / sqrt(V(mu_i))`, as
#'   [stats::glm()]).
#'   `"loo"`: the leave-one-out residual `r_i / (1 - h_i)` with the leverage
#'   `h_i` of [hatvalues.sparsebayes()], exact for fixed precisions and noise
#'   by the Sherman-Morrison identity (section 4 of the joint-ARD paper; its
#'   square is the PRESS term).
#' @param ... Unused.
#' @return A numeric vector, one residual per training sample.
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' head(residuals(fit, type = "loo"))
#' @export
residuals.sparsebayes <- function(object, type = c("response", "pearson", "loo"), ...) {
  check_dots_empty(...)
  type <- match_arg(type)
  check_single_model(object)
  check_has_rows(object, "residuals()")
  r <- object$residuals
  r <- switch(type, response = r,
              pearson = if (has_noise(object$family)) r / sqrt(sample_noise(object))
                        else r * sqrt((object$prior.weights %||% 1) / object$family$variance(object$fitted.values)),
              loo = loo_residuals(object))
  names(r) <- names(object$fitted.values)
  stats::naresid(object$na.action, r)
}

# The leave-one-out residuals r_i / (1 - h_i) of the fitted rows.
loo_residuals <- function(object) object$residuals / (1 - leverage(object))

#' Samples ranked by their noise variance, with the kind of each outlier
#'
#' Lists the training samples that joint ARD down-weights most: those with
#' the largest learned noise variance `lambda_i`, i.e. the lowest sample
#' relevance `1/lambda_i`. With a shared noise level all `lambda_i` are
#' equal and the ranking falls back on the absolute leave-one-out residual.
#'
#' Each sample is also placed on the outlier map of robust regression
#' (Rousseeuw and van Zomeren 1990), drawn by `plot(fit, which =
#' "outlier_map")`, from the fit's own noise variances:
#' \describe{
#'   \item{`std_residual`}{the residual in units of the inliers' noise sd:
#'     `r_i / sqrt(lambda_0)`, where `lambda_0` is the noise variance of
#'     sample i for a shared noise level (so this is the Pearson residual)
#'     and, for per-sample noise, the squared MAD scale of the residuals
#'     (outliers would inflate any mean of the `lambda_i`).}
#'   \item{`distance`}{the robust distance of the sample's inputs (every
#'     candidate column of an [ard()] fit, constant columns aside, so a
#'     column the fit pruned still counts; the inputs of an [rvm()]): the
#'     Mahalanobis distance from the mean and covariance of the rows with
#'     `|std_residual| <= 2.5`, reweighted until rows beyond the cut-off no
#'     longer count, the covariance corrected for that truncation (as in a
#'     reweighted MCD), so a cluster of far rows cannot hide itself. Where
#'     the inputs give no covariance (a user basis, more columns than
#'     inliers), the hat value the sample would have with noise `lambda_0`
#'     in the fit without it (Sherman-Morrison), put on the distance scale
#'     of least squares, `h = 1/n + d^2/(n - 1)`.}
#'   \item{`inlier_leverage`}{the leverage the type is read from: the hat
#'     value of the sample's inputs among the `m` inlier rows that
#'     `distance` is measured from, `1/m + distance^2/(m - 1)` (a least
#'     squares hat value with an intercept; without input distances, the
#'     hat value with noise `lambda_0` above). Unlike `leverage`, the fit's
#'     own hat value, it does not vanish for a row the fit down-weights:
#'     a down-weighted row has `leverage` near 0 whatever its inputs.}
#'   \item{`type`}{`"regular"`; `"vertical outlier"` (`|std_residual| >
#'     2.5`, ordinary leverage): an outlier in the response only, which any
#'     robust fit resists; `"good leverage"` (leverage above the cut-off,
#'     small residual): an unusual row that follows the fit and makes its
#'     coefficients more precise; `"bad leverage"` (both): an unusual row
#'     that disagrees with the fit, the kind that masks itself in a least
#'     squares fit. The leverage cut-off is `inlier_leverage > 3 p / n`, the
#'     usual hat-value rule, for `p` inputs counting the intercept (without
#'     input distances: `k` effective parameters) and `n` fitted rows;
#'     `attr(, "cutoffs")` also gives it as a `distance`. Every label
#'     comes from the fit at hand (its residuals and the inliers it
#'     defines), never from the other optimum in `fit$restarts`. Rows of
#'     weight 0 have no type (`NA`).}
#' }
#' Read it as the robust diagnostic plot: vertical outliers lie above or
#' below the band `|std_residual| <= 2.5` on the left, bad leverage points
#' outside the band on the right, good leverage points inside the band on
#' the right. A bad leverage point that the fit did not down-weight shows a
#' small residual: compare the fit from `ard_control(start = "robust")`.
#'
#' @param object A fitted model ([rvm()] or [ard()]).
#' @param n How many samples to list (at most the number of samples).
#' @param ... Unused.
#' @return A data frame with one row per sample, the largest `lambda`
#'   first, and columns `index` (training row), `lambda` (noise variance),
#'   `residual` (response residual), `loo_residual` (leave-one-out
#'   residual), `leverage` (the fit's hat value), `std_residual`,
#'   `distance`, `inlier_leverage` and `type` (a factor; see Details); for Student-t noise with an outlier
#'   class (see `outlier_class` in [ard_control()]) also
#'   `outlier_probability`, the posterior probability that the row belongs
#'   to that class. The attribute `"cutoffs"` holds the residual,
#'   distance and inlier-leverage cut-offs.
#' @references Rousseeuw, P. J. and van Zomeren, B. C. (1990). Unmasking
#'   multivariate outliers and leverage points. *Journal of the American
#'   Statistical Association*, 85, 633--639.
#' @seealso [hatvalues.sparsebayes()], [ess()], [plot.sb_ard()].
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle)
#' outliers(fit, n = 5)
#' @export
outliers <- function(object, n = 10L, ...) UseMethod("outliers")

#' @rdname outliers
#' @export
outliers.sparsebayes <- function(object, n = 10L, ...) {
  check_dots_empty(...)
  check_single_model(object)
  check_has_rows(object, "outliers()")
  check_number(n, "n", lower = 1, integer = TRUE)
  map <- outlier_map(object)
  loo <- map$residual / (1 - map$leverage)
  ord <- order(-map$lambda, -abs(loo))[seq_len(min(n, nrow(map)))]
  out <- data.frame(index = data_rows(object)[ord], lambda = map$lambda[ord], residual = map$residual[ord],
                    loo_residual = loo[ord], leverage = map$leverage[ord], std_residual = map$std_residual[ord],
                    distance = map$distance[ord], inlier_leverage = map$inlier_leverage[ord], type = map$type[ord],
                    row.names = case_names(object)[ord])
  if (!is.null(object$outlier_probability)) out$outlier_probability <- object$outlier_probability[ord]
  attr(out, "cutoffs") <- attr(map, "cutoffs")
  out
}

#' @rdname outliers
#' @export
outliers.sb_sparse_gp <- function(object, n = 10L, ...) {
  stop_arg("object", "is a sparse GP, which has one noise variance for all rows and no leverage of a finite basis, ",
           "the two coordinates of outliers(); its standardised residuals are residuals(object) / sigma(object), ",
           "or fit rvm() or ard() with noise = \"student\" for each row's own noise.")
}

outlier_types <- c("regular", "vertical outlier", "good leverage", "bad leverage")

# The outlier map's coordinates of every training row (see outliers()).
outlier_map <- function(object) {
  lambda <- sample_noise(object)
  r <- unname(object$residuals)
  kept <- is.finite(lambda)
  per_sample <- has_noise(object$family) && length(object$lambda) > 1L
  # The robust scale counts tied responses once (as the Student-t floor
  # does): a fit that reproduces 100 tied zeros of 200 has a residual MAD of
  # ~0 and called every other row an outlier.
  lambda_0 <- if (per_sample) {
    distinct <- !duplicated(object$y[kept])  # one row of each tied response among the fitted rows
    rep((1.4826 * stats::median(abs(r[kept][distinct])))^2, length(r))
  } else lambda
  std_residual <- ifelse(kept, r / sqrt(lambda_0), 0)
  off <- abs(std_residual) > 2.5
  h <- leverage(object)
  dist <- input_distances(object, kept & !off) %||% leverage_distances(object, h, lambda, lambda_0)
  # One leverage coordinate, from the kept fit alone: the hat value of the
  # row's inputs among the m inlier rows, h = 1/m + d^2/(m - 1), against
  # the usual 3p/n (p inputs with the intercept, n fitted rows). The fit's
  # own hat value of a row it down-weights is ~0 whatever its inputs, and
  # a chi-squared quantile of d flags 2.5% of clean rows however many
  # columns there are (a random 20-column row of 200 is as likely "far" as
  # a 3-column one of hbk); 3p/n grows with p as hat values do.
  m <- attr(dist, "reference")
  inlier_leverage <- 1 / m + as.vector(dist)^2 / (m - 1)
  cut_h <- 3 * attr(dist, "inputs") / sum(kept)
  far <- inlier_leverage > cut_h
  type <- factor(ifelse(far, ifelse(off, "bad leverage", "good leverage"), ifelse(off, "vertical outlier", "regular")),
                 levels = outlier_types)
  type[!kept] <- NA
  map <- data.frame(lambda = lambda, residual = r, leverage = h, std_residual = std_residual,
                    distance = as.vector(dist), inlier_leverage = inlier_leverage, type = type)
  attr(map, "cutoffs") <- c(residual = 2.5, distance = sqrt(max((m - 1) * (cut_h - 1 / m), 0)), inlier_leverage = cut_h)
  map
}

# Robust distances of the inputs (every candidate column of an ard() fit
# but a constant; the inputs of an rvm()): Mahalanobis distances from the
# mean and covariance of a reference set of rows. The set starts at the
# rows the fit's noise precisions mark as inliers and is reweighted (rows
# beyond the cut-off leave it) until it no longer changes, with the
# covariance corrected for that truncation (Croux and Haesbroeck 1999), as
# in a reweighted MCD. Leverage is a property of the inputs, which a sparse
# fit may have pruned (hbk's robust fit keeps the intercept alone), and a
# cluster of far rows hides itself from hat values. NULL where the
# reference set cannot give a covariance (more columns than inliers, a
# column constant among them, a user basis).
input_distances <- function(object, inlier) {
  Z <- if (inherits(object, "sb_ard")) object$x
       else if (!is.null(object$kernel) && is.matrix(object$x) && is.numeric(object$x)) object$x
  if (is.null(Z)) return(NULL)
  Z <- Z[, apply(Z, 2L, function(z) any(z != z[1L])), drop = FALSE]
  p <- ncol(Z)
  if (p == 0L) return(NULL)
  cutoff2 <- stats::qchisq(0.975, p)
  consistency <- stats::pchisq(cutoff2, p + 2) / 0.975
  reference <- inlier
  for (step in 1:20) {
    if (sum(reference) <= 2 * p) return(NULL)
    S <- stats::cov(Z[reference, , drop = FALSE])
    if (step > 1L) S <- S / consistency
    d2 <- tryCatch(stats::mahalanobis(Z, colMeans(Z[reference, , drop = FALSE]), S), error = function(e) NULL)
    if (is.null(d2) || !all(is.finite(d2))) return(NULL)
    next_reference <- inlier & d2 <= cutoff2
    if (identical(next_reference, reference)) break
    reference <- next_reference
  }
  structure(sqrt(d2), reference = sum(reference), inputs = p + 1)
}

# Without input distances: the hat value each row would have with noise
# lambda_0 in the fit without it (Sherman-Morrison on the retained basis:
# the variance of its fitted value there is h lambda / (1 - h)), on the
# distance scale of a least squares fit with an intercept, h = 1 / n + d^2 /
# (n - 1), for k - 1 effective slopes.
leverage_distances <- function(object, h, lambda, lambda_0) {
  q_without <- h * lambda / (1 - h)
  h_inlier <- ifelse(is.finite(lambda), q_without / (q_without + lambda_0), 0)
  n <- sum(is.finite(lambda))
  structure(sqrt(pmax((n - 1) * (h_inlier - 1 / n), 0)), reference = n, inputs = effective_parameters(object))
}
