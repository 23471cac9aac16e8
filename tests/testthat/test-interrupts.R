# A user interrupt (Ctrl-C, SIGINT) stops a long computation promptly and
# leaves the session usable. Each case runs in a child R process (from the
# library these tests run from) that starts a long computation, catches the
# interrupt and then fits a small model; the parent sends SIGINT once the
# computation has run for a while. The 20 s bound only tells "acted on the
# interrupt" from "ran to the end" (each computation here takes minutes).
# `latency` is the time from the signal to the child's report; its values
# (about 0.1 s) are recorded by bench/interrupt_latency.R, not asserted here.

interrupt_child <- function(expr_lines, after = 2) {
  skip_on_os("windows")
  dir <- tempfile("sb-interrupt")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE))
  script <- file.path(dir, "child.R")
  status <- file.path(dir, "status")
  writeLines(c(
    "suppressPackageStartupMessages(library(sparsebayes))",
    sprintf("status <- %s", deparse(status)),
    "cat('PID', Sys.getpid(), '\\n', file = status)",
    "r <- tryCatch({",
    expr_lines,
    "  'FINISHED'",
    "}, interrupt = function(e) 'INTERRUPTED')",
    "cat(r, '\\n', file = status, append = TRUE)",
    "set.seed(1); x <- seq(-10, 10, length.out = 50); y <- sin(x) / x + rnorm(50, sd = 0.05)",
    "fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)",
    "alive <- if (length(fit$relevant) > 0 && all(is.finite(fitted(fit)))) 'ALIVE' else 'BROKEN'",
    "cat(r, alive, '\\n', file = status, append = TRUE)"), script)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), wait = FALSE,
          stdout = file.path(dir, "out"), stderr = file.path(dir, "out"), env = paste0("R_LIBS=", shQuote(libs)))
  wait_for <- function(pattern, limit) {
    start <- Sys.time()
    repeat {
      txt <- if (file.exists(status)) readLines(status, warn = FALSE) else character(0)
      if (any(grepl(pattern, txt))) return(txt)
      if (as.numeric(Sys.time() - start, units = "secs") > limit) return(NULL)
      Sys.sleep(0.05)
    }
  }
  started <- wait_for("^PID", 60)
  if (is.null(started)) skip("the child R process did not start")
  pid <- as.integer(strsplit(trimws(started[1]), " +")[[1]][2])
  Sys.sleep(after)  # well inside the long computation
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  acted <- wait_for("INTERRUPTED|FINISHED", 20)
  latency <- as.numeric(Sys.time() - sent, units = "secs")
  done <- if (!is.null(acted)) wait_for("ALIVE|BROKEN", 20)
  if (is.null(done)) tools::pskill(pid, tools::SIGKILL)
  log <- if (file.exists(file.path(dir, "out"))) paste(readLines(file.path(dir, "out"), warn = FALSE), collapse = "\n")
  list(result = if (is.null(done)) "NO ANSWER" else trimws(utils::tail(done, 1L)), latency = latency, log = log)
}

test_that("an interrupt stops a long MacKay RVM fit and the session survives", {
  res <- interrupt_child(c(
    "  set.seed(1); n <- 3000; x <- matrix(runif(n), n); y <- sin(6 * x[, 1]) + rnorm(n, sd = 0.1)",
    "  rvm(x, y, method = 'mackay')"))
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})

test_that("an interrupt stops a long joint-ARD EM fit and the session survives", {
  res <- interrupt_child(c(
    "  set.seed(1); n <- 1500; d <- 1200; x <- matrix(rnorm(n * d), n); y <- x[, 1] + rnorm(n)",
    "  ard(x, y, method = 'em', control = list(max_iterations = 1e6, tolerance = 1e-300, patience = 1e6))"))
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})

test_that("an interrupt stops a long kernel matrix and the session survives", {
  res <- interrupt_child(c(
    "  set.seed(1); x <- matrix(rnorm(200 * 4000), 4000)",
    "  kernel_matrix(kernel_lspline(1), x)"))
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})

# Every solver of rvm() at n = 3000 (the fast one on a problem that keeps it
# busy for minutes; the batch ones on the full n x (n + 1) kernel basis): the
# interrupt is acted on within a second even inside the O(n^3) steps (X'X,
# the triangular inverse, Sigma and the row norms are computed in panels
# with a check between them). The bound is loose for a loaded machine; the
# old uninterrupted blocks took 1.7 to 4.8 s.
test_that("an interrupt stops every rvm() solver at n = 3000 promptly", {
  data <- paste("  set.seed(1); n <- 3000; x <- matrix(runif(2 * n), n);",
                "y <- sin(20 * x[, 1]) * cos(15 * x[, 2]) + rnorm(n, sd = 0.1)")
  for (m in c("fast", "mackay", "em", "irls2", "irls1", "gradient")) {
    kernel <- if (m == "fast") "kernel_gaussian(0.1)" else "'gaussian'"
    for (after in c(1, 3)) {
      res <- interrupt_child(c(data, sprintf("  rvm(x, y, method = '%s', kernel = %s)", m, kernel)), after = after)
      expect_identical(res$result, "INTERRUPTED ALIVE", info = paste(m, res$log))
      expect_lt(res$latency, 1.5)
    }
  }
})

test_that("an interrupt stops a sparse GP's pass over many rows on two threads and the session survives", {
  res <- interrupt_child(c(
    "  options(sparsebayes.threads = 2)",
    "  set.seed(1); n <- 2e6; x <- matrix(runif(2 * n), n); y <- sin(6 * x[, 1]) + rnorm(n, sd = 0.1)",
    "  sparse_gp(x, y, kernel = kernel_gaussian(0.5), inducing = x[1:800, ], noise_variance = 0.01, optimize = 'none')"),
    after = 4)
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})

# A sparse GP at n = 2e5: its objective (20000 learning rows) is called
# many times for about 0.05 s each, each call a scope of its own; the core
# checked only 0.1 s into a call, so Ctrl-C waited for R's own check (0.8-1.1
# s in the issue). The first check of a call now polls at once.
test_that("an interrupt stops a sparse GP at n = 2e5 in its short objective calls", {
  for (after in c(1, 2.5)) {  # a fit of about 6 s: 200 inducing points, all kept, calls of about 0.05 s
    res <- interrupt_child(c(
      "  set.seed(1); n <- 2e5; x <- matrix(runif(2 * n), n); y <- sin(6 * x[, 1]) * cos(4 * x[, 2]) + rnorm(n, sd = 0.1)",
      "  sparse_gp(x, y, inducing = 200, seed = 1, control = sparse_gp_control(inducing_tol = 0))"), after = after)
    expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
    expect_lt(res$latency, 1.5)
  }
})

# A robust fit, ard(noise = "student") at n = 5000, d = 200 with 5%
# outliers: the LTS start's concentration steps to convergence ran seconds
# without a check (2-15 s late in the default fit). Its subsets now stop at
# 1e9 multiply-adds, so the default fit there takes 2 s; at n = 20000 and
# one solver iteration the start still runs about 4 s (from 0.5 s after the
# child starts), where both signals land. The checks between concentration
# steps (and between panels of a subset's X'X) answer in about 0.1 s. The
# bound is the rvm() test's loose one. At n = 20000 the fit ended in 2.6 s
# on a quicker machine, before the 3 s signal ("FINISHED ALIVE"): n = 40000
# runs about 7 s there.
test_that("an interrupt stops the robust start of a Student-t ard() fit promptly", {
  data <- paste("  set.seed(1); n <- 40000; d <- 200; X <- matrix(rnorm(n * d), n);",
                "y <- drop(X[, 1:10] %*% rnorm(10, sd = 2)) + rnorm(n);",
                "bad <- sample.int(n, n / 20); y[bad] <- y[bad] + rnorm(n / 20, 15, 5)")
  for (after in c(1.5, 3)) {
    res <- interrupt_child(c(data, "  ard(X, y, noise = 'student', control = list(max_iterations = 1, start_subsets = 10))"),
                           after = after)
    expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
    expect_lt(res$latency, 1.5)
  }
})

test_that("an interrupt stops a fit from chunks, between chunks or inside a chunk's products", {
  res <- interrupt_child(c(
    "  part <- function(i) { set.seed(i); x <- runif(2e4, -3, 3); data.frame(x = x, y = sin(x) + rnorm(2e4)) }",
    "  centres <- matrix(seq(-3, 3, length.out = 1500), dimnames = list(NULL, 'x'))",
    "  rvm(y ~ x, data = data_chunks(part, chunks = 500), centres = centres, kernel = kernel_gaussian(width = 0.2))"),
    after = 4)
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})

test_that("an interrupt stops a Student-t fit from chunks, in its passes or in the solver between them", {
  res <- interrupt_child(c(
    "  part <- function(i) { set.seed(i); x <- matrix(rnorm(2e5), 2e4); data.frame(x, y = x[, 1] + rt(2e4, 3)) }",
    "  ard(y ~ ., data = data_chunks(part, chunks = 200), noise = 'student')"),
    after = 4)
  expect_identical(res$result, "INTERRUPTED ALIVE", info = res$log)
})
