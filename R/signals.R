#' Noisy test signals (Donoho-Johnstone and sinc)
#'
#' The signals of Donoho and Johnstone (1994) and Tipping's sinc, sampled
#' on an equally spaced grid, with Gaussian noise at a given signal-to-noise
#' ratio SNR = sd(f) / sigma.
#'
#' * `"sinc"`: sin(x)/x on n points from -10 to 10.
#' * `"doppler"`, `"bumps"`, `"blocks"`, `"heavisine"`: Donoho and
#'   Johnstone's definitions at x = (i - 1)/n, i = 1..n, in [0, 1).
#' * `"blockssinc"`: Schmolck and Everson's (2007, Fig. 7) concatenation:
#'   Blocks on the first half of [0, 1), and sinc over [-10, 10) on the
#'   second half, scaled to Blocks' standard deviation.
#'
#' The random numbers come from the `seed` given; the caller's random number
#' state is left as it was.
#'
#' @param name Signal name.
#' @param n Number of points (a power of two for wavelet dictionaries beside
#'   other kernels; any number for a single wavelet dictionary).
#' @param snr Signal-to-noise ratio sd(f)/sigma; `Inf` gives no noise.
#' @param seed Seed for the noise; `NULL` uses the current random stream.
#' @return A data frame with columns `x`, `y` (noisy) and `f` (true
#'   signal), and attribute `"sigma"` (the noise sd).
#' @references Donoho, D. L. and Johnstone, I. M. (1994). Ideal spatial
#'   adaptation by wavelet shrinkage. *Biometrika*, 81, 425--455.
#'   \doi{10.1093/biomet/81.3.425}
#' @examples
#' s <- make_signal("doppler", n = 1024, snr = 7, seed = 1)
#' plot(s$x, s$y, pch = ".")
#' lines(s$x, s$f, col = 2)
#' @export
make_signal <- function(name = c("sinc", "doppler", "bumps", "blocks", "heavisine", "blockssinc"),
                        n = 128, snr = 7, seed = NULL) {
  name <- match_arg(name)
  check_number(n, "n", lower = 8, integer = TRUE)
  if (!(is.numeric(snr) && length(snr) == 1L && !is.na(snr) && snr > 0)) stop_arg("snr", "must be a positive number.")
  unit <- (seq_len(n) - 1) / n
  f <- switch(name,
    sinc = signal_sinc(seq(-10, 10, length.out = n)),
    doppler = sqrt(unit * (1 - unit)) * sin(2 * pi * 1.05 / (unit + 0.05)),
    bumps = signal_bumps(unit),
    blocks = signal_blocks(unit),
    heavisine = 4 * sin(4 * pi * unit) - sign(unit - 0.3) - sign(0.72 - unit),
    blockssinc = {
      half <- n %/% 2
      b <- signal_blocks((seq_len(half) - 1) / half)
      s <- signal_sinc(-10 + 20 * (seq_len(n - half) - 1) / (n - half))
      c(b, s / stats::sd(s) * stats::sd(b))
    })
  x <- if (name == "sinc") seq(-10, 10, length.out = n) else unit
  sigma <- if (is.finite(snr)) stats::sd(f) / snr else 0
  noise <- with_seed(seed, stats::rnorm(n))
  structure(data.frame(x = x, y = f + sigma * noise, f = f), sigma = sigma)
}

signal_sinc <- function(x) ifelse(x == 0, 1, sin(x) / x)

dj_positions <- c(0.1, 0.13, 0.15, 0.23, 0.25, 0.4, 0.44, 0.65, 0.76, 0.78, 0.81)

signal_blocks <- function(x) {
  h <- c(4, -5, 3, -4, 5, -4.2, 2.1, 4.3, -3.1, 2.1, -4.2)
  rowSums(vapply(seq_along(h), function(j) h[j] * (1 + sign(x - dj_positions[j])) / 2, numeric(length(x))))
}

signal_bumps <- function(x) {
  h <- c(4, 5, 3, 4, 5, 4.2, 2.1, 4.3, 3.1, 5.1, 4.2)
  w <- c(0.005, 0.005, 0.006, 0.01, 0.01, 0.03, 0.01, 0.01, 0.005, 0.008, 0.005)
  rowSums(vapply(seq_along(h), function(j) h[j] * (1 + abs((x - dj_positions[j]) / w[j]))^-4, numeric(length(x))))
}

# Evaluates expr with the random stream seeded by seed, then restores the
# caller's stream.
with_seed <- function(seed, expr) {
  if (is.null(seed)) return(expr)
  check_number(seed, "seed", integer = TRUE)
  had_seed <- exists(".Random.seed", envir = globalenv(), inherits = FALSE)
  if (had_seed) old <- get(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (had_seed) assign(".Random.seed", old, envir = globalenv())
          else rm(".Random.seed", envir = globalenv()))
  set.seed(seed)
  expr
}
