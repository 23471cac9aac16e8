# Robust fits against lm, MASS::rlm and robustbase::lmrob on the data every
# robust-regression text uses, and where outliers have leverage (issue
# "Robust fits that survive leverage points").
#   Rscript bench/robust_classics.R [seeds]
# 1. The classic data (robustbase), with their documented outliers: hbk
#    (rows 1-10, bad leverage), starsCYG (giants 11, 20, 30, 34), stackloss
#    (1, 3, 4, 21), wood (4, 6, 8, 19), salinity (5, 16: the heavy-discharge
#    periods of its help page) and aircraft (22: its help page documents
#    none; lmrob gives row 22 weight 0 and no other row a weight below 0.5).
#    For each method: the documented outliers among the k largest noise
#    variances (lm, rlm, lmrob: the largest |residuals|), the largest gap
#    between a coefficient and lmrob's in lmrob standard errors on the data's
#    scale, the leave-one-out RMSE over the clean rows (each clean row
#    predicted by the fit without it), and the outlier map's kinds of the
#    documented outliers (ard only; "bad" = bad leverage).
# 2. Simulation, n = 500, d = 50 (5 weights of 1), noise sd 1: bad leverage
#    points (x shifted by 3 in the 5 relevant inputs, y = -5) or y-only
#    outliers (y + 10), at 0%, 10% and 20%; latent test RMSE ||X (b - beta)||
#    on 2000 clean rows, and CPU seconds per fit (20 seeds by default).
suppressPackageStartupMessages({library(sparsebayes); library(robustbase)})
args <- commandArgs(trailingOnly = TRUE)
seeds <- if (length(args)) seq_len(as.integer(args[1])) else 1:20  # 0: the classic data only

# ard()'s coefficients on the scale of the data, 0 where pruned.
data_scale_coef <- function(fit) {
  b <- setNames(numeric(ncol(fit$x)), colnames(fit$x))
  b[names(coef(fit))] <- coef(fit)
  b
}
methods <- list(
  "ard shared" = list(noise = "shared", start = "plain"),
  "ard student, best" = list(noise = "student", start = "best"),
  "ard student, robust" = list(noise = "student", start = "robust"),
  "ard sample, best" = list(noise = "sample", start = "best"),
  "ard sample, robust" = list(noise = "sample", start = "robust"),
  "ard student, plain" = list(noise = "student", start = "plain"))
fit_ard <- function(m, ...) suppressWarnings(ard(..., noise = m$noise, control = ard_control(start = m$start)))

## ---- classic data ---------------------------------------------------------
data(hbk, starsCYG, wood, salinity, aircraft, package = "robustbase")
classic <- list(
  hbk = list(formula = Y ~ ., data = hbk, outliers = 1:10),
  starsCYG = list(formula = log.light ~ log.Te, data = starsCYG, outliers = c(11, 20, 30, 34)),
  stackloss = list(formula = stack.loss ~ ., data = stackloss, outliers = c(1, 3, 4, 21)),
  wood = list(formula = y ~ ., data = wood, outliers = c(4, 6, 8, 19)),
  salinity = list(formula = Y ~ ., data = salinity, outliers = c(5, 16)),
  aircraft = list(formula = Y ~ ., data = aircraft, outliers = 22))
# Each peer: a fit, its coefficients on the data's scale, its outlier
# ranking score and its prediction for new rows.
peers <- list(
  lm = function(f, d) { m <- lm(f, d); list(coef = coef(m), score = abs(residuals(m)), model = m) },
  rlm = function(f, d) { m <- MASS::rlm(f, d, maxit = 100); list(coef = coef(m), score = abs(residuals(m)), model = m) },
  lmrob = function(f, d) { m <- lmrob(f, d); list(coef = coef(m), score = abs(residuals(m)), model = m) })
for (mn in names(methods)) local({
  m <- methods[[mn]]
  peers[[mn]] <<- function(f, d) {
    fit <- fit_ard(m, f, data = d)
    list(coef = data_scale_coef(fit), score = fit$lambda + 0 * seq_len(nrow(d)), model = fit)
  }
})
rows <- list()
for (nm in names(classic)) {
  cs <- classic[[nm]]
  ref <- lmrob(cs$formula, data = cs$data)
  se <- sqrt(diag(vcov(ref)))
  k <- length(cs$outliers)
  clean <- setdiff(seq_len(nrow(cs$data)), cs$outliers)
  y <- model.response(model.frame(cs$formula, cs$data))
  for (mn in names(peers)) {
    t0 <- proc.time()[["elapsed"]]
    fit <- peers[[mn]](cs$formula, cs$data)
    seconds <- proc.time()[["elapsed"]] - t0
    b <- fit$coef[names(coef(ref))]
    # shared noise ranks by |residual| (its lambda is one number)
    score <- if (length(unique(fit$score)) == 1L) abs(y - fitted(fit$model)) else fit$score
    loo <- vapply(clean, function(i) {
      m <- suppressWarnings(peers[[mn]](cs$formula, cs$data[-i, ]))$model
      unname(predict(m, cs$data[i, , drop = FALSE]))
    }, numeric(1))
    kinds <- if (inherits(fit$model, "sparsebayes")) {
      ol <- outliers(fit$model, n = nrow(cs$data))
      sprintf("%d bad", sum(ol$type[ol$index %in% cs$outliers] == "bad leverage", na.rm = TRUE))
    } else ""
    rows[[length(rows) + 1]] <- data.frame(data = nm, method = mn,
      found = sum(order(score, decreasing = TRUE)[1:k] %in% cs$outliers), k = k,
      max_se_gap = max(abs(b - coef(ref)) / se), loo_rmse_clean = sqrt(mean((y[clean] - loo)^2)),
      map = kinds, seconds = seconds)
  }
}
classic_table <- do.call(rbind, rows)
cat("Classic data: documented outliers among the k largest noise variances (lm, rlm, lmrob: largest |residuals|),\n",
    "max |coef - lmrob coef| / lmrob se, leave-one-out RMSE over the clean rows\n")
local({ op <- options(width = 200); on.exit(options(op)); print(classic_table, digits = 3, row.names = FALSE) })
for (nm in names(classic)) {
  a <- classic_table[classic_table$data == nm, ]
  cat(sprintf("\n%s (k = %d): ", nm, a$k[1]),
      paste(sprintf("%s %d (%.2f se, LOO %.3g)", a$method, a$found, a$max_se_gap, a$loo_rmse_clean), collapse = "; "), "\n")
}

## ---- simulation -------------------------------------------------------------
if (!length(seeds)) quit(save = "no")
n <- 500; d <- 50; beta <- c(rep(1, 5), rep(0, d - 5))
simulate <- function(seed, rate, kind) {
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, d)
  y <- drop(X %*% beta) + rnorm(n)
  k <- round(rate * n)
  if (k) {
    if (kind == "leverage") {
      X[1:k, 1:5] <- X[1:k, 1:5] + 3
      y[1:k] <- -5 + rnorm(k)
    } else y[1:k] <- y[1:k] + 10
  }
  Xt <- matrix(rnorm(2000 * d), 2000, d)
  list(X = X, y = y, Xt = Xt)
}
latent_rmse <- function(b, Xt) sqrt(mean((Xt %*% (b - beta))^2))
sim <- list()
for (kind in c("leverage", "y-only")) for (rate in c(0, 0.1, 0.2)) for (seed in seeds) {
  if (rate == 0 && kind == "y-only") next
  dat <- simulate(seed, rate, kind)
  t0 <- proc.time()[["elapsed"]]
  ref <- lmrob(dat$y ~ dat$X)
  sim[[length(sim) + 1]] <- data.frame(kind = kind, rate = rate, seed = seed, method = "lmrob",
    rmse = latent_rmse(coef(ref)[-1], dat$Xt), seconds = proc.time()[["elapsed"]] - t0)
  for (mn in setdiff(names(methods), "ard shared")) {
    t0 <- proc.time()[["elapsed"]]
    fit <- fit_ard(methods[[mn]], dat$X, dat$y)
    sim[[length(sim) + 1]] <- data.frame(kind = kind, rate = rate, seed = seed, method = mn,
      rmse = latent_rmse(data_scale_coef(fit)[-1], dat$Xt), seconds = proc.time()[["elapsed"]] - t0)
  }
}
sim <- do.call(rbind, sim)
se <- function(x) sd(x) / sqrt(length(x))
agg <- aggregate(cbind(rmse, seconds) ~ method + kind + rate, sim, mean)
agg$rmse_se <- aggregate(rmse ~ method + kind + rate, sim, se)$rmse
cat(sprintf("\nSimulation (n = %d, d = %d, %d seeds): latent test RMSE ± se, seconds per fit\n", n, d, length(seeds)))
agg$cell <- sprintf("%.3f ± %.3f (%.2f s)", agg$rmse, agg$rmse_se, agg$seconds)
for (kd in unique(agg$kind)) {
  cat("\n", kd, "\n")
  a <- agg[agg$kind == kd, ]
  print(reshape(a[, c("method", "rate", "cell")], idvar = "method", timevar = "rate", direction = "wide"), row.names = FALSE)
}
