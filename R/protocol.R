# Experiment protocol helpers of the joint-ARD paper (App. D.2): random
# Fourier features and target contamination.

#' Random Fourier features of a Gaussian (RBF) kernel
#'
#' Maps inputs to `D` random cosine features whose inner products
#' approximate the Gaussian kernel `exp(-|x - x'|^2 / (2 lengthscale^2))`
#' (Rahimi and Recht 2007): `z(x) = sqrt(2/D) cos(x W / lengthscale + b)`,
#' with the entries of the `d x D` matrix `W` drawn from N(0, 1) and the
#' offsets `b` from U(0, 2 pi). Note the factor 2: the lengthscale `l`
#' here is the width `r` of [kernel_gaussian()] (`exp(-d^2 / r^2)`) divided
#' by `sqrt(2)`, so `kernel_gaussian(r)` corresponds to
#' `lengthscale = r / sqrt(2)` (and to kernlab's `rbfdot(sigma = 1 / r^2)`).
#' The joint-ARD paper fits [ard()] on `D = 256`
#' such features of standardised inputs (section 5.2).
#'
#' The random map is stored with the features, so the same map applies to
#' new data: pass the training features (or their `"rff_map"` attribute) as
#' `map` and leave `D`, `lengthscale` and `seed` unset.
#'
#' @param x Numeric matrix (or data frame of numbers, or vector for one
#'   input) of inputs, one row per observation. Standardise the columns
#'   first if they have different units.
#' @param D Number of features, a whole number >= 1.
#' @param lengthscale Kernel lengthscale, > 0.
#' @param seed Seed for `W` and `b`; `NULL` uses the current random stream.
#'   The caller's random stream is left as it was when a seed is given.
#' @param map The result of an earlier call (or its `"rff_map"` attribute)
#'   whose random map to apply to `x`.
#' @return An `nrow(x) x D` matrix with columns `rff1`, ..., `rffD` and the
#'   attribute `"rff_map"`, a list with `W`, `b` and `lengthscale`.
#' @references Rahimi, A. and Recht, B. (2007). Random features for
#'   large-scale kernel machines. *Advances in Neural Information Processing
#'   Systems*, 20.
#' @examples
#' x <- matrix(rnorm(200), 100, 2)
#' Z <- rff_features(x, D = 500, lengthscale = 1, seed = 1)
#' # inner products approximate the Gaussian kernel
#' K <- exp(-as.matrix(dist(x[1:5, ]))^2 / 2)
#' max(abs(tcrossprod(Z[1:5, ]) - K))
#' # the same map on new inputs
#' Znew <- rff_features(matrix(rnorm(10), 5, 2), map = Z)
#' @export
rff_features <- function(x, D, lengthscale = 1, seed = NULL, map = NULL) {
  x <- check_numeric_matrix(x, "x")
  if (is.null(map)) {
    if (missing(D)) stop_arg("D", "is missing; give the number of features (or a `map`).")
    check_number(D, "D", lower = 1, integer = TRUE)
    check_number(lengthscale, "lengthscale", lower = 0, open_lower = TRUE)
    draws <- with_seed(seed, list(W = matrix(stats::rnorm(ncol(x) * D), ncol(x), D),
                                  b = stats::runif(D, 0, 2 * pi)))
    map <- list(W = draws$W, b = draws$b, lengthscale = lengthscale)
  } else {
    if (!missing(D) || !is.null(seed) || !missing(lengthscale))
      stop_arg("map", "fixes the features; leave `D`, `lengthscale` and `seed` unset.")
    if (!is.null(attr(map, "rff_map"))) map <- attr(map, "rff_map")
    if (!is.list(map) || !all(c("W", "b", "lengthscale") %in% names(map)))
      stop_arg("map", "must be the result of rff_features() or its \"rff_map\" attribute.")
    if (nrow(map$W) != ncol(x))
      stop_arg("x", sprintf("has %d columns but the map was drawn for %d.", ncol(x), nrow(map$W)))
  }
  Z <- sqrt(2 / length(map$b)) * cos(sweep(x %*% map$W / map$lengthscale, 2L, map$b, `+`))
  dimnames(Z) <- list(rownames(x), paste0("rff", seq_along(map$b)))
  attr(Z, "rff_map") <- map
  Z
}

#' Contaminate a response with outliers
#'
#' The tabular contamination protocol of the joint-ARD paper (App. D.2): an
#' outlier set of `floor(rate * n)` samples is drawn uniformly without
#' replacement, and each of them gets a signed perturbation
#' `amplitude * s_i * delta_i` with a Rademacher sign `s_i` and a magnitude
#' `delta_i ~ N(1, 0.25^2)`. The paper contaminates standardised targets;
#' here the perturbation is in units of `scale`, by default `sd(y)`, which is
#' the same as standardising, contaminating and transforming back.
#'
#' @param y Numeric response (finite values).
#' @param rate Contamination fraction in `[0, 1]`.
#' @param amplitude Outlier amplitude `a > 0` in units of `scale`; the
#'   paper uses 3.
#' @param seed Seed for the draws; `NULL` uses the current random stream.
#'   The caller's random stream is left as it was when a seed is given.
#' @param scale Unit of the perturbation; `1` for a response already
#'   standardised.
#' @return `y` with the outliers perturbed, and the attribute `"outliers"`:
#'   the increasing indices of the perturbed samples.
#' @examples
#' y <- MASS::Boston$medv
#' yc <- contaminate(y, rate = 0.1, amplitude = 3, seed = 1)
#' attr(yc, "outliers")
#' summary((yc - y)[attr(yc, "outliers")] / sd(y))
#' @export
contaminate <- function(y, rate, amplitude = 3, seed = NULL, scale = stats::sd(y)) {
  if (!is.numeric(y) || !is.null(dim(y)) && NCOL(y) != 1L) stop_arg("y", "must be a numeric vector.")
  if (length(y) == 0L) stop_arg("y", "is empty.")
  if (any(!is.finite(y))) stop_arg("y", "contains NA, NaN or infinite values.")
  check_number(rate, "rate", lower = 0, upper = 1)
  check_number(amplitude, "amplitude", lower = 0, open_lower = TRUE)
  check_number(scale, "scale", lower = 0, open_lower = TRUE)
  n <- length(y)
  k <- floor(rate * n)
  draws <- with_seed(seed, {
    idx <- sample.int(n, k)
    sign <- sample(c(-1, 1), k, replace = TRUE)
    delta <- stats::rnorm(k, mean = 1, sd = 0.25)
    list(idx = idx, shift = amplitude * scale * sign * delta)
  })
  out <- as.numeric(y)
  out[draws$idx] <- out[draws$idx] + draws$shift
  names(out) <- names(y)
  attr(out, "outliers") <- sort(draws$idx)
  out
}
