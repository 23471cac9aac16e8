# 5-fold CV on mlbench regression data (Boston, Ozone, Servo) with every
# regression model and lm, reporting RMSE, time and every warning a user
# would see. Usage: Rscript bench/regression_cv.R
suppressPackageStartupMessages({library(sparsebayes); library(mlbench)})
data(BostonHousing); data(Ozone); data(Servo)
oz <- na.omit(Ozone); names(oz)[4] <- "y"; oz <- oz[, c(4, 1:3, 5:13)]; oz[] <- lapply(oz, function(v) if (is.factor(v)) as.numeric(v) else v)
sets <- list(Boston = list(d = BostonHousing, f = medv ~ .), Ozone = list(d = oz, f = y ~ .),
             Servo = list(d = Servo, f = Class ~ .))
cv <- function(d, f, fitter) {
  set.seed(1); fo <- sample(rep(1:5, length.out = nrow(d))); err <- c(); w <- character()
  for (k in 1:5) {
    fit <- withCallingHandlers(fitter(f, d[fo != k, ]), warning = function(e) { w <<- c(w, conditionMessage(e)); invokeRestart("muffleWarning") })
    yk <- model.response(model.frame(f, d[fo == k, ]))
    err <- c(err, (predict(fit, d[fo == k, ]) - yk)^2)
  }
  list(rmse = sqrt(mean(err)), warnings = unique(w))
}
fitters <- list(rvm = function(f, d) rvm(f, data = d), ard = function(f, d) ard(f, data = d),
  ard_sample = function(f, d) ard(f, data = d, noise = "sample"),
  gp = function(f, d) sparse_gp(f, data = d, inducing = 30, seed = 1), lm = function(f, d) lm(f, data = d))
for (s in names(sets)) for (m in names(fitters)) {
  t <- system.time(r <- cv(sets[[s]]$d, sets[[s]]$f, fitters[[m]]))[["elapsed"]]
  cat(sprintf("%-7s %-11s rmse %.3f  %.1fs  %s\n", s, m, r$rmse, t, paste(r$warnings, collapse = " | ")))
}
