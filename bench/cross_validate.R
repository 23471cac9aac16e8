# cross_validate() and the multiclass RVM under future plans, in one
# process: plan(sequential) against plan(multisession, workers = 2).
#  1. 10-fold CV of an RVM on mlbench's BostonHousing (n = 506, 13 inputs,
#     medv ~ .) over a grid of 3 Gaussian kernel widths x 2 noise models
#     (60 refits): the two results tables must agree exactly (max abs
#     difference 0) and the wall-time ratio shows what the workers buy.
#  2. A 4-class RVM on mlbench's Vehicle (n = 846, 18 inputs; one binary RVM
#     per class against the rest, the classes fitted through future): the
#     two fits' probabilities must agree exactly.
# The workers are started and load the package before any timing.
# Run from the repository root: Rscript bench/cross_validate.R
library(sparsebayes)
data(BostonHousing, package = "mlbench")
data(Vehicle, package = "mlbench")
cat(sprintf("R %s, %s, %d cores, %s\n", getRversion(),
            sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            parallel::detectCores(), format(Sys.time(), "%Y-%m-%d")))

timed <- function(expr) {
  gc()
  t <- system.time(value <- expr)[["elapsed"]]
  list(time = t, value = value)
}
quiet <- function(expr) withCallingHandlers(expr, warning = function(w) {
  cat("warning:", conditionMessage(w), "\n")
  invokeRestart("muffleWarning")
})

boston <- rvm(medv ~ ., data = BostonHousing)
grid <- list(kernel = list(kernel_gaussian(2), kernel_gaussian(4), kernel_gaussian(8)),
             noise = c("shared", "student"))
run_cv <- function() quiet(cross_validate(boston, folds = 10, seed = 2024, grid = grid))
run_multi <- function() quiet(rvm(Class ~ ., data = Vehicle))

future::plan(future::sequential)
cv_seq <- timed(run_cv())
multi_seq <- timed(run_multi())

future::plan(future::multisession, workers = 2)
invisible(future.apply::future_lapply(1:2, function(i) loadNamespace("sparsebayes")))  # start the workers
cv_par <- timed(run_cv())
multi_par <- timed(run_multi())
future::plan(future::sequential)

num <- function(tab) as.matrix(tab[vapply(tab, is.numeric, logical(1))])
cv_diff <- max(abs(num(cv_seq$value$results) - num(cv_par$value$results)),
               abs(cv_seq$value$folds$rmse - cv_par$value$folds$rmse))
p_seq <- predict(multi_seq$value, Vehicle, type = "prob")
p_par <- predict(multi_par$value, Vehicle, type = "prob")
multi_diff <- max(abs(p_seq - p_par), abs(as.numeric(logLik(multi_seq$value)) - as.numeric(logLik(multi_par$value))))

cat("\nBoston, 10-fold CV over the grid (sequential):\n")
print(cv_seq$value)
cat(sprintf("\nVehicle multiclass RVM: training error %.3f, relevance vectors per class %s\n",
            mean(predict(multi_seq$value) != Vehicle$Class),
            paste(vapply(multi_seq$value$models, function(m) length(m$relevant), integer(1)), collapse = "/")))

cat("\n| task | jobs | sequential (s) | multisession, 2 workers (s) | sequential / multisession | max abs difference |\n")
cat("|---|---|---|---|---|---|\n")
cat(sprintf("| cross_validate(): BostonHousing rvm, 10 folds x 6 settings | %d | %.2f | %.2f | %.2f | %g |\n",
            nrow(cv_seq$value$folds), cv_seq$time, cv_par$time, cv_seq$time / cv_par$time, cv_diff))
cat(sprintf("| rvm(Class ~ ., Vehicle), 4 classes one against the rest | %d | %.2f | %.2f | %.2f | %g |\n",
            length(multi_seq$value$models), multi_seq$time, multi_par$time, multi_seq$time / multi_par$time,
            multi_diff))
if (cv_diff != 0 || multi_diff != 0) stop("the plans disagree")
