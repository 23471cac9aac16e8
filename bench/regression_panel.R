# Benchmark panel for kernel regression: 5-fold CV of sparsebayes' rvm()
# (median-heuristic width, and width by inner 5-fold cross_validate()) and
# sparse_gp() against e1071::svm and ranger, all at their defaults, on
# Boston, Ozone, Servo, mcycle and Friedman 1-3. Per set and method: test
# RMSE pooled over the 5 held-out folds +- its standard error (sd of the
# per-fold RMSEs / sqrt(5)), the mean number of kept basis functions
# (relevance vectors, inducing points, support vectors), the mean CPU time
# (user + system) per fit, fit + predict, and every warning a user would
# see. Same folds for every method. Raw results: bench/regression_panel.rds.
# Usage: Rscript bench/regression_panel.R [sets] [methods]
#   optional comma-separated filters, e.g.
#   Rscript bench/regression_panel.R Servo,mcycle rvm,svm
# Run from the package root; a method whose fit takes more than 60 s is
# skipped for the remaining folds of that set.
suppressPackageStartupMessages({
  library(sparsebayes)
  library(mlbench)
  library(e1071)
  library(ranger)
})
time_limit <- 60  # seconds (elapsed) per fit before a method is skipped on a set

# ---- data sets: a data frame and a formula each --------------------------
data(BostonHousing, Ozone, Servo, package = "mlbench", envir = environment())
ozone <- na.omit(Ozone)
ozone[] <- lapply(ozone, function(v) if (is.factor(v)) as.numeric(as.character(v)) else v)  # month, day, weekday
servo <- Servo
servo[c("Pgain", "Vgain")] <- lapply(servo[c("Pgain", "Vgain")], function(v) as.numeric(as.character(v)))  # Motor, Screw: factors
friedman <- function(gen, ...) { set.seed(1); p <- gen(n = 300, ...); data.frame(x = p$x, y = p$y) }  # x.1, .., y
sets <- list(
  Boston = list(data = BostonHousing, formula = medv ~ .),
  Ozone = list(data = ozone, formula = V4 ~ .),
  Servo = list(data = servo, formula = Class ~ .),
  mcycle = list(data = MASS::mcycle, formula = accel ~ times),
  Friedman1 = list(data = friedman(mlbench.friedman1, sd = 1), formula = y ~ .),
  Friedman2 = list(data = friedman(mlbench.friedman2, sd = 125), formula = y ~ .),
  Friedman3 = list(data = friedman(mlbench.friedman3, sd = 0.1), formula = y ~ .))

# ---- methods: function(formula, train) -> fit with predict(fit, newdata) --
# rvm with its gaussian width chosen by inner 5-fold CV on the training fold
# over the median-heuristic width (of the default fit) times 2^(-3:3).
rvm_cv <- function(formula, train, multiples = 2^(-3:3)) {
  fit <- rvm(formula, data = train)
  grid <- list(kernel = lapply(fit$kernel$width * multiples, kernel_gaussian))
  cross_validate(fit, folds = 5, seed = 1, grid = grid)$fit  # refitted on the whole fold at the best width
}
# ranger predicts a list; a small wrapper class gives numeric predictions.
ranger_fit <- function(formula, train) structure(list(fit = ranger(formula, data = train)), class = "panel_ranger")
predict.panel_ranger <- function(object, newdata, ...) predict(object$fit, newdata)$predictions

methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_cv = rvm_cv,
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),
  sparse_gp = function(f, d) sparse_gp(f, data = d, seed = 1),
  sparse_gp_learn = function(f, d) sparse_gp(f, data = d, kernel = kernel_gaussian("learn"), seed = 1),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

# Kept basis functions of a fit (NA where the notion does not apply).
n_vectors <- function(fit) {
  if (inherits(fit, "sb_rvm")) length(fit$relevance_index)
  else if (inherits(fit, "sb_sparse_gp")) fit$m
  else if (inherits(fit, "svm")) fit$tot.nSV
  else NA_real_
}

# ---- command-line filters ------------------------------------------------
args <- commandArgs(TRUE)
choose <- function(all, i, what) {
  if (length(args) < i || !nzchar(args[i])) return(all)
  want <- strsplit(args[i], ",", fixed = TRUE)[[1L]]
  if (length(bad <- setdiff(want, all))) stop(sprintf("unknown %s: %s (have %s)", what,
    paste(bad, collapse = ", "), paste(all, collapse = ", ")), call. = FALSE)
  want
}
sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]

# ---- the panel -----------------------------------------------------------
# One (set, method): fit on 4 folds, predict the 5th; warnings are recorded
# (unique) and muffled; an error or a fit over the time limit stops the
# method on this set and is reported instead of its numbers.
run_cv <- function(d, f, fold, fitter) {
  sq <- numeric(0); fold_rmse <- vec <- cpu <- rep(NA_real_, 5); warn <- character(); problem <- NA_character_
  for (k in 1:5) {
    train <- d[fold != k, ]; test <- d[fold == k, ]
    y <- model.response(model.frame(f, test))
    set.seed(k)  # methods that draw random numbers (ranger) do not depend on which others ran
    t0 <- proc.time()
    out <- tryCatch(withCallingHandlers({
      fit <- fitter(f, train)
      list(fit = fit, pred = as.numeric(predict(fit, test)))
    }, warning = function(w) { warn <<- union(warn, conditionMessage(w)); invokeRestart("muffleWarning") }),
    error = function(e) conditionMessage(e))
    t <- proc.time() - t0
    if (is.character(out)) { problem <- sprintf("error in fold %d: %s", k, out); break }
    cpu[k] <- t[["user.self"]] + t[["sys.self"]] + t[["user.child"]] + t[["sys.child"]]
    sq <- c(sq, (out$pred - y)^2); fold_rmse[k] <- sqrt(mean((out$pred - y)^2)); vec[k] <- n_vectors(out$fit)
    if (t[["elapsed"]] > time_limit && k < 5) {
      problem <- sprintf("skipped after fold %d: the fit took %.0f s (> %d s)", k, t[["elapsed"]], time_limit); break
    }
  }
  done <- !is.na(problem)
  data.frame(rmse = if (done) NA else sqrt(mean(sq)), se = if (done) NA else sd(fold_rmse) / sqrt(5),
             vectors = mean(vec), cpu = mean(cpu, na.rm = TRUE), problem = problem,
             warnings = I(list(warn)), fold_rmse = I(list(fold_rmse)))
}

start <- proc.time()
res <- list()
for (s in names(sets)) {
  d <- sets[[s]]$data
  set.seed(1); fold <- sample(rep(1:5, length.out = nrow(d)))
  for (m in names(methods)) {
    r <- run_cv(d, sets[[s]]$formula, fold, methods[[m]])
    res[[length(res) + 1L]] <- cbind(data.frame(set = s, n = nrow(d), method = m), r)
    cat(sprintf("%-9s %-9s rmse %8.4f  %6.2f s/fit%s\n", s, m, r$rmse, r$cpu,
                if (is.na(r$problem)) "" else paste0("  ", r$problem)), file = stderr())
  }
}
res <- do.call(rbind, res)
elapsed <- (proc.time() - start)[["elapsed"]]
saveRDS(list(results = res, sets = names(sets), methods = names(methods), elapsed = elapsed,
             session = sessionInfo()), "bench/regression_panel.rds")

# ---- tables --------------------------------------------------------------
cell <- function(s, m, value) value(res[res$set == s & res$method == m, ])
table_md <- function(title, value) {
  cat("\n", title, "\n\n| set | n | ", paste(names(methods), collapse = " | "), " |\n|---|---:|",
      strrep("---:|", length(methods)), "\n", sep = "")
  for (s in names(sets))
    cat("| ", s, " | ", nrow(sets[[s]]$data), " | ",
        paste(vapply(names(methods), function(m) cell(s, m, value), ""), collapse = " | "), " |\n", sep = "")
}
best <- tapply(res$rmse, res$set, min, na.rm = TRUE)
table_md("Test RMSE, pooled over 5 folds, +- se over folds (mean kept vectors); best per set in bold:", function(r) {
  if (!is.na(r$problem)) return("—")
  x <- sprintf("%.3f ± %.3f", r$rmse, r$se)
  if (r$rmse == best[[r$set]]) x <- paste0("**", x, "**")
  if (is.na(r$vectors)) x else sprintf("%s (%.0f)", x, r$vectors)
})
table_md("CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu))

# Mean rank of the RMSE within each set, and RMSE / best RMSE per set.
res$rank <- ave(res$rmse, res$set, FUN = function(x) rank(x, na.last = "keep"))
res$ratio <- res$rmse / best[res$set]
cat("\nSummary: mean rank of the RMSE within a set (1 = best); RMSE / best RMSE on each set and its max:\n\n",
    "| method | mean rank | ", paste(names(sets), collapse = " | "), " | max |\n|---|---:|",
    strrep("---:|", length(sets) + 1L), "\n", sep = "")
for (m in names(methods)) {
  r <- res[res$method == m, ]
  cat(sprintf("| %s | %.2f | %s | %.3f |\n", m, mean(r$rank, na.rm = TRUE),
              paste(sprintf("%.3f", r$ratio[match(names(sets), r$set)]), collapse = " | "), max(r$ratio, na.rm = TRUE)))
}

cat("\nWarnings and problems (unique messages per set and method):\n")
if (!any(!is.na(res$problem) | lengths(res$warnings) > 0)) cat("none\n")
for (i in seq_len(nrow(res))) {
  msgs <- c(if (!is.na(res$problem[i])) paste("PROBLEM:", res$problem[i]), res$warnings[[i]])
  if (length(msgs)) cat(sprintf("- %s / %s: %s\n", res$set[i], res$method[i], paste(msgs, collapse = "\n    ")))
}
cat(sprintf("\nTotal elapsed %.0f s.\n", elapsed))
