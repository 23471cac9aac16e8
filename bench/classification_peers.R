# Benchmark panel for class probabilities: 5-fold CV of sparsebayes' rvm()
# at its defaults against e1071::svm (Platt probabilities), ranger
# (probability forest) and glmnet (penalised logistic / multinomial
# regression, lambda.1se), on Sonar, Ionosphere, BreastCancer, Pima, crabs
# (2 classes), iris (3), Glass (6), Vehicle (4), Zoo (7) and Vowel (11).
# Same folds for every
# method. Per set and method, pooled over the 5 held-out folds: the error
# rate (argmax, ties to the first level) and the log loss (p clipped to
# [1e-15, 1]), each +- its standard error (sd over folds / sqrt(5)), the
# Brier score, the AUC of the second level's probability (2-class sets),
# the mean number of kept vectors (relevance / support vectors), the mean
# CPU time (user + system) per fit, fit + predict, and every warning. Then:
# each method's mean error rank over the sets, log loss / best log loss per
# set, is rvm's within 10% of the best, and rvm's vectors against svm's.
# Raw results: bench/classification_peers.rds.
# Usage: Rscript bench/classification_peers.R [sets] [methods] [fold seeds]
#   optional comma-separated filters, e.g.
#   Rscript bench/classification_peers.R iris,Sonar rvm,svm
#   and fold draws (default 1): with several, every number is the mean over
#   the draws, e.g. Rscript bench/classification_peers.R "" "" 1,2,3
# Run from the package root; a method whose fit takes more than 60 s is
# skipped for the remaining folds of that set.
source("bench/panel.R")  # the harness, packages and data sets shared by the panels

# ---- data sets (bench/sets.R) ---------------------------------------------
sets <- c(classification_sets(), classification_broad_sets())
sets <- sets[c("Sonar", "Ionosphere", "BreastCancer", "Pima", "crabs", "iris", "Glass", "Vehicle", "Zoo", "Vowel")]

# ---- methods: function(formula, train) -> fit; probs(fit, newdata) gives
# a probability matrix with one named column per class --------------------
# glmnet has no formula interface: keep the training terms and factor levels
# so that the test matrix has the training columns.
glmnet_fit <- function(f, d) {
  mf <- model.frame(f, d); tt <- terms(mf); y <- model.response(mf)
  x <- model.matrix(tt, mf)[, -1L, drop = FALSE]
  fit <- glmnet::cv.glmnet(x, y, family = if (nlevels(y) == 2L) "binomial" else "multinomial")  # folds from run_cv's set.seed(k)
  structure(list(fit = fit, terms = delete.response(tt), xlev = .getXlevels(tt, mf), levels = levels(y)), class = "peer_glmnet")
}

probs <- function(fit, newdata) UseMethod("probs")
probs.default <- function(fit, newdata) predict(fit, newdata, type = "prob")  # rvm() fits, binary or multiclass
probs.peer_integrated <- function(fit, newdata) predict(fit$fit, newdata, type = "prob", probability = "integrated")
# binary RVM with the RVM* augmented latent variance (curvature at the mode as the noise)
probs.peer_aug <- function(fit, newdata) {
  ns <- asNamespace("sparsebayes"); object <- fit$fit
  x <- ns$new_inputs(object, newdata)
  lp <- ns$linear_predictor(object, x, need_var = TRUE)
  o2 <- object; o2$lambda <- ns$sample_noise(object)
  extra <- ns$augmentation_variance(o2, x, lp$Phi)
  p <- plogis(lp$eta / sqrt(1 + pi * (lp$var + extra) / 8))
  `colnames<-`(cbind(1 - p, p), object$levels)
}
probs.svm <- function(fit, newdata) attr(predict(fit, newdata, probability = TRUE), "probabilities")
probs.ranger <- function(fit, newdata) predict(fit, newdata)$predictions
probs.peer_glmnet <- function(fit, newdata) {
  x <- model.matrix(fit$terms, model.frame(fit$terms, newdata, xlev = fit$xlev))[, -1L, drop = FALSE]
  p <- predict(fit$fit, x, s = "lambda.1se", type = "response")
  p <- if (length(fit$levels) == 2L) cbind(1 - p[, 1L], p[, 1L]) else p[, , 1L]
  `colnames<-`(matrix(p, nrow(x)), fit$levels)
}

methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_ovr = function(f, d) rvm(f, data = d, multiclass = "one_vs_rest"),  # the former default of K > 2 classes
  rvm_shared = function(f, d) rvm(f, data = d, multiclass = "multinomial_shared"),  # one precision per column for all classes
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),  # one width per input
  rvm_lin = function(f, d) { w <- rvm(f, data = d); w <- (if (is.null(w$kernel)) w$models[[1L]]$kernel else w$kernel)$width
    rvm(f, data = d, kernel = list(kernel_gaussian(w), kernel_linear())) },
  rvm_aug = function(f, d) structure(list(fit = rvm(f, data = d)), class = "peer_aug"),
  rvm_median = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("median")),  # the default before 2026-11-29
  # the probabilities integrated over the latent posterior (multinomial fits; the default is the mode)
  rvm_integrated = function(f, d) structure(list(fit = rvm(f, data = d)), class = "peer_integrated"),
  rvm_shared_integrated = function(f, d)
    structure(list(fit = rvm(f, data = d, multiclass = "multinomial_shared")), class = "peer_integrated"),
  # one width by the evidence of the RVM itself
  rvm_evidence = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("evidence")),
  svm = function(f, d) svm(f, data = d, probability = TRUE),
  ranger = function(f, d) ranger(f, data = d, probability = TRUE),
  glmnet = glmnet_fit)
# multiples of the median-heuristic width (rvm_median is x1): rvm_x0.5 .. rvm_x4
for (k in c(0.5, 0.71, 1.41, 2, 2.83, 4)) local({
  m <- k
  methods[[paste0("rvm_x", k)]] <<- function(f, d) {
    h <- rvm(f, data = d, kernel = kernel_gaussian("median"))
    rvm(f, data = d, kernel = kernel_gaussian(m * (if (is.null(h$kernel)) h$models[[1L]]$kernel else h$kernel)$width))
  }
})

# ---- scoring: per-row losses, pooled into named scores (run_cv()) ----------
auc <- function(p, pos) {  # Mann-Whitney: P(p of a positive > p of a negative), ties 1/2
  n1 <- sum(pos); n0 <- length(pos) - n1
  if (n1 == 0 || n0 == 0 || anyNA(p)) return(NA_real_)
  (sum(rank(p)[pos]) - n1 * (n1 + 1) / 2) / (n1 * n0)
}
prob_scoring <- list(
  predict = probs, names = c("error", "logloss", "brier", "auc"),
  as_pred = function(p) {  # a vector is the second level's probability; an error here is the method's problem
    p <- if (is.null(dim(p))) cbind(1 - p, p) else as.matrix(p)
    if (anyNA(p) || any(abs(rowSums(p) - 1) > 1e-6)) stop("class probabilities missing or rows not summing to 1")
    p
  },
  loss = function(p, y) {
    lev <- levels(y)
    # columns by name in the response's level order (unnamed: already in it); a class absent from a training fold has p = 0
    if (!is.null(colnames(p))) p <- sapply(lev, function(l) if (l %in% colnames(p)) p[, l] else 0 * p[, 1L])
    p <- matrix(p, ncol = length(lev))
    obs <- outer(as.integer(y), seq_along(lev), "==")
    cbind(err = max.col(p, ties.method = "first") != as.integer(y), logloss = -log(pmax(p[cbind(seq_along(y), as.integer(y))], 1e-15)),
          brier = rowSums((p - obs)^2), p2 = if (length(lev) == 2L) p[, 2L] else NA, pos = as.integer(y) == 2L)
  },
  pool = function(l) c(error = mean(l[, "err"]), logloss = mean(l[, "logloss"]), brier = mean(l[, "brier"]),
                       auc = auc(l[, "p2"], l[, "pos"] == 1)))

# ---- the panel (bench/panel.R) --------------------------------------------
sets <- sets[choose(names(sets), 1L, "set")]
methods <- methods[choose(names(methods), 2L, "method")]
args <- commandArgs(TRUE)
fold_seeds <- if (length(args) >= 3L && nzchar(args[3L])) as.integer(strsplit(args[3L], ",")[[1L]]) else 1L
res <- average_draws(run_panel(sets, methods, prob_scoring, rds = "bench/classification_peers.rds", fold_seeds = fold_seeds))

# ---- tables --------------------------------------------------------------
classes <- list(classes = function(s) nlevels(model.response(model.frame(sets[[s]]$formula, sets[[s]]$data))))
draws <- if (length(fold_seeds) > 1L) sprintf(", means over fold draws %s", paste(fold_seeds, collapse = ", ")) else ""
as_score <- function(v) { r <- res; r$score <- r[[v]]; r$se <- r[[paste0(v, "_se")]]; r$vectors <- NA; r }  # for score_cell()
table_md(res, sets, methods, sprintf("Test error rate, pooled over 5 folds, +- se over folds (mean kept vectors)%s; best per set in bold:", draws),
         score_cell(res), classes)
ll <- as_score("logloss")
table_md(ll, sets, methods, sprintf("Test log loss, pooled over 5 folds, +- se over folds%s; best per set in bold:", draws),
         score_cell(ll), classes)
table_md(res, sets, methods, "AUC of the second level's probability (2-class sets) / Brier score:",
         function(r) if (!is.na(r$problem)) "—" else sprintf("%s / %.3f", if (is.na(r$auc)) "—" else sprintf("%.3f", r$auc), r$brier), classes)
table_md(res, sets, methods, "CPU seconds (user + system) per fit, fit + predict, mean over folds:",
         function(r) sprintf("%.3f", r$cpu), classes)

# Mean error rank within a set (ties averaged), log loss / best log loss per set.
res$rank <- ave(res$score, res$set, FUN = function(x) rank(x, na.last = "keep"))
res$ratio <- res$logloss / ave(res$logloss, res$set, FUN = function(x) if (all(is.na(x))) NA else min(x, na.rm = TRUE))
value <- function(s, m, v) { r <- res[res$set == s & res$method == m, ]; if (nrow(r)) r[[v]] else NA }
num <- function(x, fmt = "%.3f") ifelse(is.na(x), "—", sprintf(fmt, x))
cat("\nSummary: log loss / best log loss per set; is rvm's within 10% of the best; rvm's vectors against svm's ",
    "support vectors; last row, each method's mean error rank over the sets (1 = best):\n\n| set | ",
    paste(names(methods), collapse = " | "), " | rvm within 10% | rvm vectors | svm SVs |\n|---|",
    strrep("---:|", length(methods)), ":---:|---:|---:|\n", sep = "")
for (s in names(sets)) {
  rr <- value(s, "rvm", "ratio")
  cat(sprintf("| %s | %s | %s | %s | %s |\n", s, paste(num(vapply(names(methods), value, 0, s = s, v = "ratio")), collapse = " | "),
              if (is.na(rr)) "—" else if (rr <= 1.1) "yes" else "no", num(value(s, "rvm", "vectors"), "%.0f"), num(value(s, "svm", "vectors"), "%.0f")))
}
cat(sprintf("| mean error rank | %s | | | |\n", paste(num(vapply(names(methods), function(m)
  mean(res$rank[res$method == m], na.rm = TRUE), 0), "%.2f"), collapse = " | ")))

print_warnings(res)
