# The behaviour snapshot: 18 fits that cover the method x likelihood x noise
# x prior matrix and the learned defaults (widths, noise starts, the width
# search, the wavelet path, the robust start). Refactors of the engine must
# reproduce their log evidence, relevant sets and fitted values to 1e-8
# (tests/testthat/fixtures/engine-snapshot.rds, written by
# tools/engine-snapshot.R at the commit before a refactor).
snapshot_fits <- function() {
  set.seed(1)
  x <- runif(120, -10, 10)
  y <- sin(x) / x + rnorm(120, sd = 0.1)
  set.seed(2)
  X <- matrix(runif(450, -3, 3), 150, dimnames = list(NULL, paste0("x", 1:3)))
  yx <- sin(2 * X[, 1]) + 0.3 * X[, 2]^2 + rnorm(150, sd = 0.1)
  set.seed(3)
  L <- matrix(rnorm(100 * 8), 100, dimnames = list(NULL, paste0("v", 1:8)))
  yl <- drop(L[, 1:3] %*% c(2, -1, 0.5)) + 1 + rnorm(100, sd = 0.5)
  yo <- yl
  yo[c(5, 17, 60)] <- yo[c(5, 17, 60)] + c(12, -10, 9)
  cls <- factor(L[, 1] + L[, 2] + rnorm(100, sd = 0.5) > 0)
  counts <- stats::rpois(100, exp(0.5 + 0.4 * L[, 1]))
  set.seed(4)
  grid <- seq(0, 1, length.out = 256)
  yw <- (grid > 0.37) + sin(6 * grid) + rnorm(256, sd = 0.2)
  gauss <- kernel_gaussian(2)
  list(
    rvm_default = function() rvm(X, yx),
    rvm_fast_fixed = function() rvm(x, y, kernel = gauss, scale = FALSE),
    rvm_mackay = function() rvm(x, y, kernel = gauss, scale = FALSE, method = "mackay"),
    rvm_em = function() rvm(x, y, kernel = gauss, scale = FALSE, method = "em"),
    rvm_evidence_width = function() rvm(x, y, kernel = kernel_gaussian("evidence")),
    rvm_bic = function() rvm(x, y, kernel = list(kernel_gaussian(1), kernel_gaussian(4)), prior = "BIC"),
    rvm_sample = function() rvm(x, y, kernel = gauss, scale = FALSE, noise = "sample"),
    rvm_student = function() rvm(x, y, kernel = gauss, scale = FALSE, noise = "student"),
    rvm_binomial = function() rvm(L[, 1:3], cls, kernel = kernel_gaussian("median")),  # the engine, not the default width
    rvm_poisson = function() rvm(L[, 1:2], counts, family = poisson()),
    rvm_wavelet = function() rvm(grid, yw, kernel = kernel_wavelet("haar")),
    rvm_centres_weights = function() rvm(X, yx, centres = 40, weights = rep(1:3, 50)),
    ard_default = function() ard(L, yl),
    ard_irls1 = function() ard(L, yl, method = "irls1"),
    ard_gradient = function() ard(L, yl, method = "gradient"),
    ard_student = function() ard(L, yo, noise = "student"),
    rvm_em_binomial = function() rvm(L[, 1:3], cls, method = "em", kernel = kernel_gaussian("median")),
    sparse_gp_fitc = function() sparse_gp(X, yx, inducing = 20, approx = "FITC", restarts = 1, seed = 1)
  )
}

# What the snapshot keeps of a fit.
snapshot_of <- function(fit) {
  if (inherits(fit, "sb_sparse_gp"))
    return(list(logLik = as.numeric(logLik(fit)), relevant = integer(0), fitted = unname(fitted(fit))))
  list(logLik = as.numeric(fit$logLik), relevant = as.integer(fit$relevant), fitted = unname(as.numeric(fitted(fit))))
}

take_snapshot <- function() {
  lapply(snapshot_fits(), function(f) snapshot_of(suppressWarnings(f())))
}
