# The cross-validation harness shared by bench/regression_panel.R,
# bench/regression_broad.R, bench/classification_panel.R,
# bench/classification_peers.R and bench/width_alternatives.R: the packages
# and data sets (bench/sets.R) the panels use, command-line filters, one
# (set, method) over the same 5 folds, and the loop over sets and methods.
suppressPackageStartupMessages({
  library(sparsebayes)
  library(mlbench)
  library(e1071)
  library(ranger)
})
source("bench/sets.R")
time_limit <- 60  # seconds (elapsed) per fit before a method is skipped on a set

# ranger predicts a list; a small wrapper class gives its predictions (numbers
# or classes).
ranger_fit <- function(formula, train) structure(list(fit = ranger(formula, data = train)), class = "panel_ranger")
predict.panel_ranger <- function(object, newdata, ...) predict(object$fit, newdata)$predictions

# A fitter run with one of the package's constants set to another value
# (learn_max_rows, learn_factr: R/learn_widths.R).
with_constant <- function(name, value, fitter) function(f, d) {
  ns <- asNamespace("sparsebayes")
  old <- get(name, envir = ns)
  unlockBinding(name, ns)
  assign(name, value, envir = ns)
  on.exit(assign(name, old, envir = ns))
  fitter(f, d)
}

# Kept basis functions of a fit (NA where the notion does not apply).
n_vectors <- function(fit) {
  if (inherits(fit, "sb_rvm")) length(fit$relevance_index)
  else if (isTRUE(fit$multiclass %in% c("multinomial", "multinomial_shared")))  # the training rows any class keeps
    length(unique(unlist(lapply(fit$models, `[[`, "relevance_index"))))
  else if (inherits(fit, "sb_rvm_multiclass")) sum(vapply(fit$models, function(m) length(m$relevance_index), 0L))
  else if (inherits(fit, "sb_sparse_gp")) fit$m
  else if (inherits(fit, "svm")) fit$tot.nSV
  else NA_real_
}

# The names in the i-th command-line argument (comma-separated; all if absent).
choose <- function(all, i, what) {
  args <- commandArgs(TRUE)
  if (length(args) < i || !nzchar(args[i])) return(all)
  want <- strsplit(args[i], ",", fixed = TRUE)[[1L]]
  if (length(bad <- setdiff(want, all))) stop(sprintf("unknown %s: %s (have %s)", what,
    paste(bad, collapse = ", "), paste(all, collapse = ", ")), call. = FALSE)
  want
}

# One (set, method): fit on 4 folds, predict the 5th, scored by `score` (an
# entry of `scoring`): `loss(as_pred(predict(fit, test)), y)` gives per-row
# losses (a vector, or a matrix with one row per test row) and `pool(losses)`
# the score (RMSE, error rate), or with `names` a named vector of scores, the
# first in `score` and each also in its own column (and `<name>_se`); an
# optional `predict` replaces predict(). Warnings are recorded (unique) and
# muffled; an error or a fit over the time limit stops the method on this
# set and is reported instead of its numbers.
run_cv <- function(d, f, fold, fitter, score) {
  predict <- if (is.null(score$predict)) stats::predict else score$predict
  nm <- if (is.null(score$names)) "score" else score$names
  losses <- list(); fold_score <- matrix(NA_real_, 5, length(nm)); vec <- cpu <- rep(NA_real_, 5); warn <- character(); problem <- NA_character_
  for (k in 1:5) {
    train <- d[fold != k, ]; test <- d[fold == k, ]
    y <- model.response(model.frame(f, test))
    set.seed(k)  # methods that draw random numbers (ranger) do not depend on which others ran
    t0 <- proc.time()
    out <- tryCatch(withCallingHandlers({
      fit <- fitter(f, train)
      list(fit = fit, pred = score$as_pred(predict(fit, test)))
    }, warning = function(w) { warn <<- union(warn, conditionMessage(w)); invokeRestart("muffleWarning") }),
    error = function(e) conditionMessage(e))
    t <- proc.time() - t0
    if (is.character(out)) { problem <- sprintf("error in fold %d: %s", k, out); break }
    if (NROW(out$pred) != length(y)) { problem <- sprintf("fold %d: %d predictions for %d rows", k, NROW(out$pred), length(y)); break }
    cpu[k] <- t[["user.self"]] + t[["sys.self"]] + t[["user.child"]] + t[["sys.child"]]
    losses[[k]] <- l <- score$loss(out$pred, y)
    fold_score[k, ] <- score$pool(l); vec[k] <- n_vectors(out$fit)
    if (t[["elapsed"]] > time_limit && k < 5) {
      problem <- sprintf("skipped after fold %d: the fit took %.0f s (> %d s)", k, t[["elapsed"]], time_limit); break
    }
  }
  done <- !is.na(problem)
  pooled <- if (done) rep(NA_real_, length(nm)) else score$pool(if (is.null(dim(l))) unlist(losses) else do.call(rbind, losses))
  se <- if (done) pooled else apply(fold_score, 2L, sd) / sqrt(5)
  out <- data.frame(score = pooled[[1L]], se = se[[1L]], vectors = mean(vec), cpu = mean(cpu, na.rm = TRUE), problem = problem,
                    warnings = I(list(warn)), fold_score = I(list(if (is.null(score$names)) fold_score[, 1L] else `colnames<-`(fold_score, nm))))
  if (!is.null(score$names)) out[c(nm, paste0(nm, "_se"))] <- as.list(c(pooled, se))
  out
}

# How a panel scores predictions (run_cv()): the test RMSE of a regression,
# the error rate of a classifier.
scoring <- list(
  rmse = list(as_pred = as.numeric, loss = function(pred, y) (pred - y)^2, pool = function(l) sqrt(mean(l))),
  error = list(as_pred = as.character, loss = function(pred, y) as.numeric(pred != as.character(y)), pool = mean))

# Every set with every method on the set's folds (5 folds drawn after
# set.seed(fold_seed) for each; several seeds repeat the CV on new folds),
# scored by one of `scoring`; the results, one row per (fold seed, set,
# method), also saved with the session to `rds`.
run_panel <- function(sets, methods, score, rds, fold_seeds = 1L) {
  start <- proc.time()
  res <- list()
  for (seed in fold_seeds) for (s in names(sets)) {
    d <- sets[[s]]$data
    set.seed(seed); fold <- sample(rep(1:5, length.out = nrow(d)))
    for (m in names(methods)) {
      r <- run_cv(d, sets[[s]]$formula, fold, methods[[m]], score)
      res[[length(res) + 1L]] <- cbind(data.frame(fold_seed = seed, set = s, n = nrow(d), method = m), r)
      cat(sprintf("%s%-12s %-16s %8.4f  %6.2f s/fit%s\n", if (length(fold_seeds) > 1L) paste0(seed, " ") else "",
                  s, m, r$score, r$cpu, if (is.na(r$problem)) "" else paste0("  ", r$problem)), file = stderr())
    }
  }
  res <- do.call(rbind, res)
  elapsed <- (proc.time() - start)[["elapsed"]]
  saveRDS(list(results = res, sets = names(sets), methods = names(methods), elapsed = elapsed,
               session = sessionInfo()), rds)
  attr(res, "elapsed") <- elapsed
  res
}

# One row per (set, method): the mean over fold draws of the score(s), se,
# the kept vectors and the CPU time (a problem in any draw is kept); with
# one draw, the results as they are.
average_draws <- function(res) {
  if (length(unique(res$fold_seed)) == 1L) return(res)
  keys <- unique(res[c("set", "method")])
  rows <- lapply(seq_len(nrow(keys)), function(i) {
    r <- res[res$set == keys$set[i] & res$method == keys$method[i], ]
    out <- r[1L, ]
    for (v in setdiff(names(r)[vapply(r, is.numeric, NA)], c("fold_seed", "n"))) out[[v]] <- mean(r[[v]])  # score, se, vectors, cpu, any named scores
    out$problem <- if (all(is.na(r$problem))) NA_character_ else paste(stats::na.omit(r$problem), collapse = "; ")
    out$warnings <- I(list(unique(unlist(r$warnings))))
    out
  })
  out <- do.call(rbind, rows)
  attr(out, "elapsed") <- attr(res, "elapsed")
  out
}

# A markdown table, one row per set and one column per method, of
# value(result row); `extra` adds named columns after n (e.g. classes).
table_md <- function(res, sets, methods, title, value, extra = list()) {
  extra_cells <- function(cells) if (length(extra)) paste0(cells, " | ", collapse = "") else ""
  cat("\n", title, "\n\n| set | n | ", extra_cells(names(extra)), paste(names(methods), collapse = " | "),
      " |\n|---|---:|", strrep("---:|", length(extra) + length(methods)), "\n", sep = "")
  for (s in names(sets))
    cat("| ", s, " | ", nrow(sets[[s]]$data), " | ", extra_cells(vapply(extra, function(f) format(f(s)), "")),
        paste(vapply(names(methods), function(m) value(res[res$set == s & res$method == m, ]), ""), collapse = " | "),
        " |\n", sep = "")
}

# The score table: score +- se (mean kept vectors), the best per set in bold.
score_cell <- function(res) {
  best <- tapply(res$score, res$set, function(x) if (all(is.na(x))) NA else min(x, na.rm = TRUE))
  function(r) {
    if (!is.na(r$problem)) return("—")
    x <- sprintf("%.3f ± %.3f", r$score, r$se)
    if (r$score == best[[r$set]]) x <- paste0("**", x, "**")
    if (is.na(r$vectors)) x else sprintf("%s (%.0f)", x, r$vectors)
  }
}

# Every warning and problem, per set and method, and the total time.
print_warnings <- function(res) {
  cat("\nWarnings and problems (unique messages per set and method):\n")
  if (!any(!is.na(res$problem) | lengths(res$warnings) > 0)) cat("none\n")
  for (i in seq_len(nrow(res))) {
    msgs <- c(if (!is.na(res$problem[i])) paste("PROBLEM:", res$problem[i]), res$warnings[[i]])
    if (length(msgs)) cat(sprintf("- %s / %s: %s\n", res$set[i], res$method[i], paste(msgs, collapse = "\n    ")))
  }
  cat(sprintf("\nTotal elapsed %.0f s.\n", attr(res, "elapsed")))
}
