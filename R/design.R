# Building design matrices: model matrices from formulas, input scaling and
# kernel bases. Used by every fitting function and by predict.

# Model matrix of a formula, without the intercept column (a bias or an
# intercept weight is added by the model itself).
formula_design <- function(terms, frame, contrasts = NULL) {
  x <- stats::model.matrix(terms, frame, contrasts.arg = contrasts)
  keep <- colnames(x) != "(Intercept)"
  out <- x[, keep, drop = FALSE]
  attr(out, "contrasts") <- attr(x, "contrasts")
  if (ncol(out) == 0L) stop_arg("formula", "has no predictors.")
  out
}

input_scaling <- function(x, scale) {
  if (!scale) return(NULL)
  center <- colMeans(x)
  sds <- sqrt(colSums(sweep(x, 2L, center)^2) / max(nrow(x) - 1L, 1L))
  sds[!is.finite(sds) | sds == 0] <- 1  # constant columns are only centred
  list(center = center, scale = sds)
}

apply_scaling <- function(x, scaling) {
  if (is.null(scaling)) return(x)
  sweep(sweep(x, 2L, scaling$center), 2L, scaling$scale, "/")
}

# Input matrix of newdata for a fitted model: rebuilds factors from the
# training levels for formula fits and checks columns for matrix fits.
new_inputs <- function(object, newdata) {
  if (!is.null(object$terms)) {
    tt <- stats::delete.response(object$terms)
    if (!is.data.frame(newdata) && !is.list(newdata))
      stop_arg("newdata", "must be a data frame with the variables of the formula.")
    missing_vars <- setdiff(all.vars(tt), names(newdata))
    if (length(missing_vars))
      stop_arg("newdata", sprintf("lacks the variable(s) %s.", paste(missing_vars, collapse = ", ")))
    mf <- tryCatch(
      stats::model.frame(tt, newdata, na.action = stats::na.pass, xlev = object$xlevels),
      error = function(e) stop_arg("newdata", conditionMessage(e)))
    x <- formula_design(tt, mf, object$contrasts)
  } else {
    p <- if (is.null(object$kernel)) object$n_basis else ncol(object$x)
    what <- if (is.null(object$kernel)) "basis functions" else "input columns"
    if (is.data.frame(newdata)) newdata <- as.matrix(newdata)
    if (is.numeric(newdata) && is.null(dim(newdata))) {
      if (p == 1L) newdata <- matrix(newdata, ncol = 1L)
      else if (length(newdata) == p) newdata <- matrix(newdata, nrow = 1L)
      else stop_arg("newdata", sprintf("must be a matrix with %d columns (%s).", p, what))
    }
    if (!is.matrix(newdata) || !is.numeric(newdata)) stop_arg("newdata", "must be a numeric matrix.")
    if (ncol(newdata) != p)
      stop_arg("newdata", sprintf("has %d columns but the model was fitted with %d %s.", ncol(newdata), p, what))
    train_names <- if (is.null(object$kernel)) names(object$alpha) else colnames(object$x)
    if (!is.null(train_names) && !is.null(colnames(newdata)) && all(train_names %in% colnames(newdata)))
      newdata <- newdata[, train_names, drop = FALSE]
    x <- newdata
  }
  storage.mode(x) <- "double"
  x
}
