# Building design matrices: model matrices from formulas, input scaling and
# kernel bases. Used by every fitting function and by predict.

# Model matrix of a formula, without the intercept column (a bias or an
# intercept weight is added by the model itself) unless `intercept` keeps it.
formula_design <- function(terms, frame, contrasts = NULL, intercept = FALSE) {
  x <- stats::model.matrix(terms, frame, contrasts.arg = contrasts)
  keep <- intercept | colnames(x) != "(Intercept)"
  out <- x[, keep, drop = FALSE]
  attr(out, "contrasts") <- attr(x, "contrasts")
  if (ncol(out) == 0L) stop_arg("formula", "has no predictors.")
  out
}

# The formula method of every model: builds the model frame of the call
# `mcall` in `env` (with `weights` and `offset` evaluated there, as lm does),
# fits `fitter(x, y, ...)` on its design and keeps what predict needs to
# rebuild the design for new data. The stored call names the generic, so
# update() and eval(getCall()) work.
fit_formula <- function(mcall, env, fitter, generic, ..., keep_intercept = FALSE) {
  mf <- mcall[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"), names(mcall), 0L))]
  mf$drop.unused.levels <- TRUE
  mf[[1L]] <- quote(stats::model.frame)
  mf <- eval(mf, env)
  if (nrow(mf) == 0L)
    stop("0 (non-NA) cases: every row of the data has a missing value in the variables of the formula.", call. = FALSE)
  mt <- attr(mf, "terms")
  y <- stats::model.response(mf)
  if (is.null(y)) stop_arg("formula", "has no response.")
  x <- formula_design(mt, mf, intercept = keep_intercept)
  case_weights <- stats::model.weights(mf)
  offset <- stats::model.offset(mf)
  # Only what was given is passed on, so a model without weights or offsets
  # refuses them by its own argument checks.
  extra <- c(if (!is.null(case_weights)) list(weights = case_weights), if (!is.null(offset)) list(offset = offset))
  fit <- do.call(fitter, c(list(x, y), extra, list(...)))
  mcall[[1L]] <- as.name(generic)
  parts <- list(call = mcall, terms = mt, xlevels = stats::.getXlevels(mt, mf),
                contrasts = attr(x, "contrasts"), na.action = attr(mf, "na.action"))
  fit <- name_cases(fit, rownames(mf))
  fit[names(parts)] <- parts
  if (!is.null(fit$models)) fit$models <- lapply(fit$models, function(m) { m[names(parts)] <- parts; m })
  fit
}

# Names the per-sample vectors of a fit by the data's row names, as lm does,
# so that diagnostics report data rows.
name_cases <- function(fit, case_names) {
  if (is.null(case_names)) return(fit)
  for (field in c("fitted.values", "residuals", "linear.predictors"))
    if (length(fit[[field]]) == length(case_names)) names(fit[[field]]) <- case_names
  if (!is.null(fit$models)) fit$models <- lapply(fit$models, name_cases, case_names)
  fit
}

# The call of a fitting method as the user's call of the generic.
generic_call <- function(call, generic) {
  call[[1L]] <- as.name(generic)
  call
}

# A Gaussian fit made on y - offset, as one of y: the offset is added back
# to the fitted values and kept for predict (NULL when there is none).
add_offset <- function(fit, offset) {
  if (is.null(offset)) return(fit)
  fit$offset <- offset
  fit$y <- fit$y + offset
  fit$fitted.values <- fit$fitted.values + offset
  fit
}

# The offset of the rows of newdata (0 for a fit without one; the training
# offset without newdata): for formula
# fits the offset() terms and the `offset` argument evaluated in newdata, as
# predict.lm does; for matrix fits the `offset` given to predict.
prediction_offset <- function(object, newdata, offset, n) {
  if (is.null(newdata)) {
    if (!is.null(offset)) stop_arg("offset", "is for `newdata`; the fit keeps its own.")
    return(if (is.null(object$offset)) 0 else object$offset)
  }
  if (is.null(object$offset) && !isTRUE(object$chunks$offset)) {  # a fit from chunks keeps whether it had one
    if (!is.null(offset)) stop_arg("offset", "was given, but the model was fitted without an offset.")
    return(0)
  }
  if (!is.null(object$terms)) {
    # a value given here would be silently replaced by the one from newdata
    if (!is.null(offset))
      stop_arg("offset", "is for fits from a matrix; a formula fit evaluates its offset() terms and its `offset` ",
               "argument in `newdata`, as predict.lm() does: put the offset's variables in `newdata`.")
    tt <- stats::delete.response(object$terms)
    mf <- stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels)
    off <- stats::model.offset(mf)
    if (is.null(off)) off <- rep(0, nrow(mf))
    if (!is.null(object$call$offset)) {
      extra <- eval(object$call$offset, newdata, environment(object$terms))
      if (!is.numeric(extra) || !length(extra) %in% c(1L, nrow(mf)))
        stop_arg("newdata", sprintf("gives %d offset values for %d rows: the fit's `offset = %s` is evaluated in ",
                                    length(extra), nrow(mf), paste(deparse(object$call$offset), collapse = " ")),
                 "`newdata`, as predict.lm() does; fit with a variable of `data` (or an offset() term) instead.")
      off <- off + extra
    }
    return(off)
  }
  if (is.null(offset))
    stop_arg("offset", "is needed: the model was fitted with an offset; give one value per row of `newdata`.")
  if (!is.numeric(offset) || any(!is.finite(offset))) stop_arg("offset", "must be finite numbers.")
  if (!length(offset) %in% c(1L, n)) stop_arg("offset", sprintf("has length %d but `newdata` has %d rows.", length(offset), n))
  offset
}

# Training means and sds of the columns, computed on each column divided by
# its largest magnitude so that values near the limits of double precision
# (1e300) neither overflow nor underflow. Constant columns get scale 1 and
# are centred, or, with keep_constant (an intercept column that is a model
# weight), left as they are; keep_constant also counts a column whose sd is
# below 1e-12 of its own largest magnitude as constant (relative to the
# column, so that X * 1e-200 is scaled like X).
# The moments come from .sb_column_moments(), R's arithmetic (the same numbers
# as sweep(), colMeans() and colSums() on the whole matrix) without their
# n x d temporaries: those made this the larger part of ard()'s time at
# n = 20000, d = 500.
#
# With prior `weights` (ard()) the moments are weighted, rows of weight 0
# left out, so that integer weights standardise like replicated rows: the
# centring decides what an intercept that the fit pruned stands for.
#
# A fit from chunks gives the `moments` (center, sd, size: the columns'
# largest magnitudes) of every row from its sums pass (chunk_moments()):
# the same scaling from another data backend, without reading rows.
input_scaling <- function(x, scale, keep_constant = FALSE, weights = NULL, moments = NULL) {
  if (!scale) return(NULL)
  moments <- moments %||% if (is.null(weights)) column_moments(x) else weighted_column_moments(x, weights)
  sds <- moments$sd
  const <- !is.finite(sds) | if (keep_constant) sds <= 1e-12 * moments$size else sds == 0
  sds[const] <- 1
  center <- moments$center
  if (keep_constant) center[const] <- 0
  list(center = center, scale = sds)
}

# Largest magnitude, mean and sd of every column.
column_moments <- function(x) {
  moments <- .sb_column_moments(x)
  dimnames(moments) <- list(NULL, colnames(x))
  size <- moments[1L, ]
  list(size = size, center = moments[2L, ] * size, sd = sqrt(moments[3L, ] / max(nrow(x) - 1L, 1L)) * size)
}

# The same with prior weights, on the rows of positive weight.
weighted_column_moments <- function(x, w) {
  keep <- w > 0
  x <- x[keep, , drop = FALSE]
  w <- w[keep]
  size <- apply(abs(x), 2L, max)
  size[!(size > 0) | !is.finite(size)] <- 1
  u <- sweep(x, 2L, size, "/")
  mu <- colSums(w * u) / sum(w)
  dof <- if (sum(w) > 1) sum(w) - 1 else sum(w)
  list(size = size, center = mu * size, sd = sqrt(colSums(w * sweep(u, 2L, mu)^2) / dof) * size)
}

apply_scaling <- function(x, scaling) {
  if (is.null(scaling)) return(x)
  if (is.matrix(x) && is.double(x)) {  # one pass, no copies; the attributes of x, as sweep() keeps them
    xs <- scaled_design(x, scaling, FALSE)
    attributes(xs) <- attributes(x)
    return(xs)
  }
  sweep(sweep(x, 2L, scaling$center), 2L, scaling$scale, "/")
}

# apply_scaling(cbind(`(Intercept)` = 1, x), scaling) for a numeric matrix x
# and the scaling of that design (NULL: none), in one allocation instead of
# the four n x d copies of cbind() and sweep().
scaled_design <- function(x, scaling, intercept) {
  if (is.null(scaling) && !intercept) return(x)
  k <- if (intercept) 1L else 0L
  s <- if (is.null(scaling)) list(center = rep(0, ncol(x) + k), scale = rep(1, ncol(x) + k)) else scaling
  cols <- seq_len(ncol(x)) + k
  xs <- .sb_scale_columns(x, s$center[cols], s$scale[cols], intercept)
  cn <- colnames(x)
  if (intercept) cn <- c("(Intercept)", if (is.null(cn)) character(ncol(x)) else cn)
  if (!is.null(rownames(x)) || !is.null(cn)) dimnames(xs) <- list(rownames(x), cn)
  xs
}

# Input matrix of newdata for a fitted model: rebuilds factors from the
# training levels for formula fits and checks columns for matrix fits.
new_inputs <- function(object, newdata) {
  if (!is.null(object$terms)) return(formula_newdata(object, newdata))
  p <- if (is.null(object$kernel)) object$n_basis else ncol(object$x)
  train_names <- if (is.null(object$kernel)) names(object$alpha) else colnames(object$x)
  numeric_newdata(newdata, p, train_names, if (is.null(object$kernel)) "basis functions" else "input columns")
}

# The design of a formula fit at newdata, factors with the training levels.
formula_newdata <- function(object, newdata, intercept = FALSE) {
  tt <- stats::delete.response(object$terms)
  if (!is.data.frame(newdata) && !is.list(newdata))
    stop_arg("newdata", "must be a data frame with the variables of the formula.")
  missing_vars <- setdiff(all.vars(tt), names(newdata))
  if (length(missing_vars))
    stop_arg("newdata", sprintf("lacks the variable(s) %s.", paste(missing_vars, collapse = ", ")))
  mf <- tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels),
                 error = function(e) stop_arg("newdata", conditionMessage(e)))
  x <- formula_design(tt, mf, object$contrasts, intercept)
  storage.mode(x) <- "double"
  x
}

# newdata of a matrix fit as a numeric matrix with the p training columns
# `names`: matched by name when newdata names every training column,
# refused when it names only some, by position otherwise (the fit had no
# names, or newdata has none or other ones). A vector is one column or one
# row.
numeric_newdata <- function(newdata, p, names, what) {
  if (is.data.frame(newdata)) newdata <- as.matrix(newdata)
  if (inherits(newdata, "Matrix")) newdata <- dense_matrix(newdata, "newdata")
  if (is.numeric(newdata) && is.null(dim(newdata))) {
    if (p == 1L) newdata <- matrix(newdata, ncol = 1L)
    else if (length(newdata) == p) newdata <- matrix(newdata, nrow = 1L)
    else stop_arg("newdata", sprintf("must be a matrix with %d columns (%s).", p, what))
  }
  if (!is.matrix(newdata) || !is.numeric(newdata)) stop_arg("newdata", "must be a numeric matrix.")
  newdata <- unique_column_names(newdata)
  given <- colnames(newdata)
  found <- if (is.null(names) || is.null(given)) FALSE else names %in% given
  if (all(found)) return(numeric_matrix(newdata[, names, drop = FALSE]))
  if (ncol(newdata) != p)
    stop_arg("newdata", sprintf("has %d columns but the model was fitted with %d %s.", ncol(newdata), p, what))
  if (any(found))
    stop_arg("newdata", sprintf("names some of the %s but lacks %s; give all of them, or unnamed columns in the training order.",
                                what, paste(names[!found], collapse = ", ")))
  numeric_matrix(newdata)
}

numeric_matrix <- function(x) {
  storage.mode(x) <- "double"
  x
}
