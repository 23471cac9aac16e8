# Kernel widths learned from the data: kernel_gaussian(width = "learn") (and
# the laplace and cauchy kernels). One width per input column, with the
# kernel variance and the noise, maximising the marginal likelihood of a
# Gaussian process with the same kernel on the training rows (the sparse GP
# core, analytic gradients, L-BFGS-B). The RVM evidence is no criterion for
# the width (it keeps rising towards narrow kernels, bench/RESULTS.md); the
# GP marginal likelihood has one weight prior for all kernels and penalises
# narrow widths through its log determinant.
#
# The GP is exact, on at most learn_max_rows rows (a random subset beyond:
# an evaluation costs O(n^3), and the widths need far fewer rows than the
# RVM, which is then fitted on all of them; bench/learned_widths.R). The
# VFE bound with fixed inducing points was cheaper but learned widths too
# wide (Boston housing: test RMSE 3.52 with 100 points against 3.23 exact).
# Two stages: one width for all inputs from the median heuristic, then one
# per input from that optimum, which finds the per-input optimum from a
# point already of the right overall scale. L-BFGS-B stops at factr = 1e10
# (a relative change of about 2e-6): closer optima moved no test error.
learn_max_rows <- 300L
learn_factr <- 1e10

is_learned_width <- function(kernel) identical(kernel$width, "learn")

# The kernel with its widths learned. `xs`: the scaled inputs of the rows in
# the fit; `targets`: a matrix with one column per output (a numeric
# response, or the 0/1 indicators of a classification; several columns
# share the widths, each with its own variance and noise in the sum of
# their objectives); `weights`: NULL or positive case weights.
learn_kernel_widths <- function(kernel, xs, targets, weights = NULL, control = sparse_gp_control()) {
  if (!kernel$type %in% c("gaussian", "laplace", "cauchy"))
    stop_arg("kernel", sprintf("is a %s kernel; widths are learned for the gaussian, laplace and cauchy kernels.",
                               kernel$type))
  targets <- as.matrix(targets)
  if (nrow(xs) < 3L) stop_arg("x", "has fewer than 3 rows; there is nothing to learn a kernel width from.")
  if (nrow(xs) > learn_max_rows) {  # a random subset (seed 1; the caller's random stream is left alone)
    state <- save_rng()
    on.exit(restore_rng(state), add = TRUE)
    set.seed(1)
    rows <- sort(sample.int(nrow(xs), learn_max_rows))
    xs <- xs[rows, , drop = FALSE]
    targets <- targets[rows, , drop = FALSE]
    if (!is.null(weights)) weights <- weights[rows]
  }
  n <- nrow(xs)
  p <- ncol(xs)
  units <- lapply(seq_len(ncol(targets)), function(j) gp_standard_units(targets[, j], weights))
  wt <- if (is.null(weights)) numeric(0) else weights
  zz <- matrix(0, 0, p)
  h <- default_width(xs)
  # theta = (log widths, then per output log variance and log noise)
  objective <- function(theta, nw) {
    value <- 0
    grad <- numeric(length(theta))
    for (j in seq_along(units)) {
      at <- nw + 2L * j - 1L
      k <- kernel
      k$width <- exp(theta[seq_len(nw)])
      k$variance <- exp(theta[at])
      res <- .sb_gp_objective(unclass(k), exp(theta[at + 1L]), xs, units[[j]]$r, zz, wt, "exact", control$jitter,
                              TRUE)
      value <- value + res$value
      grad[seq_len(nw)] <- grad[seq_len(nw)] + res$gradient[seq_len(nw)]
      grad[at + 0:1] <- res$gradient[nw + 1:2]
    }
    list(value = value, gradient = grad)
  }
  optimise <- function(theta0, nw) {
    vy <- vapply(units, function(u) u$variance, numeric(1))
    lower <- c(rep(log(h) - log(1e4), nw), rbind(log(vy) - log(1e6), log(control$noise_lower * vy)))
    upper <- c(rep(log(h) + log(1e4), nw), rbind(log(vy) + log(1e6), log(vy) + log(1e3)))
    cache <- new.env()
    eval_at <- function(theta) {
      if (!identical(theta, cache$theta)) {
        cache$theta <- theta
        cache$res <- objective(theta, nw)
      }
      cache$res
    }
    theta0 <- pmin(pmax(theta0, lower), upper)
    f0 <- eval_at(theta0)$value
    res <- tryCatch(
      stats::optim(theta0, function(t) eval_at(t)$value - f0, function(t) eval_at(t)$gradient, method = "L-BFGS-B",
                   lower = lower, upper = upper,
                   control = list(maxit = control$maxit, factr = learn_factr)),
      error = function(e) stop("learning the kernel widths failed: ", conditionMessage(e), call. = FALSE))
    list(theta = res$par, value = res$value + f0, converged = res$convergence == 0L)
  }
  hyper0 <- as.vector(rbind(log(vapply(units, function(u) u$variance, numeric(1))),
                            log(vapply(units, function(u) u$variance, numeric(1)) / 10)))
  one <- optimise(c(log(h), hyper0), 1L)
  all <- optimise(c(rep(one$theta[1L], p), one$theta[-1L]), p)
  widths <- exp(all$theta[seq_len(p)])
  names(widths) <- colnames(xs)
  hyper <- matrix(exp(all$theta[-seq_len(p)]), 2L)
  kernel$width <- widths
  kernel$width_rule <- "learn"
  kernel$learned <- list(criterion = "exact GP marginal likelihood", width = widths,
                         logLik = -all$value - sum(vapply(units, function(u) (if (length(wt)) sum(wt) else n) *
                                                                     log(u$scale), numeric(1))),
                         variance = hyper[1L, ] * vapply(units, function(u) u$scale^2, numeric(1)),
                         noise = hyper[2L, ] * vapply(units, function(u) u$scale^2, numeric(1)),
                         converged = all$converged, n = n)
  kernel
}

# What the widths are learned from, one column per output: the response
# (less its offset), the indicator of the second class (binomial) or of
# each class (multiclass), log(1 + y) for counts.
learning_targets <- function(y, family, offset = NULL) {
  if (is.factor(y)) {
    classes <- if (nlevels(y) == 2L) levels(y)[2L] else levels(y)
    return(vapply(classes, function(k) as.numeric(y == k), numeric(length(y))))
  }
  as.matrix(switch(family$family, gaussian = y - (offset %||% 0), poisson = log1p(y), y))
}

#' Relevance of each input of a kernel model
#'
#' With one kernel width per input column (`width = "learn"` in
#' [kernel_gaussian()] and friends, or a vector of widths), the width of
#' each input says how far apart two inputs must be, in that column, for
#' the kernel to treat them as different: a small width marks an input the
#' fit depends on, a width many times the others an input it ignores (the
#' idea of automatic relevance determination, applied to the kernel's
#' inputs). Widths are in the units the kernel sees (standardised inputs
#' with `scale = TRUE`), so they compare across columns.
#'
#' @param object A fit of [rvm()] or [sparse_gp()] with a kernel that has
#'   widths.
#' @param ... Unused.
#' @return A data frame with one row per input column (as the kernel sees
#'   them, factors expanded), in decreasing order of relevance: `input`,
#'   `width` and `relevance`, the inverse squared width relative to the
#'   largest (1 for the most relevant input).
#' @seealso [plot.sb_rvm()] with `which = "inputs"`, [tidy.sb_rvm()].
#' @examples
#' fit <- rvm(accel ~ times, data = MASS::mcycle, kernel = kernel_gaussian("learn"))
#' input_relevance(fit)
#' @export
input_relevance <- function(object, ...) {
  check_dots_empty(...)
  kernel <- if (inherits(object, "sb_rvm_multiclass")) object$models[[1L]]$kernel else object$kernel
  if (!inherits(object, c("sb_rvm", "sb_rvm_multiclass", "sb_sparse_gp")) || !inherits(kernel, "sparsebayes_kernel") ||
      !is.numeric(kernel$width))
    stop_arg("object", "must be a fit of rvm() or sparse_gp() with a single kernel that has widths.")
  inputs <- colnames(object$x) %||% paste0("x", seq_len(ncol(object$x)))
  width <- rep_len(unname(kernel$width), length(inputs))
  out <- data.frame(input = inputs, width = width, relevance = (min(width) / width)^2, stringsAsFactors = FALSE)
  out <- out[order(out$width), , drop = FALSE]
  rownames(out) <- NULL
  out
}

is_per_input_kernel <- function(kernel) {
  inherits(kernel, "sparsebayes_kernel") && is.numeric(kernel$width) && length(kernel$width) > 1L
}

# The input relevance table of summary(): the 10 most relevant inputs.
print_input_relevance <- function(inputs, digits, top = 10L) {
  cat(sprintf("Input relevance:    widths per input (small = relevant)%s\n",
              if (nrow(inputs) > top) sprintf(", the %d most relevant of %d", top, nrow(inputs)) else ""))
  shown <- utils::head(inputs, top)
  print(data.frame(input = shown$input, width = signif(shown$width, digits), relevance = signif(shown$relevance, 2L)),
        row.names = FALSE)
}

# A dot chart of the inputs' widths (log scale), most relevant at the top.
plot_input_relevance <- function(x, main = NULL, xlab = NULL, pch = 19, col = "grey20", ...) {
  inputs <- input_relevance(x)
  shown <- inputs[rev(seq_len(nrow(inputs))), , drop = FALSE]
  graphics::dotchart(shown$width, labels = shown$input, log = "x", pch = pch, col = col,
                     main = main %||% "Input relevance: kernel width per input",
                     xlab = xlab %||% "width (log scale; small = relevant)", ...)
  invisible(x)
}
