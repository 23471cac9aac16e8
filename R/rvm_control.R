#' Control settings for the RVM solvers
#'
#' Defaults mirror SparseBayes v2 (Tipping), so a fit follows the published
#' algorithm step for step.
#'
#' @param max_iterations Maximum number of iterations.
#' @param time_limit Maximum fitting time in seconds.
#' @param min_delta_log_alpha Fast solver: a re-estimation that changes
#'   `log(alpha)` by less than this (with no deletion pending) ends the fit.
#' @param min_delta_log_beta A noise update that changes `log(1/noise)` by
#'   more than this triggers a full recomputation and cancels termination.
#' @param noise_update_start,noise_update_frequency The noise is
#'   re-estimated at each of the first `noise_update_start` iterations, then
#'   every `noise_update_frequency` iterations.
#' @param alignment_test,alignment_max Skip a candidate basis function whose
#'   cosine with one already in the model exceeds `alignment_max`.
#' @param priority_deletion,priority_addition Give deletions (additions)
#'   precedence over other actions when any is available.
#' @param zero_factor `q^2 - s` must exceed this for a basis function to
#'   count as relevant.
#' @param beta_max_factor The noise precision is capped at
#'   `beta_max_factor / var(y)`.
#' @param noise_shape,noise_scale Shape `g` and scale `h` of the
#'   inverse-gamma prior on the noise variance used with a smoothness prior
#'   (Schmolck and Everson 2007, eq. 36), placed on the variance of the
#'   response divided by its standard deviation so fits are scale invariant.
#' @param noise_variance `NULL` (estimate the noise) or a fixed noise
#'   variance (gaussian family).
#' @param orthonormal_shortcut Fit a single orthonormal wavelet dictionary by
#'   the O(N) path (no basis matrix is formed)? `FALSE` runs the general
#'   solver on the explicit basis, for comparison.
#' @param tolerance MacKay solver: largest change of `log(alpha)` at
#'   convergence.
#' @param alpha_max MacKay solver: a basis function (scaled to unit norm)
#'   is pruned once its precision exceeds this.
#' @param verbose `FALSE`, `TRUE` (a line every 10 iterations) or a whole
#'   number `k` (a line every `k` iterations).
#' @return An object of class `"rvm_control"`.
#' @examples
#' rvm_control(max_iterations = 500, verbose = TRUE)
#' @export
rvm_control <- function(max_iterations = 10000L, time_limit = 10000, min_delta_log_alpha = 1e-3,
                        min_delta_log_beta = 1e-6, noise_update_start = 10L, noise_update_frequency = 5L,
                        alignment_test = TRUE, alignment_max = 1 - 1e-3, priority_deletion = TRUE,
                        priority_addition = FALSE, zero_factor = 1e-12, beta_max_factor = 1e6,
                        noise_shape = 1e-4, noise_scale = 1e-4, noise_variance = NULL,
                        orthonormal_shortcut = TRUE, tolerance = 1e-6, alpha_max = 1e12, verbose = FALSE) {
  check_number(max_iterations, "max_iterations", lower = 1, upper = .Machine$integer.max, integer = TRUE)
  check_number(time_limit, "time_limit", lower = 0, open_lower = TRUE)
  check_number(min_delta_log_alpha, "min_delta_log_alpha", lower = 0, open_lower = TRUE)
  check_number(min_delta_log_beta, "min_delta_log_beta", lower = 0, open_lower = TRUE)
  check_number(noise_update_start, "noise_update_start", lower = 0, integer = TRUE)
  check_number(noise_update_frequency, "noise_update_frequency", lower = 1, integer = TRUE)
  check_flag(alignment_test)
  check_number(alignment_max, "alignment_max", lower = 0, upper = 1, open_lower = TRUE)
  check_flag(priority_deletion)
  check_flag(priority_addition)
  check_number(zero_factor, "zero_factor", lower = 0)
  check_number(beta_max_factor, "beta_max_factor", lower = 0, open_lower = TRUE)
  check_number(noise_shape, "noise_shape", lower = 0)
  check_number(noise_scale, "noise_scale", lower = 0)
  if (!is.null(noise_variance)) check_number(noise_variance, "noise_variance", lower = 0, open_lower = TRUE)
  check_flag(orthonormal_shortcut)
  check_number(tolerance, "tolerance", lower = 0, open_lower = TRUE)
  check_number(alpha_max, "alpha_max", lower = 0, open_lower = TRUE)
  if (isTRUE(verbose)) verbose <- 10L
  if (isFALSE(verbose)) verbose <- 0L
  check_number(verbose, "verbose", lower = 0, integer = TRUE)
  structure(list(max_iterations = as.integer(max_iterations), time_limit = time_limit,
                 min_delta_log_alpha = min_delta_log_alpha, min_delta_log_beta = min_delta_log_beta,
                 noise_update_start = as.integer(noise_update_start),
                 noise_update_frequency = as.integer(noise_update_frequency),
                 alignment_test = alignment_test, alignment_max = alignment_max,
                 priority_deletion = priority_deletion, priority_addition = priority_addition,
                 zero_factor = zero_factor, beta_max_factor = beta_max_factor, noise_shape = noise_shape,
                 noise_scale = noise_scale, noise_variance = noise_variance,
                 orthonormal_shortcut = orthonormal_shortcut, tolerance = tolerance,
                 alpha_max = alpha_max, verbose = as.integer(verbose)),
            class = "rvm_control")
}

check_control <- function(control) revalidate_control(control, rvm_control, "rvm_control")

#' @export
print.rvm_control <- function(x, ...) {
  cat("RVM control settings\n")
  utils::str(unclass(x), no.list = TRUE, give.head = FALSE)
  invisible(x)
}
