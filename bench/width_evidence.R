# Kernel width by the evidence against the median heuristic, 5-fold CV of the
# width and e1071::svm, on public regression sets: 10 random 80/20 splits per
# set (seeds 1..10), test RMSE as mean +- standard error over the splits, the
# number of relevance (support) vectors and the time per fit (CV: the whole
# search and the final refit). Gaussian kernels throughout, inputs
# standardised by each model on its training split.
# Usage: Rscript bench/width_evidence.R [splits]
suppressPackageStartupMessages({
  library(sparsebayes)
  library(mlbench)
  library(e1071)
})
args <- as.integer(commandArgs(TRUE))
n_splits <- if (length(args) && !is.na(args[1L])) args[1L] else 10L

data(BostonHousing, BostonHousing2, Servo, Ozone, package = "mlbench", envir = environment())
ozone <- na.omit(Ozone)
ozone[] <- lapply(ozone, function(v) if (is.factor(v)) as.numeric(as.character(v)) else v)  # month, day: numbers
boston2 <- BostonHousing2[, setdiff(names(BostonHousing2), c("town", "tract", "medv"))]  # corrected medv, lon/lat
sets <- list(
  BostonHousing = list(data = BostonHousing, formula = medv ~ .),
  BostonHousing2 = list(data = boston2, formula = cmedv ~ .),
  Servo = list(data = Servo, formula = Class ~ .),
  Ozone = list(data = ozone, formula = V4 ~ .),
  mcycle = list(data = MASS::mcycle, formula = accel ~ times))

quietly <- function(expr) suppressWarnings(expr)

# 5-fold CV of the RVM's width on the training split, over multiples of the
# median heuristic; refit on the whole split at the best width.
rvm_cv <- function(formula, data, multiples = 2^(-3:2), folds = 5L) {
  h <- quietly(rvm(formula, data = data))$kernel$width
  set.seed(99)
  fold <- sample(rep(seq_len(folds), length.out = nrow(data)))
  y <- model.response(model.frame(formula, data))
  cv_rmse <- vapply(multiples, function(m) {
    sq <- unlist(lapply(seq_len(folds), function(k) {
      fit <- quietly(rvm(formula, data = data[fold != k, ], kernel = kernel_gaussian(h * m)))
      (predict(fit, data[fold == k, ]) - y[fold == k])^2
    }))
    sqrt(mean(sq))
  }, numeric(1))
  quietly(rvm(formula, data = data, kernel = kernel_gaussian(h * multiples[which.min(cv_rmse)])))
}

methods <- list(
  "rvm, heuristic width" = function(f, d) quietly(rvm(f, data = d)),
  "rvm, width by evidence" = function(f, d) quietly(rvm(f, data = d, kernel = kernel_gaussian("evidence"))),
  "rvm, width by 5-fold CV" = rvm_cv,
  "svm (e1071 defaults)" = function(f, d) svm(f, data = d))

n_vectors <- function(fit) if (inherits(fit, "svm")) fit$tot.nSV else length(fit$relevance_index)

rows <- list()
for (s in names(sets)) {
  d <- sets[[s]]$data
  f <- sets[[s]]$formula
  res <- lapply(names(methods), function(m) data.frame(rmse = numeric(0), vectors = numeric(0), time = numeric(0),
                                                      width = numeric(0)))
  names(res) <- names(methods)
  for (split in seq_len(n_splits)) {
    set.seed(split)
    test <- sample(nrow(d), round(0.2 * nrow(d)))
    train <- d[-test, ]
    y_test <- model.response(model.frame(f, d[test, ]))
    for (m in names(methods)) {
      time <- system.time(fit <- methods[[m]](f, train))[["elapsed"]]
      rmse <- sqrt(mean((predict(fit, d[test, ]) - y_test)^2))
      width <- if (inherits(fit, "svm")) 1 / sqrt(fit$gamma) else fit$kernel$width  # svm: exp(-gamma d^2)
      res[[m]] <- rbind(res[[m]], data.frame(rmse = rmse, vectors = n_vectors(fit), time = time, width = width))
    }
  }
  for (m in names(methods)) {
    r <- res[[m]]
    rows[[length(rows) + 1L]] <- data.frame(set = s, n = nrow(d), method = m, rmse = mean(r$rmse),
                                            se = sd(r$rmse) / sqrt(nrow(r)), vectors = mean(r$vectors),
                                            width = median(r$width), time = mean(r$time))
  }
  cat(sprintf("%s done\n", s), file = stderr())
}
tab <- do.call(rbind, rows)

cat(sprintf("\n%d random 80/20 splits per set (seeds 1..%d); test RMSE mean +- se over the splits; ", n_splits, n_splits),
    "vectors: relevance vectors (rvm) or support vectors (svm), mean; width: median chosen width in standardised ",
    "inputs (gaussian kernel exp(-d^2/r^2)); time: seconds per fit, mean.\n\n", sep = "")
cat("| set | n | method | test RMSE | vectors | width | time (s) |\n")
cat("|---|---:|---|---:|---:|---:|---:|\n")
for (i in seq_len(nrow(tab))) {
  r <- tab[i, ]
  best <- r$rmse == min(tab$rmse[tab$set == r$set])
  rmse <- sprintf("%.3f ± %.3f", r$rmse, r$se)
  cat(sprintf("| %s | %d | %s | %s | %.1f | %s | %.2f |\n", r$set, r$n, r$method,
              if (best) paste0("**", rmse, "**") else rmse, r$vectors,
              if (is.na(r$width)) "" else format(r$width, digits = 3), r$time))
}
