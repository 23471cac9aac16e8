# Two starts, two explanations (per-sample noise; see `start` in
# ard_control()). The core returns the optimum it did not keep beside the
# one it kept (`res$other`); here both become rows of `fit$restarts`, and
# restart_note() is the one line print() and summary() give when the two
# explain the data differently.

# Rows a per-sample noise fit sets aside: variance above 10 times the
# median (rows of weight 0, noise Inf, are not fitted and not counted).
flagged_rows <- function(lambda) {
  fitted <- is.finite(lambda)
  which(fitted & lambda > 10 * stats::median(lambda[fitted]))
}

# fit$restarts from a core result in caller units: per start its log
# evidence, whether it was kept, the rows it flags, and its posterior means
# and sds of the weights (named by basis column). NULL for a single start.
restart_table <- function(res, names) {
  if (!length(res$start_log_evidence)) return(NULL)
  kept <- c(0L, 1L) == res$start_chosen
  summarise <- function(r) {
    if (is.null(r)) return(list(flagged = NA_integer_, weights = NA_real_, sd = NA_real_))  # not run
    cols <- names[as.integer(r$relevant)]
    list(flagged = if (length(r$lambda) > 1L) flagged_rows(as.numeric(r$lambda)) else integer(0),
         weights = stats::setNames(as.numeric(r$mu), cols),
         sd = stats::setNames(sqrt(pmax(diag(as.matrix(r$Sigma)), 0)), cols))
  }
  fits <- if (kept[1L]) list(summarise(res), summarise(res$other)) else list(summarise(res$other), summarise(res))
  out <- data.frame(start = c("plain", "robust"), logLik = res$start_log_evidence, kept = kept)
  for (field in c("flagged", "weights", "sd")) out[[field]] <- I(lapply(fits, `[[`, field))
  out
}

# Do the two optima explain the data differently? They flag different rows,
# or a weight differs by more than 2 posterior sds (the kept fit's, or the
# other's where the kept fit pruned the column; a pruned weight is 0).
restarts_disagree <- function(restarts) {
  if (is.null(restarts) || anyNA(restarts$logLik) || is.null(restarts$flagged)) return(FALSE)
  k <- which(restarts$kept)
  o <- 3L - k
  if (!setequal(restarts$flagged[[k]], restarts$flagged[[o]])) return(TRUE)
  cols <- union(names(restarts$weights[[k]]), names(restarts$weights[[o]]))
  at <- function(v, fill) ifelse(cols %in% names(v), v[cols], fill)
  sd <- ifelse(cols %in% names(restarts$sd[[k]]), at(restarts$sd[[k]], NA), at(restarts$sd[[o]], NA))
  gap <- abs(at(restarts$weights[[k]], 0) - at(restarts$weights[[o]], 0)) / sd
  any(gap > 2, na.rm = TRUE)
}

# "1-10, 14, 20": sorted row labels, runs of consecutive positions joined;
# at most `max_runs` runs, then the count of the rest.
row_runs <- function(rows, labels, max_runs = 8L) {
  if (!length(rows)) return("none")
  rows <- sort(rows)
  starts <- c(1L, which(diff(rows) != 1L) + 1L)
  ends <- c(starts[-1L] - 1L, length(rows))
  runs <- ifelse(starts == ends, labels[rows[starts]], paste0(labels[rows[starts]], "-", labels[rows[ends]]))
  if (length(runs) > max_runs) runs <- c(runs[seq_len(max_runs)], sprintf("... (%d rows)", length(rows)))
  paste(runs, collapse = ", ")
}

# The one line of print() and summary() when the two starts disagree, or NULL.
restart_note <- function(object, digits = 5L) {
  rs <- object$restarts
  if (!restarts_disagree(rs)) return(NULL)
  labels <- case_names(object)
  k <- which(rs$kept)
  o <- 3L - k
  sprintf("Two starts explain the data differently: kept the %s start (logLik %s, flags rows %s) over the %s start (logLik %s, flags rows %s)%s\n",
          rs$start[k], format(rs$logLik[k], digits = digits), row_runs(rs$flagged[[k]], labels), rs$start[o],
          format(rs$logLik[o], digits = digits), row_runs(rs$flagged[[o]], labels),
          if (rs$start[o] == "robust") "; the high-breakdown fit: ard_control(start = \"robust\")"
          else "; the plain start's fit: ard_control(start = \"plain\")")
}
