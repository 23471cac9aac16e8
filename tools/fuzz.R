# Fuzz test: CASES random and hostile inputs to rvm(), ard(), sparse_gp() and
# predict(), run in child R processes in batches so that a crash (a dead
# process) is detected and named. Clear errors are the expected outcome.
# Usage: Rscript tools/fuzz.R [CASES] [BATCH]; exits non-zero on any crash.
args <- as.integer(commandArgs(TRUE))
cases <- if (length(args) >= 1L && !is.na(args[1])) args[1] else 1000L
batch <- if (length(args) >= 2L && !is.na(args[2])) args[2] else 100L
dir.create(out <- "fuzz-output", showWarnings = FALSE)
rscript <- file.path(R.home("bin"), "Rscript")
crashes <- 0L; results <- character(0)
for (b in seq_len(ceiling(cases / batch))) {
  count <- min(batch, cases - (b - 1L) * batch)
  log_file <- file.path(out, sprintf("batch-%03d.log", b))
  status <- system2(rscript, c("tools/fuzz-child.R", 1000L + b, count, log_file), stdout = FALSE, stderr = FALSE)
  lines <- if (file.exists(log_file)) readLines(log_file, warn = FALSE) else character(0)
  if (status != 0L || !identical(utils::tail(lines, 1L), "DONE")) {
    crashes <- crashes + 1L
    cat(sprintf("CRASH in batch %d (seed %d, exit status %d); last case: %s\n", b, 1000L + b, status,
                utils::tail(grep("start$", lines, value = TRUE), 1L)))
  }
  results <- c(results, grep("^case .* (ok|error)", lines, value = TRUE))
}
outcome <- sub("^case [0-9]+ ", "", results)
target <- sub(" .*", "", outcome)
kind <- ifelse(grepl(" ok$", outcome), "ok", ifelse(grepl(" error after fit:", outcome), "fit, then error", "error"))
print(table(target, kind))
messages <- sort(table(sub("^[a-z_]+ error[a-z ]*: ", "", outcome[kind != "ok"])), decreasing = TRUE)
writeLines(sprintf("%5d  %s", as.integer(messages), names(messages)), file.path(out, "messages.txt"))
cat(sprintf("fuzz: %d cases, %d fits, %d errors, %d crashes (distinct messages in %s)\n",
            length(outcome), sum(kind != "error"), sum(kind != "ok"), crashes, file.path(out, "messages.txt")))
quit(status = if (crashes > 0L) 1L else 0L)
