# The one fitting routine. Every model of rvm() and ard() is
#   y = Phi w + e,  w_j ~ N(0, 1 / alpha_j),  e_i ~ N(0, lambda_i)
# (lambda shared, per sample, or per sample with a Student-t prior; binomial and poisson likelihoods by the
# Laplace approximation), fitted on a basis Phi that the front door built
# (kernel, dictionary, wavelets, features) by a solver named by `method`.
# fit_basis() puts a gaussian problem in standard units (standard_units()),
# runs the core (.sb_fit -> fit_model() in inst/include/sparsebayes/fit.hpp,
# which dispatches to the solver), and maps the result back (caller_units()).
# `wavelet`: NULL, or list(family, order) for the O(N) path on a single
# orthonormal wavelet basis (Phi is then NULL; `order` puts the rows on the
# dyadic grid).
fit_basis <- function(Phi, y, family, method, noise = "shared", smoothness = 0, objective = "auto",
                      control, weights = NULL, offset = NULL, wavelet = NULL) {
  gaussian <- family$family == "gaussian"
  n <- length(y)
  if (gaussian && noise == "shared" && is.null(control$noise_variance)) check_replicated_weights(weights)
  st <- if (gaussian) standard_units(Phi, y, weights, offset, robust = noise != "shared",
                                     const = if (!is.null(wavelet)) c(1, 1 / sqrt(n)))
  problem <- solver_problem(method, noise, objective, max(smoothness),  # per level: wavelet$smoothness
                            fixed_noise = if (gaussian) fixed_noise_std(control$noise_variance, st) else -1,
                            n_effective = if (gaussian) st$n_effective else -1,
                            target_variance = if (gaussian) st$target_variance else -1,
                            case_weights = if (!gaussian) weights, offset = if (!gaussian) offset)
  settings <- core_settings(control)
  if (!is.null(wavelet)) {
    res <- .sb_fit_wavelet(st$y[wavelet$order], wavelet$family, problem, settings, wavelet$smoothness %||% numeric(0),
                           isTRUE(wavelet$learn), isTRUE(wavelet$invariant))
    res$fitted[wavelet$order] <- res$fitted
    if (!isTRUE(wavelet$learn)) res$inclusion <- NULL
    if (length(wavelet$smoothness) <= 1L) res$level_smoothness <- NULL
  } else {
    res <- .sb_fit(if (gaussian) st$Phi else Phi, if (gaussian) st$y else y,
                   c(gaussian = "gaussian", binomial = "bernoulli", poisson = "poisson")[[family$family]],
                   problem, settings)
  }
  if (gaussian) {
    fitted_columns <- res$relevant
    res <- caller_units(res, st, Phi)
    if (!is.null(res$inclusion))  # a centring column added by caller_units() is certain
      res$inclusion <- c(res$inclusion, 1)[match(res$relevant, c(fitted_columns, -1L), nomatch = length(fitted_columns) + 1L)]
    if (isTRUE(wavelet$invariant))  # the mean and variance on the grid, without an offset
      res$invariant <- list(mean = (res$fitted - (offset %||% 0))[wavelet$order],
                            variance = res$fitted_variance * st$scale^2 +  # and the centring's, as caller_units() adds it
                              if (1L %in% fitted_columns) 0 else res$lambda / n)
    res$fitted_variance <- NULL
    if (noise != "shared" && length(res$lambda) == 1L)  # never reached a per-sample update
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

# What the core is asked to solve, besides the control settings (-1: none).
# Binomial and poisson fits take case weights of the log-likelihood and an
# offset of the linear predictor; gaussian ones have them applied to the
# targets by standard_units().
solver_problem <- function(method, noise = "shared", objective = "auto", smoothness = 0, fixed_noise = -1,
                           n_effective = -1, target_variance = -1, case_weights = NULL, offset = NULL) {
  list(method = method, per_sample = noise != "shared", student = noise == "student", form = objective,
       smoothness = smoothness, fixed_noise = fixed_noise, n_effective = n_effective,
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
  fitted <- if (family$family == "gaussian") eta else family$linkinv(eta)
  tr <- res$trace
  trace <- data.frame(iteration = tr$iteration, logLik = tr$logLik, relevant = tr$relevant, noise = tr$noise,
                      action = factor(action_names[tr$action + 1L], levels = action_names))
  path <- NULL
  if (length(res$path$iteration)) {
    path <- res$path
    colnames(path$alpha) <- names
  }
  list(method = method, prior = "none", noise = noise, family = family, relevant = relevant, weights = weights,
       Sigma = Sigma, alpha = res$alpha, lambda = as.numeric(res$lambda), fitted.values = fitted,
       linear.predictors = eta, residuals = y - fitted, logLik = res$log_ml,
       log_posterior = res$log_posterior, trace = trace, path = path, converged = res$converged,
       iterations = res$iterations, jitter_events = res$jitter_events, y = y, n_basis = length(res$alpha),
       studentized = isTRUE(control$studentized), control = control,
       schedule = if (method == "fast") NA_character_ else control$schedule,  # the batch solvers' setting
       student = if (noise == "student") c(df = res$noise_df, scale = res$noise_scale),
       restarts = if (length(res$start_log_ml))
         data.frame(start = c("plain", "robust"), logLik = res$start_log_ml, kept = c(0L, 1L) == res$start_chosen))
}

# Non-convergence is a warning (and `converged = FALSE`), never silent; the
# paper's schedule runs a fixed budget by design, so it is not warned about.
warn_not_converged <- function(fit, res) {
  if (!fit$converged && !identical(fit$schedule, "paper"))
    warning(sprintf("the %s solver did not converge in %d iterations; see `control = %s()`.", fit$method,
                    fit$iterations, attr(fit$control, "maker") %||% "rvm_control"), call. = FALSE)
  if (!isTRUE(res$mode_converged))
    warning("the search for the posterior mode (Laplace approximation) did not converge.", call. = FALSE)
}
