# Fits from chunks at scale (issue 46): ard() with d = 200 and rvm() with
# 1000 centres on n rows from a generator (a function of the chunk's
# number, so that each worker makes its own chunks), on a multisession plan
# of 2 workers. Reports wall time, the peak RSS of the main process and of
# each worker, and the latent error against the same model at n = 1e5.
#   Rscript bench/chunks_scale.R ard 1e7
#   Rscript bench/chunks_scale.R rvm 1e7
#   Rscript bench/chunks_scale.R rvm 1e7 0         # the sequential plan (the core's threads: kernel_threads())
#   Rscript bench/chunks_scale.R sparse_gp 1e6     # VFE, 500 inducing points, learned on a sample of 20000
#   Rscript bench/chunks_scale.R student 1e6       # ard(noise = "student"), d = 20, t(3) noise and 2% outliers
#   Rscript bench/chunks_scale.R poisson 1e6       # rvm(family = poisson()), 200 centres, one pass per IRLS step
suppressPackageStartupMessages(library(sparsebayes))
args <- commandArgs(TRUE)
what <- if (length(args)) args[1L] else "ard"
n <- if (length(args) > 1L) as.numeric(args[2L]) else 1e6
workers <- if (length(args) > 2L) as.integer(args[3L]) else 2L
chunk <- 1e5
if (workers > 0L) future::plan(future::multisession, workers = workers)  # 0: the default sequential plan

peak_rss <- function() {  # VmHWM of this process, MB
  line <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}

if (what %in% c("ard", "student")) {
  student <- what == "student"
  d <- if (student) 20L else 200L
  beta <- c(3, -2, 1.5, 1, -1, 0.5, rep(0, d - 6L))
  make <- local(function(i, rows = chunk) {  # local: its environment (chunk, d, beta) goes to the workers
    set.seed(i)
    X <- matrix(rnorm(rows * d), rows, dimnames = list(NULL, paste0("x", seq_len(d))))
    e <- if (student) stats::rt(rows, df = 3) + 20 * (runif(rows) < 0.02) else rnorm(rows)
    data.frame(y = drop(X %*% beta) + e, X)
  }, list2env(list(chunk = chunk, d = d, beta = beta, student = student)))
  fit_n <- function(n) ard(y ~ ., data = data_chunks(make, chunks = ceiling(n / chunk)),
                           noise = if (student) "student" else "shared")
  latent <- function(fit) {  # the latent error: of the coefficients
    b <- setNames(numeric(d), paste0("x", seq_len(d)))
    k <- intersect(names(coef(fit)), names(b))
    b[k] <- coef(fit)[k]
    sqrt(sum((b - beta)^2))
  }
} else {
  f <- function(x1, x2) sin(2 * x1) + 0.3 * x2^2
  counts <- what == "poisson"  # counts with log mean 1 + f / 2 (means 1 to 11)
  make <- local(function(i, rows = chunk) {
    set.seed(i)
    x1 <- runif(rows, -3, 3)
    x2 <- runif(rows, -3, 3)
    y <- if (counts) stats::rpois(rows, exp(1 + f(x1, x2) / 2)) else f(x1, x2) + rnorm(rows, sd = 0.3)
    data.frame(y = y, x1 = x1, x2 = x2)
  }, list2env(list(chunk = chunk, f = f, counts = counts)))
  fit_n <- switch(what,
    rvm = function(n) suppressMessages(rvm(y ~ x1 + x2, data = data_chunks(make, chunks = ceiling(n / chunk)), centres = 1000)),
    poisson = function(n) suppressMessages(rvm(y ~ x1 + x2, data = data_chunks(make, chunks = ceiling(n / chunk)),
                                               family = poisson(), centres = 200)),
    function(n) sparse_gp(y ~ x1 + x2, data = data_chunks(make, chunks = ceiling(n / chunk)), inducing = 500, seed = 1))
  test <- make(1e6, 1e4)
  latent <- if (counts) function(fit) sqrt(mean((predict(fit, test, type = "link") - 1 - f(test$x1, test$x2) / 2)^2))
            else function(fit) sqrt(mean((predict(fit, test) - f(test$x1, test$x2))^2))
}

small <- system.time(fit_small <- fit_n(1e5))[["elapsed"]]
time <- system.time(fit <- fit_n(n))[["elapsed"]]
workers_rss <- as.numeric(unlist(future.apply::future_lapply(seq_len(workers), function(i) {
  line <- grep("^VmHWM", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", line)) / 1024
}, future.chunk.size = 1L)))
cat(sprintf("%s: n = %.0e, %d chunks of %.0e rows, %d workers\n", what, n, ceiling(n / chunk), chunk, workers))
cat(sprintf("  wall %.1f s (n = 1e5: %.1f s); peak RSS main %.0f MB, workers %s MB\n", time, small, peak_rss(),
            paste(round(workers_rss), collapse = ", ")))
cat(sprintf("  latent error %.5f at n = %.0e, %.5f at n = 1e5; %d relevant (inducing); passes %d\n", latent(fit), n,
            latent(fit_small), if (is.null(fit$relevant)) fit$m else length(fit$relevant), fit$chunks$passes))
