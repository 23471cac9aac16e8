#' Joint model-and-data ARD regression
#'
#' Fits the linear model y = X theta + e of Timans et al. (Eq. 1) with an ARD
#' prior `theta_j ~ N(0, 1/gamma_j)` on every feature weight and Gaussian
#' noise `e_i ~ N(0, lambda_i)`, either one variance shared by all samples or
#' one per sample (`noise = "sample"`). The precisions and variances maximise
#' the marginal likelihood `log p(y | gamma, lambda)`, so irrelevant features
#' are pruned (`gamma_j -> Inf`) and outlying samples down-weighted (large
#' `lambda_i`) by the same marginal likelihood.
#'
#' @param x A numeric matrix of features (or a data frame of numbers, or a
#'   vector); or a formula for the formula method.
#' @param formula A formula `y ~ terms`; factors are expanded by
#'   [stats::model.matrix()]. Its intercept (unless removed with `- 1` or
#'   `+ 0`) is a column `"(Intercept)"` with an ARD weight like any other.
#' @param data,subset,na.action As in [stats::lm()]. `data` may also be a
#'   chunk source, [data_chunks()] (a data frame, a database query, files or
#'   a function read in chunks): the fit then holds sums over the rows, not
#'   the rows (shared noise; methods "em", "mackay", "fast", "irls2" and the
#'   dual gradient), and keeps no fitted values or residuals.
#' @param y Numeric response.
#' @param intercept Matrix method: add an `"(Intercept)"` column of ones
#'   (an ARD weight too)?
#' @param scale Centre and scale every non-constant feature column to mean 0
#'   and standard deviation 1 before fitting (the training means and sds,
#'   weighted by `weights` when given, are kept in `scaling` and applied by
#'   `predict`)? The weights, their
#'   precisions and covariance then refer to the standardised columns (the
#'   intercept absorbs the centring). With `scale = FALSE` they refer to the
#'   columns as given. The solver itself is invariant to the scale of each
#'   column, so `scale` matters only through the centring.
#' @param noise `"shared"` (one noise variance), `"sample"` (one per
#'   sample: data ARD) or `"student"` (one per sample with an inverse-gamma
#'   prior, `lambda_i ~ InvGamma(nu / 2, nu s^2 / 2)`: Student-t noise with
#'   `nu` and `s^2` estimated, Tipping and Lawrence 2005). With `"sample"`
#'   every stationary point has `lambda_i (1 - h_i) = r_i^2`, so at
#'   convergence the inliers' variances follow their own squared residuals
#'   down to the floor `lambda_min`; `"student"` keeps them near `s^2`
#'   (`lambda_i >= nu s^2 / (nu + 1)`) and still down-weights outliers
#'   (`lambda_i ~ r_i^2 / (nu + 1)`). The `lambda_i` are integrated out by
#'   mean field; `lambda` reports `1 / E[1 / lambda_i]`, the variance the
#'   weight posterior uses, `student` holds `c(df, scale, outlier_share)`
#'   and `logLik` is the variational bound on the evidence. By default
#'   (`ard_control(outlier_class =)`) a row may also belong, with a learned
#'   probability, to a class of outliers that the weights do not explain:
#'   a Student-t row far out in the inputs keeps its pull on the fit
#'   through its leverage, a row of that class has none (`lambda` is then
#'   the t class's variance over `1 - outlier_probability`).
#' @param method The update rules, a name of the core's table of methods
#'   (partially matched; App. B.7 and C of the paper): `"em"`
#'   (Alg. 1, monotone; the default unless a `prior` is used), `"mackay"` (Alg. 2, fixed point), `"irls2"` (Alg. 3,
#'   the l2-reweighted surrogate; algebraically the same fixed point as EM,
#'   written through `Sigma_y^-1`), `"irls1"` (Alg. 4, a double-l1 problem
#'   solved by ADMM warm-started from the previous iterate, then map-back
#'   rules), `"gradient"` (Adam on `log gamma` and `log lambda`) or
#'   `"fast"`, the sequential add/re-estimate/delete solver of [rvm()]
#'   (Tipping and Faul 2003), with per-sample noise re-estimated on its
#'   noise schedule when `noise = "sample"`; it reads the settings
#'   `ard_control()` shares with [rvm_control()] and its per-sample noise
#'   settings, and records no `path`. The batch rules compute the
#'   posterior in the d x d weight space or the n x n sample space,
#'   whichever is smaller.
#' @param gradient_form `method = "gradient"` only: `"primal"` evaluates the
#'   log evidence and its gradient through the n x n covariance `Sigma_y`
#'   (Eq. 3), `"dual"` through the d x d posterior `Sigma_theta` (Eq. 4).
#'   Both give the same values; the dual is faster when d < n.
#' @param objective Deprecated: the former name of `gradient_form`.
#' @param prior Prior on the precisions: `"none"` (the flat hyperprior of
#'   the paper), or the smoothness prior `p(alpha | sigma^2) ~ exp(-c DF)`
#'   of [rvm()], a price of `c` nats per effective parameter, with `"RIC"`
#'   (`c = log(d)`, d the number of feature columns: the risk inflation
#'   criterion, the price of searching d candidates), `"BIC"`
#'   (`c = log(n) / 2`), `"AIC"` (`c = 1`) or a number `c >= 0`; or
#'   `"auto"` (the default), a price that grows continuously with d/n.
#'   With a flat prior the evidence keeps about a third of the irrelevant
#'   features, which fit noise: at d/n near 1 the noise variance falls to a
#'   third and 95% intervals cover 60-75% of new responses, and at d >= n
#'   the fit interpolates. `"auto"` takes
#'   `c = max(s log((d - k + 1) / (k + 1)), s^2 log(d))` with
#'   `s = min(1, d/n)^2`, where `log((d - k + 1) / (k + 1))` is the log
#'   prior odds against a feature when a fit at that price keeps k of the
#'   d (empirical Bayes, George and Foster 2000: `log(d)` when one is kept,
#'   0 when half are, so a dense signal is not priced), iterated until k
#'   repeats. It is RIC's `log(d)` from d = n on, near 0 for d << n (the
#'   flat prior's fit), and in between it keeps the features the data
#'   support (see the "Selecting features" section of the robust-ARD
#'   vignette). n counts the distinct rows of `(x, y, offset)` with
#'   positive weight, and the choice is made on them with pooled weights
#'   taken as relative precisions: duplicated rows, integer weights and
#'   constant weights choose the same price. It applies with shared noise
#'   and a solver that takes a prior (else `"none"`), and is recorded in
#'   `prior_choice`. A prior
#'   needs shared noise and the fast solver (`method = "fast"`, the default
#'   then); the noise is held at its start for the first
#'   `noise_update_frequency` iterations, so that the first features are
#'   judged against a small noise rather than the whole variance of `y`.
#'   A fit that still spends more than half of its rows on effective
#'   parameters (`sum(1 - alpha_j Sigma_jj)`, plus the samples per-sample
#'   noise sets aside, those with `lambda_i` above ten times the median)
#'   warns that its noise and intervals are too small.
#' @param control `NULL` ([ard_control()]'s defaults), settings from
#'   [ard_control()] or [rvm_control()] (one class), or a list of named settings.
#' @param weights `NULL` or n non-negative prior weights (gaussian fits):
#'   known relative precisions, the noise variance of row i being
#'   `lambda / weights[i]` (implemented exactly by scaling row i of the basis
#'   and of the response by `sqrt(weights[i])`). With shared noise only
#'   their ratios are information and exact copies of a row are one row of
#'   their summed weight, for every `method`: an integer weight acts as that
#'   many copies of its row, constant weights give the fit of no weights,
#'   `lambda` is the noise of a row of average weight and `logLik` the
#'   density of the distinct rows (see [rvm()]). Rows of weight 0 are left out of the fit but keep their fitted
#'   values (with per-sample noise their `lambda` is `Inf`). Stored as
#'   `prior.weights`. Gaussian fits run in standard units (the response
#'   centred when the design has a constant column, and scaled), so `logLik`
#'   is the evidence of the standardised model expressed as a density of `y`
#'   (and `standard_units` holds the centre and scale).
#' @param offset `NULL` or n known numbers added to the linear predictor: it
#'   is subtracted from the response before the fit and added to the fitted
#'   values (for binomial and poisson fits it enters the linear predictor
#'   of the Laplace mode); `predict` with `newdata` then needs the new rows'
#'   `offset`. Stored as `offset`. The formula method evaluates `weights`
#'   and `offset` in `data`, as [stats::lm()] does, adds `offset()` terms of
#'   the formula, and evaluates them again in `newdata` at `predict`.
#' @param ... Passed from the formula method to the default method.
#' @return An object of class `c("sb_ard", "sparsebayes")`, a list with
#'   \item{call}{the matched call.}
#'   \item{method, gradient_form, prior, noise, family}{the solver, the
#'     gradient rule's form (`NA` for the other solvers; `objective`, its
#'     former name, is kept as a deprecated copy), the prior as resolved (`"none"`,
#'     `"RIC"`, ..., the number given, or `"auto"` when that chose a price
#'     above 0), the noise model and
#'     [stats::gaussian()].}
#'   \item{smoothness}{the prior's price `c` per effective parameter (0 for
#'     none); `log_posterior` is `logLik` plus the log prior.}
#'   \item{prior_choice}{`prior = "auto"` with a solver that takes a prior:
#'     a list with the chosen `smoothness`, `share` (`min(1, d/n)^2`),
#'     `n_distinct` (n), `d`, `kept` (k of the last fit, `NA` at d >= n,
#'     where no fit is needed) and `path`, the price and features kept of
#'     each fit; else `NULL`.}
#'   \item{x}{the n x d design actually fitted (scaled columns when
#'     `scale = TRUE`, with the `"(Intercept)"` column).}
#'   \item{y}{the response.}
#'   \item{scaling}{`NULL` or a list with `center` and `scale` of the
#'     columns of the design (0 and 1 for the intercept).}
#'   \item{relevant}{indices of the retained columns of `x`.}
#'   \item{weights, Sigma}{posterior mean and covariance of the retained
#'     weights.}
#'   \item{alpha}{the precisions `gamma` of all columns, `Inf` where pruned.}
#'   \item{lambda}{noise variance: length 1 (shared) or n (per sample).}
#'   \item{student, outlier_probability}{Student-t noise: `c(df, scale,
#'     outlier_share)`, and each row's posterior probability of the outlier
#'     class (`NA` for rows of weight 0; `NULL` without the class).}
#'   \item{fitted.values, residuals}{at the training inputs.}
#'   \item{logLik}{log marginal likelihood `log p(y | gamma, lambda)`.}
#'   \item{trace}{data frame per iteration: `iteration`, `log_posterior`
#'     (what the solver maximised, as `log_posterior` above), `relevant`,
#'     `noise` (mean of `lambda`) and `action`; `logLik`, the former name
#'     of `log_posterior`, is kept as a copy for one release.}
#'   \item{path}{list of `iteration`, `alpha` (T x d) and `lambda` (T x n, or
#'     T x 1), thinned to at most `path_max` rows; `NULL` if none kept.}
#'   \item{restarts}{per-sample noise fitted from two starts (see
#'     `start` in [ard_control()]): a data frame with the `logLik` of the
#'     optimum reached from the `"plain"` and the `"robust"` start (`NA`
#'     when the second was not needed), which one was `kept`, and of each
#'     the rows it sets aside (`flagged`: variance above 10 times the
#'     median), its posterior means `weights` and sds `sd` (list columns,
#'     named by column as `weights` above); else `NULL`. `print()` and
#'     `summary()` say in one line when the two explain the data
#'     differently.}
#'   \item{converged, iterations, jitter_events, n_basis}{convergence flag,
#'     iteration count, Cholesky factorisations that needed jitter, and d.}
#'   and, for the formula method, `terms`, `xlevels`, `contrasts` and
#'   `na.action`.
#' @references Timans, A., Möllenhoff, T., Naesseth, C. A., Khan, M. E. and
#'   Nalisnick, E. Joint model and data sparsification via the marginal
#'   likelihood.
#'
#'   Wipf, D. P. and Nagarajan, S. (2010). Iterative reweighted l1 and l2
#'   methods for finding sparse solutions. *IEEE Journal of Selected Topics in
#'   Signal Processing*, 4, 317--329.
#' @seealso [ard_control()], [predict.sb_ard()], [summary.sb_ard()], [rvm()].
#' @examples
#' set.seed(1)
#' n <- 200
#' X <- matrix(rnorm(n * 10), n, 10)
#' y <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + rnorm(n, sd = 0.5)
#' y[1:10] <- y[1:10] + 15  # outliers
#' fit <- ard(X, y, noise = "sample")
#' fit
#' head(order(fit$lambda, decreasing = TRUE), 10)  # the outliers
#'
#' fit2 <- ard(accel ~ poly(times, 5), data = MASS::mcycle, noise = "sample")
#' summary(fit2)
#' @export
ard <- function(x, ...) UseMethod("ard")

#' @rdname ard
#' @export
ard.formula <- function(formula, data, subset, weights, na.action, offset, ...) {
  if (!missing(data) && inherits(data, "sb_chunks"))
    return(fit_chunks(match.call(), parent.frame(), data, ard.default, "ard", intercept = FALSE, ..., keep_intercept = TRUE,
                      copies = TRUE))
  fit_formula(match.call(), parent.frame(), ard.default, "ard", intercept = FALSE, ..., keep_intercept = TRUE)
}

#' @rdname ard
#' @export
ard.default <- function(x, y, intercept = TRUE, scale = TRUE, noise = c("shared", "sample", "student"),
                        method = "em",
                        gradient_form = c("primal", "dual"), prior = "auto", control = NULL,
                        weights = NULL, offset = NULL, objective = NULL, ...) {
  beat_while("ard()")  # progress from the core while this fit runs
  check_dots_empty(...)
  method_given <- !missing(method)
  old <- deprecated_objective(objective, "ard")
  gradient_form <- if (!is.null(old) && missing(gradient_form)) old else match_arg(gradient_form)
  p <- ard_problem(list(x = x, y = y, intercept = intercept, scale = scale, noise = match_arg(noise),
                        method = match_method(method), method_given = method_given, gradient_form = gradient_form,
                        prior = prior, control = control, weights = weights, offset = offset))
  res <- fit_basis(p$xs, p$y, stats::gaussian(), p$solver, p$noise, p$smoothness, p$wo, statistics = p$statistics)
  ard_fit(p, res, generic_call(match.call(), "ard"))
}

# The stages of an ard() fit: problem (ard_problem(): the design in
# standard units, the prior's price and the solver) -> statistics (shared
# with the fits that chose the price) -> solve (fit_basis()) -> fit object
# (ard_fit()).

# The checked problem of an ard() call (`a`: ard.default()'s arguments, with
# `method_given`): the scaled design `xs` (an intercept column first), the
# response, weights and offset `wo`, the noise model, the prior (`prior`,
# its `smoothness` and, for "auto", `prior_choice`), the solver
# specification and, when the price was chosen by fits with shared noise,
# their `statistics`.
ard_problem <- function(a) {
  check_flag(a$intercept, "intercept")
  check_flag(a$scale, "scale")
  rows <- ard_rows(a)
  x <- rows$x
  if (a$intercept && "(Intercept)" %in% colnames(x))
    stop_arg("x", "already has an \"(Intercept)\" column; use intercept = FALSE.")
  check_fit_memory(nrow(x), ncol(x) + a$intercept, a$method, a$noise)  # xs below is the basis
  # The scaling of cbind(1, x) without forming it: the intercept stays a
  # column of ones (center 0, scale 1, as input_scaling() gives a constant
  # column with keep_constant).
  scaling <- input_scaling(x, a$scale, keep_constant = TRUE, weights = rows$wo$weights, moments = rows$moments)
  if (a$intercept && !is.null(scaling))
    scaling <- list(center = c(`(Intercept)` = 0, scaling$center), scale = c(`(Intercept)` = 1, scaling$scale))
  ard_settings(list(xs = scaled_design(x, scaling, a$intercept), y = rows$y, wo = rows$wo, scaling = scaling,
                    n_rows = rows$n_rows, n_features = sum(colnames(x) != "(Intercept)"),
                    statistics = rows$statistics(scaling), chunks = rows$chunks, start = rows$start), a)
}

# The data of an ard() problem from its backend: the rows in memory, checked
# (x, y, weights and offset `wo`, the rows of positive weight), or a chunk
# source's columns without rows and the statistics of its sums
# (chunk_ard_rows()). `statistics(scaling)`: what the backend measured of
# the scaled design (rows in memory: nothing, fit_basis() reads the rows).
ard_rows <- function(a) {
  if (inherits(a$x, "sb_chunk_design")) return(chunk_ard_rows(a))  # R/chunks.R
  x <- check_numeric_matrix(a$x, "x")
  if (is.null(colnames(x))) colnames(x) <- paste0("x", seq_len(ncol(x)))
  y <- check_response(a$y, nrow(x))
  wo <- check_weights_offset(a$weights, a$offset, nrow(x))
  check_noise_response(y, a$noise, wo$weights)
  list(x = x, y = y, wo = wo, n_rows = if (is.null(wo$weights)) nrow(x) else sum(wo$weights > 0),
       statistics = function(scaling) NULL)
}

# The prior and the solver of an ard() problem `p` (its design, response
# and, from chunks, `statistics` and the noise's `start`), from
# ard.default()'s arguments `a`.
ard_settings <- function(p, a) {
  noise <- a$noise
  method <- a$method
  prior <- a$prior
  control <- a$control
  prior_choice <- NULL
  statistics <- p$statistics
  xs <- p$xs
  n_rows <- p$n_rows
  n_features <- p$n_features
  if (auto_prior_applies(prior, noise, if (a$method_given) method, control)) {
    # the price's fits and the final fit share the statistics
    statistics <- statistics %||% gram_statistics(basis_statistics(xs, p$y, "shared", p$wo))
    prior_choice <- choose_ard_prior(xs, p$y, p$wo, n_features, control, statistics)
    prior <- if (prior_choice$smoothness > 0) "auto" else "none"
  } else if (identical(prior, "auto")) {
    prior <- "none"
  }
  smoothness <- prior_choice$smoothness %||%
    smoothness_constant(prior, n_rows, n_features, c("auto", "none", "RIC", "BIC", "AIC"))
  if (smoothness > 0) {
    if (a$method_given && !method_supports(method, "smoothness"))
      stop_arg("prior", "needs method = ", methods_supporting("smoothness"), ".")
    if (per_sample_noise(noise)) stop_arg("prior", "needs noise = \"shared\".")
    if (!a$method_given) method <- "fast"
  }
  control <- solver_control(control, method, "ard_control")
  control$outlier_class <- control$outlier_class %||% TRUE
  control$start <- p$start %||% control$start  # a chunk source's (chunk_ard_rows())
  check_noise_control(control, noise, method)
  if (smoothness > 0) control$noise_update_start <- 0L  # hold the starting noise for the first steps
  new_sb_problem("ard", xs = xs, y = p$y, wo = p$wo, scaling = p$scaling, n_rows = n_rows, chunks = p$chunks,
                 noise = noise, prior = prior, smoothness = smoothness, prior_choice = prior_choice,
                 solver = solver_spec(method, control, a$gradient_form), statistics = statistics)
}

# The statistics of rows in memory with their sums (Phi'Phi, Phi't, t't:
# `sums`) when the rows are at least twice the columns: the price's fits
# and the final fit (up to 7 fast-solver fits) then read the d x d sums
# instead of the n x d rows, whose products Phi' phi cost n d an addition
# each fit. At n = 20000, d = 500 (100 true features) a fit added 222
# columns: 4 fits from the rows 5.3 s, the sums once (n d^2 / 2) and 4 fits
# from them 1.2 s (bench/RESULTS.md).
gram_statistics <- function(st) {
  if (is.null(st$Phi) || nrow(st$Phi) < 2L * ncol(st$Phi)) return(st)
  st$sums <- .sb_statistics(st$Phi, st$y, kernel_threads())
  st
}

# The fit object of an ard() problem from the solver's result.
ard_fit <- function(p, res, call) {
  method <- p$solver$method
  fit <- c(list(call = call),
           model_fields(res, p$y, colnames(p$xs), stats::gaussian(), method, p$noise, p$solver$control))
  fit$prior <- p$prior
  fit$smoothness <- p$smoothness
  fit$prior_choice <- p$prior_choice
  fit$gradient_form <- fit_gradient_form(p$solver)
  fit$objective <- fit$gradient_form  # deprecated copy under the former name, for one release
  fit$x <- p$xs
  fit$scaling <- p$scaling
  fit$intercept <- "(Intercept)" %in% colnames(p$xs)
  fit <- add_weights_offset(fit, p$wo, res$standard_units)
  fit <- chunk_fit_fields(fit, p$chunks, res)  # R/chunks.R
  class(fit) <- c("sb_ard", "sparsebayes")
  warn_not_converged(fit, res)
  fit$interpolation <- interpolation(fit, p$n_rows)
  if (!is.null(fit$interpolation)) warning(fit$interpolation, call. = FALSE)
  fit$exact_span <- exact_span(fit)
  fit
}

# A response the columns fit exactly with rows to spare (least squares
# leaves rounding, the columns' rank below the rows) that a priced fit does
# not: the prior's price per effective parameter outweighs an exact fit on
# few rows (an exact cubic on 5 rows, rank 4, kept 2 of 5 weights, R^2
# 0.10), and the fit says so (print(), summary()). Columns of rank n (a
# wide design) fit any response exactly, which says nothing. The least
# squares R^2, or NULL: the fit is exact itself, has no price (prior
# "none"), per-sample noise, comes from chunks (no rows kept), or the QR
# would cost more than 1e8 multiply-adds (every fit pays it, and with many
# rows to spare an exact response's evidence outweighs any price).
exact_span <- function(fit) {
  n <- NROW(fit$x)
  d <- NCOL(fit$x)
  if (!any(fit$smoothness > 0) || per_sample_noise(fit$noise) || n * as.numeric(d) * min(n, d) > 1e8 ||
      is.null(fit$residuals)) return(NULL)  # a fit from chunks keeps no residuals
  w <- sqrt(fit$prior.weights %||% rep(1, length(fit$y)))
  target <- w * (fit$y - (fit$offset %||% 0))
  total <- sum((target - if (isTRUE(fit$intercept)) w * sum(w * target) / sum(w^2) else 0)^2)
  if (!(total > 0) || sum((w * fit$residuals)^2) <= 1e-20 * total) return(NULL)
  q <- qr(w * fit$x)
  if (q$rank >= n) return(NULL)
  left <- sum(qr.resid(q, target)^2)
  if (left > 1e-20 * total) return(NULL)
  1 - left / total
}

# prior = "auto" chooses a price when the noise is shared, the solver free
# to be the fast one (or given as one that takes a prior) and the
# precisions learned (not held by `fixed_alpha`, nor the batch solvers'
# settings asked for).
auto_prior_applies <- function(prior, noise, method = NULL, control = NULL) {
  identical(prior, "auto") && !per_sample_noise(noise) && (is.null(method) || method_supports(method, "smoothness")) &&
    (is.null(control) || is.list(control)) && is.null(control$fixed_alpha) && !isTRUE(control$studentized) &&
    !identical(control$schedule, "paper")
}

# prior = "auto": the price c per effective parameter, continuous in d/n:
#   c = max(s log((d - k + 1) / (k + 1)), s^2 log(d)),  s = min(1, d / n)^2,
# k the features a fit at the current c keeps, iterated from k = 0 until k
# repeats (at most `max_fits` fits). log((d - k + 1) / (k + 1)) is the log prior odds against
# a feature (empirical Bayes, George and Foster 2000): RIC's log(d) when
# one feature is kept, 0 when half are, so dense signals are not priced.
# The share s weighs it by the harm of the flat prior, whose false features
# cost noise and interval coverage in proportion to d / n (a power of 1
# cost 7% in test RMSE on MASS::UScrime, d / n = 0.36; bench/ard_auto_prior.R).
# The floor s^2 log(d) reaches RIC's log(d) at d = n, so the price is RIC
# beyond, without a fit, and below 0.07 log(d) at d / n <= 0.5. The choice
# is learned on the distinct rows, as every fit with shared noise is
# (relative_weights()), so that copies, replicating weights and constant
# weights choose the same c.
choose_ard_prior <- function(xs, y, wo, d, control, statistics = basis_statistics(xs, y, "shared", wo),
                             max_fits = 6L) {
  n <- statistics$distinct  # the distinct rows of positive weight (relative_weights(), which the fits apply)
  share <- min(1, d / n)^2
  floor <- share^2 * log(max(d, 1))
  price <- function(k) min(log(max(d, 1)), max(floor, share * max(0, log((d - k + 1) / (k + 1)))))
  ctl <- solver_control(control, "fast", "ard_control")
  ctl$noise_update_start <- 0L
  candidate <- colnames(xs) != "(Intercept)"
  c_value <- price(0)
  path <- data.frame(smoothness = numeric(0), kept = integer(0))
  for (i in seq_len(max_fits)) {
    if (c_value <= 0 || floor >= log(d)) break  # no price, or RIC's at d >= n
    res <- fit_basis(xs, y, stats::gaussian(), solver_spec("fast", ctl), "shared", c_value, wo,
                     statistics = statistics)
    k <- sum(candidate[as.integer(res$relevant)])
    path[nrow(path) + 1L, ] <- list(c_value, k)
    if (nrow(path) > 1L && k == path$kept[nrow(path) - 1L]) break
    next_value <- price(k)
    if (abs(next_value - c_value) < 1e-8) break
    c_value <- next_value
  }
  list(smoothness = c_value, share = share, n_distinct = n, d = d,
       kept = if (nrow(path)) path$kept[nrow(path)] else NA_integer_, path = path)
}

# Effective parameters (and, with per-sample noise, samples set aside as
# outliers) above n / 2: the evidence has bought a tiny noise by
# interpolating. (A leave-one-out check at the fitted precisions is fooled:
# they were chosen with the left-out row.) The message, kept in the fit for
# print() and summary(), or NULL. Without a price the evidence's best fit
# at d >= n is this one (EM at n = 50, d = 100: noise sd 0.001-0.006 for a
# true 0.5, log evidence 14 against -47 for the priced fit's 0.48).
interpolation <- function(fit, n) {
  g <- effective_parameters(fit)
  set_aside <- if (length(fit$lambda) > 1L) down_weighted(fit$lambda[is.finite(fit$lambda)])
               else fit$chunks$noise$down_weighted %||% 0L
  if (g + set_aside <= n / 2) return(NULL)
  spent <- sprintf("%.1f effective parameters%s", g,
                   if (set_aside > 0) sprintf(" and %d down-weighted samples", set_aside) else "")
  sprintf(paste0("the fit spends %s on n = %d rows: it nearly interpolates, so its noise variance and ",
                 "intervals are too small. %s"), spent, n, interpolation_remedy(fit))
}

# What to do instead, for the fit at hand: only calls that run. The RIC
# prior prices effective parameters against one shared noise variance, so
# ard() refuses it with per-sample or Student-t noise; there the remedies
# are fewer features or shared noise (which gives up the down-weighting).
interpolation_remedy <- function(fit) {
  if (per_sample_noise(fit$noise))
    return(sprintf(paste0("noise = \"%s\" takes no prior on the weights: use fewer features than rows, ",
                          "or noise = \"shared\" with prior = \"RIC\" (outliers are then not down-weighted)."),
                   fit$noise))
  if (isTRUE(method_supports(fit$method, "smoothness"))) return("Use prior = \"RIC\".")
  sprintf("Use prior = \"RIC\" with method = %s.", methods_supporting("smoothness"))
}

# Per-sample and Student-t noise scale each row by the residuals' robust
# scale, counting tied responses once; with fewer than 3 distinct values
# (a binary or two-level response) no such scale exists.
check_noise_response <- function(y, noise, weights = NULL) {
  if (!per_sample_noise(noise)) return(invisible())
  values <- unique(if (is.null(weights)) y else y[weights > 0])
  if (length(values) < 3L)
    stop_arg("y", sprintf(paste0("takes %d distinct values: noise = \"%s\" needs a robust scale of the residuals, ",
                                 "which tied values cannot give. Use noise = \"shared\", or family = binomial() ",
                                 "for a two-level response."), length(values), noise))
}

# The settings that need a particular noise model or solver.
check_noise_control <- function(control, noise, method) {
  if (identical(control$schedule, "paper") && !method_supports(method, "batch"))
    stop_arg("control", "has schedule = \"paper\", which is for the batch solvers (method ", methods_supporting("batch"), ").")
  if (!isTRUE(control$studentized)) return(invisible())
  if (!per_sample_noise(noise) || student_noise(noise)) stop_arg("control", "has studentized = TRUE, which needs noise = \"sample\".")
  if (!method_supports(method, "studentized"))
    stop_arg("control", "has studentized = TRUE, which needs method ", methods_supporting("studentized"), ".")
}
