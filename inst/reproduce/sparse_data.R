# The generator of the joint-ARD paper's synthetic study (App. D.2): sparse
# N(0, 1) weights, N(0, I) features, noise sd 0.2; contamination by
# contaminate() (shifts of about 3 sd(y) on 10% of the points). The one copy:
# student_noise.R sources it, and so do the package's tests
# (tests/testthat/helper-data.R), through
#   source(system.file("reproduce", "sparse_data.R", package = "sparsebayes"))
sparse_data <- function(seed, n = 500, d = 50, support = 10, sigma = 0.2, rate = 0) {
  set.seed(seed)
  theta <- numeric(d)
  theta[sample.int(d, support)] <- rnorm(support)
  X <- matrix(rnorm(n * d), n, d)
  y <- drop(X %*% theta) + rnorm(n, sd = sigma)
  yc <- sparsebayes::contaminate(y, rate = rate, amplitude = 3, seed = seed)
  list(X = X, y = as.numeric(yc), outliers = attr(yc, "outliers"))
}
