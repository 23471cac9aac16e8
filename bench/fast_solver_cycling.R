# The fast solver's cycling and stalls (issue 59, item 2): rvm(X, y, centres =
# 1000) at n = 1e5 on y = sin(x1) cos(x2 / 2) + N(0, 0.1^2), X uniform on
# [-5, 5]^2, with the learned widths and with fixed widths (0.9, 0.9) and
# (0.9, 1.3), where the re-estimation ping-pong showed. CPU seconds
# (user + system), iterations, convergence, relevant count, log evidence.
#   Rscript bench/fast_solver_cycling.R [seed]
suppressPackageStartupMessages(library(sparsebayes))
args <- commandArgs(TRUE)
seed <- if (length(args)) as.integer(args[1L]) else 1L
set.seed(seed)
n <- 1e5
X <- matrix(runif(2 * n, -5, 5), n)
y <- sin(X[, 1]) * cos(X[, 2] / 2) + rnorm(n, 0, 0.1)
kernels <- list(learned = NULL, `0.9, 0.9` = kernel_gaussian(c(0.9, 0.9)), `0.9, 1.3` = kernel_gaussian(c(0.9, 1.3)))
cat("| widths | CPU s | iterations | converged | relevant | logLik |\n|---|---:|---:|---|---:|---:|\n")
for (nm in names(kernels)) {
  t <- system.time(fit <- suppressWarnings(suppressMessages(
    if (is.null(kernels[[nm]])) rvm(X, y, centres = 1000) else rvm(X, y, centres = 1000, kernel = kernels[[nm]]))))
  cat(sprintf("| %s | %.1f | %d | %s | %d | %.2f |\n", nm, t[["user.self"]] + t[["sys.self"]], fit$iterations,
              fit$converged, length(fit$relevant), fit$logLik))
}
