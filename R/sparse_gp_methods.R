# S3 methods for sparse_gp fits.

#' Predict from a sparse GP
#'
#' The predictive mean of a fitted sparse GP at new inputs, with optional
#' standard errors of the latent function and confidence or prediction
#' intervals, computed from m x m factors only.
#'
#' @param object A fitted [sparse_gp()].
#' @param newdata New inputs: a data frame for formula fits, a numeric
#'   matrix (or vector for one input) otherwise. `NULL` uses the training
#'   inputs.
#' @param se.fit Return the standard error of the latent mean function?
#' @param interval `"none"`, `"confidence"` (for the latent function f) or
#'   `"prediction"` (for a new noisy observation y, adding the noise
#'   variance).
#' @param level Coverage of the interval.
#' @param offset Matrix fits made with an `offset`: its value at each row of
#'   `newdata`. Formula fits evaluate their offset in `newdata`.
#' @param ... Unused.
#' @details The predictive distribution of f at x* is Gaussian with mean
#'   `mean + K_*u (K_uu + K_uf Lambda^-1 K_fu)^-1 K_uf Lambda^-1 (y - mean)`
#'   and variance `k** - Q_** + K_*u (K_uu + K_uf Lambda^-1 K_fu)^-1 K_u*`
#'   (the exact GP's with K_ff for exact fits), computed from the stored
#'   Cholesky factors as sums of squares (see [sparse_gp()], Numerics).
#' @return As [stats::predict.lm()]: a vector of predictions, or with an
#'   interval a matrix with columns `fit`, `lwr`, `upr`; with `se.fit = TRUE`
#'   a list with `fit`, `se.fit`, `df` (`Inf`) and `residual.scale` (the
#'   noise sd). Rows of `newdata` with missing values give `NA`.
#' @examples
#' fit <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, seed = 1)
#' predict(fit, data.frame(times = c(10, 20, 30)), interval = "prediction")
#' @export
predict.sb_sparse_gp <- function(object, newdata = NULL, se.fit = FALSE,
                                 interval = c("none", "confidence", "prediction"), level = 0.95, offset = NULL, ...) {
  interval <- match_arg(interval)
  check_prediction_args(se.fit, level)
  want_var <- se.fit || interval != "none"
  if (is.null(newdata)) check_has_rows(object, "predict() without newdata")
  if (is.null(newdata) && !want_var) return(pad_training(object, object$fitted.values))
  x <- if (is.null(newdata)) object$x else new_inputs(object, newdata)
  lat <- gp_latent(object, x, variance = want_var)
  fit <- lat$mean + prediction_offset(object, newdata, offset, nrow(x))
  if (!want_var) return(fit)
  out <- gaussian_prediction(fit, sqrt(lat$var), object$noise_variance, se.fit, interval, level)
  if (is.null(newdata)) pad_training(object, out) else out
}

gp_title <- function(x) gp_approxes[[x$approx]]$title

#' @export
print.sb_sparse_gp <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat(gp_title(x), "\n", sep = "")
  cat("Call: ", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n  "), "\n", sep = "")
  cat(sprintf("Kernel: %s\n", utils::capture.output(print(x$kernel))))
  cat(sprintf("%s (n = %d); noise sd %s; %s %s\n",
              if (gp_approxes[[x$approx]]$exact) "all training inputs" else inducing_label(x),
              stats::nobs(x), format(sqrt(x$noise_variance), digits = digits),
              gp_criterion(gp_approxes[[x$approx]]), format(x$logLik, digits = digits + 2L)))
  cat(sprintf("Optimised: %s; %s\n", x$optimize, optim_label(x)))
  invisible(x)
}

optim_label <- function(x) {
  if (!gp_optimizes[[x$optimize]]$hyper) return("no optimisation")
  sprintf("L-BFGS-B, %d evaluations%s, %s", x$iterations[[1L]], subsample_label(x$subsample),
          if (x$converged) "converged" else "NOT converged")
}

# "m inducing points", and how many were asked for and what the others
# were worth when some were dropped (those K_uu cannot tell apart,
# gp_settle_inducing()).
inducing_label <- function(x) {
  ind <- x$learned$inducing
  if (is.null(ind) || ind[["kept"]] == ind[["asked"]]) return(sprintf("%d inducing points", x$m))
  sprintf("%d inducing points of %d asked, the rest worth %.2g nats", x$m, ind[["asked"]],
          if ("worth" %in% names(ind)) ind[["worth"]] else NA_real_)
}

subsample_label <- function(subsample) if (is.null(subsample)) "" else sprintf(" on %d rows", subsample)

#' Summarise a sparse GP fit
#'
#' Condenses a sparse GP fit: the approximation, the number of inducing
#' points, the hyperparameters, the log evidence (the bound for VFE) and
#' the optimiser's convergence.
#'
#' @param object A fitted [sparse_gp()].
#' @param x A `summary.sb_sparse_gp` object.
#' @param digits Significant digits to print.
#' @param ... Unused.
#' @return `summary.sb_sparse_gp` returns an object of class
#'   `"summary.sb_sparse_gp"`: a list with `call`, `title`, `approx`,
#'   `optimize`, `n`, `m`, `hyperparameters` (the named vector of
#'   [coef.sb_sparse_gp()]), `sigma` (noise sd), `logLik`, `criterion` (what was
#'   maximised: `"ELBO"` or `"log marginal likelihood"`; `objective`, its
#'   former name, is kept for one release), `converged`,
#'   `iterations`, `message`, `subsample` (the number of rows the
#'   hyperparameters were learned on, or `NULL` for all), `restarts` (log
#'   marginal likelihoods reached from each start), `jitter_events`, `rmse`,
#'   `r_squared` (training) and
#'   `edf`, the effective degrees of freedom `sum(hatvalues(object))`, and
#'   `learning`, lines naming learned hyperparameters that fell back to a
#'   heuristic, ended at a bound of their search or were learned from
#'   pooled exact copies of rows (when more than a tenth of the rows;
#'   `learned$copies` counts them in any case), how many of the inducing points asked for
#'   were kept, what those dropped are worth and how many were restored
#'   after learning (see `inducing_tol` and `inducing_cost` in
#'   [sparse_gp_control()]), and whether the first start ran to the
#'   constant model (see A second start in [sparse_gp()]).
#' @examples
#' summary(sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, seed = 1))
#' @export
summary.sb_sparse_gp <- function(object, ...) {
  criterion <- gp_criterion(gp_approxes[[object$approx]])
  structure(list(call = object$call, title = gp_title(object), approx = object$approx,
                 optimize = object$optimize, n = stats::nobs(object), m = object$m, hyperparameters = coef(object),
                 sigma = sqrt(object$noise_variance), logLik = object$logLik,
                 criterion = criterion, objective = criterion,  # objective: the former name, for one release
                 converged = object$converged, iterations = object$iterations, message = object$message,
                 subsample = object$subsample, restarts = object$restart_values, jitter_events = object$jitter_events,
                 rmse = training_rmse(object), r_squared = training_r_squared(object),
                 edf = object$edf %||% sum(leverage(object)), learning = learning_notes(object$learned, length(object$y))),
            class = "summary.sb_sparse_gp")
}

#' @rdname summary.sb_sparse_gp
#' @export
print.summary.sb_sparse_gp <- function(x, digits = max(3L, getOption("digits") - 3L), ...) {
  cat(x$title, "\n\nCall:\n", paste(deparse(x$call, width.cutoff = 70L), collapse = "\n"), "\n\n", sep = "")
  cat(sprintf("Inducing points:    %s\n", if (gp_approxes[[x$approx]]$exact) sprintf("none (exact GP, n = %d)", x$n)
                                          else sprintf("%d (n = %d)", x$m, x$n)))
  cat("Hyperparameters:\n")
  print(signif(x$hyperparameters, digits))
  cat(sprintf("Noise sd:           %s\n", format(x$sigma, digits = digits)))
  cat(sprintf("Training RMSE:      %s   (R-squared %s)\n", format(x$rmse, digits = digits),
              format(x$r_squared, digits = digits)))
  cat(sprintf("Effective df:       %s\n", format(x$edf, digits = digits)))
  cat(sprintf("%-20s%s\n", paste0(if (x$criterion == "ELBO") "ELBO" else "Log marginal lik.", ":"),
              format(x$logLik, digits = digits + 2L)))
  if (!gp_optimizes[[x$optimize]]$hyper) {
    cat("Optimisation:       none\n")
  } else {
    cat(sprintf("Optimisation:       %s; L-BFGS-B, %d function evaluations%s, %s\n", x$optimize,
                x$iterations[[1L]], subsample_label(x$subsample),
                if (x$converged) "converged" else paste0("NOT converged (", x$message, ")")))
    if (length(x$restarts) > 1L)
      cat(sprintf("Starts:             %s\n", paste(format(x$restarts, digits = digits + 2L), collapse = ", ")))
  }
  if (x$jitter_events > 0L) cat(sprintf("Jitter retries:     %d\n", x$jitter_events))
  print_learning_notes(x$learning)
  invisible(x)
}

#' Hyperparameters of a sparse GP
#'
#' A sparse GP has no sparse weight vector to report; its coefficients are
#' the fitted constant mean and the kernel and noise hyperparameters.
#'
#' @param object A fitted [sparse_gp()].
#' @param ... Unused.
#' @return A named vector: the constant `(mean)`, the kernel `width` (in
#'   scaled units when the inputs were standardised) and `variance`, and the
#'   `noise` variance.
#' @examples
#' coef(sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, seed = 1))
#' @export
coef.sb_sparse_gp <- function(object, ...) {
  c(`(mean)` = object$mean, width = object$kernel$width, variance = object$kernel$variance, noise = object$noise_variance)
}

#' @export
logLik.sb_sparse_gp <- function(object, ...) {
  optimize <- gp_optimizes[[object$optimize]]
  df <- 1L + optimize$hyper * 2L + isTRUE(object$noise_estimated) +
    (optimize$inducing && !gp_approxes[[object$approx]]$exact) * length(object$inducing)
  structure(object$logLik, df = df, nobs = stats::nobs(object), class = "logLik")
}

#' @export
vcov.sb_sparse_gp <- function(object, ...) {
  stop("a sparse_gp fit has no covariance matrix of its hyperparameters; the posterior covariance of the ",
       "latent values at the inducing points is `object$qu_cov`.", call. = FALSE)
}

#' Leverage and leave-one-out residuals of a sparse GP
#'
#' The fitted latent mean at the training inputs is `H y` with
#' `H = I - Lambda Pi`, `Pi = (Q_ff + Lambda)^-1` (`Q_ff = K_ff` for the exact
#' GP), so the leverage of observation i is `h_i = 1 - Lambda_ii Pi_ii`
#' (`Lambda_ii` is the noise variance for VFE and exact fits; FITC adds its
#' diagonal correction). The leave-one-out residual is `[Pi e]_i / Pi_ii`
#' with `e = y - mean` (Rasmussen and Williams 2006, eq. 5.12): exactly the
#' residual of a refit without observation i with the hyperparameters, the
#' inducing points and the constant mean held fixed. `diag(Pi)` and `Pi r`
#' cost O(n m^2): no n x n matrix is formed.
#'
#' @param model,object A fitted [sparse_gp()].
#' @param type `"response"` (`y - fitted`), `"pearson"` (the response
#'   residual divided by the noise sd) or `"loo"` (leave-one-out).
#' @param ... Unused.
#' @return A numeric vector of length n.
#' @references Rasmussen, C. E. and Williams, C. K. I. (2006). *Gaussian
#'   Processes for Machine Learning*, section 5.4.2. MIT Press.
#' @examples
#' fit <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, seed = 1)
#' sum(hatvalues(fit))                      # effective degrees of freedom
#' sqrt(mean(residuals(fit, type = "loo")^2))  # LOO RMSE
#' @name sparse_gp_diagnostics
NULL

# h_i = 1 - Lambda_ii Pi_ii; 0 for a row of weight 0 (Lambda Inf), which is not in the fit.
leverage_gp <- function(model) ifelse(is.finite(model$Lambda), 1 - model$Lambda * gp_row_variances(model)$pi_diag, 0)

#' @rdname sparse_gp_diagnostics
#' @importFrom stats hatvalues
#' @export
hatvalues.sb_sparse_gp <- function(model, ...) {
  check_has_rows(model, "hatvalues()")
  h <- leverage_gp(model)
  names(h) <- names(model$fitted.values)
  stats::naresid(model$na.action, h)
}

#' @rdname sparse_gp_diagnostics
#' @export
residuals.sb_sparse_gp <- function(object, type = c("response", "pearson", "loo"), ...) {
  type <- match_arg(type)
  check_has_rows(object, "residuals()")
  point_noise <- object$noise_variance / row_precisions(object)
  r <- switch(type, response = object$residuals, pearson = object$residuals / sqrt(point_noise),
              loo = {
                pi_diag <- gp_row_variances(object)$pi_diag
                ifelse(pi_diag > 0, object$pi_r / pi_diag, object$residuals)  # weight 0: not in the fit
              })
  names(r) <- names(object$fitted.values)
  stats::naresid(object$na.action, r)
}

#' @describeIn ess For a [sparse_gp()] fit, `which = "samples"` scores each
#'   training point by its precision `1 / Lambda_i` in the approximate
#'   likelihood: with FITC, `Lambda_i = k(x_i, x_i) - Q_ii + noise`, so
#'   points far from the inducing locations count less; with VFE and the
#'   exact GP every point has the noise variance and the ESS is 1. A GP has
#'   no weights to score: `which = "weights"` stops and points to
#'   `sum(hatvalues(x))`, its effective degrees of freedom.
#' @export
ess.sb_sparse_gp <- function(x, which = c("samples", "weights"), order = 1, ...) {
  check_dots_empty(...)
  which <- match_arg(which)
  check_order(order)
  if (which == "samples") check_has_rows(x, "ess(which = \"samples\")")
  if (which == "weights")
    stop_arg("which", "\"weights\" has no meaning for a GP (it has no weights); its effective degrees of freedom ",
             "are sum(hatvalues(x)).")
  ess_scores(1 / x$Lambda, order)
}

#' Plot a sparse GP fit
#'
#' With one input: the data, the predictive mean with a prediction band and
#' the inducing locations marked as a rug (and as points on the mean).
#' With several inputs, as [plot.sb_rvm()]: fitted against observed values,
#' and residuals against fitted values. `main`, `xlab` and `ylab` then take
#' one value per panel (one value is used for both).
#'
#' The legend sits in a band above the data (the upper y limit is raised to
#' make room), never over it, and `par()` is left as it was.
#'
#' @param x A fitted [sparse_gp()].
#' @param level Coverage of the prediction band.
#' @param n_grid Number of grid points for the curve.
#' @param legend `FALSE` to draw no legend (and reserve no room for one).
#' @param main,xlab,ylab Title and axis labels, replacing the defaults.
#' @param ylim Limits of the y axis (the legend's band is added above them).
#' @param col,pch,cex Colour, symbol and size of the data points.
#' @param ... Graphical parameters passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @examples
#' plot(sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, seed = 1))
#' @export
plot.sb_sparse_gp <- function(x, level = 0.95, n_grid = 400L, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL,
                              ylim = NULL, col = "grey40", pch = 16, cex = 0.6, ...) {
  check_probability(level, "level")
  check_number(n_grid, "n_grid", lower = 2, integer = TRUE)
  check_flag(legend, "legend")
  check_has_rows(x, "plot()")
  response <- response_label(x)
  if (ncol(x$x) != 1L) {
    # the two panels of the RVM's and ARD's plot (plot_diagnostics())
    main <- main %||% sprintf("%s: %s", gp_title(x), c("fitted against observed", "residuals against fitted"))
    plot_diagnostics(x, main = main, xlab = xlab, ylab = ylab, col = col, pch = pch, cex = cex,
                     ylim = ylim, ...)
    return(invisible(x))
  }
  xin <- x$x[, 1L]
  grid <- seq(min(xin, x$inducing), max(xin, x$inducing), length.out = n_grid)
  pr <- predict(x, matrix_newdata(x, grid), interval = "prediction", level = level)
  inducing <- !is.null(x$inducing)
  labels <- if (legend) c("predictive mean", sprintf("%g%% prediction band", 100 * level), "data",
                          if (inducing) sprintf("inducing points (%d)", x$m))
  ylim <- legend_space(ylim %||% range(x$y, pr[, c("lwr", "upr")]), labels)
  main <- main %||% sprintf("%s: mean and %g%% prediction band", gp_title(x), 100 * level)
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(xin, x$y, xlab = xlab %||% input_label(x), ylab = ylab %||% response,
                 main = main,
                 pch = pch, cex = cex, col = col, xlim = range(grid), ylim = ylim, ...)
  graphics::polygon(c(grid, rev(grid)), c(pr[, "lwr"], rev(pr[, "upr"])),
                    col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
  graphics::lines(grid, pr[, "fit"], col = "steelblue4", lwd = 2)
  if (inducing) {
    zi <- x$inducing[, 1L]
    graphics::rug(zi, col = "firebrick", lwd = 1.5)
    graphics::points(zi, predict(x, matrix_newdata(x, zi)), pch = 4, col = "firebrick", lwd = 1.5)
  }
  draw_legend(ylim, labels, col = c("steelblue4", grDevices::adjustcolor("steelblue", 0.4), col[1L],
                                    if (inducing) "firebrick"),
              lwd = c(2, 8, NA, if (inducing) 1.5), lty = c(1, 1, NA, if (inducing) NA),
              pch = c(NA, NA, pch[1L], if (inducing) 4), pt.cex = c(1, 1, cex[1L], if (inducing) 1))
  invisible(x)
}
