# Classification on sets no issue names, as a user would try them (formula,
# defaults): 5-fold CV of rvm() against e1071::svm and ranger on 8 sets
# from mlbench, MASS and base R, the same folds for every method
# (bench/panel.R). The companion of
# bench/regression_broad.R; bench/classification_panel.R has the five sets
# of the issue "Kernels learned from the data".
# Usage: Rscript bench/classification_broad.R [sets] [methods]
suppressPackageStartupMessages({
  library(sparsebayes)
  library(mlbench)
  library(e1071)
  library(ranger)
})
source("bench/panel.R")

source("bench/sets.R")
sets <- classification_broad_sets()

# rvm with the median heuristic (the default) and with one width per input
# learned by the Laplace GP classifier; variants of the width are measured
# in bench/width_alternatives.R.
methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]
res <- run_panel(sets, methods, as_pred = as.character, loss = function(pred, y) as.numeric(pred != as.character(y)),
                 pool = mean, rds = "bench/classification_broad.rds")
classes <- list(classes = function(s) nlevels(model.response(model.frame(sets[[s]]$formula, sets[[s]]$data))))
table_md(res, sets, methods, "Test error rate, pooled over 5 folds, +- se over folds (mean kept vectors); best per set in bold:",
         score_cell(res), classes)
table_md(res, sets, methods, "CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu), classes)
print_warnings(res)
