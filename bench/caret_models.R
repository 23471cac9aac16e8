# The three caret model lists (sparsebayes_caret("rvm"|"ard"|"sparse_gp"))
# under caret::train() with 5-fold CV and their varImp(): regression on
# BostonHousing (506 rows, 13 inputs), classification (RVM) on Sonar (208
# rows, 60 inputs) and on PimaIndiansDiabetes (768 rows, 8 inputs). Prints
# the resampled metrics of each grid point, the chosen tuning value, the
# CPU seconds and the three most important inputs.
# Run from the repository root: Rscript bench/caret_models.R
if (!nzchar(Sys.getenv("TZ"))) Sys.setenv(TZ = "UTC")  # caret's dependencies ask for it
suppressPackageStartupMessages({
  library(sparsebayes)
  library(caret)
})
for (p in c("mlbench", "kernlab")) if (!requireNamespace(p, quietly = TRUE)) stop("needs ", p)
cat(sprintf("R %s, caret %s, sparsebayes %s, %s\n", getRversion(), packageVersion("caret"),
            packageVersion("sparsebayes"), format(Sys.time(), "%Y-%m-%d")))
data("BostonHousing", "Sonar", "PimaIndiansDiabetes", package = "mlbench")

run <- function(label, x, y, model, ...) {
  set.seed(1)
  t0 <- proc.time()
  fit <- train(x, y, method = sparsebayes_caret(model), trControl = trainControl(method = "cv", number = 5, ...),
               tuneLength = 3)
  cpu <- sum((proc.time() - t0)[c("user.self", "sys.self")])
  # varImp() of a final RVM with one width for all inputs refuses (it ranks
  # no input): then caret's model-free importance.
  imp <- tryCatch(varImp(fit)$importance, error = function(e) NULL)
  kind <- if (is.null(imp)) "model-free" else "model"
  if (is.null(imp)) imp <- varImp(fit, useModel = FALSE)$importance
  top <- rownames(imp)[order(-imp[[1]])][1:3]
  cat(sprintf("\n== %s, %s: %.0f s CPU; chosen %s; varImp (%s) top 3: %s\n", label, model, cpu,
              paste(names(fit$bestTune), vapply(fit$bestTune, format, "", digits = 3), sep = " = ", collapse = ", "), kind,
              paste(top, collapse = ", ")))
  print(fit$results[, setdiff(names(fit$results), grep("SD$", names(fit$results), value = TRUE))], digits = 3,
        row.names = FALSE)
  invisible(fit)
}

bx <- BostonHousing[, setdiff(names(BostonHousing), "medv")]
bx$chas <- as.numeric(as.character(bx$chas))
for (m in c("rvm", "ard", "sparse_gp")) run("BostonHousing", bx, BostonHousing$medv, m)
run("Sonar", Sonar[, 1:60], Sonar$Class, "rvm", classProbs = TRUE)
run("PimaIndiansDiabetes", PimaIndiansDiabetes[, 1:8], PimaIndiansDiabetes$diabetes, "rvm", classProbs = TRUE)
