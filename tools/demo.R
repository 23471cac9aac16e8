# The main job: fit a relevance vector machine to the motorcycle crash data
# (MASS::mcycle, shipped with R), print its summary and draw it.
library(sparsebayes)
data(mcycle, package = "MASS")
fit <- rvm(accel ~ times, data = mcycle)
print(summary(fit))
cat("\nPredictions at 15, 25 and 35 ms with 95% prediction intervals:\n")
print(predict(fit, data.frame(times = c(15, 25, 35)), interval = "prediction"))
dir.create("demo-output", showWarnings = FALSE)
png("demo-output/rvm-mcycle.png", width = 900, height = 560, res = 110)
plot(fit, main = "RVM on the motorcycle crash data")
invisible(dev.off())
cat("\nplot written to demo-output/rvm-mcycle.png\n")
