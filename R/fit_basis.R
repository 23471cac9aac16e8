# The one fitting routine. Every model of rvm() and ard() is
#   y = Phi w + e,  w_j ~ N(0, 1 / alpha_j),  e_i ~ N(0, lambda_i)
# (lambda shared, per sample, or per sample with a Student-t prior; binomial
# and poisson likelihoods by the Laplace approximation), fitted on a basis
# Phi that the front door built (kernel, dictionary, wavelets, features) by
# the solver that `solver` (solver_spec()) names. The stages: the basis
# (the caller's design), its statistics (basis_statistics(): a gaussian
# problem in standard units), the solve (.sb_fit -> fit_model() in
# inst/include/sparsebayes/fit.hpp, which dispatches to the solver), and
# the result mapped back (caller_units()). A caller that fits one basis
# several times (noise starts, prior prices) computes its statistics once
# and passes them. `wo`: the checked weights and offset
# (check_weights_offset()). `wavelet`: NULL, or the O(N) path on a single
# orthonormal wavelet basis (Phi is then NULL; see fit_wavelet_path()).
# `rows`: a matrix whose rows name the rows of Phi, for finding exact copies
# (relative_weights()): the inputs a kernel basis is built from (a kernel's
# rounding can differ between copies of a row), Phi itself by default.
# `join`: NULL, or the fast solver's checkpoint settings (join_at, and
# another fit's state to join there: fit_candidates(), R/learn_widths.R).
fit_basis <- function(Phi, y, family, solver, noise = "shared", smoothness = 0, wo = list(), wavelet = NULL,
                      rows = Phi, statistics = NULL, join = NULL) {
  control <- solver$control
  weights <- wo$weights
  offset <- wo$offset
  if (!is.null(wavelet)) {  # no weights, or equal ones: the fit of none, each row of weight `unit`
    res <- fit_wavelet_path(y, offset, control, smoothness, wavelet)
    if (!is.null(weights)) res$standard_units$unit <- weights[1L]
    return(res)
  }
  gaussian <- has_noise(family)
  n <- length(y)
  if (gaussian && !per_sample_noise(noise) && is.null(control$noise_variance)) check_rows_of_weight(weights)
  st <- if (gaussian) statistics %||% basis_statistics(Phi, y, noise, wo, rows)
  problem <- solver_problem(solver$method, noise, solver$gradient_form, smoothness,
                            noise_variance = if (gaussian) standard_noise_variance(control$noise_variance, st) else -1,
                            n_effective = if (gaussian) st$n_effective else -1,
                            target_variance = if (gaussian) st$target_variance else -1,
                            case_weights = if (!gaussian) weights, offset = if (!gaussian) offset)
  problem <- c(problem, join)
  settings <- core_settings(control, fit_reporter(control$stage %||% sprintf("%s solver", solver$method),
                                                  control$verbose, if (gaussian) data_scale_trace(st)))
  if (gaussian && !is.null(st$passes)) {  # per-sample noise from passes over chunks of rows (data_chunks())
    res <- .sb_fit_passes(st$statistics, st$y, st$passes$weighted, st$passes$rows, problem, settings)
    res$rss <- statistics_rss(st$statistics, res)
    res$row_passes <- st$passes$count()
  } else if (gaussian && !is.null(st$statistics)) {  # from sums over chunks of rows (data_chunks())
    res <- .sb_fit_statistics(st$statistics, problem, settings)
    res$rss <- statistics_rss(st$statistics, res)
  } else if (gaussian && !is.null(st$sums) && solver$method == "fast" && !per_sample_noise(noise)) {
    res <- .sb_fit_statistics(st$sums, problem, settings)  # the sums of the rows in memory (gram_statistics())
  } else {
    res <- .sb_fit(if (gaussian) st$Phi else Phi, if (gaussian) st$y else y, likelihood_of(family)$name, problem, settings,
                   if (gaussian) st$products)
  }
  if (gaussian) {
    res <- caller_units(res, st, Phi)
    if (!is.null(res$other)) res$other <- caller_units(res$other, st, Phi)  # the optimum not kept
    if (per_sample_noise(noise) && length(res$lambda) == 1L)  # never reached a per-sample update
      res$lambda <- rep(res$lambda, n) / (weights %||% 1)
  } else {
    res$lambda <- NA_real_
    if (!is.null(offset)) res$fitted <- res$fitted + offset
    ord <- order(res$relevant)
    res$relevant <- res$relevant[ord]
    res$mu <- res$mu[ord]
    res$Sigma <- res$Sigma[ord, ord, drop = FALSE]
  }
  res$standard_units <- st
  res
}

# The residual sum of squares of a fit from statistics, in their units:
# t't - 2 mu' Phi't + mu' Phi'Phi mu over the relevant columns.
statistics_rss <- function(s, res) {
  j <- as.integer(res$relevant)
  mu <- as.numeric(res$mu)
  max(s$tt - 2 * sum(mu * s$cross[j]) + sum(mu * (s$gram[j, j, drop = FALSE] %*% mu)), 0)
}

# The statistics stage of a gaussian fit: the basis and response in
# standard units (standard_units(): centred and scaled, weights applied,
# exact copies pooled with shared noise), which every solver of the problem
# reads and no solver changes.
basis_statistics <- function(Phi, y, noise, wo, rows = Phi) {
  standard_units(Phi, y, wo$weights, wo$offset, robust = per_sample_noise(noise), rows = rows)
}

# A solver specification: the method and its own settings (`gradient_form`
# is the gradient rule's primal or dual form, "auto" for every other rule).
solver_spec <- function(method, control, gradient_form = "auto") {
  list(method = method, gradient_form = if (method == "gradient") gradient_form else "auto", control = control)
}

# The gradient rule's form a fit records: "primal" or "dual", NA for the other rules.
fit_gradient_form <- function(solver) {
  if (identical(solver$gradient_form, "auto")) NA_character_ else solver$gradient_form
}

# `objective =`, the former name of `gradient_form =` in ard() and rvm()
# (`objective` names only what an optimiser minimises): a deprecation
# warning and the form it gives; NULL when not given.
deprecated_objective <- function(objective, fun) {
  if (is.null(objective)) return(NULL)
  warning(sprintf("`objective` is deprecated in %s(); use `gradient_form`.", fun), call. = FALSE)
  match_arg(objective, c("primal", "dual"), "objective")
}

# The O(N) path on a single orthonormal wavelet basis, a gaussian fit with
# shared noise: the response on its grid (`wavelet$order` sorts the rows),
# reflected to the next power of two (see kernel_wavelet()), in standard
# units with the scaling function as the constant column; the result for
# the observed points. `wavelet` also holds the family, the constants per
# level (`wavelet$smoothness`; NULL: the single constant `smoothness` for
# every level), `learn` and `invariant`.
fit_wavelet_path <- function(y, offset, control, smoothness, wavelet) {
  n <- length(y)
  M <- padded_size(n)
  before <- padding_before(n)
  reflect <- function(v) {
    if (is.null(v)) return(NULL)
    v <- v[wavelet$order]
    c(rev(v[seq_len(before) + 1L]), v, v[n - seq_len(M - n - before)])
  }
  st <- standard_units(NULL, reflect(y), offset = reflect(offset), const = c(1, 1 / sqrt(M)))
  problem <- solver_problem("fast", smoothness = max(smoothness), noise_variance = standard_noise_variance(control$noise_variance, st),
                            n_effective = st$n_effective, target_variance = st$target_variance)
  res <- .sb_fit_wavelet(st$y, wavelet$family, problem,
                         core_settings(control, fit_reporter("wavelet solver", control$verbose, data_scale_trace(st))),
                         wavelet$smoothness %||% numeric(0),
                         isTRUE(wavelet$learn), isTRUE(wavelet$invariant))
  fitted_columns <- res$relevant
  res <- caller_units(res, st, NULL)  # fitted: M values on the grid, with the offset
  observed <- before + seq_len(n)
  res$inclusion <- if (isTRUE(wavelet$learn))  # a centring column added by caller_units() is certain
    c(res$inclusion, 1)[match(res$relevant, fitted_columns, nomatch = length(fitted_columns) + 1L)]
  if (length(wavelet$smoothness) <= 1L) res$level_smoothness <- NULL
  if (isTRUE(wavelet$invariant))  # the mean without the offset, and its variance with the centring's (caller_units())
    res$invariant <- list(mean = (res$fitted - (st$offset %||% 0))[observed],
                          variance = res$fitted_variance[observed] * st$scale^2 +
                            if (1L %in% fitted_columns) 0 else res$lambda / M)
  res$fitted_variance <- NULL
  res$fitted <- res$fitted[observed][order(wavelet$order)]
  res$standard_units <- st
  res
}

# What the core is asked to solve, besides the control settings (-1: none).
# Binomial and poisson fits take case weights of the log-likelihood and an
# offset of the linear predictor; gaussian ones have them applied to the
# targets by standard_units().
solver_problem <- function(method, noise = "shared", gradient_form = "auto", smoothness = 0, noise_variance = -1,
                           n_effective = -1, target_variance = -1, case_weights = NULL, offset = NULL) {
  list(method = method, per_sample = per_sample_noise(noise), student = student_noise(noise),
       gradient_form = gradient_form,
       smoothness = smoothness, noise_variance = noise_variance, n_effective = n_effective,
       target_variance = target_variance, case_weights = case_weights %||% numeric(0),
       offset = offset %||% numeric(0))
}

action_names <- c("re-estimate", "add", "delete", "alignment skip", "noise only", "terminate", "rejected", "mode search")

# The fields every model object shares, from a fit_basis() result; `names`
# are the basis columns.
model_fields <- function(res, y, names, family, method, noise, control) {
  names(res$alpha) <- names
  relevant <- as.integer(res$relevant)
  weights <- stats::setNames(as.numeric(res$mu), names[relevant])
  Sigma <- as.matrix(res$Sigma)
  dimnames(Sigma) <- list(names(weights), names(weights))
  eta <- as.numeric(res$fitted)
  fitted <- if (has_noise(family) || !length(eta)) eta else family$linkinv(eta)  # none from chunks
  tr <- res$trace
  trace <- data.frame(iteration = tr$iteration, log_posterior = tr$log_posterior, relevant = tr$relevant, noise = tr$noise,
                      action = factor(action_names[tr$action + 1L], levels = action_names),
                      logLik = tr$log_posterior)  # the former name of log_posterior, kept for one release
  path <- NULL
  if (length(res$path$iteration)) {
    path <- res$path
    colnames(path$alpha) <- names
  }
  list(method = method, prior = "none", noise = noise, family = family, relevant = relevant, weights = weights,
       Sigma = Sigma, alpha = res$alpha, lambda = as.numeric(res$lambda), fitted.values = fitted,
       linear.predictors = eta, residuals = y - fitted, logLik = res$log_evidence,
       log_posterior = res$log_posterior, trace = trace, path = path, converged = res$converged,
       iterations = res$iterations, jitter_events = res$jitter_events, y = y, n_basis = length(res$alpha),
       studentized = isTRUE(control$studentized), control = control,
       schedule = if (method_supports(method, "batch")) control$schedule else NA_character_,  # the batch solvers' setting
       student = if (student_noise(noise))
         c(df = res$student_df, scale = res$student_scale, outlier_share = res$student_outlier_share %||% NA_real_),
       outlier_probability = if (length(res$outlier_probability)) as.numeric(res$outlier_probability),
       restarts = restart_table(res, names))
}

# Non-convergence is a warning (and `converged = FALSE`), never silent; the
# paper's schedule runs a fixed budget by design, so it is not warned about.
warn_not_converged <- function(fit, res) {
  if (!is.null(res$passes)) {  # a binomial or Poisson fit from chunks (chunk_laplace_fit())
    if (!res$passes_converged)
      warning(sprintf(paste0("the %s fit from data_chunks() did not converge in %d passes over the chunks ",
                             "(the relevant set or the weights still moved); `fit$chunks$passes_converged` is FALSE."),
                      fit$family$family, res$passes), call. = FALSE)
    else if (!fit$converged)
      warning("the fast solver did not converge within a pass; see `control = rvm_control()`.", call. = FALSE)
    return(invisible())
  }
  if (!fit$converged && !identical(fit$schedule, "paper"))
    warning(sprintf("the %s solver did not converge in %d iterations; see `control = %s()`.", fit$method,
                    fit$iterations, attr(fit$control, "maker") %||% "rvm_control"), call. = FALSE)
  if (!isTRUE(res$mode_converged))
    warning("the search for the posterior mode (Laplace approximation) did not converge.", call. = FALSE)
}
