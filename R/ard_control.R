#' Control settings for joint model-and-data ARD
#'
#' Settings of the batch solvers of [ard()] (and of [rvm()] with
#' `method = "em"`, `"mackay"` with per-sample noise, `"irls2"`, `"irls1"` or
#' `"gradient"`), with the safeguards of App. D.1 of Timans et al.: damping,
#' clipping, jitter, warm start, a noise update every `noise_every`
#' iterations and convergence by the relative change of the log parameters.
#'
#' The solvers work in standard units: every feature column is divided by
#' its root mean square and the response is centred (when the design has a
#' constant column, such as the intercept) and divided by a robust scale, so
#' the settings below are scale free and fits are equivariant: `y + c` shifts
#' every prediction by `c`, `y * c` scales means by `c` and variances by
#' `c^2`. Precisions `gamma` refer to weights of such columns. The noise
#' bounds `lambda_min` and `lambda_max` are multiples of a robust scale of
#' the residuals, `s^2 = (1.4826 MAD(r))^2` of the residuals `r` at the first
#' noise update (held from then on, so that EM stays monotone), never of
#' `var(y)`: a shared noise variance is then never clipped on well-specified
#' data, and an outlier in `y` does not raise the floor of the clean points.
#'
#' The defaults were chosen on the paper's settings (sparse linear
#' regression with 5-10% outliers, polynomial and kernel bases, n from 100 to
#' 2000): undamped closed-form updates (EM is then monotone), the noise held
#' for 50 iterations and re-estimated every 5th, and a per-sample noise floor
#' of `0.05 s^2`. A lower floor lets per-sample EM interpolate points (their
#' `lambda` collapses), which costs accuracy and many iterations; the upper
#' bound `1e20 s^2` only guards against overflow, so that a gross outlier is
#' down-weighted all the way.
#'
#' @param max_iterations Maximum number of outer iterations (the same budget
#'   as [rvm_control()]: per-sample noise fits of n = 2000 points, and
#'   `ard(method = "fast")`, which reads it, need several thousand).
#' @param tolerance,patience Convergence: the relative l-infinity change of
#'   `log(gamma)` and of `log(lambda)`, `max|change| / (1 + max|log|)`, stays
#'   below `tolerance` for `patience` consecutive iterations.
#' @param damping_gamma,damping_lambda Damping `eta` in (0, 1] of the
#'   closed-form updates, applied in log space:
#'   `log g <- (1 - eta) log g + eta log g_new`. 1 is no damping.
#' @param gamma_min,gamma_max Clipping bounds of the precisions (standard
#'   units). A weight whose precision reaches `gamma_max` is pruned (its
#'   `alpha` is reported as `Inf`) once removing it changes the log evidence
#'   by less than 1e-6.
#' @param lambda_min,lambda_max Clipping bounds of the noise variances, as
#'   multiples of the robust residual variance `s^2` (see Details; not of
#'   `var(y)`). They also bound the per-sample noise of `rvm(method = "fast",
#'   noise = "sample")`.
#' @param warm_start Number of initial iterations in which only `gamma` is
#'   updated (the noise stays at `init_lambda`).
#' @param noise_every After the warm start the noise is updated every
#'   `noise_every` iterations.
#' @param init_gamma,init_lambda Starting values (standard units; the noise as
#'   a fraction of the variance of the standardised response).
#' @param fixed_gamma `NULL`, or a precision (standard units) at which every
#'   weight is held: no ARD. A tiny value gives the least-squares limit.
#' @param noise_variance `NULL` (estimate the noise) or a fixed noise
#'   variance in the units of the response.
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
#' @param path_max Keep the trajectories of `gamma` and `lambda` at no more
#'   than this many iterations (thinned evenly); 0 keeps none.
#' @param time_limit Maximum fitting time in seconds.
#' @param verbose `FALSE`, `TRUE` (a line every 10 iterations) or a whole
#'   number `k` (a line every `k` iterations).
#' @return An object of class `"ard_control"`.
#' @references Timans, A., Möllenhoff, T., Naesseth, C. A., Khan, M. E. and
#'   Nalisnick, E. Joint model and data sparsification via the marginal
#'   likelihood. App. D.1.
#' @examples
#' ard_control(damping_lambda = 0.5, studentized = TRUE)
#' @export
ard_control <- function(max_iterations = 10000L, tolerance = 1e-4, patience = 5L, damping_gamma = 1,
                        damping_lambda = 1, gamma_min = 1e-6, gamma_max = 1e6, lambda_min = 0.05,
                        lambda_max = 1e20, warm_start = 50L, noise_every = 5L, init_gamma = 1, init_lambda = 0.1,
                        fixed_gamma = NULL, noise_variance = NULL, studentized = FALSE, studentized_power = 2,
                        learning_rate = 0.2, admm_iterations = 50L, admm_tolerance = 1e-6, path_max = 200L,
                        time_limit = 10000, verbose = FALSE) {
  check_number(max_iterations, "max_iterations", lower = 1, upper = .Machine$integer.max, integer = TRUE)
  check_number(tolerance, "tolerance", lower = 0, open_lower = TRUE)
  check_number(patience, "patience", lower = 1, upper = 1e6, integer = TRUE)
  check_number(damping_gamma, "damping_gamma", lower = 0, upper = 1, open_lower = TRUE)
  check_number(damping_lambda, "damping_lambda", lower = 0, upper = 1, open_lower = TRUE)
  check_number(gamma_min, "gamma_min", lower = 0, open_lower = TRUE)
  check_number(gamma_max, "gamma_max", lower = 0, open_lower = TRUE)
  if (gamma_min >= gamma_max) stop_arg("gamma_min", "must be below `gamma_max`.")
  check_number(lambda_min, "lambda_min", lower = 0, open_lower = TRUE)
  check_number(lambda_max, "lambda_max", lower = 0, open_lower = TRUE)
  if (lambda_min >= lambda_max) stop_arg("lambda_min", "must be below `lambda_max`.")
  check_number(warm_start, "warm_start", lower = 0, upper = 1e9, integer = TRUE)
  check_number(noise_every, "noise_every", lower = 1, upper = 1e9, integer = TRUE)
  check_number(init_gamma, "init_gamma", lower = 0, open_lower = TRUE)
  check_number(init_lambda, "init_lambda", lower = 0, open_lower = TRUE)
  if (!is.null(fixed_gamma)) check_number(fixed_gamma, "fixed_gamma", lower = 0, open_lower = TRUE)
  if (!is.null(noise_variance)) check_number(noise_variance, "noise_variance", lower = 0, open_lower = TRUE)
  check_flag(studentized)
  check_number(studentized_power, "studentized_power", lower = 0, open_lower = TRUE)
  check_number(learning_rate, "learning_rate", lower = 0, open_lower = TRUE)
  check_number(admm_iterations, "admm_iterations", lower = 1, upper = 1e6, integer = TRUE)
  check_number(admm_tolerance, "admm_tolerance", lower = 0, open_lower = TRUE)
  check_number(path_max, "path_max", lower = 0, upper = 1e6, integer = TRUE)
  check_number(time_limit, "time_limit", lower = 0, open_lower = TRUE)
  if (isTRUE(verbose)) verbose <- 10L
  if (isFALSE(verbose)) verbose <- 0L
  check_number(verbose, "verbose", lower = 0, integer = TRUE)
  structure(list(max_iterations = as.integer(max_iterations), tolerance = tolerance, patience = as.integer(patience),
                 damping_gamma = damping_gamma, damping_lambda = damping_lambda, gamma_min = gamma_min,
                 gamma_max = gamma_max, lambda_min = lambda_min, lambda_max = lambda_max,
                 warm_start = as.integer(warm_start), noise_every = as.integer(noise_every), init_gamma = init_gamma,
                 init_lambda = init_lambda, fixed_gamma = fixed_gamma, noise_variance = noise_variance,
                 studentized = studentized, studentized_power = studentized_power, learning_rate = learning_rate,
                 admm_iterations = as.integer(admm_iterations), admm_tolerance = admm_tolerance,
                 path_max = as.integer(path_max), time_limit = time_limit, verbose = as.integer(verbose)),
            class = "ard_control")
}

#' @export
print.ard_control <- function(x, ...) {
  cat("Joint ARD control settings\n")
  utils::str(unclass(x), no.list = TRUE, give.head = FALSE)
  invisible(x)
}

check_ard_control <- function(control) {
  if (is.null(control)) return(ard_control())
  if (inherits(control, "rvm_control")) {
    # The settings both share carry over; the rest are ard_control()'s defaults.
    return(ard_control(max_iterations = control$max_iterations, time_limit = control$time_limit,
                       noise_variance = control$noise_variance, verbose = control$verbose))
  }
  revalidate_control(control, ard_control, "ard_control")
}

# The option list the C++ joint ARD solver reads.
ard_settings <- function(control) {
  s <- unclass(control)
  s$fixed_gamma <- if (is.null(s$fixed_gamma)) -1 else s$fixed_gamma
  s$fixed_noise <- if (is.null(s$noise_variance)) -1 else s$noise_variance
  s$noise_variance <- NULL
  s
}
