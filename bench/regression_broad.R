# The defaults on data no issue names: 5-fold CV (same folds for every
# method) of rvm() and sparse_gp() at their defaults against e1071::svm and
# ranger on 14 small regression sets from base R, MASS and mlbench, as a
# user would try them (formula interface, factors as they come). Per set
# and method: test RMSE pooled over folds +- se, mean kept vectors, CPU
# per fit, every warning. Raw results: bench/regression_broad.rds.
# Usage: Rscript bench/regression_broad.R [sets] [methods]  (comma-separated filters)
source("bench/panel.R")

sets <- regression_broad_sets()

methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  sparse_gp = function(f, d) sparse_gp(f, data = d, seed = 1),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]
res <- run_panel(sets, methods, scoring$rmse, rds = "bench/regression_broad.rds")
table_md(res, sets, methods, "Test RMSE, pooled over 5 folds, +- se over folds (mean kept vectors); best per set in bold:",
         score_cell(res))
table_md(res, sets, methods, "CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu))
res$rank <- ave(res$score, res$set, FUN = function(x) rank(x, na.last = "keep"))
best <- tapply(res$score, res$set, min, na.rm = TRUE)
res$ratio <- res$score / best[res$set]
cat("\nMean rank (1 = best), sets won, RMSE / best (median, max):\n\n| method | mean rank | won | median ratio | max ratio |\n|---|---:|---:|---:|---:|\n")
for (m in names(methods)) {
  r <- res[res$method == m, ]
  cat(sprintf("| %s | %.2f | %d | %.3f | %.3f |\n", m, mean(r$rank, na.rm = TRUE), sum(r$rank == 1, na.rm = TRUE),
              stats::median(r$ratio, na.rm = TRUE), max(r$ratio, na.rm = TRUE)))
}
print_warnings(res)
