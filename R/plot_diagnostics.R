# Relevance, trajectory and leverage plots of any sparsebayes fit
# (joint-ARD paper, Figs. 1 and 2), called from plot.sb_rvm() and plot.sb_ard().

#' Plot a joint ARD fit
#'
#' The default view, `which = "overview"`, draws two panels side by side:
#' fitted against observed values, and the evidence for each retained weight
#' (the `"evidence"` view: which inputs the fit selects). A fit that
#' retains no penalised weight has no evidence to show: its default is the
#' `"fit"` view. `which = "fit"` draws fitted against observed values and
#' residuals against fitted values, as [plot.sb_rvm()] does for several
#' inputs. The diagnostic views are shared with [plot.sb_rvm()]:
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
#'     colour (Fig. 2, right); the dashed line is equality. Both axes share
#'     one range, so equality is the diagonal; squared residuals below a
#'     hundredth of the smallest noise variance are drawn at the left edge.}
#'   \item{`"outlier_map"`}{the outlier map of robust regression: each
#'     sample's residual in units of the inliers' noise sd against the robust
#'     distance of its inputs, with the cut-offs that separate regular rows,
#'     vertical outliers, good and bad leverage points (see [outliers()] for
#'     the reading); flagged rows are labelled.}
#'   \item{`"evidence"`}{the log Bayes factor of each retained weight (the
#'     30 largest; `top =` changes it), the weights [selected()] keeps
#'     filled, and dashed the evidence a further feature needs under the
#'     beta-binomial prior.}
#' }
#' @param x A fitted [ard()] model.
#' @param which The view: `"overview"` (the default: fitted against
#'   observed values beside the evidence for each weight), `"fit"`,
#'   `"relevance"`, `"trajectory"`, `"leverage"`, `"outlier_map"` or
#'   `"evidence"`. A fit from [data_chunks()] keeps no rows: its default
#'   view is `"relevance"`.
#' @param highlight Indices of training samples to draw in red (e.g. known
#'   outliers); `NULL` for none.
#' @param legend `FALSE` to draw no legend in the leverage view (legends sit
#'   in a band above the data, never over it).
#' @param ... Graphical parameters passed to [graphics::plot()]. `main`,
#'   `xlab` and `ylab` replace the default title and axis labels; in the
#'   two-panel views a vector of two gives one per panel. `top`: the number
#'   of weights the evidence view shows (30). `col`, `pch` and
#'   `cex` style the points (or stems and lines); in the leverage,
#'   relevance and trajectory views `col` replaces the colouring by
#'   leverage or pruning, and `cex` the sizing by leverage.
#' @return `x`, invisibly.
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(600), 100, 6)
#' y <- X[, 1] - 2 * X[, 2] + rnorm(100, sd = 0.3)
#' y[1:5] <- y[1:5] + 8
#' fit <- ard(X, y, noise = "sample", method = "em")
#' plot(fit)
#' plot(fit, which = "fit")
#' plot(fit, which = "trajectory", highlight = 1:5)
#' plot(fit, which = "leverage", highlight = 1:5)
#' plot(fit, which = "outlier_map")
#' plot(fit, which = "evidence")
#' @export
plot.sb_ard <- function(x, which = c("overview", "fit", "relevance", "trajectory", "leverage", "outlier_map",
                                     "evidence"),
                        highlight = NULL,
                        legend = TRUE, ...) {
  which <- if (missing(which) && !is.null(x$chunks)) "relevance" else match_arg(which)  # a fit from chunks keeps no rows
  if (which == "overview" && !length(retained_candidates(x))) which <- "fit"  # no evidence to show
  check_flag(legend, "legend")
  if (which %in% c("overview", "fit", "leverage", "outlier_map"))
    check_has_rows(x, sprintf("plot(which = \"%s\")", which))
  switch(which,
         overview = plot_ard_overview(x, ...),
         fit = plot_diagnostics(x, ...),
         relevance = plot_relevance(x, highlight = highlight, ...),
         trajectory = plot_trajectory(x, highlight = highlight, ...),
         leverage = plot_leverage(x, highlight = highlight, legend = legend, ...),
         outlier_map = plot_outlier_map(x, highlight = highlight, legend = legend, ...),
         evidence = plot_feature_evidence(x, ...))
  invisible(x)
}

# plot()'s default for an ARD fit: fitted against observed values (left)
# and the evidence for each weight (right), as rvm()'s default shows the
# fit in two panels. `main` and `xlab` take one per panel; `top` goes to
# the evidence, `ylab` and `cex` to the left panel only.
plot_ard_overview <- function(x, main = NULL, xlab = NULL, ylab = NULL, col = NULL, pch = NULL, cex = 0.6,
                              top = 30L, ...) {
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  response <- response_label(x)
  main <- rep_len(main %||% c("Fitted against observed values", "Evidence for each weight"), 2L)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% c(paste("observed", response), "log Bayes factor (keep vs prune)"), 2L)
  graphics::plot(x$y, x$fitted.values, xlab = xlab[1L], ylab = ylab %||% paste("fitted", response), main = main[1L],
                 pch = pch %||% 16, cex = cex, col = col %||% graphics::par("col"), ...)
  graphics::abline(0, 1, col = "grey50", lty = 2)
  plot_feature_evidence(x, top = top, main = main[2L], xlab = xlab[2L], pch = pch, col = col, ...)
}

# The log Bayes factors of the retained candidate (penalised) weights.
retained_candidates <- function(x) log_bayes_factors(x)[candidate_columns(x)[x$relevant]]

# The log Bayes factor of each retained candidate weight (at most `top`),
# selected ones filled, with the evidence a further feature would need
# under the beta-binomial prior (dashed).
plot_feature_evidence <- function(x, top = 30L, main = NULL, xlab = NULL, pch = NULL, col = NULL, ...) {
  check_number(top, "top", lower = 1, integer = TRUE)
  lb <- retained_candidates(x)
  if (!length(lb)) stop("which = \"evidence\" needs a fit with at least one retained penalised weight.", call. = FALSE)
  chosen <- names(lb) %in% selected(x)
  shown <- order(lb, decreasing = TRUE)[seq_len(min(top, length(lb)))]
  shown <- rev(shown)  # dotchart draws from the bottom up
  k <- sum(chosen)
  bar <- -beta_binomial_log_odds(k, sum(candidate_columns(x)))
  graphics::dotchart(lb[shown], labels = names(lb)[shown], pch = pch %||% ifelse(chosen[shown], 19, 1),
                     col = col %||% ifelse(chosen[shown], "steelblue4", "grey40"),
                     main = main %||% "Evidence for each weight", xlab = xlab %||% "log Bayes factor (keep vs prune)",
                     xlim = range(c(lb[shown], bar[is.finite(bar)], 0)), ...)
  if (is.finite(bar)) graphics::abline(v = bar, lty = 2, col = "firebrick")  # none once every candidate is selected
  subtitle(sprintf("%d of %d retained selected (filled); dashed: evidence a further feature needs", k, length(lb)))
}

check_highlight <- function(highlight, n) {
  if (is.null(highlight)) return(integer(0))
  if (!is.numeric(highlight) || anyNA(highlight) || any(highlight < 1 | highlight > n | highlight != round(highlight)))
    stop_arg("highlight", sprintf("must hold sample indices between 1 and %d.", n))
  as.integer(highlight)
}

plot_relevance <- function(x, highlight = NULL, main = NULL, xlab = NULL, ylab = NULL, col = NULL, ...) {
  check_single_model(x)
  if (!has_noise(x$family)) stop("which = \"relevance\" needs a gaussian fit.", call. = FALSE)
  rows <- is.null(x$chunks)  # a fit from chunks keeps no rows: no panel of samples
  w_rel <- ifelse(is.finite(x$alpha), 1 / x$alpha, 0)
  if (rows) {
    n <- length(x$y)
    highlight <- check_highlight(highlight, n)
    s_rel <- 1 / sample_noise(x)
    panels <- graphics::par(mfrow = c(1L, 2L))
    on.exit(graphics::par(panels))
  }
  pruned <- w_rel == 0
  main <- rep_len(main %||% c("Relevance of each weight", "Relevance of each sample"), 2L)
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  xlab <- rep_len(xlab %||% c("basis function", "sample"), 2L)
  ylab <- rep_len(ylab %||% c("relevance 1/alpha (prior variance of the weight)",
                              "relevance 1/lambda (inverse noise variance)"), 2L)
  graphics::plot(seq_along(w_rel), w_rel, type = "h", col = col %||% ifelse(pruned, "grey70", "steelblue4"),
                 xlab = xlab[1L], ylab = ylab[1L], main = main[1L], ...)
  subtitle(sprintf("%d of %d kept (crosses: pruned); effective support %.1f%%", sum(!pruned), length(w_rel),
                   100 * ess_scores(w_rel, 1)))
  graphics::points(which(pruned), rep(0, sum(pruned)), pch = 4, cex = 0.5, col = "grey50")
  if (!rows) return(invisible())
  cols <- rep_len(col %||% "grey30", n)
  cols[highlight] <- "firebrick"
  graphics::plot(seq_len(n), s_rel, type = "h", col = cols, ylim = c(0, max(s_rel)),
                 xlab = xlab[2L], ylab = ylab[2L], main = main[2L], ...)
  subtitle(sprintf("effective support %.1f%%%s", 100 * ess_scores(s_rel, 1),
                   if (length(highlight)) "; highlighted samples in red" else ""))
  graphics::points(highlight, s_rel[highlight], pch = 16, cex = 0.7, col = "firebrick")
}

plot_trajectory <- function(x, highlight = NULL, main = NULL, xlab = NULL, ylab = NULL, col = NULL, ...) {
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
  noise_path <- ncol(s_path) > 0L  # per-sample noise read by passes over chunks keeps none
  op <- graphics::par(mfrow = c(1L, 1L + noise_path))
  on.exit(graphics::par(op))
  pruned <- !is.finite(x$alpha)
  shared <- ncol(s_path) == 1L
  main <- rep_len(main %||% c("Relevance of each weight over the iterations",
                              if (shared) "Inverse noise variance over the iterations"
                              else "Relevance of each sample over the iterations"), 2L)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% "iteration", 2L)
  ylab <- rep_len(ylab %||% c("relevance 1/alpha (log scale)",
                              if (shared) "1/lambda, shared by all samples (log scale)"
                              else "relevance 1/lambda (log scale)"), 2L)
  draw <- function(m, red, k, note) {
    cols <- ifelse(red, "firebrick", col %||% grDevices::adjustcolor("steelblue4", 0.5))
    ord <- order(red)  # red on top
    rng <- range(m, na.rm = TRUE)
    if (!all(is.finite(rng))) rng <- c(1e-3, 1)
    graphics::matplot(it, m[, ord, drop = FALSE], type = "l", lty = 1, col = cols[ord], log = "y",
                      ylim = rng, xlab = xlab[k], ylab = ylab[k], main = main[k], ...)
    subtitle(note)
  }
  draw(w_path, pruned, 1L, if (any(pruned)) sprintf("red: the %d of %d weights pruned by the end", sum(pruned), length(pruned))
                           else sprintf("all %d weights kept", length(pruned)))
  if (!noise_path) return(invisible())
  red <- seq_len(ncol(s_path)) %in% highlight
  draw(s_path, red, 2L, if (shared) "one noise level for all samples"
                        else if (length(highlight)) sprintf("red: the %d highlighted samples", length(highlight))
                        else sprintf("one line per sample (%d)", ncol(s_path)))
}

# `cex` (default: the sizing by leverage) and `xlim` (default: the range of
# both axes) come with the other graphical parameters in `...`.
plot_leverage <- function(x, highlight = NULL, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL,
                          col = NULL, pch = 16, ...) {
  check_single_model(x)
  if (!has_noise(x$family)) stop("which = \"leverage\" needs a gaussian fit.", call. = FALSE)
  n <- length(x$y)
  highlight <- check_highlight(highlight, n)
  h <- leverage(x)
  loo2 <- (x$residuals / (1 - h))^2
  lambda <- sample_noise(x)
  floor_at <- function(v) pmax(v, max(v) * 1e-8)  # log scale: keep exact zeros visible
  # One range on both axes, so the equality line is the diagonal. A squared
  # residual far below every noise variance says only "small": those under
  # a hundredth of the smallest variance sit at the left edge, or seven
  # decades of them would squeeze the variances (mcycle's span less than one).
  lambda <- floor_at(lambda)
  loo2 <- pmax(loo2, min(lambda) / 100)
  lims <- range(loo2, lambda)
  pal <- grDevices::hcl.colors(100, "viridis", rev = TRUE)
  cols <- col %||% grDevices::adjustcolor(pal[1L + floor(99 * h / max(h, 1e-12))], 0.8)  # colour and size: leverage
  labels <- if (legend) c(sprintf("low leverage (h = %.2g)", min(h)), sprintf("high leverage (h = %.2g)", max(h)),
                          "equality", if (length(highlight)) "highlighted")
  ylim <- legend_space(ylim %||% lims, labels, log = TRUE)
  main <- main %||% "Noise variance of each sample against its leave-one-out residual"
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  scatter <- function(..., cex = NULL, xlim = NULL)
    graphics::plot(loo2, lambda, log = "xy", pch = pch, col = cols,
                   cex = cex %||% (0.5 + 2.5 * sqrt(h / max(h, 1e-12))),
                   xlab = xlab %||% "squared leave-one-out residual (r / (1 - h))^2 (log scale)",
                   ylab = ylab %||% "noise variance lambda (log scale)", xlim = xlim %||% lims, ylim = ylim,
                   main = main, ...)
  scatter(...)
  usr <- 10^graphics::par("usr")
  ends <- c(max(usr[1L], usr[3L]), min(usr[2L], attr(ylim, "data_top")))  # equality, below the legend
  if (ends[2L] > ends[1L]) graphics::segments(ends[1L], ends[1L], ends[2L], ends[2L], lty = 2, col = "grey50")
  if (length(highlight))
    graphics::points(loo2[highlight], lambda[highlight], pch = 1, cex = 1.8, col = "firebrick",
                     lwd = 1.5)
  draw_legend(ylim, labels, pt.cex = c(0.8, 2.2, 1, if (length(highlight)) 1.8),
              pch = c(pch[1L], pch[1L], NA, if (length(highlight)) 1), lty = c(NA, NA, 2, if (length(highlight)) NA),
              col = c(if (is.null(col)) pal[c(10, 95)] else rep(col[1L], 2L), "grey50", if (length(highlight)) "firebrick"))
}

# The outlier map of robust regression (Rousseeuw and van Zomeren 1990):
# residuals in units of the inliers' noise sd against the robust distance
# of the inputs, with the cut-offs of outliers() and the kinds of row they
# separate; the rows outside both cut-offs are labelled with their names.
# `cex` (default 1) comes with the other graphical parameters in `...`.
plot_outlier_map <- function(x, highlight = NULL, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL,
                             col = NULL, pch = 16, ...) {
  check_single_model(x)
  if (!has_noise(x$family)) stop("which = \"outlier_map\" needs a gaussian fit.", call. = FALSE)
  highlight <- check_highlight(highlight, length(x$y))
  map <- outlier_map(x)
  cut <- attr(map, "cutoffs")
  shown <- !is.na(map$type)
  pal <- c("grey45", "darkorange2", "steelblue", "firebrick")
  cols <- col %||% pal[as.integer(map$type[shown])]
  labels <- if (legend) outlier_types
  ylim <- legend_space(ylim %||% range(map$std_residual[shown], -cut[["residual"]], cut[["residual"]]), labels)
  main <- main %||% "Outlier map: residuals against robust distances"
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  scatter <- function(..., cex = 1)
    graphics::plot(map$distance[shown], map$std_residual[shown], pch = pch, col = cols, cex = cex, ylim = ylim,
                   xlab = xlab %||% "robust distance of the inputs", main = main,
                   ylab = ylab %||% "residual / inliers' noise sd", ...)
  scatter(...)
  graphics::abline(h = c(-1, 1) * cut[["residual"]], v = cut[["distance"]], lty = 2, col = "grey50")
  flagged <- which(shown & map$type != "regular")
  if (length(flagged))
    graphics::text(map$distance[flagged], map$std_residual[flagged], labels = case_names(x)[flagged], pos = 4,
                   cex = 0.7, col = "grey30", xpd = NA)
  if (length(highlight))
    graphics::points(map$distance[highlight], map$std_residual[highlight], pch = 1, cex = 1.8, col = "firebrick",
                     lwd = 1.5)
  draw_legend(ylim, labels, pch = pch[1L], col = if (is.null(col)) pal else rep(col[1L], 4L))
}
