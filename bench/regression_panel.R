# Benchmark panel for kernel regression: 5-fold CV of sparsebayes' rvm() and
# sparse_gp() at their defaults (one kernel width per input, learned) and at
# the former default (the median-heuristic width), rvm() with one width by
# inner 5-fold cross_validate(), against e1071::svm and ranger, on
# Boston, Ozone, Servo, mcycle and Friedman 1-3. Per set and method: test
# RMSE pooled over the 5 held-out folds +- its standard error (sd of the
# per-fold RMSEs / sqrt(5)), the mean number of kept basis functions
# (relevance vectors, inducing points, support vectors), the mean CPU time
# (user + system) per fit, fit + predict, and every warning a user would
# see. Same folds for every method. Raw results: bench/regression_panel.rds.
# Usage: Rscript bench/regression_panel.R [sets] [methods] [fold seeds]
#   optional comma-separated filters, e.g.
#   Rscript bench/regression_panel.R Servo,mcycle rvm,svm
#   and fold draws (default 1): with several, every number is the mean over
#   the draws, and the ranks are those of the mean RMSE, e.g.
#   Rscript bench/regression_panel.R "" "" 1,2,3
# Run from the package root; a method whose fit takes more than 60 s is
# skipped for the remaining folds of that set.
source("bench/panel.R")  # the harness, packages and data sets shared by the panels

# ---- data sets (bench/sets.R) ---------------------------------------------
sets <- regression_sets()

# ---- methods: function(formula, train) -> fit with predict(fit, newdata) --
# rvm with one gaussian width chosen by inner 5-fold CV on the training fold
# over the median-heuristic width times 2^(-3:3).
rvm_cv <- function(formula, train, multiples = 2^(-3:3)) {
  fit <- rvm(formula, data = train, kernel = kernel_gaussian("median"))
  grid <- list(kernel = lapply(fit$kernel$width * multiples, kernel_gaussian))
  cross_validate(fit, folds = 5, seed = 1, grid = grid)$fit  # refitted on the whole fold at the best width
}

methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_median = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("median")),
  rvm_cv = rvm_cv,
  sparse_gp = function(f, d) sparse_gp(f, data = d, seed = 1),
  sparse_gp_median = function(f, d) sparse_gp(f, data = d, kernel = kernel_gaussian("median"), seed = 1),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

# ---- the panel (bench/panel.R) --------------------------------------------
sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]
args <- commandArgs(TRUE)
fold_seeds <- if (length(args) >= 3L && nzchar(args[3L])) as.integer(strsplit(args[3L], ",")[[1L]]) else 1L
res <- average_draws(run_panel(sets, methods, scoring$rmse, rds = "bench/regression_panel.rds", fold_seeds = fold_seeds))
res$rmse <- res$score

# ---- tables --------------------------------------------------------------
table_md(res, sets, methods, sprintf("Test RMSE, pooled over 5 folds, +- se over folds (mean kept vectors)%s; best per set in bold:",
                                     if (length(fold_seeds) > 1L) sprintf(", means over fold draws %s", paste(fold_seeds, collapse = ", ")) else ""),
         score_cell(res))
best <- tapply(res$rmse, res$set, min, na.rm = TRUE)
table_md(res, sets, methods, "CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu))

# Mean rank of the RMSE within each set, and RMSE / best RMSE per set.
res$rank <- ave(res$rmse, res$set, FUN = function(x) rank(x, na.last = "keep"))
res$ratio <- res$rmse / best[res$set]
cat("\nSummary: mean rank of the RMSE within a set (1 = best); RMSE / best RMSE on each set and its max:\n\n",
    "| method | mean rank | ", paste(names(sets), collapse = " | "), " | max |\n|---|---:|",
    strrep("---:|", length(sets) + 1L), "\n", sep = "")
for (m in names(methods)) {
  r <- res[res$method == m, ]
  cat(sprintf("| %s | %.2f | %s | %.3f |\n", m, mean(r$rank, na.rm = TRUE),
              paste(sprintf("%.3f", r$ratio[match(names(sets), r$set)]), collapse = " | "), max(r$ratio, na.rm = TRUE)))
}

print_warnings(res)
