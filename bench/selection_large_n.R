# Selection at n >> d (issue 60, item 4): the false features among what
# ard() keeps (ARD's relevant set) and among selected() (inclusion
# probability > 0.5, beta-binomial prior), against glmnet's lambda.1se
# (cv.glmnet, 10 folds), on X ~ N(0, I), 20 true features with N(0, 1)
# coefficients, noise sd 1.
# Usage: Rscript bench/selection_large_n.R [n,d pairs] [seeds]
#   e.g. Rscript bench/selection_large_n.R 20000x500,200000x200 1,2
library(sparsebayes)
args <- commandArgs(TRUE)
shapes <- strsplit(strsplit(if (length(args) >= 1L) args[1L] else "20000x500", ",")[[1L]], "x")
seeds <- if (length(args) >= 2L) as.integer(strsplit(args[2L], ",")[[1L]]) else 1L
rows <- list()
for (sh in shapes) for (seed in seeds) {
  n <- as.integer(sh[1L]); d <- as.integer(sh[2L])
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, dimnames = list(NULL, paste0("x", seq_len(d))))
  y <- drop(X[, 1:20] %*% rnorm(20)) + rnorm(n)
  t_ard <- system.time(fit <- ard(X, y))[["elapsed"]]
  kept <- setdiff(names(fit$weights), "(Intercept)")
  sel <- selected(fit)
  t_glm <- system.time(g <- glmnet::cv.glmnet(X, y, nfolds = 10))[["elapsed"]]
  b <- as.matrix(coef(g, s = "lambda.1se"))[-1L, 1L]
  lasso <- names(b)[b != 0]
  false <- function(v) sum(!v %in% paste0("x", 1:20))
  missed <- function(v) sum(!paste0("x", 1:20) %in% v)
  rows[[length(rows) + 1L]] <- data.frame(n = n, d = d, seed = seed, ard_kept = length(kept), ard_false = false(kept),
                                          selected = length(sel), selected_false = false(sel), selected_missed = missed(sel),
                                          lasso_1se = length(lasso), lasso_false = false(lasso), lasso_missed = missed(lasso),
                                          ard_s = round(t_ard, 1), glmnet_s = round(t_glm, 1))
  print(rows[[length(rows)]])
}
res <- do.call(rbind, rows)
cat("\n| n | d | seed | ARD kept (false) | selected() (false, missed) | lasso.1se (false, missed) | ard s | cv.glmnet s |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
for (i in seq_len(nrow(res))) with(res[i, ], cat(sprintf("| %d | %d | %d | %d (%d) | %d (%d, %d) | %d (%d, %d) | %.1f | %.1f |\n", n, d, seed,
  ard_kept, ard_false, selected, selected_false, selected_missed, lasso_1se, lasso_false, lasso_missed, ard_s, glmnet_s)))
