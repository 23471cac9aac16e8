# Kernel widths chosen by the evidence: kernel_gaussian(width = "evidence")
# (and the other kernels with a width). rvm.default() resolves its kernels
# and, when one asks for "evidence", hands the fit to rvm_width_search():
# the log evidence of the fitted model (logLik; log_posterior with a
# smoothness prior) is maximised over log width by a coarse grid around the
# median heuristic h (default_width()), walked outward from h, and a
# golden-section refinement (stats::optimize) between the grid neighbours of
# the best point. Every evaluation fits the checked problem of the call
# (rvm_problem()) at a fixed width, as fit_rvm() fits any rvm() call, so the
# returned fit is the fit at the chosen width, bit for bit.
#
# Narrow widths are the slow fits (many relevance vectors) and, below some
# width, the evidence can rise again towards an interpolating fit whose
# noise sits at the solver's floor (var(t) / beta_max_factor): each point
# explained by its own kernel. Its evidence is set by the floor, not by the
# model, so such widths are recorded but never chosen; and the walk stops in
# a direction after two such widths (or failed fits) in a row.

# The grid: h * 2^k for k from -4.5 to 4 in steps of 0.5 (walked outward
# from k = 0, stopping early only where fits interpolate or fail); the
# refinement's tolerance on log width (~1%).
width_grid_log2 <- c(-4.5, 4)
width_grid_step <- 0.5
width_walk_patience <- 2L
width_search_tol <- 0.01

is_evidence_width <- function(kernel) identical(kernel$width, "evidence")

# The criterion of the search for a fit (the joint one of a multinomial
# fit, or the sum over the one-against-the-rest models of a multiclass
# fit, which share one width): the log
# evidence, or with a smoothness prior the log posterior the solver
# maximised. Both are densities of the same response at every width.
width_criterion <- function(fit) {
  if (is_multinomial(fit)) return(fit$logLik)  # one joint evidence, shared by the class views
  models <- if (inherits(fit, "sb_rvm_multiclass")) fit$models else list(fit)
  sum(vapply(models, function(m) if (any(m$smoothness > 0)) m$log_posterior else m$logLik, numeric(1)))
}

# Did the fast solver's shared noise variance end at its floor, var(t) /
# beta_max_factor of the (weighted, offset-free) targets? Within a factor 2:
# a real noise level is never that close to a millionth of var(y).
noise_at_floor <- function(fit) {
  if (inherits(fit, "sb_rvm_multiclass") || !has_noise(fit$family) || method_supports(fit$method, "batch") ||
      per_sample_noise(fit$noise) || !is.null(fit$control$noise_variance)) return(FALSE)
  w <- row_precisions(fit)
  t <- (sqrt(w) * (fit$y - (fit$offset %||% 0)))[w > 0]
  fit$lambda[1L] <= 2 * stats::var(t) / fit$control$beta_max_factor
}

# The fit of an rvm() problem (rvm_problem()) with its kernel's width chosen
# by the evidence; `call`: the user's call, stored in the fit so that
# update() searches again.
rvm_width_search <- function(problem, call) {
  kernels <- problem$kernels
  if (length(kernels) > 1L)
    stop_arg("kernel", "is a dictionary of several kernels with width = \"evidence\" in one of them; the ",
             "search is for a single kernel. Give every kernel of a dictionary a number (or NULL), or fit ",
             "the kernels one at a time with width = \"evidence\" to find their widths.")
  kernel <- kernels[[1L]]
  if (!kernel_has_width(kernel))
    stop_arg("kernel", sprintf("is a %s kernel, which has no width to choose by the evidence.", kernel$type))
  heuristic <- default_width(problem$xs)
  tried <- list()  # one entry per width tried
  best <- NULL
  best_value <- -Inf
  best_warnings <- character(0)
  # The criterion at exp(log_width), -Inf where the fit failed or its noise
  # is at the floor.
  evaluate <- function(log_width) {
    width <- exp(log_width)
    hit <- vapply(tried, function(r) r$width == width, logical(1))
    if (any(hit)) return(tried[[which(hit)[1L]]]$value)
    at_width <- problem
    at_width$kernels[[1L]]$width <- width
    run <- attempt(function() fit_rvm(at_width, call))  # R/search.R
    if (!is.null(run$error)) {
      if (!length(tried)) stop(run$error)  # the first fit's errors are the user's
      tried[[length(tried) + 1L]] <<- list(width = width, criterion = NA_real_, value = -Inf, relevant = NA_integer_,
                                          converged = NA, floor = NA, error = conditionMessage(run$error))
      return(-Inf)
    }
    fit <- run$value
    criterion <- width_criterion(fit)
    floor <- noise_at_floor(fit)
    value <- if (floor) -Inf else criterion
    models <- if (inherits(fit, "sb_rvm_multiclass")) fit$models else list(fit)
    tried[[length(tried) + 1L]] <<- list(width = width, criterion = criterion, value = value,
                                        relevant = sum(vapply(models, function(m) length(m$relevant), integer(1))),
                                        converged = all(vapply(models, `[[`, logical(1), "converged")),
                                        floor = floor, error = NA_character_)
    if (is.null(best) || value > best_value) {
      best <<- fit
      best_value <<- value
      best_warnings <<- run$warnings
    }
    value
  }
  # The whole grid, walked outward from h: downwards, then upwards, each
  # direction ending at its limit or after `width_walk_patience` widths in a
  # row whose fit failed or interpolates (noise at the floor): those can
  # never be chosen, and narrower ones only cost more. (A walk that stopped
  # after a few widths without a new best missed better widths beyond a dip.)
  step <- log(2) * width_grid_step
  evaluate(log(heuristic))  # first: it raises the errors of bad input as they are
  for (direction in c(-1, 1)) {
    skipped <- 0L
    for (k in seq_len(floor(abs(width_grid_log2[(direction + 3) / 2]) / width_grid_step))) {
      value <- evaluate(log(heuristic) + direction * k * step)
      skipped <- if (value == -Inf) skipped + 1L else 0L
      if (skipped >= width_walk_patience) break
    }
  }
  grid <- log(vapply(tried, `[[`, numeric(1), "width"))
  values <- vapply(tried, `[[`, numeric(1), "value")
  if (all(values == -Inf)) {
    failed <- Filter(function(r) !is.na(r$error), tried)
    stop(if (length(failed)) sprintf("rvm() failed at every width of the evidence search; at the median-heuristic width %s: %s",
                                     format(heuristic, digits = 4), tried[[1L]]$error)
         else sprintf(paste0("at every width tried (%s to %s) the noise variance of the fit fell to its floor ",
                             "(var(y) / beta_max_factor): the fits interpolate and their evidence cannot choose a width. ",
                             "Give a width, or fix the noise with rvm_control(noise_variance =)."),
                      format(min(exp(grid)), digits = 3), format(max(exp(grid)), digits = 3)), call. = FALSE)
  }
  ord <- order(grid)
  grid <- grid[ord]
  top <- which.max(values[ord])
  limits <- log(heuristic) + log(2) * width_grid_log2
  at_edge <- abs(grid[top] - limits) < 1e-8
  if (any(at_edge))
    warning(sprintf(paste0("the width chosen by the evidence is at the %s end of the grid searched (%s times the median-",
                           "heuristic width %s): the evidence may rise further beyond it. Give a width, or ",
                           "cross-validate it."), if (at_edge[1L]) "narrow" else "wide",
                    format(2^width_grid_log2[at_edge][1L], digits = 3), format(heuristic, digits = 4)),
            call. = FALSE)
  bracket <- grid[c(max(1L, top - 1L), min(length(grid), top + 1L))]
  # optimize() needs finite values: a skipped width is the worst there is.
  stats::optimize(function(lw) max(evaluate(lw), -.Machine$double.xmax), bracket, maximum = TRUE,
                  tol = width_search_tol)
  table <- data.frame(width = vapply(tried, `[[`, numeric(1), "width"),
                      logLik = vapply(tried, `[[`, numeric(1), "criterion"),
                      relevant = vapply(tried, function(r) as.integer(r$relevant), integer(1)),
                      converged = vapply(tried, function(r) as.logical(r$converged), logical(1)),
                      noise_at_floor = vapply(tried, function(r) as.logical(r$floor), logical(1)))
  table <- table[order(table$width), , drop = FALSE]
  rownames(table) <- NULL
  attr(table, "heuristic") <- heuristic
  first <- first_class_model(best)
  attr(table, "criterion") <- if (any(first$smoothness > 0)) "log posterior" else "log evidence"
  attr(table, "objective") <- attr(table, "criterion")  # the attribute's former name, kept for one release
  failed <- Filter(function(r) !is.na(r$error), tried)
  if (length(failed))
    warning(sprintf("the fit failed at %d of the %d widths tried in the evidence search (first: %s); they were skipped.",
                    length(failed), length(tried), failed[[1L]]$error), call. = FALSE)
  chosen <- fit_kernels(first)[[1L]]$width
  n_rv <- length(first$relevance_index)
  if (has_noise(first$family) && is.null(best$models) && n_rv > length(first$y) / 2)
    warning(sprintf(paste0("the width chosen by the evidence (%s) keeps %d of %d training points as relevance ",
                           "vectors (noise sd %s): the evidence rewards near-interpolating fits here. Cross-validate ",
                           "the width, or keep the median heuristic (width = NULL)."),
                    format(chosen, digits = 4), n_rv, length(first$y), format(sqrt(mean(first$lambda)), digits = 3)),
            call. = FALSE)
  for (w in best_warnings)  # the final fit's own warnings, once
    warning(sprintf("at the width chosen by the evidence (%s): %s", format(chosen, digits = 4), w), call. = FALSE)
  mark <- function(fit) {
    fit$kernel$width_rule <- "evidence"
    fit$call <- call
    fit
  }
  best <- mark(best)
  if (!is.null(best$models)) best$models <- lapply(best$models, mark)
  best$width_search <- table
  best
}

# What the width search table `ws` calls logLik: "log evidence" or "log
# posterior" (fits made before its attribute was named "criterion" have
# "objective", and the oldest neither).
search_criterion <- function(ws) attr(ws, "criterion") %||% attr(ws, "objective") %||% "log evidence"

# One line on the width search of a fit for summary(): how many widths were
# tried over which range, and the criterion at the chosen width and at the
# median heuristic (NULL for a fit without a search).
width_search_label <- function(object, digits = 4L) {
  ws <- object$width_search
  if (is.null(ws)) return(NULL)
  chosen <- fit_kernels(object)[[1L]]$width
  h <- attr(ws, "heuristic")
  at <- function(w) ws$logLik[which.min(abs(log(ws$width / w)))]
  sprintf("%d widths from %s to %s; %s %s at %s (%s at the median heuristic %s)", nrow(ws),
          format(min(ws$width), digits = 3), format(max(ws$width), digits = 3), search_criterion(ws),
          format(at(chosen), digits = digits + 2L), format(chosen, digits = digits), format(at(h), digits = digits + 2L),
          format(h, digits = digits))
}
