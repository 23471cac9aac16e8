# Student-t noise with and without its outlier class (ard_control(outlier_class =))
# in an RVM on the joint-ARD paper's Boston protocol (inst/reproduce/boston_protocol.R:
# 20% held out, training targets standardised and contaminated at 0-30%,
# amplitude 3), the same splits for both. Why rvm() leaves the class off by
# default: it changes nothing beyond the standard errors at 0-20%, and at 30%
# one split breaks (the class lets the flexible fit give up rows).
#   Rscript bench/outlier_class_boston.R [splits] [method]   (from the package root; 20 fast: 70 s)
suppressPackageStartupMessages(library(sparsebayes))
source("inst/reproduce/boston_protocol.R")
args <- commandArgs(trailingOnly = TRUE)
splits <- seq_len(if (length(args) >= 1) as.integer(args[1]) else 20L)
method <- if (length(args) >= 2) args[2] else "fast"
rows <- list()
for (t in splits) {
  s <- boston_split(t)
  for (rate in c(0, 0.1, 0.2, 0.3)) {
    ys <- boston_targets(s, rate)
    for (outlier_class in c(FALSE, TRUE)) {
      control <- if (method == "fast") rvm_control(outlier_class = outlier_class) else ard_control(outlier_class = outlier_class)
      secs <- system.time(fit <- suppressWarnings(rvm(s$x, as.numeric(ys), kernel = "gaussian", scale = FALSE,
                                                      method = method, noise = "student", control = control)))[[3]]
      rows[[length(rows) + 1]] <- data.frame(split = t, rate = rate, outlier_class = outlier_class,
                                             rmse = sqrt(mean((s$y_test - boston_medv(s, fit))^2)), seconds = secs,
                                             vectors = length(fit$relevant))
    }
  }
}
r <- do.call(rbind, rows)
se <- function(x) sd(x) / sqrt(length(x))
cat(sprintf("Boston, rvm(noise = \"student\", method = \"%s\"), %d splits: test RMSE (medv) and its se, seconds, vectors\n",
            method, length(splits)))
out <- aggregate(cbind(rmse, seconds, vectors) ~ outlier_class + rate, r, mean)
out$rmse_se <- aggregate(rmse ~ outlier_class + rate, r, se)$rmse
print(out, digits = 3, row.names = FALSE)
cat("\nPer split at 30%:\n")
print(reshape(r[r$rate == 0.3, c("split", "outlier_class", "rmse")], idvar = "split", timevar = "outlier_class",
              direction = "wide"), digits = 3, row.names = FALSE)
