# Every view of every plot method draws, returns its object invisibly, takes
# user titles and labels, and leaves par() as it found it (so lines() added
# afterwards land in the plot); legends get a band above the data.

par_state <- function() graphics::par(c("mar", "mfrow", "cex.main", "mgp"))

expect_plot <- function(object, ...) {
  before <- par_state()
  expect_invisible(res <- plot(object, ...))
  expect_identical(res, object)
  expect_identical(par_state(), before)
}

test_that("legend_space() raises the upper limit by the room a legend needs, and only then", {
  grDevices::pdf(NULL, width = 7, height = 5)
  on.exit(grDevices::dev.off())
  lim <- sparsebayes:::legend_space(c(0, 10), c("predictive mean", "data"))
  expect_equal(lim[1L], 0)
  expect_gt(lim[2L], 10)
  expect_equal(attr(lim, "data_top"), 10)
  expect_identical(attr(lim, "ncol"), 2L)              # one row when it fits
  none <- sparsebayes:::legend_space(c(0, 10), NULL)
  expect_equal(as.numeric(none), c(0, 10))
  # the band holds the legend: its bottom lies above the data
  graphics::plot(c(1, 10), c(0, 10), ylim = lim)
  box <- graphics::legend("top", legend = c("predictive mean", "data"), horiz = TRUE, bty = "n", cex = 0.8,
                          plot = FALSE)$rect
  expect_gt(box$top - box$h, 10)
  # a log axis takes its room in log units
  loglim <- sparsebayes:::legend_space(c(1, 100), c("a", "b"), log = TRUE)
  expect_gt(loglim[2L], 100)
  # too wide for one row: several
  long <- strrep("a long legend entry ", 3)
  expect_lt(attr(sparsebayes:::legend_space(c(0, 1), rep(long, 4)), "ncol"), 4L)
})

test_that("every view of rvm() fits draws, with user titles and par() left alone", {
  skip_if_not_installed("MASS")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  d <- sinc_data(n = 60, seed = 5)
  fit <- rvm(d$x, d$y)
  expect_plot(fit)
  expect_plot(fit, legend = FALSE)
  expect_plot(fit, main = "sinc", xlab = "input", ylab = "output", ylim = c(-1, 2))
  expect_plot(fit, which = "shrinkage")
  expect_plot(fit, which = "components")
  expect_plot(fit, which = "relevance", main = c("weights", "samples"))
  expect_plot(fit, which = "leverage", highlight = 1:2)
  expect_plot(rvm(d$x, d$y, centres = 15))
  em <- rvm(d$x, d$y, method = "em", noise = "student")
  expect_plot(em, which = "trajectory", highlight = 1:3)
  expect_plot(rvm(d$x, d$y, method = "em"), which = "trajectory")
  expect_plot(rvm(cbind(d$x, d$f), d$y))                   # two inputs, gaussian: diagnostics
  expect_plot(rvm(d$x, as.integer(d$y > 0.2)))              # 1-D classifier
  set.seed(1)
  expect_plot(rvm(d$x, rpois(60, exp(1 + sin(d$x)))))       # counts
  tr <- transform(MASS::synth.tr[seq(1, 250, by = 3), ], yc = factor(yc))
  rip <- rvm(yc ~ xs + ys, data = tr, kernel = kernel_gaussian(0.5), scale = FALSE)
  expect_plot(rip)
  expect_plot(rip, main = "Ripley", legend = FALSE)
  expect_error(plot(fit, legend = NA), "`legend`")
})

test_that("multiclass, ard(), sparse_gp() and cross_validate() plots draw and leave par() alone", {
  skip_if_not_installed("MASS")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  ir <- rvm(Species ~ Petal.Length + Petal.Width, data = iris[seq(1, 150, by = 2), ])
  expect_plot(ir)
  expect_plot(ir, legend = FALSE, main = "iris")
  d <- outlier_data(n = 60, d = 4, n_out = 3)
  af <- ard(d$X, d$y, noise = "sample", method = "em")
  for (w in c("overview", "fit", "relevance", "trajectory", "leverage", "evidence"))
    expect_plot(af, which = w, highlight = d$out)
  expect_plot(af)
  expect_plot(af, main = c("fit", "selection"), xlab = c("y", "log BF"), top = 3)
  expect_plot(af, which = "leverage", legend = FALSE, main = "leverage")
  mc <- MASS::mcycle[seq(1, 133, by = 2), ]
  gp <- sparse_gp(accel ~ times, data = mc, inducing = 8, seed = 1)
  expect_plot(gp)
  expect_plot(gp, legend = FALSE, main = "GP", xlab = "time", ylim = c(-200, 100))
  g2 <- sparse_gp(cbind(d$X[, 1:2]), d$y, inducing = 5, seed = 1)
  expect_plot(g2, main = "two inputs")
  cv <- cross_validate(rvm(accel ~ times, data = mc), folds = 3, seed = 1,
                       grid = list(kernel = list(kernel_gaussian(0.5), kernel_gaussian(1), kernel_laplace(1),
                                                 kernel_cauchy(1))))
  expect_plot(cv)
  expect_plot(cv, legend = FALSE, main = "CV")
})

test_that("col, pch and cex style the data in every view instead of clashing with the view's own", {
  skip_if_not_installed("MASS")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  d <- sinc_data(n = 60, seed = 5)
  fit <- rvm(d$x, d$y, kernel = kernel_gaussian("evidence"))
  for (w in c("fit", "shrinkage", "components", "relevance", "leverage", "width"))
    expect_plot(fit, which = w, col = "red", pch = 3, cex = 1)
  expect_plot(rvm(d$x, d$y, method = "em", noise = "student"), which = "trajectory", col = "red")
  expect_plot(rvm(cbind(d$x, d$f), d$y), col = "red", pch = 3)
  expect_plot(rvm(d$x, as.integer(d$y > 0.2)), col = "red", pch = 3)
  expect_plot(rvm(Species ~ Petal.Length + Petal.Width, data = iris[seq(1, 150, by = 3), ]), col = 1:3, pch = 15:17)
  a <- outlier_data(n = 60, d = 4, n_out = 3)
  af <- ard(a$X, a$y, noise = "sample", method = "em")
  for (w in c("overview", "fit", "relevance", "trajectory", "leverage", "evidence"))
    expect_plot(af, which = w, col = "red", pch = 3)
  expect_plot(sparse_gp(accel ~ times, data = MASS::mcycle[seq(1, 133, by = 2), ], inducing = 8, seed = 1),
              col = "red", pch = 3, cex = 1)
})

test_that("a classifier with more than two inputs draws its probabilities by class and their calibration", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  set.seed(4)
  X <- matrix(rnorm(120 * 3), 120)
  y <- factor(ifelse(X[, 1] + X[, 2] + rnorm(120, sd = 0.5) > 0, "yes", "no"))
  fit <- rvm(X, y)
  ns <- asNamespace("sparsebayes")
  withr::local_options(sb.test.calibration = FALSE, sb.test.residuals = FALSE)
  suppressMessages(trace("plot_calibration", quote(options(sb.test.calibration = TRUE)), where = ns, print = FALSE))
  suppressMessages(trace("plot_diagnostics", quote(options(sb.test.residuals = TRUE)), where = ns, print = FALSE))
  on.exit(suppressMessages({untrace("plot_calibration", where = ns); untrace("plot_diagnostics", where = ns)}), add = TRUE)
  expect_plot(fit)
  expect_true(getOption("sb.test.calibration"))
  expect_false(getOption("sb.test.residuals"))  # not lm's residual plots
  expect_plot(fit, main = c("by class", "calibration"), xlab = c("a", "b"), ylab = c("c", "d"))
})

test_that("a multiclass classifier with other than two inputs draws its class probabilities and confusion table", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  fit <- rvm(Species ~ ., data = iris[seq(1, 150, by = 2), ])          # four inputs
  ns <- asNamespace("sparsebayes")
  withr::local_options(sb.test.probabilities = FALSE)
  suppressMessages(trace("plot_class_probabilities", quote(options(sb.test.probabilities = TRUE)), where = ns,
                         print = FALSE))
  on.exit(suppressMessages(untrace("plot_class_probabilities", where = ns)), add = TRUE)
  expect_plot(fit)
  expect_true(getOption("sb.test.probabilities"))
  expect_plot(fit, legend = FALSE, main = c("by class", "confusion"), col = 2:4, pch = 3)
  # the cells drawn are the training rows' confusion table
  drawn <- ns$plot_class_probabilities(fit)
  expect_equal(unclass(drawn), unclass(table(fit$y, predict(fit))), ignore_attr = TRUE)
  expect_identical(dimnames(drawn), list(observed = fit$levels, predicted = fit$levels))
  expect_identical(sum(drawn), 75L)
  x1 <- rvm(iris$Petal.Length, iris$Species)                            # one input
  expect_plot(x1)
  expect_identical(sum(ns$plot_class_probabilities(x1)), 150L)
})

test_that("the default plot of an ard() fit shows the fit beside the evidence for each weight (issue 61)", {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  d <- outlier_data(n = 60, d = 4, n_out = 3)
  af <- ard(d$X, d$y)
  ns <- asNamespace("sparsebayes")
  withr::local_options(sb.test.evidence = 0L, sb.test.residuals = 0L)
  suppressMessages(trace("plot_feature_evidence", quote(options(sb.test.evidence = getOption("sb.test.evidence") + 1L)),
                         where = ns, print = FALSE))
  suppressMessages(trace("plot_diagnostics", quote(options(sb.test.residuals = getOption("sb.test.residuals") + 1L)),
                         where = ns, print = FALSE))
  on.exit(suppressMessages({untrace("plot_feature_evidence", where = ns); untrace("plot_diagnostics", where = ns)}),
          add = TRUE)
  expect_plot(af)
  expect_identical(getOption("sb.test.evidence"), 1L)       # the selection, beside
  expect_identical(getOption("sb.test.residuals"), 0L)      # fitted against observed, not the two-panel "fit" view
  expect_identical(graphics::par("mfrow"), c(1L, 1L))
  expect_plot(af, which = "fit")                             # single views are still there
  expect_identical(getOption("sb.test.residuals"), 1L)
  expect_identical(getOption("sb.test.evidence"), 1L)
  # a fit that retains no penalised weight has no evidence to draw: the fit view
  set.seed(1)
  none <- ard(matrix(rnorm(100), 50), rnorm(50))
  if (!length(sparsebayes:::retained_candidates(none))) {
    expect_plot(none)
    expect_identical(getOption("sb.test.residuals"), 2L)
  }
  # a fit from chunks keeps no rows: its default is still the relevance view
  set.seed(2)
  df <- data.frame(x1 = rnorm(300), x2 = rnorm(300))
  df$y <- df$x1 + rnorm(300, sd = 0.3)
  fc <- ard(y ~ x1 + x2, data = data_chunks(df, chunk_size = 100))
  expect_plot(fc)
  expect_error(plot(fc, which = "overview"), "which a fit from data_chunks\\(\\) does not keep")
})
