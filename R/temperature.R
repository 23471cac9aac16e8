# Class probabilities at a temperature: p_k^t normalised over the classes
# (for two classes, the logit times t). t < 1 makes a fit's probabilities
# less sure, t > 1 surer; the most probable class of every row stays (so
# error rates and confusion tables do not change). t is chosen by the
# held-out log loss of five fits on the training rows (the fit's kernel,
# basis and settings held; only the rows' weights change), as svm's Platt
# scaling is fitted by an inner CV. Why: the Laplace approximation of a
# sparse classifier is overconfident where a few vectors carry a boundary in
# many inputs (Sonar, t about 0.5: held-out log loss 0.482 -> 0.423) and
# underconfident where the classes separate (crabs, t about 3-5: 0.110 ->
# 0.062); on K classes it won on iris and Vehicle and lost on Glass and Zoo,
# so it is the default for two classes only (bench/RESULTS.md, issue 57).
# Tempering towards the class shares instead (p^t s^(1 - t), which keeps a
# point the model knows nothing of at the shares) had the same log loss
# but moved rows near 1/2 to the larger class: test error on Sonar,
# Ionosphere and Pima 0.212, 0.060, 0.228 -> 0.216, 0.063, 0.230, and on
# Glass (K classes) 0.322 -> 0.374.

# The temperature setting of a fit (rvm_control(temperature)): "cv" or a
# number, or NULL for none. "auto" is "cv" for two classes.
temperature_setting <- function(control, classes) {
  s <- control$temperature %||% "auto"
  if (identical(s, "auto")) return(if (classes == 2L) "cv")
  if (is.numeric(s) && s == 1) NULL else s
}

# The fit with its probabilities' temperature (fit$temperature), for a
# classifier fitted in memory from problem p and its design.
temper_fit <- function(fit, p, call) {
  if (!is.factor(p$y)) return(fit)
  setting <- temperature_setting(p$solver$control, nlevels(p$y))
  if (is.null(setting)) return(fit)
  if (!is.null(p$chunks)) {
    if (identical(setting, "cv"))
      fit$temperature <- list(t = 1, method = "cv", reason = "a fit from chunks has no rows in memory to hold out")
    return(fit)
  }
  fit$temperature <- if (is.numeric(setting)) list(t = setting, method = "given")
                     else cv_temperature(p, call, p$wo$weights %||% rep(1, length(p$y)))
  fit
}

# The rows of positive weight grouped by content: rows with the same class,
# inputs (or basis row) and offset are one group, the groups numbered in the
# rows' sorted order; 0 for the other rows. The order of the rows changes
# nothing.
content_groups <- function(rows, y, offset, use) {
  idx <- which(use)
  key <- cbind(as.integer(y[idx]), unname(as.matrix(rows[idx, , drop = FALSE])), offset[idx])
  o <- do.call(order, lapply(seq_len(ncol(key)), function(j) key[, j]))
  ks <- key[o, , drop = FALSE]
  starts <- c(TRUE, rowSums(ks[-1L, , drop = FALSE] != ks[-nrow(ks), , drop = FALSE]) > 0)
  out <- integer(length(y))
  out[idx[o]] <- cumsum(starts)
  out
}

# Folds of the groups (their classes in group order, a class's groups
# consecutive): dealt in turn within each class, so every fold holds each
# class; a class of fewer than two groups is never held out (0), as its
# inner fits would not know it.
group_folds <- function(class, folds = 5L) {
  rank <- seq_along(class) - match(class, class)
  ifelse(tabulate(class)[class] >= 2L, rank %% folds + 1L, 0L)
}

# Problem p on some of its rows (`rows`, each once) with `weights`: the inner
# fits' problem, copies pooled into one row of their summed weight (as a
# weight acts as copies, and as the fast solver then sees the same problem
# for a row of weight 2 and two copies; duplicate basis columns otherwise
# send its greedy path elsewhere by rounding).
problem_rows <- function(p, rows, weights) {
  q <- p
  q$x <- p$x[rows, , drop = FALSE]
  if (!is.null(p$xs)) q$xs <- p$xs[rows, , drop = FALSE]
  if (!is.null(p$Phi)) q$Phi <- p$Phi[rows, , drop = FALSE]
  if (!is.null(p$centres)) q$centres <- unique(p$centres)
  q$y <- p$y[rows]
  q$in_fit <- rep(TRUE, length(rows))
  q$n <- length(rows)
  q$wo <- list(weights = weights, offset = p$wo$offset[rows])
  q
}

# t by the held-out log loss of `folds` inner fits on the distinct rows
# (the held-out groups' weights set to 0), searched on [1/20, 20]. Too few
# rows, or an inner fit that fails, leaves t = 1 and says why.
cv_temperature <- function(p, call, w, folds = 5L) {
  out <- list(t = 1, method = "cv", folds = folds)
  group <- content_groups(if (is.null(p$Phi)) p$x else p$Phi, p$y, p$wo$offset, w > 0)
  if (max(group) < 20L) return(c(out, list(reason = "fewer than 20 distinct rows: probabilities as fitted")))
  first <- match(seq_len(max(group)), group)
  gw <- as.numeric(tapply(w[group > 0], group[group > 0], sum))
  q <- problem_rows(p, first, gw)
  q$solver$control$verbose <- FALSE
  design <- rvm_design(q)
  fold <- group_folds(as.integer(q$y), folds)
  P <- matrix(NA_real_, length(first), nlevels(q$y))
  inner <- q
  for (k in seq_len(folds)) {
    held <- fold == k
    if (!any(held)) next
    inner$wo$weights <- ifelse(held, 0, gw)
    res <- tryCatch(withCallingHandlers({
      fit <- fit_rvm(inner, call, design)
      held_out_prob(fit, design$rows[held, , drop = FALSE], q$wo$offset[held])
    }, warning = function(wn) invokeRestart("muffleWarning")),
    error = function(e) conditionMessage(e))
    if (is.character(res)) return(c(out, list(reason = paste("an inner fit failed:", res))))
    P[held, ] <- res
  }
  ok <- fold > 0
  L <- log(pmax(P[ok, , drop = FALSE], 1e-300))
  obs <- cbind(seq_len(sum(ok)), as.integer(q$y[ok]))
  wk <- gw[ok]
  loss <- function(u) {  # weighted held-out log loss at t = exp(u)
    t <- exp(u)
    Z <- t * L
    m <- apply(Z, 1L, max)
    sum(wk * (m + log(rowSums(exp(Z - m))) - Z[obs])) / sum(wk)
  }
  range <- log(c(1 / 20, 20))
  opt <- stats::optimize(loss, range, tol = 1e-9)  # the loss is flat near t: weights and copies must agree to 1e-6
  t <- exp(opt$minimum)
  c(list(t = t, method = "cv", folds = folds, rows = sum(wk),  # rows held out, a weight w counting w
         log_loss = c(fitted = loss(0), tempered = opt$objective)),
    if (any(abs(opt$minimum - range) < 1e-2)) list(bound = if (t < 1) "lower" else "upper"))
}

# Class probabilities (a matrix, one column per class) of an inner fit at
# held-out rows.
held_out_prob <- function(fit, rows, offset) {
  if (inherits(fit, "sb_rvm_multiclass")) return(class_prob(fit, rows))
  predict(fit, rows, type = "prob", offset = offset)
}

# Probabilities P (rows of class probabilities) at the fit's temperature.
temper <- function(P, temperature) {
  t <- temperature$t  # NULL: no temperature
  if (is.null(t) || t == 1) return(P)
  softmax(t * log(pmax(P, 1e-300)))  # R/multiclass.R
}

# summary()'s line on the temperature ("" when there is none).
temperature_line <- function(temperature, digits = 3L) {
  if (is.null(temperature)) return("")
  t <- format(temperature$t, digits = digits)
  what <- if (!is.null(temperature$reason)) sprintf("as fitted (t = 1): %s", temperature$reason)
          else if (identical(temperature$method, "given")) sprintf("at temperature t = %s (given)", t)
          else sprintf("at temperature t = %s%s (%d-fold CV of the training rows: held-out log loss %s -> %s)",
                       t, if (is.null(temperature$bound)) "" else sprintf(" at its %s bound", temperature$bound),
                       temperature$folds, format(temperature$log_loss[["fitted"]], digits = digits),
                       format(temperature$log_loss[["tempered"]], digits = digits))
  sprintf("Probabilities:      %s\n", what)
}
