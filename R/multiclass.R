# Methods for multiclass RVM classifiers: one binary RVM per class against
# the rest, with probabilities normalised across classes.

#' @export
print.sb_rvm_multiclass <- function(x, ...) {
  cat(sprintf("Relevance vector machine classifier, %d classes (one against the rest)\n", length(x$levels)))
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n  "), "\n", sep = "")
  cat(sprintf("Kernel: %s\n", kernel_label(x$models[[1L]])))
  rv <- vapply(x$models, function(m) length(m$relevant), integer(1))
  cat("Relevance vectors per class: ", paste(sprintf("%s %d", names(rv), rv), collapse = ", "), "\n", sep = "")
  cat(sprintf("Training error: %.1f%%\n", 100 * mean(class_of(training_prob(x), x$levels) != x$y)))
  invisible(x)
}

#' @export
summary.sb_rvm_multiclass <- function(object, ...) {
  structure(list(print = utils::capture.output(print(object)), models = lapply(object$models, summary)),
            class = "summary.sb_rvm_multiclass")
}

#' @export
print.summary.sb_rvm_multiclass <- function(x, ...) {
  writeLines(x$print)
  for (k in names(x$models)) {
    cat(sprintf("\n--- class %s against the rest ---\n", k))
    s <- x$models[[k]]
    cat(sprintf("%d relevance vectors, deviance %s, log evidence %s, %s\n", s$n_relevant,
                format(s$deviance, digits = 4), format(s$logLik, digits = 6),
                if (s$converged) "converged" else "NOT converged"))
  }
  invisible(x)
}

#' Predict from a multiclass RVM classifier
#'
#' Classes or class probabilities of a one-against-the-rest RVM classifier
#' at new inputs: each class's binomial fit gives a probability, and the
#' probabilities are normalised to sum to one.
#'
#' @param object A multiclass fit from [rvm()] (a factor response with more
#'   than two levels).
#' @param newdata New inputs as for [predict.sb_rvm()]; `NULL` for the training
#'   inputs.
#' @param type `"class"` (a factor) or `"prob"` (a matrix with one column per
#'   class, rows summing to one: each binary model's moderated probability,
#'   normalised).
#' @param ... Unused.
#' @return A factor or a probability matrix.
#' @examples
#' fit <- rvm(Species ~ ., data = iris)
#' table(predict(fit), iris$Species)
#' @export
predict.sb_rvm_multiclass <- function(object, newdata = NULL, type = c("class", "prob"), ...) {
  type <- match_arg(type)
  if (is.null(newdata)) {
    p <- training_prob(object)
    return(pad_training(object, if (type == "prob") p else class_of(p, object$levels)))
  }
  p <- class_prob(object, newdata)
  if (type == "prob") p else class_of(p, object$levels)
}

# Each binary model's moderated probability at newdata (NULL: the fitted
# cases, unpadded), normalised across classes.
class_prob <- function(object, newdata) {
  n <- if (is.null(newdata)) length(object$y) else nrow(new_inputs(object$models[[1L]], newdata))
  p <- vapply(object$models, function(m) {
    m$na.action <- NULL
    predict(m, newdata, type = "response")
  }, numeric(n))
  p <- matrix(p, ncol = length(object$levels), dimnames = list(NULL, object$levels))
  p / rowSums(p)
}

training_prob <- function(object) class_prob(object, NULL)

class_of <- function(p, levels) factor(levels[max.col(p, ties.method = "first")], levels = levels)

#' @export
coef.sb_rvm_multiclass <- function(object, ...) lapply(object$models, coef)

#' @export
logLik.sb_rvm_multiclass <- function(object, ...) {
  ll <- lapply(object$models, logLik)
  structure(sum(unlist(ll)), df = sum(vapply(ll, attr, numeric(1), "df")), nobs = stats::nobs(object),
            class = "logLik")
}

#' @export
fitted.sb_rvm_multiclass <- function(object, ...) predict(object, type = "prob")

#' @export
residuals.sb_rvm_multiclass <- function(object, ...) {
  r <- stats::model.matrix(~ y - 1, data.frame(y = object$y)) - training_prob(object)
  colnames(r) <- object$levels
  stats::naresid(object$na.action, r)
}

#' @rdname plot.sb_rvm
#' @export
plot.sb_rvm_multiclass <- function(x, which = c("fit", "width"), legend = TRUE, ...) {
  which <- match_arg(which)
  check_flag(legend, "legend")
  if (which == "width") {
    plot_width_search(x, legend = legend, ...)
    return(invisible(x))
  }
  if (!is.null(x$kernel) && ncol(x$x) == 2L) plot_classes(x, legend = legend, ...)
  else plot_class_probabilities(x, legend = legend, ...)
  invisible(x)
}

#' @export
vcov.sb_rvm_multiclass <- function(object, ...) lapply(object$models, vcov)
