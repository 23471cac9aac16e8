#' Plot an RVM fit
#'
#' With one input: the data, the predictive mean with a band (a prediction
#' band for gaussian fits, a confidence band of the rate for poisson fits)
#' and the relevance vectors circled; for classifiers, the probability of
#' the second class. Classifiers with two inputs: the decision boundary
#' (p = 0.5, solid) and the p = 0.25 and 0.75 contours (dashed) over the
#' data, with the relevance vectors circled, as Tipping (2001, Fig. 4).
#' Otherwise: fitted against observed values, and residuals against fitted
#' values. `which = "components"` draws the contribution of each
#' sub-dictionary of an overcomplete dictionary (and the bias) to the fit,
#' as Schmolck and Everson (2007, Fig. 8); `which = "shrinkage"` plots each
#' basis function's least-squares weight (its projection
#' `phi' y / phi' phi`, the least-squares weight for orthogonal bases such as
#' wavelets) against its posterior mean weight, 0 where pruned (open
#' circles), as their Fig. 6. `which = "relevance"`, `"trajectory"` and
#' `"leverage"` are the diagnostics of joint ARD described in [plot.sb_ard()]
#' (`"trajectory"` needs a fit by a batch solver, which stores `path`).
#' `which = "width"` draws the log evidence (log posterior with a smoothness
#' prior) of every width tried by a fit with `width = "evidence"` (see
#' [kernels]) against the width on a log axis, with the chosen width and the
#' median-heuristic width marked.
#'
#' @param x A fitted [rvm()].
#' @param which `"fit"` (the default views above), `"components"`,
#'   `"shrinkage"`, `"relevance"`, `"trajectory"`, `"leverage"` or
#'   `"width"`.
#' @param level Coverage of the prediction band.
#' @param n_grid Number of grid points for the curve.
#' @param ... Passed to [graphics::plot()]; for the curve, probability and
#'   class views they override the view's own settings (`ylim`, `xlab`, ...).
#' @return `x`, invisibly.
#' @examples
#' plot(rvm(accel ~ times, data = MASS::mcycle))
#' @export
plot.sb_rvm <- function(x, which = c("fit", "components", "shrinkage", "relevance", "trajectory", "leverage", "width"),
                     level = 0.95, n_grid = 400L, ...) {
  which <- match_arg(which)
  check_number(level, "level", lower = 0, upper = 1, open_lower = TRUE)
  check_number(n_grid, "n_grid", lower = 2, integer = TRUE)
  p <- if (is.null(x$kernel)) 0L else ncol(x$x)
  family <- x$family$family
  if (which == "components") plot_components(x, ...)
  else if (which == "shrinkage") plot_shrinkage(x, ...)
  else if (which == "relevance") plot_relevance(x, ...)
  else if (which == "trajectory") plot_trajectory(x, ...)
  else if (which == "leverage") plot_leverage(x, ...)
  else if (which == "width") plot_width_search(x, ...)
  else if (p == 1L && family == "binomial") plot_probability(x, n_grid, ...)
  else if (p == 1L) plot_curve(x, level, n_grid, ...)
  else if (p == 2L && family == "binomial") plot_classes(x, ...)
  else plot_diagnostics(x, ...)
  invisible(x)
}

# The part of the fit each sub-dictionary (and the bias) contributes at the
# training inputs: one column per part.
component_contributions <- function(object) {
  parts <- column_parts(object)
  Phi <- relevant_design(object, object$x)
  labels <- c("(bias)", vapply(fit_kernels(object), function(k) utils::capture.output(print(k)), ""))
  out <- vapply(sort(unique(parts$part)), function(p) {
    j <- parts$part == p
    drop(Phi[, j, drop = FALSE] %*% object$weights[j])
  }, numeric(nrow(object$x)))
  out <- matrix(out, nrow = nrow(object$x))
  colnames(out) <- labels[sort(unique(parts$part)) + 1L]
  out
}

plot_components <- function(x, ...) {
  if (is.null(x$kernel) || ncol(x$x) != 1L) stop("which = \"components\" needs a kernel fit with one input.", call. = FALSE)
  contrib <- component_contributions(x)
  ord <- order(x$x[, 1L])
  op <- graphics::par(mfrow = c(ncol(contrib), 1L), mar = c(3, 4, 2, 1))
  on.exit(graphics::par(op))
  parts <- column_parts(x)$part
  for (k in seq_len(ncol(contrib))) {
    graphics::plot(x$x[ord, 1L], contrib[ord, k], type = "l", xlab = "", ylab = "contribution",
                   main = sprintf("%s: %d functions", colnames(contrib)[k], sum(parts == sort(unique(parts))[k])), ...)
  }
}

plot_shrinkage <- function(x, ...) {
  if (is.null(x$kernel)) stop("which = \"shrinkage\" needs a kernel fit (the basis is rebuilt).", call. = FALSE)
  xs <- apply_scaling(x$x, x$scaling)
  Phi <- dictionary_basis(fit_kernels(x), x$x, xs, x$bias)
  ls <- drop(crossprod(Phi, x$y)) / colSums(Phi^2)
  post <- numeric(ncol(Phi))
  post[x$relevant] <- x$weights
  graphics::plot(ls, post, xlab = "least-squares weight (projection)", ylab = "posterior mean weight",
                 pch = ifelse(is.finite(x$alpha), 16, 1), cex = 0.7, ...)
  graphics::abline(0, 1, lty = 2, col = "grey50")
  graphics::abline(h = 0, col = "grey80")
}

plot_curve <- function(x, level, n_grid, ...) {
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = n_grid)
  gaussian <- x$family$family == "gaussian"
  band <- if (gaussian) "prediction" else "confidence"
  pr <- predict(x, matrix_newdata(x, grid), interval = band, level = level)
  xlab <- colnames(x$x)[1L] %||% "x"
  ylab <- if (!is.null(x$terms)) deparse(x$terms[[2L]]) else "y"
  plot_over(xin, x$y, list(xlab = xlab, ylab = ylab, pch = 16, cex = 0.6, col = "grey40",
                           ylim = range(x$y, pr[, c("lwr", "upr")])), ...)
  graphics::polygon(c(grid, rev(grid)), c(pr[, "lwr"], rev(pr[, "upr"])),
                    col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
  graphics::lines(grid, pr[, "fit"], col = "steelblue4", lwd = 2)
  rv <- relevance_points(x)
  graphics::points(rv$x, rv$y, pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
  graphics::legend("topleft", bty = "n", cex = 0.8,
                   legend = c(if (gaussian) "predictive mean" else "rate",
                              sprintf("%g%% %s band", 100 * level, band),
                              sprintf("relevance vectors (%d)", length(rv$x))),
                   col = c("steelblue4", grDevices::adjustcolor("steelblue", 0.4), "firebrick"),
                   lwd = c(2, 8, 1.5), lty = c(1, 1, NA), pch = c(NA, NA, 1))
}

# Where 1-D plots mark the relevance vectors: their inputs and the data
# there (at a centre that is not a training input, the fitted value).
relevance_points <- function(x) {
  rv <- x$relevance_index
  if (is.null(x$centres)) return(list(x = x$x[rv, 1L], y = x$y[rv]))
  at <- x$centres[rv, , drop = FALSE]
  list(x = at[, 1L], y = if (length(rv)) unname(predict(x, matrix_newdata(x, at), type = "response")) else numeric(0))
}

# newdata for predict() from a matrix of model-matrix columns: formula fits
# whose single term is a plain variable take a data frame of it.
matrix_newdata <- function(x, grid) {
  grid <- as.matrix(grid)
  colnames(grid) <- colnames(x$x)
  if (is.null(x$terms)) return(grid)
  vars <- all.vars(stats::delete.response(x$terms))
  if (!identical(vars, colnames(x$x))) stop("plot() needs the inputs as plain numeric variables of the formula.",
                                            call. = FALSE)
  as.data.frame(grid)
}

plot_probability <- function(x, n_grid, ...) {
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = n_grid)
  p <- predict(x, matrix_newdata(x, grid), type = "response")
  plot_over(xin, x$y, list(xlab = colnames(x$x)[1L] %||% "x", ylab = sprintf("P(%s)", x$levels[2L]),
                           pch = 16, cex = 0.6, col = "grey40", ylim = c(0, 1)), ...)
  graphics::lines(grid, p, col = "steelblue4", lwd = 2)
  graphics::abline(h = 0.5, lty = 3, col = "grey50")
  rv <- relevance_points(x)
  graphics::points(rv$x, rv$y, pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
}

# Decision regions of a binary or multiclass classifier with two inputs.
plot_classes <- function(x, n_grid = 150L, ...) {
  models <- if (inherits(x, "sb_rvm_multiclass")) x$models else list(x)
  X <- models[[1L]]$x
  g1 <- seq(min(X[, 1L]), max(X[, 1L]), length.out = n_grid)
  g2 <- seq(min(X[, 2L]), max(X[, 2L]), length.out = n_grid)
  grid <- matrix_newdata(models[[1L]], expand.grid(g1, g2))
  labels <- if (inherits(x, "sb_rvm_multiclass")) x$y else factor(x$levels[x$y + 1L], levels = x$levels)
  cols <- grDevices::hcl.colors(nlevels(labels), "Dark 3")
  plot_over(X[, 1L], X[, 2L], list(col = cols[labels], pch = c(1, 3, 4, 2, 5)[(as.integer(labels) - 1L) %% 5L + 1L],
                                   xlab = colnames(X)[1L], ylab = colnames(X)[2L]), ...)
  if (length(models) == 1L) {
    p <- matrix(predict(x, grid, type = "response"), n_grid)
    graphics::contour(g1, g2, p, levels = 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
    graphics::contour(g1, g2, p, levels = c(0.25, 0.75), add = TRUE, drawlabels = FALSE, lty = 2)
  } else {
    cls <- matrix(as.integer(predict(x, grid)), n_grid)
    for (k in seq_len(nlevels(labels) - 1L))
      graphics::contour(g1, g2, cls, levels = k + 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
  }
  rv <- unique(do.call(rbind, lapply(models, function(m) basis_centres(m)[m$relevance_index, , drop = FALSE])))
  graphics::points(rv[, 1L], rv[, 2L], cex = 2, col = "black", lwd = 1.5)
  graphics::legend("topleft", bty = "n", cex = 0.8, col = c(cols, "black"),
                   pch = c(c(1, 3, 4, 2, 5)[(seq_along(cols) - 1L) %% 5L + 1L], 1),
                   legend = c(levels(labels), sprintf("relevance vectors (%d)", nrow(rv))))
}

# The evidence curve of a width search (rvm_width_search()): every width
# tried, the chosen one and the median heuristic marked; the legend sits
# below the plotting region, off the data.
plot_width_search <- function(x, ...) {
  ws <- x$width_search
  if (is.null(ws))
    stop("which = \"width\" needs a fit whose kernel width was chosen by the evidence ",
         "(e.g. kernel = kernel_gaussian(width = \"evidence\")); this fit has no width search.", call. = FALSE)
  ok <- is.finite(ws$logLik)
  floor <- ok & ws$noise_at_floor %in% TRUE  # recorded, never chosen
  chosen <- fit_kernels(if (is.null(x$models)) x else x$models[[1L]])[[1L]]$width
  heuristic <- attr(ws, "heuristic")
  what <- attr(ws, "objective") %||% "log evidence"
  op <- graphics::par(mar = c(7.5, 4.5, 3, 1))
  on.exit(graphics::par(op))
  graphics::plot(ws$width[ok], ws$logLik[ok], log = "x", type = "o", pch = 16, cex = 0.8, col = "grey30",
                 xlab = sprintf("kernel width (%slog scale)", if (is.null(x$scaling)) "" else "standardised inputs, "),
                 ylab = what,
                 main = sprintf("%s%s by kernel width (chosen: %s)", toupper(substr(what, 1L, 1L)),
                                substring(what, 2L), format(chosen, digits = 3)), ...)
  if (any(floor)) graphics::points(ws$width[floor], ws$logLik[floor], pch = 4, cex = 1.3, col = "darkorange3")
  graphics::abline(v = heuristic, lty = 3, col = "grey50")
  graphics::points(chosen, ws$logLik[which.min(abs(ws$width - chosen))], pch = 1, cex = 2.2, lwd = 2,
                   col = "firebrick")
  graphics::abline(v = chosen, lty = 2, col = "firebrick")
  line <- graphics::par("mai")[1L] / graphics::par("mar")[1L]  # inches per margin line
  graphics::legend("bottom", inset = c(0, -6.8 * line / graphics::par("pin")[2L]), xpd = NA, horiz = TRUE,
                   bty = "n", cex = 0.8,
                   legend = c(sprintf("tried (%d)", sum(ok)), if (any(floor)) "noise at floor",
                              sprintf("chosen %s", format(chosen, digits = 3)),
                              sprintf("heuristic %s", format(heuristic, digits = 3))),
                   col = c("grey30", if (any(floor)) "darkorange3", "firebrick", "grey50"),
                   pch = c(16, if (any(floor)) 4, 1, NA), lty = c(1, if (any(floor)) NA, 2, 3),
                   lwd = c(1, if (any(floor)) 1, 2, 1))
}

plot_diagnostics <- function(x, ...) {
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  graphics::plot(x$y, x$fitted.values, xlab = "observed", ylab = "fitted", pch = 16, cex = 0.6, ...)
  graphics::abline(0, 1, col = "grey50", lty = 2)
  graphics::plot(x$fitted.values, x$residuals, xlab = "fitted", ylab = "residual", pch = 16, cex = 0.6, ...)
  graphics::abline(h = 0, col = "grey50", lty = 2)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# graphics::plot() of the points (x, y) with a view's default arguments, which
# the caller's `...` override (plot(fit, ylim = , xlab = ) would otherwise
# be "matched by multiple actual arguments").
plot_over <- function(x, y, defaults, ...) {
  do.call(graphics::plot, c(list(x, y), utils::modifyList(defaults, list(...))))
}
