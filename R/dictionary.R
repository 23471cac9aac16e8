# Dictionaries: one kernel, a wavelet basis, or several of them side by side.
# The design has an optional bias column, then n columns per sub-dictionary
# (kernels centred on the n training inputs, or the N = n wavelet functions).

#' Orthonormal wavelet dictionaries (Haar, Symmlet 8)
#'
#' The orthonormal periodic discrete-wavelet synthesis basis on an equally
#' spaced design (one input), for [rvm()]. With a single wavelet dictionary
#' the fit takes the O(N) path of Schmolck and Everson (2007, footnote 7):
#' the basis is never formed, the data are transformed once, and N may be
#' any number of points (see below). The basis contains the constant
#' (scaling) function, so no bias is added.
#'
#' **The default prior** (`prior = "auto"` in [rvm()], which is
#' `"adaptive"` here) learns one smoothness constant per resolution level.
#' Keeping one more of a level's `n_l` coefficients when `k` are kept costs
#' `log((n_l - k) / (k + 1))` nats per effective parameter: the log prior
#' odds of a beta-binomial prior on the level's number of coefficients (a
#' uniform prior on its inclusion rate, Scott and Berger 2010). Each level
#' finds its own constant, as EbayesThresh (Johnstone and Silverman 2005)
#' estimates a mixing weight per level: dense coarse levels are kept
#' cheaply, the finest levels of noise pay about `log(N / 2)`. The fit then
#' averages over which coefficients are included: a coefficient `z` with
#' `u = z^2 / sigma^2 > 1` is in the model with `alpha` at its evidence
#' optimum and log posterior odds `(u - 1 - log u) / 2 - c gamma`, `gamma =
#' 1 - 1/u`; its weight is the mean of that mixture (its posterior mean
#' times the inclusion probability, `fit$inclusion`), which shrinks
#' smoothly instead of keeping or killing. Coefficients whose averaged
#' weight is below 5% of `z` are left out. The noise is held at the
#' standard estimate from the finest details, `(median |d| / 0.6745)^2`
#' (Donoho and Johnstone 1994; learned constants and the evidence's noise
#' would otherwise feed each other towards interpolation); give
#' `rvm_control(noise_variance = )` to fix another. A fixed prior (`"BIC"`,
#' a number, or one number per level) gives the sparse smooth RVM of the
#' paper, with the noise learned by the evidence.
#'
#' **Translation invariance** (`translation_invariant = TRUE`): the fit is
#' averaged over all N cyclic shifts of the data (cycle spinning, Coifman
#' and Donoho 1995), each shift's coefficients given the noise and
#' constants learned on the unshifted data, in O(N log N) by Coifman and
#' Donoho's recursion. It removes the blocky artefacts a decimated basis
#' leaves at discontinuities. `fitted()` and `predict()` give the averaged
#' mean; its variance is that of the mixture over the first 8 shifts (their
#' posterior variances plus the spread of their means about the averaged
#' mean), so intervals cover model uncertainty as well. The other fields
#' (`weights`, `relevant`, leverage, ESS) describe the unshifted fit.
#'
#' **Boundaries and N.** The transform is periodic. On the O(N) path a
#' series of N points that is not a power of two is extended to the next
#' one, M, by mirroring it about its end points ((M - N) %/% 2 points before
#' the first, the rest after the last, on the same grid step); the fit is
#' made on the M points, counting the mirrored ones as data, and reported
#' for the N observed ones (`n_basis` is M; `predict()` stays within the
#' observed range). Mirroring continues the series smoothly across its
#' ends; the jump the periodic transform sees where the two mirrored
#' stretches meet lies in the padding, away from the data. A series of 2^J
#' points is fitted as it is: periodically, so a jump between its two ends
#' can leave wiggles near both. A wavelet dictionary beside other kernels,
#' or fitted without the O(N) path, needs N = 2^J.
#'
#' `predict()` at inputs other than the training grid interpolates each
#' wavelet function linearly between grid points (the averaged mean, for
#' an invariant fit), and stops for inputs outside the grid's range.
#'
#' `bench/wavelet_denoise.R` compares these fits with EbayesThresh on the
#' Donoho-Johnstone signals (results in the package's `bench/RESULTS.md`).
#'
#' @param family `"haar"` or `"symmlet8"` (Daubechies' least-asymmetric
#'   wavelet with 8 vanishing moments).
#' @param translation_invariant Average the fit over all cyclic shifts of
#'   the data (see above)?
#' @return A kernel object of type `"wavelet"`.
#' @references Schmolck, A. and Everson, R. (2007). Smooth relevance vector
#'   machine: a smoothness prior extension of the RVM. *Machine Learning*,
#'   68, 107--135. \doi{10.1007/s10994-007-5012-z}
#'
#' Johnstone, I. M. and Silverman, B. W. (2005). Empirical Bayes selection
#' of wavelet thresholds. *Annals of Statistics*, 33, 1700--1752.
#' \doi{10.1214/009053605000000345}
#'
#' Coifman, R. R. and Donoho, D. L. (1995). Translation-invariant
#' de-noising. In *Wavelets and Statistics*, Lecture Notes in Statistics
#' 103, 125--150. \doi{10.1007/978-1-4612-2544-7_9}
#'
#' Scott, J. G. and Berger, J. O. (2010). Bayes and empirical-Bayes
#' multiplicity adjustment in the variable-selection problem. *Annals of
#' Statistics*, 38, 2587--2619. \doi{10.1214/10-AOS792}
#' @examples
#' s <- make_signal("bumps", n = 512, snr = 5, seed = 1)
#' fit <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"))
#' fit
#' fit$smoothness  # the constants learned per level
#' ti <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8", translation_invariant = TRUE))
#' c(decimated = mean((fitted(fit) - s$f)^2), invariant = mean((fitted(ti) - s$f)^2))
#' # the sparse smooth RVM of the paper
#' rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC")
#' @export
kernel_wavelet <- function(family = c("haar", "symmlet8"), translation_invariant = FALSE) {
  family <- match_arg(family)
  check_flag(translation_invariant)
  structure(list(type = "wavelet", family = family, width = NULL, variance = 1, degree = 2, offset = 1,
                 translation_invariant = translation_invariant),
            class = "sparsebayes_kernel")
}

# The wavelet families, as kernel_wavelet() lists them.
wavelet_families <- function() eval(formals(kernel_wavelet)$family)

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

# Rank of each input on the equally spaced grid a wavelet basis needs; a
# power of two of them unless `any_length` (the O(N) path pads the grid).
wavelet_grid_order <- function(x, any_length = FALSE) {
  if (ncol(x) != 1L) stop_arg("x", "must have one column for a wavelet dictionary.")
  n <- nrow(x)
  if (n < 2L || (!any_length && bitwAnd(n, n - 1L) != 0L))
    stop_arg("x", sprintf(paste0("has %d rows; a wavelet dictionary beside other kernels (or fitted without the O(N) ",
                                 "path) needs a power of two (64, 128, ...)."), n))
  sorted <- sort(x[, 1L])
  step <- diff(sorted)
  if (any(step <= 0) || diff(range(step)) > 1e-6 * mean(step))
    stop_arg("x", "must be equally spaced (and distinct) for a wavelet dictionary.")
  order(x[, 1L])
}

# The wavelet grid of N sorted inputs: extended to the next power of two,
# M, by (M - N) %/% 2 points before and the rest after, at the same step
# (fit_wavelet_path() mirrors the data into them; see kernel_wavelet()).
padded_grid <- function(grid) {
  n <- length(grid)
  M <- padded_size(n)
  before <- padding_before(n)
  step <- if (n > 1L) (grid[n] - grid[1L]) / (n - 1L) else 1
  c(grid[1L] - step * rev(seq_len(before)), grid, grid[n] + step * seq_len(M - n - before))
}

padded_size <- function(n) as.integer(2^ceiling(log2(n) - 1e-9))

padding_before <- function(n) (padded_size(n) - n) %/% 2L

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
  if (!is.null(object$kernel) && all(vapply(fit_kernels(object), is_wavelet, logical(1))))
    n <- padded_size(n)  # a padded O(N) fit
  data.frame(part = ifelse(k <= 0, 0L, (k - 1L) %/% n + 1L), index = ifelse(k <= 0, 0L, (k - 1L) %% n + 1L))
}

# Values of wavelet functions `index` at inputs xnew, by linear
# interpolation on the training grid.
wavelet_at <- function(kernel, xtrain, index, xnew) {
  grid <- sort(xtrain[, 1L])
  xout <- check_on_grid(grid, xnew[, 1L])
  grid <- padded_grid(grid)
  W <- .sb_wavelet_columns(length(grid), kernel$family, index)
  apply(W, 2L, function(w) stats::approx(grid, w, xout = xout, rule = 2)$y)
}

# Inputs x, checked to lie within the range of the wavelet grid.
check_on_grid <- function(grid, x) {
  tol <- 1e-9 * diff(range(grid))
  if (any(x < grid[1L] - tol | x > grid[length(grid)] + tol))
    stop_arg("newdata", "lies outside the grid of the wavelet fit; wavelet functions are defined on it only.")
  x
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
