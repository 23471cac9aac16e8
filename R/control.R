#' Control settings for the solvers
#'
#' One class of settings, `"sb_control"`, serves every solver of [rvm()] and
#' [ard()]; a setting has one name from R to the C++ core. Two constructors
#' give it defaults tuned for their solvers: `rvm_control()` for the fast
#' sequential solver (the defaults of SparseBayes v2, Tipping, so a fit
#' follows the published algorithm step for step) and `ard_control()` for
#' the batch solvers `"em"`, `"mackay"`, `"irls2"`, `"irls1"` and
#' `"gradient"` (the safeguards of App. D.1 of Timans et al.). Either takes
#' every setting of the class (the other's through `...`), and any solver
#' reads the settings it uses from either. With `control = NULL`, [rvm()]
#' and [ard()] use `rvm_control()` for `method = "fast"` and `ard_control()`
#' otherwise.
#'
#' Two safeguards of the fast solver go beyond SparseBayes: an action on the
#' basis function it has just changed (impossible in exact arithmetic)
#' first recomputes the statistics of every column, whose incremental
#' updates can lose their digits on an ill-conditioned basis; and a fit
#' whose log posterior rises by less than 1e-4 (nats, in standard units)
#' over 500 iterations ends, converged, as a crawl along a flat ridge of
#' the evidence (an interpolating model moving its noise towards zero).
#'
#' The solvers work in standard units: the response is centred (when the
#' design has a constant column, such as the intercept or the bias) and
#' divided by a robust scale, and every column is scaled to unit mean
#' square, so the settings are scale free and fits are equivariant: `y + c`
#' shifts every prediction by `c`, `y * c` scales means by `c` and variances
#' by `c^2`. The precisions `alpha` of the settings refer to those units.
#' The noise bounds `lambda_min` and `lambda_max` are multiples of a robust
#' scale of the residuals, `s^2 = (1.4826 MAD(r))^2`, the smallest (floor)
#' and largest (ceiling) seen at the noise updates so far, never of
#' `var(y)`: a shared noise variance is then never clipped on
#' well-specified data, and an outlier does not raise the floor of the
#' clean points.
#'
#' The batch defaults were chosen on the joint-ARD paper's settings (sparse
#' linear regression with 5-10% outliers, polynomial and kernel bases, n
#' from 100 to 2000): undamped closed-form updates (EM is then monotone),
#' the noise held for 50 iterations and re-estimated every 5th, and a
#' per-sample noise floor of `0.05 s^2`. A lower floor lets per-sample EM
#' interpolate points (their `lambda` collapses), which costs accuracy and
#' many iterations; the upper bound `1e20 s^2` only guards against
#' overflow, so that a gross outlier is down-weighted all the way.
#'
#' @param max_iterations Maximum number of iterations (10000 for both
#'   constructors: per-sample noise fits of n = 2000 points need several
#'   thousand).
#' @param time_limit Maximum fitting time in seconds.
#' @param min_delta_log_alpha Fast solver: a re-estimation that changes
#'   `log(alpha)` by less than this (with no deletion pending) ends the fit.
#' @param min_delta_log_beta Fast solver: a noise update that changes
#'   `log(1/noise)` by more than this triggers a full recomputation and
#'   cancels termination.
#' @param min_noise_move Fast solver, shared noise: before the fit
#'   terminates, a noise update that would change `log(1/noise)` by less
#'   than this is not made, so S and Q stay exact for the noise they were
#'   computed at without a full recomputation (O(M S^2)) for each small move;
#'   termination still requires `min_delta_log_beta`. `0` gives SparseBayes's
#'   schedule, where every move above `min_delta_log_beta` recomputes
#'   (a quarter of a default fit's CPU on Servo; bench/RESULTS.md).
#' @param noise_update_start,noise_update_frequency Fast solver: the shared
#'   noise is re-estimated at each of the first `noise_update_start`
#'   iterations, then every `noise_update_frequency` iterations.
#' @param alignment_test,alignment_max Fast solver: skip a candidate basis
#'   function whose cosine with one already in the model exceeds
#'   `alignment_max`.
#' @param priority_deletion,priority_addition Fast solver: give deletions
#'   (additions) precedence over other actions when any is available.
#' @param zero_factor Fast solver: `q^2 - s` must exceed this for a basis
#'   function to count as relevant.
#' @param beta_max_factor Fast solver: the noise precision is capped at
#'   `beta_max_factor / var(y)`.
#' @param noise_shape,noise_scale Shape `g` and scale `h` of the
#'   inverse-gamma prior on the noise variance used with a smoothness prior
#'   (Schmolck and Everson 2007, eq. 36), on the variance of the
#'   standardised response.
#' @param noise_variance `NULL` (estimate the noise) or a fixed noise
#'   variance in the units of the response (gaussian family; with
#'   `weights` and shared noise, that of a row of average weight).
#' @param orthonormal_shortcut Fit a single orthonormal wavelet dictionary by
#'   the O(N) path (no basis matrix is formed)? `FALSE` runs the general
#'   solver on the explicit basis, for comparison.
#' @param init_lambda The starting noise variance, as a fraction of the
#'   variance of the standardised response (SparseBayes: `0.1^2`).
#' @param temperature Classifiers fitted in memory: the class probabilities
#'   at a temperature `t`, `p_k^t` normalised (for two classes the logit
#'   times `t`; `t < 1` less sure, `t > 1` surer; the most probable class
#'   of every row stays). `"cv"` chooses `t`
#'   in `[1/20, 20]` by the held-out log loss of five fits on the training
#'   rows (folds by class; the fit's kernel, basis and settings held), as
#'   svm's Platt scaling is fitted; a number gives `t` (1: the probabilities
#'   as fitted). `"auto"` (the default) is `"cv"` for two classes and 1 for
#'   more, where it did not win on held-out data (bench/RESULTS.md).
#'   `summary()` reports `t` and the held-out log loss before and after.
#' @param verbose `FALSE`, `TRUE` (a line every 10 iterations) or a whole
#'   number `k` (a line every `k` iterations): the log evidence, the
#'   relevant count and the noise sd on the data's scale, each line
#'   labelled with the fit it belongs to (e.g. `rvm()`'s candidate noise
#'   starts). Progress is reported apart from `verbose`: a fit signals it
#'   through progressr at most every half second (the solver's iteration,
#'   the width learner's evaluations, the core's heartbeat in long
#'   computations, each pass over chunks); wrap the call in
#'   [progressr::with_progress()] or set `progressr::handlers(global =
#'   TRUE)` to see it.
#' @param tolerance,patience Convergence of the batch solvers: the relative
#'   l-infinity change of `log(alpha)` and of `log(lambda)`,
#'   `max|change| / (1 + max|log|)`, stays below `tolerance` for `patience`
#'   consecutive iterations. `tolerance` also ends the per-sample noise
#'   updates of `"fast"` (the relative change of `log(lambda)`), and the
#'   passes of a two-class [rvm()] from [data_chunks()] (the relative change
#'   of `log(alpha)` and of the weights between passes; at least 1e-7).
#' @param damping_alpha,damping_lambda Damping `eta` in (0, 1] of the
#'   closed-form updates, applied in log space:
#'   `log a <- (1 - eta) log a + eta log a_new`. 1 is no damping.
#'   `damping_lambda` also damps the per-sample noise of `"fast"`.
#' @param alpha_min,alpha_max Clipping bounds of the precisions of the batch
#'   solvers (standard units). A weight whose precision reaches `alpha_max`
#'   is pruned (its `alpha` is reported as `Inf`) once removing it changes
#'   the log evidence by less than 1e-6; MacKay fits of binomial and poisson
#'   models prune a precision past `alpha_max`. (The precisions are the
#'   `gamma` of Timans et al.)
#' @param lambda_min,lambda_max Clipping bounds of the noise variances, as
#'   multiples of the robust residual variance `s^2` (see Details; not of
#'   `var(y)`), for every solver with per-sample noise and the batch
#'   solvers' shared noise.
#' @param warm_start Batch solvers: number of initial iterations in which
#'   only `alpha` is updated (the noise stays at its start). The fast solver
#'   makes its first per-sample noise update after `warm_start` iterations
#'   of shared updates (or once the shared fit has converged).
#' @param noise_every Batch solvers: after the warm start the noise is
#'   updated every `noise_every` iterations.
#' @param init_alpha Batch solvers: the starting precision (standard units).
#' @param fixed_alpha `NULL`, or a precision (standard units) at which every
#'   weight is held: no ARD. A tiny value gives the least-squares limit.
#' @param studentized Per-sample noise with `"em"`, `"mackay"` or `"irls2"`:
#'   use the leverage-corrected update `lambda_i = r_i^2 / (1 - h_i)^p`
#'   (Fig. 6 of the paper), which down-weights high-leverage outliers.
#' @param studentized_power The power `p` (at least 2 in the paper).
#' @param learning_rate Initial step size of Adam on the log parameters
#'   (decaying as `1 / sqrt(1 + t / 100)` so the iterates settle)
#'   (`method = "gradient"`).
#' @param admm_iterations,admm_tolerance Inner ADMM iterations per outer step
#'   and their relative tolerance (`method = "irls1"`; warm-started from the
#'   previous solution).
#' @param path_max Keep the trajectories of `alpha` and `lambda` at no more
#'   than this many iterations (thinned evenly); 0 keeps none.
#' @param schedule Batch solvers: `"converge"` iterates to a stationary
#'   point of the evidence (the tolerance and patience above) and warns if
#'   the budget runs out first. `"paper"` is the regime of the joint-ARD
#'   paper's experiments (App. D.1): moving averages of `alpha` and `lambda`
#'   themselves (not their logs) with `eta = 5e-3`, both starting at 0.1
#'   in standard units, `lambda` held for 100 iterations and then updated
#'   every 5th, and a fixed budget of 1000 iterations that is part of the
#'   estimator: the whole budget runs, the fit stops short of the optimum
#'   by design and no warning is given (`fit$schedule` says which ran).
#'   Settings given in the call override the preset.
#' @param student_df `noise = "student"`: `NULL` estimates the degrees of
#'   freedom `nu` of the Student-t noise (in `[0.5, 1e4]`, by maximum
#'   likelihood with the scale); a number holds `nu` there.
#' @param outlier_class `noise = "student"`: `TRUE` adds a class of rows that
#'   the weights do not explain, uniform over the response's range (and at
#'   least over 10 robust residual scales: a narrower class would compete
#'   with the t's own tails, and took up to half of clean rows at n = 40):
#'   each row
#'   is, with a learned probability `eps` (at most 1/2), drawn from it
#'   instead of the Student-t. A Student-t row keeps some weight in the fit
#'   however far it lies, and a cluster of rows far out in the inputs keeps
#'   its pull through its leverage; a row of the outlier class has none.
#'   `fit$student` holds `eps` as `outlier_share` and
#'   `fit$outlier_probability` each row's posterior probability of the
#'   class. With `eps = 0` the model is the plain Student-t; `FALSE` fits
#'   that model. `NULL` (the default) is `TRUE` for [ard()] and `FALSE` for
#'   [rvm()]: with a flexible kernel basis the bounded cost of a row in the
#'   class lets the fit give up rows to fit the others closely (Boston
#'   housing, 30% contaminated, one split of 20: test RMSE 12.6 against 4.5),
#'   and kernels are local, so leverage does not mask there. With or without
#'   the class, the t scale `s` is at least half the residuals' robust
#'   scale, counting tied responses once, so that many tied values (a
#'   count-like response with many zeros) cannot shrink it to 0.
#' @param start Per-sample noise (`noise = "sample"` or `"student"`) with
#'   the batch solvers and `schedule = "converge"`, on a basis with fewer columns than half the rows:
#'   `"best"` fits from the usual start and, unless that fit already agrees
#'   with it within 2.5 robust standard deviations on every row, also from
#'   a high-breakdown start (least trimmed squares by `start_subsets` random
#'   elemental subsets and concentration steps, seeded and independent of
#'   R's random numbers), and keeps the fit with the higher log evidence
#'   (bound); `"robust"` keeps the fit from the high-breakdown start, as an
#'   MM-estimator keeps the local optimum next to its S-estimate, even where
#'   the evidence prefers a fit that follows a cluster of high-leverage rows
#'   (see `fit$restarts` and the robust-ARD vignette); `"plain"` fits once.
#'   When the two optima explain the data differently (they set aside
#'   different rows, or a weight differs by more than 2 posterior sds),
#'   `print()` and `summary()` say so in one line with both log evidences
#'   and the rows each sets aside. Use `"robust"` when a cluster of rows far
#'   out in x may have pulled the fit to itself: on `robustbase::hbk`
#'   every noise model's evidence prefers the fit that follows the ten bad
#'   leverage rows 1-10 (by 1.76 nats with Student-t noise, 8.5 with
#'   `noise = "sample"`) and sets aside the four good leverage rows 11-14
#'   instead; `"robust"` sets aside exactly rows 1-10, as `lmrob()` does.
#' @param start_subsets The number of random subsets of that start, at
#'   most: where they would cost more than 1e9 multiply-adds (`2 h p^2`
#'   each for `h` of `n` rows and `p` columns) fewer are drawn, at least 10
#'   (n = 2000 rows, 257 columns: 10), as so wide a random subset is hardly
#'   ever free of outliers.
#' @param ... Any other setting of the class, by name (e.g.
#'   `rvm_control(lambda_min = 0.01)` for the per-sample noise of `"fast"`).
#' @return An object of class `"sb_control"`: a named list of every setting.
#' @references Tipping, M. E. and Faul, A. C. (2003). Fast marginal
#'   likelihood maximisation for sparse Bayesian models. *AISTATS 2003*.
#'
#'   Timans, A., Möllenhoff, T., Naesseth, C. A., Khan, M. E. and
#'   Nalisnick, E. Joint model and data sparsification via the marginal
#'   likelihood. App. D.1.
#' @examples
#' rvm_control(max_iterations = 500, verbose = TRUE)
#' ard_control(damping_lambda = 0.5, studentized = TRUE)
#' @export
rvm_control <- function(max_iterations = 10000L, time_limit = 10000, min_delta_log_alpha = 1e-3,
                        min_delta_log_beta = 1e-6, min_noise_move = 1e-3, noise_update_start = 10L, noise_update_frequency = 5L,
                        alignment_test = TRUE, alignment_max = 1 - 1e-3, priority_deletion = TRUE,
                        priority_addition = FALSE, zero_factor = 1e-12, beta_max_factor = 1e6,
                        noise_shape = 1e-4, noise_scale = 1e-4, noise_variance = NULL,
                        orthonormal_shortcut = TRUE, init_lambda = 0.01, temperature = "auto", verbose = FALSE, ...) {
  new_control(c(as.list(environment()), list(...)), "rvm_control")
}

#' @rdname rvm_control
#' @export
ard_control <- function(max_iterations = 10000L, tolerance = 1e-4, patience = 5L, damping_alpha = 1,
                        damping_lambda = 1, alpha_min = 1e-6, alpha_max = 1e6, lambda_min = 0.05,
                        lambda_max = 1e20, warm_start = 50L, noise_every = 5L, init_alpha = 1, init_lambda = 0.1,
                        fixed_alpha = NULL, noise_variance = NULL, studentized = FALSE, studentized_power = 2,
                        learning_rate = 0.2, admm_iterations = 50L, admm_tolerance = 1e-6, path_max = 200L,
                        schedule = "converge", student_df = NULL, outlier_class = NULL, start = "best", start_subsets = 500L,
                        time_limit = 10000, verbose = FALSE, ...) {
  settings <- as.list(environment())
  if (identical(schedule, "paper")) {  # the preset fills what the call does not set
    preset <- paper_schedule()
    unset <- setdiff(names(preset), names(match.call())[-1L])
    settings[unset] <- preset[unset]
  }
  new_control(c(settings, list(...)), "ard_control")
}

# The regime of the joint-ARD paper's experiments (App. D.1 of Timans et
# al.): moving averages of alpha and lambda themselves with eta = 5e-3,
# alpha and lambda starting at 0.1 (standard units), lambda held for the
# first 100 iterations and then updated every 5th, and a fixed budget.
paper_schedule <- function() {
  list(damping_alpha = 5e-3, damping_lambda = 5e-3, init_alpha = 0.1, init_lambda = 0.1, warm_start = 100L,
       noise_every = 5L, max_iterations = 1000L)
}

# Every setting of the class: each constructor's own, then the other's
# defaults for the rest (the settings both take keep the maker's default).
control_settings <- function(maker) {
  defaults <- function(f) {
    a <- formals(f)
    a <- a[names(a) != "..."]
    lapply(a, eval)
  }
  own <- defaults(maker)
  other <- defaults(if (identical(maker, rvm_control)) ard_control else rvm_control)
  c(own, other[setdiff(names(other), names(own))])
}

# Checks every setting, fills the rest from `maker`'s defaults, and builds
# the one control class. Unknown names are refused, naming them.
new_control <- function(settings, maker_name) {
  maker <- get(maker_name, mode = "function")
  all <- control_settings(maker)
  unknown <- setdiff(names(settings), names(all))
  if (length(unknown))
    stop_arg("control", sprintf("has unknown setting(s) %s; see ?%s.", paste(unknown, collapse = ", "), maker_name))
  all[names(settings)] <- settings
  s <- all
  check_number(s$max_iterations, "max_iterations", lower = 1, upper = .Machine$integer.max, integer = TRUE)
  check_number(s$time_limit, "time_limit", lower = 0, open_lower = TRUE)
  check_number(s$min_delta_log_alpha, "min_delta_log_alpha", lower = 0, open_lower = TRUE)
  check_number(s$min_delta_log_beta, "min_delta_log_beta", lower = 0, open_lower = TRUE)
  check_number(s$min_noise_move, "min_noise_move", lower = 0)
  check_number(s$noise_update_start, "noise_update_start", lower = 0, upper = 1e9, integer = TRUE)
  check_number(s$noise_update_frequency, "noise_update_frequency", lower = 1, upper = 1e9, integer = TRUE)
  check_flag(s$alignment_test, "alignment_test")
  check_number(s$alignment_max, "alignment_max", lower = 0, upper = 1, open_lower = TRUE)
  check_flag(s$priority_deletion, "priority_deletion")
  check_flag(s$priority_addition, "priority_addition")
  check_number(s$zero_factor, "zero_factor", lower = 0)
  check_number(s$beta_max_factor, "beta_max_factor", lower = 0, open_lower = TRUE)
  check_number(s$noise_shape, "noise_shape", lower = 0)
  check_number(s$noise_scale, "noise_scale", lower = 0)
  if (!is.null(s$noise_variance)) check_number(s$noise_variance, "noise_variance", lower = 0, open_lower = TRUE)
  check_flag(s$orthonormal_shortcut, "orthonormal_shortcut")
  check_number(s$init_lambda, "init_lambda", lower = 0, open_lower = TRUE)
  check_number(s$tolerance, "tolerance", lower = 0, open_lower = TRUE)
  check_number(s$patience, "patience", lower = 1, upper = 1e6, integer = TRUE)
  check_number(s$damping_alpha, "damping_alpha", lower = 0, upper = 1, open_lower = TRUE)
  check_number(s$damping_lambda, "damping_lambda", lower = 0, upper = 1, open_lower = TRUE)
  check_number(s$alpha_min, "alpha_min", lower = 0, open_lower = TRUE)
  check_number(s$alpha_max, "alpha_max", lower = 0, open_lower = TRUE)
  if (s$alpha_min >= s$alpha_max) stop_arg("alpha_min", "must be below `alpha_max`.")
  check_number(s$lambda_min, "lambda_min", lower = 0, open_lower = TRUE)
  check_number(s$lambda_max, "lambda_max", lower = 0, open_lower = TRUE)
  if (s$lambda_min >= s$lambda_max) stop_arg("lambda_min", "must be below `lambda_max`.")
  check_number(s$warm_start, "warm_start", lower = 0, upper = 1e9, integer = TRUE)
  check_number(s$noise_every, "noise_every", lower = 1, upper = 1e9, integer = TRUE)
  check_number(s$init_alpha, "init_alpha", lower = 0, open_lower = TRUE)
  if (!is.null(s$fixed_alpha)) check_number(s$fixed_alpha, "fixed_alpha", lower = 0, open_lower = TRUE)
  check_flag(s$studentized, "studentized")
  check_number(s$studentized_power, "studentized_power", lower = 0, open_lower = TRUE)
  check_number(s$learning_rate, "learning_rate", lower = 0, open_lower = TRUE)
  check_number(s$admm_iterations, "admm_iterations", lower = 1, upper = 1e6, integer = TRUE)
  check_number(s$admm_tolerance, "admm_tolerance", lower = 0, open_lower = TRUE)
  check_number(s$path_max, "path_max", lower = 0, upper = 1e6, integer = TRUE)
  if (!(is.character(s$schedule) && length(s$schedule) == 1L && s$schedule %in% c("converge", "paper")))
    stop_arg("schedule", "must be \"converge\" or \"paper\".")
  if (!is.null(s$student_df)) check_number(s$student_df, "student_df", lower = 0, open_lower = TRUE)
  if (!is.null(s$outlier_class)) check_flag(s$outlier_class, "outlier_class")
  if (!(is.character(s$start) && length(s$start) == 1L && s$start %in% c("plain", "best", "robust")))
    stop_arg("start", "must be \"plain\", \"best\" or \"robust\".")
  check_number(s$start_subsets, "start_subsets", lower = 1, upper = 1e6, integer = TRUE)
  if (!(is.character(s$temperature) && length(s$temperature) == 1L && s$temperature %in% c("auto", "cv")) &&
      !(is.numeric(s$temperature) && length(s$temperature) == 1L && isTRUE(s$temperature >= 1 / 20 && s$temperature <= 20)))
    stop_arg("temperature", "must be \"auto\", \"cv\" or a number in [1/20, 20].")
  if (isTRUE(s$verbose)) s$verbose <- 10L
  if (isFALSE(s$verbose)) s$verbose <- 0L
  check_number(s$verbose, "verbose", lower = 0, integer = TRUE)
  integers <- c("max_iterations", "noise_update_start", "noise_update_frequency", "patience", "warm_start",
                "noise_every", "admm_iterations", "path_max", "start_subsets", "verbose")
  s[integers] <- lapply(s[integers], as.integer)
  structure(s[c(names(settings), setdiff(names(s), names(settings)))], maker = maker_name, class = "sb_control")
}

#' @export
print.sb_control <- function(x, ...) {
  maker <- attr(x, "maker") %||% "rvm_control"
  own <- setdiff(names(formals(get(maker, mode = "function"))), "...")
  show <- function(v) if (is.null(v)) "NULL" else format(v)
  line <- function(nm) paste(vapply(nm, function(k) paste0(k, " = ", show(x[[k]])), ""), collapse = ", ")
  cat(sprintf("Solver control settings (%s())\n", maker))
  cat(strwrap(line(own), width = 0.9 * getOption("width"), exdent = 2), sep = "\n")
  other <- setdiff(names(x), own)
  defaults <- control_settings(get(maker, mode = "function"))
  changed <- other[!vapply(other, function(k) identical(x[[k]], defaults[[k]]), TRUE)]
  if (length(changed)) cat(strwrap(paste("and", line(changed)), width = 0.9 * getOption("width"), exdent = 2),
                           sep = "\n")
  cat(sprintf("(%d settings in all; `unclass(x)` lists them)\n", length(x)))
  invisible(x)
}

# The control of a fit: NULL gives the solver's defaults (rvm_control() for
# "fast", ard_control() for the batch solvers); a control object (edited by
# hand or not) or a plain list of settings is checked again.
solver_control <- function(control, method, maker_name = if (method_supports(method, "batch")) "ard_control" else "rvm_control") {
  if (is.null(control)) return(get(maker_name, mode = "function")())
  if (inherits(control, "sb_control")) maker_name <- attr(control, "maker") %||% maker_name
  revalidate_control(control, get(maker_name, mode = "function"), maker_name)
}

# The settings the C++ core reads (each by its R name): optional ones as -1.
core_settings <- function(control, report = NULL) {
  s <- unclass(control)
  s$report <- report  # fit_reporter(): verbose rows and progress
  s$stage <- NULL
  s$fixed_alpha <- s$fixed_alpha %||% -1
  s$student_df <- s$student_df %||% -1
  s$outlier_class <- isTRUE(s$outlier_class)  # resolved by ard() and rvm(); FALSE elsewhere
  s$noise_variance <- NULL
  attributes(s) <- list(names = names(s))
  s
}
