# What a fit reports while the core runs. The glue calls the reporter with
# each row the solver's `verbose` setting asks to print, and with a row at
# most every half second: printed rows are labelled with the stage and on
# the data's scale (`to_data`: from the solver's standard units); the others
# are progress, signalled through progressr, which shows it where the user
# asked for progress (progressr::with_progress(), handlers(global = TRUE)).
# The progressor ends when the caller's frame `envir` does.
fit_reporter <- function(stage, verbose = 0L, to_data = NULL, envir = parent.frame()) {
  progress <- progressr::progressor(steps = 1L, envir = envir)
  force(stage)
  force(verbose)
  function(iteration, log_posterior, relevant, noise, print) {
    if (!print) return(progress(amount = 0, message = sprintf("%s: iteration %d, %d relevant", stage, iteration, relevant)))
    if (!is.null(to_data)) {
      scaled <- to_data(log_posterior, noise)
      log_posterior <- scaled$log_posterior
      noise <- scaled$noise
    }
    cat(sprintf("%s: iteration %5d  log evidence %.8g  relevant %d%s\n", stage, iteration, log_posterior, relevant,
                if (is.finite(noise)) sprintf("  noise sd %.4g", sqrt(noise)) else ""))
  }
}

# The report the glue's heartbeat calls (src/r_interrupt.h), or none.
heartbeat <- new.env(parent = emptyenv())

# While the caller's frame `envir` runs, the core's heartbeat signals
# "<label>: working" through progressr at most every half second.
beat_while <- function(label, envir = parent.frame()) {
  progress <- progressr::progressor(steps = 1L, envir = envir)
  old <- heartbeat$report
  heartbeat$report <- function() progress(amount = 0, message = sprintf("%s: working", label))
  do.call(on.exit, list(call("assign", "report", old, envir = heartbeat), add = TRUE), envir = envir)
  invisible()
}
