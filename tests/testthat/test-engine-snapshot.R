# The engine's behaviour snapshot (helper-snapshot.R): every fit reproduces
# the log evidence, relevant set and fitted values recorded before the
# engine refactor to 1e-8.
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
