# Which fits a change of the fast solver moves (issue 59, item 2): 468 fits
# (21, 100 and 300 rows of sin(2 x1), sin(x1) cos(x2 / 2) and sin(2 x1)
# cos(x2) on [-3, 3]^d with noise sd 0.1, learned and fixed widths 0.05-2,
# several seeds; per-sample and Student-t noise; two classes). Run once
# under each library, then compare:
#   R_LIBS=<before> Rscript bench/fast_solver_unchanged.R fits before.rds
#   R_LIBS=<after>  Rscript bench/fast_solver_unchanged.R fits after.rds
#   Rscript bench/fast_solver_unchanged.R compare before.rds after.rds
args <- commandArgs(TRUE)
if (args[1L] == "compare") {
  a <- readRDS(args[2L])
  b <- readRDS(args[3L])
  same <- mapply(identical, a, b)
  cat(sprintf("%d fits, %d identical; at the cap of 10000: %d before, %d after\n", length(a), sum(same),
              sum(vapply(a, function(p) p$it >= 10000, TRUE)), sum(vapply(b, function(p) p$it >= 10000, TRUE))))
  d <- names(a)[!same]
  print(data.frame(fit = d, iterations_before = vapply(a[d], `[[`, 1, "it"), after = vapply(b[d], `[[`, 1, "it"),
                   logLik_change = vapply(d, function(k) b[[k]]$ll - a[[k]]$ll, 1),
                   max_fitted_change = vapply(d, function(k) max(abs(b[[k]]$fitted - a[[k]]$fitted)), 1)),
        row.names = FALSE)
  quit(save = "no")
}
suppressMessages(library(sparsebayes))
out <- args[2L]
surf <- list(sin = function(x) sin(2 * x[, 1]), prod = function(x) sin(x[, 1]) * cos(x[, 2] / 2),
             prod2 = function(x) sin(2 * x[, 1]) * cos(x[, 2]))
res <- list()
add <- function(key, fit) res[[key]] <<- list(it = fit$iterations, conv = fit$converged, ll = as.numeric(fit$logLik),
                                          rel = fit$relevant, fitted = as.numeric(fitted(fit)))
for (n in c(21, 100, 300)) for (sname in names(surf)) for (w in c("learn", 0.05, 0.1, 0.2, 0.5, 2)) for (s in 1:(if (n == 21) 20 else 4)) {
  if (n == 21 && w == "learn" && s > 5) next
  set.seed(s)
  d <- if (sname == "sin") 1 else 2
  x <- matrix(runif(n * d, -3, 3), n)
  y <- surf[[sname]](x) + rnorm(n, sd = 0.1)
  k <- if (w == "learn") kernel_gaussian() else kernel_gaussian(as.numeric(w))
  add(paste(n, sname, w, s, sep = "/"), suppressWarnings(suppressMessages(rvm(x, y, kernel = k))))
}
for (s in 1:3) for (nz in c("sample", "student")) {
  set.seed(s); x <- runif(200, -3, 3); y <- sin(2 * x) + rnorm(200, sd = 0.2); y[1:5] <- y[1:5] + 3
  add(paste("noise", nz, s), suppressWarnings(rvm(x, y, kernel = kernel_gaussian(0.5), noise = nz)))
}
for (s in 1:3) {
  set.seed(s); x <- matrix(rnorm(400), 200); cl <- factor(x[, 1] + x[, 2]^2 + rnorm(200, sd = 0.5) > 1)
  add(paste("binom", s), suppressWarnings(rvm(x, cl, kernel = kernel_gaussian(1))))
}
saveRDS(res, out)
