#' Plot an RVM fit
#'
#' With one input: the data, the predictive mean with a band (a prediction
#' band for gaussian fits, a confidence band of the rate for poisson fits)
#' and the relevance vectors circled; for classifiers, the probability of
#' the second class. Classifiers with two inputs: the decision boundary
#' (p = 0.5, solid) and the p = 0.25 and 0.75 contours (dashed) over the
#' data, with the relevance vectors circled, as Tipping (2001, Fig. 4).
#' Otherwise: fitted against observed values, and residuals against fitted
#' values.
#'
#' @param x A fitted [rvm()].
#' @param level Coverage of the prediction band.
#' @param n_grid Number of grid points for the curve.
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @examples
#' plot(rvm(accel ~ times, data = MASS::mcycle))
#' @export
plot.rvm <- function(x, level = 0.95, n_grid = 400L, ...) {
  check_number(level, "level", lower = 0, upper = 1, open_lower = TRUE)
  check_number(n_grid, "n_grid", lower = 2, integer = TRUE)
  p <- if (is.null(x$kernel)) 0L else ncol(x$x)
  family <- x$family$family
  if (p == 1L && family == "binomial") plot_probability(x, n_grid, ...)
  else if (p == 1L) plot_curve(x, level, n_grid, ...)
  else if (p == 2L && family == "binomial") plot_classes(x, ...)
  else plot_diagnostics(x, ...)
  invisible(x)
}

plot_curve <- function(x, level, n_grid, ...) {
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = n_grid)
  gaussian <- x$family$family == "gaussian"
  band <- if (gaussian) "prediction" else "confidence"
  pr <- predict(x, matrix_newdata(x, grid), interval = band, level = level)
  xlab <- colnames(x$x)[1L] %||% "x"
  ylab <- if (!is.null(x$terms)) deparse(x$terms[[2L]]) else "y"
  graphics::plot(xin, x$y, xlab = xlab, ylab = ylab, pch = 16, cex = 0.6, col = "grey40",
                 ylim = range(x$y, pr[, c("lwr", "upr")]), ...)
  graphics::polygon(c(grid, rev(grid)), c(pr[, "lwr"], rev(pr[, "upr"])),
                    col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
  graphics::lines(grid, pr[, "fit"], col = "steelblue4", lwd = 2)
  rv <- x$relevance_index
  graphics::points(xin[rv], x$y[rv], pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
  graphics::legend("topleft", bty = "n", cex = 0.8,
                   legend = c(if (gaussian) "predictive mean" else "rate",
                              sprintf("%g%% %s band", 100 * level, band),
                              sprintf("relevance vectors (%d)", length(rv))),
                   col = c("steelblue4", grDevices::adjustcolor("steelblue", 0.4), "firebrick"),
                   lwd = c(2, 8, 1.5), lty = c(1, 1, NA), pch = c(NA, NA, 1))
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
  graphics::plot(xin, x$y, xlab = colnames(x$x)[1L] %||% "x", ylab = sprintf("P(%s)", x$levels[2L]),
                 pch = 16, cex = 0.6, col = "grey40", ylim = c(0, 1), ...)
  graphics::lines(grid, p, col = "steelblue4", lwd = 2)
  graphics::abline(h = 0.5, lty = 3, col = "grey50")
  rv <- x$relevance_index
  graphics::points(xin[rv], x$y[rv], pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
}

# Decision regions of a binary or multiclass classifier with two inputs.
plot_classes <- function(x, n_grid = 150L, ...) {
  models <- if (inherits(x, "rvm_multiclass")) x$models else list(x)
  X <- models[[1L]]$x
  g1 <- seq(min(X[, 1L]), max(X[, 1L]), length.out = n_grid)
  g2 <- seq(min(X[, 2L]), max(X[, 2L]), length.out = n_grid)
  grid <- matrix_newdata(models[[1L]], expand.grid(g1, g2))
  labels <- if (inherits(x, "rvm_multiclass")) x$y else factor(x$levels[x$y + 1L], levels = x$levels)
  cols <- grDevices::hcl.colors(nlevels(labels), "Dark 3")
  graphics::plot(X[, 1L], X[, 2L], col = cols[labels], pch = c(1, 3, 4, 2, 5)[(as.integer(labels) - 1L) %% 5L + 1L],
                 xlab = colnames(X)[1L], ylab = colnames(X)[2L], ...)
  if (length(models) == 1L) {
    p <- matrix(predict(x, grid, type = "response"), n_grid)
    graphics::contour(g1, g2, p, levels = 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
    graphics::contour(g1, g2, p, levels = c(0.25, 0.75), add = TRUE, drawlabels = FALSE, lty = 2)
  } else {
    cls <- matrix(as.integer(predict(x, grid)), n_grid)
    for (k in seq_len(nlevels(labels) - 1L))
      graphics::contour(g1, g2, cls, levels = k + 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
  }
  rv <- unique(unlist(lapply(models, `[[`, "relevance_index")))
  graphics::points(X[rv, 1L], X[rv, 2L], cex = 2, col = "black", lwd = 1.5)
  graphics::legend("topleft", bty = "n", cex = 0.8, col = c(cols, "black"),
                   pch = c(c(1, 3, 4, 2, 5)[(seq_along(cols) - 1L) %% 5L + 1L], 1),
                   legend = c(levels(labels), sprintf("relevance vectors (%d)", length(rv))))
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
