# Binomial and Poisson RVMs on real data, by method: what the Laplace step in
# JointArd (mackay, and now em and irls2) gives beside the fast solver.
# Per data set and method ("fast", "mackay", "em", "irls2"), one fit at the
# defaults (Gaussian kernel, median width, bias) on all rows: the log
# evidence (logLik), the number of relevant basis functions (relevant
# vectors, the bias counted if kept), the iterations, whether the solver
# converged, the CPU seconds (user + system) of the fit, and any warning.
#   binomial: mlbench's Sonar (Class ~ .), Ionosphere (Class ~ ., without
#     V2, a one-level factor that model.matrix() cannot expand) and
#     PimaIndiansDiabetes2 (diabetes ~ ., na.omit: 392 rows);
#   Poisson (family = poisson()): MASS::quine (Days ~ .), warpbreaks
#     (breaks ~ wool + tension) and MASS::epil (y ~ trt + base + age + V4).
# A method that rejects a family (before em/irls2 took binomial and Poisson)
# is caught and shown as an error row. One thread (sparsebayes.threads = 1).
#
# Usage, from the package root, with the library to measure first on the path:
#   Rscript bench/engine_laplace.R /work/bench-lib
#   Rscript bench/engine_laplace.R /tmp/oldlib
# (no argument: the default library path).
args <- commandArgs(TRUE)
if (length(args) >= 1L) .libPaths(c(args[[1L]], .libPaths()))
suppressPackageStartupMessages(library(sparsebayes))
options(sparsebayes.threads = 1L)
cat("sparsebayes from", find.package("sparsebayes"), "\n\n")

data(Sonar, Ionosphere, PimaIndiansDiabetes2, package = "mlbench", envir = environment())
sets <- list(
  Sonar = list(formula = Class ~ ., data = Sonar, family = binomial()),
  Ionosphere = list(formula = Class ~ ., data = Ionosphere[names(Ionosphere) != "V2"], family = binomial()),
  Pima2 = list(formula = diabetes ~ ., data = na.omit(PimaIndiansDiabetes2), family = binomial()),
  quine = list(formula = Days ~ ., data = MASS::quine, family = poisson()),
  warpbreaks = list(formula = breaks ~ wool + tension, data = warpbreaks, family = poisson()),
  epil = list(formula = y ~ trt + base + age + V4, data = MASS::epil, family = poisson()))
methods <- c("fast", "mackay", "em", "irls2")

one <- function(s, m) {
  warn <- character(0)
  t0 <- proc.time()
  fit <- withCallingHandlers(
    tryCatch(rvm(s$formula, data = s$data, family = s$family, method = m), error = function(e) e),
    warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") })
  t <- proc.time() - t0
  if (inherits(fit, "error"))
    return(data.frame(logLik = NA, relevant = NA, iterations = NA, converged = NA, cpu = NA,
                      note = paste("error:", conditionMessage(fit))))
  data.frame(logLik = as.numeric(logLik(fit)), relevant = length(fit$relevant),
             iterations = sum(fit$iterations), converged = isTRUE(all(fit$converged)),
             cpu = t[["user.self"]] + t[["sys.self"]],
             note = if (length(warn)) paste("warning:", paste(unique(warn), collapse = "; ")) else "")
}

rows <- list()
for (nm in names(sets)) for (m in methods) {
  s <- sets[[nm]]
  r <- one(s, m)
  rows[[length(rows) + 1L]] <- cbind(data.frame(set = nm, family = s$family$family,
                                                n = nrow(model.frame(s$formula, s$data)), method = m), r)
  cat(sprintf("%-10s %-6s %8s\n", nm, m, if (is.na(r$logLik)) "error" else sprintf("%.3f", r$logLik)))
}
res <- do.call(rbind, rows)

cat("\n| set | family | n | method | logLik | relevant | iterations | converged | CPU s | note |\n")
cat("|---|---|---:|---|---:|---:|---:|:---:|---:|---|\n")
f <- function(x, fmt) ifelse(is.na(x), "-", sprintf(fmt, x))
cat(sprintf("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", res$set, res$family, res$n, res$method,
            f(res$logLik, "%.3f"), f(res$relevant, "%d"), f(res$iterations, "%d"),
            ifelse(is.na(res$converged), "-", ifelse(res$converged, "yes", "no")),
            f(res$cpu, "%.3f"), gsub("|", "/", substr(res$note, 1, 120), fixed = TRUE)), sep = "")
