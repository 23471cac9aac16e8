# One batch of the fuzz test (see tools/fuzz.R): random and hostile inputs to
# every fitting function and to predict(). Errors and warnings are expected;
# the only failure is the process dying. Each case is logged before it runs,
# so the parent can name the case that crashed.
# Usage: Rscript tools/fuzz-child.R SEED COUNT LOGFILE
args <- commandArgs(TRUE)
seed <- as.integer(args[1]); count <- as.integer(args[2]); log_file <- args[3]
suppressPackageStartupMessages(library(sparsebayes))
ns <- asNamespace("sparsebayes")
has <- function(f) exists(f, envir = ns, inherits = FALSE)
set.seed(seed)
pick <- function(v) v[[sample.int(length(v), 1L)]]

hostile_number <- function() pick(list(1, 0, -1, 3, 0.5, 1e-300, 1e300, 1e150, -1e150, NA, NaN, Inf, -Inf,
                                        "a", TRUE, NULL, c(1, 2), list(1), integer(0), 2L, .Machine$integer.max))
numbers <- function(k) {
  switch(sample.int(9L, 1L),
    rnorm(k),
    rnorm(k) * 1e150,
    rnorm(k) * 1e-150,
    rep(1, k),
    round(rnorm(k)),
    replace(rnorm(k), sample.int(max(k, 1L), 1L), pick(list(NA, NaN, Inf, -Inf))),
    runif(k) * 10^sample(-300:300, 1L),
    rexp(k),
    c(rnorm(max(k - 1L, 0L)), 1e6))[seq_len(k)]
}
inputs <- function(n, p) {
  x <- matrix(numbers(n * p), n, p)
  switch(sample.int(8L, 1L),
    x, x, x,
    x[c(seq_len(max(n - 2L, 0L)), rep(1L, min(n, 2L))), , drop = FALSE],  # duplicated rows
    cbind(x, x)[, seq_len(p), drop = FALSE],
    as.data.frame(x),
    pick(list(NULL, "x", list(), matrix(character(0), 0, 0), letters[seq_len(n)], factor(seq_len(n)))),
    x[, 0, drop = FALSE])
}
response <- function(n) {
  switch(sample.int(8L, 1L),
    numbers(n), numbers(n), numbers(n + sample(-1:1, 1L)),
    factor(sample(c("a", "b", "c")[seq_len(sample(1:3, 1L))], n, TRUE)),
    sample(c(TRUE, FALSE), n, TRUE),
    rpois(n, 2) * sample(c(1, -1), 1L),
    sample(0:1, n, TRUE),
    pick(list(NULL, "y", list(1), rep(NA_real_, n), rep(3, n))))
}
kernel_arg <- function() pick(list("gaussian", "laplace", "cauchy", "linear", "lspline", "tpspline", "polynomial",
                                   "haar", "bogus", 42, list(), NULL,
                                   kernel_gaussian(hostile_number_safe()), kernel_laplace(1), kernel_cauchy(0.3),
                                   kernel_polynomial(2, 1), kernel_tpspline(2), kernel_wavelet("haar"),
                                   list(kernel_gaussian(1), kernel_linear()), list("gaussian", "nope")))
hostile_number_safe <- function() pick(list(NULL, 0.01, 1, 3, 100))
control_arg <- function(maker) {
  if (runif(1) < 0.6) return(maker(max_iterations = 200L))
  if (runif(1) < 0.2) return(maker(max_iterations = 200L, schedule = pick(list("paper", "converge")),
                                   student_df = pick(list(NULL, 0.5, 3, 1e6))))
  pick(list(list(max_iterations = hostile_number()), list(bogus = 1), "control", NULL,
            tryCatch(maker(max_iterations = hostile_number()), error = function(e) maker()),
            edited_control(maker)))
}
# A control object edited by hand: one setting set to a hostile value (0,
# NA, negative, a string...), bypassing the constructor's checks.
edited_control <- function(maker) {
  ctrl <- maker(max_iterations = 200L)
  setting <- sample(names(ctrl), 1L)
  ctrl[setting] <- list(pick(list(0L, 0, NA, NA_integer_, -1L, 1e300, "a", NULL, c(1, 2), TRUE)))
  ctrl
}

# A valid call with, most of the time, one or two arguments swapped for
# hostile values: so the fits themselves run on odd data, not just the checks.
mutate <- function(valid, hostile) {
  k <- sample(0:2, 1L, prob = c(0.4, 0.4, 0.2))
  for (nm in sample(names(hostile), k)) valid[nm] <- list(hostile[[nm]]())
  valid
}
case_rvm <- function() {
  n <- pick(list(3L, 8L, 16L, 40L, 64L)); p <- pick(list(1L, 1L, 2L, 3L))
  valid <- list(x = matrix(rnorm(n * p), n, p), y = rnorm(n) * 10^sample(-5:5, 1L),
                kernel = pick(list("gaussian", "laplace", "cauchy", "linear", "tpspline", "lspline")),
                method = pick(list("fast", "fast", "mackay")), control = rvm_control(max_iterations = 300L))
  if (has("ard") && runif(1) < 0.3) valid$noise <- pick(list("shared", "sample", "student"))
  fam <- pick(list("gaussian", "gaussian", "binomial", "poisson"))
  if (fam == "binomial") valid$y <- factor(sample(c("a", "b", "c")[seq_len(pick(list(2L, 2L, 3L)))], n, TRUE))
  if (fam == "poisson") { valid$y <- rpois(n, 3); valid$family <- "poisson" }
  hostile <- list(x = function() inputs(n, p), y = function() response(n), kernel = kernel_arg,
                  bias = function() pick(list(NA, "yes", c(TRUE, FALSE))), scale = function() pick(list(2, NULL)),
                  method = function() pick(list("nope", NA, 3)),
                  prior = function() pick(list("BIC", "AIC", "RIC", 2, -1, NA, "bad")),
                  family = function() pick(list("binomial", "poisson", "gamma", stats::binomial("probit"), 3)),
                  control = function() control_arg(rvm_control),
                  basis = function() inputs(n, sample(1:5, 1L)))
  fit <- suppressWarnings(do.call(rvm, mutate(valid, hostile)))
  poke_predict(fit, p)
}
case_ard <- function() {
  n <- pick(list(3L, 5L, 20L, 50L)); p <- pick(list(1L, 2L, 5L, 12L))
  valid <- list(x = matrix(rnorm(n * p), n, p), y = rnorm(n) * 10^sample(-5:5, 1L),
                method = pick(list("em", "mackay", "irls2", "irls1", "gradient", "fast")),
                noise = pick(list("shared", "sample", "student")))
  hostile <- list(x = function() inputs(n, p), y = function() response(n),
                  method = function() pick(list("nope", NA, 1)), noise = function() pick(list("x", NA, 2)),
                  control = function() control_arg(ard_control))
  fit <- suppressWarnings(do.call(ard, mutate(valid, hostile)))
  poke_predict(fit, p)
}
case_gp <- function() {
  n <- pick(list(3L, 5L, 20L, 60L)); p <- pick(list(1L, 2L))
  valid <- list(x = matrix(rnorm(n * p), n, p), y = rnorm(n) * 10^sample(-5:5, 1L), inducing = pick(list(3, 5, 10)),
                approx = pick(list("VFE", "FITC", "exact")), optimize = pick(list("all", "hyper", "none")))
  if (has("sparse_gp_control")) valid$control <- tryCatch(sparse_gp_control(maxit = 20L), error = function(e) NULL)
  hostile <- list(x = function() inputs(n, p), y = function() response(n),
                  inducing = function() pick(list(1, 0, -2, 100, NA, "a", matrix(rnorm(4 * p), 4, p),
                                                  matrix(1, 3, p + 1), matrix(0, 3, p))),
                  approx = function() pick(list("nope", NA)), noise = function() pick(list(0.1, -1, 0, NA, Inf, 1e-300)),
                  optimize = function() pick(list("x", TRUE)),
                  control = function() pick(list(edited_control(function(max_iterations) sparse_gp_control(maxit = 20L)),
                                                 list(maxit = NA), "x")))
  fit <- suppressWarnings(do.call(sparse_gp, mutate(valid, hostile)))
  poke_predict(fit, p)
}
poke_predict <- function(fit, p) {
  fitted_ok <<- TRUE
  m <- pick(list(1L, 3L, 10L))
  valid <- list(object = fit, newdata = matrix(rnorm(m * p), m, p), se.fit = pick(list(TRUE, FALSE)),
                interval = if (fit$family$family == "gaussian" || inherits(fit, "sb_sparse_gp"))
                  pick(list("none", "confidence", "prediction")) else "none", level = 0.9)
  if (!is.null(fit$terms)) valid$newdata <- as.data.frame(valid$newdata)
  if (!is.null(fit$levels)) valid$type <- "link"
  hostile <- list(newdata = function() pick(list(NULL, inputs(m, p), inputs(m, p + 1L), "new", list(a = 1),
                                                 matrix(NA_real_, 2, p), matrix(1e300, 2, p), matrix(-1e300, 2, p))),
                  se.fit = function() pick(list(NA, "yes")), interval = function() pick(list("wrong", NA)),
                  level = function() pick(list(0, 1, -3, NA, 1e-300)))
  suppressWarnings(do.call(predict, mutate(valid, hostile)))
  for (f in list(print, summary, coef, fitted, residuals, logLik, nobs))
    utils::capture.output(suppressWarnings(f(fit)))
  if (has("hatvalues.sparsebayes") || inherits(fit, "sb_sparse_gp")) suppressWarnings(stats::hatvalues(fit))
  if (has("ess") && !inherits(fit, "sb_sparse_gp")) suppressWarnings(ess(fit, which = pick(list("weights", "samples"))))
  if (runif(1) < 0.1) { f <- tempfile(); saveRDS(fit, f); stopifnot(identical(predict(readRDS(f), valid$newdata),
                                                                              predict(fit, valid$newdata))) }
}

targets <- c(list(rvm = case_rvm), if (has("ard")) list(ard = case_ard), if (has("sparse_gp")) list(sparse_gp = case_gp))
con <- file(log_file, open = "w")
outcome <- character(0)
for (k in seq_len(count)) {
  target <- names(targets)[(k - 1L) %% length(targets) + 1L]
  writeLines(sprintf("case %d %s start", k, target), con); flush(con)
  fitted_ok <- FALSE
  res <- tryCatch({ utils::capture.output(targets[[target]]()); "ok" },
                  error = function(e) paste(if (fitted_ok) "error after fit:" else "error:", conditionMessage(e)))
  writeLines(sprintf("case %d %s %s", k, target, gsub("\n", " ", res)), con); flush(con)
}
writeLines("DONE", con)
close(con)
