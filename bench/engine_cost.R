# The cost of a default rvm() on BostonHousing and Servo (issue "Engine III":
# at least 30% less CPU than before it). Run under farm-bench with the
# library of each commit, e.g.
#   farm-bench -n 5 --timeout 300 --vs "env R_LIBS=/tmp/lib-before Rscript bench/engine_cost.R" -- Rscript bench/engine_cost.R
suppressPackageStartupMessages(library(sparsebayes))
data(BostonHousing, package = "mlbench")
data(Servo, package = "mlbench")
for (i in 1:3) {
  rvm(medv ~ ., BostonHousing)
  rvm(Class ~ ., Servo)
}
