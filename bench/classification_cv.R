# Multiclass RVM classification against e1071::svm (default settings: radial
# kernel, gamma = 1 / p, C = 1, inputs scaled) by 5-fold cross-validation on
# mlbench's Vehicle (846 silhouettes, 18 features, 4 classes), both in one
# process: time per fold and test error. Our fit is rvm(X, Class) with its
# defaults: one binary RVM per class against the rest on one shared kernel
# matrix (Gaussian kernel, width from the inputs, bias, scaled inputs).
# Every time is the minimum over `reps` runs (default 3; the machine may be
# shared). Then the fit on all 846 rows: time, and per class the iterations,
# relevance vectors and log evidence.
# Run from the repository root: Rscript bench/classification_cv.R [reps]
library(sparsebayes)
suppressPackageStartupMessages(library(e1071))
data(Vehicle, package = "mlbench")
cat(sprintf("R %s, %s, %s\n", getRversion(), sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            format(Sys.time(), "%Y-%m-%d")))
X <- as.matrix(Vehicle[, 1:18])
y <- Vehicle$Class
set.seed(9)
folds <- sample(rep(1:5, length.out = nrow(X)))
reps <- if (length(commandArgs(TRUE))) as.integer(commandArgs(TRUE)[1]) else 3L
timed <- function(expr) {
  e <- substitute(expr)
  env <- parent.frame()
  times <- numeric(reps)
  for (r in seq_len(reps)) {
    gc()
    times[r] <- system.time(value <- eval(e, env))[["elapsed"]]
  }
  list(time = min(times), value = value)
}
invisible(svm(X[1:50, ], droplevels(y[1:50])))  # load e1071's code before timing
rows <- list()
for (k in 1:5) {
  tr <- folds != k
  ours <- timed(withCallingHandlers(rvm(X[tr, ], y[tr]), warning = function(w) {
    cat("warning:", conditionMessage(w), "\n")
    invokeRestart("muffleWarning")
  }))
  sv <- timed(svm(X[tr, ], y[tr]))
  rows[[k]] <- data.frame(fold = k, rvm_s = ours$time, rvm_err = mean(predict(ours$value, X[!tr, ]) != y[!tr]),
                          rv = sum(vapply(ours$value$models, function(m) length(m$relevant), integer(1))),
                          converged = all(vapply(ours$value$models, `[[`, logical(1), "converged")),
                          svm_s = sv$time, svm_err = mean(predict(sv$value, X[!tr, ]) != y[!tr]),
                          sv = sv$value$tot.nSV)
}
res <- do.call(rbind, rows)
cat("\n| fold | rvm (s) | rvm error | RVs (4 models) | converged | svm (s) | svm error | SVs | rvm / svm time |\n")
cat("|---|---|---|---|---|---|---|---|---|\n")
with(res, cat(sprintf("| %d | %.2f | %.3f | %d | %s | %.3f | %.3f | %d | %.0fx |\n", fold, rvm_s, rvm_err, rv, converged,
                      svm_s, svm_err, sv, rvm_s / svm_s), sep = ""))
cat(sprintf("| mean | %.2f | %.3f | %.0f | | %.3f | %.3f | %.0f | %.0fx |\n", mean(res$rvm_s), mean(res$rvm_err),
            mean(res$rv), mean(res$svm_s), mean(res$svm_err), mean(res$sv), mean(res$rvm_s) / mean(res$svm_s)))

full <- timed(rvm(Class ~ ., data = Vehicle))
cat(sprintf("\nAll 846 rows, rvm(Class ~ ., data = Vehicle): %.2f s (min of %d)\n\n", full$time, reps))
cat("| class | iterations | mode searches (trace) | rejected | RVs | log evidence | converged |\n|---|---|---|---|---|---|---|\n")
for (k in names(full$value$models)) {
  m <- full$value$models[[k]]
  cat(sprintf("| %s | %d | %d | %d | %d | %.2f | %s |\n", k, m$iterations, sum(m$trace$action == "mode search"),
              sum(m$trace$action == "rejected"), length(m$relevant), m$logLik, m$converged))
}
