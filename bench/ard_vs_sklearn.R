# Shared-noise ard() (default solver: method = "em") against scikit-learn's
# ARDRegression on the same data, one fit each, same machine.
# Run from the package root: R_LIBS=<lib> Rscript bench/ard_vs_sklearn.R
# The python peer (bench/ard_vs_sklearn.py) is found as $SB_PYTHON, else the
# first of /usr/bin/python3 and python3 that imports sklearn.
# Data: X ~ N(0, 1), 10% of the weights nonzero (N(0, 1)), noise sd 0.5,
# 5000 test rows; passed to python as binary doubles in a temporary directory.
# Both sides are asked for one BLAS thread (the environment below is set
# before python starts; R's BLAS is chosen at start-up, so the script also
# reports which BLAS each process mapped; the C++ core uses Eigen, not BLAS).
threads <- Sys.getenv("SB_THREADS", "1")
Sys.setenv(OPENBLAS_NUM_THREADS = threads, OMP_NUM_THREADS = threads, MKL_NUM_THREADS = threads)
library(sparsebayes)

source("bench/sklearn_python.R")
python <- sklearn_python()
if (!nzchar(python)) stop("no python3 with scikit-learn found; set SB_PYTHON")
script <- file.path("bench", "ard_vs_sklearn.py")
if (!file.exists(script)) stop("run from the package root")

blas_in_process <- function() {
  maps <- readLines("/proc/self/maps")
  libs <- unique(sub(".* ", "", maps[grepl("blas|lapack|mkl|blis", basename(sub(".* ", "", maps)))]))
  paste(unique(normalizePath(libs)), collapse = ", ")
}
rmse <- function(a, b) sqrt(mean((a - b)^2))

one_size <- function(n, d, n_true = round(0.1 * d), noise_sd = 0.5, n_test = 5000L, seed = 1L) {
  set.seed(seed)
  X <- matrix(rnorm(n * d), n, d)
  theta <- numeric(d)
  nz <- sample(d, n_true)
  theta[nz] <- rnorm(length(nz))
  y <- drop(X %*% theta) + rnorm(n, sd = noise_sd)
  Xt <- matrix(rnorm(n_test * d), n_test, d)
  yt <- drop(Xt %*% theta) + rnorm(n_test, sd = noise_sd)

  el <- system.time(fit <- ard(X, y))[["elapsed"]]
  ours <- data.frame(fit = "ard() default (fast, shared)", seconds = el, iterations = fit$iterations,
                     converged = fit$converged, relevant = sum(fit$relevant != 1L),  # not the intercept
                     test_rmse = rmse(predict(fit, Xt), yt))

  dir <- tempfile("ard_vs_sklearn")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  prefix <- file.path(dir, "data")
  for (nm in c("X", "y", "Xt", "yt")) writeBin(as.vector(get(nm)), paste0(prefix, "_", nm, ".bin"), endian = "little")
  # ard()'s pruning bound alpha_max = 1e6 is in standard units: the response
  # divided by its robust scale (the MAD; shared noise), the columns at unit
  # mean square (X ~ N(0, 1) already is), so in the units of y it is 1e6 / s^2.
  s <- stats::mad(y)
  out <- system2(python, c(shQuote(script), shQuote(prefix), n, d, n_test, format(1e6 / s^2, digits = 17)),
                 stdout = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop("python failed: ", paste(out, collapse = "\n"))
  notes <- out[startsWith(out, "#")]
  rows <- utils::read.table(text = out[!startsWith(out, "#")], sep = "\t",
                            col.names = c("fit", "seconds", "iterations", "converged", "relevant", "test_rmse"))
  rows$fit <- paste0("ARDRegression ", rows$fit)
  tab <- rbind(ours, rows)
  tab$ard_over_peer <- round(ours$seconds / tab$seconds, 3)
  tab$test_rmse <- round(tab$test_rmse, 4)
  cat(sprintf("\n## n = %d, d = %d (%d true nonzero weights, noise sd %g; %d test rows; ARDRegression threshold_lambda matched = %.4g)\n\n",
              n, d, length(nz), noise_sd, n_test, 1e6 / s^2))
  print(tab, row.names = FALSE)
  cat(sprintf("ard(): logLik %.2f, jitter events %d, %d of the %d true features kept\n", fit$logLik,
              fit$jitter_events, sum(nz %in% (fit$relevant - 1L)), length(nz)))
  invisible(list(table = tab, notes = notes))
}

cat(sprintf("# ard() against scikit-learn's ARDRegression (%s)\n", format(Sys.time(), "%Y-%m-%d %H:%M %Z")))
# One small fit first, so that lazy loading of the package's R code is not
# timed (python imports are outside its timing too; it warms up likewise).
invisible(ard(matrix(rnorm(200), 40, 5), rnorm(40)))
# issue 59's two settings at n = 20000, d = 500: 20 true features (noise sd
# 0.5) and 100 (noise sd 0.2)
res <- list(one_size(2000L, 256L), one_size(20000L, 500L, 20L), one_size(20000L, 500L, 100L, 0.2))
cat("\n## Environment\n\n")
cat(sprintf("R: %s; sparsebayes %s; R BLAS: %s; LAPACK: %s\n", R.version.string, utils::packageVersion("sparsebayes"),
            extSoftVersion()[["BLAS"]], La_library()))
cat(sprintf("R process mapped: %s\n", blas_in_process()))
cat(paste(sub("^# ", "python: ", unique(res[[2]]$notes)), collapse = "\n"), "\n")
cat(sprintf("OPENBLAS_NUM_THREADS = OMP_NUM_THREADS = MKL_NUM_THREADS = %s; %d cores\n", threads,
            parallel::detectCores()))
