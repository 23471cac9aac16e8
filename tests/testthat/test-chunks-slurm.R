# Fits from chunks on a real (one-node) Slurm cluster through
# future.batchtools: the passes run as Slurm jobs, and the fit must be
# identical to the sequential one. tools/slurm-up.sh starts the cluster
# (root, Debian's slurmctld, slurmd and munge; `make test-deps` installs
# them); where it cannot start, the test skips saying why.

# The SLURM_CONF of a cluster that answers, starting the repository's one
# if need be (then stopped when `env` ends), or a skip with the reason.
slurm_cluster <- function(env = parent.frame()) {
  skip_on_cran()
  skip_if_not_installed("future.batchtools")
  answers <- function(conf) {
    out <- suppressWarnings(tryCatch(system2("sinfo", c("-h", "-o", "%T"), stdout = TRUE, stderr = FALSE,
                                             env = paste0("SLURM_CONF=", conf), timeout = 10),
                                     error = function(e) character(0)))
    any(grepl("idle|mixed", out))
  }
  conf <- Sys.getenv("SLURM_CONF")
  if (nzchar(conf) && nzchar(Sys.which("sinfo")) && answers(conf)) return(conf)
  script <- normalizePath(test_path("..", "..", "tools", "slurm-up.sh"), mustWork = FALSE)
  if (!file.exists(script)) skip("no running Slurm cluster (SLURM_CONF) and no tools/slurm-up.sh to start one")
  if (!nzchar(Sys.which("slurmctld")) || !nzchar(Sys.which("munged")))
    skip("Slurm is not installed (Debian's slurmctld, slurmd and munge; `make test-deps` installs them as root)")
  if (!identical(unname(Sys.info()["effective_user"]), "root")) skip("starting the Slurm daemons needs root")
  dir <- tempfile("slurm")
  out <- suppressWarnings(system2("sh", c(shQuote(script), shQuote(dir)), stdout = TRUE, stderr = TRUE))
  if (!is.null(attr(out, "status"))) skip(paste("tools/slurm-up.sh could not start a cluster:", paste(out, collapse = " ")))
  withr::defer(system2("sh", c(shQuote(script), "--down", shQuote(dir)), stdout = FALSE, stderr = FALSE), envir = env)
  out[length(out)]
}

test_that("fits from chunks are identical on a Slurm cluster (future.batchtools) and sequentially", {
  conf <- slurm_cluster()
  # the jobs' R finds this package where this R does; batchtools' files go to a temporary directory
  withr::local_envvar(SLURM_CONF = conf, R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep))
  withr::local_options(future.cache.path = withr::local_tempdir())
  set.seed(1)
  d <- data.frame(x1 = rnorm(3000), x2 = runif(3000), x3 = rnorm(3000), g = sample(c("a", "b", "c"), 3000, TRUE))
  d$y <- 2 + 1.5 * d$x1 - d$x3 + 0.5 * (d$g == "b") + rnorm(3000)
  # the vignette's recipe: files that every node reads (here one node's disk)
  files <- file.path(withr::local_tempdir(), sprintf("part-%d.csv", 1:3))
  for (i in 1:3) utils::write.csv(d[(i - 1) * 1000 + 1:1000, ], files[i], row.names = FALSE)
  chunks <- data_chunks(files)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  # one pass per chunk and statistic, each a Slurm job (a two-class rvm()'s
  # Laplace passes would be dozens of jobs: a minute here)
  a <- ard(y ~ x1 + x2 + x3 + g, data = chunks)
  future::plan(future.batchtools::batchtools_slurm, workers = 2)
  b <- ard(y ~ x1 + x2 + x3 + g, data = chunks)
  expect_identical(coef(b), coef(a))
  expect_identical(b$logLik, a$logLik)
})
