# The main job: fit a relevance vector machine to the motorcycle crash data
# (MASS::mcycle, shipped with R), print its summary and draw it; then the
# same model with Student-t noise (a variance per observation, kept above a
# common floor), which learns which observations to trust.
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

dir.create("demo-output", showWarnings = FALSE)
png("demo-output/rvm-mcycle.png", width = 900, height = 560, res = 110)
plot(fit, main = "RVM on the motorcycle crash data")
invisible(dev.off())
png("demo-output/rvm-mcycle-leverage.png", width = 900, height = 560, res = 110)
plot(robust, which = "leverage")
invisible(dev.off())
cat("\nplots written to demo-output/rvm-mcycle.png and demo-output/rvm-mcycle-leverage.png\n")
