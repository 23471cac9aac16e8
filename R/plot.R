#' Plot an RVM fit
#'
#' With one input: the data, the predictive mean with a band (a prediction
#' band for gaussian fits, a confidence band of the rate for poisson fits)
#' and the relevance vectors circled; for classifiers, the probability of
#' the second class. Classifiers with two inputs: the decision boundary
#' (p = 0.5, solid) and the p = 0.25 and 0.75 contours (dashed) over the
#' data, with the relevance vectors circled, as Tipping (2001, Fig. 4).
#' Other binary classifiers: the fitted probability of the second class for the
#' rows of each class, and a calibration plot (the observed share of the
#' second class in each tenth of the fitted probabilities against their
#' mean). Multiclass classifiers with other than two inputs: the fitted
#' probability of every class for the rows of each observed class, and the
#' confusion table of the training rows. Otherwise: fitted against observed values, and residuals against
#' fitted values. `which = "components"` draws the contribution of each
#' sub-dictionary of an overcomplete dictionary (and the bias) to the fit,
#' as Schmolck and Everson (2007, Fig. 8); `which = "shrinkage"` plots each
#' basis function's least-squares weight (its projection
#' `phi' y / phi' phi`, the least-squares weight for orthogonal bases such as
#' wavelets) against its posterior mean weight, 0 where pruned (open
#' circles), as their Fig. 6. `which = "relevance"`, `"trajectory"`,
#' `"leverage"` and `"outlier_map"` are the diagnostics of joint ARD described in [plot.sb_ard()]
#' (`"trajectory"` needs a fit by a batch solver, which stores `path`).
#' `which = "width"` draws the log evidence (log posterior with a smoothness
#' prior) of every width tried by a fit with `width = "evidence"` (see
#' [kernels]) against the width on a log axis, with the chosen width and the
#' median-heuristic width marked.
#'
#' Legends sit in a band above the data (the upper y limit is raised to make
#' room), never over it, and `par()` is left as it was, so `lines()` or
#' `points()` added afterwards land where they should.
#'
#' @param x A fitted [rvm()].
#' @param which `"fit"` (the default views above), `"components"`,
#'   `"shrinkage"`, `"relevance"`, `"trajectory"`, `"leverage"`,
#'   `"outlier_map"`, `"width"`, `"inputs"` (the kernel width of each input, for kernels
#'   with one width per input: see [input_relevance()]) or, for a classifier,
#'   `"reliability"`: the reliability diagram of its fitted probabilities
#'   (every class's probability at every training row, in ten bins of equal
#'   width: the observed share of rows of that class against the mean
#'   probability, each point's area by its count; a calibrated classifier
#'   follows the diagonal). A fit from [data_chunks()] keeps no rows: its
#'   default view is `"relevance"` (a classifier's, `"inputs"`), and the
#'   views of the training rows say so.
#' @param level Coverage of the prediction band.
#' @param n_grid Number of grid points for the curve.
#' @param legend `FALSE` to draw no legend (and reserve no room for one).
#' @param ... Graphical parameters passed to [graphics::plot()]. `main`,
#'   `xlab` and `ylab` replace the default title and axis labels; in
#'   two-panel views a vector of two gives one per panel. `ylim` (one-panel
#'   views) sets the range of the data region: the legend's band is added
#'   above it unless `legend = FALSE`. `col`, `pch` and `cex` style the data
#'   points (and the legend shows them so); for a classifier with two inputs
#'   they give one colour and symbol per class. In the diagnostic views see
#'   [plot.sb_ard()].
#' @return `x`, invisibly.
#' @examples
#' plot(rvm(accel ~ times, data = MASS::mcycle))
#' @export
plot.sb_rvm <- function(x, which = c("fit", "components", "shrinkage", "relevance", "trajectory", "leverage",
                                     "outlier_map", "width", "inputs", "reliability"),
                     level = 0.95, n_grid = 400L, legend = TRUE, ...) {
  family <- x$family$family
  # a fit from chunks keeps no rows: its default view is of the weights (a classifier's: of its inputs' widths)
  which <- if (missing(which) && !is.null(x$chunks)) { if (likelihood_of(family)$classes) "inputs" else "relevance" }
           else match_arg(which)
  check_number(level, "level", lower = 0, upper = 1, open_lower = TRUE)
  check_number(n_grid, "n_grid", lower = 2, integer = TRUE)
  check_flag(legend, "legend")
  if (which %in% c("fit", "components", "shrinkage") || (which == "reliability" && likelihood_of(family)$classes))
    check_has_rows(x, sprintf("plot(which = \"%s\")", which))
  p <- if (is.null(x$kernel)) 0L else ncol(x$x)
  if (which == "components") plot_components(x, ...)
  else if (which == "shrinkage") plot_shrinkage(x, legend = legend, ...)
  else if (which == "relevance") plot_relevance(x, ...)
  else if (which == "trajectory") plot_trajectory(x, ...)
  else if (which == "leverage") plot_leverage(x, legend = legend, ...)
  else if (which == "outlier_map") plot_outlier_map(x, legend = legend, ...)
  else if (which == "width") plot_width_search(x, legend = legend, ...)
  else if (which == "inputs") plot_input_relevance(x, ...)
  else if (which == "reliability") plot_reliability(x, ...)
  else if (p == 1L && likelihood_of(family)$classes) plot_probability(x, curve_view(level, n_grid, legend), ...)
  else if (p == 1L) plot_curve(x, curve_view(level, n_grid, legend), ...)
  else if (p == 2L && likelihood_of(family)$classes) plot_classes(x, legend = legend, ...)
  else if (likelihood_of(family)$classes) plot_calibration(x, ...)
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

# The name of the single input of a kernel fit, and of its response.
input_label <- function(x) colnames(x$x)[1L] %||% "x"
response_label <- function(x) if (!is.null(x$terms)) deparse(x$terms[[2L]]) else "y"

plot_components <- function(x, main = NULL, xlab = NULL, ylab = NULL, ...) {
  if (is.null(x$kernel) || ncol(x$x) != 1L) stop("which = \"components\" needs a kernel fit with one input.", call. = FALSE)
  contrib <- component_contributions(x)
  ord <- order(x$x[, 1L])
  k_all <- ncol(contrib)
  op <- graphics::par(mfrow = c(k_all, 1L), mar = c(4, 4.5, 2.5, 1), mgp = c(2.3, 0.8, 0))
  on.exit(graphics::par(op))
  parts <- column_parts(x)$part
  counts <- vapply(sort(unique(parts)), function(p) sum(parts == p), integer(1))
  what <- ifelse(colnames(contrib) == "(bias)", "the bias",
                 sprintf("%s: %d basis function%s", sub(" kernel", "", colnames(contrib), fixed = TRUE), counts,
                         ifelse(counts == 1L, "", "s")))
  main <- rep_len(main %||% paste("Part of the fit from", what), k_all)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% input_label(x), k_all)
  ylab <- rep_len(ylab %||% "contribution", k_all)
  for (k in seq_len(k_all)) {
    graphics::plot(x$x[ord, 1L], contrib[ord, k], type = "l", xlab = xlab[k], ylab = ylab[k], main = main[k], ...)
  }
}

plot_shrinkage <- function(x, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL, col = "black",
                           pch = c(16, 1), cex = 0.7, ...) {
  if (is.null(x$kernel)) stop("which = \"shrinkage\" needs a kernel fit (the basis is rebuilt).", call. = FALSE)
  xs <- apply_scaling(x$x, x$scaling)
  Phi <- dictionary_basis(fit_kernels(x), x$x, xs, x$bias)
  ls <- drop(crossprod(Phi, x$y)) / colSums(Phi^2)
  post <- numeric(ncol(Phi))
  post[x$relevant] <- x$weights
  kept <- is.finite(x$alpha)
  labels <- if (legend) c(sprintf("kept (%d)", sum(kept)), sprintf("pruned to 0 (%d)", sum(!kept)),
                          "no shrinkage (equality)")
  ylim <- legend_space(ylim %||% range(post, ls), labels)
  main <- main %||% "Shrinkage of each basis function's weight by the prior"
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(ls, post, xlab = xlab %||% "least-squares weight (projection of y on the function)",
                 ylab = ylab %||% "posterior mean weight", ylim = ylim,
                 main = main,
                 pch = rep_len(pch, 2L)[2L - kept], col = col, cex = cex, ...)
  graphics::abline(h = 0, col = "grey80")
  usr <- graphics::par("usr")
  ends <- c(max(usr[1L], usr[3L]), min(usr[2L], attr(ylim, "data_top")))  # y = x, below the legend
  graphics::segments(ends[1L], ends[1L], ends[2L], ends[2L], lty = 2, col = "grey50")
  draw_legend(ylim, labels, pch = c(rep_len(pch, 2L), NA), lty = c(NA, NA, 2), col = c(col[1L], col[1L], "grey50"),
              pt.cex = cex[1L])
}

# What a one-input view draws besides the user's graphical parameters: the
# band's coverage `level`, the `n_grid` points of the curve and whether to
# draw the `legend`.
curve_view <- function(level, n_grid, legend) list(level = level, n_grid = n_grid, legend = legend)

plot_curve <- function(x, view, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL, col = "grey40", pch = 16, cex = 0.6,
                       ...) {
  level <- view$level
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = view$n_grid)
  gaussian <- has_noise(x$family)
  band <- if (gaussian) "prediction" else "confidence"
  pr <- predict(x, matrix_newdata(x, grid), interval = band, level = level)
  rv <- relevance_points(x)
  labels <- if (view$legend) c(if (gaussian) "predictive mean" else "fitted rate",
                          sprintf("%g%% %s band", 100 * level, band),
                          "data",
                          if (length(rv$x)) sprintf("relevance vectors (%d)", length(rv$x)))
  ylim <- legend_space(ylim %||% range(x$y, pr[, c("lwr", "upr")]), labels)
  default_main <- if (gaussian) sprintf("RVM fit: predictive mean and %g%% prediction band", 100 * level)
                  else sprintf("Poisson RVM: fitted rate and %g%% confidence band", 100 * level)
  main <- main %||% default_main
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(xin, x$y, xlab = xlab %||% input_label(x), ylab = ylab %||% response_label(x),
                 main = main, pch = pch, cex = cex, col = col, ylim = ylim, ...)
  graphics::polygon(c(grid, rev(grid)), c(pr[, "lwr"], rev(pr[, "upr"])),
                    col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
  graphics::lines(grid, pr[, "fit"], col = "steelblue4", lwd = 2)
  graphics::points(rv$x, rv$y, pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
  draw_legend(ylim, labels,
              col = c("steelblue4", grDevices::adjustcolor("steelblue", 0.4), col[1L],
                      if (length(rv$x)) "firebrick"),
              lwd = c(2, 8, NA, if (length(rv$x)) 1.5), lty = c(1, 1, NA, if (length(rv$x)) NA),
              pch = c(NA, NA, pch[1L], if (length(rv$x)) 1), pt.cex = c(1, 1, cex[1L], if (length(rv$x)) 1.3))
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

plot_probability <- function(x, view, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL, col = "grey40", pch = 16,
                             cex = 0.6, ...) {
  xin <- x$x[, 1L]
  grid <- seq(min(xin), max(xin), length.out = view$n_grid)
  p <- predict(x, matrix_newdata(x, grid), type = "response")
  rv <- relevance_points(x)
  labels <- if (view$legend) c(sprintf("P(%s)", x$levels[2L]), sprintf("data (0 = %s, 1 = %s)", x$levels[1L], x$levels[2L]),
                          if (length(rv$x)) sprintf("relevance vectors (%d)", length(rv$x)))
  ylim <- legend_space(ylim %||% c(0, 1), labels)
  main <- main %||% sprintf("RVM classifier: probability of class %s", x$levels[2L])
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(xin, x$y, xlab = xlab %||% input_label(x),
                 ylab = ylab %||% sprintf("probability of class %s", x$levels[2L]),
                 main = main,
                 pch = pch, cex = cex, col = col, ylim = ylim, ...)
  graphics::lines(grid, p, col = "steelblue4", lwd = 2)
  graphics::abline(h = 0.5, lty = 3, col = "grey50")
  graphics::points(rv$x, rv$y, pch = 1, cex = 1.8, col = "firebrick", lwd = 1.5)
  draw_legend(ylim, labels, col = c("steelblue4", col[1L], if (length(rv$x)) "firebrick"),
              lwd = c(2, NA, if (length(rv$x)) 1.5), lty = c(1, NA, if (length(rv$x)) NA),
              pch = c(NA, pch[1L], if (length(rv$x)) 1), pt.cex = c(1, cex[1L], if (length(rv$x)) 1.3))
}

# Decision regions of a binary or multiclass classifier with two inputs.
plot_classes <- function(x, n_grid = 150L, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL,
                         col = NULL, pch = NULL, ...) {
  models <- if (inherits(x, "sb_rvm_multiclass")) x$models else list(x)
  X <- models[[1L]]$x
  g1 <- seq(min(X[, 1L]), max(X[, 1L]), length.out = n_grid)
  g2 <- seq(min(X[, 2L]), max(X[, 2L]), length.out = n_grid)
  grid <- matrix_newdata(models[[1L]], expand.grid(g1, g2))
  labels <- if (inherits(x, "sb_rvm_multiclass")) x$y else factor(x$levels[x$y + 1L], levels = x$levels)
  cols <- rep_len(col %||% grDevices::hcl.colors(nlevels(labels), "Dark 3"), nlevels(labels))  # one per class
  pch <- rep_len(pch %||% c(1, 3, 4, 2, 5), nlevels(labels))
  rv <- unique(do.call(rbind, lapply(models, function(m) basis_centres(m)[m$relevance_index, , drop = FALSE])))
  binary <- length(models) == 1L
  keys <- if (legend) c(levels(labels), sprintf("relevance vectors (%d)", nrow(rv)),
                        if (binary) c("p = 0.5", "p = 0.25, 0.75") else "class boundary")
  ylim <- legend_space(ylim %||% range(X[, 2L]), keys)
  default_main <- if (binary) "RVM classifier: decision boundary and relevance vectors"
                  else sprintf("RVM classifier: decision regions of %d classes (%s)", nlevels(labels),
                               if (is_multinomial(x)) "multinomial" else "one against the rest")
  main <- main %||% default_main
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(X[, 1L], X[, 2L], col = cols[labels], pch = pch[labels], xlab = xlab %||% colnames(X)[1L],
                 ylab = ylab %||% colnames(X)[2L], main = main, ylim = ylim, ...)
  if (binary) {
    p <- matrix(predict(x, grid, type = "response"), n_grid)
    graphics::contour(g1, g2, p, levels = 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
    graphics::contour(g1, g2, p, levels = c(0.25, 0.75), add = TRUE, drawlabels = FALSE, lty = 2)
  } else {
    cls <- matrix(as.integer(predict(x, grid)), n_grid)
    for (k in seq_len(nlevels(labels) - 1L))
      graphics::contour(g1, g2, cls, levels = k + 0.5, add = TRUE, drawlabels = FALSE, lwd = 2)
  }
  graphics::points(rv[, 1L], rv[, 2L], cex = 2, col = "black", lwd = 1.5)
  lines_lty <- if (binary) c(1, 2) else 1
  lines_lwd <- if (binary) c(2, 1) else 2
  draw_legend(ylim, keys, col = c(cols, "black", rep("black", length(lines_lty))),
              pch = c(pch, 1, rep(NA, length(lines_lty))), pt.cex = c(rep(1, length(cols)), 1.5, rep(1, length(lines_lty))),
              lty = c(rep(NA, length(cols) + 1L), lines_lty), lwd = c(rep(1, length(cols)), 1.5, lines_lwd))
}

# The evidence curve of a width search (rvm_width_search()): every width
# tried, the chosen one and the median heuristic marked.
plot_width_search <- function(x, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL, col = "grey30",
                              pch = 16, cex = 0.8, ...) {
  ws <- x$width_search
  if (is.null(ws))
    stop("which = \"width\" needs a fit whose kernel width was chosen by the evidence ",
         "(e.g. kernel = kernel_gaussian(width = \"evidence\")); this fit has no width search.", call. = FALSE)
  ok <- is.finite(ws$logLik)
  floor <- ok & ws$noise_at_floor %in% TRUE  # recorded, never chosen
  chosen <- fit_kernels(first_class_model(x))[[1L]]$width
  heuristic <- attr(ws, "heuristic")
  what <- search_criterion(ws)
  labels <- if (legend) c(sprintf("widths tried (%d)", sum(ok)), if (any(floor)) "noise at its floor",
                          sprintf("chosen %s", format(chosen, digits = 3)),
                          sprintf("median heuristic %s", format(heuristic, digits = 3)))
  ylim <- legend_space(ylim %||% range(ws$logLik[ok]), labels)
  main <- main %||% sprintf("%s%s by kernel width (chosen: %s)", toupper(substr(what, 1L, 1L)),
                           substring(what, 2L), format(chosen, digits = 3))
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(ws$width[ok], ws$logLik[ok], log = "x", type = "o", pch = pch, cex = cex, col = col,
                 xlab = xlab %||% sprintf("kernel width (%slog scale)",
                                          if (is.null(x$scaling)) "" else "standardised inputs, "),
                 ylab = ylab %||% what, ylim = ylim,
                 main = main, ...)
  if (any(floor)) graphics::points(ws$width[floor], ws$logLik[floor], pch = 4, cex = 1.3, col = "darkorange3")
  low <- graphics::par("usr")[3L]
  top <- attr(ylim, "data_top")  # vertical marks stop below the legend
  graphics::segments(heuristic, low, heuristic, top, lty = 3, col = "grey50")
  graphics::points(chosen, ws$logLik[which.min(abs(ws$width - chosen))], pch = 1, cex = 2.2, lwd = 2,
                   col = "firebrick")
  graphics::segments(chosen, low, chosen, top, lty = 2, col = "firebrick")
  draw_legend(ylim, labels, col = c(col[1L], if (any(floor)) "darkorange3", "firebrick", "grey50"),
              pch = c(pch[1L], if (any(floor)) 4, 1, NA), lty = c(1, if (any(floor)) NA, 2, 3),
              lwd = c(1, if (any(floor)) 1, 2, 1))
}

# A binary classifier with other than one or two inputs: what its users
# read, not lm's residual plots (two stripes). Left, the fitted probability
# of the second class for the rows of each class; right, the calibration:
# the share of the second class among the rows of each tenth of the fitted
# probabilities (deciles, pooled where tied) against their mean fitted
# probability, with the diagonal a calibrated classifier follows.
plot_calibration <- function(x, main = NULL, xlab = NULL, ylab = NULL, col = graphics::par("col"), pch = 16, cex = 0.6,
                             ...) {
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  second <- x$levels[2L]
  prob <- as.numeric(x$fitted.values)
  observed <- factor(x$levels[x$y + 1L], levels = x$levels)
  main <- rep_len(main %||% c("Fitted probability by class", "Calibration"), 2L)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% c("observed class", sprintf("fitted probability of %s (decile mean)", second)), 2L)
  ylab <- rep_len(ylab %||% c(sprintf("fitted probability of %s", second), sprintf("observed share of %s", second)), 2L)
  graphics::stripchart(prob ~ observed, vertical = TRUE, method = "jitter", jitter = 0.15, ylim = c(0, 1),
                       xlab = xlab[1L], ylab = ylab[1L], main = main[1L], pch = pch, cex = cex, col = col, ...)
  graphics::abline(h = 0.5, col = "grey50", lty = 2)
  bins <- unique(stats::quantile(prob, seq(0, 1, by = 0.1), names = FALSE, type = 1))
  bin <- if (length(bins) > 1L) cut(prob, bins, include.lowest = TRUE) else factor(rep(1L, length(prob)))
  graphics::plot(tapply(prob, bin, mean), tapply(x$y, bin, mean), xlim = c(0, 1), ylim = c(0, 1), type = "b",
                 xlab = xlab[2L], ylab = ylab[2L], main = main[2L], pch = pch, col = col, ...)
  graphics::abline(0, 1, col = "grey50", lty = 2)
}

# The reliability diagram of a classifier's fitted probabilities (an n x K
# matrix for the classes `y`): every (row, class) pair in ten bins of
# equal width of its probability; per bin the share of pairs whose row is
# of that class against the mean probability, as points of area by count.
plot_reliability <- function(x, main = "Reliability of the fitted probabilities", xlab = "predicted probability (bin mean)",
                             ylab = "observed frequency", col = graphics::par("col"), pch = 16, cex = 1, ...) {
  if (!likelihood_of(x$family$family)$classes)
    stop_arg("which", "\"reliability\" is for classifiers (binomial and multiclass fits).")
  r <- reliability_table(fitted_class_prob(x), observed_class(x))
  graphics::plot(r$predicted, r$observed, xlim = c(0, 1), ylim = c(0, 1), type = "b", main = main, xlab = xlab,
                 ylab = ylab, col = col, pch = pch, cex = cex * sqrt(r$count / max(r$count)) * 2, ...)
  graphics::abline(0, 1, col = "grey50", lty = 2)
  invisible(r)
}

# Per bin of equal width: mean predicted probability, observed frequency and count.
reliability_table <- function(prob, y, bins = 10L) {
  truth <- outer(as.integer(y), seq_len(ncol(prob)), "==")
  bin <- cut(as.numeric(prob), seq(0, 1, length.out = bins + 1L), include.lowest = TRUE)
  out <- data.frame(bin = levels(bin), predicted = as.numeric(tapply(as.numeric(prob), bin, mean)),
                    observed = as.numeric(tapply(as.numeric(truth), bin, mean)),
                    count = as.integer(table(bin)), stringsAsFactors = FALSE)
  out[out$count > 0, , drop = FALSE]
}

# A classifier's fitted probabilities, one column per class, and its classes.
fitted_class_prob <- function(x) {
  if (inherits(x, "sb_rvm_multiclass")) return(training_prob(x))
  p <- as.numeric(x$fitted.values)
  cbind(1 - p, p)
}
observed_class <- function(x) if (inherits(x, "sb_rvm_multiclass")) x$y else factor(x$y + 1L, levels = 1:2)

# A multiclass classifier with other than two inputs. Left, the fitted
# probability of every class for the rows of each observed class (one strip
# per class, in its colour): a good classifier puts a row's own class high
# and the others low. Right, the confusion table of the training rows,
# observed classes down and predicted across, each cell shaded by its share
# of the observed class. Returns the table, invisibly.
plot_class_probabilities <- function(x, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, col = NULL, pch = 16,
                                     cex = 0.6, ...) {
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  prob <- training_prob(x)
  classes <- x$levels
  k <- length(classes)
  cols <- rep_len(col %||% grDevices::hcl.colors(k, "Dark 3"), k)
  main <- rep_len(main %||% c("Fitted probability of each class", "Observed and predicted classes"), 2L)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% c("observed class", "predicted class"), 2L)
  ylab <- rep_len(ylab %||% c("fitted probability", "observed class"), 2L)
  strips <- unlist(lapply(classes, function(obs) lapply(seq_len(k), function(j) prob[x$y == obs, j])),
                   recursive = FALSE)
  keys <- if (legend) paste("probability of", classes)
  ylim <- legend_space(c(0, 1), keys)
  graphics::stripchart(strips, at = rep(seq_len(k), each = k) + rep((seq_len(k) - (k + 1) / 2) * 0.7 / k, k),
                       vertical = TRUE, method = "jitter", jitter = 0.25 / k, xlim = c(0.5, k + 0.5), ylim = ylim,
                       col = rep(cols, k), pch = pch, cex = cex, xlab = xlab[1L], ylab = ylab[1L], main = main[1L],
                       xaxt = "n", yaxt = "n", ...)
  graphics::axis(1L, at = seq_len(k), labels = classes)
  graphics::axis(2L, at = seq(0, 1, by = 0.2))
  graphics::abline(v = seq_len(k - 1L) + 0.5, col = "grey80")
  draw_legend(ylim, keys, col = cols, pch = pch)
  tab <- table(observed = x$y, predicted = class_of(prob, classes))
  share <- tab / pmax(rowSums(tab), 1)
  graphics::image(seq_len(k), seq_len(k), t(share[k:1, , drop = FALSE]), zlim = c(0, 1), axes = FALSE,
                  col = grDevices::colorRampPalette(c("white", "steelblue4"))(32), xlab = xlab[2L], ylab = ylab[2L],
                  main = main[2L])
  graphics::axis(1L, at = seq_len(k), labels = classes, tick = FALSE)
  graphics::axis(2L, at = seq_len(k), labels = rev(classes), tick = FALSE)
  graphics::box()
  cell <- expand.grid(predicted = seq_len(k), observed = seq_len(k))
  graphics::text(cell$predicted, k + 1L - cell$observed, tab[cbind(cell$observed, cell$predicted)],
                 col = ifelse(share[cbind(cell$observed, cell$predicted)] > 0.6, "white", "black"))
  invisible(tab)
}

plot_diagnostics <- function(x, main = NULL, xlab = NULL, ylab = NULL, col = graphics::par("col"), pch = 16, cex = 0.6,
                             ...) {
  op <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(op))
  response <- response_label(x)
  main <- rep_len(main %||% c("Fitted against observed values", "Residuals against fitted values"), 2L)
  op <- c(op, graphics::par(cex.main = title_cex(main)))
  xlab <- rep_len(xlab %||% paste(c("observed", "fitted"), response), 2L)
  ylab <- rep_len(ylab %||% c(paste("fitted", response), "residual (observed - fitted)"), 2L)
  graphics::plot(x$y, x$fitted.values, xlab = xlab[1L], ylab = ylab[1L], main = main[1L], pch = pch, cex = cex, col = col, ...)
  graphics::abline(0, 1, col = "grey50", lty = 2)
  graphics::plot(x$fitted.values, x$residuals, xlab = xlab[2L], ylab = ylab[2L], main = main[2L], pch = pch,
                 cex = cex, col = col, ...)
  graphics::abline(h = 0, col = "grey50", lty = 2)
}

`%||%` <- function(a, b) if (is.null(a)) b else a
