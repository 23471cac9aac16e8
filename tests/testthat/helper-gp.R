# Dense reference implementations for the sparse GP tests: every n x n
# matrix formed explicitly, straight from the formulas.

gp_k <- function(a, b, width, variance) {
  d2 <- outer(rowSums(a^2), rowSums(b^2), "+") - 2 * a %*% t(b)
  variance * exp(-pmax(d2, 0) / width^2)
}

# -log marginal likelihood (FITC, exact) or -ELBO (VFE), as in the notes:
# n/2 log 2pi + 1/2 log det(Q + Lam) + 1/2 r'(Q + Lam)^-1 r + tr(K - Q)/(2 s2n).
dense_gp_objective <- function(x, r, z, width, variance, noise, approx, jitter = 1e-6) {
  n <- nrow(x)
  Kff <- gp_k(x, x, width, variance)
  if (approx == "exact") {
    S <- Kff + diag(noise, n)
    Q <- Kff
  } else {
    Kuu <- gp_k(z, z, width, variance) + diag(jitter * variance, nrow(z))
    Kuf <- gp_k(z, x, width, variance)
    Q <- t(Kuf) %*% solve(Kuu, Kuf)
    lam <- if (approx == "FITC") pmax(diag(Kff) - diag(Q), 0) + noise else rep(noise, n)
    S <- Q + diag(lam)
  }
  tr <- if (approx == "VFE") sum(diag(Kff - Q)) / (2 * noise) else 0
  0.5 * n * log(2 * pi) + 0.5 * as.numeric(determinant(S)$modulus) + 0.5 * sum(r * solve(S, r)) + tr
}

gp_toy <- function(n = 40, p = 1, seed = 3, noise_sd = 0.2) {
  set.seed(seed)
  x <- matrix(runif(n * p, -3, 3), n, p)
  f <- sin(2 * x[, 1]) + if (p > 1) 0.5 * cos(x[, 2]) else 0
  list(x = x, y = f + rnorm(n, sd = noise_sd), f = f)
}

# The objective through the package's C++ entry point.
cpp_gp_objective <- function(x, r, z, width, variance, noise, approx, jitter = 1e-6, gradient = TRUE,
                             weights = numeric(0)) {
  k <- unclass(sparsebayes::kernel_gaussian(width, variance))
  if (is.null(z)) z <- matrix(0, 0, ncol(x))
  sparsebayes:::.sb_gp_objective(k, noise, x, r, z, weights, sparsebayes:::gp_settings(approx, jitter, gradient))
}

# The objective of a fitted model with any stationary kernel, densely, from
# the package's own kernel matrices.
dense_gp_objective_kernel <- function(x, y, fit) {
  xs <- if (is.null(fit$scaling)) x else scale(x, fit$scaling$center, fit$scaling$scale)
  z <- fit$inducing_scaled
  K <- function(a, b) kernel_matrix(fit$kernel, a, b)
  n <- nrow(xs)
  Kuu <- K(z, z) + diag(fit$jitter * fit$kernel$variance, nrow(z))
  Q <- K(xs, z) %*% solve(Kuu, K(z, xs))
  lam <- if (fit$approx == "FITC") pmax(fit$kernel$variance - diag(Q), 0) + fit$noise_variance else rep(fit$noise_variance, n)
  S <- Q + diag(lam)
  r <- y - mean(y)
  tr <- if (fit$approx == "VFE") (n * fit$kernel$variance - sum(diag(Q))) / (2 * fit$noise_variance) else 0
  0.5 * n * log(2 * pi) + 0.5 * as.numeric(determinant(S)$modulus) + 0.5 * sum(r * solve(S, r)) + tr
}

# The same objective through the Woodbury identity and the matrix
# determinant lemma (O(n m^2)), for n too large for the dense version.
woodbury_gp_objective <- function(x, r, z, width, variance, noise, approx, jitter = 1e-6) {
  n <- nrow(x)
  Kuu <- gp_k(z, z, width, variance) + diag(jitter * variance, nrow(z))
  A <- backsolve(chol(Kuu), gp_k(z, x, width, variance), transpose = TRUE)
  q <- colSums(A^2)
  lam <- if (approx == "FITC") pmax(variance - q, 0) + noise else rep(noise, n)
  B <- diag(nrow(z)) + A %*% (t(A) / lam)
  c_ <- solve(B, A %*% (r / lam))
  tr <- if (approx == "VFE") (n * variance - sum(q)) / (2 * noise) else 0
  0.5 * n * log(2 * pi) + 0.5 * (as.numeric(determinant(B)$modulus) + sum(log(lam))) +
    0.5 * (sum(r^2 / lam) - sum((A %*% (r / lam)) * c_)) + tr
}
