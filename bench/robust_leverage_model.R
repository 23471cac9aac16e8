# Does a Student-t likelihood whose scale grows with the leverage of x_i
# prefer the robust fit on the classic data? An experiment for the model
# question of issue "Robust fits that survive leverage points", in plain R
# (no ARD prior): y_i ~ t_nu(x_i' b, s2 g_i), with g_i = 1 (plain) or
# g_i = (nu + d_i^2) / (nu + p), the scale of y | x when (x, y) is jointly
# multivariate t, d_i the MCD robust distance of x_i (robustbase::covMcd).
# EM from the least squares and the LTS start; nu estimated (optionally
# with a Gamma(2, 0.1) prior) or held fixed. Prints the log likelihood of
# both optima, nu, the documented outliers among the k smallest weights and
# the largest |b - lmrob| in lmrob standard errors.
# Then two more models (2026-11-26): y_i ~ (1 - eps) t_nu(x_i' b, s2) + eps h
# with an outlier class h that the weights do not explain (uniform over
# range(y), or N(mean(y), var(y))), and a model of the inputs too: clean rows
# (x, y) ~ N(x; mu, S) N(y; x' b, s2), outlier rows from the Gaussian of the
# whole data, eps learned, EM from least squares and from LTS/MCD.
#   Rscript bench/robust_leverage_model.R
suppressPackageStartupMessages(library(robustbase))
t_regression <- function(X, y, g_of, beta, s2, nu_fixed = NA, nu_prior = FALSE, iterations = 300) {
  log_lik <- function(r, s2, nu) {
    g <- g_of(nu)
    sum(stats::dt(r / sqrt(s2 * g), nu, log = TRUE) - 0.5 * log(s2 * g)) +
      if (nu_prior) stats::dgamma(nu, 2, 0.1, log = TRUE) else 0
  }
  nu <- if (is.na(nu_fixed)) 4 else nu_fixed
  for (it in seq_len(iterations)) {
    g <- g_of(nu)
    r <- drop(y - X %*% beta)
    u <- (nu + 1) / (nu + r^2 / (s2 * g))
    beta <- lm.wfit(X, y, u / g)$coefficients
    r <- drop(y - X %*% beta)
    s2 <- mean(u * r^2 / g)
    if (is.na(nu_fixed)) nu <- optimize(function(v) log_lik(r, s2, v), c(0.5, 1e4), maximum = TRUE)$maximum
  }
  list(beta = beta, nu = nu, log_lik = log_lik(r, s2, nu), weight = u / g)
}
data(hbk, starsCYG, wood, salinity, aircraft, package = "robustbase")
classic <- list(hbk = list(Y ~ ., hbk, 1:10), starsCYG = list(log.light ~ log.Te, starsCYG, c(11, 20, 30, 34)),
                stackloss = list(stack.loss ~ ., stackloss, c(1, 3, 4, 21)), wood = list(y ~ ., wood, c(4, 6, 8, 19)),
                salinity = list(Y ~ ., salinity, c(5, 16)), aircraft = list(Y ~ ., aircraft, 22))
settings <- list("nu estimated" = list(NA, FALSE), "nu ~ Gamma(2, 0.1)" = list(NA, TRUE),
                 "nu = 1" = list(1, FALSE), "nu = 4" = list(4, FALSE))
for (st in names(settings)) {
  cat("\n##", st, "\n")
  for (nm in names(classic)) {
    cs <- classic[[nm]]
    X <- model.matrix(cs[[1]], cs[[2]]); y <- model.response(model.frame(cs[[1]], cs[[2]]))
    Z <- X[, -1, drop = FALSE]; p <- ncol(Z)
    lts <- ltsReg(Z, y)
    mcd <- covMcd(Z)
    d2 <- mahalanobis(Z, mcd$center, mcd$cov)
    ref <- lmrob(cs[[1]], cs[[2]])
    for (leverage in c(FALSE, TRUE)) {
      g_of <- if (leverage) function(nu) (nu + d2) / (nu + p) else function(nu) rep(1, length(y))
      cells <- vapply(c("ls", "lts"), function(start) {
        b0 <- if (start == "ls") lm.fit(X, y)$coefficients else coef(lts)
        s0 <- if (start == "ls") mean((y - X %*% b0)^2) else lts$scale^2
        f <- t_regression(X, y, g_of, b0, s0, settings[[st]][[1]], settings[[st]][[2]])
        k <- length(cs[[3]])
        sprintf("%s: logL %.2f nu %.3g found %d/%d gap %.2f se", start, f$log_lik, f$nu,
                sum(order(f$weight)[1:k] %in% cs[[3]]), k, max(abs(f$beta - coef(ref)) / sqrt(diag(vcov(ref)))))
      }, character(1))
      cat(sprintf("%-9s %-9s %s\n", nm, if (leverage) "leverage" else "plain", paste(cells, collapse = " | ")))
    }
  }
}

## ---- an outlier class (y | x), and a model of the inputs too --------------
ranked <- function(X, y, b, cs) {
  k <- length(cs[[3]])
  sum(order(-abs(drop(y - X %*% b)))[1:k] %in% cs[[3]])
}
class_regression <- function(X, y, beta, s2, h, nu = NA, eps = 0.1, iterations = 500) {
  df <- if (is.na(nu)) 4 else nu
  dens <- function(r, s2, df) dt(r / sqrt(s2), df) / sqrt(s2)
  for (it in seq_len(iterations)) {
    r <- drop(y - X %*% beta)
    p <- eps * h / (eps * h + (1 - eps) * dens(r, s2, df))
    w <- (1 - p) * (df + 1) / (df + r^2 / s2)
    beta <- lm.wfit(X, y, w)$coefficients
    r <- drop(y - X %*% beta)
    s2 <- sum(w * r^2) / sum(1 - p)
    eps <- min(mean(p), 0.5)
    if (is.na(nu)) df <- optimize(function(v) sum((1 - p) * log(dens(r, s2, v))), c(0.5, 1e3), maximum = TRUE)$maximum
  }
  r <- drop(y - X %*% beta)
  list(beta = beta, log_lik = sum(log(eps * h + (1 - eps) * dens(r, s2, df))))
}
log_mvn <- function(Z, mu, S) {
  R <- chol(S)
  q <- backsolve(R, t(Z) - mu, transpose = TRUE)
  -0.5 * colSums(q^2) - sum(log(diag(R))) - 0.5 * ncol(Z) * log(2 * pi)
}
joint_regression <- function(X, y, p, iterations = 300) {
  Z <- X[, -1, drop = FALSE]
  n <- length(y)
  log_h <- log_mvn(cbind(Z, y), colMeans(cbind(Z, y)), cov(cbind(Z, y)) * (n - 1) / n)
  for (it in seq_len(iterations)) {
    w <- 1 - p
    beta <- lm.wfit(X, y, w)$coefficients
    r <- drop(y - X %*% beta)
    mu <- colSums(w * Z) / sum(w)
    S <- crossprod(sqrt(w) * sweep(Z, 2, mu)) / sum(w)
    eps <- min(max(mean(p), 1e-6), 0.5)
    a <- log(eps) + log_h
    b <- log1p(-eps) + dnorm(r, 0, sqrt(sum(w * r^2) / sum(w)), log = TRUE) + log_mvn(Z, mu, S)
    m <- pmax(a, b)
    p <- exp(a - m) / (exp(a - m) + exp(b - m))
  }
  list(beta = beta, log_lik = sum(m + log(exp(a - m) + exp(b - m))))
}
backgrounds <- list(uniform = function(y) rep(1 / diff(range(y)), length(y)), gaussian = function(y) dnorm(y, mean(y), sd(y)))
for (model in c("class: uniform", "class: gaussian", "inputs too")) {
  cat("\n##", model, if (model != "inputs too") "(nu estimated)" else "(Gaussian)", "\n")
  for (nm in names(classic)) {
    cs <- classic[[nm]]
    X <- model.matrix(cs[[1]], cs[[2]])
    y <- model.response(model.frame(cs[[1]], cs[[2]]))
    set.seed(1)
    lts <- ltsReg(X[, -1, drop = FALSE], y)
    ref <- lmrob(cs[[1]], cs[[2]])
    cells <- vapply(c("ls", "lts"), function(start) {
      f <- if (model == "inputs too") {
        p0 <- if (start == "ls") rep(0.05, length(y))
              else ifelse(lts$raw.weights > 0 & covMcd(X[, -1, drop = FALSE])$mcd.wt > 0, 0.05, 0.95)
        joint_regression(X, y, p0)
      } else {
        b0 <- if (start == "ls") lm.fit(X, y)$coefficients else coef(lts)
        s0 <- if (start == "ls") mean((y - X %*% b0)^2) else lts$scale^2
        class_regression(X, y, b0, s0, backgrounds[[sub("class: ", "", model)]](y))
      }
      sprintf("%s: logL %.2f found %d/%d gap %.2f se", start, f$log_lik, ranked(X, y, f$beta, cs), length(cs[[3]]),
              max(abs(f$beta - coef(ref)) / sqrt(diag(vcov(ref)))))
    }, character(1))
    cat(sprintf("%-9s %s\n", nm, paste(cells, collapse = " | ")))
  }
}
