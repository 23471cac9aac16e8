#' Cross-validate a model over folds and a grid of settings
#'
#' Splits the observations of a fit into `folds` folds, refits the model
#' through [stats::update()] on all but one fold, and scores its predictions
#' on the held-out fold; optionally does so at every setting of a `grid` of
#' arguments of the model function (kernels, noise models, solvers, ...),
#' and refits the model on all the data at the best setting.
#'
#' The folds are drawn once, in the calling process, from `seed` (random
#' folds of equal size, stratified by class for classifiers), and every
#' refit runs with a seed drawn there too, so the results do not depend on
#' where the refits run. They run through [future.apply::future_lapply()],
#' one job (one future) per fold and setting, so that after an interrupt
#' a worker finishes at most the refit it is in. [future::plan()] decides
#' whether they run sequentially (the default), in background R sessions
#' (`plan(multisession)`) or on a cluster, and the results are identical
#' under every plan. Progress is reported through [progressr::progressor()],
#' one step per job; wrap the call in [progressr::with_progress()] (or set
#' [progressr::handlers()] globally) to see it.
#'
#' The data are those of the fit's call, as [stats::update()] sees them:
#' formula fits are split by the rows of their `data` (after `subset` and
#' the rows the fit dropped for missing values; every variable of the
#' formula must be a column of `data`), matrix fits by the rows of `x`, `y`
#' (and of a user `basis`); `weights` and `offset` are split with them, and
#' the held-out scores are weighted means with the held-out `weights`.
#' `data` is looked up in the environment of the formula, then where
#' `cross_validate()` is called; the other arguments of the call where
#' `cross_validate()` is called (matrix fits) or where `data` was found.
#'
#' @param fit A model fitted by [rvm()], [ard()] or [sparse_gp()] (any
#'   family; multiclass fits too).
#' @param folds Number of folds, a whole number from 2 to the number of
#'   observations (which gives leave-one-out).
#' @param seed `NULL` (the folds are drawn from the current random stream,
#'   which moves on) or a whole number: the folds and the refits' seeds are
#'   drawn from it without changing the caller's random stream.
#' @param grid `NULL`, or a named list of settings to compare: each element
#'   is named by an argument of the model function (`kernel`, `noise`,
#'   `method`, `prior`, `bias`, `inducing`, ...; not the data arguments nor
#'   `family`) and holds the values to try, as a vector or a list (a list
#'   of kernel objects, say; a single kernel or control object is one
#'   value). All combinations are tried, the first element varying fastest,
#'   as [expand.grid()] orders them; each is passed to [stats::update()].
#' @param metric The score that chooses the best setting (lower is better),
#'   by default the first of those reported: gaussian fits (`rvm()`,
#'   `ard()`, `sparse_gp()`) `"rmse"` and `"mae"` (root mean squared and mean
#'   absolute error of the predictive mean); binomial and multiclass fits
#'   `"log_loss"` (mean negative log predictive probability of the held-out
#'   class, probabilities clipped at 1e-15) and `"error"` (misclassification
#'   rate); poisson fits `"deviance"` (mean Poisson deviance of the
#'   predicted rates), `"rmse"` and `"mae"`.
#' @param ... Further arguments of the model function, passed to
#'   [stats::update()] at every refit (held fixed over the grid).
#' @return An object of class `"sb_cv"`, a list with
#'   \item{results}{a data frame with one row per setting: a column per
#'     grid argument (values as labels, such as `gaussian(width = 1)`), then
#'     each score's mean over the folds and its standard error
#'     (`sd / sqrt(folds)`) in a column `<score>_se`.}
#'   \item{folds}{a data frame with one row per setting and fold: `setting`
#'     (row of `results`), `fold`, `n` (held-out observations) and the
#'     scores.}
#'   \item{settings}{the settings as lists of argument values.}
#'   \item{metric, best}{the score that chose, and the row of `results`
#'     where its mean is smallest.}
#'   \item{fit}{the model refitted on all the data at the best setting (the
#'     fit itself when there is no grid and nothing in `...`).}
#'   \item{failed}{a data frame of the settings whose refits failed, one
#'     row each (no rows when all worked): `setting` (row of `results`),
#'     `folds` (how many of its refits failed) and `message` (the first
#'     error). Such a setting is scored `NA` in every fold, is never the
#'     best, and is named in a warning; when every setting fails,
#'     `cross_validate()` stops with their errors.}
#'   \item{fold}{the fold of each observation used.}
#'   \item{n, seed, call}{the number of observations, the seed and the
#'     call.}
#' @seealso [stats::update()], [rvm()], [ard()], [sparse_gp()];
#'   [future::plan()] to run the folds in parallel.
#' @examples
#' d <- MASS::mcycle
#' fit <- rvm(accel ~ times, data = d)
#' cv <- cross_validate(fit, folds = 5, seed = 1,
#'                      grid = list(kernel = list(kernel_gaussian(0.3), kernel_gaussian(1))))
#' cv
#' cv$fit
#'
#' # in parallel, with a progress bar (the same numbers):
#' \dontrun{
#' future::plan(future::multisession, workers = 2)
#' progressr::with_progress(cross_validate(fit, folds = 5, seed = 1))
#' future::plan(future::sequential)
#' }
#' @export
cross_validate <- function(fit, folds = 10, seed = NULL, grid = NULL, metric = NULL, ...) {
  generic <- cv_generic(fit)
  fixed <- list(...)
  if (length(fixed)) check_cv_arguments(fixed, generic, "...")
  kind <- cv_kind(fit)
  scores <- if (kind == "multiclass") c("log_loss", "error") else names(target_kinds[[kind]]$scores(1, 1, 1))
  metric <- if (is.null(metric)) scores[1L] else match_arg(metric, scores)
  if (!is.null(seed)) check_number(seed, "seed", integer = TRUE)
  grid_values <- cv_grid(grid, generic)
  setup <- cv_setup(fit, generic, parent.frame())
  n <- setup$n
  check_number(folds, "folds", lower = 2, upper = n, integer = TRUE)
  folds <- as.integer(folds)
  settings <- expand_settings(grid_values)
  n_jobs <- folds * length(settings)
  draws <- with_seed(seed, list(
    fold = assign_folds(n, folds, if (kind %in% c("classes", "multiclass")) setup$truth),
    seeds = sample.int(.Machine$integer.max, n_jobs)))
  jobs <- data.frame(setting = rep(seq_along(settings), each = folds), fold = rep(seq_len(folds), length(settings)))
  progress <- progressr::progressor(steps = n_jobs)
  job <- cv_job(setup[c("truth", "weights", "template", "parts", "formula_fit")], settings, fixed, draws$fold,
                draws$seeds, jobs, kind, progress)
  # One future per job (chunk size 1): future_lapply's default gives each
  # worker one chunk of n_jobs / workers jobs, and a worker cannot be told
  # to stop a running future (future 1.31 has no cancellation; resetWorkers()
  # does nothing for multisession), so after an interrupt the workers ran
  # their whole chunks on (7 s in the issue). Now they finish at most the
  # refit they are in, and the cost is one small future per refit.
  out <- future.apply::future_lapply(seq_len(n_jobs), job, future.seed = NULL, future.chunk.size = 1L)
  failed <- cv_failures(out, jobs, settings, folds)
  if (length(failed$setting) == length(settings))
    stop(sprintf("refitting failed at every setting: %s",
                 paste(sprintf("%s in %s: %s", failed$label, failed$where, failed$message), collapse = "; ")),
         call. = FALSE)
  for (k in seq_along(failed$setting))
    warning(sprintf("refitting at %s failed in %s: %s; it is scored NA and not chosen.", failed$label[k],
                    failed$where[k], failed$message[k]), call. = FALSE)
  # A failed setting is scored NA in every fold: a mean over the folds it
  # survived would be compared with the others' means over all folds.
  ok <- out[!vapply(out, is.character, logical(1))][[1L]]
  out <- lapply(seq_along(out), function(j) if (jobs$setting[j] %in% failed$setting) ok * NA_real_ else out[[j]])
  per_fold <- do.call(rbind, out)
  fold_table <- cbind(jobs, n = tabulate(draws$fold, folds)[jobs$fold], as.data.frame(per_fold))
  results <- cv_summary(settings, grid_values, per_fold, jobs$setting, folds)
  best <- which.min(results[[metric]])
  if (!length(best)) stop(sprintf("no setting has a finite mean %s.", metric), call. = FALSE)
  final <- if (length(grid_values) || length(fixed)) cv_refit(fit, c(settings[[best]], fixed), generic, setup$env) else fit
  structure(list(results = results, folds = fold_table, settings = settings, metric = metric, best = best,
                 fit = final, failed = failed[c("setting", "folds", "message")], fold = draws$fold, n = n,
                 seed = seed, call = match.call()),
            class = "sb_cv")
}

# The settings whose refits failed (in any fold): a data frame with
# `setting`, `folds` (how many failed), `message` (the first error), and
# for the messages `label` ("setting 2 (noise = bogus)") and `where`
# ("every fold (5)", "2 of 5 folds").
cv_failures <- function(out, jobs, settings, folds) {
  bad <- vapply(out, is.character, logical(1))
  which_settings <- sort(unique(jobs$setting[bad]))
  first <- vapply(which_settings, function(s) out[[which(bad & jobs$setting == s)[1L]]], character(1))
  counts <- vapply(which_settings, function(s) sum(bad & jobs$setting == s), integer(1))
  data.frame(setting = which_settings, folds = counts, message = first,
             label = sprintf("setting %d (%s)", which_settings, vapply(settings[which_settings], setting_text, character(1))),
             where = ifelse(counts == folds, sprintf("every fold (%d)", folds), sprintf("%d of %d folds", counts, folds)),
             stringsAsFactors = FALSE)
}

# The generic that made `fit`: "rvm", "ard" or "sparse_gp".
cv_generic <- function(fit) {
  ok <- inherits(fit, "sparsebayes") && is.list(fit) && is.call(fit$call)
  generic <- if (ok) deparse1(fit$call[[1L]]) else ""
  if (!generic %in% c("rvm", "ard", "sparse_gp"))
    stop_arg("fit", "must be a model fitted by rvm(), ard() or sparse_gp().")
  generic
}

# How the held-out predictions are scored.
cv_kind <- function(fit) {
  if (inherits(fit, "sb_rvm_multiclass")) return("multiclass")
  if (is.null(fit$family)) "real" else likelihood_of(fit$family)$targets
}

# Names in `args` (the grid or `...`) must be arguments of the model
# function other than the data, which cross_validate() splits itself, and
# the family, which fixes the scores.
check_cv_arguments <- function(args, generic, arg) {
  nm <- names(args)
  if (is.null(nm) || any(!nzchar(nm))) stop_arg(arg, "must have a name for every element (an argument of ", generic, "()).")
  if (anyDuplicated(nm)) stop_arg(arg, sprintf("names `%s` twice.", nm[anyDuplicated(nm)]))
  data_args <- c("x", "y", "formula", "data", "subset", "weights", "offset", "na.action", "basis")
  known <- setdiff(names(formals(utils::getFromNamespace(paste0(generic, ".default"), "sparsebayes"))), "...")
  for (a in nm) {
    if (a %in% data_args) stop_arg(arg, sprintf("cannot set `%s`: cross_validate() splits the data of the fit itself.", a))
    if (a == "family") stop_arg(arg, "cannot set `family`: the family decides how the held-out data are scored.")
    if (!a %in% known) stop_arg(arg, sprintf("names `%s`, which is not an argument of %s().", a, generic))
  }
  invisible(args)
}

# The grid as a named list of lists of values (list() for no grid).
cv_grid <- function(grid, generic) {
  if (is.null(grid)) return(list())
  if (!is.list(grid) || is.object(grid)) stop_arg("grid", "must be NULL or a named list of settings to try.")
  if (!length(grid)) return(list())
  check_cv_arguments(grid, generic, "grid")
  values <- lapply(names(grid), function(a) {
    v <- grid[[a]]
    if (!length(v)) stop_arg("grid", sprintf("has no values for `%s`.", a))
    if (is.list(v) && !is.object(v)) return(as.list(v))
    if (is.object(v) && !is.atomic(v) || is.function(v)) return(list(v))  # one kernel, control, ...
    as.list(v)
  })
  stats::setNames(values, names(grid))
}

# Every combination of the grid's values, the first varying fastest.
expand_settings <- function(values) {
  if (!length(values)) return(list(list()))
  index <- expand.grid(lapply(values, seq_along), KEEP.OUT.ATTRS = FALSE)
  lapply(seq_len(nrow(index)), function(i) {
    stats::setNames(lapply(names(values), function(a) values[[a]][[index[[a]][i]]]), names(values))
  })
}

# A readable label per value of a grid argument.
value_labels <- function(values) {
  labels <- vapply(values, value_label, character(1))
  if (anyDuplicated(labels)) labels <- paste0(labels, " #", seq_along(labels))
  labels
}

value_label <- function(v) {
  if (is.null(v)) return("NULL")
  if (inherits(v, "sparsebayes_kernel")) return(kernel_text(v))
  if (is.list(v) && length(v) && all(vapply(v, inherits, logical(1), "sparsebayes_kernel")))
    return(paste(vapply(v, kernel_text, ""), collapse = " + "))
  if (is.atomic(v) && !is.object(v) || is.factor(v)) return(paste(format(v, digits = 6), collapse = ", "))
  paste0("<", class(v)[1L], ">")
}

kernel_text <- function(k) sub(" kernel", "", paste(utils::capture.output(print(k)), collapse = " "), fixed = TRUE)

setting_text <- function(setting) {
  if (!length(setting)) return("the fit's own settings")
  paste(sprintf("%s = %s", names(setting), vapply(setting, value_label, "")), collapse = ", ")
}

# The data of the fit and the template call that refits on rows of them:
# a list with n, the response `truth` and case `weights` of the n
# observations, `template` (an object whose call has every argument
# evaluated, for update() in any process), `parts` (the data arguments of
# a refit, split by rows_of()) and `env` (where the call's arguments were
# evaluated).
cv_setup <- function(fit, generic, caller) {
  call <- fit$call
  args <- as.list(call)[-1L]
  if (length(args) && (is.null(names(args)) || any(!nzchar(names(args)))))
    stop_arg("fit", "has a call with unnamed arguments; refit it with named ones.")
  call[[1L]] <- call("::", as.name("sparsebayes"), as.name(generic))
  formula_fit <- !is.null(fit$terms) && !is.null(args$formula)
  evaluate <- function(name, env) {
    tryCatch(eval(args[[name]], env), error = function(e)
      stop_arg("fit", sprintf("has `%s = %s` in its call, which cannot be evaluated here (%s); call cross_validate() where the data of the fit are visible.",
                              name, paste(deparse(args[[name]], width.cutoff = 60L), collapse = " "), conditionMessage(e))))
  }
  if (formula_fit) {
    if (is.null(args$data))
      stop_arg("fit", "was fitted by a formula without `data`; cross_validate() splits the rows of `data`.")
    envs <- unique(list(environment(fit$terms), caller))
    env <- NULL
    for (e in envs) {
      data <- tryCatch(eval(args$data, e), error = function(err) NULL)
      if (!is.null(data)) { env <- e; break }
    }
    if (is.null(env)) evaluate("data", caller)  # the error message
    if (!is.data.frame(data)) stop_arg("fit", "has `data` that is not a data frame; cross_validate() splits its rows.")
    formula <- if (is.name(args$formula)) evaluate("formula", env) else args$formula
    used <- setdiff(all.vars(formula), c(names(data), "."))
    used <- used[!vapply(used, exists, logical(1), envir = baseenv())]
    if (length(used))
      stop_arg("fit", sprintf("has variables outside `data` (%s); cross_validate() needs every variable of the formula in `data`.",
                              paste(used, collapse = ", ")))
    mf <- call[c(1L, match(c("formula", "data", "subset", "weights", "na.action", "offset"), names(call), 0L))]
    mf[[1L]] <- quote(stats::model.frame)
    mf$data <- data
    mf$drop.unused.levels <- TRUE
    mf <- eval(mf, env)
    rows <- match(rownames(mf), rownames(data))
    if (anyNA(rows) || nrow(mf) != length(fit$y))
      stop_arg("fit", "has `data` that no longer matches the fit (other rows); refit it first.")
    d <- data[rows, , drop = FALSE]
    weights <- mf[["(weights)"]]
    fixed_args <- list(formula = formula, subset = NULL, na.action = NULL)
    if (!is.null(weights)) { d$.sb_cv_weights <- weights; fixed_args$weights <- quote(.sb_cv_weights) }
    if (!is.null(mf[["(offset)"]])) { d$.sb_cv_offset <- mf[["(offset)"]]; fixed_args$offset <- quote(.sb_cv_offset) }
    truth <- stats::model.response(mf)
    parts <- list(data = d)
  } else {
    env <- caller
    data_names <- intersect(c("x", "y", "weights", "offset", "basis"), names(args))
    parts <- stats::setNames(lapply(data_names, evaluate, env = env), data_names)
    truth <- parts$y
    if (!is.null(dim(truth))) truth <- truth[, 1L]
    if (length(truth) != length(fit$y))
      stop_arg("fit", sprintf("has `y` of length %d in its call but was fitted to %d observations; refit it first.",
                              length(truth), length(fit$y)))
    weights <- parts$weights
    fixed_args <- stats::setNames(vector("list", length(data_names)), data_names)  # each refit gives its rows
    parts <- parts[!vapply(parts, is.null, logical(1))]
  }
  other <- setdiff(names(args), c("formula", "data", "subset", "weights", "na.action", "offset", "x", "y", "basis"))
  for (a in other) call[a] <- list(evaluate(a, env))
  for (a in names(fixed_args)) {
    if (!is.null(fixed_args[[a]])) call[[a]] <- fixed_args[[a]]
    else if (a %in% names(call)) call[[a]] <- NULL
  }
  template <- structure(list(call = call), class = class(fit))
  list(n = length(truth), truth = truth, weights = weights, template = template, parts = parts,
       formula_fit = formula_fit, env = env)
}

# Folds of (nearly) equal size in random order; with classes, each class
# is dealt across the folds in turn, so every training set sees every class
# with at least two members.
assign_folds <- function(n, k, classes = NULL) {
  order <- if (is.null(classes)) sample.int(n)
           else unlist(lapply(split(seq_len(n), as.character(classes)), function(i) i[sample.int(length(i))]),
                       use.names = FALSE)
  fold <- integer(n)
  fold[order] <- rep_len(seq_len(k), n)
  fold
}

# The function run for job j (a setting and a fold), in whichever process
# the plan chooses: refit through update() on the other folds, score on
# the fold. Built here so that only what it needs travels to the workers.
# Returns the scores, or the error message.
cv_job <- function(setup, settings, fixed, fold, seeds, jobs, kind, progress) {
  force(progress)
  function(j) {
    test <- which(fold == jobs$fold[j])
    train <- which(fold != jobs$fold[j])
    out <- tryCatch(with_seed(seeds[j], {
      m <- do.call(stats::update, c(list(setup$template), settings[[jobs$setting[j]]], fixed,
                                    lapply(setup$parts, take_rows, i = train)))
      w <- if (is.null(setup$weights)) rep(1, length(test)) else setup$weights[test]
      held_out <- lapply(setup$parts, take_rows, i = test)
      newdata <- if (setup$formula_fit) held_out$data else if (is.null(held_out$basis)) held_out$x else held_out$basis
      cv_scores(m, kind, newdata, held_out$offset, take_rows(setup$truth, test), w)
    }), error = function(e) conditionMessage(e))
    progress()
    out
  }
}

take_rows <- function(v, i) if (length(dim(v)) == 2L) v[i, , drop = FALSE] else v[i]

# The scores of model m on held-out inputs `newdata` with responses `truth`
# and case weights w.
cv_scores <- function(m, kind, newdata, offset, truth, w) {
  if (kind == "multiclass") {
    p <- predict(m, newdata, type = "prob")
    truth <- as.character(truth)
    p_true <- p[cbind(seq_along(truth), match(truth, colnames(p)))]
    p_true[is.na(p_true)] <- 0  # a class the refit never saw
    predicted <- colnames(p)[max.col(p, ties.method = "first")]
    return(c(log_loss = wmean(-log(pmax(p_true, 1e-15)), w), error = wmean(predicted != truth, w)))
  }
  mu <- if (inherits(m, "sb_rvm")) predict(m, newdata, type = "response", offset = offset)
        else predict(m, newdata, offset = offset)
  truth <- if (kind == "classes") as.numeric(as.character(truth) == m$levels[2L]) else as.vector(truth)
  target_kinds[[kind]]$scores(truth, as.vector(mu), w)
}

# One row per setting: the grid's labels, each score's mean and standard
# error over the folds.
cv_summary <- function(settings, values, per_fold, setting, k) {
  labels <- lapply(values, value_labels)
  grid_cols <- lapply(names(values), function(a) {
    vapply(settings, function(s) labels[[a]][match_value(s[[a]], values[[a]])], character(1))
  })
  out <- as.data.frame(stats::setNames(grid_cols, names(values)), stringsAsFactors = FALSE)
  if (!length(values)) out <- data.frame(row.names = seq_along(settings))
  for (score in colnames(per_fold)) {
    by_setting <- split(per_fold[, score], setting)
    out[[score]] <- vapply(by_setting, mean, numeric(1))
    out[[paste0(score, "_se")]] <- vapply(by_setting, stats::sd, numeric(1)) / sqrt(k)
  }
  rownames(out) <- NULL
  out
}

match_value <- function(v, values) {
  for (i in seq_along(values)) if (identical(values[[i]], v)) return(i)
  NA_integer_
}

# The model refitted on all the data at `setting`, as update(fit, ...)
# called where the data of the fit were found.
cv_refit <- function(fit, setting, generic, env) {
  setting <- lapply(setting, value_expression, env = env)
  call <- do.call(stats::update, c(list(fit), setting, list(evaluate = FALSE)))
  call[[1L]] <- call("::", as.name("sparsebayes"), as.name(generic))
  eval(call, env)
}

# A kernel object as the call of its constructor, kernel_gaussian(width =
# 0.3), when that call gives the same object (so that the refit's call
# reads as a user would write it); any other value as it is.
value_expression <- function(v, env) {
  if (!inherits(v, "sparsebayes_kernel")) return(v)
  ctor <- paste0("kernel_", v$type)
  ns <- asNamespace("sparsebayes")
  if (!exists(ctor, envir = ns, inherits = FALSE)) return(v)
  f <- get(ctor, envir = ns)
  args <- list()
  for (a in intersect(names(formals(f)), names(v))) {
    default <- eval(formals(f)[[a]], ns)
    if (!identical(v[[a]], if (is.character(default)) default[1L] else default)) args[[a]] <- v[[a]]
  }
  head <- if (identical(get0(ctor, envir = env), f)) as.name(ctor) else call("::", as.name("sparsebayes"), as.name(ctor))
  expr <- as.call(c(head, args))
  if (identical(eval(expr, ns), v)) expr else v
}

#' @rdname plot.sb_cv
#' @export
print.sb_cv <- function(x, digits = 4L, ...) {
  cat(sprintf("%d-fold cross-validation, n = %d, %d setting%s%s\n", max(x$fold), x$n, nrow(x$results),
              if (nrow(x$results) == 1L) "" else "s", if (is.null(x$seed)) "" else sprintf(" (seed %s)", format(x$seed))))
  tab <- x$results
  num <- vapply(tab, is.numeric, logical(1))
  tab[num] <- lapply(tab[num], function(v) format(signif(v, digits)))
  tab <- cbind(` ` = ifelse(seq_len(nrow(tab)) == x$best, "*", ""), tab)
  shown <- seq_len(min(nrow(tab), 20L))
  print(tab[shown, , drop = FALSE], row.names = FALSE, right = FALSE)
  if (nrow(tab) > 20L) cat(sprintf("... and %d more settings (see $results)\n", nrow(tab) - 20L))
  n_failed <- NROW(x$failed)
  if (n_failed) cat(sprintf("%d setting%s failed and %s scored NA (see $failed)\n", n_failed,
                            if (n_failed == 1L) "" else "s", if (n_failed == 1L) "is" else "are"))
  cat(sprintf("Best by %s: %s\n", x$metric, setting_text(x$settings[[x$best]])))
  if (length(x$settings[[x$best]])) cat("The model refitted on all the data at that setting is in $fit.\n")
  invisible(x)
}

#' Print and plot cross-validation scores
#'
#' `print()` lists the mean score of every setting of a [cross_validate()]
#' run with its standard error over the folds, the best marked with `*`;
#' `plot()` draws them, the best in red, the settings labelling the x axis
#' (turned when there are more than three, with the bottom margin widened
#' to hold them and restored on exit).
#'
#' @param x The result of [cross_validate()].
#' @param digits Significant digits to print.
#' @param legend `FALSE` to draw no legend (and reserve no room for one).
#' @param main,xlab,ylab Title and axis labels replacing the defaults.
#' @param ylim Range of the data region (the legend's band is added above).
#' @param ... Graphical parameters passed to [graphics::plot()]; unused by
#'   `print()`.
#' @return `x`, invisibly.
#' @examples
#' cv <- cross_validate(rvm(accel ~ times, data = MASS::mcycle), folds = 5, seed = 1,
#'                      grid = list(noise = c("shared", "student")))
#' cv
#' plot(cv)
#' @name plot.sb_cv
#' @export
plot.sb_cv <- function(x, legend = TRUE, main = NULL, xlab = NULL, ylab = NULL, ylim = NULL, ...) {
  check_flag(legend, "legend")
  m <- x$results[[x$metric]]
  se <- x$results[[paste0(x$metric, "_se")]]
  k <- length(m)
  grid_cols <- setdiff(names(x$results), c(names(x$folds), paste0(names(x$folds), "_se")))
  labels <- if (length(grid_cols)) do.call(paste, c(unname(x$results[grid_cols]), sep = ", ")) else "fit"
  metric <- switch(x$metric, rmse = "root mean squared error", mae = "mean absolute error",
                   log_loss = "log loss (mean negative log probability)", error = "misclassification rate",
                   deviance = "mean Poisson deviance", x$metric)
  las <- if (k > 3L) 2L else 1L
  mar <- graphics::par("mar")
  if (las == 2L) {  # turned labels: widen the bottom margin to the longest
    lines <- max(graphics::strwidth(labels, units = "inches", cex = 0.7)) / graphics::par("csi") + 2.8
    graphics::par(mar = c(max(mar[1L], lines), mar[-1L]))
  }
  on.exit(graphics::par(mar = mar), add = TRUE)
  keys <- if (legend) c("mean over the folds \u00b1 1 standard error", if (k > 1L) "best setting")
  ylim <- legend_space(ylim %||% range(c(m - se, m + se), finite = TRUE), keys)
  main <- main %||% sprintf("%d-fold cross-validation: %s", max(x$fold), metric)
  op <- graphics::par(cex.main = title_cex(main))
  on.exit(graphics::par(op), add = TRUE)
  graphics::plot(seq_len(k), m, ylim = ylim, xlim = c(0.5, k + 0.5), pch = 19, xaxt = "n", xlab = "",
                 ylab = ylab %||% sprintf("cross-validated %s", x$metric),
                 main = main,
                 col = ifelse(seq_len(k) == x$best, "red", "black"), ...)
  graphics::arrows(seq_len(k), m - se, seq_len(k), m + se, angle = 90, code = 3, length = 0.03)
  graphics::axis(1L, at = seq_len(k), labels = labels, las = las, cex.axis = 0.7)
  graphics::title(xlab = xlab %||% if (length(grid_cols)) paste("setting:", paste(grid_cols, collapse = ", "))
                                   else "the fit as given (no grid)",
                  line = graphics::par("mar")[1L] - 1.3)
  draw_legend(ylim, keys, pch = 19, col = if (k > 1L) c("black", "red") else "red")
  invisible(x)
}
