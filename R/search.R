# One "try several, keep the best" and one L-BFGS-B driver, for every
# learned choice: the GP's width starts (learn_widths.R), sparse_gp()'s
# restarts, rvm()'s noise starts and bases (learned_kernel_candidates()) and
# the evidence width search (width_search.R) all run their candidates
# through these.

# Runs run(candidate) for each candidate and keeps the best by score(result)
# (`keep`: "max" or "min"; ties go to the first). With `catch`, a candidate
# that fails is left out (marked in `failed`), the warnings of every run are
# muffled and only the kept one's are given again, once; the search fails
# only if every candidate does, with the first one's error. Returns the
# index of the best, its result, all results (NULL where failed) and their
# scores (NA where failed).
best_of <- function(candidates, run, score, keep = c("max", "min"), catch = FALSE) {
  keep <- match.arg(keep)
  runs <- lapply(candidates, function(cand) if (catch) attempt(function() run(cand)) else list(value = run(cand)))
  failed <- vapply(runs, function(r) !is.null(r$error), logical(1))
  if (all(failed)) stop(runs[[1L]]$error)
  results <- lapply(runs, `[[`, "value")
  scores <- rep(NA_real_, length(runs))
  scores[!failed] <- vapply(results[!failed], score, numeric(1))
  best <- if (keep == "max") which.max(scores) else which.min(scores)
  for (msg in runs[[best]]$warnings) warning(msg, call. = FALSE)
  list(best = best, result = results[[best]], results = results, scores = scores, failed = failed)
}

# The value of f() with its warnings muffled and their messages kept, or the
# error it raised: several candidates are run and only the kept one's
# warnings reach the user.
attempt <- function(f) {
  warnings <- character(0)
  value <- tryCatch(withCallingHandlers(f(), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  }), error = identity)
  if (inherits(value, "error")) return(list(error = value, warnings = warnings))
  list(value = value, warnings = warnings)
}

# optim's fn and gr from one evaluate(theta) -> list(value, gradient) per
# new theta: the last evaluation is kept, so fn and gr at one theta share it.
shared_fn_gr <- function(evaluate) {
  last_theta <- NULL
  last <- NULL
  at <- function(theta) {
    if (!identical(theta, last_theta)) {
      last <<- evaluate(theta)
      last_theta <<- theta
    }
    last
  }
  list(fn = function(theta) at(theta)$value, gr = function(theta) at(theta)$gradient)
}

# L-BFGS-B on fns (shared_fn_gr()) from `start`, clipped into [lower,
# upper]. optim() stops when an iteration gains less than factr * eps *
# max(|f|, 1) (in units of fnscale), and f carries an arbitrary constant
# (the log of the response's units): the optimiser sees f - `reference`
# (f at the clipped start unless given), so its stopping rule reads gains,
# the same in any units. `settings`: maxit, factr and optionally pgtol,
# fnscale, trace (optim's defaults otherwise); `failure` begins the error
# message. Returns the optimum `par`, f there (`value`, with the
# reference), `converged`, optim's `code`, `counts` and `message`, and
# which parameters ended at a bound (at_bound()).
lbfgsb <- function(fns, start, lower, upper, settings, reference = NULL, failure = "the optimisation failed") {
  start <- pmin(pmax(start, lower), upper)
  reference <- reference %||% fns$fn(start)
  res <- tryCatch(
    stats::optim(start, function(theta) fns$fn(theta) - reference, fns$gr, method = "L-BFGS-B",
                 lower = lower, upper = upper,
                 control = list(maxit = settings$maxit, factr = settings$factr, pgtol = settings$pgtol %||% 0,
                                fnscale = settings$fnscale %||% 1, trace = settings$trace %||% 0L, REPORT = 10L)),
    error = function(e) stop(failure, ": ", conditionMessage(e), call. = FALSE))
  list(par = res$par, value = res$value + reference, converged = res$convergence == 0L, code = res$convergence,
       counts = res$counts, message = res$message, bound = at_bound(res$par, lower, upper))
}

# "lower", "upper" or "" for each parameter of an L-BFGS-B optimum.
at_bound <- function(par, lower, upper) ifelse(par <= lower + 1e-6, "lower", ifelse(par >= upper - 1e-6, "upper", ""))
