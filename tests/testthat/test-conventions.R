# R's data conventions, as lm and glm have them: the stored call, update(),
# na.exclude padding, data row names, column names, ordered factors, Matrix
# objects and control objects checked again at fit time.

mcycle_na <- function() {
  d <- MASS::mcycle
  rownames(d) <- paste0("r", seq_len(nrow(d)))
  d$accel[c(3, 10)] <- NA
  d$times[50] <- NA
  d
}

test_that("the stored call names the generic, so update() and getCall() work", {
  d <- MASS::mcycle
  fits <- list(rvm = rvm(accel ~ times, data = d), ard = ard(accel ~ poly(times, 3), data = d),
               sparse_gp = sparse_gp(accel ~ times, data = d, inducing = 8, seed = 1, optimize = "none"))
  for (generic in names(fits)) {
    fit <- fits[[generic]]
    expect_identical(fit$call[[1L]], as.name(generic), info = generic)
    expect_false(any(grepl("\\.formula|\\.default", capture.output(print(fit)))), info = generic)
    again <- eval(stats::getCall(fit))
    expect_equal(fitted(again), fitted(fit), info = generic)
  }
  laplace <- update(fits$rvm, kernel = "laplace")
  expect_identical(laplace$kernel$type, "laplace")
  expect_identical(update(fits$ard, noise = "sample")$noise, "sample")
  x <- d$times
  y <- d$accel
  m <- rvm(x, y)
  expect_identical(m$call[[1L]], as.name("rvm"))
  expect_false(update(m, bias = FALSE)$bias)
})

test_that("na.exclude pads fitted, residuals, hatvalues and predict like lm", {
  d <- mcycle_na()
  n <- nrow(d)
  fits <- list(rvm = rvm(accel ~ times, data = d, na.action = na.exclude),
               ard = ard(accel ~ times + I(times^2), data = d, na.action = na.exclude),
               gp = sparse_gp(accel ~ times, data = d, na.action = na.exclude, inducing = 8, seed = 1,
                              optimize = "none"))
  for (nm in names(fits)) {
    fit <- fits[[nm]]
    for (v in list(fitted(fit), residuals(fit), residuals(fit, type = "pearson"), residuals(fit, type = "loo"),
                   hatvalues(fit), predict(fit))) {
      expect_length(v, n)
      expect_true(all(is.na(v[c(3, 10, 50)])), info = nm)
      expect_false(anyNA(v[-c(3, 10, 50)]), info = nm)
      expect_identical(names(v)[1:2], c("r1", "r2"), info = nm)
    }
    pr <- predict(fit, interval = "prediction")
    expect_identical(dim(pr), c(n, 3L), info = nm)
    se <- predict(fit, se.fit = TRUE)
    expect_length(se$fit, n)
    expect_length(se$se.fit, n)
  }
  # na.omit keeps the complete-case count, as lm does.
  omit <- rvm(accel ~ times, data = d, na.action = na.omit)
  expect_length(residuals(omit), n - 3L)
  expect_length(fitted(omit), n - 3L)
})

test_that("outliers() and relevance_vectors() name data rows", {
  d <- mcycle_na()
  fit <- rvm(accel ~ times, data = d, na.action = na.exclude)
  out <- outliers(fit, n = 5)
  expect_identical(rownames(out), paste0("r", out$index))
  kept <- setdiff(seq_len(nrow(d)), c(3, 10, 50))
  expect_equal(unname(d$accel[out$index] - fitted(fit)[out$index]), out$residual)
  rv <- relevance_vectors(fit)
  expect_true(all(rownames(rv) %in% rownames(d)[kept]))
  expect_equal(unname(rv[, "times"]), d[rownames(rv), "times"])
})

test_that("cbind() column names: empty and duplicated names are made unique", {
  set.seed(1)
  x <- runif(50)
  y <- x + x^2 + rnorm(50, sd = 0.1)
  X <- cbind(x, x^2)
  expect_identical(colnames(X), c("x", ""))
  r <- rvm(X, y)
  expect_equal(predict(r, X[1:5, ]), unname(fitted(r)[1:5]))
  a <- ard(X, y)
  expect_identical(names(a$alpha), c("(Intercept)", "x", "x2"))
  expect_equal(predict(a, X[1:5, ]), unname(fitted(a)[1:5]))
  # Duplicated names in a user basis: the predictions still use the right columns.
  B <- cbind(1, x, x^2)
  colnames(B) <- c("b", "b", "b")
  u <- rvm(basis = B, y = y)
  expect_identical(names(u$alpha), c("b", "b.1", "b.2"))
  expect_equal(predict(u, B), unname(fitted(u)))
})

test_that("newdata is matched by name when the fit had names, by position otherwise", {
  d <- linear_data()
  fit <- ard(d$X, d$y)
  shuffled <- d$X[, 6:1]
  expect_equal(predict(fit, shuffled), predict(fit, d$X))
  unnamed <- unname(d$X)
  expect_equal(predict(fit, unnamed), predict(fit, d$X))
  partial <- d$X
  colnames(partial)[2] <- "other"
  expect_error(predict(fit, partial), "newdata.*lacks v2")
  plain <- rvm(unname(d$X), d$y)
  expect_equal(predict(plain, d$X[1:4, 6:1]), predict(plain, unname(d$X[1:4, 6:1])))
})

test_that("an ordered factor response is a set of classes", {
  set.seed(4)
  dd <- data.frame(x = rnorm(90), z = rnorm(90))
  dd$y <- cut(dd$x + rnorm(90, sd = 0.3), 3, ordered_result = TRUE)
  fit <- rvm(y ~ x + z, data = dd)
  expect_s3_class(fit, "sb_rvm_multiclass")
  expect_output(print(fit), "Training error")
  expect_identical(levels(predict(fit)), levels(dd$y))
  two <- rvm(y ~ x, data = transform(dd, y = factor(x > 0, ordered = TRUE)))
  expect_output(print(two), "classifier")
})

test_that("Matrix objects are accepted as inputs and newdata", {
  skip_if_not_installed("Matrix")
  d <- linear_data()
  M <- Matrix::Matrix(d$X)
  expect_equal(coef(ard(M, d$y)), coef(ard(d$X, d$y)))
  fit <- rvm(d$X, d$y)
  expect_equal(predict(fit, Matrix::Matrix(d$X[1:3, ])), predict(fit, d$X[1:3, ]))
})

test_that("control objects edited by hand are checked again when a fit starts", {
  d <- sinc_data(40)
  ctrl <- rvm_control()
  ctrl$noise_update_frequency <- 0L
  expect_error(rvm(d$x, d$y, control = ctrl), "`noise_update_frequency` must be >= 1")
  ctrl <- rvm_control()
  ctrl$max_iterations <- NA
  expect_error(rvm(d$x, d$y, control = ctrl), "`max_iterations` must be a single finite number")
  actrl <- ard_control()
  actrl$lambda_min <- -1
  expect_error(ard(cbind(d$x), d$y, control = actrl), "`lambda_min`")
  expect_error(rvm(d$x, d$y, method = "em", control = actrl), "`lambda_min`")
  actrl <- ard_control()
  actrl$warm_start <- NA_integer_
  expect_error(rvm(d$x, d$y, noise = "sample", control = actrl), "`warm_start`")
  gctrl <- sparse_gp_control()
  gctrl$maxit <- 0
  expect_error(sparse_gp(d$x, d$y, control = gctrl), "`maxit`")
  bogus <- rvm_control()
  bogus$extra_setting <- 1
  expect_error(rvm(d$x, d$y, control = bogus), "unknown setting")
})

test_that("sparse_gp() honours offset() terms and the offset argument", {
  d <- MASS::mcycle
  d$base <- 10 * d$times
  plain <- sparse_gp(accel ~ times, data = d, inducing = 10, seed = 1, optimize = "none")
  nd <- data.frame(times = c(10, 20), base = c(100, 200))
  in_formula <- sparse_gp(accel + base ~ times + offset(base), data = d, inducing = 10, seed = 1, optimize = "none")
  expect_equal(unname(fitted(in_formula) - d$base), unname(fitted(plain)))
  expect_equal(predict(in_formula, nd) - predict(plain, nd), c(100, 200))
  as_argument <- sparse_gp(accel + base ~ times, offset = base, data = d, inducing = 10, seed = 1, optimize = "none")
  expect_equal(predict(as_argument, nd), predict(in_formula, nd))
  expect_equal(update(in_formula, inducing = 5)$m, 5L)
  m <- sparse_gp(d$times, d$accel + d$base, offset = d$base, inducing = 10, seed = 1, optimize = "none")
  expect_error(predict(m, c(10, 20)), "`offset` is needed")
  expect_error(predict(m, c(10, 20), offset = 1:3), "`offset` has length 3")
  expect_equal(predict(m, c(10, 20), offset = c(100, 200)), predict(in_formula, nd))
  expect_error(predict(plain, nd, offset = 1), "fitted without an offset")
  expect_error(sparse_gp(d$times, d$accel, offset = c(1, 2)), "`offset` has length 2")
  expect_error(sparse_gp(d$times, d$accel, offset = rep(NA_real_, 133)), "`offset` contains NA")
  expect_error(sparse_gp(d$times, d$accel, weights = rep(NA_real_, 133)), "`weights` contains NA")
})

# The topics of the installed package: name, aliases, keywords.
installed_topics <- function() {
  db <- tools::Rd_db("sparsebayes")
  lapply(db, function(rd) {
    meta <- function(tag) unlist(lapply(rd[vapply(rd, attr, "", "Rd_tag") == tag], as.character))
    list(name = meta("\\name"), aliases = meta("\\alias"), internal = "internal" %in% trimws(meta("\\keyword")))
  })
}

# The topics one entry of a pkgdown reference section selects: a topic name
# or alias, or matches() / starts_with() / ends_with() / contains() of
# aliases, which (as in pkgdown) select no internal topic. Any other
# selector fails, so that this check stays as strict as pkgdown.
pkgdown_select <- function(entry, topics) {
  if (!grepl("\\(", entry))
    return(Filter(function(t) entry %in% c(t$name, t$aliases), topics))
  fun <- sub("\\(.*$", "", entry)
  arg <- eval(parse(text = sub("^[^(]*\\((.*)\\)$", "\\1", entry)))
  test <- switch(fun, matches = function(a) grepl(arg, a), starts_with = function(a) startsWith(a, arg),
                 ends_with = function(a) endsWith(a, arg), contains = function(a) grepl(arg, a, fixed = TRUE),
                 stop("a selector this test does not know: ", entry))
  Filter(function(t) !t$internal && any(test(t$aliases)), topics)
}

test_that("every export is in a topic of the pkgdown reference index (issue 61)", {
  skip_if_not_installed("yaml")
  yml <- test_path("..", "..", "_pkgdown.yml")
  skip_if_not(file.exists(yml), "no _pkgdown.yml (an installed or built package)")
  topics <- installed_topics()
  contents <- unlist(lapply(yaml::read_yaml(yml)$reference, `[[`, "contents"))
  listed <- unique(unlist(lapply(contents, function(e) {
    chosen <- pkgdown_select(e, topics)
    expect_gt(length(chosen), 0L, label = sprintf("topics selected by `%s`", e))
    lapply(chosen, `[[`, "aliases")
  })))
  missing <- setdiff(getNamespaceExports("sparsebayes"), listed)
  expect_identical(sort(missing), character(0))
  expect_true("parsnip_fit" %in% listed)  # the fit function translate() shows
})

test_that("DESCRIPTION links to no repository or issue tracker the package does not have (issue 61)", {
  desc <- utils::packageDescription("sparsebayes")
  expect_null(desc$URL)
  expect_null(desc$BugReports)
  yml <- test_path("..", "..", "_pkgdown.yml")
  skip_if_not(file.exists(yml), "no _pkgdown.yml")
  skip_if_not_installed("yaml")
  site <- yaml::read_yaml(yml)
  expect_null(site$repo)
  expect_false(any(grepl("github\\.com|gitlab|bitbucket", readLines(yml))))
})
