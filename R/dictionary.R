# Dictionaries: one kernel, a wavelet basis, or several of them side by side.
# The design has an optional bias column, then n columns per sub-dictionary
# (kernels centred on the n training inputs, or the N = n wavelet functions).

#' Orthonormal wavelet dictionaries (Haar, Symmlet 8)
#'
#' The orthonormal periodic discrete-wavelet synthesis basis on an equally
#' spaced design of N = 2^J points (one input), for [rvm()]. With a single
#' wavelet dictionary the fit takes the O(N) path of Schmolck and Everson
#' (2007, footnote 7): the basis is never formed, the data are transformed
#' once. The basis contains the constant (scaling) function, so no bias is
#' added. A smoothness prior (`prior = "BIC"`, say) is needed: without it a
#' wavelet RVM keeps nearly every coefficient.
#'
#' `predict()` at inputs other than the training grid interpolates each
#' wavelet function linearly between grid points, and stops for inputs
#' outside the grid's range.
#'
#' @param family `"haar"` or `"symmlet8"` (Daubechies' least-asymmetric
#'   wavelet with 8 vanishing moments).
#' @return A kernel object of type `"wavelet"`.
#' @references Schmolck, A. and Everson, R. (2007). Smooth relevance vector
#'   machine: a smoothness prior extension of the RVM. *Machine Learning*,
#'   68, 107--135. \doi{10.1007/s10994-007-5012-z}
#' @examples
#' s <- make_signal("bumps", n = 128, snr = 7, seed = 1)
#' fit <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "AIC")
#' fit
#' @export
kernel_wavelet <- function(family = c("haar", "symmlet8")) {
  family <- match_arg(family)
  structure(list(type = "wavelet", family = family, width = NULL, variance = 1, degree = 2, offset = 1),
            class = "sparsebayes_kernel")
}

# A list of kernel objects from a kernel, a name or a list of them.
as_dictionary <- function(kernel) {
  if (is.list(kernel) && !inherits(kernel, "sparsebayes_kernel")) {
    if (!length(kernel)) stop_arg("kernel", "is an empty list.")
    return(lapply(kernel, as_kernel))
  }
  list(as_kernel(kernel))
}

is_wavelet <- function(kernel) identical(kernel$type, "wavelet")

# The kernels of a fit, as a list (one element for a single kernel).
fit_kernels <- function(object) {
  if (inherits(object$kernel, "sparsebayes_kernel")) list(object$kernel) else object$kernel
}

# Rank of each input on the equally spaced grid a wavelet basis needs.
wavelet_grid_order <- function(x) {
  if (ncol(x) != 1L) stop_arg("x", "must have one column for a wavelet dictionary.")
  n <- nrow(x)
  if (n < 2L || bitwAnd(n, n - 1L) != 0L)
    stop_arg("x", sprintf("has %d rows; a wavelet dictionary needs a power of two (64, 128, ...).", n))
  sorted <- sort(x[, 1L])
  step <- diff(sorted)
  if (any(step <= 0) || diff(range(step)) > 1e-6 * mean(step))
    stop_arg("x", "must be equally spaced (and distinct) for a wavelet dictionary.")
  order(x[, 1L])
}

# Basis columns of one sub-dictionary at the training inputs, for kernels
# centred on the (scaled) `centres`.
part_basis <- function(kernel, x, xs, centres = xs) {
  if (!is_wavelet(kernel)) return(kernel_design(kernel, xs, centres))
  ord <- wavelet_grid_order(x)
  W <- .sb_wavelet_columns(nrow(x), kernel$family, seq_len(nrow(x)))
  W[order(ord), , drop = FALSE]  # row i is input i's grid point
}

# The full design of a dictionary at the training inputs, kernels centred
# on the (scaled) `centres`.
dictionary_basis <- function(kernels, x, xs, bias, centres = xs) {
  if (length(kernels) == 1L && !is_wavelet(kernels[[1L]])) return(kernel_design(kernels[[1L]], xs, centres, bias))
  check_basis_memory(nrow(x), bias + length(kernels) * nrow(centres))
  do.call(cbind, c(if (bias) list(1), lapply(kernels, part_basis, x = x, xs = xs, centres = centres)))
}

# For design columns j: the sub-dictionary (0 for the bias) and the index
# within it (training row or centre, or wavelet coefficient).
column_parts <- function(object, j = object$relevant) {
  k <- j - object$bias
  n <- nrow(basis_centres(object))
  data.frame(part = ifelse(k <= 0, 0L, (k - 1L) %/% n + 1L), index = ifelse(k <= 0, 0L, (k - 1L) %% n + 1L))
}

# Values of wavelet functions `index` at inputs xnew, by linear
# interpolation on the training grid.
wavelet_at <- function(kernel, xtrain, index, xnew) {
  grid <- sort(xtrain[, 1L])
  if (any(xnew[, 1L] < grid[1L] - 1e-9 * diff(range(grid)) | xnew[, 1L] > grid[length(grid)] + 1e-9 * diff(range(grid))))
    stop_arg("newdata", "lies outside the grid of the wavelet fit; wavelet functions are defined on it only.")
  W <- .sb_wavelet_columns(length(grid), kernel$family, index)
  apply(W, 2L, function(w) stats::approx(grid, w, xout = xnew[, 1L], rule = 2)$y)
}

# Design columns of the fit's relevant basis functions at inputs x (kernel
# fits; see relevant_design()).
dictionary_design <- function(object, x, xs) {
  parts <- column_parts(object)
  kernels <- fit_kernels(object)
  Phi <- matrix(0, nrow(x), nrow(parts))
  for (p in unique(parts$part)) {
    j <- which(parts$part == p)
    Phi[, j] <- if (p == 0L) 1 else if (is_wavelet(kernels[[p]])) {
      wavelet_at(kernels[[p]], object$x, parts$index[j], x)
    } else {
      centres <- apply_scaling(basis_centres(object)[parts$index[j], , drop = FALSE], object$scaling)
      kernel_design(kernels[[p]], xs, centres)
    }
  }
  Phi
}
