# Likelihoods: family objects, response encoding and link-scale algebra.

# Each likelihood the package fits, as R sees it (the core's side is the
# Likelihood class of likelihood.hpp, which takes the same name): its
# canonical link; how a response is checked and encoded; the mean of the
# response from the Gaussian posterior of the linear predictor; the title
# and one-line quality of a fit; the prediction types (the first is
# predict()'s default); the scores of cross_validate() from held-out truth
# and predicted means; the targets its kernel widths are learned on; whether
# it has a noise variance (`noise`: the gaussian one, with its noise models,
# standard units and leverage diagnostics); and whether its 0/1 targets are
# classes (`classes`: the Laplace GP classifier learns their widths). Its
# algebra (IRLS weights, log-likelihoods, the start of a fit from chunks) is
# the core's alone. Adding a likelihood: a row here and its class in
# likelihood.hpp.
likelihoods <- list(
  gaussian = list(
    link = "identity", noise = TRUE, classes = FALSE,
    encode = function(y, n) check_response(y, n),
    response = function(eta, var_eta) eta,
    title = function(x) "Relevance vector machine",
    quality = function(x, digits) noise_label(x, digits),
    types = "response",
    scores = function(truth, mu, w) c(rmse = sqrt(wmean((truth - mu)^2, w)), mae = wmean(abs(truth - mu), w)),
    learning_target = function(y, offset) y - (offset %||% 0)),
  binomial = list(
    link = "logit", noise = FALSE, classes = TRUE,
    encode = function(y, n) {
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
    },
    # MacKay's moderated output sigmoid(m / sqrt(1 + pi v / 8)), which
    # accounts for the uncertainty of the weights.
    response = function(eta, var_eta) stats::plogis(eta / sqrt(1 + pi * var_eta / 8)),
    title = function(x) sprintf("Relevance vector machine classifier (%s vs %s)", x$levels[2L], x$levels[1L]),
    quality = function(x, digits) sprintf("training error %.1f%%", 100 * training_error(x)),
    types = c("class", "prob", "response", "link"),
    # truth: 1 for the second class; mu: its predicted probability
    scores = function(truth, mu, w, eps = 1e-15) {
      p <- pmin(pmax(mu, eps), 1 - eps)
      c(log_loss = wmean(-ifelse(truth == 1, log(p), log1p(-p)), w), error = wmean((p > 0.5) != (truth == 1), w))
    },
    learning_target = function(y, offset) y),
  poisson = list(
    link = "log", noise = FALSE, classes = FALSE,
    encode = function(y, n) {
      if (!is.numeric(y)) stop_arg("y", "must be numeric counts for the poisson family.")
      y <- as.numeric(y)
      if (any(!is.finite(y)) || any(y < 0) || any(y != round(y)))
        stop_arg("y", "must be non-negative whole numbers (counts) for the poisson family.")
      if (all(y == 0)) stop_arg("y", "is all zero; there is nothing to fit.")
      y
    },
    response = function(eta, var_eta) exp(eta + var_eta / 2),  # the log-normal mean
    title = function(x) "Relevance vector machine, Poisson counts",
    quality = function(x, digits) sprintf("deviance %s", format(deviance_of(x), digits = digits)),
    types = c("response", "link"),
    scores = function(truth, mu, w) c(deviance = sum(stats::poisson()$dev.resids(truth, mu, w)) / sum(w),
                                      rmse = sqrt(wmean((truth - mu)^2, w)), mae = wmean(abs(truth - mu), w)),
    learning_target = function(y, offset) log1p(y)))

# The row of `likelihoods` for a family object or name.
likelihood_of <- function(family) likelihoods[[if (is.character(family)) family else family$family]]

# Does the family have a noise variance (the gaussian one)?
has_noise <- function(family) likelihood_of(family)$noise

# The noise models of a likelihood with a noise variance: one variance
# shared by every row, or one per row (`per_sample`), with a Student-t
# prior on them (`student`). A fit with per-sample noise takes its weights
# as given precisions and its standard units from robust moments.
noise_models <- list(
  shared = list(per_sample = FALSE, student = FALSE),
  sample = list(per_sample = TRUE, student = FALSE),
  student = list(per_sample = TRUE, student = TRUE))

per_sample_noise <- function(noise) noise_models[[noise]]$per_sample
student_noise <- function(noise) noise_models[[noise]]$student

# The share of training rows a binomial fit puts on the wrong side of 1/2.
training_error <- function(x) {
  if (!is.null(x$chunks)) return(x$chunks$error)  # counted in the last pass over the chunks
  mean((x$fitted.values > 0.5) != (x$y == 1))
}

# The weighted mean of x (weights w, or none).
wmean <- function(x, w = NULL) if (is.null(w)) mean(x) else sum(w * x) / sum(w)

# A family object from NULL (chosen from the response), a name, a family
# function or a family object; only canonical links are supported.
resolve_family <- function(family, y) {
  if (is.character(y)) stop_arg("y", "is character; convert it to a factor to classify.")
  if (is.null(family)) family <- if (is.factor(y) || is.logical(y)) stats::binomial() else stats::gaussian()
  known <- or_list(names(likelihoods))
  if (is.character(family) && length(family) == 1L && !is.na(family)) {
    if (!family %in% names(likelihoods)) stop_arg("family", sprintf("must be %s; got \"%s\".", known, family))
    family <- get(family, mode = "function", envir = asNamespace("stats"))()
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) stop_arg("family", "must be a family such as gaussian(), binomial() or poisson().")
  if (!family$family %in% names(likelihoods))
    stop_arg("family", sprintf("must be %s; got %s.", known, family$family))
  link <- likelihoods[[family$family]]$link
  if (family$link != link) stop_arg("family", sprintf("%s() is supported with the %s link only.", family$family, link))
  family
}

# Checks the response for a family and returns the numeric targets (a
# factor for binomial).
encode_response <- function(y, n, family) {
  if (!has_noise(family)) {
    if (!is.null(dim(y)) && NCOL(y) != 1L) stop_arg("y", "must be a single column.")
    if (length(y) != n) stop_arg("y", sprintf("has length %d but the inputs have %d rows.", length(y), n))
    if (anyNA(y)) stop_arg("y", "contains NA; remove those rows or use the formula interface with `na.action`.")
    if (n < 3L) stop_arg("y", "needs at least 3 observations.")
  }
  likelihood_of(family)$encode(y, n)
}

# The mean of the response from the Gaussian posterior of the linear predictor.
link_to_response <- function(family, eta, var_eta) likelihood_of(family)$response(eta, var_eta)
