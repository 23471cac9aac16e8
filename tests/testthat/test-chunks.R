# Fits from data_chunks(): the same fit as from the rows in memory, under
# every source and plan, and clear errors for what needs the rows.

chunk_data <- function(n = 9000, seed = 1) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = runif(n), x3 = rnorm(n), x4 = rnorm(n),
                  g = sample(c("a", "b", "c"), n, replace = TRUE), stringsAsFactors = FALSE)
  d$y <- 2 + 1.5 * d$x1 - d$x3 + 0.5 * (d$g == "b") + rnorm(n)
  d$w <- sample(1:3, n, replace = TRUE)
  d$off <- runif(n)
  d
}

expect_same_fit <- function(a, b, newdata, tolerance = 1e-8, ...) {
  expect_equal(coef(a), coef(b), tolerance = tolerance)
  expect_equal(as.numeric(logLik(a)), as.numeric(logLik(b)), tolerance = tolerance)
  expect_equal(predict(a, newdata, interval = "prediction", ...), predict(b, newdata, interval = "prediction"),
               tolerance = tolerance)
  expect_equal(a$lambda, b$lambda, tolerance = tolerance)
}

test_that("ard() from chunks of a data frame is the fit from its rows", {
  d <- chunk_data()
  new <- chunk_data(50, seed = 2)
  chunks <- data_chunks(d, chunk_size = 3000)
  expect_output(print(chunks), "3 chunks")
  for (method in c("em", "fast", "mackay")) {
    a <- ard(y ~ x1 + x2 + x3 + x4 + g, data = d, method = method)
    b <- ard(y ~ x1 + x2 + x3 + x4 + g, data = chunks, method = method)
    expect_same_fit(a, b, new)
    expect_equal(b$relevant, a$relevant, info = method)
    expect_equal(nobs(b), 9000)
  }
  # weights and an offset from columns
  a <- ard(y ~ x1 + x2 + x3 + x4 + g, data = d, weights = w, offset = off)
  b <- ard(y ~ x1 + x2 + x3 + x4 + g, data = chunks, weights = w, offset = off)
  expect_same_fit(a, b, new)
  expect_equal(b$weight_unit, a$weight_unit)
  # equal weights are none, as from the rows
  d$w2 <- 3
  expect_same_fit(ard(y ~ x1 + g, data = d, weights = w2), ard(y ~ x1 + g, data = data_chunks(d, chunk_size = 2000), weights = w2), new)
})

test_that("a fit from chunks keeps no rows and says what needs them", {
  d <- chunk_data(3000)
  fit <- ard(y ~ x1 + x2 + g, data = data_chunks(d, chunk_size = 1000))
  full <- ard(y ~ x1 + x2 + g, data = d)
  expect_null(fit$fitted.values)
  expect_null(fit$residuals)
  # no n-length vector: the fit of 10 times the rows is no larger
  big <- ard(y ~ x1 + x2 + g, data = data_chunks(chunk_data(30000), chunk_size = 10000))
  expect_equal(as.numeric(object.size(big)), as.numeric(object.size(fit)), tolerance = 0.01)
  expect_equal(fit$chunks$rss, sum(residuals(full)^2), tolerance = 1e-8)
  s <- summary(fit)
  expect_equal(s$rmse, summary(full)$rmse, tolerance = 1e-8)
  expect_equal(s$r_squared, summary(full)$r_squared, tolerance = 1e-8)
  expect_output(print(s), "Training RMSE")
  expect_equal(confint(fit), confint(full), tolerance = 1e-8)
  expect_equal(deviance(fit), deviance(full), tolerance = 1e-8)
  expect_equal(df.residual(fit), df.residual(full), tolerance = 1e-8)
  for (f in list(fitted, residuals, hatvalues, outliers, model.frame, function(x) predict(x),
                 function(x) plot(x, which = "fit"), function(x) ess(x, which = "samples")))
    expect_error(f(fit), "does not keep")
  # what needs no rows works: the default plot (the weights' relevance) and glance() (NA for the samples' ESS)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(fit), fit)
  g <- broom::glance(fit)
  expect_true(is.na(g$ess_samples))
  expect_equal(g$ess_weights, ess(full, which = "weights"), tolerance = 1e-6)
  # an rvm() from chunks: regression and two classes
  d$cls <- factor(d$y > 2)
  centres <- as.matrix(d[seq(1, 3000, length.out = 30), c("x1", "x2")])
  chunks <- data_chunks(d, chunk_size = 1000)
  for (r in list(rvm(y ~ x1 + x2, data = chunks, centres = centres, kernel = kernel_gaussian(1)),
                 rvm(cls ~ x1 + x2, data = chunks, centres = centres, kernel = kernel_gaussian(1)))) {
    expect_identical(plot(r), r)
    expect_error(plot(r, which = "fit"), "does not keep")
    expect_true(is.na(broom::glance(r)$ess_samples))
  }
  expect_error(plot(r, which = "reliability"), "does not keep")
})

test_that("a chunk whose every row has NA is counted as left out", {
  d <- chunk_data(2000)
  d$x1[1400:2000] <- NA  # chunk 4 of 600 rows: every row
  fit <- ard(y ~ x1 + x2, data = data_chunks(d, chunk_size = 600))
  expect_equal(fit$chunks$omitted, 601)
  expect_equal(fit$chunks$rows, 1399)  # the rows of the model frame: none of the NA-only chunk's
  expect_equal(nobs(fit), 1399)
  expect_output(print(summary(fit)), "601 with NA left out")
  expect_equal(coef(fit), coef(ard(y ~ x1 + x2, data = d)), tolerance = 1e-8)
})

test_that("factor levels, missing values and data-dependent terms are taken across chunks", {
  d <- chunk_data(3000)
  d$g[1:1500] <- "a"  # the first chunk sees one level
  d$x2[c(5, 2500)] <- NA
  a <- ard(y ~ x1 + x2 + g, data = d)
  b <- ard(y ~ x1 + x2 + g, data = data_chunks(d, chunk_size = 1000))
  expect_equal(b$xlevels$g, c("a", "b", "c"))
  expect_equal(nobs(b), 2998)
  expect_equal(b$chunks$omitted, 2)
  expect_equal(b$chunks$passes, 2L)  # the levels, then the sums
  expect_same_fit(a, b, chunk_data(20, seed = 3))
  # poly() takes its basis from the first chunk
  p <- ard(y ~ poly(x1, 2), data = data_chunks(d, chunk_size = 1000))
  expect_equal(eval(attr(p$terms, "predvars")[[3]]$coefs), attr(poly(d$x1[1:1000], 2), "coefs"))
})

test_that("a biglm-style function and files give the fit of the data frame", {
  d <- chunk_data(4000)
  reference <- ard(y ~ x1 + x3 + g, data = data_chunks(d, chunk_size = 1000))
  position <- 0L
  reader <- function(reset) {
    if (reset) {
      position <<- 0L
      return(invisible(NULL))
    }
    if (position >= nrow(d)) return(NULL)
    rows <- position + seq_len(min(1000L, nrow(d) - position))
    position <<- max(rows)
    d[rows, ]
  }
  expect_same_fit(ard(y ~ x1 + x3 + g, data = data_chunks(reader)), reference, d[1:10, ])
  part <- function(i) d[(i - 1) * 1000 + 1:1000, ]
  expect_output(print(data_chunks(part, chunks = 4)), "number, 4 chunks")
  expect_same_fit(ard(y ~ x1 + x3 + g, data = data_chunks(part, chunks = 4)), reference, d[1:10, ])
  expect_error(data_chunks(part, chunks = 0), "chunks")
  files <- file.path(withr::local_tempdir(), sprintf("part-%d.csv", 1:4))
  for (i in 1:4) utils::write.csv(d[(i - 1) * 1000 + 1:1000, ], files[i], row.names = FALSE)
  expect_same_fit(ard(y ~ x1 + x3 + g, data = data_chunks(files)), reference, d[1:10, ])
})

test_that("a query on a SQLite table gives the fit of the data frame", {
  skip_if_not_installed("RSQLite")
  d <- chunk_data(1e5)
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "big", d)
  reference <- ard(y ~ x1 + x2 + x3 + x4 + g, data = d, weights = w)
  query <- "SELECT y, x1, x2, x3, x4, g, w FROM big"
  fit <- ard(y ~ x1 + x2 + x3 + x4 + g, data = data_chunks(con, query, chunk_size = 30000), weights = w)
  expect_same_fit(fit, reference, d[1:10, ])
  DBI::dbDisconnect(con)
  # each worker opens its own connection
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), path)
  again <- ard(y ~ x1 + x2 + x3 + x4 + g, data = data_chunks(connect, query, chunk_size = 30000), weights = w)
  expect_identical(coef(again), coef(fit))
  # a statement's closing semicolon (and white space) is no part of the query read inside SELECT ... FROM (query)
  closed <- ard(y ~ x1 + x2 + x3 + x4 + g, data = data_chunks(connect, paste0(query, " ;\n"), chunk_size = 30000),
                weights = w)
  expect_identical(coef(closed), coef(fit))
})

test_that("the fit from chunks is the same under a sequential and a multisession plan", {
  skip_on_cran()
  skip_if_not_installed("future")
  d <- chunk_data(6000)
  chunks <- data_chunks(d, chunk_size = 500)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  a <- ard(y ~ x1 + x2 + x3 + g, data = chunks)
  future::plan(future::multisession, workers = 2)
  b <- ard(y ~ x1 + x2 + x3 + g, data = chunks)
  expect_identical(coef(b), coef(a))
  expect_identical(b$logLik, a$logLik)
})

test_that("a source whose rows change between the passes of a fit is an error", {
  d <- chunk_data(2000)
  centres <- as.matrix(d[seq(1, 2000, length.out = 20), c("x1", "x2")])
  # a generator that gives 3 chunks, then 5 (its first two rewinds: the first chunk, the first pass)
  regrouped <- local({
    i <- 0; rewinds <- 0
    function(reset) {
      if (reset) { i <<- 0; rewinds <<- rewinds + 1; return(invisible()) }
      k <- if (rewinds <= 2) 3 else 5
      i <<- i + 1
      if (i > k) return(NULL)
      cuts <- round(seq(0, 2000, length.out = k + 1))
      d[(cuts[i] + 1):cuts[i + 1], ]
    }
  })
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(regrouped), kernel = kernel_gaussian(1), centres = centres),
               "gave 5 chunks, 2000 rows in a later pass, where the fit's first pass read 3 chunks, 2000 rows")
  # the same rows, one value changed after the first pass
  changed <- local({
    i <- 0; rewinds <- 0
    function(reset) {
      if (reset) { i <<- 0; rewinds <<- rewinds + 1; return(invisible()) }
      i <<- i + 1
      if (i > 4) return(NULL)
      x <- d[(i - 1) * 500 + 1:500, ]
      if (rewinds > 2 && i == 3) x$x1[7] <- x$x1[7] + 1
      x
    }
  })
  d$cls <- factor(d$y > 2)
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(changed), kernel = kernel_gaussian(1), centres = centres),
               "other values in chunk 3")
  # an indexed source read by the workers alike
  pass <- 0
  indexed <- function(i) { if (i == 1) pass <<- pass + 1; x <- d[(i - 1) * 500 + 1:500, ]; if (pass > 2) x$y <- -x$y; x }
  expect_error(rvm(y ~ x1 + x2, data = data_chunks(indexed, chunks = 4), kernel = kernel_gaussian(1), centres = centres),
               "other values in chunk 1")
})

test_that("a connection function's globals go with it to the workers (the vignette's recipe)", {
  skip_on_cran()
  skip_if_not_installed("RSQLite")
  skip_if_not_installed("future")
  d <- chunk_data(3000)
  # the connection function as a user writes it at top level: its `path` is a global, not sent to a worker
  path <- withr::local_tempfile(fileext = ".sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  DBI::dbWriteTable(con, "big", d)
  DBI::dbDisconnect(con)
  assign("sb_test_sqlite_path", path, envir = globalenv())
  on.exit(rm("sb_test_sqlite_path", envir = globalenv()), add = TRUE)
  connect <- function() DBI::dbConnect(RSQLite::SQLite(), sb_test_sqlite_path)
  environment(connect) <- globalenv()
  chunks <- data_chunks(connect, "SELECT * FROM big", chunk_size = 1000)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  a <- ard(y ~ x1 + x2 + g, data = chunks)
  future::plan(future::multisession, workers = 2)
  b <- ard(y ~ x1 + x2 + g, data = chunks)
  expect_identical(coef(b), coef(a))
})

test_that("data_chunks() and fits from it refuse what they cannot do, clearly", {
  d <- chunk_data(600)
  chunks <- data_chunks(d, chunk_size = 200)
  expect_error(data_chunks(d, chunk_size = 0), "chunk_size")
  expect_error(data_chunks(d[0, ]), "no rows")
  expect_error(data_chunks(42), "must be a data frame")
  expect_error(data_chunks(c("no-such-file-1.csv")), "do not exist")
  expect_error(data_chunks(d, query = 1), "query")
  expect_error(ard(y ~ x1, data = chunks, noise = "student", method = "fast"), "reads every row at every step")
  expect_error(ard(y ~ x1, data = chunks, method = "irls1"), "reads every row")
  expect_error(ard(y ~ x1, data = chunks, method = "gradient"), "reads every row")
  expect_error(ard(y ~ x1, data = data_chunks(function(reset) NULL)), "no chunk")
  # an indexed source's chunk that is not a data frame is named, not a formula variable "not found"
  indexed <- function(i) if (i == 2L) NULL else d[(i - 1) * 200 + 1:200, ]
  expect_error(ard(y ~ x1, data = data_chunks(indexed, chunks = 3)), "chunk 2 of 3 is NULL, not a data frame")
  expect_error(ard(y ~ x1, data = data_chunks(function(i) d$x1, chunks = 3)), "chunk 1 of 3 is a numeric")
  # a sparse GP's sample size is checked before any pass (no future code dump before the message)
  err <- tryCatch(sparse_gp(y ~ x1, data = chunks, control = sparse_gp_control(subsample = Inf)),
                  error = conditionMessage)
  expect_match(err, "^`control` must have a finite `subsample`")
  bad <- d
  bad$y[450] <- Inf
  expect_error(ard(y ~ x1, data = data_chunks(bad, chunk_size = 200)), "chunk 3")
  bad <- d
  bad$y <- 1
  expect_error(ard(y ~ x1, data = data_chunks(bad, chunk_size = 200)), "constant response")
  bad <- d
  bad$w[300] <- -1
  expect_error(ard(y ~ x1, data = data_chunks(bad, chunk_size = 200), weights = w), "non-negative \\(in chunk 2")
})

rvm_chunk_data <- function(n = 6000, seed = 4) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n, -3, 3), x2 = runif(n, -3, 3))
  d$y <- sin(2 * d$x1) + 0.3 * d$x2^2 + rnorm(n, sd = 0.2)
  d$w <- sample(1:2, n, replace = TRUE)
  d
}

test_that("rvm() from chunks, given its centres and widths, is the fit from the rows", {
  d <- rvm_chunk_data()
  new <- rvm_chunk_data(30, seed = 5)
  centres <- as.matrix(d[seq(1, 6000, by = 100), c("x1", "x2")])
  chunks <- data_chunks(d, chunk_size = 2500)
  for (method in c("fast", "em")) {
    k <- kernel_gaussian(width = c(0.4, 0.6))
    a <- rvm(y ~ x1 + x2, data = d, kernel = k, centres = centres, method = method)
    b <- rvm(y ~ x1 + x2, data = chunks, kernel = k, centres = centres, method = method)
    expect_same_fit(a, b, new, variance = "rvm")
    expect_equal(b$relevant, a$relevant)
  }
  a <- rvm(y ~ x1 + x2, data = d, kernel = kernel_laplace(width = 1), centres = centres, weights = w)
  b <- rvm(y ~ x1 + x2, data = chunks, kernel = kernel_laplace(width = 1), centres = centres, weights = w)
  expect_same_fit(a, b, new, variance = "rvm")
  expect_error(predict(b, new, interval = "prediction", variance = "augmented"), "does not keep")
  expect_equal(summary(b)$rmse, sqrt(sum(d$w / mean(d$w) * residuals(a)^2) / 6000), tolerance = 1e-8)  # weighted
  expect_error(fitted(b), "does not keep")
})

test_that("rvm() from chunks learns its widths and centres on a sample, and predicts as the fit from the rows", {
  d <- rvm_chunk_data(8000)
  new <- rvm_chunk_data(2000, seed = 6)
  f <- function(x) sin(2 * x$x1) + 0.3 * x$x2^2
  expect_message(b <- rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 3000), centres = 200), NA)
  a <- rvm(y ~ x1 + x2, data = d, centres = 200)
  rmse <- function(fit) sqrt(mean((predict(fit, new) - f(new))^2))
  # both learn the widths on 300 random rows (of the sample, or of the rows): errors a fifth of the noise's sd
  expect_lt(rmse(a), 0.05)
  expect_lt(rmse(b), 0.05)
  expect_equal(nrow(b$centres), 200)
  expect_error(rvm(y ~ x1, data = data_chunks(d), family = binomial()), "0/1")
  expect_error(rvm(y ~ x1, data = data_chunks(d), family = poisson()), "must be non-negative whole numbers \\(counts\\) for the poisson family")
  expect_error(rvm(y ~ x1, data = data_chunks(d), kernel = kernel_wavelet("haar")), "single kernel")
  expect_error(rvm(y ~ x1, data = data_chunks(d), noise = "sample"), "shared")
  # a smoothness prior needs the fast solver, from chunks as from the rows
  expect_error(rvm(y ~ x1, data = data_chunks(d), kernel = kernel_gaussian(1), centres = 10, method = "em", prior = "BIC"),
               "needs method = \"fast\"")
})

test_that("rvm() from chunks narrows the GP's widths while the evidence on its rows grows", {
  d <- rvm_chunk_data(20000, seed = 7)
  b <- suppressMessages(rvm(y ~ x1 + x2, data = data_chunks(d, chunk_size = 5000), centres = 150))
  learned <- b$kernel$learned
  expect_true(learned$basis_multiple %in% 2^-(0:6 / 2))
  expect_gte(learned$basis_gain, 0)
  expect_equal(learned$basis_rows, 20000L)  # every row, below chunk_width_rows
  expect_equal(b$kernel$width, learned$width * learned$basis_multiple)
  expect_output(print(summary(b)), "basis widths the GP's times")
  expect_identical(input_relevance(b)$input[1L], "x1")  # from the centres' names: no rows kept
  g <- sparse_gp(y ~ x1 + x2, data = data_chunks(d[1:3000, ], chunk_size = 1000), inducing = 20)
  expect_setequal(input_relevance(g)$input, c("x1", "x2"))
})

test_that("summary() says a fit was made from chunks", {
  d <- chunk_data(900)
  d$x1[3] <- NA
  s <- summary(ard(y ~ x1 + g, data = data_chunks(d, chunk_size = 300)))
  expect_output(print(s), "Data: +a data frame of 900 rows in chunks, 2 passes, 899 rows fitted \\(1 with NA left out\\)")
  expect_false(any(grepl("^Data:", capture.output(print(summary(ard(y ~ x1 + g, data = d)))))))
})

test_that("the sample of rows an rvm() from chunks learns on is uniform, even from a generator seeded by chunk", {
  make <- function(i) {
    set.seed(i)  # the generator's inputs are its seed's uniforms
    x <- runif(2000, -3, 3)
    data.frame(x = x, y = sin(2 * x) + rnorm(2000, sd = 0.3))
  }
  ns <- asNamespace("sparsebayes")
  src <- data_chunks(make, chunks = 5)
  spec <- ns$chunk_spec(quote(rvm(formula = y ~ x, data = src)), environment(), src, FALSE)
  sample <- ns$chunk_sums_pass(src, spec, 1000L)$sample
  expect_equal(nrow(sample$x), 1000)
  expect_gt(suppressWarnings(stats::ks.test(sample$x[, 1], "punif", -3, 3)$p.value), 0.01)
  expect_equal(sd(sample$y - sin(2 * sample$x[, 1])), 0.3, tolerance = 0.1)  # inputs and responses stay paired
  fit <- suppressMessages(rvm(y ~ x, data = src, centres = 100))
  grid <- data.frame(x = seq(-2.9, 2.9, length.out = 200))
  expect_lt(sqrt(mean((predict(fit, grid) - sin(2 * grid$x))^2)), 0.1)
})

test_that("exact copies are pooled from chunks as from the rows, across chunk boundaries", {
  d <- chunk_data(600, seed = 3)
  new <- chunk_data(40, seed = 4)
  # copies of 200 rows, some in the same chunk and some in another; then with integer weights and an offset
  dup <- rbind(d, d[c(1:100, 401:500), ])
  chunks <- data_chunks(dup, chunk_size = 250)
  for (method in c("fast", "em")) {
    a <- ard(y ~ x1 + x2 + x3 + x4 + g, data = dup, method = method)
    b <- ard(y ~ x1 + x2 + x3 + x4 + g, data = chunks, method = method)
    expect_same_fit(a, b, new)
    expect_equal(vcov(b), vcov(a), tolerance = 1e-8)
  }
  a <- ard(y ~ x1 + x2 + x3 + x4 + g, data = dup, weights = w, offset = off)
  b <- ard(y ~ x1 + x2 + x3 + x4 + g, data = chunks, weights = w, offset = off)
  expect_same_fit(a, b, new)
  # two copies of every row are the rows themselves
  twice <- data_chunks(rbind(d, d), chunk_size = 500)
  expect_same_fit(ard(y ~ x1 + x3 + g, data = twice), ard(y ~ x1 + x3 + g, data = d), new)
  # rvm(): the kernel basis on given centres and width
  C <- as.matrix(d[seq(1, 600, length.out = 25), c("x1", "x3")])
  a <- rvm(y ~ x1 + x3, data = dup, kernel = kernel_gaussian(1.5), centres = C)
  b <- rvm(y ~ x1 + x3, data = chunks, kernel = kernel_gaussian(1.5), centres = C)
  expect_equal(coef(b), coef(a), tolerance = 1e-8)
  expect_equal(as.numeric(logLik(b)), as.numeric(logLik(a)), tolerance = 1e-8)
  expect_equal(b$lambda, a$lambda, tolerance = 1e-8)
  expect_equal(predict(b, new), predict(a, new), tolerance = 1e-8)
})
