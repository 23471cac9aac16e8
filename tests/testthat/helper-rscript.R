# R code run as a user runs it: in a fresh R process (Rscript --vanilla,
# with this process's libraries), whose working directory is a temporary
# folder holding only the script. Plots go to a null device, as they would
# go to a screen in an interactive session (Rscript would write
# Rplots.pdf). Returns the exit status, the output (stdout and stderr), the
# files the code left in the folder and the seconds it took.
run_fresh_r <- function(code, timeout = 600) {
  dir <- tempfile("sb-fresh-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  writeLines(c("options(device = function(...) grDevices::pdf(NULL))", code), file.path(dir, "script.R"))
  old_libs <- Sys.getenv("R_LIBS", unset = NA)
  Sys.setenv(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
  on.exit(if (is.na(old_libs)) Sys.unsetenv("R_LIBS") else Sys.setenv(R_LIBS = old_libs), add = TRUE)
  old_wd <- setwd(dir)
  on.exit(setwd(old_wd), add = TRUE)
  start <- proc.time()[["elapsed"]]
  output <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", "script.R"),
                                     stdout = TRUE, stderr = TRUE, timeout = timeout))
  status <- attr(output, "status")
  list(status = if (is.null(status)) 0L else status, output = output,
       left = setdiff(list.files(dir, all.files = TRUE, no.. = TRUE, recursive = TRUE, include.dirs = TRUE),
                      "script.R"),
       seconds = proc.time()[["elapsed"]] - start)
}

# What a failed run printed last, for a test's message.
fresh_r_tail <- function(run, lines = 40) paste(utils::tail(run$output, lines), collapse = "\n")
