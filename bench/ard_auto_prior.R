# ard(prior = "auto"), issue 43 items 6-7: the price
# max(s log((d - k + 1) / (k + 1)), s^2 log(d)), s = min(1, d/n)^2, against the rule it
# replaced ("RIC" at d >= n, else the flat prior by EM), and cv.glmnet
# (lambda.min) when installed. Synthetic designs: 2000 test rows, 6 seeds;
# public data: 10-fold CV. Per design: mean test RMSE, coverage of the 95%
# prediction intervals, false features selected(), noise sd, the price c.
#   Rscript bench/ard_auto_prior.R          (SB_SEEDS=6 seeds by default)
Sys.setenv(OPENBLAS_NUM_THREADS = "1", OMP_NUM_THREADS = "1")
suppressPackageStartupMessages(library(sparsebayes, lib.loc = Sys.getenv("SB_LIB", .libPaths()[1])))
have_glmnet <- requireNamespace("glmnet", quietly = TRUE)
seeds <- seq_len(as.integer(Sys.getenv("SB_SEEDS", "6")))

old_default <- function(X, y) suppressWarnings(ard(X, y, prior = if (ncol(X) >= nrow(X)) "RIC" else "none"))
methods <- list(old = old_default, auto = function(X, y) suppressWarnings(ard(X, y)))
score <- function(X, y, Xt, yt, true = NULL) {
  out <- do.call(rbind, lapply(names(methods), function(m) {
    f <- methods[[m]](X, y)
    p <- predict(f, Xt, interval = "prediction")
    data.frame(method = m, rmse = sqrt(mean((yt - p[, 1])^2)), cover = mean(yt > p[, 2] & yt < p[, 3]),
               fp = if (is.null(true)) NA else sum(!selected(f) %in% true), sd = sqrt(f$lambda), c = f$smoothness)
  }))
  if (have_glmnet) {
    cv <- glmnet::cv.glmnet(X, y)
    out <- rbind(out, data.frame(method = "glmnet", rmse = sqrt(mean((yt - predict(cv, Xt, s = "lambda.min"))^2)),
                                 cover = NA, fp = NA, sd = NA, c = NA))
  }
  out
}
synthetic <- function(n, d, beta, seed) {
  set.seed(seed)
  nm <- paste0("x", seq_len(d))
  X <- matrix(rnorm(n * d), n, dimnames = list(NULL, nm))
  b <- beta(d)
  Xt <- matrix(rnorm(2000 * d), 2000, dimnames = list(NULL, nm))
  score(X, drop(X %*% b + rnorm(n)), Xt, drop(Xt %*% b + rnorm(2000)), nm[b != 0])
}
one <- function(d) c(2, rep(0, d - 1))
five <- function(d) c(2, -1.5, 1, -0.75, 0.5, rep(0, d - 5))
designs <- list()
for (n in c(50, 100)) for (r in c(0.8, 0.9, 1, 1.1, 1.2)) for (k in c("one", "five"))
  designs[[sprintf("near1_%s_n%d_r%.1f", k, n, r)]] <- list(n = n, d = round(r * n), beta = get(k))
for (r in c(0.1, 0.3, 0.5)) designs[[sprintf("sparse5_n100_r%.1f", r)]] <- list(n = 100, d = 100 * r, beta = five)
designs <- c(designs, list(
  sparse5_n200_d50 = list(n = 200, d = 50, beta = five),
  dense_n100_d30 = list(n = 100, d = 30, beta = function(d) rnorm(d, sd = 0.5)),
  dense_n200_d20 = list(n = 200, d = 20, beta = function(d) rep(0.3, d)),
  dense_n50_d60 = list(n = 50, d = 60, beta = function(d) rnorm(d, sd = 0.5)),
  decay_n100_d30 = list(n = 100, d = 30, beta = function(d) 2 * 0.8^(0:(d - 1))),
  decay_n50_d10 = list(n = 50, d = 10, beta = function(d) 2 * 0.7^(0:(d - 1))),
  weak_n50_d40 = list(n = 50, d = 40, beta = function(d) c(rep(0.5, 5), rep(0, d - 5))),
  wide_n100_d1000 = list(n = 100, d = 1000, beta = function(d) c(rep(2, 10), rep(0, d - 10)))))
rows <- NULL
for (nm in names(designs)) for (s in seeds)
  rows <- rbind(rows, cbind(design = nm, with(designs[[nm]], synthetic(n, d, beta, s))))
real <- list(boston = list(f = medv ~ ., d = MASS::Boston), mtcars = list(f = mpg ~ ., d = mtcars),
             uscrime = list(f = y ~ ., d = MASS::UScrime), swiss = list(f = Fertility ~ ., d = swiss),
             birthwt = list(f = bwt ~ age + lwt + race + smoke + ptl + ht + ui + ftv, d = MASS::birthwt),
             cpus = list(f = log(perf) ~ syct + mmin + mmax + cach + chmin + chmax, d = MASS::cpus))
for (nm in names(real)) {
  X <- model.matrix(real[[nm]]$f, real[[nm]]$d)[, -1, drop = FALSE]
  y <- model.response(model.frame(real[[nm]]$f, real[[nm]]$d))
  set.seed(1)
  fold <- sample(rep_len(1:10, nrow(X)))
  for (k in 1:10) rows <- rbind(rows, cbind(design = nm, score(X[fold != k, ], y[fold != k], X[fold == k, , drop = FALSE],
                                                                y[fold == k])))
}
tab <- aggregate(cbind(rmse, cover, fp, sd, c) ~ method + design, rows, mean, na.action = na.pass)
wide <- reshape(tab, idvar = "design", timevar = "method", direction = "wide")
wide <- wide[match(unique(rows$design), wide$design), ]
keep <- c("design", grep("^rmse|^cover\\.(old|auto)|^fp\\.(old|auto)|^sd\\.(old|auto)|^c\\.auto", names(wide), value = TRUE))
print(wide[, keep], digits = 3, row.names = FALSE)
near <- tab[grepl("^near1", tab$design), ]
cat("\nd/n in [0.8, 1.2], 20 designs x", length(seeds), "seeds: mean coverage / false selected / RMSE\n")
print(aggregate(cbind(cover, fp, rmse) ~ method, near, mean), digits = 3)
