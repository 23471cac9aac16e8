# Student-t noise with an outlier class on clean data and tied responses
# (issue "Robust noise that never fails silently", items 1-2): the outlier
# share and 95% prediction-interval coverage of ard(noise = "student") on
# clean Gaussian data, n = 40-120, weak and strong signals; and tied
# responses (many zeros). Usage: Rscript bench/robust_clean.R [seeds] [noise]
library(sparsebayes)
args <- commandArgs(TRUE)
seeds <- if (length(args) >= 1) as.integer(args[1]) else 12L
noise <- if (length(args) >= 2) args[2] else "student"
cell <- function(n, signal, seed) {
  set.seed(seed)
  d <- 5
  X <- matrix(runif(n * d), n, d); beta <- signal * c(1, 0, 1, -1, 0)
  y <- drop(X %*% beta) + 1 + rnorm(n)
  Xt <- matrix(runif(2000 * d), 2000, d); yt <- drop(Xt %*% beta) + 1 + rnorm(2000)
  f <- suppressWarnings(ard(X, y, noise = noise))
  p <- predict(f, Xt, interval = "prediction")
  share <- if (noise == "student") f$student[["outlier_share"]] else NA
  flagged <- if (!is.null(f$outlier_probability)) mean(f$outlier_probability > 0.5) else NA
  c(share = unname(share), flagged = flagged, cover = mean(yt >= p[, "lwr"] & yt <= p[, "upr"]),
    scale = sqrt(unname(f$student[["scale"]] %||% NA)))
}
`%||%` <- function(a, b) if (is.null(a)) b else a
grid <- expand.grid(n = c(40, 60, 80, 120), signal = c(1, 5))
rows <- lapply(seq_len(nrow(grid)), function(k) {
  r <- t(sapply(seq_len(seeds), function(s) cell(grid$n[k], grid$signal[k], s)))
  data.frame(n = grid$n[k], signal = grid$signal[k], median_share = median(r[, "share"]),
             max_share = max(r[, "share"]), median_flagged = median(r[, "flagged"]),
             coverage = mean(r[, "cover"]), min_coverage = min(r[, "cover"]), median_t_sd = median(r[, "scale"]))
})
print(do.call(rbind, rows), digits = 3, row.names = FALSE)

# Tied responses: 160 zeros of 200 (and 60 of 200)
tied <- function(zeros, seed) {
  set.seed(seed); X <- matrix(rnorm(1000), 200); y <- c(rep(0, zeros), rnorm(200 - zeros))
  f <- suppressWarnings(ard(X, y, noise = noise))
  p <- predict(f, X[1:2, ], interval = "prediction")
  o <- outliers(f, 200)
  c(zeros = zeros, seed = seed, t_sd = sqrt(unname(f$student[["scale"]] %||% NA)),
    width_over_sd = unname(min(p[, "upr"] - p[, "lwr"]) / sd(y)),
    flagged = mean(o$type != "regular"), finite = all(is.finite(o$std_residual)))
}
print(t(sapply(list(c(160, 3), c(60, 3), c(160, 1), c(100, 2)), function(a) tied(a[1], a[2]))), digits = 3)
