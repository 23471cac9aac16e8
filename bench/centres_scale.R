# RVMs on large data through candidate centres: time, peak memory (VmHWM of
# a fresh R process per fit) and the latent RMSE on 10000 test points, for a
# 2-D function f(x) = sin(2 x1) cos(x2) on [-3, 3]^2 with noise sd 0.2.
# n = 5000 also fits the full n x n basis, the reference for the error.
# Run from the repository root: Rscript bench/centres_scale.R [n ...]
# (default 5000 1e5 1e6). Each fit runs in its own Rscript process.
args <- commandArgs(TRUE)
if (length(args) && args[1] == "--one") {
  n <- as.numeric(args[2])
  m <- as.numeric(args[3])
  library(sparsebayes)
  set.seed(1)
  f <- function(x) sin(2 * x[, 1]) * cos(x[, 2])
  x <- matrix(runif(2 * n, -3, 3), n)
  y <- f(x) + rnorm(n, sd = 0.2)
  xt <- matrix(runif(2e4, -3, 3), 1e4)
  gc()
  t <- system.time(fit <- rvm(x, y, centres = m))[["elapsed"]]
  tp <- system.time(p <- predict(fit, xt))[["elapsed"]]
  hwm <- as.numeric(gsub("[^0-9]", "", grep("^VmHWM", readLines("/proc/self/status"), value = TRUE))) / 2^20
  cat(sprintf("RESULT|%.0f|%s|%.1f|%.2f|%.2f|%d|%.4f|%s\n", n, if (m >= n) "full" else format(m), t, tp, hwm,
              length(fit$relevant), sqrt(mean((p - f(xt))^2)), fit$converged))
  quit(save = "no")
}
ns <- if (length(args)) as.numeric(args) else c(5000, 1e5, 1e6)
cat(sprintf("R %s, %s, %d cores, %s\n", getRversion(),
            sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            parallel::detectCores(), format(Sys.time(), "%Y-%m-%d")))
cat("\n| n | centres | fit (s) | predict 10^4 points (s) | peak RSS (GB) | relevant | latent RMSE | converged |\n")
cat("|---|---|---|---|---|---|---|---|\n")
script <- normalizePath(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
for (n in ns) for (m in if (n <= 5000) c(n, 1000) else 1000) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(script, "--one", format(n, scientific = FALSE), m),
                 stdout = TRUE, stderr = FALSE)
  line <- grep("^RESULT", out, value = TRUE)
  cat(if (length(line)) paste0("|", paste(strsplit(line, "|", fixed = TRUE)[[1]][-1], collapse = " | "), " |\n")
      else sprintf("| %.0f | %s | failed | | | | | |\n", n, m))
}
