# The engine's behaviour snapshot (helper-snapshot.R): every fit reproduces
# the log evidence, relevant set and fitted values recorded before the
# engine refactor to 1e-8. rvm_binomial and rvm_poisson were recorded again
# when binomial and Poisson fits of rows in memory became the Laplace passes
# of a fit from chunks (issue 58; a change of algorithm, measured on the
# panels in bench/RESULTS.md), the other 16 kept. Seven were recorded again
# when the fast solver stopped recomputing S and Q for noise moves under
# min_noise_move and the posterior's S, the triangular inverse and the GP
# gradient changed their order of sums (issue 59): relevant sets identical,
# log evidence within 2.2e-6 and fitted values within 8.5e-6 relative, the
# solver's own tolerance (rvm_fast_fixed, rvm_evidence_width, rvm_bic,
# rvm_sample, rvm_student, rvm_centres_weights, sparse_gp_fitc).
test_that("the 18 snapshot fits reproduce the recorded log evidence, relevant sets and fitted values", {
  skip_on_cran()  # the fixture is this machine's arithmetic
  reference <- readRDS(test_path("fixtures", "engine-snapshot.rds"))
  fits <- snapshot_fits()
  expect_identical(names(fits), names(reference))
  for (nm in names(fits)) {
    now <- snapshot_of(suppressWarnings(fits[[nm]]()))
    ref <- reference[[nm]]
    expect_equal(now$logLik, ref$logLik, tolerance = 1e-8, label = paste(nm, "logLik"))
    expect_identical(now$relevant, ref$relevant, label = paste(nm, "relevant"))
    expect_equal(now$fitted, ref$fitted, tolerance = 1e-8, label = paste(nm, "fitted"))
  }
})

test_that("a default rvm() builds each distinct basis once: two on a response without noise, one elsewhere", {
  ns <- asNamespace("sparsebayes")
  built <- 0L
  suppressMessages(trace(".sb_kernel_design", where = ns, tracer = function() built <<- built + 1L, print = FALSE))
  on.exit(suppressMessages(untrace(".sb_kernel_design", where = ns)))
  set.seed(1)
  X <- matrix(runif(160, -2, 2), 80)
  quiet <- rvm(X, sin(X[, 1]) * cos(X[, 2]))
  expect_identical(nrow(quiet$noise_starts), 6L)  # three noise starts on each of the two bases
  expect_identical(built, 2L)
  built <- 0L
  noisy <- rvm(X, sin(X[, 1]) * cos(X[, 2]) + rnorm(80, sd = 0.2))
  expect_identical(nrow(noisy$noise_starts), 3L)
  expect_identical(built, 1L)
})
