# The figure at the top of README.md and of the site's home page
# (man/figures/README-fits.png), from two real fits on data sets that ship
# with R: an RVM of the motorcycle crash data and a robust ARD regression of
# the Boston housing data. Run from the source tree with the package
# installed: Rscript tools/readme-figure.R
library(sparsebayes)
out <- file.path("man", "figures", "README-fits.png")
stopifnot(dir.exists(dirname(out)))
png(out, width = 1400, height = 600, res = 120)
op <- par(mfrow = c(1, 2))
plot(rvm(accel ~ times, data = MASS::mcycle),
     main = "rvm(accel ~ times, MASS::mcycle)")
plot(ard(medv ~ ., data = MASS::Boston, noise = "student"), which = "evidence",
     main = "ard(medv ~ ., MASS::Boston, noise = \"student\")")
par(op)
invisible(dev.off())
cat("wrote", out, "\n")
