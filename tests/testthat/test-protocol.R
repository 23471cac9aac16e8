# rff_features() and contaminate(): the App. D.2 protocol helpers.

test_that("random Fourier features approximate the Gaussian kernel", {
  set.seed(3)
  x <- matrix(rnorm(40), 20, 2)
  Z <- rff_features(x, D = 20000, lengthscale = 1.5, seed = 1)
  expect_equal(dim(Z), c(20L, 20000L))
  K <- exp(-as.matrix(dist(x))^2 / (2 * 1.5^2))
  expect_lt(max(abs(tcrossprod(Z) - K)), 0.05)
  expect_true(all(abs(Z) <= sqrt(2 / 20000) + 1e-15))
})

test_that("rff_features() is reproducible and its map applies to new data", {
  x <- matrix(rnorm(30), 10, 3)
  set.seed(99)
  before <- runif(1)
  set.seed(99)
  Z1 <- rff_features(x, D = 16, lengthscale = 2, seed = 7)
  expect_equal(runif(1), before)                       # caller's stream untouched
  Z2 <- rff_features(x, D = 16, lengthscale = 2, seed = 7)
  expect_identical(Z1, Z2)
  expect_false(identical(Z1, rff_features(x, D = 16, lengthscale = 2, seed = 8)))
  expect_equal(colnames(Z1), paste0("rff", 1:16))
  Zrows <- rff_features(x[4:6, ], map = Z1)
  expect_equal(unclass(Zrows)[, ], unclass(Z1)[4:6, ], ignore_attr = TRUE)
  expect_equal(rff_features(x[4:6, ], map = attr(Z1, "rff_map")), Zrows)
  map <- attr(Z1, "rff_map")
  expect_equal(Z1[, ], sqrt(2 / 16) * cos(sweep(x %*% map$W / 2, 2, map$b, `+`)), ignore_attr = TRUE)
  expect_equal(dim(rff_features(rnorm(5), D = 3, seed = 1)), c(5L, 3L))   # vector: one input
})

test_that("rff_features() rejects bad input", {
  x <- matrix(rnorm(30), 10, 3)
  expect_error(rff_features(x), "`D` is missing")
  expect_error(rff_features(x, D = 0), "`D` must be >= 1")
  expect_error(rff_features(x, D = 2.5), "`D` must be a whole number")
  expect_error(rff_features(x, D = 4, lengthscale = 0), "`lengthscale` must be >")
  expect_error(rff_features(x, D = 4, seed = "a"), "`seed` must be a single finite number")
  expect_error(rff_features(cbind(x, NA), D = 4), "`x` contains NA")
  Z <- rff_features(x, D = 4, seed = 1)
  expect_error(rff_features(x[, 1:2], map = Z), "has 2 columns but the map was drawn for 3")
  expect_error(rff_features(x, D = 4, map = Z), "leave `D`")
  expect_error(rff_features(x, map = list(1)), "must be the result of rff_features")
})

test_that("contaminate() follows the App. D.2 protocol", {
  y <- MASS::Boston$medv
  yc <- contaminate(y, rate = 0.1, amplitude = 3, seed = 1)
  out <- attr(yc, "outliers")
  expect_length(out, floor(0.1 * length(y)))
  expect_false(is.unsorted(out))
  expect_equal(as.numeric(yc)[-out], y[-out])
  shift <- (as.numeric(yc) - y)[out] / sd(y) / 3         # s_i * delta_i, delta ~ N(1, 0.25^2)
  expect_true(all(abs(shift) > 0))
  expect_true(any(shift > 0) && any(shift < 0))          # Rademacher signs
  big <- contaminate(numeric(20000) + rnorm(20000), rate = 0.5, amplitude = 2, seed = 2, scale = 1)
  s <- (big - attr(big, "outliers"))                     # silence unused warnings
  d <- abs(as.numeric(big) - as.numeric(contaminate(big, rate = 0, seed = 2)))
  expect_equal(d[-attr(big, "outliers")], rep(0, 10000))
  z <- rnorm(20000)
  zc <- contaminate(z, rate = 0.5, amplitude = 2, seed = 4, scale = 1)
  m <- abs(zc - z)[attr(zc, "outliers")] / 2
  expect_equal(mean(m), 1, tolerance = 0.02)
  expect_equal(sd(m), 0.25, tolerance = 0.05)
  expect_equal(floor(0.33 * 100), length(attr(contaminate(rnorm(100), 0.33, seed = 1), "outliers")))
})

test_that("contaminate() is reproducible, keeps names and leaves rate 0 alone", {
  y <- c(a = 1, b = 2, c = 3, d = 4, e = 10)
  set.seed(5)
  before <- runif(1)
  set.seed(5)
  y1 <- contaminate(y, rate = 0.4, seed = 11)
  expect_equal(runif(1), before)
  expect_identical(y1, contaminate(y, rate = 0.4, seed = 11))
  expect_named(y1, names(y))
  expect_equal(as.numeric(contaminate(y, rate = 0, seed = 1)), as.numeric(y))
  expect_length(attr(contaminate(y, rate = 1, seed = 1), "outliers"), 5)
})

test_that("contaminate() rejects bad input", {
  expect_error(contaminate("a", 0.1), "`y` must be a numeric vector")
  expect_error(contaminate(c(1, NA, 3), 0.1), "`y` contains NA")
  expect_error(contaminate(numeric(0), 0.1), "`y` is empty")
  expect_error(contaminate(1:10 + 0, 1.5), "`rate` must be >= 0 and <= 1")
  expect_error(contaminate(1:10 + 0, 0.1, amplitude = 0), "`amplitude` must be >")
  expect_error(contaminate(rep(1, 5), 0.2), "`scale` must be")
  expect_error(contaminate(1:10 + 0, 0.1, seed = 1.5), "`seed` must be a whole number")
})
