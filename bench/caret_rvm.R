# caret's own RVM (method = "rvmRadial", kernlab::rvm with a gaussian kernel
# whose sigma is caret's default, the mean of kernlab::sigest's range) against
# sparsebayes_caret("rvm") (its default grid, tuneLength = 3: learned widths,
# the median heuristic h and 2 h) on BostonHousing (506 rows, 13 inputs,
# chas as 0/1), on the same 5 outer folds. Inside each outer training set
# caret tunes by its own 5-fold CV (sparsebayes' three widths; rvmRadial
# has one grid point, so it is fitted once per inner fold and once on the
# outer training set). Reported: test RMSE per fold and CPU seconds per fold
# (user + system of this process; both run single-threaded apart from our
# kernel threads, see sparsebayes' kernel_threads option).
# Run from the repository root: Rscript bench/caret_rvm.R
suppressPackageStartupMessages({
  library(sparsebayes)
  library(caret)
})
if (!requireNamespace("kernlab", quietly = TRUE)) {
  message("kernlab is not installed: caret's rvmRadial needs it; nothing to compare.")
  quit(status = 0)
}
if (!requireNamespace("mlbench", quietly = TRUE)) {
  message("mlbench is not installed: no BostonHousing.")
  quit(status = 0)
}
cat(sprintf("R %s, caret %s, kernlab %s, %s, %s\n", getRversion(), packageVersion("caret"), packageVersion("kernlab"),
            sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]), format(Sys.time(), "%Y-%m-%d")))
data("BostonHousing", package = "mlbench")
x <- BostonHousing[, setdiff(names(BostonHousing), "medv")]
x$chas <- as.numeric(as.character(x$chas))
y <- BostonHousing$medv
set.seed(2026)
folds <- createFolds(y, k = 5)
cpu <- function(expr) {
  t0 <- proc.time()
  value <- expr
  t <- proc.time() - t0
  list(value = value, cpu = t[["user.self"]] + t[["sys.self"]] + t[["user.child"]] + t[["sys.child"]])
}
methods <- list(rvmRadial = "rvmRadial", sparsebayes = sparsebayes_caret("rvm"))
rows <- list()
for (k in seq_along(folds)) {
  test <- folds[[k]]
  for (m in names(methods)) {
    set.seed(k)
    inner <- trainControl(method = "cv", number = 5)
    res <- cpu(suppressWarnings(train(x[-test, ], y[-test], method = methods[[m]], trControl = inner, tuneLength = 3,
                                      preProcess = if (m == "rvmRadial") c("center", "scale"))))
    pred <- predict(res$value, x[test, ])
    best <- res$value$bestTune
    rows[[length(rows) + 1L]] <- data.frame(fold = k, method = m, rmse = sqrt(mean((pred - y[test])^2)), cpu = res$cpu,
                                            chosen = paste(names(best), signif(unlist(best), 3), sep = "=", collapse = ","))
    cat(sprintf("fold %d %-12s RMSE %.3f  CPU %.1f s  (%s)\n", k, m, tail(rows, 1)[[1]]$rmse, res$cpu,
                tail(rows, 1)[[1]]$chosen))
  }
}
r <- do.call(rbind, rows)
cat("\n| method | test RMSE per fold | mean RMSE | CPU s per fold (mean) | chosen |\n|---|---|---|---|---|\n")
for (m in names(methods)) {
  s <- r[r$method == m, ]
  cat(sprintf("| %s | %s | %.2f | %.1f | %s |\n", if (m == "sparsebayes") "`sparsebayes_caret(\"rvm\")`" else "caret `rvmRadial`",
              paste(sprintf("%.2f", s$rmse), collapse = ", "), mean(s$rmse), mean(s$cpu),
              paste(names(table(s$chosen)), collapse = "; ")))
}
