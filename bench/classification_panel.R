# Benchmark panel for kernel classification: 5-fold CV of sparsebayes' rvm()
# (median-heuristic width, and one width per input learned with
# kernel_gaussian("learn")) against e1071::svm and ranger, all at their
# defaults, on Sonar, Ionosphere, BreastCancer (2 classes), Glass (6) and
# Vehicle (4), the sets of the issue "Kernels learned from the data", then
# 8 sets no issue names (Pima, iris, crabs, cats, HouseVotes84, Zoo, Vowel,
# synth: 2 to 11 classes, 101 to 1250 rows). Per set and method: test error rate pooled over the 5
# held-out folds +- its standard error (sd of the per-fold error rates /
# sqrt(5)), the mean number of kept basis functions (relevance vectors,
# summed over the one-against-rest models of a multiclass fit; support
# vectors), the mean CPU time (user + system) per fit, fit + predict, and
# every warning a user would see. Same folds for every method. Then per set:
# is rvm_learn's error within one se of rvm's (err(rvm_learn) <= err(rvm) +
# se(rvm)) and of svm's? Raw results: bench/classification_panel.rds.
# Usage: Rscript bench/classification_panel.R [sets] [methods]
#   optional comma-separated filters, e.g.
#   Rscript bench/classification_panel.R Sonar,Glass rvm,svm
# Run from the package root; a method whose fit takes more than 60 s is
# skipped for the remaining folds of that set.
source("bench/panel.R")  # the harness, packages and data sets shared by the panels

# ---- data sets (bench/sets.R) ---------------------------------------------
sets <- c(classification_sets(), classification_broad_sets())

# ---- methods: function(formula, train) -> fit whose predict(fit, newdata) gives classes
# rvm's predict() gives the class (a factor) by default for binomial and
# multiclass fits, as svm's does; ranger_fit() (bench/panel.R) gives ranger's classes.
methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

# ---- the panel (bench/panel.R) --------------------------------------------
sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]
res <- run_panel(sets, methods, scoring$error, rds = "bench/classification_panel.rds")
res$error <- res$score

# ---- tables --------------------------------------------------------------
classes <- list(classes = function(s) nlevels(model.response(model.frame(sets[[s]]$formula, sets[[s]]$data))))
table_md(res, sets, methods, "Test error rate, pooled over 5 folds, +- se over folds (mean kept vectors); best per set in bold:",
         score_cell(res), classes)
table_md(res, sets, methods, "CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu), classes)

# Is rvm_learn within one se of rvm (heuristic width) and of svm?
if ("rvm_learn" %in% names(methods) && any(c("rvm", "svm") %in% names(methods))) {
  others <- intersect(c("rvm", "svm"), names(methods))
  get <- function(s, m, what) { r <- res[res$set == s & res$method == m, ]; if (is.na(r$problem)) r[[what]] else NA }
  cat("\nIs rvm_learn within one se of ", paste(others, collapse = " / "),
      "? err(rvm_learn) <= err(other) + se(other):\n\n| set | rvm_learn | ",
      paste(sprintf("%s err + se | within", others), collapse = " | "), " |\n|---|---:|",
      strrep("---:|:---:|", length(others)), "\n", sep = "")
  for (s in names(sets)) {
    e <- get(s, "rvm_learn", "error")
    cat(sprintf("| %s | %s | %s |\n", s, if (is.na(e)) "—" else sprintf("%.3f", e),
                paste(vapply(others, function(m) {
                  b <- get(s, m, "error") + get(s, m, "se")
                  if (is.na(b)) return("— | —")
                  sprintf("%.3f | %s", b, if (is.na(e)) "—" else if (e <= b + 1e-12) "yes" else "no")
                }, ""), collapse = " | ")))
  }
}

print_warnings(res)
