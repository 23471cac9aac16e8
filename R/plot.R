#' Plot an RVM fit
#'
#' With one input: the data, the predictive mean with a prediction band and
#' the relevance vectors circled. With several inputs (or a user basis):
#' fitted against observed values, and residuals against fitted values.
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
  one_input <- !is.null(x$kernel) && ncol(x$x) == 1L
  if (one_input) plot_curve(x, level, n_grid, ...) else plot_diagnostics(x, ...)
  invisible(x)
}

plot_curve <- function(x, level, n_grid, ...) {
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = n_grid)
  pr <- predict_gaussian(x, matrix(grid, ncol = 1L), FALSE, "prediction", level)
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
                   legend = c("predictive mean", sprintf("%g%% prediction band", 100 * level),
                              sprintf("relevance vectors (%d)", length(rv))),
                   col = c("steelblue4", grDevices::adjustcolor("steelblue", 0.4), "firebrick"),
                   lwd = c(2, 8, 1.5), lty = c(1, 1, NA), pch = c(NA, NA, 1))
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
