# How long multisession workers keep computing after cross_validate() is
# interrupted. A child R process starts plan(multisession, workers = 2),
# records its workers' process ids and runs a 10-fold x 2-setting CV of
# ard(noise = "student") at n = 2000, d = 60 (each refit about a second); the parent sends SIGINT to the child
# `after` seconds into the CV, waits for it to report the interrupt, then
# reads the workers' CPU time (/proc/<pid>/stat) every 50 ms for 20 s: the
# time from the signal to the last tick of worker CPU is how long they ran
# on. `old` runs cross_validate() with future_lapply's default chunking
# (one chunk of jobs per worker: its body with future.chunk.size removed),
# `new` the installed one (one future per job).
#   Rscript bench/cv_interrupt.R        (Linux: reads /proc)
afters <- c(3, 6)

child <- function(status, variant) c(
  "suppressPackageStartupMessages(library(sparsebayes))",
  sprintf("status <- %s", deparse(status)),
  "future::plan(future::multisession, workers = 2)",
  "pids <- unique(unlist(future.apply::future_lapply(1:2, function(i) { loadNamespace('sparsebayes'); Sys.sleep(1); Sys.getpid() }, future.chunk.size = 1L)))",
  if (variant == "old") c(
    "cv <- sparsebayes::cross_validate",
    "txt <- deparse(body(cv)); txt <- sub(', future.chunk.size = 1L', '', txt, fixed = TRUE)",
    "body(cv) <- parse(text = paste(txt, collapse = '\\n'))[[1]]",
    "stopifnot(!any(grepl('future.chunk.size', deparse(body(cv)))))")
  else "cv <- sparsebayes::cross_validate",
  "set.seed(1); n <- 2000; d <- 60; X <- matrix(rnorm(n * d), n); y <- drop(X[, 1:5] %*% rep(1, 5)) + rnorm(n)",
  "y[1:100] <- y[1:100] + 10",
  "fit <- ard(X, y, noise = 'student')",
  "cat('PID', Sys.getpid(), 'WORKERS', pids, '\\n', file = status)",
  "t0 <- Sys.time()",
  "r <- tryCatch({ cv(fit, folds = 10, seed = 1, grid = list(method = c('em', 'mackay'))); 'FINISHED' },",
  "              interrupt = function(e) 'INTERRUPTED')",
  "cat(r, format(as.numeric(Sys.time() - t0, units = 'secs')), '\\n', file = status, append = TRUE)",
  "Sys.sleep(25)")  # keep the workers alive while the parent watches them

cpu <- function(pid) {
  f <- sprintf("/proc/%d/stat", pid)
  if (!file.exists(f)) return(NA_real_)
  fields <- strsplit(sub(".*\\) ", "", readLines(f, warn = FALSE)), " ")[[1]]
  sum(as.numeric(fields[12:13]))  # utime + stime (fields 14, 15), in clock ticks
}

run <- function(variant, after) {
  dir <- tempfile("cvint")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  status <- file.path(dir, "status")
  writeLines(child(status, variant), script <- file.path(dir, "child.R"))
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), wait = FALSE,
          stdout = file.path(dir, "out"), stderr = file.path(dir, "out"))
  lines <- function() if (file.exists(status)) readLines(status, warn = FALSE) else character(0)
  while (!any(grepl("^PID", lines()))) Sys.sleep(0.01)
  ids <- as.integer(strsplit(trimws(lines()[1]), " +")[[1]][-c(1, 3)])
  main <- ids[1]
  workers <- ids[-1]
  Sys.sleep(after)
  sent <- Sys.time()
  tools::pskill(main, tools::SIGINT)
  while (length(lines()) < 2L && Sys.time() - sent < 60) Sys.sleep(0.01)
  caught <- as.numeric(Sys.time() - sent, units = "secs")
  last <- vapply(workers, cpu, numeric(1))
  last_busy <- 0
  while ((now <- as.numeric(Sys.time() - sent, units = "secs")) < 20) {
    Sys.sleep(0.05)
    ticks <- vapply(workers, cpu, numeric(1))
    if (any(ticks > last, na.rm = TRUE)) last_busy <- now
    last <- ticks
  }
  tools::pskill(main, tools::SIGTERM)
  for (w in workers) tools::pskill(w, tools::SIGTERM)
  c(caught = caught, workers_busy = last_busy, result = grepl("INTERRUPTED", lines()[2]))
}

tab <- do.call(rbind, lapply(c("old", "new"), function(v) {
  do.call(rbind, lapply(afters, function(a) data.frame(variant = v, after_s = a, t(run(v, a)))))
}))
cat("cross_validate() under plan(multisession, workers = 2), SIGINT to the main process:\n")
cat("caught: s from the signal to the main process's report; workers_busy: s from the signal to the last worker CPU tick\n")
print(tab, row.names = FALSE, digits = 3)
