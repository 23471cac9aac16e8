# The reproducers of the "trustworthy answers" issue, each with its result
# on the current code. Usage: Rscript bench/issue14_reproducers.R
suppressPackageStartupMessages(library(sparsebayes))
say <- function(...) cat(sprintf(...), "\n", sep = "")

# 1. Shifted response (sinc, 10 seeds, shifts 1e3 and 1e6) for every rvm solver.
moves <- sapply(c("fast", "mackay", "em"), function(m) max(sapply(1:10, function(s) {
  set.seed(s); x <- runif(100, -10, 10); y <- sin(x) / x + rnorm(100, sd = 0.1)
  f0 <- fitted(suppressWarnings(rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE, method = m)))
  max(sapply(c(1e3, 1e6), function(c) max(abs(fitted(suppressWarnings(
    rvm(x, y + c, kernel = kernel_gaussian(3), scale = FALSE, method = m))) - c - f0))))
})))
say("rvm(x, y + c): max movement of fitted values over 10 seeds, c in {1e3, 1e6}: %s",
    paste(sprintf("%s %.1e", names(moves), moves), collapse = ", "))
set.seed(1); x <- runif(100, -10, 10); y <- sin(x) / x + rnorm(100, sd = 0.1)
say("sinc + 1000: %d relevance vectors (sinc: %d)",
    length(rvm(x, y + 1000, kernel = kernel_gaussian(3), scale = FALSE)$relevance_index),
    length(rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)$relevance_index))

# 2. Shared noise floor of em/mackay: n = 2000, d = 256, 51 true features, noise sd 0.2.
set.seed(7); n <- 2000; d <- 256; X <- matrix(rnorm(n * d), n, d)
y <- drop(X[, 1:51] %*% rnorm(51)) + rnorm(n, sd = 0.2)
for (m in c("em", "mackay", "fast")) say("ard(%s) noise sd %.4f (true 0.2)", m, sqrt(suppressWarnings(ard(X, y, method = m))$lambda))

# 3. Poisson at counts near e^10 against glm.
set.seed(1); x <- runif(200); y <- rpois(200, exp(10 + 0.5 * x)); g <- glm(y ~ x, family = poisson)
for (m in c("fast", "mackay")) {
  f <- rvm(basis = cbind(1, x), y = y, family = poisson(), method = m)
  say("poisson %s: weights %s (glm %s), max relative error of fitted %.1e", m,
      paste(signif(f$weights, 6), collapse = " "), paste(signif(coef(g), 6), collapse = " "),
      max(abs(fitted(f) / fitted(g) - 1)))
}

# 4. cbind names, na.exclude, update, ordered factors, edited controls, constant columns.
set.seed(1); x <- runif(50); y <- x + x^2 + rnorm(50, sd = 0.1)
say("predict(rvm(cbind(x, x^2), y), ...) gives %d values", length(predict(rvm(cbind(x, x^2), y), cbind(x, x^2)[1:3, ])))
dm <- MASS::mcycle; dm$accel[c(3, 10)] <- NA
h <- rvm(accel ~ times, data = dm, na.action = na.exclude)
say("na.exclude: fitted %d, residuals %d, hatvalues %d, loo %d, predict %d (data rows %d)", length(fitted(h)),
    length(residuals(h)), length(hatvalues(h)), length(residuals(h, type = "loo")), length(predict(h)), nrow(dm))
say("update(): %s", deparse(update(rvm(accel ~ times, data = MASS::mcycle), kernel = "laplace")$call))
ctrl <- rvm_control(); ctrl$noise_update_frequency <- 0L
say("edited control: %s", tryCatch(rvm(x, y, control = ctrl), error = conditionMessage))
X <- matrix(rnorm(300), 100, 3); yy <- drop(X %*% c(1, -1, 0)) + rnorm(100, sd = 0.1)
say("ard(X * 1e-200): relevant %s (ard(X): %s)", paste(ard(X * 1e-200, yy)$relevant, collapse = " "),
    paste(ard(X, yy)$relevant, collapse = " "))

# 5. Classification convergence (the Vehicle reproducer).
data(Vehicle, package = "mlbench"); Xv <- as.matrix(Vehicle[, 1:18]); set.seed(9)
fo <- sample(rep(1:5, length.out = 846))
t <- system.time(v <- rvm(Xv[fo != 1, ], factor(Vehicle$Class[fo != 1] == "van")))[["elapsed"]]
say("Vehicle van vs rest: %d iterations, converged %s, log evidence %.1f, %.2f s", v$iterations, v$converged, v$logLik, t)

# 6. ard() with d = 1e5, n = 3.
set.seed(1); f <- ard(matrix(rnorm(3e5), 3, 1e5), rnorm(3), method = "fast")
say("ard(d = 1e5, n = 3, fast): %d relevant, Sigma %d x %d", length(f$relevant), nrow(f$Sigma), ncol(f$Sigma))
