# Multiclass RVM classifiers. The default is one multinomial (softmax) model
# over K latent functions on one basis, each class with its own relevance
# vectors ("multinomial_shared": one set for all classes;
# inst/include/sparsebayes/multinomial.hpp); `multiclass = "one_vs_rest"`
# fits one binary RVM per class against the rest and normalises their
# probabilities. Both are "sb_rvm_multiclass" objects whose `models` hold
# one "sb_rvm" per class: a one-against-the-rest model, or for a
# multinomial fit class k's latent function (its weights, their covariance
# block and its precisions; its own fitted values are class k's softmax
# probabilities).

# The multinomial fit needs the fast solver and takes no offset (`multiclass`
# as given to rvm()).
check_multinomial <- function(multiclass, method, wo) {
  if (multiclass == "one_vs_rest") return(multiclass)
  if (method != "fast")
    stop_arg("method", sprintf("must be \"fast\" for a multinomial classifier of more than two classes (got \"%s\"); ",
                               method), "or give multiclass = \"one_vs_rest\".")
  if (!is.null(wo$offset))
    stop_arg("offset", "is not supported by the multinomial classifier of more than two classes; ",
             "give multiclass = \"one_vs_rest\".")
  multiclass
}

# The multinomial fit of problem p on its design: the core's joint fit, then
# one view per class through rvm()'s fit_one() (its `res` argument).
fit_multinomial <- function(p, call, design, fit_one) {
  if (!likelihood_of(p$family)$canonical)  # the softmax is the multinomial logit
    stop_arg("family", sprintf("%s(link = \"%s\") has two classes; give multiclass = \"one_vs_rest\" for more.",
                               p$family$family, p$family$link))
  y <- p$y
  lev <- levels(y)
  K <- length(lev)
  indicators <- outer(as.integer(y), seq_len(K), "==") + 0
  control <- p$solver$control
  # No latent offset: a prior mean of the log class shares (as the width
  # learner's GP classifier has) lost held-out log loss on Zoo (0.452 against
  # 0.379, its small classes held down) and Glass (bench/RESULTS.md).
  res <- .sb_fit_multinomial(design$Phi, indicators, p$wo$weights %||% numeric(0), matrix(0, 0, 0),
                             p$multiclass == "multinomial_shared", solver_problem("fast"),
                             core_settings(control, fit_reporter("multinomial fast solver", control$verbose)))
  S <- length(res$relevant)
  prob <- softmax(res$fitted)
  models <- lapply(seq_len(K), function(k) {
    own <- is.finite(res$alpha[res$relevant, k])  # class k's columns (all of them with shared precisions)
    block <- ((k - 1L) * S + seq_len(S))[own]
    view <- list(relevant = res$relevant[own], mu = res$W[own, k], Sigma = res$Sigma[block, block, drop = FALSE],
                 alpha = res$alpha[, k], lambda = NA_real_, log_evidence = res$log_evidence,
                 log_posterior = res$log_evidence, fitted = res$fitted[, k], trace = res$trace,
                 iterations = res$iterations, converged = res$converged, jitter_events = res$jitter_events,
                 mode_converged = res$mode_converged, class_view = k)
    fit <- fit_one(indicators[, k], res = view)
    fit$levels <- c(paste0("not ", lev[k]), lev[k])
    fit$fitted.values[] <- prob[, k]
    fit$residuals[] <- indicators[, k] - prob[, k]
    fit
  })
  names(models) <- lev
  names_w <- design$names[res$relevant]
  W <- res$W
  dimnames(W) <- list(names_w, lev)
  Sigma <- res$Sigma
  dimnames(Sigma) <- rep(list(paste(rep(lev, each = S), names_w, sep = ":")), 2L)
  fit <- structure(list(call = call, models = models, levels = lev, y = y, x = p$x, kernel = problem_kernel(p),
                        family = p$family, method = p$solver$method, multiclass = p$multiclass,
                        relevant = res$relevant, weights = W, Sigma = Sigma, logLik = res$log_evidence, converged = res$converged,
                        iterations = res$iterations),
                   class = c("sb_rvm_multiclass", "sparsebayes"))
  warn_not_converged(fit, res)
  fit
}

softmax <- function(F) {
  E <- exp(F - apply(F, 1L, max))
  E / rowSums(E)
}

# Class probabilities of a multinomial fit at inputs x (NULL: the training
# inputs): the softmax of the latent functions at the posterior mode, or
# ("integrated") averaged over their joint Gaussian posterior N(m_i, V_i)
# at each row by a fixed quasi-random sample (a Halton sequence mapped to
# normals, antithetic), so that the same fit and inputs always give the
# same probabilities and the user's random number stream is not touched.
softmax_prob <- function(object, x, probability = "mode") {
  m <- object$models[[1L]]
  m$relevant <- object$relevant  # the columns of any class
  Phi <- relevant_design(m, if (is.null(x)) m$x else x)
  W <- unname(object$weights)
  K <- ncol(W)
  S <- nrow(W)
  mean <- Phi %*% W
  if (probability == "mode") return(`dimnames<-`(softmax(mean), list(NULL, object$levels)))
  V <- array(0, c(nrow(Phi), K, K))
  for (k in seq_len(K)) for (l in seq_len(k)) {
    B <- object$Sigma[(k - 1L) * S + seq_len(S), (l - 1L) * S + seq_len(S), drop = FALSE]
    V[, k, l] <- V[, l, k] <- rowSums((Phi %*% B) * Phi)
  }
  Z <- latent_draws(K)
  p <- t(vapply(seq_len(nrow(Phi)), function(i) {
    if (anyNA(mean[i, ])) return(rep(NA_real_, K))
    L <- chol_psd(V[i, , ])
    colMeans(softmax(sweep(Z %*% L, 2L, mean[i, ], "+")))
  }, numeric(K)))
  if (K == 1L) p <- t(p)
  dimnames(p) <- list(NULL, object$levels)
  p
}

# 2 x 256 antithetic standard normal draws in K dimensions from the first K
# primes' Halton sequence.
latent_draws <- function(K, half = 256L) {
  primes <- 2L
  while (length(primes) < K) {  # the first K primes: Halton bases must be coprime
    cand <- primes[length(primes)] + 1L
    while (any(cand %% primes == 0L)) cand <- cand + 1L
    primes <- c(primes, cand)
  }
  radical <- function(i, b) {
    f <- 1; r <- 0
    while (any(i > 0)) {
      f <- f / b
      r <- r + f * (i %% b)
      i <- i %/% b
    }
    r
  }
  U <- vapply(primes[seq_len(K)], function(b) radical(seq_len(half), b), numeric(half))
  Z <- stats::qnorm(matrix(U, half, K))
  rbind(Z, -Z)
}

# An upper factor R with R'R = V for a positive semi-definite V (a pivoted
# Cholesky; the latent covariance of a softmax is often singular along 1).
chol_psd <- function(V) {
  R <- suppressWarnings(chol(V, pivot = TRUE, tol = 1e-12 * max(diag(V), 1e-300)))
  r <- attr(R, "rank")
  if (r < nrow(V)) R[(r + 1L):nrow(V), ] <- 0
  R[, order(attr(R, "pivot")), drop = FALSE]
}

is_multinomial <- function(x) isTRUE(x$multiclass %in% c("multinomial", "multinomial_shared"))

#' @export
print.sb_rvm_multiclass <- function(x, ...) {
  cat(sprintf("Relevance vector machine classifier, %d classes (%s)\n", length(x$levels),
              switch(x$multiclass, multinomial = "multinomial", multinomial_shared = "multinomial, shared sparsity",
                     "one against the rest")))
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n  "), "\n", sep = "")
  cat(sprintf("Kernel: %s\n", kernel_label(x$models[[1L]])))
  if (is_multinomial(x)) {
    per_class <- if (x$multiclass == "multinomial")
      sprintf(" (per class: %s)", paste(vapply(x$models, function(m) length(m$relevant), 0L), collapse = ", "))
    cat(sprintf("Relevance vectors: %d%s; log evidence %s%s\n", nrow(x$weights),
                per_class %||% ", shared by the classes", format(x$logLik, digits = 6),
                if (x$converged) "" else " (NOT converged)"))
  } else {
    rv <- vapply(x$models, function(m) length(m$relevant), integer(1))
    cat("Relevance vectors per class: ", paste(sprintf("%s %d", names(rv), rv), collapse = ", "), "\n", sep = "")
  }
  cat(sprintf("Training error: %.1f%%\n", 100 * mean(class_of(training_prob(x), x$levels) != x$y)))
  invisible(x)
}

#' @export
summary.sb_rvm_multiclass <- function(object, ...) {
  p <- training_prob(object)
  y <- object$y
  w <- prior_weights(object) %||% rep(1, length(y))  # a weighted fit's scores count a row w times
  truth <- outer(as.integer(y), seq_along(object$levels), "==")
  structure(list(print = utils::capture.output(print(object)), models = lapply(object$models, summary),
                 multinomial = is_multinomial(object), temperature = object$temperature,
                 log_loss = sum(w * -log(pmax(rowSums(p * truth), 1e-15))) / sum(w),
                 brier = sum(w * rowSums((p - truth)^2)) / sum(w),
                 confusion = stats::xtabs(w ~ observed + predicted,
                                          data.frame(w = w, observed = y, predicted = class_of(p, object$levels)))),
            class = "summary.sb_rvm_multiclass")
}

#' @export
print.summary.sb_rvm_multiclass <- function(x, ...) {
  writeLines(x$print)
  if (!is.null(x$confusion)) {
    cat(sprintf("\nTraining log loss %.4f, Brier score %.4f; confusion table (rows: observed, columns: predicted):\n",
                x$log_loss, x$brier))
    print(x$confusion)
  }
  cat(temperature_line(x$temperature))
  if (isTRUE(x$multinomial)) return(invisible(x))
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
#' Classes or class probabilities of a multiclass RVM classifier at new
#' inputs. A multinomial fit (the default) gives the softmax of its K latent
#' functions at the posterior mode, or with `probability = "integrated"`
#' averaged over their joint Gaussian posterior at each input (a fixed
#' quasi-random sample of 512 draws: the same inputs always give the same
#' probabilities, and R's random number stream is not used). A
#' one-against-the-rest fit normalises its binary models' moderated
#' probabilities. A fit with `rvm_control(temperature = "cv")` or a number
#' takes them to the power `t` and normalises (`fit$temperature`; for a
#' multinomial fit the probabilities at the mode, for which `t` was chosen).
#'
#' @param object A multiclass fit from [rvm()] (a factor response with more
#'   than two levels).
#' @param newdata New inputs as for [predict.sb_rvm()]; `NULL` for the training
#'   inputs.
#' @param type `"class"` (a factor) or `"prob"` (a matrix with one column per
#'   class, rows summing to one).
#' @param probability A multinomial fit: `"mode"` (the default: the softmax
#'   of the latent functions at the posterior mode) or `"integrated"` (the
#'   softmax averaged over their joint Laplace posterior). On 5-fold CV of
#'   iris, Glass, Vehicle and Zoo the mode had the lower held-out log loss
#'   with shared precisions on every set and width tried (iris 0.190 against
#'   0.219, Zoo 0.415 against 0.550), and with per-class precisions on two
#'   of four (bench/RESULTS.md). Far
#'   from the data both give the softmax of the bias alone (a uniform
#'   distribution when the bias is not relevant). A one-against-the-rest fit
#'   takes only `"integrated"` (its binary models' moderated probabilities).
#' @param ... Unused.
#' @return A factor or a probability matrix.
#' @examples
#' fit <- rvm(Species ~ ., data = iris)
#' table(predict(fit), iris$Species)
#' @export
predict.sb_rvm_multiclass <- function(object, newdata = NULL, type = c("class", "prob"),
                                      probability = c("mode", "integrated"), ...) {
  dots <- names(list(...))
  if (length(bounds <- intersect(dots, c("interval", "se.fit", "level"))))
    stop_arg(bounds[1L], sprintf("is for one latent function; a fit of %d classes gives class probabilities ",
                                 length(object$levels)),
             "(type = \"prob\"), and each class's model in `object$models` its own intervals.")
  check_dots_empty(...)
  type <- match_arg(type)
  probability <- if (missing(probability) && !is_multinomial(object)) "integrated" else match_arg(probability)
  if (!is_multinomial(object) && probability == "mode")
    stop_arg("probability", "\"mode\" is for a multinomial fit; a one-against-the-rest fit normalises its binary ",
             "models' moderated probabilities.")
  if (is.null(newdata)) {
    p <- class_prob(object, NULL, probability)
    return(pad_training(object, if (type == "prob") p else class_of(p, object$levels)))
  }
  p <- class_prob(object, newdata, probability)
  if (type == "prob") p else class_of(p, object$levels)
}

# Each binary model's moderated probability at newdata (NULL: the fitted
# cases, unpadded), normalised across classes.
class_prob <- function(object, newdata, probability = "mode") {
  if (is_multinomial(object)) {
    p <- softmax_prob(object, if (is.null(newdata)) NULL else new_inputs(object$models[[1L]], newdata), probability)
    return(if (probability == "mode") temper(p, object$temperature) else p)  # t was chosen for the mode's
  }
  n <- if (is.null(newdata)) length(object$y) else nrow(new_inputs(object$models[[1L]], newdata))
  p <- vapply(object$models, function(m) {
    m$na.action <- NULL
    predict(m, newdata, type = "response")
  }, numeric(n))
  p <- matrix(p, ncol = length(object$levels), dimnames = list(NULL, object$levels))
  temper(p / rowSums(p), object$temperature)
}

training_prob <- function(object) class_prob(object, NULL)

class_of <- function(p, levels) factor(levels[max.col(p, ties.method = "first")], levels = levels)

#' @export
coef.sb_rvm_multiclass <- function(object, ...) if (is_multinomial(object)) object$weights else lapply(object$models, coef)

#' @export
logLik.sb_rvm_multiclass <- function(object, ...) {
  if (is_multinomial(object)) return(structure(object$logLik, df = NA_real_, nobs = stats::nobs(object), class = "logLik"))
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
plot.sb_rvm_multiclass <- function(x, which = c("fit", "width", "reliability"), legend = TRUE, ...) {
  which <- match_arg(which)
  check_flag(legend, "legend")
  if (which == "reliability") {
    plot_reliability(x, ...)
    return(invisible(x))
  }
  if (which == "width") {
    plot_width_search(x, legend = legend, ...)
    return(invisible(x))
  }
  if (!is.null(x$kernel) && ncol(x$x) == 2L) plot_classes(x, legend = legend, ...)
  else plot_class_probabilities(x, legend = legend, ...)
  invisible(x)
}

#' @export
vcov.sb_rvm_multiclass <- function(object, ...) if (is_multinomial(object)) object$Sigma else lapply(object$models, vcov)
