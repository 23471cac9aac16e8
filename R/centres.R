#' Candidate centres for kernel bases on large data
#'
#' Chooses `m` centres for the rows of `x` by k-means++ seeding (Arthur and
#' Vassilvitskii 2007) followed by at most 10 Lloyd iterations, on the
#' standardised columns (as the kernels of [rvm()] see them with `scale =
#' TRUE`). With more than `50 m` rows (and at least 10000) the centres are
#' computed from a random subset of that size: cluster centres need far
#' fewer points than there are rows. `rvm(x, y, centres = m)` uses these
#' centres (with `seed = 1`) so that the basis is `n x m` instead of `n x n`.
#' The computation is in C++, threaded as the kernels are (see [kernels]),
#' and the result does not depend on the number of threads.
#'
#' @param x A numeric matrix (or data frame of numbers, or vector) of inputs.
#' @param m Number of centres, a whole number >= 1. Fewer are returned when
#'   `x` has fewer distinct rows.
#' @param seed Seed of the random choices (a whole number): the same data
#'   and seed give the same centres. R's random number generator is not used
#'   or changed.
#' @param scale Compute the centres on standardised columns?
#' @return A numeric matrix of centres, one per row, in the units and with
#'   the column names of `x`.
#' @references Arthur, D. and Vassilvitskii, S. (2007). k-means++: the
#'   advantages of careful seeding. *Proceedings of the 18th ACM-SIAM
#'   Symposium on Discrete Algorithms*, 1027--1035.
#' @seealso [rvm()] (argument `centres`).
#' @examples
#' x <- cbind(runif(2000), rnorm(2000))
#' z <- kmeans_centres(x, 20)
#' dim(z)
#' @export
kmeans_centres <- function(x, m, seed = 1, scale = TRUE) {
  x <- check_numeric_matrix(x, "x")
  check_number(m, "m", lower = 1, integer = TRUE)
  check_number(seed, "seed", lower = 0, integer = TRUE)
  check_flag(scale)
  scaling <- input_scaling(x, scale)
  unscale_rows(centres_of(apply_scaling(x, scaling), m, seed), scaling, colnames(x))
}

# k-means++ centres of the (already scaled) inputs xs.
centres_of <- function(xs, m, seed = 1) {
  sample_size <- if (nrow(xs) > max(50 * m, 1e4)) max(50 * m, 1e4) else -1
  .sb_kmeans_centres(xs, as.integer(min(m, .Machine$integer.max)), seed, 10L, as.integer(sample_size),
                     kernel_threads())
}

# Rows in scaled units back in the caller's units (the inverse of apply_scaling()).
unscale_rows <- function(z, scaling, names) {
  if (!is.null(scaling)) z <- sweep(sweep(z, 2L, scaling$scale, "*"), 2L, scaling$center, "+")
  colnames(z) <- names
  z
}

# The centres of an rvm basis, in the caller's units, or NULL for kernels
# centred on the n training inputs. `centres`: NULL (automatic: every
# training input up to `auto_limit` rows, `auto_m` k-means++ centres beyond,
# with a message), a number m (k-means++ centres; m >= n means the training
# inputs) or a matrix of centres. `in_fit`: the rows of positive weight; a
# row of weight 0 is left out of the fit, so no kernel is centred on it and
# k-means does not see it (the training inputs that remain are then the
# centres, named by their rows).
resolve_centres <- function(centres, x, xs, scaling, kernels, in_fit = rep(TRUE, nrow(x)), auto_limit = 5000L,
                            auto_m = 1000L) {
  n <- sum(in_fit)
  wavelet <- any(vapply(kernels, is_wavelet, logical(1)))
  training_rows <- function() {
    if (all(in_fit)) return(NULL)
    z <- x[in_fit, , drop = FALSE]
    rownames(z) <- which(in_fit)
    z
  }
  if (is.null(centres)) {
    if (n <= auto_limit || wavelet) return(if (wavelet) NULL else training_rows())
    message(sprintf(paste0("rvm(): %d training inputs, so the kernels are centred on %d k-means++ centres ",
                           "(`centres = %d`); `centres = %d` gives the full n x n basis."), n, auto_m, auto_m, n))
    centres <- auto_m
  }
  if (wavelet) stop_arg("centres", "must be NULL for a wavelet dictionary (its functions live on the training grid).")
  if (is.numeric(centres) && length(centres) == 1L && is.null(dim(centres))) {
    check_number(centres, "centres", lower = 1, integer = TRUE)
    if (centres >= n) return(training_rows())
    return(unscale_rows(centres_of(xs[in_fit, , drop = FALSE], centres), scaling, colnames(x)))
  }
  z <- check_numeric_matrix(centres, "centres")
  if (ncol(z) != ncol(x))
    stop_arg("centres", sprintf("has %d columns but the inputs have %d.", ncol(z), ncol(x)))
  if (!all(is.finite(z))) stop_arg("centres", "contains infinite values.")
  colnames(z) <- colnames(x)
  rownames(z) <- NULL
  z
}

# Labels of the centres of a basis: the training rows they are (centres
# made from the rows of positive weight), or "c" and their row.
centre_names <- function(centres) rownames(centres) %||% paste0("c", seq_len(nrow(centres)))

# Inputs the kernels of a fit are centred on, in the caller's units.
basis_centres <- function(object) object$centres %||% object$x
