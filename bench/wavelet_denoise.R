# Wavelet denoising: the smooth RVM against empirical Bayes thresholding
# (EbayesThresh, Johnstone & Silverman 2005), decimated and translation
# invariant, on the Donoho-Johnstone signals: 4 signals x 2 SNRs x 2 lengths,
# 10 noise draws each, Symmlet 8 everywhere (wavethresh's DaubLeAsymm 8 for
# EbayesThresh, with its defaults: Laplace prior, posterior median, noise
# from the finest level).
# Run from the repository root: Rscript bench/wavelet_denoise.R
suppressMessages({
  library(sparsebayes)
  library(EbayesThresh)
  library(wavethresh)
})
cat(sprintf("R %s, EbayesThresh %s, %s, %s\n", getRversion(), packageVersion("EbayesThresh"),
            sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]), format(Sys.time(), "%Y-%m-%d")))
draws <- as.integer(Sys.getenv("DRAWS", "10"))
methods <- list(
  eb = function(s) wr(ebayesthresh.wavelet(wd(s$y, filter.number = 8, family = "DaubLeAsymm"))),
  eb_ti = function(s) AvBasis(convert(ebayesthresh.wavelet(wd(s$y, filter.number = 8, family = "DaubLeAsymm",
                                                                 type = "station")))),
  srvm_bic = function(s) fitted(rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8"), prior = "BIC")),
  srvm = function(s) rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8")),
  srvm_ti = function(s) rvm(s$x, s$y, kernel = kernel_wavelet("symmlet8", translation_invariant = TRUE))
)
rows <- list()
for (signal in c("doppler", "bumps", "blocks", "heavisine")) for (n in c(1024, 4096)) for (snr in c(3, 7)) {
  for (d in seq_len(draws)) {
    s <- make_signal(signal, n = n, snr = snr, seed = 1000 * d + n + snr)
    for (m in names(methods)) {
      time <- system.time(out <- methods[[m]](s))[["elapsed"]]
      fit <- if (inherits(out, "sb_rvm")) fitted(out) else out
      cover <- NA
      if (inherits(out, "sb_rvm")) {
        band <- predict(out, interval = "confidence")
        cover <- mean(band[, "lwr"] <= s$f & s$f <= band[, "upr"])
      }
      rows[[length(rows) + 1L]] <- data.frame(signal, n, snr, draw = d, method = m, mse = mean((fit - s$f)^2),
                                              time, cover, kept = if (inherits(out, "sb_rvm")) length(out$relevant) else NA)
    }
  }
}
r <- do.call(rbind, rows)
cells <- aggregate(cbind(mse, time, cover, kept) ~ signal + n + snr + method, r, mean, na.action = na.pass)
wide <- reshape(cells[c("signal", "n", "snr", "method", "mse")], idvar = c("signal", "n", "snr"), timevar = "method",
                direction = "wide")
names(wide) <- sub("mse.", "", names(wide))
wide <- wide[order(wide$signal, wide$n, wide$snr), ]
ms <- names(methods)
cat("\nMean squared error per cell (", draws, " draws):\n\n| signal | N | SNR | ", paste(ms, collapse = " | "), " |\n|",
    strrep("---|", 3 + length(ms)), "\n", sep = "")
for (i in seq_len(nrow(wide)))
  cat(sprintf("| %s | %d | %g | %s |\n", wide$signal[i], wide$n[i], wide$snr[i],
              paste(sprintf("%.3g", unlist(wide[i, ms])), collapse = " | ")))
rel <- as.matrix(wide[ms]) / apply(as.matrix(wide[ms]), 1, min)
pair <- function(a, b) sprintf("%s beats %s in %d of %d cells", a, b, sum(wide[[a]] < wide[[b]]), nrow(wide))
cat("\nMean MSE relative to the best method per cell:\n\n| ", paste(ms, collapse = " | "), " |\n|",
    strrep("---|", length(ms)), "\n| ", paste(sprintf("%.3f", colMeans(rel)), collapse = " | "), " |\n\n", sep = "")
cat(pair("srvm", "eb"), "; ", pair("srvm_ti", "eb_ti"), "; ", pair("srvm", "srvm_bic"), "\n", sep = "")
tm <- aggregate(time ~ method + n, r, mean)
cat("\nSeconds per fit:\n\n| method | N = 1024 | N = 4096 |\n|---|---|---|\n")
for (m in ms) cat(sprintf("| %s | %.4f | %.4f |\n", m, tm$time[tm$method == m & tm$n == 1024], tm$time[tm$method == m & tm$n == 4096]))
cv <- aggregate(cbind(cover, kept) ~ method + signal, r[r$method %in% c("srvm", "srvm_ti"), ], mean)
cat("\nPointwise coverage of the 95% confidence band for the true signal, and columns kept (mean over cells):\n\n",
    "| signal | srvm | srvm_ti | kept (srvm) |\n|---|---|---|---|\n", sep = "")
for (sg in unique(cv$signal))
  cat(sprintf("| %s | %.3f | %.3f | %.0f |\n", sg, cv$cover[cv$signal == sg & cv$method == "srvm"],
              cv$cover[cv$signal == sg & cv$method == "srvm_ti"], cv$kept[cv$signal == sg & cv$method == "srvm"]))
