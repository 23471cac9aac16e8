# Likelihoods: family objects, response encoding and link-scale algebra.

# A family object from NULL (chosen from the response), a name, a family
# function or a family object; only canonical links are supported.
resolve_family <- function(family, y) {
  if (is.character(y)) stop_arg("y", "is character; convert it to a factor to classify.")
  if (is.null(family)) family <- if (is.factor(y) || is.logical(y)) stats::binomial() else stats::gaussian()
  if (is.character(family) && length(family) == 1L && !is.na(family)) {
    family <- switch(family, gaussian = stats::gaussian(), binomial = stats::binomial(),
                     poisson = stats::poisson(),
                     stop_arg("family", sprintf("must be gaussian, binomial or poisson; got \"%s\".", family)))
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) stop_arg("family", "must be a family such as gaussian(), binomial() or poisson().")
  canonical <- c(gaussian = "identity", binomial = "logit", poisson = "log")
  if (!family$family %in% names(canonical))
    stop_arg("family", sprintf("must be gaussian, binomial or poisson; got %s.", family$family))
  if (family$link != canonical[[family$family]])
    stop_arg("family", sprintf("%s() is supported with the %s link only.", family$family, canonical[[family$family]]))
  family
}

# Checks the response for a family and returns the numeric targets with the
# class levels (binomial) as an attribute.
encode_response <- function(y, n, family) {
  if (family$family == "gaussian") return(check_response(y, n))
  if (!is.null(dim(y)) && NCOL(y) != 1L) stop_arg("y", "must be a single column.")
  if (length(y) != n) stop_arg("y", sprintf("has length %d but the inputs have %d rows.", length(y), n))
  if (anyNA(y)) stop_arg("y", "contains NA; remove those rows or use the formula interface with `na.action`.")
  if (n < 3L) stop_arg("y", "needs at least 3 observations.")
  if (family$family == "poisson") {
    if (!is.numeric(y)) stop_arg("y", "must be numeric counts for the poisson family.")
    y <- as.numeric(y)
    if (any(!is.finite(y)) || any(y < 0) || any(y != round(y)))
      stop_arg("y", "must be non-negative whole numbers (counts) for the poisson family.")
    if (all(y == 0)) stop_arg("y", "is all zero; there is nothing to fit.")
    return(y)
  }
  if (is.logical(y)) y <- factor(y, levels = c(FALSE, TRUE))
  if (is.ordered(y)) y <- factor(y, levels = levels(y), ordered = FALSE)  # classes; their order is not modelled
  if (is.numeric(y)) {
    if (any(!y %in% c(0, 1))) stop_arg("y", "must be a factor, logical or 0/1 for the binomial family.")
    y <- factor(y, levels = c(0, 1))
  }
  if (!is.factor(y)) stop_arg("y", "must be a factor, logical or 0/1 for the binomial family.")
  y <- droplevels(y)
  if (nlevels(y) < 2L) stop_arg("y", "has a single class; there is nothing to classify.")
  y
}

# Binomial probabilities from the Gaussian posterior of the linear predictor:
# MacKay's moderated output sigmoid(m / sqrt(1 + pi v / 8)), which accounts
# for the uncertainty of the weights; Poisson rates: the log-normal mean.
link_to_response <- function(family, eta, var_eta) {
  switch(family,
    gaussian = eta,
    binomial = stats::plogis(eta / sqrt(1 + pi * var_eta / 8)),
    poisson = exp(eta + var_eta / 2))
}
