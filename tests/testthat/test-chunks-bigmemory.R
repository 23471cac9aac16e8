# Fits from a bigmemory::big.matrix through data_chunks(): read in row
# blocks (file-backed: attached again by each worker from its descriptor;
# in memory: read in the calling process), the same fit as from the rows
# in a data frame, and no file left behind.

big_data <- function(n = 5000, seed = 11) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = runif(n, -2, 2), x3 = rnorm(n), x4 = rnorm(n))
  d$y <- 1 + 2 * d$x1 - d$x3 + sin(2 * d$x2) + rnorm(n, sd = 0.3)
  d
}

# A file-backed big.matrix of d in a folder of its own.
file_backed <- function(d, dir) {
  bigmemory::as.big.matrix(as.matrix(d), type = "double", backingfile = "d.bin", descriptorfile = "d.desc",
                           backingpath = dir)
}

test_that("a file-backed big.matrix gives the fit of the data frame, under a sequential and a multisession plan", {
  skip_on_cran()
  skip_if_not_installed("bigmemory")
  skip_if_not_installed("future")
  d <- big_data()
  dir <- tempfile("sb-bigmemory-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  m <- file_backed(d, dir)
  expect_true(bigmemory::is.filebacked(m))
  chunks <- data_chunks(m, chunk_size = 1200)  # 5 chunks, the last of 200 rows
  expect_output(print(chunks), "file-backed big.matrix of 5000 rows.*5 chunks")
  # the source holds the descriptor and the folder, not the matrix (an external pointer)
  expect_null(chunks$matrix)
  expect_s4_class(chunks$descriptor, "big.matrix.descriptor")

  new <- big_data(20, seed = 12)
  centres <- as.matrix(d[seq(1, 5000, by = 125), c("x1", "x2")])
  kernel <- kernel_gaussian(width = 0.8)
  ard_rows <- ard(y ~ x1 + x2 + x3 + x4, data = d)
  rvm_rows <- rvm(y ~ x1 + x2, data = d, kernel = kernel, centres = centres)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  for (plan in c("sequential", "multisession")) {
    if (plan == "multisession") future::plan(future::multisession, workers = 2)
    a <- ard(y ~ x1 + x2 + x3 + x4, data = chunks)
    expect_equal(coef(a), coef(ard_rows), tolerance = 1e-8, info = plan)
    expect_equal(as.numeric(logLik(a)), as.numeric(logLik(ard_rows)), tolerance = 1e-8, info = plan)
    expect_equal(predict(a, new, interval = "prediction"), predict(ard_rows, new, interval = "prediction"),
                 tolerance = 1e-8, info = plan)
    expect_equal(nobs(a), 5000)
    r <- rvm(y ~ x1 + x2, data = chunks, kernel = kernel, centres = centres)
    expect_equal(r$relevant, rvm_rows$relevant, info = plan)
    expect_equal(coef(r), coef(rvm_rows), tolerance = 1e-8, info = plan)
    expect_equal(predict(r, new, interval = "prediction"),
                 predict(rvm_rows, new, interval = "prediction", variance = "rvm"), tolerance = 1e-8, info = plan)
  }
  # nothing written beside the backing and descriptor files
  expect_setequal(list.files(dir, all.files = TRUE, no.. = TRUE), c("d.bin", "d.desc"))
  future::plan(future::sequential)
  rm(m)
  gc()
  unlink(dir, recursive = TRUE)
  expect_false(dir.exists(dir))
})

test_that("a big.matrix in memory is read in the calling process, with the same fit", {
  skip_if_not_installed("bigmemory")
  d <- big_data(3000)
  m <- bigmemory::as.big.matrix(as.matrix(d), type = "double")
  expect_false(bigmemory::is.filebacked(m))
  chunks <- data_chunks(m, chunk_size = 1000)
  expect_output(print(chunks), "big.matrix of 3000 rows in memory.*3 chunks")
  expect_equal(coef(ard(y ~ x1 + x2 + x3, data = chunks)), coef(ard(y ~ x1 + x2 + x3, data = d)), tolerance = 1e-8)
  # integer columns are read as numbers; the names of the columns are the formula's variables
  counts <- round(as.matrix(d) * 100)
  storage.mode(counts) <- "integer"
  mi <- bigmemory::as.big.matrix(counts, type = "integer")
  di <- as.data.frame(counts)
  expect_equal(coef(ard(y ~ x1 + x2, data = data_chunks(mi, chunk_size = 700))), coef(ard(y ~ x1 + x2, data = di)),
               tolerance = 1e-8)
  unnamed <- bigmemory::big.matrix(10, 2, init = 0)
  expect_error(data_chunks(unnamed), "without column names")
  expect_error(ard(y ~ x9, data = chunks), "x9")
})
