# Precomputes the joint-ARD reproductions shown in the robust-ard vignette
# and writes them to an .rds file (the vignette reads the copy shipped as
# inst/extdata/ard-results.rds and only refits the small examples itself).
# Installed with the package; run it from any directory:
#   Rscript "$(Rscript -e 'cat(system.file("reproduce", "ard_reproduce.R", package = "sparsebayes"))')" \
#     [trials_boston] [trials_synthetic] [output]
# or from R, with the default arguments (20, 3, "ard-results.rds"):
#   source(system.file("reproduce", "ard_reproduce.R", package = "sparsebayes"))
# `output` defaults to ard-results.rds in the working directory; from the
# package sources, `inst/extdata/ard-results.rds` refreshes the vignette's copy.
# Needs MASS. The shipped results are 20 Boston and 3 synthetic trials,
# from `... ard_reproduce.R 12 3` (41 min) and `... 12:20 3` (37 min) on two cores.
# `trials_boston` is a count (trials 1 to n) or a range "a:b"; trials are
# seeded one by one, so a range reproduces those rows of a full run.
#
# Experiments (Timans et al., joint model-and-data ARD):
#   * synthetic signal recovery (section 5.1, Fig. 3): top-k recall of the
#     true weights and of the injected outliers, per-sample vs shared noise,
#     on a reduced grid;
#   * Boston as an RVM (section 5.3, Fig. 4, Tables 6 and 7): test RMSE and
#     NLL against the contamination rate for em, mackay, irls2, irls1 with
#     per-sample noise, shared noise, and Student-t noise (em and fast);
#   * mcycle (Fig. 1): 10-fold cross-validated RMSE and NLL of a degree-11
#     polynomial with six injected outliers, joint vs model-only ARD.
library(sparsebayes)
source(system.file("reproduce", "boston_protocol.R", package = "sparsebayes", mustWork = TRUE))

args <- if (interactive()) character(0) else commandArgs(trailingOnly = TRUE)
trial_range <- if (length(args) >= 1L) as.integer(strsplit(args[1L], ":", fixed = TRUE)[[1L]]) else 20L
boston_ids <- if (length(trial_range) == 2L) seq(trial_range[1L], trial_range[2L]) else seq_len(trial_range)
trials_boston <- length(boston_ids)
trials_synth <- if (length(args) >= 2L) as.integer(args[2L]) else 3L
out_file <- if (length(args) >= 3L) args[3L] else "ard-results.rds"
started <- Sys.time()

# Gaussian negative log predictive density, averaged.
nll <- function(y, mu, var) mean(0.5 * log(2 * pi * var) + (y - mu)^2 / (2 * var))

# Fraction of the true indices among the top-k scores (k = number of true ones).
top_k_recall <- function(score, truth) {
  if (!length(truth)) return(NA_real_)
  mean(truth %in% order(score, decreasing = TRUE)[seq_along(truth)])
}

## ---- Section 5.1: synthetic signal recovery ------------------------------

# The generator of App. D.2: sparse N(0, 1) weights on a random support,
# N(0, I) features, noise sd sigma, inflated m-fold on floor(rho n) samples.
synthetic_data <- function(n = 500, d = 50, support, sigma, rho, m, seed) {
  set.seed(seed)
  S <- sort(sample.int(d, support))
  theta <- numeric(d)
  theta[S] <- rnorm(support)
  X <- matrix(rnorm(n * d), n, d, dimnames = list(NULL, paste0("x", seq_len(d))))
  O <- sort(sample.int(n, floor(rho * n)))
  sd_i <- rep(sigma, n)
  sd_i[O] <- m * sigma
  list(X = X, y = drop(X %*% theta) + rnorm(n, sd = sd_i), S = S, O = O)
}

synthetic_cell <- function(support, sigma, rho, m, trials, method = "irls2") {
  rows <- lapply(seq_len(trials), function(t) {
    dat <- synthetic_data(support = support, sigma = sigma, rho = rho, m = m, seed = 1000 * t + support)
    one <- function(noise) {
      fit <- ard(dat$X, dat$y, intercept = FALSE, method = method, noise = noise)
      w_score <- ifelse(is.finite(fit$alpha), 1 / fit$alpha, 0)
      # shared noise: lambda ties, so outliers() ranks by |LOO residual|
      ol <- outliers(fit, n = length(dat$y))
      s_score <- numeric(length(dat$y))
      s_score[ol$index] <- rev(seq_len(nrow(ol)))
      c(weights = top_k_recall(w_score, dat$S), samples = top_k_recall(s_score, dat$O),
        ess_w = ess(fit), ess_s = ess(fit, which = "samples"))
    }
    het <- one("sample")
    hom <- one("shared")
    data.frame(trial = t, support = support, sigma = sigma, rho = rho, m = m,
               weights_sample = het[["weights"]], weights_shared = hom[["weights"]],
               outliers_sample = het[["samples"]], outliers_shared = hom[["samples"]],
               chance = length(dat$O) / length(dat$y),
               ess_w_sample = het[["ess_w"]], ess_s_sample = het[["ess_s"]])
  })
  do.call(rbind, rows)
}

cat("synthetic study ...\n")
d <- 50
weight_grid <- expand.grid(support = round(c(0.05, 0.1, 0.2, 0.4) * d), sigma = c(0.2, 0.5, 1, 2))
synth_weights <- do.call(rbind, lapply(seq_len(nrow(weight_grid)), function(k)
  synthetic_cell(weight_grid$support[k], weight_grid$sigma[k], rho = 0.2, m = 10, trials = trials_synth)))
data_grid <- expand.grid(rho = c(0.05, 0.1, 0.2, 0.3), m = c(1, 2, 5, 10))
synth_data <- do.call(rbind, lapply(seq_len(nrow(data_grid)), function(k)
  synthetic_cell(0.2 * d, 0.2, rho = data_grid$rho[k], m = data_grid$m[k], trials = trials_synth)))
cat(sprintf("  done after %.0f s\n", as.numeric(difftime(Sys.time(), started, units = "secs"))))

## ---- Section 5.3: Boston as an RVM ---------------------------------------

# One trial: a split of boston_protocol.R, the training targets
# contaminated at each rate, and every solver fitted on the same data. Metrics are on the
# original medv scale with the predictive variance lambda_b + x' Sigma x,
# lambda_b = mean(lambda) (App. D).
# "shared" is the classic RVM (one noise level, fast sequential solver): the
# homoscedastic baseline. "fast_sample" is the fast solver with per-sample
# noise, a combination that is in no paper.
boston_models <- list(
  em = list(method = "em", noise = "sample"),
  mackay = list(method = "mackay", noise = "sample"),
  irls2 = list(method = "irls2", noise = "sample"),
  irls1 = list(method = "irls1", noise = "sample"),
  shared = list(method = "fast", noise = "shared"),
  fast_sample = list(method = "fast", noise = "sample"),
  student_em = list(method = "em", noise = "student"),
  student_fast = list(method = "fast", noise = "student"))
rates <- c(0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)

boston_trial <- function(t) {
  s <- boston_split(t)
  spread <- s$spread
  out <- list()
  for (rate in rates) {
    ys <- boston_targets(s, rate)
    for (name in names(boston_models)) {
      spec <- boston_models[[name]]
      secs <- system.time(fit <- suppressWarnings(
        rvm(s$x, as.numeric(ys), kernel = "gaussian", scale = FALSE, method = spec$method, noise = spec$noise)))[[3]]
      pr <- predict(fit, s$x_test, se.fit = TRUE, variance = "rvm")
      mu <- s$centre + spread * pr$fit
      v <- spread^2 * (pr$se.fit^2 + mean(fit$lambda))
      # the trimmed plug-in of App. D: mean of the lambda_i between their 5% and 95% quantiles
      lam <- rep_len(fit$lambda, length(ys))
      q <- stats::quantile(lam, c(0.05, 0.95), names = FALSE)
      v_trim <- spread^2 * (pr$se.fit^2 + mean(lam[lam >= q[1] & lam <= q[2]]))
      out[[length(out) + 1L]] <- data.frame(
        trial = t, rate = rate, model = name, rmse = sqrt(mean((s$y_test - mu)^2)),
        nll = nll(s$y_test, mu, v), nll_trimmed = nll(s$y_test, mu, v_trim), ess_w = ess(fit), ess_s = ess(fit, which = "samples"),
        relevant = length(fit$relevant), outlier_recall = top_k_recall(fit$lambda * (spec$noise != "shared"),
                                                                        attr(ys, "outliers")),
        iterations = fit$iterations, converged = fit$converged, seconds = secs)
    }
  }
  do.call(rbind, out)
}

cat("Boston RVM ...\n")
# Trials are independent: forked over the cores (parallel's engine; serial on Windows).
cores <- if (.Platform$OS.type == "unix") max(1L, min(2L, parallel::detectCores())) else 1L
boston <- do.call(rbind, parallel::mclapply(boston_ids, function(t) {
  r <- boston_trial(t)
  cat(sprintf("  trial %d done after %.0f s\n", t, as.numeric(difftime(Sys.time(), started, units = "secs"))))
  r
}, mc.cores = cores))

## ---- Fig. 1: mcycle ------------------------------------------------------

# Degree-11 polynomial (12 weights with the intercept) in the times mapped to
# [-1, 1]; six outliers injected into the accelerations (App. D.2 protocol,
# amplitude 3 sd); 10-fold cross-validation scored on the clean held-out
# accelerations. The first and last time points stay in every training set:
# a fold holding one of them out would extrapolate a degree-11 polynomial,
# whose error then swamps everything else.
mcycle_design <- function(times) {
  u <- (times - mean(range(MASS::mcycle$times))) / (diff(range(MASS::mcycle$times)) / 2)
  X <- outer(u, 1:11, `^`)
  colnames(X) <- paste0("t^", 1:11)
  X
}
mcycle_cv <- function(seed = 1) {
  mc <- MASS::mcycle
  n <- nrow(mc)
  yc <- as.numeric(contaminate(mc$accel, rate = 6.5 / n, amplitude = 3, seed = seed))
  X <- mcycle_design(mc$times)
  inner <- which(mc$times > min(mc$times) & mc$times < max(mc$times))
  set.seed(seed)
  fold <- integer(n)
  fold[inner] <- sample(rep_len(1:10, length(inner)))
  res <- lapply(c(sample = "sample", shared = "shared"), function(noise) {
    pred <- matrix(NA_real_, n, 2)
    for (k in 1:10) {
      test <- fold == k
      fit <- suppressWarnings(ard(X[!test, ], yc[!test], method = "em", noise = noise))
      p <- predict(fit, X[test, , drop = FALSE], se.fit = TRUE)
      pred[test, ] <- cbind(p$fit, p$se.fit^2 + mean(fit$lambda))
    }
    scored <- fold > 0
    c(rmse = sqrt(mean((mc$accel - pred[, 1])[scored]^2)),
      nll = nll(mc$accel[scored], pred[scored, 1], pred[scored, 2]))
  })
  data.frame(model = names(res), rmse = vapply(res, `[[`, 0, "rmse"), nll = vapply(res, `[[`, 0, "nll"))
}
cat("mcycle ...\n")
mcycle <- do.call(rbind, lapply(1:10, function(s) cbind(seed = s, mcycle_cv(s))))
rownames(mcycle) <- NULL

results <- list(synth_weights = synth_weights, synth_data = synth_data, boston = boston, mcycle = mcycle,
                meta = list(trials_boston = trials_boston, boston_ids = boston_ids, trials_synth = trials_synth, cores = cores, date = Sys.time(),
                            seconds = as.numeric(difftime(Sys.time(), started, units = "secs")),
                            sparsebayes = as.character(utils::packageVersion("sparsebayes")),
                            R = R.version.string))
saveRDS(results, out_file, version = 2)
cat(sprintf("wrote %s after %.0f s\n", out_file, results$meta$seconds))
