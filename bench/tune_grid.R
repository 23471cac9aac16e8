# Does tuning help? tune::tune_grid() with the default space-filling grid of
# 10 over rvm_model(width_multiple = tune()) (multiples of the learned
# widths, rvm_width_multiple()'s default range 2^-1 to 2^1) against the
# untuned default rvm_model() on the same 5 folds (rsample::vfold_cv after
# set.seed(fold seed)): BostonHousing (RMSE) and Pima (log loss). tune's own
# resampling does the work here (it is what a tidymodels user runs), so this
# is not a bench/panel.R panel.
# Usage: Rscript bench/tune_grid.R [sets] [fold seeds]
#   e.g. Rscript bench/tune_grid.R Boston,Pima 1,2,3
suppressPackageStartupMessages({
  library(sparsebayes); library(tune); library(workflows); library(rsample); library(yardstick); library(parsnip)
})
args <- commandArgs(TRUE)
arg <- function(i, default) if (length(args) >= i && nzchar(args[i])) strsplit(args[i], ",")[[1L]] else default
data(BostonHousing, PimaIndiansDiabetes, package = "mlbench", envir = environment())
sets <- list(
  Boston = list(data = BostonHousing, formula = medv ~ ., mode = "regression", metric = "rmse"),
  Pima = list(data = PimaIndiansDiabetes, formula = diabetes ~ ., mode = "classification", metric = "mn_log_loss"))
rows <- list()
for (s in arg(1L, names(sets))) for (seed in as.integer(arg(2L, "1"))) {
  st <- sets[[s]]
  metrics <- if (st$mode == "regression") metric_set(rmse) else metric_set(mn_log_loss)
  set.seed(seed)
  folds <- vfold_cv(st$data, v = 5)
  t0 <- proc.time()[["elapsed"]]
  untuned <- collect_metrics(fit_resamples(workflow(st$formula, rvm_model(mode = st$mode)), folds, metrics = metrics))
  t1 <- proc.time()[["elapsed"]]
  res <- tune_grid(workflow(st$formula, rvm_model(mode = st$mode, width_multiple = tune())), folds, grid = 10,
                   metrics = metrics)
  t2 <- proc.time()[["elapsed"]]
  best <- show_best(res, metric = st$metric, n = 1)
  grid <- collect_metrics(res)
  rows[[length(rows) + 1L]] <- data.frame(set = s, fold_seed = seed, metric = st$metric, untuned = untuned$mean,
                                          tuned = best$mean, best_multiple = best$width_multiple,
                                          grid_range = sprintf("%.3f-%.3f", min(grid$mean), max(grid$mean)),
                                          untuned_s = t1 - t0, tuned_s = t2 - t1)
  print(rows[[length(rows)]], digits = 4, row.names = FALSE)
}
out <- do.call(rbind, rows)
cat("\n| set | fold seed | metric | untuned default | tuned (best of 10) | best multiple | grid's range | seconds (untuned / tuned) |\n",
    "|---|---:|---|---:|---:|---:|---|---|\n", sep = "")
with(out, cat(sprintf("| %s | %d | %s | %.3f | %.3f | %.2f | %s | %.1f / %.1f |\n", set, fold_seed, metric, untuned, tuned,
                      best_multiple, grid_range, untuned_s, tuned_s), sep = ""))
cat(sprintf("\nTuned never worse than untuned: %s\n", all(out$tuned <= out$untuned + 1e-12)))
