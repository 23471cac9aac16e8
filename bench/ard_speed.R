# Joint model-and-data ARD: speed beside the shared-noise fit and lm.fit, and
# the fast solver with per-sample noise beside EM on an RVM.
# Run from the package root: Rscript bench/ard_speed.R
library(sparsebayes)

# Median elapsed time of `reps` evaluations, and the last value.
time_it <- function(expr, reps = 3L) {
  f <- substitute(expr)
  env <- parent.frame()
  value <- NULL
  times <- vapply(seq_len(reps), function(i) system.time(value <<- eval(f, env))[["elapsed"]], numeric(1))
  list(time = stats::median(times), value = value)
}

cat("## 1. Feature ARD, n = 2000, d = 256 (20 true features, 5% outliers)\n\n")
set.seed(1)
n <- 2000; d <- 256
X <- matrix(rnorm(n * d), n, d)
theta <- c(rnorm(20), rep(0, d - 20))
y <- drop(X %*% theta) + rnorm(n, sd = 0.5)
out <- sample(n, n / 20)
y[out] <- y[out] + sample(c(-1, 1), length(out), TRUE) * runif(length(out), 5, 15)
Xt <- matrix(rnorm(1000 * d), 1000, d)
ft <- drop(Xt %*% theta)
rmse <- function(fit) sqrt(mean((predict(fit, Xt) - ft)^2))

runs <- list(
  "ard em, per-sample noise" = quote(ard(X, y, noise = "sample", method = "em")),
  "ard mackay, per-sample noise" = quote(ard(X, y, noise = "sample", method = "mackay")),
  "ard em, shared noise" = quote(ard(X, y, noise = "shared", method = "em")),
  "ard mackay, shared noise" = quote(ard(X, y, noise = "shared", method = "mackay"))
)
rows <- lapply(names(runs), function(nm) {
  r <- time_it(suppressWarnings(eval(runs[[nm]])))
  f <- r$value
  data.frame(fit = nm, seconds = r$time, iterations = f$iterations, converged = f$converged,
             relevant = length(f$relevant), log_evidence = round(f$logLik, 1), test_rmse = round(rmse(f), 4),
             outliers_in_top = sum(order(f$lambda, decreasing = TRUE)[seq_along(out)] %in% out))
})
ols <- time_it(lm.fit(cbind(1, X), y), reps = 5L)
w <- ols$value$coefficients
rows[[length(rows) + 1L]] <- data.frame(fit = "lm.fit", seconds = ols$time, iterations = NA, converged = NA,
                                        relevant = d + 1, log_evidence = NA,
                                        test_rmse = round(sqrt(mean((cbind(1, Xt) %*% w - ft)^2)), 4),
                                        outliers_in_top = NA)
tab <- do.call(rbind, rows)
print(tab, row.names = FALSE)
em_time <- tab$seconds[1]
cat(sprintf("\nper-sample EM / shared EM: %.2f; per-sample EM / lm.fit: %.0f\n\n",
            em_time / tab$seconds[3], em_time / ols$time))

cat("## 2. RVM, n = 1000 (sinc, Gaussian kernel, 5% outliers): fast vs EM with per-sample noise\n\n")
set.seed(2)
n <- 1000
x <- runif(n, -10, 10)
yr <- sinc <- sin(x) / x
yr <- sinc + rnorm(n, sd = 0.1)
out2 <- sample(n, n / 20)
yr[out2] <- yr[out2] + sample(c(-1, 1), length(out2), TRUE) * runif(length(out2), 0.5, 1.5)
xt <- seq(-10, 10, length.out = 1000)
st <- sin(xt) / xt
rows <- list()
# EM works on the full 1001-column kernel basis (n x n form until columns are
# pruned, O(n^3) per iteration) and prunes slowly, so it gets a 120 s budget.
for (cfg in list(c("fast", "sample"), c("em", "sample"), c("fast", "shared"))) {
  ctl <- if (cfg[1] == "em") ard_control(time_limit = 120) else NULL
  r <- time_it(suppressWarnings(rvm(x, yr, kernel = kernel_gaussian(2), scale = FALSE, method = cfg[1],
                                    noise = cfg[2], control = ctl)), reps = 1L)
  f <- r$value
  rows[[length(rows) + 1L]] <- data.frame(
    fit = paste0("rvm ", cfg[1], ", ", cfg[2], " noise"), seconds = r$time, iterations = f$iterations,
    converged = f$converged, relevant = length(f$relevant), log_evidence = round(f$logLik, 1),
    test_rmse = round(sqrt(mean((predict(f, xt) - st)^2)), 4),
    outliers_in_top = sum(order(f$lambda, decreasing = TRUE)[seq_along(out2)] %in% out2))
}
tab2 <- do.call(rbind, rows)
print(tab2, row.names = FALSE)
cat(sprintf("\nEM / fast (per-sample noise): %.1f\n", tab2$seconds[2] / tab2$seconds[1]))
cat(sprintf("\n%s; %s\n", R.version.string, format(Sys.time(), "%Y-%m-%d %H:%M %Z")))
