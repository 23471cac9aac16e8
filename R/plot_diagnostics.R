# Relevance, trajectory and leverage plots of any sparsebayes fit
# (joint-ARD paper, Figs. 1 and 2), called from plot.sb_rvm() and plot.sb_ard().

#' Plot a joint ARD fit
#'
#' `which = "fit"` draws fitted against observed values and residuals
#' against fitted values, as [plot.sb_rvm()] does for several inputs. The
#' diagnostic views are shared with [plot.sb_rvm()]:
#' \describe{
#'   \item{`"relevance"`}{the relevance of each weight, `1/alpha` (pruned
#'     weights at 0, as crosses), and of each sample, `1/lambda`, with their
#'     effective support sizes ([ess()]) in the titles.}
#'   \item{`"trajectory"`}{the paths of `1/alpha` and `1/lambda` over the
#'     iterations of a batch solver (Fig. 2, left, of the joint-ARD paper),
#'     from `x$path`; weights pruned at the end and the `highlight`ed samples
#'     in red.}
#'   \item{`"leverage"`}{each sample's noise variance `lambda_i` against its
#'     squared leave-one-out residual `(r_i / (1 - h_i))^2`, on log scales,
#'     with the leverage `h_i` ([hatvalues.sparsebayes()]) as point size and
#'     colour (Fig. 2, right); the dashed line is equality.}
#' }
#' @param x A fitted [ard()] model.
#' @param which The view: `"fit"`, `"relevance"`, `"trajectory"` or
#'   `"leverage"`.
#' @param highlight Indices of training samples to draw in red (e.g. known
#'   outliers); `NULL` for none.
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(600), 100, 6)
#' y <- X[, 1] - 2 * X[, 2] + rnorm(100, sd = 0.3)
#' y[1:5] <- y[1:5] + 8
#' fit <- ard(X, y, noise = "sample", method = "em")
#' plot(fit)
#' plot(fit, which = "trajectory", highlight = 1:5)
#' plot(fit, which = "leverage", highlight = 1:5)
#' @export
plot.sb_ard <- function(x, which = c("fit", "relevance", "trajectory", "leverage"), highlight = NULL, ...) {
  which <- match_arg(which)
  switch(which,
         fit = plot_diagnostics(x, ...),
         relevance = plot_relevance(x, highlight = highlight, ...),
         trajectory = plot_trajectory(x, highlight = highlight, ...),
         leverage = plot_leverage(x, highlight = highlight, ...))
  invisible(x)
}

check_highlight <- function(highlight, n) {
  if (is.null(highlight)) return(integer(0))
  if (!is.numeric(highlight) || anyNA(highlight) || any(highlight < 1 | highlight > n | highlight != round(highlight)))
    stop_arg("highlight", sprintf("must hold sample indices between 1 and %d.", n))
  as.integer(highlight)
}

plot_relevance <- function(x, highlight = NULL, ...) {
  check_single_model(x)
  if (x$family$family != "gaussian") stop("which = \"relevance\" needs a gaussian fit.", call. = FALSE)
  n <- length(x$y)
  highlight <- check_highlight(highlight, n)
  w_rel <- ifelse(is.finite(x$alpha), 1 / x$alpha, 0)
  s_rel <- 1 / sample_noise(x)
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  pruned <- w_rel == 0
  graphics::plot(seq_along(w_rel), w_rel, type = "h", col = ifelse(pruned, "grey70", "steelblue4"),
                 xlab = "basis function", ylab = "weight relevance 1/alpha",
                 main = sprintf("weights: %d of %d kept, ESS %.1f%%", sum(!pruned), length(w_rel),
                                100 * ess_scores(w_rel, 1)), ...)
  graphics::points(which(pruned), rep(0, sum(pruned)), pch = 4, cex = 0.5, col = "grey50")
  cols <- rep("grey30", n)
  cols[highlight] <- "firebrick"
  graphics::plot(seq_len(n), s_rel, type = "h", col = cols, ylim = c(0, max(s_rel)),
                 xlab = "sample", ylab = "sample relevance 1/lambda",
                 main = sprintf("samples: ESS %.1f%%", 100 * ess_scores(s_rel, 1)), ...)
  graphics::points(highlight, s_rel[highlight], pch = 16, cex = 0.7, col = "firebrick")
}

plot_trajectory <- function(x, highlight = NULL, ...) {
  check_single_model(x)
  path <- x$path
  if (is.null(path))
    stop("this fit has no `path` of the precisions and noise over the iterations; ",
         "fit with a batch solver (method = \"em\", \"mackay\", \"irls2\", \"irls1\" or \"gradient\").",
         call. = FALSE)
  highlight <- check_highlight(highlight, ncol(path$lambda))
  it <- path$iteration
  positive <- function(m) { m <- 1 / m; m[!is.finite(m) | m <= 0] <- NA; m }
  w_path <- positive(path$alpha)
  s_path <- positive(path$lambda)
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  pruned <- !is.finite(x$alpha)
  draw <- function(m, red, ylab, main) {
    cols <- ifelse(red, "firebrick", grDevices::adjustcolor("steelblue4", 0.5))
    ord <- order(red)  # red on top
    rng <- range(m, na.rm = TRUE)
    if (!all(is.finite(rng))) rng <- c(1e-3, 1)
    graphics::matplot(it, m[, ord, drop = FALSE], type = "l", lty = 1, col = cols[ord], log = "y",
                      ylim = rng, xlab = "iteration", ylab = ylab, main = main, ...)
  }
  draw(w_path, pruned, "weight relevance 1/alpha", sprintf("weights (%d pruned, red)", sum(pruned)))
  red <- seq_len(ncol(s_path)) %in% highlight
  draw(s_path, red, "sample relevance 1/lambda",
       if (ncol(s_path) == 1L) "shared noise" else if (length(highlight)) "samples (highlighted in red)" else "samples")
}

plot_leverage <- function(x, highlight = NULL, ...) {
  check_single_model(x)
  if (x$family$family != "gaussian") stop("which = \"leverage\" needs a gaussian fit.", call. = FALSE)
  n <- length(x$y)
  highlight <- check_highlight(highlight, n)
  h <- leverage(x)
  loo2 <- (x$residuals / (1 - h))^2
  lambda <- sample_noise(x)
  floor_at <- function(v) pmax(v, max(v) * 1e-8)  # log scale: keep exact zeros visible
  pal <- grDevices::hcl.colors(100, "viridis", rev = TRUE)
  cols <- pal[1L + floor(99 * h / max(h, 1e-12))]
  graphics::plot(floor_at(loo2), floor_at(lambda), log = "xy", pch = 16, col = grDevices::adjustcolor(cols, 0.8),
                 cex = 0.5 + 2.5 * sqrt(h / max(h, 1e-12)), xlab = "squared LOO residual (r / (1 - h))^2",
                 ylab = "noise variance lambda", ...)
  graphics::abline(0, 1, lty = 2, col = "grey50")
  if (length(highlight))
    graphics::points(floor_at(loo2)[highlight], floor_at(lambda)[highlight], pch = 1, cex = 1.8, col = "firebrick",
                     lwd = 1.5)
  graphics::legend("topleft", bty = "n", cex = 0.8, pt.cex = c(0.8, 2.2, if (length(highlight)) 1.8),
                   pch = c(16, 16, if (length(highlight)) 1),
                   col = c(pal[10], pal[95], if (length(highlight)) "firebrick"),
                   legend = c(sprintf("low leverage (h = %.2g)", min(h)), sprintf("high leverage (h = %.2g)", max(h)),
                              if (length(highlight)) "highlighted"))
}
