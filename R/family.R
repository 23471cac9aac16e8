# Likelihoods: family objects, response encoding and link-scale algebra.

# Each likelihood the package fits is a row of the core's table (kLikelihoods,
# likelihood.hpp, read through .sb_likelihoods()): its name, the family and
# link of R's family object, whether it has a noise variance (`noise`: the
# gaussian one, with its noise models, standard units and leverage
# diagnostics), whether the link is the family's canonical one, the title of
# a fit, and the kind of its `targets`: "real", "classes" (0/1: a classifier,
# whose widths the Laplace GP classifier learns) or "counts". Its algebra (IRLS
# weights, log-likelihoods, the start of a fit from chunks, the mean of the
# response from the Gaussian posterior of the linear predictor) is the
# core's alone; what R does with a response follows from the kind of its
# targets (`target_kinds`). Adding a likelihood: its class and row in
# likelihood.hpp.
# Built once a session (once(), R/checks.R).
likelihood_table <- once(function() {
  table <- .sb_likelihoods()
  rows <- lapply(seq_len(nrow(table)), function(i) {
    row <- as.list(table[i, ])
    kind <- target_kinds[[row$targets]]
    c(row[setdiff(names(row), "title")], classes = row$targets == "classes",
      kind[c("quality", "types", "scores", "learning_target")],
      encode = function(y, n) kind$encode(y, n, row$family), title = function(x) kind$title(row$title, x))
  })
  stats::setNames(rows, table$name)
})

# What R does with each kind of targets: how a response is checked and
# encoded (`family`: the family's name, for messages); the title of a fit
# (`title`: the likelihood's) and its one-line quality; the prediction types (the first is predict()'s default); the
# scores of cross_validate() from held-out truth and predicted means; the
# targets its kernel widths are learned on.
target_kinds <- list(
  real = list(
    encode = function(y, n, family) check_response(y, n),
    title = function(title, x) title,
    quality = function(x, digits) noise_label(x, digits),
    types = "response",
    scores = function(truth, mu, w) c(rmse = sqrt(wmean((truth - mu)^2, w)), mae = wmean(abs(truth - mu), w)),
    learning_target = function(y, offset) y - (offset %||% 0)),
  classes = list(
    encode = function(y, n, family) {
      if (is.logical(y)) y <- factor(y, levels = c(FALSE, TRUE))
      if (is.ordered(y)) y <- factor(y, levels = levels(y), ordered = FALSE)  # classes; their order is not modelled
      if (is.numeric(y)) {
        if (any(!y %in% c(0, 1))) stop_arg("y", sprintf("must be a factor, logical or 0/1 for the %s family.", family))
        y <- factor(y, levels = c(0, 1))
      }
      if (!is.factor(y)) stop_arg("y", sprintf("must be a factor, logical or 0/1 for the %s family.", family))
      y <- droplevels(y)
      if (nlevels(y) < 2L) stop_arg("y", "has a single class; there is nothing to classify.")
      y
    },
    title = function(title, x) sprintf("%s (%s vs %s)", title, x$levels[2L], x$levels[1L]),
    quality = function(x, digits) sprintf("training error %.1f%%", 100 * training_error(x)),
    types = c("class", "prob", "response", "link"),
    # truth: 1 for the second class; mu: its predicted probability
    scores = function(truth, mu, w, eps = 1e-15) {
      p <- pmin(pmax(mu, eps), 1 - eps)
      c(log_loss = wmean(-ifelse(truth == 1, log(p), log1p(-p)), w), error = wmean((p > 0.5) != (truth == 1), w))
    },
    learning_target = function(y, offset) y),
  counts = list(
    encode = function(y, n, family) {
      if (!is.numeric(y)) stop_arg("y", sprintf("must be numeric counts for the %s family.", family))
      y <- as.numeric(y)
      if (any(!is.finite(y)) || any(y < 0) || any(y != round(y)))
        stop_arg("y", sprintf("must be non-negative whole numbers (counts) for the %s family.", family))
      if (all(y == 0)) stop_arg("y", "is all zero; there is nothing to fit.")
      y
    },
    title = function(title, x) title,
    quality = function(x, digits) sprintf("deviance %s", format(deviance_of(x), digits = digits)),
    types = c("response", "link"),
    scores = function(truth, mu, w) c(deviance = sum(stats::poisson()$dev.resids(truth, mu, w)) / sum(w),
                                      rmse = sqrt(wmean((truth - mu)^2, w)), mae = wmean(abs(truth - mu), w)),
    learning_target = function(y, offset) log1p(y)))

# The row of the likelihood table for a family object (by its family and
# link) or a likelihood's name.
likelihood_of <- function(family) {
  table <- likelihood_table()
  if (is.character(family)) return(table[[family]])
  for (row in table) if (row$family == family$family && row$link == family$link) return(row)
  NULL
}

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
# function or a family object, of a family and link of the likelihood table.
resolve_family <- function(family, y) {
  if (is.character(y)) stop_arg("y", "is character; convert it to a factor to classify.")
  if (is.null(family)) family <- if (is.factor(y) || is.logical(y)) stats::binomial() else stats::gaussian()
  table <- likelihood_table()
  families <- vapply(table, function(l) l$family, "")
  known <- or_list(unique(families))
  if (is.character(family) && length(family) == 1L && !is.na(family)) {
    if (!family %in% families) stop_arg("family", sprintf("must be %s; got \"%s\".", known, family))
    family <- get(family, mode = "function", envir = asNamespace("stats"))()
  }
  if (is.function(family)) family <- family()
  if (!inherits(family, "family")) stop_arg("family", "must be a family such as gaussian(), binomial() or poisson().")
  if (!family$family %in% families)
    stop_arg("family", sprintf("must be %s; got %s.", known, family$family))
  links <- vapply(table[families == family$family], function(l) l$link, "")
  if (!family$link %in% links)
    stop_arg("family", sprintf("%s() is supported with the %s link only.", family$family, or_list(links)))
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

# The mean of the response from the Gaussian posterior of the linear
# predictor (the core's), in the shape of eta.
link_to_response <- function(family, eta, var_eta) {
  mu <- eta
  mu[] <- .sb_predictive_mean(likelihood_of(family)$name, as.numeric(eta), as.numeric(var_eta))
  mu
}
