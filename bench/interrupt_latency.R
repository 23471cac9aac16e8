# SIGINT latency of every rvm() solver at n = 3000: a child R process fits,
# the parent sends SIGINT `after` seconds into the fit and times the child's
# report that it caught the interrupt (polled every 10 ms).
#   Rscript bench/interrupt_latency.R
latency <- function(method, after) {
  dir <- tempfile("latency")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  status <- file.path(dir, "status")
  script <- file.path(dir, "child.R")
  kernel <- if (method == "fast") "kernel_gaussian(0.1)" else "'gaussian'"
  writeLines(c(
    "suppressPackageStartupMessages(library(sparsebayes))",
    "set.seed(1); n <- 3000; x <- matrix(runif(2 * n), n)",
    "y <- sin(20 * x[, 1]) * cos(15 * x[, 2]) + rnorm(n, sd = 0.1)",
    sprintf("cat('PID', Sys.getpid(), '\\n', file = %s)", deparse(status)),
    sprintf("r <- tryCatch({ rvm(x, y, method = '%s', kernel = %s); 'FINISHED' },", method, kernel),
    "          interrupt = function(e) 'INTERRUPTED')",
    sprintf("cat(r, '\\n', file = %s, append = TRUE)", deparse(status))), script)
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), wait = FALSE,
          stdout = FALSE, stderr = FALSE)
  lines <- function() if (file.exists(status)) readLines(status, warn = FALSE) else character(0)
  while (!any(grepl("^PID", lines()))) Sys.sleep(0.01)
  pid <- as.integer(strsplit(trimws(lines()[1]), " +")[[1]][2])
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  while (length(lines()) < 2L && Sys.time() - sent < 60) Sys.sleep(0.01)
  if (!any(grepl("INTERRUPTED", lines()))) return(NA_real_)
  as.numeric(Sys.time() - sent, units = "secs")
}

afters <- c(0.5, 1, 1.5, 2, 3, 5, 8)
methods <- c("fast", "mackay", "em", "irls2", "irls1", "gradient")
tab <- t(sapply(methods, function(m) vapply(afters, function(a) latency(m, a), numeric(1))))
colnames(tab) <- paste0(afters, "s")
cat("SIGINT latency (s) by solver and time into the run; NA: the fit ended first\n")
print(round(tab, 3))
cat(sprintf("largest: %.3f s\n", max(tab, na.rm = TRUE)))
