# sparse_gp()'s two defaults that set its cost at scale: the inducing
# points it keeps (those K_uu can tell apart, `inducing_tol`) and its stop
# (`factr`, on the gain over every row the posterior serves). Three tables
# for bench/RESULTS.md:
#
#   Rscript bench/sparse_gp_inducing.R stop 2000,5000,10000,20000 1,2,3 100
#   Rscript bench/sparse_gp_inducing.R stop 30000,100000,300000 1,2,3 500
#     default fits on bench/sparse_gp_scale.R's surface (one data seed per
#     column), against the former stop (factr 1e11 * min(1, 20000 / n)):
#     points kept, evaluations, wall s, ELBO and latent RMSE;
#   Rscript bench/sparse_gp_inducing.R chunks
#     bench/chunks_scale.R's source at n = 1e6 (10 chunks, 2 workers), 500
#     points asked, with every point kept or not and either stop;
#   Rscript bench/sparse_gp_inducing.R kept
#     the points kept by the default fit on each full data set of the
#     regression panels (bench/sets.R).
# Run from the package root after installing.
suppressPackageStartupMessages(library(sparsebayes))
args <- commandArgs(TRUE)
`%||%` <- function(a, b) if (is.null(a)) b else a
what <- match.arg(args[1L], c("stop", "chunks", "kept"))
numbers <- function(i) as.numeric(strsplit(args[i], ",")[[1L]])
row <- function(fit, wall, latent, ...)
  data.frame(..., kept = fit$m, evaluations = fit$iterations[[1L]], wall = round(wall, 2),
             elbo = round(fit$logLik, 2), latent_rmse = signif(latent, 4))

if (what == "stop") {
  m <- as.integer(args[4L])
  for (n in numbers(2L)) for (s in numbers(3L)) {
    set.seed(s)
    x <- matrix(runif(2 * n, -3, 3), n, 2, dimnames = list(NULL, c("x1", "x2")))
    y <- sin(2 * x[, 1]) * cos(x[, 2]) + rnorm(n, sd = 0.2)
    set.seed(100 + s)
    xt <- matrix(runif(2 * 5000, -3, 3), 5000, 2, dimnames = list(NULL, c("x1", "x2")))
    ft <- sin(2 * xt[, 1]) * cos(xt[, 2])
    for (rule in c("before", "now")) {
      control <- sparse_gp_control(factr = if (rule == "before") 1e11 * min(1, 2e4 / n))
      wall <- system.time(fit <- sparse_gp(x, y, inducing = m, seed = 1, control = control))[["elapsed"]]
      print(row(fit, wall, sqrt(mean((predict(fit, xt) - ft)^2)), n = n, m = m, seed = s, stop = rule,
                factr = fit$control$factr), row.names = FALSE)
    }
  }
} else if (what == "chunks") {
  future::plan(future::multisession, workers = 2)
  f <- function(x1, x2) sin(2 * x1) + 0.3 * x2^2
  make <- local(function(i, rows = 1e5) {
    set.seed(i)
    x1 <- runif(rows, -3, 3)
    x2 <- runif(rows, -3, 3)
    data.frame(y = f(x1, x2) + rnorm(rows, sd = 0.3), x1 = x1, x2 = x2)
  }, list2env(list(f = f)))
  test <- make(1e6, 1e4)
  for (tol in list(NULL, 0)) for (factr in list(NULL, 2e9)) {
    control <- sparse_gp_control(inducing_tol = tol, factr = factr)
    wall <- system.time(fit <- sparse_gp(y ~ x1 + x2, data = data_chunks(make, chunks = 10), inducing = 500,
                                         seed = 1, control = control))[["elapsed"]]
    print(row(fit, wall, sqrt(mean((predict(fit, test) - f(test$x1, test$x2))^2)),
              inducing_tol = format(tol %||% "default"), factr = format(factr %||% "default")), row.names = FALSE)
  }
} else {
  suppressPackageStartupMessages(library(mlbench))
  source("bench/sets.R")
  sets <- c(regression_sets(), regression_broad_sets(), computer_experiment_sets())
  for (nm in names(sets)) {
    fit <- sparse_gp(sets[[nm]]$formula, data = sets[[nm]]$data, seed = 1)
    cat(sprintf("%-14s n %5d asked %3d kept %3d\n", nm, nrow(sets[[nm]]$data),
                if (is.null(fit$learned$inducing)) fit$m else fit$learned$inducing[["asked"]], fit$m))
  }
}
