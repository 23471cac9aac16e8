# The main job: fit a relevance vector machine to the motorcycle crash data
# (MASS::mcycle, shipped with R), print its summary and draw it; then the
# same model with Student-t noise (a variance per observation, kept above a
# common floor), which learns which observations to trust, and both bands.
library(sparsebayes)
data(mcycle, package = "MASS")
fit <- rvm(accel ~ times, data = mcycle)
print(summary(fit))
cat("\nPredictions at 15, 25 and 35 ms with 95% prediction intervals:\n")
print(predict(fit, data.frame(times = c(15, 25, 35)), interval = "prediction"))

robust <- rvm(accel ~ times, data = mcycle, noise = "student")
cat("\nWith Student-t noise:\n")
print(robust)
cat(sprintf("Effective support size: %.1f%% of the basis functions, %.1f%% of the samples\n",
            100 * ess(robust, "weights"), 100 * ess(robust, "samples")))
cat("Least trusted observations (largest learned noise variance):\n")
print(outliers(robust, 5), digits = 3)

# Left, the shared-noise fit: one band width everywhere. Right, the
# Student-t fit: each observation's 95% band, from its own learned noise
# variance (lambda) and the variance of the mean there. The bands widen at
# the observations the fit trusts least (circled: outliers() above), not
# with time: Student-t noise is robust to outliers, it does not model a
# variance that changes with the input.
dir.create("demo-output", showWarnings = FALSE)
png("demo-output/rvm-mcycle.png", width = 1400, height = 560, res = 110)
op <- par(mfrow = c(1, 2))
plot(fit, main = "Shared noise: one band width")
pr <- predict(robust, se.fit = TRUE)
half <- qnorm(0.975) * sqrt(pr$se.fit^2 + robust$lambda)
plot(mcycle$times, mcycle$accel, pch = 16, cex = 0.6, col = "grey40", xlab = "times", ylab = "accel",
     ylim = range(mcycle$accel, pr$fit - half, pr$fit + half),
     main = "Student-t noise: a band per observation")
segments(mcycle$times, pr$fit - half, mcycle$times, pr$fit + half, col = adjustcolor("steelblue", 0.45), lwd = 3)
lines(mcycle$times, pr$fit, col = "steelblue4", lwd = 2)
points(mcycle$times, mcycle$accel, pch = 16, cex = 0.6, col = "grey40")
worst <- outliers(robust, 5)$index
points(mcycle$times[worst], mcycle$accel[worst], cex = 1.8, col = "firebrick", lwd = 1.5)
legend("bottomright", c("predictive mean", "95% band of each observation", "least trusted (5)"), bty = "n",
       cex = 0.8, col = c("steelblue4", adjustcolor("steelblue", 0.45), "firebrick"), lwd = c(2, 3, 1.5),
       lty = c(1, 1, NA), pch = c(NA, NA, 1))
par(op)
invisible(dev.off())
png("demo-output/rvm-mcycle-leverage.png", width = 900, height = 560, res = 110)
plot(robust, which = "leverage")
invisible(dev.off())
cat("\nplots written to demo-output/rvm-mcycle.png (shared and per-observation bands) and",
    "demo-output/rvm-mcycle-leverage.png\n")
guide <- suppressWarnings(vignette("sparsebayes", package = "sparsebayes"))
if (inherits(guide, "vignette"))
  cat(sprintf("the user's guide: vignette(\"sparsebayes\") (%s)\n", file.path(guide$Dir, "doc", guide$PDF)))
