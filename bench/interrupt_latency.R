# SIGINT latency: a child R process fits, the parent sends SIGINT `after`
# seconds into the fit and times the child's report that it caught the
# interrupt (polled every 10 ms).
#   Rscript bench/interrupt_latency.R                      every rvm() solver at n = 3000
#   Rscript bench/interrupt_latency.R gp [after ...]       sparse_gp() at n = 2e5 (its default)
#   Rscript bench/interrupt_latency.R robust [after ...]   ard(noise = "student") at n = 5000,
#     d = 200 with 5% outliers (the LTS start's concentration steps ran
#     seconds without a check); first the time of the whole fit, no signal
args <- commandArgs(trailingOnly = TRUE)

# The child's fit time when `after` is NA, else the latency (NA: the fit
# ended before the signal).
latency <- function(setup, fit, after) {
  dir <- tempfile("latency")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  status <- file.path(dir, "status")
  script <- file.path(dir, "child.R")
  writeLines(c(
    "suppressPackageStartupMessages(library(sparsebayes))", setup,
    sprintf("status <- %s", deparse(status)),
    "cat('PID', Sys.getpid(), '\\n', file = status)",
    "t0 <- Sys.time()",
    sprintf("r <- tryCatch({ %s; 'FINISHED' }, interrupt = function(e) 'INTERRUPTED')", fit),
    "cat(r, format(as.numeric(Sys.time() - t0, units = 'secs')), '\\n', file = status, append = TRUE)"), script)
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), wait = FALSE,
          stdout = FALSE, stderr = FALSE)
  lines <- function() if (file.exists(status)) readLines(status, warn = FALSE) else character(0)
  while (!any(grepl("^PID", lines()))) Sys.sleep(0.01)
  pid <- as.integer(strsplit(trimws(lines()[1]), " +")[[1]][2])
  if (is.na(after)) {
    while (length(lines()) < 2L) Sys.sleep(0.05)
    return(as.numeric(strsplit(trimws(lines()[2]), " +")[[1]][2]))
  }
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  while (length(lines()) < 2L && Sys.time() - sent < 120) Sys.sleep(0.01)
  if (!any(grepl("INTERRUPTED", lines()))) return(NA_real_)
  as.numeric(Sys.time() - sent, units = "secs")
}

if (length(args) && args[1] == "gp") {
  afters <- if (length(args) > 1) as.numeric(args[-1]) else c(1, 1.5, 2, 2.5, 3, 4, 5, 6)
  setup <- c("set.seed(1); n <- 2e5; x <- matrix(runif(2 * n), n); y <- sin(6 * x[, 1]) * cos(4 * x[, 2]) + rnorm(n, sd = 0.1)")
  fit <- "sparse_gp(x, y, seed = 1)"
  cat(sprintf("sparse_gp(x, y), n = 2e5: %.1f s uninterrupted\n", latency(setup, fit, NA)))
  lat <- vapply(afters, function(a) latency(setup, fit, a), numeric(1))
  cat("SIGINT latency (s) by time into the fit; NA: the fit ended first\n")
  print(data.frame(after_s = afters, latency_s = round(lat, 3)), row.names = FALSE)
} else if (length(args) && args[1] == "robust") {
  afters <- if (length(args) > 1) as.numeric(args[-1]) else c(0.5, 1, 2, 3, 4, 6, 8, 10, 12, 15, 20)
  setup <- c("set.seed(1); n <- 5000; d <- 200; X <- matrix(rnorm(n * d), n)",
             "beta <- c(rnorm(10, sd = 2), rep(0, d - 10)); y <- drop(X %*% beta) + rnorm(n)",
             "bad <- sample.int(n, n * 0.05); y[bad] <- y[bad] + rnorm(length(bad), 15, 5)")
  fit <- "suppressWarnings(ard(X, y, noise = 'student'))"
  cat(sprintf("ard(noise = \"student\"), n = 5000, d = 200, 5%% outliers: %.1f s uninterrupted\n",
              latency(setup, fit, NA)))
  lat <- vapply(afters, function(a) latency(setup, fit, a), numeric(1))
  cat("SIGINT latency (s) by time into the fit; NA: the fit ended first\n")
  print(data.frame(after_s = afters, latency_s = round(lat, 3)), row.names = FALSE)
} else {
  afters <- c(0.5, 1, 1.5, 2, 3, 5, 8)
  setup <- c("set.seed(1); n <- 3000; x <- matrix(runif(2 * n), n)",
             "y <- sin(20 * x[, 1]) * cos(15 * x[, 2]) + rnorm(n, sd = 0.1)")
  methods <- c("fast", "mackay", "em", "irls2", "irls1", "gradient")
  lat <- t(sapply(methods, function(m) {
    fit <- sprintf("rvm(x, y, method = '%s', kernel = %s)", m, if (m == "fast") "kernel_gaussian(0.1)" else "'gaussian'")
    vapply(afters, function(a) latency(setup, fit, a), numeric(1))
  }))
  colnames(lat) <- paste0(afters, "s")
  cat("SIGINT latency (s) by solver and time into the run; NA: the fit ended first\n")
  print(round(lat, 3))
}
cat(sprintf("largest: %.3f s\n", max(lat, na.rm = TRUE)))
