#' Data read in chunks: data frames, functions, databases and files
#'
#' A source of rows that a formula fit reads in chunks instead of holding
#' them in memory: give it as `data =` to [ard()]. A Gaussian fit with
#' shared noise needs only sums over the rows (the basis' cross-products,
#' DESIGN's statistics layer), so the memory it holds does not grow with the
#' number of rows.
#'
#' @section Sources:
#' * a data frame or matrix, read `chunk_size` rows at a time;
#' * a function following biglm's protocol: `data(reset = TRUE)` rewinds,
#'   `data(reset = FALSE)` returns the next chunk as a data frame, or `NULL`
#'   after the last one;
#' * a DBI connection and a `query`: chunk `i` is the query's rows
#'   `chunk_size * (i - 1) + 1` to `chunk_size * i` (LIMIT and OFFSET; give
#'   the query an `ORDER BY` where the database does not keep the row order);
#' * a function returning a DBI connection, and a `query`: the same, but
#'   each worker opens its own connection (a connection cannot be sent to
#'   another process);
#' * a character vector of file paths, one chunk per file, read by `read`.
#'
#' @section Passes and where they run:
#' A fit reads the chunks several times (passes): [ard()] reads them once
#' for the factors' levels when the formula has factor or character
#' variables, once for the means and scales of the inputs and the response,
#' and once for the statistics. The chunks of a pass are processed through
#' [future.apply::future_lapply()], so `future::plan()` decides where:
#' sequentially, on local workers (`multisession`), on other machines
#' (`cluster`) or through a scheduler (future.batchtools). Data frames,
#' files and connection functions are read by the workers themselves;
#' biglm-style functions and live connections are read in the calling
#' process, in order. The chunks are grouped in a fixed way and their sums
#' added in order, so that the fit does not depend on the plan. Each pass
#' reports its progress through [progressr::progressor()].
#'
#' Terms whose meaning depends on the data (`poly()`, `ns()`, `scale()`)
#' take it from the first chunk. Factor levels are the union over all
#' chunks. Rows with missing values are handled chunk by chunk by
#' `na.action`; weights and offsets come from columns, as in [lm()].
#'
#' @param data A data frame or matrix, a function (biglm's `data(reset)`
#'   protocol, or one returning a DBI connection when `query` is given), a
#'   DBI connection, or a character vector of file paths.
#' @param query For a connection: the SQL query whose rows are read.
#' @param chunk_size Rows per chunk (data frames and queries).
#' @param read For files: the function reading one file into a data frame.
#' @return An object of class `"sb_chunks"`.
#' @seealso [ard()], which fits from it.
#' @examples
#' chunks <- data_chunks(mtcars, chunk_size = 10)
#' chunks
#' fit <- ard(mpg ~ wt + hp + qsec, data = chunks)
#' coef(fit)
#' \donttest{
#' if (requireNamespace("RSQLite", quietly = TRUE)) {
#'   con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#'   DBI::dbWriteTable(con, "cars", mtcars)
#'   fit <- ard(mpg ~ wt + hp + qsec, data = data_chunks(con, "SELECT * FROM cars", chunk_size = 10))
#'   DBI::dbDisconnect(con)
#' }
#' }
#' @export
data_chunks <- function(data, query = NULL, chunk_size = 1e5, read = utils::read.csv) {
  if (!is.numeric(chunk_size) || length(chunk_size) != 1L || !is.finite(chunk_size) || chunk_size < 1)
    stop_arg("chunk_size", "must be a number of rows, at least 1.")
  chunk_size <- as.integer(ceiling(chunk_size))
  if (!is.null(query) && !(is.character(query) && length(query) == 1L && !is.na(query)))
    stop_arg("query", "must be one SQL query (a string).")
  source <- if (is.data.frame(data) || is.matrix(data)) {
    data <- as.data.frame(data)
    if (!nrow(data)) stop_arg("data", "has no rows.")
    list(kind = "frame", data = data, chunk_size = chunk_size, count = ceiling(nrow(data) / chunk_size),
         label = sprintf("a data frame of %d rows", nrow(data)))
  } else if (inherits(data, "DBIConnection")) {
    if (is.null(query)) stop_arg("query", "is needed to read from a database connection.")
    list(kind = "connection", connection = data, query = query, chunk_size = chunk_size,
         count = query_chunks(data, query, chunk_size), label = sprintf("the query %s", sQuote(query, FALSE)))
  } else if (is.function(data) && !is.null(query)) {
    con <- data()
    if (!inherits(con, "DBIConnection")) stop_arg("data", "with a `query` must return a DBI connection.")
    count <- query_chunks(con, query, chunk_size)
    DBI::dbDisconnect(con)
    list(kind = "connect", connect = data, query = query, chunk_size = chunk_size, count = count,
         label = sprintf("the query %s", sQuote(query, FALSE)))
  } else if (is.function(data)) {
    list(kind = "function", next_chunk = data, count = NA_integer_, label = "a function of `reset`")
  } else if (is.character(data)) {
    if (!length(data) || anyNA(data)) stop_arg("data", "must name at least one file.")
    missing_files <- data[!file.exists(data)]
    if (length(missing_files)) stop_arg("data", sprintf("names files that do not exist: %s.", paste(missing_files, collapse = ", ")))
    if (!is.function(read)) stop_arg("read", "must be a function reading one file into a data frame.")
    list(kind = "files", files = data, read = read, count = length(data),
         label = sprintf("%d file%s", length(data), if (length(data) == 1L) "" else "s"))
  } else {
    stop_arg("data", "must be a data frame, a matrix, a function, a DBI connection or file paths.")
  }
  structure(source, class = "sb_chunks")
}

#' @export
print.sb_chunks <- function(x, ...) {
  cat(sprintf("<data_chunks> %s%s\n", x$label,
              if (is.na(x$count)) ", read until it returns NULL" else sprintf(", %d chunk%s", x$count, if (x$count == 1L) "" else "s")))
  invisible(x)
}

# The number of chunks of a query: its rows counted by the database.
query_chunks <- function(con, query, chunk_size) {
  rows <- DBI::dbGetQuery(con, sprintf("SELECT COUNT(*) AS n FROM (%s) AS sb_query", query))$n
  if (!length(rows) || rows < 1) stop_arg("query", "returns no rows.")
  as.integer(ceiling(rows / chunk_size))
}

# Chunk i of an indexed source, as a data frame (`con`: an open connection).
read_chunk <- function(source, i, con = NULL) {
  switch(source$kind,
         frame = {
           rows <- ((i - 1L) * source$chunk_size + 1L):min(i * source$chunk_size, nrow(source$data))
           source$data[rows, , drop = FALSE]
         },
         files = as.data.frame(source$read(source$files[i])),
         DBI::dbGetQuery(con, sprintf("SELECT * FROM (%s) AS sb_query LIMIT %d OFFSET %.0f", source$query,
                                      source$chunk_size, (i - 1) * source$chunk_size)))
}

# One pass over the chunks: f(chunk) for every chunk, combined in order by
# combine(a, b) into one value. The chunks are split into at most 16
# contiguous groups, a grouping fixed by the number of chunks alone: each
# group is combined where it is computed (future_lapply(), where
# future::plan() says), and the groups' values in order here, so the result
# is the same under every plan. Memory: the groups' values, never a row
# more than one chunk's.
chunk_pass <- function(source, f, combine, what) {
  if (source$kind == "function") return(function_pass(source, f, combine, what))
  k <- source$count
  groups <- split(seq_len(k), ceiling(seq_len(k) * min(k, 16L) / k))
  progress <- progressr::progressor(steps = k, label = what)
  group_value <- function(chunks, con = NULL) {
    if (source$kind == "connect") {
      con <- source$connect()
      on.exit(DBI::dbDisconnect(con))
    }
    value <- NULL
    for (i in chunks) {
      v <- f(read_chunk(source, i, con), i)
      value <- if (is.null(value)) v else combine(value, v)
      progress()
    }
    value
  }
  values <- if (source$kind == "connection")  # a live connection stays in this process
    lapply(groups, group_value, con = source$connection)
  else future.apply::future_lapply(groups, group_value, future.seed = NULL, future.chunk.size = 1L)
  Reduce(combine, values)
}

# A pass over a biglm-style function: rewind, then chunks until NULL.
function_pass <- function(source, f, combine, what) {
  source$next_chunk(reset = TRUE)
  progress <- progressr::progressor(steps = 1L, label = what)
  value <- NULL
  i <- 0L
  while (!is.null(chunk <- source$next_chunk(reset = FALSE))) {
    i <- i + 1L
    v <- f(as.data.frame(chunk), i)
    value <- if (is.null(value)) v else combine(value, v)
  }
  progress()
  if (is.null(value)) stop_arg("data", "returned no chunk after `reset = TRUE`.")
  value
}

# The first chunk of a source.
first_chunk <- function(source) {
  if (source$kind == "function") {
    source$next_chunk(reset = TRUE)
    chunk <- source$next_chunk(reset = FALSE)
    if (is.null(chunk)) stop_arg("data", "returned no chunk after `reset = TRUE`.")
    return(as.data.frame(chunk))
  }
  if (source$kind == "connect") {
    con <- source$connect()
    on.exit(DBI::dbDisconnect(con))
    return(read_chunk(source, 1L, con))
  }
  read_chunk(source, 1L, source$connection)
}

# The model frame of a formula on a chunk: `spec` holds the terms (from the
# first chunk, with their data-dependent parameters), the call's subset,
# weights, offset and na.action expressions, the factors' levels and the
# environment the formula's names are found in.
chunk_frame <- function(chunk, spec) {
  mf <- spec$call
  mf$formula <- spec$terms
  mf$data <- chunk
  mf$xlev <- spec$xlev
  mf$drop.unused.levels <- FALSE
  mf[[1L]] <- quote(stats::model.frame)
  frame <- eval(mf, spec$env)
  if (!nrow(frame)) return(NULL)
  x <- formula_design(attr(frame, "terms"), frame, intercept = spec$keep_intercept)
  if (!is.null(spec$columns) && !identical(colnames(x), spec$columns))
    stop("the chunks give different design columns (", paste(setdiff(union(colnames(x), spec$columns),
         intersect(colnames(x), spec$columns)), collapse = ", "), "); give factors the same levels in every chunk.",
         call. = FALSE)
  y <- stats::model.response(frame)
  if (!is.numeric(y) || is.matrix(y)) stop_arg("formula", "needs a numeric response to fit from chunks.")
  list(x = x, y = as.numeric(y), weights = stats::model.weights(frame), offset = stats::model.offset(frame),
       omitted = length(attr(frame, "na.action")))
}

# The formula fit's description of its chunks: the terms from the first
# chunk, the factors' levels from a pass over all chunks (when the formula
# has factor or character variables) and the design's columns.
chunk_spec <- function(mcall, env, source, keep_intercept) {
  call <- mcall[c(1L, match(c("subset", "weights", "na.action", "offset"), names(mcall), 0L))]
  spec <- list(call = call, env = env, keep_intercept = keep_intercept, xlev = NULL, columns = NULL)
  first <- first_chunk(source)
  mf <- call
  mf$formula <- mcall$formula
  mf$data <- first
  mf[[1L]] <- quote(stats::model.frame)
  frame <- eval(mf, env)
  spec$terms <- attr(frame, "terms")
  vars <- vapply(frame, function(v) is.factor(v) || is.character(v), logical(1L))
  vars <- setdiff(names(frame)[vars], c(names(frame)[1L], "(weights)", "(offset)"))
  if (length(vars)) {
    base <- lapply(frame[vars], function(v) if (is.factor(v)) levels(v))
    seen <- chunk_pass(source, function(chunk, i) {
      f <- eval(`[[<-`(`[[<-`(mf, "data", chunk), "drop.unused.levels", TRUE), env)
      lapply(f[vars], function(v) if (is.factor(v)) levels(v) else sort(unique(v)))
    }, function(a, b) Map(union, a, b), "levels")
    spec$xlev <- Map(function(s, b) if (is.null(b)) sort(s) else c(b[b %in% s], sort(setdiff(s, b))), seen, base)
  }
  x <- chunk_frame(first, spec)$x
  spec$columns <- colnames(x)
  spec$contrasts <- attr(x, "contrasts")
  spec$passes <- as.integer(length(vars) > 0L)
  spec
}

# Weighted moments of the columns of m (rows of weight w > 0): weight sum,
# mean, sum of squared deviations, largest magnitude, least and largest
# value. chunk_moments_combine() merges two (Chan, Golub and LeVeque's
# pairwise update), so a pass gives those of all rows to rounding.
chunk_moments <- function(m, w) {
  m <- as.matrix(m)
  W <- sum(w)
  mean <- colSums(w * m) / W
  list(W = W, mean = mean, M2 = colSums(w * sweep(m, 2L, mean)^2), size = apply(abs(m), 2L, max),
       min = apply(m, 2L, min), max = apply(m, 2L, max))
}

chunk_moments_combine <- function(a, b) {
  W <- a$W + b$W
  delta <- b$mean - a$mean
  list(W = W, mean = a$mean + delta * b$W / W, M2 = a$M2 + b$M2 + delta^2 * a$W * b$W / W,
       size = pmax(a$size, b$size), min = pmin(a$min, b$min), max = pmax(a$max, b$max))
}

# The moments pass of a formula fit from chunks: the moments of the design's
# columns and of the response (less the offset) over the rows of positive
# weight, with the weights' count, sum, log sum and range, the rows read and
# the rows na.action left out.
chunk_moments_pass <- function(source, spec) {
  value <- chunk_pass(source, function(chunk, i) {
    part <- chunk_frame(chunk, spec)
    if (is.null(part)) return(NULL)
    check_chunk_part(part, i)
    w <- part$weights %||% rep(1, length(part$y))
    keep <- w > 0
    z <- part$y - (part$offset %||% 0)
    list(rows = length(z), kept = sum(keep), omitted = part$omitted, log_w = sum(log(w[keep])),
         w_range = range(w[keep]), weighted = !is.null(part$weights), offset = !is.null(part$offset),
         x = chunk_moments(part$x[keep, , drop = FALSE], w[keep]), z = chunk_moments(z[keep], w[keep]))
  }, function(a, b) {
    if (is.null(a)) return(b)
    if (is.null(b)) return(a)
    list(rows = a$rows + b$rows, kept = a$kept + b$kept, omitted = a$omitted + b$omitted, log_w = a$log_w + b$log_w,
         w_range = range(a$w_range, b$w_range), weighted = a$weighted || b$weighted, offset = a$offset || b$offset,
         x = chunk_moments_combine(a$x, b$x), z = chunk_moments_combine(a$z, b$z))
  }, "moments")
  if (is.null(value) || value$kept < 2L)
    stop_arg("data", "gives fewer than two rows of positive weight; the noise cannot be estimated.")
  value
}

check_chunk_part <- function(part, i) {
  where <- sprintf("in chunk %d", i)
  if (any(!is.finite(part$y))) stop_arg("formula", sprintf("has a response with Inf or NaN %s.", where))
  if (any(!is.finite(part$x))) stop_arg("formula", sprintf("has inputs with Inf or NaN %s.", where))
  w <- part$weights
  if (!is.null(w) && (any(!is.finite(w)) || any(w < 0))) stop_arg("weights", sprintf("must be finite and non-negative (%s).", where))
  if (!is.null(part$offset) && any(!is.finite(part$offset))) stop_arg("offset", sprintf("must be finite (%s).", where))
}

# The scaling of the design from the moments pass, as input_scaling() with
# keep_constant gives it from the rows: constant columns keep center 0 and
# scale 1.
chunk_scaling <- function(m, scale, n_weighted) {
  if (!scale) return(NULL)
  dof <- if (n_weighted > 1) n_weighted - 1 else n_weighted
  sds <- sqrt(m$M2 / dof)
  const <- !is.finite(sds) | sds <= 1e-12 * m$size
  sds[const] <- 1
  center <- m$mean
  center[const] <- 0
  list(center = center, scale = sds)
}

# Standard units (standard_units()) from the moments pass: each row of a
# chunk source counts as distinct (finding copies would hold every row),
# so the weights are rescaled to sum to the rows of positive weight.
chunk_standard_units <- function(mom, scaling) {
  n <- mom$kept
  weighted <- mom$weighted && diff(mom$w_range) > 1e-14 * mom$w_range[2L]  # equal weights are none
  unit <- mom$z$W / n
  x <- mom$x
  value <- if (is.null(scaling)) x$max else (x$max - scaling$center) / scaling$scale
  const_col <- which(x$max - x$min <= 1e-9 * x$size & x$size > 0 & value != 0)[1L]
  const <- if (is.na(const_col)) c(0, 0) else c(const_col, value[const_col])
  shift <- if (const[1L] > 0) mom$z$mean else 0
  variance <- mom$z$M2 / unit / (n - 1)  # of the rows replicated w / unit times
  scale <- sqrt(variance)
  if (!is.finite(scale) || !(scale > 0))
    stop_arg("formula", if (is.finite(scale)) "has a constant response; there is nothing to fit."
                        else "has a response too large to sum in double precision; rescale it.")
  log_w <- if (weighted) mom$log_w - n * log(unit) else 0
  list(n = mom$rows, shift = shift, scale = scale, const = const, unit = if (weighted) unit else mom$z$W / n,
       weighted = weighted, weights = NULL, offset = NULL, log_weights = log_w / 2, distinct = n, n_kept = n,
       weight_sum = n, log_weight_sum = log_w, log_jacobian = -n * log(scale) + log_w / 2,
       n_effective = if (weighted) n else -1, target_variance = if (weighted) 1 else -1)
}

# The statistics pass: Phi'Phi, Phi't, t't, sum(t) and n of the scaled
# design and the response in standard units, rows of weight w times
# sqrt(w / unit), as standard_units() forms them in memory.
chunk_statistics_pass <- function(source, spec, scaling, st) {
  chunk_pass(source, function(chunk, i) {
    part <- chunk_frame(chunk, spec)
    if (is.null(part)) return(NULL)
    w <- part$weights %||% rep(1, length(part$y))
    keep <- w > 0
    sw <- if (st$weighted) sqrt(w[keep] / st$unit) else 1
    t <- sw * (part$y[keep] - (part$offset[keep] %||% 0) - st$shift) / st$scale
    xs <- scaled_design(part$x[keep, , drop = FALSE], scaling, FALSE)
    .sb_statistics(if (st$weighted) xs * sw else xs, t)
  }, function(a, b) if (is.null(a)) b else if (is.null(b)) a else Map(`+`, a, b), "statistics")
}

# A formula fit from chunks: `fitter` (ard.default()) is given the design
# (class "sb_chunk_design": the source, the chunk description and the
# moments pass) in place of x and y, and the fit keeps what predict()
# needs to build the design of new data, as fit_formula() does.
fit_chunks <- function(mcall, env, source, fitter, generic, ..., keep_intercept = FALSE) {
  spec <- chunk_spec(mcall, env, source, keep_intercept)
  design <- structure(list(source = source, spec = spec, moments = chunk_moments_pass(source, spec)),
                      class = "sb_chunk_design")
  fit <- fitter(design, NULL, ...)
  mcall[[1L]] <- as.name(generic)
  fit$call <- mcall
  fit$terms <- spec$terms
  fit$xlevels <- spec$xlev
  fit$contrasts <- spec$contrasts
  fit
}

# The problem of a fit from chunks for ard_settings(): the statistics pass
# on the design scaled by the moments pass, in standard units. Only what
# sums over rows give is fitted: shared noise, and the rules that read no
# row (every one but irls1 and the primal gradient).
chunk_problem <- function(design, a) {
  check_flag(a$scale, "scale")
  if (per_sample_noise(a$noise))
    stop_arg("noise", "must be \"shared\" for a fit from data_chunks(): per-sample and Student-t noise read every row.")
  if (a$method == "irls1" || (a$method == "gradient" && a$gradient_form == "primal"))
    stop_arg("method", sprintf("\"%s\"%s reads every row; from data_chunks() use \"em\", \"mackay\", \"fast\", \"irls2\" or gradient_form = \"dual\".",
                               a$method, if (a$method == "gradient") " with gradient_form = \"primal\"" else ""))
  mom <- design$moments
  scaling <- chunk_scaling(mom$x, a$scale, if (mom$weighted) mom$x$W else mom$kept)
  st <- chunk_standard_units(mom, scaling)
  st$statistics <- chunk_statistics_pass(design$source, design$spec, scaling, st)
  names <- design$spec$columns
  list(xs = matrix(0, 0L, length(names), dimnames = list(NULL, names)), y = NULL, wo = list(), scaling = scaling,
       n_rows = mom$kept, n_features = sum(names != "(Intercept)"), statistics = st,
       chunks = list(source = design$source$label, rows = mom$rows, kept = mom$kept, omitted = mom$omitted, offset = mom$offset,
                     passes = design$spec$passes + 2L, tss = mom$z$M2 / st$unit))
}

# A fit from chunks keeps no n-length vector: its training fit is its
# residual sum of squares (from the statistics) against the total.
chunk_fit_fields <- function(fit, chunks, res) {
  for (field in c("fitted.values", "linear.predictors", "residuals", "y", "x")) fit[field] <- list(NULL)
  fit$chunks <- c(chunks, list(rss = res$rss))
  fit
}

# What reads the training rows says why a fit from data_chunks() cannot.
check_has_rows <- function(object, what) {
  if (is.null(object$chunks)) return(invisible())
  stop(sprintf(paste0("%s reads the training rows, which a fit from data_chunks() does not keep (%s); ",
                      "predict(fit, newdata = <a chunk>) gives them for the rows you read."),
               what, object$chunks$source), call. = FALSE)
}

# Training RMSE and R-squared of a gaussian fit: from its residuals, or
# from the sums of a fit from chunks (with weights, those of the rows
# replicated in proportion to their weights).
training_rmse <- function(object) {
  if (!is.null(object$chunks)) return(sqrt(object$chunks$rss / object$chunks$kept))
  sqrt(mean(object$residuals^2))
}

training_r_squared <- function(object) {
  if (!is.null(object$chunks)) return(1 - object$chunks$rss / object$chunks$tss)
  y <- object$y
  1 - sum(object$residuals^2) / sum((y - mean(y))^2)
}
