# caret custom-model lists for rvm(), ard() and sparse_gp(): what
# caret::train() needs to tune, fit and predict with them (the fields of
# https://topepo.github.io/caret/using-your-own-model-in-train.html).

#' Models for caret's train()
#'
#' `sparsebayes_caret()` returns a custom model list for
#' [caret::train()][caret::train], so that the package's models are tuned,
#' resampled and compared where R users already do it:
#' `caret::train(x, y, method = sparsebayes_caret("rvm"))`.
#'
#' **`"rvm"`** ([rvm()], regression and classification: a factor with two
#' classes is one binary model, with more one model per class against the
#' rest). Tuning parameter `width`, the width of the kernel in standardised
#' inputs: `0` means [rvm()]'s learned default (one width per input learned
#' by a GP marginal likelihood for regression, one width for all inputs
#' learned by a GP classifier's evidence for classifiers; caret's grids
#' need a number, and `NA`, also taken, makes caret warn of missing values
#' in every resample), a positive number one width for every input. The
#' default grid is `0`, then the median heuristic `h` (half the median
#' distance between the standardised training inputs) and `2 h`, `h / 2`,
#' `4 h`, ... as `tuneLength` grows; the random search draws `h 2^u` with
#' `u` uniform on (-3, 3) after `0`. The learned widths come first because
#' they are the package's default, so a tuned fit is chosen against it.
#' Another kernel with a width is taken through train's `...` (`kernel =
#' "laplace"` or `kernel_cauchy()`), with `width` set from the grid; other
#' arguments of [rvm()] pass through the same way.
#'
#' **`"ard"`** ([ard()], regression only: [ard()] fits gaussian noise).
#' Tuning parameter `prior`, the price per effective parameter that sets how
#' sparse the fit is: `"auto"` (the default of [ard()], a price that grows
#' with d/n), `"none"` (the flat prior of the evidence), `"RIC"`, then
#' `"BIC"` and `"AIC"` as `tuneLength` grows. The solver is not tuned: its
#' rules reach the same optimum.
#'
#' **`"sparse_gp"`** ([sparse_gp()], regression only). Tuning parameter
#' `inducing`, the number of inducing points: 50 (the default of
#' [sparse_gp()], or n when n < 50), 100, 25, 200, 12 as `tuneLength` grows
#' (at most the rows of a resample). More points cost more time (O(n m^2))
#' and approximate the full GP better; fewer are a cheaper model that
#' `selectionFunction = "oneSE"` may prefer. The kernel widths, variance and
#' noise are learned by every fit, as [sparse_gp()] does.
#'
#' Case weights (`weights` of `train()`) are passed to the fit as its
#' `weights`. Inputs that are a data frame with factor columns are fitted
#' with the formula interface (factors expanded by [stats::model.matrix()]);
#' numeric inputs with the matrix interface.
#'
#' `varImp()` of a trained model: for `"rvm"` and `"sparse_gp"` the
#' [input_relevance()] of the final fit (inverse squared width relative to
#' the most relevant input; it needs one width per input, so a final model
#' with one width for all inputs refuses, and `varImp(fit, useModel =
#' FALSE)` gives caret's model-free measure); for `"ard"` the log Bayes
#' factor of each feature's weight (see [selected()]), 0 for pruned
#' features.
#'
#' @param model `"rvm"`, `"ard"` or `"sparse_gp"`.
#' @return A list with the fields caret's custom models have: `label`,
#'   `library`, `type`, `parameters`, `grid`, `fit`, `predict`, `prob`,
#'   `sort`, `levels`, `varImp` and `tags`.
#' @seealso [rvm()], [ard()], [sparse_gp()], [input_relevance()],
#'   [selected()], [cross_validate()].
#' @examples
#' if (requireNamespace("caret", quietly = TRUE)) {
#'   set.seed(1)
#'   fit <- caret::train(accel ~ times, data = MASS::mcycle, method = sparsebayes_caret("rvm"),
#'                       tuneLength = 2, trControl = caret::trainControl(method = "cv", number = 3))
#'   print(fit$results)
#'   predict(fit, data.frame(times = c(10, 20, 30)))
#' }
#' @export
sparsebayes_caret <- function(model) {
  if (missing(model)) stop_arg("model", "is missing; give \"rvm\", \"ard\" or \"sparse_gp\".")
  model <- match_arg(model, c("rvm", "ard", "sparse_gp"))
  switch(model, rvm = caret_rvm(), ard = caret_ard(), sparse_gp = caret_sparse_gp())
}

caret_rvm <- function() {
  list(
    label = "Relevance Vector Machine (sparsebayes)",
    library = "sparsebayes",
    type = c("Regression", "Classification"),
    parameters = data.frame(parameter = "width", class = "numeric",
                            label = "Kernel width (0: learned)", stringsAsFactors = FALSE),
    grid = function(x, y, len = NULL, search = "grid") {
      h <- caret_median_width(x)
      len <- max(1L, len %||% 3L)
      width <- if (search == "grid") h * c(1, 2, 0.5, 4, 0.25, 8, 0.125)[seq_len(min(len, 8L) - 1L)]
               else h * 2^stats::runif(len - 1L, -3, 3)
      data.frame(width = c(0, width))
    },
    fit = function(x, y, wts, param, lev, last, classProbs, ...) {
      dots <- list(...)
      dots$weights <- NULL
      kernel <- caret_kernel(param$width, dots$kernel)
      dots$kernel <- NULL
      caret_fit_call("rvm", x, y, wts, c(list(kernel = kernel), dots))
    },
    predict = function(modelFit, newdata, submodels = NULL) {
      newdata <- caret_newdata(modelFit, newdata)
      if (is.null(modelFit$levels)) return(unname(predict(modelFit, newdata)))
      as.character(predict(modelFit, newdata, type = "class"))
    },
    prob = function(modelFit, newdata, submodels = NULL) {
      p <- predict(modelFit, caret_newdata(modelFit, newdata), type = "prob")
      as.data.frame(unclass(p), optional = TRUE)  # columns named by the class levels
    },
    # Simplest first: wider kernels are smoother; learned widths (one per
    # input, width 0 or NA) are the most flexible, last.
    sort = function(x) x[order(-ifelse(is.na(x$width) | x$width == 0, -Inf, x$width)), , drop = FALSE],
    levels = function(x) x$levels,
    varImp = function(object, ...) caret_input_relevance(object),
    tags = c("Kernel Method", "Relevance Vector Machines", "Radial Basis Function", "Bayesian Model",
             "Implicit Feature Selection")
  )
}

caret_ard <- function() {
  priors <- c("auto", "none", "RIC", "BIC", "AIC")
  list(
    label = "Joint Model-and-Data ARD Regression (sparsebayes)",
    library = "sparsebayes",
    type = "Regression",
    parameters = data.frame(parameter = "prior", class = "character",
                            label = "Prior on the precisions (price per effective parameter)", stringsAsFactors = FALSE),
    grid = function(x, y, len = NULL, search = "grid") {
      len <- min(max(1L, len %||% 3L), length(priors))
      chosen <- if (search == "grid") priors[seq_len(len)] else c("auto", sample(priors[-1L], len - 1L))
      data.frame(prior = chosen, stringsAsFactors = FALSE)
    },
    fit = function(x, y, wts, param, lev, last, classProbs, ...) {
      dots <- list(...)
      dots$weights <- NULL
      dots$prior <- NULL
      caret_fit_call("ard", x, y, wts, c(list(prior = caret_prior(param$prior)), dots))
    },
    predict = function(modelFit, newdata, submodels = NULL) unname(predict(modelFit, caret_newdata(modelFit, newdata))),
    prob = NULL,
    # Simplest first: the larger the price per effective parameter, the
    # sparser the fit. RIC's log(d) and BIC's log(n)/2 are the dearest,
    # AIC's 1 next; "auto" is between RIC and nearly 0 (d << n), so before
    # the flat prior, the densest.
    sort = function(x) {
      p <- as.character(x$prior)
      rank <- match(p, c("RIC", "BIC", "AIC", "auto", "none"))
      rank[is.na(rank)] <- 2.5 + suppressWarnings(-as.numeric(p[is.na(rank)]))  # a number: larger price, simpler
      x[order(rank), , drop = FALSE]
    },
    levels = NULL,
    varImp = function(object, ...) {
      features <- setdiff(colnames(object$x), "(Intercept)")
      lbf <- log_bayes_factors(object)
      value <- unname(lbf[features])
      value[is.na(value)] <- 0  # pruned: the evidence keeps no weight
      data.frame(Overall = pmax(value, 0), row.names = features)
    },
    tags = c("Linear Regression", "Bayesian Model", "Implicit Feature Selection", "Robust Methods")
  )
}

caret_sparse_gp <- function() {
  list(
    label = "Sparse Gaussian Process (sparsebayes)",
    library = "sparsebayes",
    type = "Regression",
    parameters = data.frame(parameter = "inducing", class = "numeric", label = "Inducing points",
                            stringsAsFactors = FALSE),
    grid = function(x, y, len = NULL, search = "grid") {
      n <- NROW(x)
      len <- max(1L, len %||% 3L)
      m <- if (search == "grid") min(50, n) * c(1, 2, 0.5, 4, 0.25, 8)
           else c(min(50, n), exp(stats::runif(len - 1L, log(10), log(max(10, min(n, 400))))))
      m <- unique(pmax(1, pmin(n, round(m))))
      data.frame(inducing = m[seq_len(min(len, length(m)))])
    },
    fit = function(x, y, wts, param, lev, last, classProbs, ...) {
      dots <- list(...)
      dots$weights <- NULL
      dots$inducing <- NULL
      caret_fit_call("sparse_gp", x, y, wts, c(list(inducing = inducing_cap(param$inducing, x, wts)), dots))
    },
    predict = function(modelFit, newdata, submodels = NULL) unname(predict(modelFit, caret_newdata(modelFit, newdata))),
    prob = NULL,
    sort = function(x) x[order(x$inducing), , drop = FALSE],  # fewer inducing points, simpler
    levels = NULL,
    varImp = function(object, ...) caret_input_relevance(object),
    tags = c("Kernel Method", "Gaussian Process", "Radial Basis Function", "Bayesian Model")
  )
}

# Half the median distance between the standardised inputs (the median
# heuristic of the fits, which run with scale = TRUE).
caret_median_width <- function(x) {
  x <- if (is.data.frame(x)) stats::model.matrix(~ ., x)[, -1L, drop = FALSE] else as.matrix(x)
  default_width(apply_scaling(x, input_scaling(x, TRUE)))
}

# The kernel of a grid point: `width` 0 (or NA) is the fit's learned
# default (one width per input for a regression, one for all inputs for a
# classifier; a kernel given with width "learn" keeps it), a positive
# number one width for all inputs; `multiple` (parsnip's width_multiple)
# scales the default widths; `kernel` a kernel object or name from
# train()'s `...`.
caret_kernel <- function(width, kernel = NULL, multiple = NULL) {
  kernel <- as_kernel(kernel %||% "gaussian")
  learn <- length(width) == 1L && (is.na(width) || identical(as.numeric(width), 0))
  if (!kernel_has_width(kernel)) {
    if (!learn)
      stop_arg("kernel", sprintf("is a %s kernel, which has no width; tune it with tuneGrid = data.frame(width = 0).",
                                 kernel$type))
    if (!is.null(multiple))
      stop_arg("width_multiple", sprintf("scales a kernel width; the %s kernel has none.", kernel$type))
    return(kernel)
  }
  # 0: a kernel that asks to learn keeps its rule ("learn": per input), any other the fit's default
  if (!learn) kernel$width <- check_number(width, "width", lower = 0, open_lower = TRUE)
  else if (!is_learned_width(kernel)) kernel$width <- NULL
  if (!is.null(multiple)) {
    if (!learn) stop_arg("width_multiple", "scales the default widths; give it or `width`, not both.")
    kernel$multiple <- check_number(multiple, "width_multiple", lower = 0, open_lower = TRUE)
  }
  kernel
}

# A prior of the grid: a name, or a number given as one (a character column
# of a tuneGrid holds numbers as text).
caret_prior <- function(prior) {
  prior <- as.character(prior)
  value <- suppressWarnings(as.numeric(prior))
  if (is.na(value)) prior else value
}

# Fits `fitter` to caret's x and y by a call that names its data (the fit's
# `call` holds the symbols, not copies of the data). Numeric inputs go to
# the matrix interface, a data frame with factors to the formula interface.
caret_fit_call <- function(fitter, x, y, wts, args) {
  weights <- wts
  # Arguments that are objects (a kernel) are named too, so the call shows
  # `kernel = kernel` rather than its deparsed value.
  local_names <- c("fitter", "x", "y", "wts", "args", "weights", "data", "formula", "call", "local_names", "nm")
  for (nm in setdiff(names(args), c("", local_names))) {
    if (is.atomic(args[[nm]]) && length(args[[nm]]) <= 1L) next
    assign(nm, args[[nm]])
    args[[nm]] <- as.name(nm)
  }
  if (is.data.frame(x) && !all(vapply(x, is.numeric, logical(1)))) {
    data <- x
    data$.outcome <- y
    formula <- .outcome ~ .
    call <- c(list(quote(formula), data = quote(data)), if (!is.null(wts)) list(weights = quote(weights)), args)
  } else {
    x <- as.matrix(x)
    call <- c(list(quote(x), quote(y)), if (!is.null(wts)) list(weights = quote(weights)), args)
  }
  do.call(fitter, call)
}

# A number of inducing points cut to the distinct rows of positive weight
# (a bootstrap resample repeats rows, which sparse_gp() pools).
inducing_cap <- function(inducing, x, wts) {
  rows <- if (is.null(wts)) x else x[wts > 0, , drop = FALSE]
  min(inducing, sum(!duplicated(rows)))
}

# New inputs in the form the fit was made with.
caret_newdata <- function(fit, newdata) {
  if (!is.null(fit$terms)) return(as.data.frame(newdata))
  as.matrix(newdata)
}

caret_input_relevance <- function(object) {
  kernel <- if (inherits(object, "sb_rvm_multiclass")) object$models[[1L]]$kernel else object$kernel
  inputs <- input_names(object$x)
  if (length(inputs) > 1L && (!is.numeric(kernel$width) || length(kernel$width) == 1L))
    stop_arg("object", "has one kernel width for all inputs, which ranks no input; widths learned per input (width = 0 ",
             "in the tuning grid of a regression, or kernel = kernel_gaussian(\"learn\") in train()) do, or ",
             "varImp(fit, useModel = FALSE) gives caret's model-free importance.")
  r <- input_relevance(object)
  data.frame(Overall = r$relevance, row.names = r$input)
}
