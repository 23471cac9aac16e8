# Alternatives to the default kernel widths, measured against the defaults
# by repeated 5-fold CV on the 21 regression sets of bench/regression_panel.R
# and bench/regression_broad.R, or the 13 classification sets of
# bench/classification_panel.R (issue "Kernels learned from the data",
# third pass). Every method sees the same folds; several fold draws average out the luck of one. Per method: the
# ratio of its test RMSE (error rate) to the first method's on each set,
# as a geometric mean over fold draws, the sets where it is better or worse
# by more than 1%, and the mean CPU seconds per fit.
# "computer": six deterministic simulators (bench/sets.R), where responses have no noise.
# Usage: Rscript bench/width_alternatives.R regression|computer|classification [fold seeds] [sets] [methods]
#   e.g. Rscript bench/width_alternatives.R regression 1,2,3 Servo,trees rvm,rvm_sqrt2
source("bench/panel.R")  # the harness, packages and data sets shared by the panels

args <- commandArgs(TRUE)
task <- match.arg(args[1L], c("regression", "computer", "classification"))
seeds <- if (length(args) >= 2L) as.integer(strsplit(args[2L], ",")[[1L]]) else 1:3
pick <- function(all, i) if (length(args) >= i && nzchar(args[i])) all[strsplit(args[i], ",")[[1L]]] else all

# ---- regression: the RVM's basis widths and the sparse GP's stopping rule --
# The widths the exact GP learns give the GP's covariance; an RVM's basis
# k(x, x_i) of width w implies (with dense, equal weights) a covariance of
# width sqrt(2) w. So the basis matching the GP has widths w / sqrt(2).
# rvm_sqrt2: the RVM evidence chooses between the default fit and the
#   basis of widths w / sqrt(2) (noise estimated, or fixed at the GP's);
# rvm_loo: the same three fits, chosen by the leave-one-out residuals;
# rvm_dictionary: one RVM on both bases (the evidence picks each vector's);
# rvm_rows200: widths learned on at most 200 rows instead of 300;
# rvm_factr1e10, sparse_gp_learn1e10: the widths learned to the former
#   stopping rule (learn_factr, R/learn_widths.R);
# rvm_noise_move0: the fast solver's former noise schedule (every noise
#   move above min_delta_log_beta recomputes S and Q; rvm_control());
# rvm_nojoin: every candidate fit run to its end (no start joins another's
#   path: join_tolerance, R/learn_widths.R);
# sparse_gp_factr1e8, 1e10, 1e11: fixed stopping rules of sparse_gp()'s own
#   optimisation (the default: 1e11 on noisy responses, 1e10 on others);
# sparse_gp_all_inducing, sparse_gp_fitc_all_inducing: every inducing
#   point kept (inducing_tol = 0), against the default that drops those
#   K_uu cannot tell apart (sparse_gp_fitc: FITC at its defaults);
# rvm_vfe, rvm_vfe_narrow_fixed: the RVM on the sparse GP's widths.
narrower_fits <- function(f, d, control = rvm_control()) {
  fit <- rvm(f, data = d, control = control)
  if (!identical(fit$kernel$width_rule, "learn")) return(list(fit))
  narrow <- kernel_gaussian(width = fit$kernel$width / sqrt(2))
  fixed <- utils::modifyList(control, list(noise_variance = fit$kernel$learned$noise_variance))
  others <- list(function() rvm(f, data = d, kernel = narrow, control = control),
                 function() rvm(f, data = d, kernel = narrow, control = fixed))
  c(list(fit), Filter(Negate(is.null), lapply(others, function(g) tryCatch(g(), error = function(e) NULL))))
}
loo_mse <- function(fit) mean(residuals(fit, type = "loo")^2)
# (rvm_sqrt2, rvm_loo, rvm_dictionary were measured at c6e8d40; the default
# rvm() has since taken the narrow basis on responses without noise.)
# the fast solver's alignment test (SparseBayes: a candidate within
# 1 - alignment_max of an existing vector's direction is never added) off
no_alignment <- rvm_control(alignment_test = FALSE)
regression_methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_sqrt2 = function(f, d) { fits <- narrower_fits(f, d); fits[[which.max(vapply(fits, `[[`, 0, "logLik"))]] },
  rvm_loo = function(f, d) { fits <- narrower_fits(f, d); fits[[which.min(vapply(fits, loo_mse, 0))]] },
  rvm_noalign = function(f, d) rvm(f, data = d, control = no_alignment),
  rvm_align6 = function(f, d) rvm(f, data = d, control = rvm_control(alignment_max = 1 - 1e-6)),
  rvm_dictionary = function(f, d) {
    fit <- rvm(f, data = d)
    if (!identical(fit$kernel$width_rule, "learn")) return(fit)
    rvm(f, data = d, kernel = list(kernel_gaussian(width = fit$kernel$width),
                                   kernel_gaussian(width = fit$kernel$width / sqrt(2))))
  },
  rvm_rows200 = with_constant("learn_max_rows", 200L, function(f, d) rvm(f, data = d)),
  rvm_rows250 = with_constant("learn_max_rows", 250L, function(f, d) rvm(f, data = d)),
  rvm_dla0.01 = function(f, d) rvm(f, data = d, control = rvm_control(min_delta_log_alpha = 0.01)),
  rvm_dla0.1 = function(f, d) rvm(f, data = d, control = rvm_control(min_delta_log_alpha = 0.1)),
  rvm_vfe = function(f, d) {  # the RVM on the sparse GP's widths (noise estimated)
    g <- sparse_gp(f, data = d, seed = 1)
    rvm(f, data = d, kernel = kernel_gaussian(width = g$kernel$width))
  },
  rvm_vfe_narrow_fixed = function(f, d) {  # on widths / sqrt(2), the noise fixed at the sparse GP's
    g <- sparse_gp(f, data = d, seed = 1)
    rvm(f, data = d, kernel = kernel_gaussian(width = g$kernel$width / sqrt(2)),
        control = rvm_control(noise_variance = g$noise_variance))
  },
  rvm_factr1e10 = with_constant("learn_factr", 1e10, function(f, d) rvm(f, data = d)),
  rvm_noise_move0 = function(f, d) rvm(f, data = d, control = rvm_control(min_noise_move = 0)),
  rvm_nojoin = with_constant("join_tolerance", -1, with_constant("join_tolerance_quiet", -1, function(f, d) rvm(f, data = d))),
  sparse_gp = function(f, d) sparse_gp(f, data = d, seed = 1),
  sparse_gp_factr1e8 = function(f, d) sparse_gp(f, data = d, seed = 1, control = sparse_gp_control(factr = 1e8)),
  sparse_gp_learn1e10 = with_constant("learn_factr", 1e10, function(f, d) sparse_gp(f, data = d, seed = 1)),
  sparse_gp_factr1e10 = function(f, d) sparse_gp(f, data = d, seed = 1, control = sparse_gp_control(factr = 1e10)),
  sparse_gp_factr1e11 = function(f, d) sparse_gp(f, data = d, seed = 1, control = sparse_gp_control(factr = 1e11)),
  sparse_gp_all_inducing = function(f, d) sparse_gp(f, data = d, seed = 1, control = sparse_gp_control(inducing_tol = 0)),
  sparse_gp_fitc = function(f, d) sparse_gp(f, data = d, seed = 1, approx = "FITC"),
  sparse_gp_fitc_all_inducing = function(f, d) sparse_gp(f, data = d, seed = 1, approx = "FITC",
                                                         control = sparse_gp_control(inducing_tol = 0)),
  svm = function(f, d) svm(f, data = d),
  ranger = ranger_fit)

# ---- classification: the median heuristic and what might replace it --------
heuristic_times <- function(m) function(f, d) {
  h <- suppressWarnings(rvm(f, data = d, control = rvm_control(max_iterations = 1)))$kernel$width
  rvm(f, data = d, kernel = kernel_gaussian(h * m))
}
classification_methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_x1.4 = heuristic_times(sqrt(2)),
  rvm_x2 = heuristic_times(2),
  rvm_cv = function(f, d, multiples = 2^c(-1, -0.5, 0, 0.5, 1)) {
    fit <- rvm(f, data = d)
    cross_validate(fit, folds = 5, seed = 1, grid = list(kernel = lapply(fit$kernel$width * multiples, kernel_gaussian)))$fit
  },
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),
  rvm_learn_heuristic = function(f, d) {  # one RVM on the learned kernel and the heuristic one
    fit <- rvm(f, data = d, kernel = kernel_gaussian("learn"))
    k <- if (inherits(fit, "sb_rvm_multiclass")) fit$models[[1L]]$kernel else fit$kernel
    if (!identical(k$width_rule, "learn")) return(fit)
    rvm(f, data = d, kernel = list(kernel_gaussian(width = k$width), kernel_gaussian("median")))
  })

panel <- switch(task,
  regression = list(sets = c(regression_sets(), regression_broad_sets()), methods = regression_methods,
                    score = scoring$rmse),
  computer = list(sets = computer_experiment_sets(), methods = regression_methods, score = scoring$rmse),
  classification = list(sets = c(classification_sets(), classification_broad_sets()), methods = classification_methods,
                        score = scoring$error))
sets <- pick(panel$sets, 3L)
methods <- pick(panel$methods, 4L)
res <- run_panel(sets, methods, panel$score, rds = sprintf("bench/width_alternatives_%s.rds", task), fold_seeds = seeds)

# ---- the summary: one row per set, one column per method ----------------
base <- names(methods)[1L]
others <- names(methods)[-1L]
b <- res[res$method == base, ]
ratios <- sapply(others, function(m) {
  r <- res[res$method == m, ]
  ratio <- r$score / b$score[match(paste(r$fold_seed, r$set), paste(b$fold_seed, b$set))]
  tapply(log(ratio), factor(r$set, names(sets)), function(x) exp(mean(x, na.rm = TRUE)))
}, simplify = "matrix")
ratios <- matrix(ratios, nrow = length(sets), dimnames = list(names(sets), others))
cpu <- sapply(names(methods), function(m) { r <- res[res$method == m, ]; tapply(r$cpu, factor(r$set, names(sets)), mean) })
cpu <- matrix(cpu, nrow = length(sets), dimnames = list(names(sets), names(methods)))
cat(sprintf("\nScore / %s's score, geometric mean over the fold draws %s; then %s's score and each method's CPU s per fit:\n\n",
            base, paste(seeds, collapse = ", "), base),
    "| set | ", paste(others, collapse = " | "), " | ", base, " | CPU ", paste(names(methods), collapse = " / "),
    " |\n|---|", strrep("---:|", length(others) + 2L), "\n", sep = "")
base_score <- tapply(b$score, factor(b$set, names(sets)), mean)
for (s in names(sets))
  cat(sprintf("| %s | %s | %.4g | %s |\n", s, paste(sprintf("%.3f", ratios[s, ]), collapse = " | "), base_score[[s]],
              paste(sprintf("%.3f", cpu[s, ]), collapse = " / ")))
geo <- apply(ratios, 2L, function(x) exp(mean(log(x), na.rm = TRUE)))
cat(sprintf("| **geometric mean** | %s | | |\n| better / worse by > 1%% | %s | | |\n", paste(sprintf("%.3f", geo), collapse = " | "),
            paste(sprintf("%d / %d", colSums(ratios < 0.99, na.rm = TRUE), colSums(ratios > 1.01, na.rm = TRUE)), collapse = " | ")))
print_warnings(res)
