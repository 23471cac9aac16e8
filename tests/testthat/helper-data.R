# Seeded data generators shared by the tests.

sinc_data <- function(n = 100, noise_sd = 0.1, seed = 1) {
  set.seed(seed)
  x <- runif(n, -10, 10)
  f <- sin(x) / x
  data.frame(x = x, y = f + rnorm(n, sd = noise_sd), f = f)
}

sinc <- function(x) ifelse(x == 0, 1, sin(x) / x)

# A small linear problem: 3 relevant of 6 features.
linear_data <- function(n = 60, seed = 2) {
  set.seed(seed)
  X <- matrix(rnorm(n * 6), n, 6, dimnames = list(NULL, paste0("v", 1:6)))
  y <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + rnorm(n, sd = 0.5)
  list(X = X, y = y)
}

# log N(y | 0, noise I + Phi_r diag(1/alpha_r) Phi_r^T) computed densely.
# (Columns with alpha 0, an unpenalised intercept holding the centring of
# gaussian fits in standard units, are not part of the evidence: pass y minus
# fit$standard_units["center"].)
dense_log_evidence <- function(Phi, y, alpha, noise) {
  r <- which(is.finite(alpha) & alpha > 0)
  C <- diag(noise, length(y)) + Phi[, r, drop = FALSE] %*% (t(Phi[, r, drop = FALSE]) / alpha[r])
  U <- chol(C)
  z <- backsolve(U, y, transpose = TRUE)
  -0.5 * (length(y) * log(2 * pi) + 2 * sum(log(diag(U))) + sum(z^2))
}

# Sparse linear data with injected response outliers (joint ARD tests).
outlier_data <- function(n = 150, d = 8, n_out = 8, seed = 3) {
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, d, dimnames = list(NULL, paste0("v", seq_len(d))))
  y <- drop(X[, 1:3] %*% c(2, -1, 0.5)) + 1 + rnorm(n, sd = 0.5)
  out <- sample(n, n_out)
  y[out] <- y[out] + sample(c(-1, 1), n_out, TRUE) * runif(n_out, 8, 15)
  list(X = X, y = y, out = out)
}

# log N(y | 0, C) by a dense Cholesky factorisation.
mvn_log_density <- function(y, C) {
  U <- chol(C)
  z <- backsolve(U, y, transpose = TRUE)
  -0.5 * (length(y) * log(2 * pi) + 2 * sum(log(diag(U))) + sum(z^2))
}

# sparse_data(), the generator of the joint-ARD paper's synthetic study
# (App. D.2), lives once in inst/reproduce/sparse_data.R, shipped with the
# package for the reproduction scripts there.
source(system.file("reproduce", "sparse_data.R", package = "sparsebayes", mustWork = TRUE), local = TRUE)
