# Standard units for every gaussian fit (rvm() with any solver or the
# wavelet shortcut, ard() with any solver): the one place where the
# response is put in standard units and the result mapped back.
#
# Going in (standard_units): the offset is subtracted; zero-weight rows are
# dropped; when the basis has a constant non-zero column (rvm's "(bias)",
# ard's "(Intercept)", a constant column of a user basis, the scaling
# function of a wavelet basis) the target is centred by its weighted mean
# (weighted median with per-sample noise);
# it is divided by an overflow-safe scale computed on y / max|y|: with
# shared noise the sd (with weights, that of the rows replicated w times),
# which sums over chunks of rows give (data_chunks()); with per-sample noise
# the MAD (the sd when the MAD is 0), which a gross outlier does not move.
# The fits are equivariant up to their convergence tolerances, so the scale
# is only the units (the sd and the MAD gave fits within 1e-5). Rows are
# multiplied by sqrt(weights), so that lambda_i = lambda / w_i exactly.
#
# Coming out (caller_units): weights x scale (+ shift / value on the constant
# column, which is then always relevant: if the standardised fit pruned it,
# it carries the shift alone as an unpenalised intercept, alpha 0, variance
# 1 / sum(value^2 / lambda_i)), Sigma x scale^2, alpha /
# scale^2, noise x scale^2 (per-sample: / w_i; Inf for zero-weight rows),
# fitted values Phi w + offset at every row, and the log evidence and log
# posterior - n log(scale) + sum(log w) / 2 (the Jacobian): the evidence is
# that of the standardised model, expressed as a density of y.

# Weights and offset of a gaussian fit, checked. NULL when trivial.
check_weights_offset <- function(weights, offset, n) {
  list(weights = check_weights(weights, n), offset = check_offset(offset, n))
}

# The first constant non-zero column, c(column, value) (c(0, 0) if none),
# from the columns' moments (size, center, sd: column_moments() of the rows
# in memory, or a chunk source's sums pass): its sd at most 1e-9 of its
# largest magnitude, one rule for both, as the sums keep no row to compare.
constant_column <- function(m) {
  j <- which(m$sd <= 1e-9 * m$size & m$size > 0 & is.finite(m$center) & m$center != 0)[1L]
  if (is.na(j)) c(0, 0) else c(j, m$center[j])
}

# An overflow-safe, positive scale of r (never 0): robust, the MAD (the sd
# when the MAD is 0); otherwise the sd, with `w` that of r's rows
# replicated w times.
robust_scale <- function(r, w = NULL, robust = TRUE) {
  size <- max(abs(r))
  if (!is.finite(size) || size == 0) return(1)
  u <- r / size
  s <- if (robust) stats::mad(u) else 0
  if (!(s > 0)) s <- if (is.null(w)) stats::sd(u) else sqrt(max(replicated_variance(u, w), 0))
  if (!is.finite(s) || !(s > 0)) s <- 1
  s * size
}

# Weighted median, symmetric (the midpoint of the lower and upper weighted
# medians), so that it is equivariant under y -> a y + b for any sign of a.
weighted_median <- function(z, w) {
  o <- order(z)
  z <- z[o]
  w <- w[o]
  half <- sum(w) / 2
  lo <- z[which(cumsum(w) >= half)[1L]]
  hi <- z[length(z) + 1L - which(cumsum(rev(w)) >= half)[1L]]
  lo / 2 + hi / 2
}

# The problem in standard units. `Phi` may be NULL (wavelet shortcut: give
# `const` = c(column, value) of its constant function). `robust`: centre at
# the weighted median (per-sample noise, where a gross outlier must not move
# the centre) instead of the weighted mean.
standard_units <- function(Phi, y, weights = NULL, offset = NULL, const = NULL, robust = FALSE, rows = Phi) {
  n <- length(y)
  z <- if (is.null(offset)) y else y - offset
  keep <- if (is.null(weights)) rep(TRUE, n) else weights > 0
  pooled <- if (robust) list(weights = weights, unit = 1, log_weights = 0) else relative_weights(rows, z, weights)
  weights <- pooled$weights
  # Without weights (none given, or all equal) every row is kept at weight
  # 1, and the sums below skip the products by ones (exact: the same bits).
  wk <- if (!is.null(weights)) weights[keep]
  zk <- if (is.null(weights)) z else z[keep]
  if (is.null(const)) const <- if (is.null(Phi) || nrow(Phi) < 2L) c(0, 0) else constant_column(column_moments(Phi))
  shift <- 0
  if (const[1L] > 0) {
    size <- max(abs(zk))
    if (size > 0) shift <- if (robust) weighted_median(zk, wk %||% rep(1, length(zk)))
                           else if (is.null(wk)) size * sum(zk / size) / length(zk)
                           else size * sum(wk * (zk / size)) / sum(wk)
  }
  sw <- if (is.null(wk)) rep(1, length(zk)) else sqrt(wk)
  r <- zk - shift
  replicated <- !is.null(weights) && !robust
  scale <- if (replicated) robust_scale(r, wk, robust = FALSE)
           else robust_scale(if (is.null(wk)) r else sw * r, robust = robust)
  # Shared noise: weights act as replicates for the noise (the solvers' N is
  # sum(w)) and the evidence is that of the replicated rows; per-sample
  # noise: weights are relative precisions.
  # Without weights every row is kept with sw = 1: Phi as it is, not two n x d copies.
  c(list(y = if (is.null(wk)) r / scale else sw * r / scale,
         Phi = if (is.null(weights)) Phi else if (!is.null(Phi)) Phi[keep, , drop = FALSE] * sw,
         keep = keep, weights = weights, offset = offset, sw = sw),
    response_units(shift, scale, const,
                   list(n = n, unit = pooled$unit, distinct = pooled$distinct %||% sum(keep), n_kept = sum(keep),
                        weight_sum = if (is.null(wk)) length(zk) else sum(wk),
                        log_weight_sum = if (is.null(wk)) 0 else sum(log(wk)), log_weights = pooled$log_weights,
                        replicated = replicated,
                        target_variance = if (replicated) replicated_variance(r / scale, wk) else -1)))
}

# The standard units of a response from what a data backend measured of it
# (rows in memory: standard_units(); sums over chunks:
# chunk_standard_units()), so that every fit reads the same fields: its
# `shift`, `scale` and constant column, and the `counts`: `n` rows, `n_kept`
# of positive weight, `distinct` of them once copies are pooled, the
# rescaled weights' `unit`, sum `weight_sum` and log sum `log_weight_sum`,
# the pooled rows' `log_weights` (relative_weights()), whether weights act
# as `replicated` rows and then the targets' variance as such (-1: none).
# The Jacobian and the replicated count follow.
response_units <- function(shift, scale, const, counts) {
  k <- counts
  list(n = k$n, shift = shift, scale = scale, const = const, unit = k$unit, log_weights = k$log_weights,
       distinct = k$distinct, n_kept = k$n_kept, weight_sum = k$weight_sum, log_weight_sum = k$log_weight_sum,
       log_jacobian = -k$n_kept * log(scale) + k$log_weight_sum / 2,
       n_effective = if (k$replicated) k$weight_sum else -1, target_variance = k$target_variance)
}

# What weights mean with shared noise (DESIGN.md, "Weights and copies").
# Given the noise, a weight is a precision and an integer weight acts as
# that many copies of its row. Learning the noise
# and the prior must not reward copies, which tell nothing about the noise
# (a bootstrap resample interpolated), nor read the weights' overall size
# (weights 0.5 kept 10 vectors where none kept 14, weights 3 kept 22). So
# exact copies of a row (same basis row and response: row_keys()) are one
# row of their summed weight, and the weights are rescaled to sum to the
# number of distinct rows of positive weight: the solvers' count of
# observations. `rows`: what names a row (the basis, or the inputs it is
# built from; NULL: every row distinct). For the linear-in-weights
# solvers copies and summed weights are the same statistics, so the rows
# stay as they are; only the rescaling differs from replicated rows. The
# noise variance is then that of a row of average weight, row i's being
# lambda * unit / w_i; integer weights and replicated rows give one fit,
# and constant weights the fit of none. Returns the rescaled weights
# (NULL: none, every row kept with weight 1), `unit` (the mean weight of a
# distinct row), `distinct` (their number) and `log_weights`, sum(log W_g)
# / 2 over the distinct rows' rescaled weights W_g, which turns the
# evidence of the replicated rows into that of the distinct rows with
# precisions W_g.
relative_weights <- function(rows, z, weights) {
  n <- length(z)
  if (is.null(rows) && is.null(weights)) return(list(weights = NULL, unit = 1, distinct = n, log_weights = 0))
  w <- weights %||% rep(1, n)
  keep <- w > 0
  group <- if (is.null(rows)) seq_len(sum(keep)) else first_copy(row_keys(rows, z)[keep, , drop = FALSE])
  distinct <- sum(group == seq_along(group))
  unit <- sum(w[keep]) / distinct
  w <- w / unit
  if (all(keep) && all(abs(w - 1) < 1e-14))
    return(list(weights = NULL, unit = unit, distinct = distinct, log_weights = 0))
  list(weights = w, unit = unit, distinct = distinct,
       log_weights = sum(log(rowsum(w[keep], group, reorder = FALSE))) / 2)
}

# One key per row of the matrices given (their columns side by side), equal
# for exact copies (row_keys() in statistics.hpp).
row_keys <- function(...) {
  m <- do.call(cbind, lapply(list(...), as.matrix))
  storage.mode(m) <- "double"
  .sb_row_keys(m)
}

# For each row of `keys` (row_keys()), the index of its first copy, as
# match() gives it for one key per row: a radix sort of the keys, whose
# runs of equal keys are the copies (the sort is stable, so a run starts
# at its first copy). Pasting the keys' bits into strings and matching
# them took 4 s at 10^6 rows; this takes a tenth of a second, and where the
# first key has no two equal values (no copies) a hash of it alone decides.
first_copy <- function(keys) {
  n <- nrow(keys)
  if (n < 2L || !anyDuplicated(keys[, 1L])) return(seq_len(n))
  a <- keys[, 1L]
  b <- keys[, 2L]
  o <- order(a, b, method = "radix")
  a <- a[o]
  b <- b[o]
  starts <- c(TRUE, a[-1L] != a[-n] | b[-1L] != b[-n])
  group <- integer(n)
  group[o] <- o[starts][cumsum(starts)]
  group
}

# The weights of a fit's rows relative to the row of average weight whose
# noise variance the fit reports (relative_weights()): row i's noise
# variance is lambda / w_i with these w. All ones without weights.
row_precisions <- function(object) {
  (object$prior.weights %||% rep(1, length(object$y))) / (object$weight_unit %||% 1)
}

# Weights with shared noise must leave two rows in the fit.
check_rows_of_weight <- function(weights, fix = "fix the noise with `control = list(noise_variance = )`") {
  if (is.null(weights) || sum(weights > 0) >= 2) return(invisible())
  kept <- sum(weights > 0)
  stop_arg("weights", sprintf("leave %d row%s of positive weight; the noise cannot be estimated from fewer than two: %s.",
                              kept, if (kept == 1L) "" else "s", fix))
}

# The number of observations of n rows with case weights wt (numeric(0):
# none), weights counting as replicated rows.
replicated_rows <- function(wt, n) if (length(wt)) sum(wt) else n

# The sample variance of u as rows replicated w times (w need not be whole);
# -1 (none: the solver computes var(u)) for fewer than two replicated rows.
replicated_variance <- function(u, w) {
  N <- sum(w)
  if (N <= 1) return(-1)
  centre <- sum(w * u) / N
  sum(w * (u - centre)^2) / (N - 1)
}

# A fixed noise variance in the caller's units, in standard units (-1: none).
standard_noise_variance <- function(noise_variance, st) {
  if (is.null(noise_variance) || noise_variance <= 0) -1 else noise_variance / st$scale^2
}

# Maps a solver result `res` (fields mu, Sigma, relevant, alpha, lambda, fitted, log_evidence, log_posterior, trace, path) back to the
# caller's units; `Phi` is the full basis in the caller's units (NULL for
# the wavelet shortcut, whose fitted values are mapped instead).
# Replicated rows (shared noise with weights): each weight w_i counts w_i
# observations, -(sum(w) - n) log(2 pi lambda) / 2 - sum(log w) / 2 more.
replicate_term <- function(st, noise) {
  if (st$n_effective <= 0) return(0)
  -(st$n_effective - st$n_kept) * log(2 * pi * noise) / 2 - st$log_weight_sum / 2
}

# A solver trace's log posterior and noise variance, from the standard
# units of `st` to the data's scale (caller_units(), and the verbose trace
# while the solver runs).
data_scale_trace <- function(st) {
  function(log_posterior, noise) {
    noise <- noise * st$scale^2
    list(log_posterior = log_posterior + st$log_jacobian + st$log_weights + replicate_term(st, noise), noise = noise)
  }
}

caller_units <- function(res, st, Phi) {
  s <- st$scale
  v <- s^2
  relevant <- as.integer(res$relevant)
  mu <- as.numeric(res$mu) * s
  Sigma <- as.matrix(res$Sigma) * v
  res$alpha <- as.numeric(res$alpha) / v
  lam <- as.numeric(res$lambda) * v
  # Per-sample values on every row: rows of weight 0, left out of the fit,
  # have infinite noise and belong to no outlier class.
  on_all_rows <- function(values, fill) replace(rep(fill, st$n), st$keep, values)
  if (length(lam) > 1L) lam <- on_all_rows(lam / st$sw^2, Inf)
  res$lambda <- lam
  if (!is.null(res$rss)) res$rss <- res$rss * v
  if (!is.null(res$student_scale)) res$student_scale <- res$student_scale * v  # Student-t noise
  if (length(res$outlier_probability) && length(lam) > 1L)
    res$outlier_probability <- on_all_rows(res$outlier_probability, NA_real_)
  j <- as.integer(st$const[1L])
  if (j > 0L) {
    k <- match(j, relevant)
    if (is.na(k)) {
      # Pruned in standard units: the column carries the centring alone, an
      # unpenalised intercept (alpha 0) estimated by the weighted mean, with
      # variance 1 / sum(value^2 / lambda_i), uncorrelated with the others.
      precision <- if (length(lam) > 1L) sum(1 / lam) else st$weight_sum / lam  # sum of 1 / lambda_i
      relevant <- c(relevant, j)
      mu <- c(mu, 0)
      Sigma <- rbind(cbind(Sigma, matrix(0, nrow(Sigma), 1L)), 0)  # also when Sigma is 0 x 0
      k <- length(relevant)
      Sigma[k, k] <- 1 / (st$const[2L]^2 * precision)
      res$alpha[j] <- 0
    }
    mu[k] <- mu[k] + st$shift / st$const[2L]
  }
  ord <- order(relevant)
  res$relevant <- relevant[ord]
  res$mu <- mu[ord]
  res$Sigma <- Sigma[ord, ord, drop = FALSE]
  off <- if (is.null(st$offset)) 0 else st$offset
  # From statistics (data_chunks()) there are no rows and no fitted values.
  res$fitted <- if (!is.null(st$statistics)) NULL
                else if (is.null(Phi)) as.numeric(res$fitted) * s + st$shift + off
                else drop(Phi[, res$relevant, drop = FALSE] %*% res$mu) + off
  final_noise <- mean(lam[is.finite(lam)])
  jacobian <- st$log_jacobian + st$log_weights  # the distinct rows' density (relative_weights())
  res$log_evidence <- res$log_evidence + jacobian + replicate_term(st, final_noise)
  if (!is.null(res$log_posterior)) res$log_posterior <- res$log_posterior + jacobian + replicate_term(st, final_noise)
  res$start_log_evidence <- res$start_log_evidence + st$log_jacobian  # per-sample noise: no replicate term
  res$trace[c("log_posterior", "noise")] <- data_scale_trace(st)(res$trace$log_posterior, res$trace$noise)
  if (!is.null(res$path) && length(res$path$iteration)) {
    res$path$alpha <- res$path$alpha / v
    res$path$lambda <- res$path$lambda * v
  }
  res
}

# Adds an offset to what predict returns (vector, fit/lwr/upr matrix, or a
# list with `fit`).
shift_prediction <- function(out, off) {
  if (all(off == 0)) return(out)
  if (is.list(out)) {
    out$fit <- out$fit + off
    return(out)
  }
  out + off
}

# Stores the prior weights and offset of a fit (NULL when not given) and,
# for gaussian fits, the centre and scale of the standard units.
add_weights_offset <- function(fit, wo, st = NULL) {
  fit["prior.weights"] <- list(wo$weights)
  fit["offset"] <- list(wo$offset)
  fit["standard_units"] <- list(if (!is.null(st)) c(center = st$shift, scale = st$scale))
  fit$weight_unit <- st$unit %||% 1
  fit
}
