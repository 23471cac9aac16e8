# Sparse linear regression: ard() against cv.glmnet (lambda.1se and
# lambda.min), scikit-learn's ARDRegression (defaults, through Debian's
# python3-sklearn and bench/sparse_linear.py) and susieR::susie (if
# installed), on the designs of the issue "Sparse linear ARD that selects
# with stated confidence" and on two public data sets by 10-fold CV.
#   Rscript bench/sparse_linear.R
# SB_SEEDS (default 10) seeds per synthetic design; SB_DESIGNS (comma-
# separated names) runs a subset; SB_SKLEARN_WIDE=0 skips ARDRegression on
# the n = 500, d = 5000 designs (minutes per fit).
# Methods: ard() with its defaults (prior "auto": RIC's price when d >= n, below it a
# price by d/n and the features kept, see ?ard); ard(method = "fast", prior = "none"), the flat prior; the
# features selected() keeps from the default fit (beta-binomial prior,
# inclusion probability > 0.5), refitted by ard() with a flat prior;
# cv.glmnet (10 folds); ARDRegression(); susie(L = 20).
# Per unit (a seed, or a fold of the real data): test RMSE (2000 new rows),
# coverage of the 95% prediction intervals, features kept, true and false
# positives (synthetic), CPU seconds (user + system; python's process_time
# for sklearn, fit() alone). Means and standard errors over units. One
# BLAS thread on both sides.
Sys.setenv(OPENBLAS_NUM_THREADS = "1", OMP_NUM_THREADS = "1", MKL_NUM_THREADS = "1")
suppressPackageStartupMessages({
  library(sparsebayes)
  library(glmnet)
})
have_susie <- requireNamespace("susieR", quietly = TRUE)
seeds <- seq_len(as.integer(Sys.getenv("SB_SEEDS", "10")))
only <- strsplit(Sys.getenv("SB_DESIGNS"), ",")[[1]]
sklearn_wide <- Sys.getenv("SB_SKLEARN_WIDE", "1") != "0"

source("bench/sklearn_python.R")
python <- sklearn_python()  # "" : the sklearn rows are left out
script <- file.path("bench", "sparse_linear.py")
if (!file.exists(script)) stop("run from the package root")

timed <- function(expr) {
  t <- system.time(value <- expr)
  list(value = value, cpu = t[["user.self"]] + t[["sys.self"]])
}
features <- function(fit) setdiff(names(fit$weights), "(Intercept)")
scores <- function(mean, yt, lwr = NULL, upr = NULL, kept, cpu) {
  list(rmse = sqrt(mean((yt - mean)^2)), cover = if (is.null(lwr)) NA else mean(yt > lwr & yt < upr),
       kept = kept, cpu = cpu)
}
ard_scores <- function(f, Xt, yt, kept = features(f$value), cpu = f$cpu) {
  p <- predict(f$value, Xt, interval = "prediction")
  scores(p[, 1], yt, p[, 2], p[, 3], kept, cpu)
}

# All methods on one training and test set: a named list of scores.
run_methods <- function(X, y, Xt, yt, wide) {
  out <- list()
  def <- timed(ard(X, y))
  out[["ard() default"]] <- ard_scores(def, Xt, yt)
  flat <- timed(suppressWarnings(ard(X, y, method = "fast", prior = "none")))
  out[["ard(method = \"fast\", prior = \"none\")"]] <- ard_scores(flat, Xt, yt)
  sel <- selected(def$value)
  refit <- timed(ard(X[, sel, drop = FALSE], y, prior = "none"))
  out[["selected(), refitted"]] <- ard_scores(refit, Xt[, sel, drop = FALSE], yt, kept = sel,
                                              cpu = def$cpu + refit$cpu)
  cv <- timed(cv.glmnet(X, y))
  for (s in c("lambda.1se", "lambda.min")) {
    b <- coef(cv$value, s = s)[, 1]
    out[[paste("cv.glmnet", s)]] <- scores(drop(predict(cv$value, Xt, s = s)), yt,
                                           kept = setdiff(names(b)[b != 0], "(Intercept)"), cpu = cv$cpu)
  }
  if (nzchar(python) && (!wide || sklearn_wide)) out[["sklearn ARDRegression()"]] <- sklearn_scores(X, y, Xt, yt)
  if (have_susie) {
    su <- timed(susieR::susie(X, y, L = min(20, ncol(X))))
    out[["susie(L = 20)"]] <- scores(drop(predict(su$value, Xt)), yt, kept = colnames(X)[su$value$pip > 0.5],
                                     cpu = su$cpu)
  }
  out
}

sklearn_scores <- function(X, y, Xt, yt) {
  dir <- tempfile("sparse_linear")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  prefix <- file.path(dir, "data")
  for (nm in c("X", "y", "Xt", "yt")) writeBin(as.vector(get(nm)), paste0(prefix, "_", nm, ".bin"), endian = "little")
  out <- system2(python, c(shQuote(script), shQuote(prefix), nrow(X), ncol(X), nrow(Xt)), stdout = TRUE)
  f <- strsplit(out[length(out)], "\t")[[1]]
  idx <- if (length(f) > 3L && nzchar(f[4])) as.integer(strsplit(f[4], ",")[[1]]) else integer(0)
  list(rmse = as.numeric(f[2]), cover = as.numeric(f[3]), kept = colnames(X)[idx], cpu = as.numeric(f[1]))
}

ar1 <- function(m, d, rho) {
  Z <- matrix(rnorm(m * d), m, d)
  if (rho > 0) for (j in 2:d) Z[, j] <- rho * Z[, j - 1] + sqrt(1 - rho^2) * Z[, j]
  colnames(Z) <- paste0("x", seq_len(d))
  Z
}
designs <- list(
  n200_d50 = list(n = 200, d = 50, beta = function(d) c(2, -1.5, 1, -0.75, 0.5, rep(0, d - 5)), rho = 0),
  n100_d1000 = list(n = 100, d = 1000, beta = function(d) c(sample(c(-2, 2), 10, TRUE), rep(0, d - 10)), rho = 0),
  n500_d5000_ar0.5 = list(n = 500, d = 5000, beta = function(d) sample(c(sample(c(-2, 2), 20, TRUE), rep(0, d - 20))),
                          rho = 0.5),
  n500_d5000_ar0.9 = list(n = 500, d = 5000, beta = function(d) sample(c(sample(c(-2, 2), 20, TRUE), rep(0, d - 20))),
                          rho = 0.9))

summarise <- function(rows, label) {
  tab <- do.call(rbind, lapply(split(rows, factor(rows$method, unique(rows$method))), function(r) {
    m <- function(v) mean(v)
    se <- function(v) if (length(v) > 1) stats::sd(v) / sqrt(length(v)) else NA
    data.frame(method = r$method[1], rmse = sprintf("%.3f (%.3f)", m(r$rmse), se(r$rmse)),
               coverage = if (all(is.na(r$cover))) "-" else sprintf("%.3f (%.3f)", m(r$cover), se(r$cover)),
               kept = sprintf("%.1f", m(r$kept)),
               tp = if (all(is.na(r$tp))) "-" else sprintf("%.1f", m(r$tp)),
               fp = if (all(is.na(r$fp))) "-" else sprintf("%.1f", m(r$fp)),
               cpu_s = sprintf("%.3f", m(r$cpu)), check.names = FALSE)
  }))
  cat(sprintf("\n### %s\n\n| method | test RMSE (se) | 95%% coverage (se) | kept | true pos. | false pos. | CPU s |\n|---|---|---|---|---|---|---|\n", label))
  cat(sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", tab$method, tab$rmse, tab$coverage, tab$kept, tab$tp, tab$fp,
              tab$cpu_s), sep = "")
}

as_rows <- function(res, truth = NULL) {
  do.call(rbind, lapply(names(res), function(m) {
    s <- res[[m]]
    data.frame(method = m, rmse = s$rmse, cover = s$cover, kept = length(s$kept),
               tp = if (is.null(truth)) NA else sum(s$kept %in% truth),
               fp = if (is.null(truth)) NA else sum(!s$kept %in% truth), cpu = s$cpu)
  }))
}

cat(sprintf("# Sparse linear regression (%s; susieR %s, scikit-learn via %s)\n", format(Sys.time(), "%Y-%m-%d %H:%M %Z"),
            if (have_susie) as.character(utils::packageVersion("susieR")) else "not installed",
            if (nzchar(python)) python else "none"))
invisible(ard(matrix(rnorm(200), 20), rnorm(20)))  # lazy loading is not timed
for (nm in names(designs)) {
  if (length(only) && !nm %in% only) next
  D <- designs[[nm]]
  rows <- do.call(rbind, lapply(seeds, function(s) {
    set.seed(s)
    X <- ar1(D$n, D$d, D$rho)
    beta <- D$beta(D$d)
    Xt <- ar1(2000, D$d, D$rho)
    y <- drop(X %*% beta) + rnorm(D$n)
    yt <- drop(Xt %*% beta) + rnorm(2000)
    as_rows(run_methods(X, y, Xt, yt, wide = D$d > 1000), truth = colnames(X)[beta != 0])
  }))
  summarise(rows, sprintf("%s: n = %d, d = %d, %d true, AR(1) %.1f, %d seeds", nm, D$n, D$d,
                          sum(D$beta(D$d) != 0), D$rho, length(seeds)))
}

# Public data by 10-fold CV (the same folds for every method).
real <- list()
if (requireNamespace("mlbench", quietly = TRUE)) {
  data(BostonHousing, package = "mlbench", envir = environment())
  real$boston <- list(formula = medv ~ ., data = BostonHousing)
}
if (requireNamespace("lasso2", quietly = TRUE)) {
  data(Prostate, package = "lasso2", envir = environment())
  real$prostate <- list(formula = lpsa ~ ., data = Prostate)
}
for (nm in names(real)) {
  if (length(only) && !nm %in% only) next
  X <- model.matrix(real[[nm]]$formula, real[[nm]]$data)[, -1, drop = FALSE]
  y <- model.response(model.frame(real[[nm]]$formula, real[[nm]]$data))
  set.seed(1)
  fold <- sample(rep_len(1:10, nrow(X)))
  rows <- do.call(rbind, lapply(1:10, function(k) {
    tr <- fold != k
    as_rows(run_methods(X[tr, ], y[tr], X[!tr, , drop = FALSE], y[!tr], wide = FALSE))
  }))
  summarise(rows, sprintf("%s: n = %d, d = %d, 10-fold CV (se over folds)", nm, nrow(X), ncol(X)))
}
