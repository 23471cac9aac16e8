# The O(N) orthonormal path against the dense path of the same fast solver on
# a Symmlet 8 wavelet dictionary (BIC prior, Doppler SNR 7), in one process.
# Run from the repository root: Rscript bench/smooth_orthonormal.R
library(sparsebayes)
cat(sprintf("R %s, %s, %s\n", getRversion(), sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
            format(Sys.time(), "%Y-%m-%d")))
time_fit <- function(s, shortcut) {
  gc()
  t <- system.time(fit <- rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC",
                              control = rvm_control(orthonormal_shortcut = shortcut)))[["elapsed"]]
  list(time = t, S = length(fit$relevant), mse = mean((fitted(fit) - s$f)^2), fitted = fitted(fit))
}
cat("| N | O(N) path (s) | dense path (s) | dense / O(N) | S (O(N)) | S (dense) | max abs diff of fits |\n")
cat("|---|---|---|---|---|---|---|\n")
for (n in c(1024, 4096, 16384)) {
  s <- make_signal("doppler", n = n, snr = 7, seed = 1)
  fast <- time_fit(s, TRUE)
  dense <- time_fit(s, FALSE)
  cat(sprintf("| %d | %.3f | %.2f | %.0f | %d | %d | %.1e |\n", n, fast$time, dense$time, dense$time / max(fast$time, 1e-3),
              fast$S, dense$S, max(abs(fast$fitted - dense$fitted))))
}
