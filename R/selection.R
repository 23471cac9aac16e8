# Evidence for each retained weight, and a selection at a stated confidence.

#' Select the features the data support
#'
#' ARD keeps a weight when its precision `alpha` is finite, but "relevant" is
#' not "supported by the data": many weights are kept with large precisions
#' and posterior means near zero. `selected()` keeps those whose posterior
#' inclusion probability exceeds `probability`, computed from each weight's
#' log Bayes factor and a prior on inclusion that accounts for the number of
#' candidate features.
#'
#' **The log Bayes factor** of weight j (the `log_bf` column of
#' [tidy()][tidy.sb_rvm]) is the log evidence of the fit that keeps it, at
#' its precision `alpha_j`, minus that of the fit that prunes it, the other
#' precisions and the noise held at the fitted values. With `s_j`, `q_j` the
#' sparsity and quality of its column measured without it (Tipping and Faul
#' 2003) it is `[log(alpha_j / (alpha_j + s_j)) + q_j^2 / (alpha_j + s_j)] / 2`;
#' at the fit `alpha_j + s_j = 1 / Sigma_jj` and `q_j = mu_j / Sigma_jj`, so
#' `log_bf = [log(alpha_j Sigma_jj) + mu_j^2 / Sigma_jj] / 2`. At an optimum
#' of the evidence (`alpha_j = 1 / (mu_j^2 + Sigma_jj)`) this is
#' `(z^2 - log(1 + z^2)) / 2` with `z = mu_j / sd_j` the posterior z value:
#' a weight two posterior sds from zero earns 1.2 nats, three sds 3.4 nats.
#' Unpenalised weights (the intercept, `alpha = 0`) have none (`NA`) and are
#' never candidates. For binomial and poisson RVMs the evidence is the
#' Laplace approximation, for Student-t noise the variational bound's
#' Gaussian at the fitted `lambda`.
#'
#' **The prior.** With `prior_inclusion = p`, each feature is included a
#' priori with probability `p`, and its posterior inclusion probability is
#' `plogis(log_bf + qlogis(p))`. The default `"beta-binomial"` puts a uniform
#' prior on the inclusion rate (a Beta(1, 1) over it, so every model size
#' from 0 to d is equally likely a priori, Scott and Berger 2010): feature j
#' then has prior odds `(k + 1) / (d - k)`, with `k` the number of other
#' selected features and `d` the number of candidates. The more candidates,
#' the more evidence a feature needs (multiplicity). The selection is the
#' smallest self-consistent set, grown from the empty one.
#'
#' **Compared with glmnet and posterior inclusion probabilities.**
#' `cv.glmnet`'s `lambda.1se` chooses the sparsest lasso within one standard
#' error of the best cross-validated error: a prediction criterion with no
#' stated confidence per feature. The probabilities here are conditional on
#' the other hyperparameters (one feature at a time), not the marginal
#' inclusion probabilities of a spike-and-slab sampler or of `susieR`, which
#' average over the other features' inclusion; with correlated features they
#' can be overconfident for one of a correlated pair.
#'
#' **Per-sample noise** (`noise = "sample"`) is not calibrated for
#' selection: at its optimum the clean rows' variances follow their own
#' residuals, so they look nearly noiseless and every sd, z and Bayes factor
#' is too confident (README's example, 3 true features of 20 with 10
#' outliers: 4 to 11 false features selected over 5 seeds). `print()` and
#' `summary()` say so. Use `noise = "student"`, whose variances keep a
#' common floor (0 to 1 false features there).
#'
#' @param object A fitted [ard()] or [rvm()] (not multiclass).
#' @param probability The posterior inclusion probability a feature needs.
#' @param prior_inclusion `"beta-binomial"` or a prior inclusion probability
#'   in (0, 1).
#' @return `selected()`: the names of the selected weights (as in `coef()`),
#'   ordered by decreasing log Bayes factor. `inclusion_probabilities()`:
#'   the inclusion probability of every retained candidate weight (at the
#'   selection `probability` defines, for the beta-binomial prior), named.
#' @references Tipping, M. E. and Faul, A. C. (2003). Fast marginal
#'   likelihood maximisation for sparse Bayesian models. *AISTATS*.
#'
#'   Scott, J. G. and Berger, J. O. (2010). Bayes and empirical-Bayes
#'   multiplicity adjustment in the variable-selection problem. *Annals of
#'   Statistics*, 38, 2587--2619.
#' @seealso [tidy()][tidy.sb_rvm] (column `log_bf`), [summary.sb_ard()],
#'   [plot.sb_ard()] (`which = "evidence"`).
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(200 * 50), 200, 50)
#' y <- drop(X[, 1:5] %*% c(2, -1.5, 1, -0.75, 0.5)) + rnorm(200)
#' fit <- ard(X, y)
#' length(fit$relevant)  # kept by ARD, the intercept included
#' selected(fit)         # supported by the data
#' round(inclusion_probabilities(fit), 2)
#' @export
selected <- function(object, probability = 0.5, prior_inclusion = "beta-binomial") {
  p <- inclusion_probabilities(object, probability, prior_inclusion)
  keep <- p > probability
  names(p)[keep][order(log_bayes_factors(object)[names(p)][keep], decreasing = TRUE)]
}

#' @rdname selected
#' @export
inclusion_probabilities <- function(object, probability = 0.5, prior_inclusion = "beta-binomial") {
  check_single_model(object)
  check_probability(probability, "probability")
  check_prior_inclusion(prior_inclusion)
  p <- candidate_probabilities(object, prior_inclusion, probability)
  p[!is.na(p)]
}

# The log Bayes factor of each retained weight (see selected()); NA for
# unpenalised weights.
log_bayes_factors <- function(object) {
  a <- unname(object$alpha[object$relevant])
  v <- diag(object$Sigma)
  mu <- object$weights
  # A fit centred in standard units carries the centre in its intercept
  # (or bias), which is not part of the weight the evidence prices.
  constant <- names(mu) %in% c("(Intercept)", "(bias)")
  mu[constant] <- mu[constant] - (object$standard_units[["center"]] %||% 0)
  if (!is.null(object$inclusion)) {  # averaged wavelet fits: the posterior given inclusion (orthonormal columns)
    v <- 1 / (1 / object$lambda + a)
    mu <- mu / object$inclusion
  }
  stats::setNames(ifelse(a > 0, 0.5 * (log(a * v) + mu^2 / v), NA_real_), names(mu))
}

# Candidate weights: penalised columns other than the intercept or bias.
candidate_columns <- function(object) {
  nm <- names(object$alpha) %||% rep("", length(object$alpha))
  object$alpha != 0 & !nm %in% c("(Intercept)", "(bias)")
}

# Posterior inclusion probability of each retained weight (NA for
# non-candidates); with the beta-binomial prior the smallest self-consistent
# selection at `probability`, grown from the empty set.
candidate_probabilities <- function(object, prior_inclusion, probability) {
  lb <- log_bayes_factors(object)
  candidate <- candidate_columns(object)[object$relevant]
  lb[!candidate] <- NA_real_
  if (is.numeric(prior_inclusion)) return(stats::plogis(lb + stats::qlogis(prior_inclusion)))
  d <- sum(candidate_columns(object))
  chosen <- rep(FALSE, length(lb))
  repeat {
    k <- sum(chosen) - chosen  # the other selected features
    p <- stats::plogis(lb + beta_binomial_log_odds(k, d))
    now <- !is.na(p) & p > probability
    if (identical(now, chosen)) return(p)
    chosen <- now
  }
}

# Prior log odds of including one more of d candidates, k others included,
# under a uniform prior on the inclusion rate.
beta_binomial_log_odds <- function(k, d) log((k + 1) / (d - k))

check_prior_inclusion <- function(prior_inclusion) {
  if (identical(prior_inclusion, "beta-binomial")) return(invisible())
  if (is.character(prior_inclusion))
    stop_arg("prior_inclusion", "must be \"beta-binomial\" or a prior inclusion probability in (0, 1).")
  check_probability(prior_inclusion, "prior_inclusion")
}
