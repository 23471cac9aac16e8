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
probs.peer_offset <- function(fit, newdata) predict(fit$fit, cbind(newdata, .so = fit$o), type = "prob")
probs.svm <- function(fit, newdata) attr(predict(fit, newdata, probability = TRUE), "probabilities")
probs.ranger <- function(fit, newdata) predict(fit, newdata)$predictions
probs.peer_glmnet <- function(fit, newdata) {
  x <- model.matrix(fit$terms, model.frame(fit$terms, newdata, xlev = fit$xlev))[, -1L, drop = FALSE]
  p <- predict(fit$fit, x, s = "lambda.1se", type = "response")
  p <- if (length(fit$levels) == 2L) cbind(1 - p[, 1L], p[, 1L]) else p[, , 1L]
  `colnames<-`(matrix(p, nrow(x)), fit$levels)
}

# ---- variants measured for issue 57's item 2 (two classes): EP on the
# fitted basis, the full Laplace GP classifier, a temperature by LOO -------
# Gauss-Hermite rule for E[g(z)], z ~ N(0, 1) (Golub-Welsch).
gh <- local({ n <- 40; b <- sqrt(seq_len(n - 1)); e <- eigen(diag(0, n) + `[<-`(matrix(0, n, n), cbind(c(1:(n - 1), 2:n), c(2:n, 1:(n - 1))), c(b, b)), symmetric = TRUE)
  list(nodes = e$values, weights = e$vectors[1, ]^2) })
logistic_gauss <- function(m, v) drop(plogis(outer(m, rep(1, length(gh$nodes))) + outer(sqrt(pmax(v, 0)), gh$nodes)) %*% gh$weights)
scaled_x <- function(object, d) { ns <- asNamespace("sparsebayes"); ns$apply_scaling(ns$new_inputs(object, d), object$scaling) }
# Expectation propagation for the weights of the fitted relevance vectors
# (logistic sites, moments by quadrature, damped parallel updates), at the
# fit's precisions: the RVM's basis and alphas, EP in place of Laplace.
ep_weights <- function(Phi, y, A) {  # y in {-1, 1}
  n <- nrow(Phi); tau <- nu <- rep(0, n)
  post <- function() { S <- chol2inv(chol(diag(A, length(A)) + crossprod(Phi * sqrt(tau)))); list(S = S, mu = drop(S %*% crossprod(Phi, nu))) }
  for (it in 1:100) {
    q <- post(); m <- drop(Phi %*% q$mu); v <- rowSums((Phi %*% q$S) * Phi)
    tc <- 1 / v - tau; nc <- m / v - nu; sc <- 1 / tc; mc <- nc * sc
    F <- outer(mc, rep(1, length(gh$nodes))) + outer(sqrt(pmax(sc, 0)), gh$nodes); L <- plogis(y * F)
    Z <- pmax(drop(L %*% gh$weights), 1e-300); m1 <- drop((L * F) %*% gh$weights) / Z; vh <- pmax(drop((L * F^2) %*% gh$weights) / Z - m1^2, 1e-12)
    tn <- pmax(1 / vh - tc, 0); nn <- m1 / vh - nc; ok <- tc > 0 & is.finite(tn) & is.finite(nn)
    new_tau <- tau; new_nu <- nu; new_tau[ok] <- (tau[ok] + tn[ok]) / 2; new_nu[ok] <- (nu[ok] + nn[ok]) / 2
    done <- max(abs(new_tau - tau), abs(new_nu - nu)) < 1e-6; tau <- new_tau; nu <- new_nu
    if (done) break
  }
  post()
}
probs.peer_ep <- function(fit, newdata) {
  o <- fit$fit; ns <- asNamespace("sparsebayes")
  Phi <- ns$relevant_design(o, ns$new_inputs(o, newdata))
  p <- logistic_gauss(drop(Phi %*% fit$q$mu), rowSums((Phi %*% fit$q$S) * Phi))
  `colnames<-`(cbind(1 - p, p), o$levels)
}
# The full GP classifier (Rasmussen and Williams, Algorithms 3.1 and 3.2) at
# the RVM's learned width and latent variance, a constant prior term for the
# bias; probit-approximated predictive probabilities.
gpc_fit <- function(f, d) {
  o <- rvm(f, data = d); y <- as.integer(model.response(model.frame(f, d))) == 2L
  X <- scaled_x(o, d); r <- o$kernel$width; v <- o$kernel$learned$variance
  kern <- function(a, b) v * exp(-pmax(outer(rowSums(a^2), rowSums(b^2), "+") - 2 * tcrossprod(a, b), 0) / r^2) + 1
  K <- kern(X, X); n <- nrow(X); fl <- rep(0, n)
  for (it in 1:100) {
    p <- plogis(fl); sW <- sqrt(p * (1 - p)); R <- chol(diag(n) + sW * t(sW * K))
    b <- sW^2 * fl + (y - p); a <- b - sW * backsolve(R, forwardsolve(t(R), sW * drop(K %*% b)))
    fn <- drop(K %*% a); if (max(abs(fn - fl)) < 1e-9) break; fl <- fn
  }
  p <- plogis(fl); sW <- sqrt(p * (1 - p))
  structure(list(X = X, g = y - p, sW = sW, R = chol(diag(n) + sW * t(sW * K)), kern = kern, fit = o, prior_var = v + 1), class = "peer_gpc")
}
probs.peer_gpc <- function(fit, newdata) {
  Ks <- fit$kern(scaled_x(fit$fit, newdata), fit$X)
  m <- drop(Ks %*% fit$g); s2 <- fit$prior_var - colSums(forwardsolve(t(fit$R), fit$sW * t(Ks))^2)
  p <- plogis(m / sqrt(1 + pi * pmax(s2, 0) / 8))
  `colnames<-`(cbind(1 - p, p), fit$fit$levels)
}
# A temperature (as rvm_control(temperature = "cv"), R/temperature.R) from
# the Laplace leave-one-out latent of each training row instead of inner
# fits (the fitted basis and alphas held; the row's site removed from the
# Gaussian posterior of its latent): no refit. Plain temperature.
temperature_loo <- function(f, d) {
  o <- rvm(f, data = d, control = rvm_control(temperature = 1)); y <- as.integer(model.response(model.frame(f, d))) == 2L; ns <- asNamespace("sparsebayes")
  lp <- ns$linear_predictor(o, ns$new_inputs(o, d), TRUE)
  p <- plogis(lp$eta); W <- p * (1 - p); g <- y - p
  prec <- 1 / lp$var - W; mc <- (lp$eta / lp$var - W * lp$eta - g) / prec
  q <- plogis(mc / sqrt(1 + pi / (8 * prec)))
  P <- cbind(1 - q, q)
  nll <- function(t) { l <- t * log(pmax(P, 1e-300)); l <- l - apply(l, 1, max); -sum(l[cbind(seq_along(y), y + 1L)] - log(rowSums(exp(l)))) }
  structure(list(fit = o, t = optimize(nll, c(0.05, 20))$minimum), class = "peer_temperature")
}
probs.peer_temperature <- function(fit, newdata) {
  p <- as.matrix(predict(fit$fit, newdata, type = "prob")); l <- fit$t * log(pmax(p, 1e-300))
  l <- exp(l - apply(l, 1, max)); `colnames<-`(l / rowSums(l), colnames(p))
}

# The kernel width of a fit (a multiclass fit's from its first class model).
fit_width <- function(fit) asNamespace("sparsebayes")$first_class_model(fit)$kernel$width
# The learned gaussian of `fit` with kernel_linear() in one dictionary.
with_linear <- function(f, d, fit) rvm(f, data = d, kernel = list(kernel_gaussian(fit_width(fit)), kernel_linear()))

methods <- list(
  rvm = function(f, d) rvm(f, data = d),
  rvm_ovr = function(f, d) rvm(f, data = d, multiclass = "one_vs_rest"),  # the former default of K > 2 classes
  rvm_shared = function(f, d) rvm(f, data = d, multiclass = "multinomial_shared"),  # one precision per column for all classes
  rvm_learn = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("learn")),  # one width per input
  rvm_lin = function(f, d) with_linear(f, d, rvm(f, data = d)),
  # the learned gaussian alone or with kernel_linear(), whichever has the higher evidence
  rvm_linev = function(f, d) { a <- rvm(f, data = d); b <- with_linear(f, d, a)
    if (as.numeric(logLik(b)) > as.numeric(logLik(a))) b else a },
  rvm_rows250 = with_constant("learn_max_rows", 250L, function(f, d) rvm(f, data = d)),  # widths learned on 250 rows
  rvm_aug = function(f, d) structure(list(fit = rvm(f, data = d)), class = "peer_aug"),
  rvm_median = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("median")),  # the default before 2026-11-29
  # the probabilities integrated over the latent posterior (multinomial fits; the default is the mode)
  rvm_integrated = function(f, d) structure(list(fit = rvm(f, data = d)), class = "peer_integrated"),
  rvm_shared_integrated = function(f, d)
    structure(list(fit = rvm(f, data = d, multiclass = "multinomial_shared")), class = "peer_integrated"),
  # one width by the evidence of the RVM itself
  rvm_evidence = function(f, d) rvm(f, data = d, kernel = kernel_gaussian("evidence")),
  rvm_ep = function(f, d) { o <- rvm(f, data = d, control = rvm_control(temperature = 1)); y <- model.response(model.frame(f, d))
    Phi <- asNamespace("sparsebayes")$relevant_design(o, asNamespace("sparsebayes")$new_inputs(o, d))
    structure(list(fit = o, q = ep_weights(Phi, ifelse(as.integer(y) == 2L, 1, -1), o$alpha[o$relevant])), class = "peer_ep") },
  gpc = gpc_fit,  # two classes
  rvm_t1 = function(f, d) rvm(f, data = d, control = rvm_control(temperature = 1)),  # as fitted: two classes before the temperature
  rvm_tcv = function(f, d) rvm(f, data = d, control = rvm_control(temperature = "cv")),  # also for K classes
  rvm_temperature_loo = temperature_loo,  # two classes
  # two classes: the latent prior mean at the logit of the training share of the second level (a fixed
  # offset), so that far from the data the probability is the share
  rvm_share_offset = function(f, d) { y <- model.response(model.frame(f, d)); d$.so <- qlogis(mean(as.integer(y) == 2L))
    structure(list(fit = rvm(update(formula(terms(f, data = d)), . ~ . - .so), data = d, offset = .so), o = d$.so[1L]), class = "peer_offset") },
  svm = function(f, d) svm(f, data = d, probability = TRUE),
  ranger = function(f, d) ranger(f, data = d, probability = TRUE),
  glmnet = glmnet_fit)
# a two-scale dictionary: the learned width and m times it (rvm_ms2 .. rvm_ms4)
for (m in c(2, 3, 4)) local({
  k <- m
  methods[[paste0("rvm_ms", k)]] <<- function(f, d) {
    w <- fit_width(rvm(f, data = d, control = rvm_control(temperature = 1)))
    rvm(f, data = d, kernel = list(kernel_gaussian(w), kernel_gaussian(k * w)), control = rvm_control(temperature = 1))
  }
})
# multiples of the median-heuristic width (rvm_median is x1): rvm_x0.5 .. rvm_x4
for (k in c(0.5, 0.71, 1.41, 2, 2.83, 4)) local({
  m <- k
  methods[[paste0("rvm_x", k)]] <<- function(f, d) {
    rvm(f, data = d, kernel = kernel_gaussian(m * fit_width(rvm(f, data = d, kernel = kernel_gaussian("median")))))
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
