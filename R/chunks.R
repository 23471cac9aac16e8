#' Data read in chunks: data frames, functions, databases and files
#'
#' A source of rows that a formula fit reads in chunks instead of holding
#' them in memory: give it as `data =` to [ard()], [rvm()] or [sparse_gp()]. A Gaussian fit with
#' shared noise needs only sums over the rows (the basis' cross-products,
#' DESIGN.md's statistics layer), so the memory it holds does not grow with the
#' number of rows. A two-class [rvm()] needs the same sums weighted by the
#' likelihood's curvature, once per outer iteration, and Student-t or
#' per-sample noise the sums weighted by the noise, twice per noise step
#' (see Passes).
#'
#' @section Sources:
#' * a data frame or matrix, read `chunk_size` rows at a time;
#' * a function following biglm's protocol: `data(reset = TRUE)` rewinds,
#'   `data(reset = FALSE)` returns the next chunk as a data frame, or `NULL`
#'   after the last one;
#' * a function of the chunk's number, with `chunks`: `data(i)` returns
#'   chunk `i` of `chunks` (a generator, or a reader of part `i`), so that
#'   workers read their chunks themselves;
#' * a DBI connection and a `query`: chunk `i` is the query's rows
#'   `chunk_size * (i - 1) + 1` to `chunk_size * i` (LIMIT and OFFSET; give
#'   the query an `ORDER BY` where the database does not keep the row order);
#' * a function returning a DBI connection, and a `query`: the same, but
#'   each worker opens its own connection (a connection cannot be sent to
#'   another process);
#' * a character vector of file paths, one chunk per file, read by `read`;
#' * a `bigmemory::big.matrix` with column names (the formula's variables),
#'   read `chunk_size` rows at a time, never copied whole. A file-backed one
#'   is read where each pass runs: a worker attaches it from its descriptor
#'   ([bigmemory::describe()]) and the backing file's folder, which must be
#'   reachable under the same path there (a local worker, or a shared file
#'   system); one in memory is read in the calling process.
#'
#' @section Passes and where they run:
#' A fit reads the chunks several times (passes): [ard()] reads them once
#' for the factors' levels when the formula has factor or character
#' variables, once for the means and scales of the inputs and the response,
#' and once for the statistics. A two-class [rvm()] (a factor, logical or
#' character response, or 0/1 with `family = binomial()`) reads them once
#' for the classes, once for the sums and a sample, then once per outer
#' (IRLS) iteration, as `biglm::bigglm()` does: each pass sums the kernel
#' basis' cross-products weighted by the curvature `w p (1 - p)` at the
#' current weights, with the linearised targets, and the fast solver fits
#' the Gaussian model on them (warm-started from the last pass), until the
#' relevant set stands and the weights and `log(alpha)` move by less than
#' `tolerance` ([rvm_control()]), then once more at the weights returned:
#' typically 6 to 10 passes, at most 100 (a warning), counted in
#' `fit$chunks$passes`. A fit of the rows in memory runs the same passes
#' (on the weighted rows themselves), so the two agree to rounding. A Poisson [rvm()]
#' (`family = poisson()`) reads them once for the sums and a sample, then
#' once per outer iteration in the same way, with the curvature
#' `w exp(eta)`, its first pass at the counts' own `log(t + 1/2)` (6 to 30
#' passes on our test data). [ard()] with `noise =
#' "student"` or `"sample"` holds every row's response, noise and residual
#' (about 10 numbers a row) and reads
#' the chunks twice per noise step (every 5 iterations after the first 50):
#' every row's residual and `x_i' Sigma x_i`, then the cross-products
#' weighted by the new noise; from the plain start only (`start = "best"`
#' falls back to it, `"robust"` is refused), it is the fit from the rows
#' with `start = "plain"`. A two-class fit from chunks does not temper its
#' probabilities (there are no rows in memory for the inner fits:
#' `fit$temperature` says so); the in-memory fit with
#' `rvm_control(temperature = 1)` is the one it equals. A two-class fit's passes are full Newton steps
#' at newly re-estimated alphas while each raises the penalised log
#' posterior. Where one does not (the classes nearly separate: as many
#' centres as rows, say), or the steps cycle between two sets of columns or
#' stop raising the evidence, the fit continues otherwise: it searches the
#' mode at fixed alphas by damped Newton steps (one pass a trial, the step
#' halved until the log posterior rises), re-estimates the alphas only at a
#' mode, and keeps the former alphas and mode if the new mode's evidence is
#' lower or cannot be found. That takes more passes (42 on `mlbench::Sonar`
#' with a centre on each of its 208 rows), marked `"mode search"` and
#' `"rejected"` in `fit$trace$action`; where even the first search makes no
#' progress, the fit stops with an error (Poisson fits alike). More than two classes are refused: fit one class
#' against the rest, `I(y == "a") ~ ...`. The chunks of a pass are processed through
#' [future.apply::future_lapply()], so `future::plan()` decides where:
#' sequentially, on local workers (`multisession`), on other machines
#' (`cluster`) or through a scheduler (future.batchtools). Data frames,
#' files, functions of the chunk's number, connection functions and
#' file-backed big.matrix objects are read by the workers themselves;
#' biglm-style functions, live connections and big.matrix objects in memory
#' are read in the calling process, in order. The chunks are grouped in a fixed way and their sums
#' added in order, so that the fit does not depend on the plan. Each pass
#' reports its progress through [progressr::progressor()]. Every pass
#' checks that it read what the fit's first pass read (each chunk's rows
#' and a checksum of its values): a source whose rows change during a fit
#' (a table written to, a query without a fixed order, a generator that
#' does not restart) is an error, not a fit of two data sets. A
#' connection or reader function takes the global variables it uses to the
#' workers (`path` in `function() dbConnect(RSQLite::SQLite(), path)`).
#'
#' Terms whose meaning depends on the data (`poly()`, `ns()`, `scale()`)
#' take it from the first chunk. Factor levels are the union over all
#' chunks. Rows with missing values are handled chunk by chunk by
#' `na.action`; weights and offsets come from columns, as in [lm()].
#'
#' @param data A data frame or matrix, a function (biglm's `data(reset)`
#'   protocol, or one returning a DBI connection when `query` is given), a
#'   DBI connection, a character vector of file paths, or a
#'   `bigmemory::big.matrix` with column names.
#' @param query For a connection: the SQL query whose rows are read.
#' @param chunk_size Rows per chunk (data frames, big.matrix objects and queries).
#' @param read For files: the function reading one file into a data frame.
#' @param chunks For a function of the chunk's number: how many chunks.
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
#' # a file-backed big.matrix: its column names are the variables
#' if (requireNamespace("bigmemory", quietly = TRUE)) {
#'   dir <- tempfile()
#'   dir.create(dir)
#'   m <- bigmemory::as.big.matrix(as.matrix(mtcars), backingfile = "cars.bin",
#'                                 descriptorfile = "cars.desc", backingpath = dir)
#'   fit <- ard(mpg ~ wt + hp + qsec, data = data_chunks(m, chunk_size = 10))
#'   rm(m)
#'   unlink(dir, recursive = TRUE)
#' }
#' }
#' @export
data_chunks <- function(data, query = NULL, chunk_size = 1e5, read = utils::read.csv, chunks = NULL) {
  if (!is.numeric(chunk_size) || length(chunk_size) != 1L || !is.finite(chunk_size) || chunk_size < 1)
    stop_arg("chunk_size", "must be a number of rows, at least 1.")
  chunk_size <- as.integer(ceiling(chunk_size))
  if (!is.null(query) && !(is.character(query) && length(query) == 1L && !is.na(query)))
    stop_arg("query", "must be one SQL query (a string).")
  # the query is read inside SELECT ... FROM (query): a statement's closing semicolon would end it there
  if (!is.null(query)) query <- sub("[[:space:];]+$", "", query)
  source <- if (is.data.frame(data) || is.matrix(data)) {
    data <- as.data.frame(data)
    if (!nrow(data)) stop_arg("data", "has no rows.")
    list(kind = "frame", data = data, chunk_size = chunk_size, count = ceiling(nrow(data) / chunk_size),
         label = sprintf("a data frame of %d rows", nrow(data)))
  } else if (inherits(data, "big.matrix")) {
    big_matrix_source(data, chunk_size)
  } else if (inherits(data, "DBIConnection")) {
    if (is.null(query)) stop_arg("query", "is needed to read from a database connection.")
    list(kind = "connection", connection = data, query = query, chunk_size = chunk_size,
         count = query_chunks(data, query, chunk_size), label = sprintf("the query %s", sQuote(query, FALSE)))
  } else if (is.function(data) && !is.null(query)) {
    con <- data()
    if (!inherits(con, "DBIConnection")) stop_arg("data", "with a `query` must return a DBI connection.")
    count <- query_chunks(con, query, chunk_size)
    DBI::dbDisconnect(con)
    list(kind = "connect", connect = portable(data), query = query, chunk_size = chunk_size, count = count,
         label = sprintf("the query %s", sQuote(query, FALSE)))
  } else if (is.function(data) && !is.null(chunks)) {
    check_number(chunks, "chunks", lower = 1, integer = TRUE)
    list(kind = "indexed", read = portable(data), count = as.integer(chunks),
         label = "a function of the chunk's number")
  } else if (is.function(data)) {
    list(kind = "function", next_chunk = data, count = NA_integer_, label = "a function of `reset`")
  } else if (is.character(data)) {
    if (!length(data) || anyNA(data)) stop_arg("data", "must name at least one file.")
    missing_files <- data[!file.exists(data)]
    if (length(missing_files)) stop_arg("data", sprintf("names files that do not exist: %s.", paste(missing_files, collapse = ", ")))
    if (!is.function(read)) stop_arg("read", "must be a function reading one file into a data frame.")
    list(kind = "files", files = data, read = portable(read), count = length(data),
         label = sprintf("%d file%s", length(data), if (length(data) == 1L) "" else "s"))
  } else {
    stop_arg("data", "must be a data frame, a matrix, a function, a DBI connection, file paths or a bigmemory::big.matrix.")
  }
  structure(source, class = "sb_chunks")
}

#' @export
print.sb_chunks <- function(x, ...) {
  cat(sprintf("<data_chunks> %s%s\n", x$label,
              if (is.na(x$count)) ", read until it returns NULL" else sprintf(", %d chunk%s", x$count, if (x$count == 1L) "" else "s")))
  invisible(x)
}

# A source's function as a worker can call it: the globals it uses (found
# as future finds a future's: `path` in function() dbConnect(SQLite(),
# path), defined in the global environment, which is not sent to a worker)
# go with it in an environment of their own. Package functions are left as
# they are.
portable <- function(fn) {
  if (is.primitive(fn) || isNamespace(topenv(environment(fn)))) return(fn)
  env <- new.env(parent = environment(fn))
  env$.sb_source_function <- fn
  globals <- future::getGlobalsAndPackages(quote(.sb_source_function()), envir = env)$globals
  globals <- as.list(globals)[setdiff(names(globals), ".sb_source_function")]
  if (!length(globals)) return(fn)
  carried <- list2env(globals, parent = environment(fn))
  environment(fn) <- carried
  fn
}

# A bigmemory::big.matrix, read `chunk_size` rows at a time without a copy
# of the whole: its column names are the formula's variables. A file-backed
# one is described (bigmemory::describe(), a few numbers and names) and each
# group of chunks attaches it again where it runs, a worker included (it
# maps the backing file; the object itself, an external pointer, cannot be
# sent to another process). One in memory is read in the calling process.
big_matrix_source <- function(data, chunk_size) {
  rows <- nrow(data)
  if (!rows) stop_arg("data", "has no rows.")
  if (is.null(colnames(data)) || anyNA(colnames(data)) || !all(nzchar(colnames(data))))
    stop_arg("data", "is a big.matrix without column names: they are the variables the formula names.")
  source <- list(kind = "bigmatrix", chunk_size = chunk_size, count = ceiling(rows / chunk_size))
  if (bigmemory::is.filebacked(data)) {
    source$descriptor <- bigmemory::describe(data)
    source$path <- bigmemory::dir.name(data)
    source$label <- sprintf("a file-backed big.matrix of %d rows (%s)", rows,
                            sQuote(file.path(sub("/+$", "", source$path), bigmemory::file.name(data)), FALSE))
  } else {
    source$matrix <- data
    source$label <- sprintf("a big.matrix of %d rows in memory (read in this process)", rows)
  }
  source
}

# A source read in the calling process only, in order: a live connection or
# a big.matrix in memory (an external pointer a worker could not follow).
read_here <- function(source) {
  source$kind == "connection" || (source$kind == "bigmatrix" && is.null(source$descriptor))
}

# What read_chunk() reads a big.matrix source through: the matrix itself,
# or the file-backed matrix attached from its descriptor.
big_matrix_of <- function(source) {
  if (is.null(source$descriptor)) return(source$matrix)
  bigmemory::attach.big.matrix(source$descriptor, path = source$path)
}

# The number of chunks of a query: its rows counted by the database.
query_chunks <- function(con, query, chunk_size) {
  rows <- DBI::dbGetQuery(con, sprintf("SELECT COUNT(*) AS n FROM (%s) AS sb_query", query))$n
  if (!length(rows) || rows < 1) stop_arg("query", "returns no rows.")
  as.integer(ceiling(rows / chunk_size))
}

# Chunk i of an indexed source, as a data frame (`con`: an open connection,
# or a big.matrix source's matrix, big_matrix_of()).
read_chunk <- function(source, i, con = NULL) {
  switch(source$kind,
         frame = {
           rows <- ((i - 1L) * source$chunk_size + 1L):min(i * source$chunk_size, nrow(source$data))
           source$data[rows, , drop = FALSE]
         },
         files = chunk_rows(source$read(source$files[i]), sprintf("the file %s", sQuote(source$files[i], FALSE)),
                            "`read`"),
         indexed = chunk_rows(source$read(i), sprintf("chunk %d of %d", i, source$count), "the function"),
         bigmatrix = {
           rows <- ((i - 1L) * source$chunk_size + 1L):min(i * source$chunk_size, nrow(con))
           chunk <- as.data.frame(con[rows, , drop = FALSE])
           attr(chunk, "row.names") <- rows  # named by the matrix's rows, as a data frame's chunks are
           chunk
         },
         DBI::dbGetQuery(con, sprintf("SELECT * FROM (%s) AS sb_query LIMIT %d OFFSET %.0f", source$query,
                                      source$chunk_size, (i - 1) * source$chunk_size)))
}

# What a source's reader returned for one chunk, as a data frame; anything
# without columns (NULL, a vector) is refused by name: it is no chunk, and
# would otherwise surface as a variable of the formula "not found".
chunk_rows <- function(value, what, reader) {
  if (!(is.data.frame(value) || is.matrix(value)) || !ncol(value))
    stop(sprintf(paste0("%s is %s, not a data frame: %s must return the chunk's rows (with `chunks = n` every ",
                        "chunk 1..n has rows; a function of `reset` ends its chunks with NULL)."),
                 what, if (is.null(value)) "NULL" else sprintf("a %s", class(value)[1L]), reader), call. = FALSE)
  as.data.frame(value)
}

# One pass over the chunks: f(chunk) for every chunk, combined in order by
# combine(a, b) into one value. The chunks are split into at most 16
# contiguous groups, a grouping fixed by the number of chunks alone: each
# group is combined where it is computed (future_lapply(), where
# future::plan() says), and the groups' values in order here, so the result
# is the same under every plan. Memory: the groups' values, never a row
# more than one chunk's. With `slices` (one value per chunk: what this
# process holds of the chunk's rows), f(chunk, i, slices[[i]]), and each
# group is sent its own slices only; f must not hold them all either.
chunk_pass <- function(source, f, combine, what, slices = NULL) {
  if (source$kind == "function") return(function_pass(source, f, combine, what, slices))
  k <- source$count
  groups <- split(seq_len(k), ceiling(seq_len(k) * min(k, 16L) / k))
  jobs <- lapply(groups, function(g) list(chunks = g, slices = slices[g]))
  group_value <- chunk_group(source, f, combine, progressr::progressor(steps = k, label = what))
  values <- if (read_here(source))  # a live connection, a big.matrix in memory
    lapply(jobs, group_value, con = if (source$kind == "connection") source$connection else big_matrix_of(source))
  else if (inherits(future::plan(), "sequential"))  # here anyway: skip future's search for globals (40 ms a pass)
    lapply(jobs, group_value)
  else future.apply::future_lapply(jobs, group_value, future.seed = NULL, future.chunk.size = 1L)
  check_same_rows(source, do.call(rbind, lapply(values, `[[`, "read")))
  Reduce(combine, lapply(values, `[[`, "value"))
}

# A chunk's rows and a cheap checksum of its values (order-sensitive), by
# which every pass of a fit checks it read what the first pass read.
chunk_fingerprint <- function(chunk) {
  position <- seq_len(nrow(chunk)) %% 7 + 1
  sums <- vapply(chunk, function(v) {
    v <- if (is.numeric(v) || is.logical(v)) as.numeric(v) else as.numeric(nchar(as.character(v)))
    sum(v * position, na.rm = TRUE) + sum(is.na(v))
  }, numeric(1))
  c(rows = nrow(chunk), checksum = sum(sums))
}

# Every pass of a fit reads the rows of its first: a source whose rows
# change between passes (a query without a fixed order, a table written to
# during the fit, a generator that does not restart) would otherwise mix
# two data sets in one fit without a word.
check_same_rows <- function(source, read) {
  record <- source$record
  if (is.null(record)) return(invisible())
  if (is.null(record$first)) {
    record$first <- read
    return(invisible())
  }
  if (identical(read, record$first)) return(invisible())
  describe <- function(r) sprintf("%d chunk%s, %.0f rows", nrow(r), if (nrow(r) == 1L) "" else "s", sum(r[, "rows"]))
  same_rows <- identical(dim(read), dim(record$first)) && identical(read[, "rows"], record$first[, "rows"])
  stop_arg("data", if (same_rows)
                     sprintf("gave other values in chunk %d in a later pass than in the fit's first (%s each time); ",
                             which(read[, "checksum"] != record$first[, "checksum"])[1L], describe(read))
                   else sprintf("gave %s in a later pass, where the fit's first pass read %s; ", describe(read),
                                describe(record$first)),
           "the rows must not change during a fit (give a query an ORDER BY; a generator must restart at `reset = TRUE`).")
}

# The value of a group of chunks, job = list(chunks, slices): a closure of
# its own, so that a worker is sent no more than its job.
chunk_group <- function(source, f, combine, progress) {
  function(job, con = NULL) {
    if (source$kind == "connect") {
      con <- source$connect()
      on.exit(DBI::dbDisconnect(con))
    }
    if (source$kind == "bigmatrix" && is.null(con)) con <- big_matrix_of(source)  # attached where it runs
    value <- NULL
    read <- matrix(0, length(job$chunks), 2L, dimnames = list(NULL, c("rows", "checksum")))
    for (k in seq_along(job$chunks)) {
      i <- job$chunks[k]
      chunk <- read_chunk(source, i, con)
      read[k, ] <- chunk_fingerprint(chunk)
      v <- if (is.null(job$slices)) f(chunk, i) else f(chunk, i, job$slices[[k]])
      value <- if (is.null(value)) v else combine(value, v)
      progress()
    }
    list(value = value, read = read)
  }
}

# A pass over a biglm-style function: rewind, then chunks until NULL.
function_pass <- function(source, f, combine, what, slices = NULL) {
  source$next_chunk(reset = TRUE)
  progress <- progressr::progressor(steps = 1L, label = what)
  value <- NULL
  read <- list()
  i <- 0L
  while (!is.null(chunk <- source$next_chunk(reset = FALSE))) {
    i <- i + 1L
    if (!is.null(slices) && i > length(slices)) stop_arg("data", "gave more chunks than in its first pass.")
    chunk <- as.data.frame(chunk)
    read[[i]] <- chunk_fingerprint(chunk)
    v <- if (is.null(slices)) f(chunk, i) else f(chunk, i, slices[[i]])
    value <- if (is.null(value)) v else combine(value, v)
  }
  progress()
  if (!i) stop_arg("data", "returned no chunk after `reset = TRUE`.")
  check_same_rows(source, do.call(rbind, read))
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
  if (source$kind == "bigmatrix") return(read_chunk(source, 1L, big_matrix_of(source)))
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
  if (!nrow(frame)) return(list(omitted = length(attr(frame, "na.action"))))  # no x: no rows to fit
  x <- formula_design(attr(frame, "terms"), frame, intercept = spec$keep_intercept)
  if (!is.null(spec$columns) && !identical(colnames(x), spec$columns))
    stop("the chunks give different design columns (", paste(setdiff(union(colnames(x), spec$columns),
         intersect(colnames(x), spec$columns)), collapse = ", "), "); give factors the same levels in every chunk.",
         call. = FALSE)
  y <- stats::model.response(frame)
  if (!is.null(spec$classes) && !is.numeric(y)) y <- match(as.character(y), spec$classes) - 1  # class codes 0, 1, ...
  if (!is.numeric(y) || is.matrix(y)) stop_arg("formula", "needs a numeric response to fit from chunks.")
  list(x = x, y = as.numeric(y), weights = stats::model.weights(frame), offset = stats::model.offset(frame),
       omitted = length(attr(frame, "na.action")))
}

# The formula fit's description of its chunks: the terms from the first
# chunk, the factors' levels from a pass over all chunks (when the formula
# has factor or character variables) and the design's columns. With
# `classes` (rvm()), a factor, character or logical response is read as
# classes: their levels (`classes`, those seen in some chunk, in the order
# of the factor's levels, as droplevels() leaves them; sorted for
# character and logical responses) come from the same pass, and
# chunk_frame() gives the response as class codes 0, 1, ...
chunk_spec <- function(mcall, env, source, keep_intercept, classes = FALSE) {
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
  response <- names(frame)[1L]
  y <- frame[[1L]]
  read_classes <- classes && (is.factor(y) || is.character(y) || is.logical(y)) && !is.matrix(y)
  if (length(vars) || read_classes) {
    vars_y <- c(vars, if (read_classes) response)
    base <- lapply(frame[vars_y], function(v) if (is.factor(v)) levels(v))
    seen <- chunk_pass(source, function(chunk, i) {
      f <- eval(`[[<-`(`[[<-`(mf, "data", chunk), "drop.unused.levels", TRUE), env)
      lapply(f[vars_y], function(v) if (is.factor(v)) levels(v) else as.character(sort(unique(v))))
    }, function(a, b) Map(union, a, b), "levels")
    levels <- Map(function(s, b) if (is.null(b)) sort(s) else c(b[b %in% s], sort(setdiff(s, b))), seen, base)
    if (length(vars)) spec$xlev <- levels[vars]
    if (read_classes) spec$classes <- levels[[response]]
  }
  part <- chunk_frame(first, spec)
  if (is.null(part$x)) stop_arg("data", "has no complete row in its first chunk.")
  x <- part$x
  spec$columns <- colnames(x)
  spec$shift <- colMeans(x)  # near every column's mean: the sums pass centres at them
  spec$shift_z <- mean(part$y - (part$offset %||% 0))
  spec$contrasts <- attr(x, "contrasts")
  spec$passes <- as.integer(length(vars) > 0L || read_classes)
  spec
}

# The sums `a` with the rows of `empty` (NULL, or a chunk whose every row
# na.action left out) counted.
add_rows_left_out <- function(a, empty) {
  if (is.null(a)) return(empty)
  a$rows <- a$rows + (empty$rows %||% 0)
  a$omitted <- a$omitted + (empty$omitted %||% 0)
  a
}

# The sums pass of a formula fit from chunks, over the rows of positive
# weight w: the statistics layer's sums (.sb_statistics()) of the basis
# [1, x - K] and the target z - K_z (z: the response less the offset; K,
# K_z: the means of the first chunk, so that the centred sums below lose
# no digits) with rows weighted by sqrt(w); the sum of sqrt(w); the
# columns' largest magnitudes; the weights' count, log sum and range; the
# rows read and those na.action left out; with `sample_size`, a uniform
# sample of that many rows (chunk_sample()); with `copies`, each row's
# row_keys() of its inputs and response and its weight (chunk_copies()).
# Every moment of the inputs and
# the response, and for ard() the statistics of its scaled design
# (chunk_design_statistics()), follow from these sums, so ard() reads the
# data once.
chunk_sums_pass <- function(source, spec, sample_size = 0L, copies = FALSE) {
  value <- chunk_pass(source, function(chunk, i) {
    part <- chunk_frame(chunk, spec)
    if (is.null(part$x)) return(list(rows = 0, kept = 0, omitted = part$omitted))  # every row left out
    check_chunk_part(part, i)
    w <- part$weights %||% rep(1, length(part$y))
    keep <- w > 0
    x <- if (all(keep)) part$x else part$x[keep, , drop = FALSE]
    v <- part$y[keep] - (part$offset[keep] %||% 0) - spec$shift_z
    u <- .sb_scale_columns(x, spec$shift, rep(1, ncol(x)), TRUE)  # [1, x - K] in one allocation
    sw <- sqrt(w[keep])
    list(sums = if (is.null(part$weights)) .sb_statistics(u, v, kernel_threads())
                else .sb_statistics(u * sw, v * sw, kernel_threads()),
         root_w = sum(sw), size = vapply(seq_len(ncol(x)), function(j) max(abs(x[, j])), numeric(1L)),
         rows = length(w), kept = sum(keep), omitted = part$omitted, log_w = sum(log(w[keep])),
         w_range = range(w[keep]), weighted = !is.null(part$weights), offset = !is.null(part$offset),
         sample = if (sample_size > 0L) chunk_sample(part, keep, i, sample_size),
         keys = if (copies) list(cbind(row_keys(x, v), w[keep])))
  }, function(a, b) {
    if (is.null(a$sums)) return(add_rows_left_out(b, a))
    if (is.null(b$sums)) return(add_rows_left_out(a, b))
    list(sums = Map(`+`, a$sums, b$sums), root_w = a$root_w + b$root_w, size = pmax(a$size, b$size),
         rows = a$rows + b$rows, kept = a$kept + b$kept, omitted = a$omitted + b$omitted, log_w = a$log_w + b$log_w,
         w_range = range(a$w_range, b$w_range), weighted = a$weighted || b$weighted, offset = a$offset || b$offset,
         sample = if (sample_size > 0L) sample_combine(a$sample, b$sample, sample_size),
         keys = c(a$keys, b$keys))
  }, "sums")
  if (is.null(value) || value$kept < 2L)
    stop_arg("data", "gives fewer than two rows of positive weight; the noise cannot be estimated.")
  if (copies) value$copies <- chunk_copies(value$keys)
  value$keys <- NULL
  chunk_moments(value, spec)
}

# Whether a fit of `family` from chunks may pool copies (a noise to learn;
# NULL: gaussian unless the response is a factor, read only in the pass).
chunk_may_pool <- function(family) is.null(family) || has_noise(resolve_family(family, 0))

# Exact copies among the rows of every chunk, as relative_weights() finds
# them in memory (DESIGN.md, "Weights and copies"): from the rows' keys
# and weights (one matrix per chunk, columns key, key, weight), the number
# of distinct rows and sum(log W_g) over them, W_g the summed weight of a
# row's copies; NULL where no two rows are copies. Holds 24 bytes a row
# until the keys are grouped.
chunk_copies <- function(keys) {
  keys <- do.call(rbind, keys)
  group <- first_copy(keys[, 1:2, drop = FALSE])
  distinct <- sum(group == seq_along(group))
  if (distinct == length(group)) return(NULL)  # no copies
  list(distinct = distinct, log_pooled = sum(log(rowsum(keys[, 3L], group, reorder = FALSE))))
}

# The weighted moments of the inputs (x: W, center = the mean, M2 = the sum
# of squared deviations, sd, size) and of the response less the offset (z)
# from the sums; x's are the moments input_scaling() reads (with prior
# weights, those of the rows replicated w times, as in memory).
chunk_moments <- function(value, spec) {
  g <- value$sums$gram
  W <- g[1L, 1L]
  b <- g[-1L, 1L]
  by <- value$sums$cross[1L]
  named <- function(v) stats::setNames(as.numeric(v), spec$columns)
  M2 <- named(pmax(diag(g)[-1L] - b^2 / W, 0))
  n_weighted <- if (value$weighted) W else value$kept
  dof <- if (n_weighted > 1) n_weighted - 1 else n_weighted
  value$x <- list(W = W, center = named(spec$shift + b / W), M2 = M2, sd = sqrt(M2 / dof), size = named(value$size))
  value$z <- list(W = W, mean = spec$shift_z + by / W, M2 = max(value$sums$tt - by^2 / W, 0))
  value
}

# The statistics of the scaled design (x - center) / scale and the response
# in standard units, sqrt(w / unit) (z - shift) / scale, from the sums of
# the shifted rows: with d = K - center and e = K_z - shift,
#   sum w (x - center)(x - center)' = A + d b' + b d' + W d d',
#   sum w (x - center)(z - shift) = a + d b_z + b e + W d e,
#   sum w (z - shift)^2 = a_zz + 2 e b_z + W e^2,
# A, a, a_zz, b, b_z, W the sums of the shifted rows. The first chunk's
# means K are near every mean, so nothing cancels.
chunk_design_statistics <- function(mom, spec, scaling, st) {
  s <- mom$sums
  g <- s$gram
  W <- g[1L, 1L]
  b <- g[-1L, 1L]
  bz <- s$cross[1L]
  center <- scaling$center %||% rep(0, length(b))
  scale <- scaling$scale %||% rep(1, length(b))
  d <- spec$shift - center
  e <- spec$shift_z - st$shift
  gram <- g[-1L, -1L] + outer(d, b) + outer(b, d) + W * outer(d, d)
  cross <- s$cross[-1L] + d * bz + b * e + W * d * e
  tt <- s$tt + 2 * e * bz + W * e^2
  list(gram = gram / outer(scale, scale) / st$unit, cross = cross / scale / (st$scale * st$unit),
       tt = tt / (st$scale^2 * st$unit), sum_t = (s$sum_t + e * mom$root_w) / (st$scale * sqrt(st$unit)),
       n = mom$kept)
}

check_chunk_part <- function(part, i) {
  where <- sprintf("in chunk %d", i)
  if (any(!is.finite(part$y))) stop_arg("formula", sprintf("has a response with Inf or NaN %s.", where))
  if (any(!is.finite(part$x))) stop_arg("formula", sprintf("has inputs with Inf or NaN %s.", where))
  w <- part$weights
  if (!is.null(w) && (any(!is.finite(w)) || any(w < 0))) stop_arg("weights", sprintf("must be finite and non-negative (%s).", where))
  if (!is.null(part$offset) && any(!is.finite(part$offset))) stop_arg("offset", sprintf("must be finite (%s).", where))
}

# Standard units (standard_units()) from the sums pass: exact copies are
# pooled as in memory (mom$copies, chunk_copies()), so the weights are
# rescaled to sum to the distinct rows of positive weight.
chunk_standard_units <- function(mom, const) {
  n <- mom$kept
  distinct <- mom$copies$distinct %||% n
  weighted <- distinct < n || mom$weighted && diff(mom$w_range) > 1e-14 * mom$w_range[2L]  # equal weights are none
  unit <- mom$z$W / distinct
  shift <- if (const[1L] > 0) mom$z$mean else 0
  variance <- mom$z$M2 / unit / (distinct - 1)  # of the rows replicated w / unit times
  scale <- sqrt(variance)
  if (!is.finite(scale) || !(scale > 0))
    stop_arg("formula", if (is.finite(scale)) "has a constant response; there is nothing to fit."
                        else "has a response too large to sum in double precision; rescale it.")
  log_w <- if (weighted) mom$log_w - n * log(unit) else 0
  log_pooled <- if (!weighted) 0 else if (is.null(mom$copies)) log_w else mom$copies$log_pooled - distinct * log(unit)
  c(response_units(shift, scale, const,
                   list(n = mom$rows, unit = unit, distinct = distinct, n_kept = n, weight_sum = distinct,
                        log_weight_sum = log_w, log_weights = log_pooled / 2, replicated = weighted,
                        target_variance = if (weighted) 1 else -1)),
    list(weighted = weighted))
}

# The statistics pass: Phi'Phi, Phi't, t't, sum(t) and n of the basis
# (`basis(x)`: the M columns of the rows x of the design) and the response
# in standard units, rows of weight w times sqrt(w / unit), as
# standard_units() forms them in memory. The basis is formed for blocks of
# at most 1e7 numbers (80 MB), so a chunk of any size fits.
chunk_statistics_pass <- function(source, spec, st, basis, M) {
  chunk_basis_pass(source, spec, basis, M, function(Phi, part, rows) {
    sw <- if (st$weighted) sqrt(part$weights[rows] / st$unit) else 1
    t <- sw * (part$y[rows] - (part$offset[rows] %||% 0) - st$shift) / st$scale
    .sb_statistics(if (st$weighted) Phi * sw else Phi, t, kernel_threads())
  }, add_sums, "statistics")
}

# Two lists of sums added element by element; NULL (no rows) adds nothing.
add_sums <- function(a, b) if (is.null(a)) b else if (is.null(b)) a else Map(`+`, a, b)

# One pass over the basis of every chunk's rows of positive weight,
# formed in blocks of at most 1e7 numbers: `block_sums(Phi, part, rows)`
# gives a block's sums (part: chunk_frame()'s, its weights filled in; rows:
# the block's rows of it), which `add` adds in order. `check(part, i)` sees
# each chunk i first. With `slices` (chunk_pass()'s, one value per row of
# positive weight), block_sums(Phi, part, rows, slice) is given the
# block's entries of its chunk's slice.
chunk_basis_pass <- function(source, spec, basis, M, block_sums, add, label, check = NULL, slices = NULL) {
  chunk_pass(source, basis_chunk(spec, basis, M, block_sums, add, check), add, label, slices)
}

basis_chunk <- function(spec, basis, M, block_sums, add, check) {
  block <- max(1L, floor(1e7 / M))
  function(chunk, i, slice = NULL) {
    part <- chunk_frame(chunk, spec)
    keep <- if (!is.null(part$x)) which((part$weights %||% rep(1, length(part$y))) > 0)
    if (!is.null(slice) && length(slice) != length(keep))
      stop_arg("data", sprintf("gave %d rows of positive weight in chunk %d, %d in its first pass; the chunks must not change between passes.",
                               length(keep), i, length(slice)))
    if (is.null(part$x)) return(NULL)
    if (!is.null(check)) check(part, i)
    part$weights <- part$weights %||% rep(1, length(part$y))
    value <- NULL
    for (pos in split(seq_along(keep), ceiling(seq_along(keep) / block))) {
      rows <- keep[pos]
      Phi <- basis(part$x[rows, , drop = FALSE])
      sums <- if (is.null(slice)) block_sums(Phi, part, rows) else block_sums(Phi, part, rows, slice[pos])
      value <- add(value, sums)
    }
    value
  }
}

# A formula fit from chunks: `fitter` (ard.default()) is given the design
# (class "sb_chunk_design": the source, the chunk description and the
# sums pass) in place of x and y, and the fit keeps what predict()
# needs to build the design of new data, as fit_formula() does.
fit_chunks <- function(mcall, env, source, fitter, generic, ..., keep_intercept = FALSE, sample_size = 0L, copies = FALSE,
                       classes = FALSE) {
  force(sample_size)  # its checks fail here, not inside a future's inspection of the pass's globals
  force(copies)
  source$record <- new.env(parent = emptyenv())  # what this fit's first pass read (check_same_rows())
  spec <- chunk_spec(mcall, env, source, keep_intercept, classes)
  design <- structure(list(source = source, spec = spec, moments = chunk_sums_pass(source, spec, sample_size, copies)),
                      class = "sb_chunk_design")
  fit <- fitter(design, NULL, ...)
  mcall[[1L]] <- as.name(generic)
  fit$call <- mcall
  fit$terms <- spec$terms
  fit$xlevels <- spec$xlev
  fit$contrasts <- spec$contrasts
  fit
}

# An ard() problem's data from a chunk source (ard_rows()): its columns,
# without rows, the moments of every row (the scaling) and the statistics
# pass on the design so scaled, in standard units. Only what sums over rows
# give is fitted (check_chunk_solver()).
chunk_ard_rows <- function(a) {
  check_chunk_solver(a)
  design <- a$x
  mom <- design$moments
  names <- design$spec$columns
  sample_noise <- per_sample_noise(a$noise)
  list(x = matrix(0, 0L, length(names), dimnames = list(NULL, names)), y = NULL, wo = list(), n_rows = mom$kept,
       moments = mom$x, chunks = design, start = if (sample_noise) chunk_start(a$control$start),
       statistics = function(scaling) {
         m <- mom$x  # the inputs' moments; the scaled design's constant column
         const <- constant_column(list(size = m$size, sd = sqrt(m$M2 / m$W), center = if (is.null(scaling)) m$center
                                       else (m$center - scaling$center) / scaling$scale))
         st <- if (sample_noise) chunk_robust_units(design, scaling, const) else chunk_standard_units(mom, const)
         st$statistics <- chunk_design_statistics(mom, design$spec, scaling, st)
         st$pass_count <- if (sample_noise) 2L else 1L  # the sums pass, and the response's
         st
       })
}

# Per-sample and Student-t noise from chunks (fit_passes() in fit.hpp). The
# noise step reads every row's residual (the t scale's floor is a median,
# the outlier class's E-step is per row, the noise bounds follow the
# residuals' MAD), so the response in standard units is held in this
# process, one number per row of positive weight (the solver adds the
# noise, residuals, x_i' Sigma x_i and E_i: about 10 numbers a row in all),
# and the rows are read again at each noise step, in two
# passes: their residuals and x_i' Sigma x_i at the current posterior, then
# their statistics weighted by the new noise (1 / lambda_i, each chunk sent
# its own rows'). The standard units are those of the rows in memory
# (standard_units(robust = TRUE): the response's weighted median and MAD),
# from the response read by a first pass. Returns them with `y` (the
# targets) and `passes` (the two passes, for .sb_fit_passes()).
chunk_robust_units <- function(design, scaling, const) {
  source <- design$source
  spec <- design$spec
  resp <- chunk_pass(source, function(chunk, i) {
    part <- chunk_frame(chunk, spec)
    if (is.null(part$x)) return(list(z = numeric(0), w = numeric(0), count = 0L))
    w <- part$weights %||% rep(1, length(part$y))
    keep <- w > 0
    list(z = part$y[keep] - (part$offset[keep] %||% 0), w = w[keep], count = sum(keep))
  }, function(a, b) list(z = c(a$z, b$z), w = c(a$w, b$w), count = c(a$count, b$count)), "response")
  weighted <- any(resp$w != 1)
  st <- standard_units(NULL, resp$z, if (weighted) resp$w, NULL, const = const, robust = TRUE, rows = NULL)
  st$weighted <- weighted
  st$unit <- 1
  counts <- resp$count
  M <- length(spec$columns)
  # What the workers are sent comes from chunk_block(), whose frame holds no n-length vector.
  units <- st[c("shift", "scale", "weighted")]
  read <- 0L
  st$passes <- list(
    count = function() read,
    weighted = function(w) {
      read <<- read + 1L
      chunk_basis_pass(source, spec, scaled_basis(scaling), M, chunk_block("weighted", units),
                       add_sums, "weighted statistics",
                       slices = split_rows(w, counts))
    },
    rows = function(cols, coef, R) {
      read <<- read + 1L
      chunk_basis_pass(source, spec, scaled_basis(scaling), M, chunk_block("rows", units, cols, coef, R),
                       function(a, b) if (is.null(a)) b else list(resid = c(a$resid, b$resid), q = c(a$q, b$q)),
                       "residuals")
    })
  st
}

# The start of a per-sample noise fit from chunks: the plain one. The
# high-breakdown start (least trimmed squares) searches subsets of the rows
# in memory; "best" (the default) falls back to the plain start, which the
# fit's `chunks` and summary() record.
chunk_start <- function(start) {
  if (identical(start, "robust"))
    stop_arg("control", "has start = \"robust\": the high-breakdown start searches the rows in memory; a fit from data_chunks() starts from the plain start only.")
  "plain"
}

# The scaled design of ard()'s rows, as scaled_design() forms it in memory.
scaled_basis <- function(scaling) function(x) scaled_design(x, scaling, FALSE)

# A block's part of a pass of chunk_robust_units(): its rows of the basis
# and targets in standard units (sqrt(w) (z - shift) / scale, as
# standard_units() forms them) and either the statistics weighted by
# `slice` or the residuals at coefficients `coef` of the columns `cols`
# and |R phi_i|^2.
chunk_block <- function(what, units, cols = NULL, coef = NULL, R = NULL) {
  shift <- units$shift
  scale <- units$scale
  weighted <- units$weighted
  function(Phi, part, rows, slice) {
    sw <- if (weighted) sqrt(part$weights[rows]) else 1
    t <- sw * (part$y[rows] - (part$offset[rows] %||% 0) - shift) / scale
    if (weighted) Phi <- Phi * sw
    if (what == "weighted") return(.sb_statistics(Phi * sqrt(slice), t * sqrt(slice), kernel_threads()))
    Pa <- Phi[, cols, drop = FALSE]
    list(resid = as.numeric(t - Pa %*% coef), q = rowSums((Pa %*% t(R))^2))
  }
}

# v split into the chunks' slices of `counts` rows.
split_rows <- function(v, counts) unname(split(v, factor(rep.int(seq_along(counts), counts), levels = seq_along(counts))))

# A chunk source as fit_gp_rows() reads it (`x`; rows in memory are left
# as they are, their posterior the fit's own): the hyperparameters and
# inducing points are learned by the in-memory fit on the uniform sample
# drawn by the sums pass (chunk_sample()), on inputs scaled by the moments
# of every row, so that given hyperparameters (optimize = "none", the
# inducing points a matrix) are used as they are; `posterior(learned)`
# then gives the fit of every row (chunk_gp_posterior()).
chunk_gp_rows <- function(x, y, a) {
  if (!inherits(x, "sb_chunk_design")) return(list(x = x, y = y, a = a, posterior = identity))
  if (a$approx$exact)
    stop_arg("approx", "\"exact\" factorises an n x n matrix of every row; from data_chunks() use \"VFE\" or \"FITC\".")
  check_flag(a$scale, "scale")
  mom <- x$moments
  scaling <- input_scaling(NULL, a$scale, moments = mom$x)
  st <- chunk_standard_units(mom, c(1, 1))
  inducing <- a$inducing
  if (is.matrix(inducing) || is.data.frame(inducing)) {
    inducing <- check_numeric_matrix(inducing, "inducing")
    if (ncol(inducing) != length(x$spec$columns))
      stop_arg("inducing", sprintf("has %d columns but the inputs have %d.", ncol(inducing), length(x$spec$columns)))
    inducing <- apply_scaling(inducing, scaling)
  }
  sample <- mom$sample
  # the sample's rows stand for every row, as a subsample's do (gp_learning())
  sampled <- utils::modifyList(a, list(inducing = inducing, scale = FALSE, weights = sample$weights,
                                       offset = sample$offset, served = mom$kept), keep.null = TRUE)
  list(x = apply_scaling(sample$x, scaling), y = sample$y, a = sampled,
       posterior = function(learned) chunk_gp_posterior(x, learned, scaling, st, a))
}

# The posterior of a sparse_gp() fit from chunks, on the hyperparameters
# and inducing points of the fit `learned` on the sample: one pass adding
# the sums over rows of every chunk (.sb_gp_sums(), the code of the
# in-memory pass) given the factor of K_uu, with the constant mean and the
# weights' unit of all rows (`st`, chunk_standard_units(); copies pooled as
# in memory), and formed from the sums (.sb_gp_posterior_from_sums()).
chunk_gp_posterior <- function(design, learned, scaling, st, a) {
  st$pass_count <- 2L  # the sums pass, and the posterior's below
  kernel <- learned$kernel
  noise <- learned$noise_variance
  Z <- learned$inducing_scaled
  factor <- .sb_gp_inducing_factor(unclass(kernel), Z, learned$jitter)
  approx <- a$approx
  sums <- chunk_pass(design$source, function(chunk, i) {
    part <- chunk_frame(chunk, design$spec)
    if (is.null(part$x)) return(NULL)
    w <- part$weights %||% rep(1, length(part$y))
    keep <- which(w > 0)
    if (!length(keep)) return(NULL)
    r <- part$y[keep] - (part$offset[keep] %||% 0) - st$shift
    .sb_gp_sums(unclass(kernel), noise, apply_scaling(part$x[keep, , drop = FALSE], scaling), r, Z,
                if (st$weighted) w[keep] / st$unit else numeric(0), approx$name, factor$chol, approx$fitc,
                kernel_threads())
  }, add_sums, "posterior")
  post <- .sb_gp_posterior_from_sums(noise, factor$chol, sums, approx$name)
  post$jitter_events <- post$jitter_events + factor$jitter_events
  opt <- list(par = list(kernel = kernel, noise = noise, Z = Z), noise_estimated = learned$noise_estimated,
              converged = learned$converged, counts = learned$iterations, message = learned$message,
              restart_values = -learned$restart_values, jitter_events = learned$jitter_events)
  fit <- gp_object(opt, post, st$shift, scaling, design$spec$columns, approx, a$optimize, learned$control,
                   learned$call, NULL)
  fit$weight_unit <- st$unit
  sampled <- nrow(design$moments$sample$x)
  fit$subsample <- if (a$optimize$hyper && sampled < design$moments$kept) sampled
  fit$learned <- learned$learned
  chunk_fit_fields(fit, design, post, st)
}

# A fit from chunks (`design`: its problem's "sb_chunk_design"; NULL, a fit
# from rows, is left as it is) keeps no n-length vector: its training fit
# is its residual sum of squares (from the statistics `st`) against the
# total, or (binomial) its deviance and training error. A binomial fit
# keeps no weights or offset of the sample either (whether it had an
# offset is in `chunks`, chunk_info()).
chunk_fit_fields <- function(fit, design, res, st = res$standard_units) {
  if (is.null(design)) return(fit)
  chunks <- chunk_info(design, st, res)
  if (!is.null(res$row_passes)) chunks$start <- "plain"  # per-sample noise: see chunk_start()
  for (field in c("fitted.values", "linear.predictors", "residuals", "y", "x")) fit[field] <- list(NULL)
  if (!is.null(res$row_passes)) {  # per-sample noise: the passes it read, and its noise in summary
    chunks$passes <- chunks$passes + res$row_passes
    chunks$noise <- noise_summary(c(fit$lambda, rep(Inf, chunks$rows - chunks$kept)))  # weight 0: infinite noise, as in memory
    chunks$outliers <- if (length(fit$outlier_probability)) sum(fit$outlier_probability > 0.5, na.rm = TRUE)
    for (field in c("lambda", "outlier_probability")) fit[field] <- list(NULL)
  }
  if (!is.null(res$passes)) for (field in c("prior.weights", "offset")) fit[field] <- list(NULL)
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

# With per-sample noise the outliers a fit sets aside dominate its RMSE;
# these do not: the RMSE over the rows not down-weighted (flagged_rows())
# and the median absolute residual. NULL for shared noise and for fits
# from chunks, which keep no residuals.
inlier_errors <- function(object) {
  if (!is.null(object$chunks) || length(object$lambda) <= 1L) return(NULL)
  r <- object$residuals
  kept <- setdiff(seq_along(r), flagged_rows(object$lambda))
  list(rmse = sqrt(mean(r[kept]^2)), n = length(kept), of = length(r), median_abs = stats::median(abs(r)))
}

# The "Training RMSE" lines of summary() of rvm() and ard() fits.
print_training_errors <- function(x, digits) {
  cat(sprintf("Training RMSE:      %s   (R-squared %s)\n", format(x$rmse, digits = digits),
              format(x$r_squared, digits = digits)))
  e <- x$inlier_errors
  if (is.null(e)) return(invisible())
  if (e$n < e$of)
    cat(sprintf("  without outliers: RMSE %s over the %d of %d rows not down-weighted; median |residual| %s\n",
                format(e$rmse, digits = digits), e$n, e$of, format(e$median_abs, digits = digits)))
  else cat(sprintf("  median |residual|: %s (no row down-weighted)\n", format(e$median_abs, digits = digits)))
}

training_r_squared <- function(object) {
  if (!is.null(object$chunks)) return(1 - object$chunks$rss / object$chunks$tss)
  y <- object$y
  1 - sum(object$residuals^2) / sum((y - mean(y))^2)
}

# A uniform sample of the rows of positive weight of a chunk (the design
# x, y, weights, offset): each row draws a key from a stream seeded by its
# chunk's index, and the rows of the `size` smallest keys are kept, so that
# sample_combine() gives the sample of all chunks whatever their grouping.
chunk_sample <- function(part, keep, i, size) {
  key <- chunk_keys(i, length(part$y))
  rows <- which(keep)
  rows <- rows[order(key[rows])][seq_len(min(size, length(rows)))]
  list(key = key[rows], x = part$x[rows, , drop = FALSE], y = part$y[rows],
       weights = part$weights[rows], offset = part$offset[rows])
}

# The sample keys of chunk i: L'Ecuyer-CMRG draws seeded by a
# multiplicative hash of i. A source that makes chunk i after set.seed(i)
# (bench/chunks_scale.R's generator) drew the keys' uniforms for the chunk's
# first column, and the sample held its smallest values (rvm() learned its
# widths on x1 < -2.9: latent RMSE 0.94; a sparse GP 0.74). The caller's
# generator, its kind and its seed, are left as they were.
chunk_keys <- function(i, n) {
  state <- save_rng()
  kinds <- RNGkind()
  on.exit({
    RNGkind(kinds[1L], kinds[2L], kinds[3L])
    restore_rng(state)
  })
  set.seed(as.integer((i * 2654435761) %% 2147483647), kind = "L'Ecuyer-CMRG")
  stats::runif(n)
}

sample_combine <- function(a, b, size) {
  key <- c(a$key, b$key)
  o <- order(key)[seq_len(min(size, length(key)))]
  pick <- function(u, v) if (is.null(u) && is.null(v)) NULL else c(u, v)[o]
  list(key = key[o], x = rbind(a$x, b$x)[o, , drop = FALSE], y = c(a$y, b$y)[o],
       weights = pick(a$weights, b$weights), offset = pick(a$offset, b$offset))
}

# What a fit from chunks can solve without its rows, as the core's table of
# methods says (.sb_methods()): shared noise from the sums (`statistics`),
# per-sample noise reading the rows at noise steps only (`passes`); the
# gradient rule's primal form reads the sample space.
check_chunk_solver <- function(a, sample_noise = TRUE) {
  if (per_sample_noise(a$noise) && !sample_noise)
    stop_arg("noise", "must be \"shared\" for this fit from data_chunks(); ard() fits per-sample and Student-t noise from chunks.")
  if (per_sample_noise(a$noise) && !method_supports(a$method, "passes"))
    stop_arg("method", sprintf("\"%s\" with noise = \"%s\" reads every row at every step; from data_chunks() use %s.",
                               a$method, a$noise, methods_supporting("passes")))
  primal <- solver_spec(a$method, NULL, a$gradient_form)$gradient_form == "primal"
  if (!method_supports(a$method, "statistics") || primal)
    stop_arg("method", sprintf("\"%s\"%s reads every row; from data_chunks() use %s (the gradient with gradient_form = \"dual\").",
                               a$method, if (primal) " with gradient_form = \"primal\"" else "", methods_supporting("statistics")))
}

# The rows of the sample an rvm() fit from chunks learns its kernel's widths
# and chooses its centres on, and of the larger one on which the evidence
# chooses how much narrower its basis' widths are (chunk_basis_widths()).
chunk_sample_size <- 20000L
chunk_width_rows <- 100000L

# A chunk source as rvm_problem() reads it (`a`: rvm.default()'s arguments;
# rows in memory are left as they are): the source's refusals (a single
# kernel, formed chunk by chunk; two classes; shared noise; binomial and
# Poisson fits by the fast solver, without a prior), then a uniform sample
# of the rows (chunk_sample(), `sample_size` rows drawn in the sums pass)
# in place of x, y, weights and offset, and the source's own defaults: the
# kernels centred on k-means++ centres of the sample, a classifier's width
# the median heuristic (its widths are not learned), "auto" no prior.
# `a$source`: the chunk design, the moments of every row (the scaling),
# the rows the prior counts and those chunk_basis_widths() reads.
chunk_rvm_rows <- function(a) {
  design <- a$x
  if (!inherits(design, "sb_chunk_design")) return(a)
  if (!is.null(a$basis)) stop_arg("basis", "cannot be given with data_chunks(): the basis is formed chunk by chunk.")
  classes <- design$spec$classes
  family <- resolve_family(a$family, if (is.null(classes)) 0 else factor(classes))
  if (!is.null(classes) && has_noise(family))
    stop_arg("family", "must be binomial (or NULL) for a factor, character or logical response.")
  if (length(classes) > 2L)
    stop_arg("formula", sprintf(paste0(
      "has a response of %d classes (%s); an rvm() from data_chunks() fits two. Fit one model per class against ",
      "the rest, e.g. rvm(I(%s == \"%s\") ~ ..., data = <the chunks>), or the classes in memory (one model per ",
      "class, predictions normalised)."), length(classes), paste(classes, collapse = ", "),
      deparse(design$spec$terms[[2L]]), classes[1L]))
  if (!has_noise(family)) {
    if (a$method != "fast")
      stop_arg("method", sprintf("\"%s\" is not supported for a %s fit from data_chunks(); use \"fast\".", a$method,
                                 family$family))
    if (!identical(a$prior, "auto") && !identical(a$prior, "none"))
      stop_arg("prior", "must be \"none\" for the binomial and poisson families.")
  }
  check_chunk_solver(a, sample_noise = FALSE)
  kernels <- as_dictionary(a$kernel)
  if (length(kernels) != 1L || is_wavelet(kernels[[1L]]) || is_evidence_width(kernels[[1L]]))
    stop_arg("kernel", "must be a single kernel, not wavelets or a dictionary, and its width a number, \"median\" or ",
             "\"learn\" for a fit from data_chunks().")
  # the flags and the response are refused before the centres' message below
  check_flag(a$bias, "bias")
  check_flag(a$scale, "scale")
  mom <- design$moments
  sample <- sample_head(mom$sample, chunk_sample_size)
  n <- nrow(sample$x)
  two_classes <- likelihood_of(family)$classes
  y <- if (two_classes) chunk_classes(sample$y, classes) else likelihood_of(family)$encode(sample$y, n)
  if (two_classes && is.null(kernels[[1L]]$width) && is_learnable(kernels[[1L]])) kernels[[1L]]$width <- "median"
  if (is.null(a$centres))
    message(sprintf(paste0("rvm(): from data_chunks(), the kernels are centred on %d k-means++ centres of a sample ",
                           "of %d rows (`centres =`)."), min(1000L, n), n))
  prior <- if (identical(a$prior, "auto")) "none" else a$prior
  smoothness_constant(prior, mom$kept, choices = c("none", "AIC", "BIC", "RIC"))  # no wavelet priors from chunks
  a[c("x", "y", "weights", "offset", "family", "kernel", "centres", "prior", "source")] <- list(
    sample$x, y, sample$weights, sample$offset, family, kernels[[1L]], a$centres %||% min(1000L, n), prior,
    list(chunks = design, moments = mom$x, rows = mom$kept, width_rows = mom$sample))
  a
}

# The rows of the `size` smallest keys of a sample (chunk_sample()): a
# uniform sample of its own, that of the same size read directly.
sample_head <- function(sample, size) {
  if (length(sample$key) <= size) return(sample)
  k <- seq_len(size)
  list(key = sample$key[k], x = sample$x[k, , drop = FALSE], y = sample$y[k], weights = sample$weights[k],
       offset = sample$offset[k])
}

# The classes of a binomial rvm() from chunks, as a factor of the sample's
# rows (fit_rvm() fits one model for two classes, one per class against the
# rest for more): the levels read from the chunks, or "0" and "1" for a
# numeric response (the passes check that every row is 0 or 1, and that
# both occur).
chunk_classes <- function(y, classes) {
  if (is.null(classes)) {
    if (any(!y %in% c(0, 1))) stop_arg("y", "must be a factor, logical or 0/1 for the binomial family.")
    classes <- c("0", "1")
  }
  if (length(classes) < 2L) stop_arg("y", "has a single class; there is nothing to classify.")
  factor(classes[y + 1], levels = classes)
}

# The kernel basis of an rvm() problem (rvm_design()), from its data
# backend: the matrix of the rows in memory; from a chunk source, the
# statistics of the basis (the bias first, as kernel_design() forms it)
# over every row, or for a binomial or Poisson fit, whose passes weight the
# rows by the curvature at the current mode, `passes(positive)`, the fit by
# chunk_laplace_fit().
basis_of <- function(p) {
  centre_inputs <- if (is.null(p$centres)) p$xs else apply_scaling(p$centres, p$scaling)
  M <- p$bias + length(p$kernels) * nrow(centre_inputs)
  if (is.null(p$chunks)) {
    check_fit_memory(p$n, M, p$solver$method, p$noise, p$family$family, length(p$kernels))
    return(list(Phi = dictionary_basis(p$kernels, p$x, p$xs, p$bias, centre_inputs)))
  }
  basis <- chunk_basis(p$kernels[[1L]], p$scaling, centre_inputs, p$bias)
  if (!has_noise(p$family)) return(list(passes = function(positive) chunk_laplace_fit(p, basis, M, positive)))
  st <- chunk_standard_units(p$chunks$moments, if (p$bias) c(1, 1) else c(0, 0))
  st$statistics <- chunk_statistics_pass(p$chunks$source, p$chunks$spec, st, basis, M)
  st$pass_count <- 2L  # the sums pass, and this one
  list(statistics = st)
}

# The basis of a chunk's rows x, as a function that holds only what it
# needs (it is sent to the workers of every pass).
chunk_basis <- function(kernel, scaling, centre_inputs, bias) {
  force(kernel)
  force(scaling)
  force(centre_inputs)
  force(bias)
  function(x) kernel_design(kernel, apply_scaling(x, scaling), centre_inputs, bias)
}

# The cap on the passes of a binomial fit from chunks (chunk_laplace_fit()):
# 100, or the option sparsebayes.chunk_max_passes (for tests).
chunk_max_passes <- function() as.integer(getOption("sparsebayes.chunk_max_passes", 100L))

# A binomial rvm() from chunks (one class, `positive`, of the class codes
# against the others), or a Poisson one: the core's outer loop
# (laplace_passes.hpp: IRLS passes warm-starting the fast solver on each
# pass's sums, its step checks and mode searches at fixed alphas), one pass
# over the chunks (chunk_laplace_pass()) per outer iteration, at most
# chunk_max_passes() of them, on the M columns of `basis` (chunk_basis()).
# Returns fit_basis()'s fields, with the passes.
chunk_laplace_fit <- function(p, basis, M, positive) {
  control <- p$solver$control
  settings <- core_settings(control, fit_reporter("fast solver on a pass's sums", control$verbose))
  pass <- function(relevant, mu, pass)
    chunk_laplace_pass(p$chunks$source, p$chunks$spec, basis, M, relevant, mu, p$family, positive, pass)
  .sb_fit_laplace_passes(pass, M, likelihood_of(p$family)$name, chunk_max_passes(), solver_problem("fast", noise_variance = 1),
                         settings)
}

# One pass of a binomial or Poisson fit from chunks at the weights mu of
# the columns `relevant` of the basis (none: mu = 0): each block's sums by
# the core's likelihood (.sb_laplace_pass_sums(): the statistics of
# sqrt(b) Phi and sqrt(b) z, b the rows' curvature and z their linearised
# targets, the log-likelihoods, the rows `kept`, the sum of the targets
# `positive` (the rows of class `positive`) and the rows `wrong`ly
# classified), added in order. The basis is formed for blocks of at most
# 1e7 numbers.
chunk_laplace_pass <- function(source, spec, basis, M, relevant, mu, family, positive, pass) {
  classes <- likelihood_of(family)$classes
  add <- function(a, b) if (is.null(a)) b else if (is.null(b)) a else
    c(list(statistics = add_sums(a$statistics, b$statistics)), Map(`+`, a[-1L], b[-1L]))
  check <- function(part, i) {
    if (classes && is.null(spec$classes) && any(!part$y %in% c(0, 1)))
      stop_arg("y", sprintf("must be a factor, logical or 0/1 for the binomial family (chunk %d).", i))
    if (!classes && any(part$y < 0 | part$y != round(part$y)))
      stop_arg("y", sprintf("must be non-negative whole numbers (counts) for the poisson family (chunk %d).", i))
  }
  value <- chunk_basis_pass(source, spec, basis, M, function(Phi, part, rows) {
    t <- if (classes) as.numeric(part$y[rows] == positive) else as.numeric(part$y[rows])
    .sb_laplace_pass_sums(Phi, t, as.numeric(part$weights[rows]), as.numeric(part$offset[rows] %||% numeric(length(rows))),
                          relevant, mu, likelihood_of(family)$name, pass == 1L)
  }, add, sprintf("%s pass %d", family$family, pass), check)
  if (is.null(value) || value$kept < 2L) stop_arg("data", "gives fewer than two rows of positive weight.")
  if (classes && (value$positive == 0 || value$positive == value$kept))
    stop_arg("y", "has a single class among the rows of positive weight; there is nothing to classify.")
  if (value$positive == 0) stop_arg("y", "is all zero among the rows of positive weight; there is nothing to fit.")
  value
}

# The basis widths of an rvm() from chunks whose widths the exact GP
# learned (on 300 rows of the sample): the GP's, or narrower by factors of
# sqrt(2) while the evidence of the fit on the basis grows, on a larger
# sample of the rows (chunk_width_rows, all rows below that). The GP's
# widths suit its own basis of every row; a basis of M centres gets finer
# ones as more rows support them, and at n = 1e5 the evidence over all
# rows preferred the GP's widths times 0.5 (latent RMSE 0.0131) to
# / sqrt(2) (0.0146), where on the 20000-row sample it stopped at
# / sqrt(2); on 5000 rows its preferences were within +-15 nats and
# changed sign (bench/chunks_scale.R). One O(rows M^2) sum of the basis per
# width tried (blocks of at most 1e7 numbers), and a fit from the sums.
chunk_basis_widths <- function(p) {
  if (is.null(p$width_rows)) return(p)  # rows in memory, or widths not learned
  kernel <- p$kernels[[1L]]
  if (!identical(kernel$width_rule, "learn")) return(p)
  centres <- apply_scaling(p$centres, p$scaling)
  rows <- p$width_rows
  st <- standard_units(NULL, rows$y, rows$weights, rows$offset, const = if (p$bias) c(1, 1) else c(0, 0), rows = NULL)
  xs <- apply_scaling(rows$x[st$keep, , drop = FALSE], p$scaling)
  evidence <- function(width) {
    k <- kernel
    k$width <- width
    st$statistics <- block_statistics(function(i) kernel_design(k, xs[i, , drop = FALSE], centres, p$bias), st)
    fit_basis(NULL, NULL, p$family, solver_spec("fast", rvm_control()), wo = list(), statistics = st)$log_evidence
  }
  # Narrower while the evidence grows, at most three halvings: the GP's
  # widths suit its own basis of every row; a basis of M centres fitted
  # to more rows supports finer ones.
  widths <- lapply(0:6, function(k) kernel$width * 2^(-k / 2))
  ev <- evidence(widths[[1L]])
  for (k in 2:length(widths)) {
    ev[k] <- evidence(widths[[k]])
    if (ev[k] <= ev[k - 1L]) break
  }
  best <- which.max(ev)
  p$kernels[[1L]]$width <- widths[[best]]
  p$kernels[[1L]]$learned$basis_gain <- ev[best] - ev[1L]
  p$kernels[[1L]]$learned$basis_multiple <- 2^-((best - 1) / 2)
  p$kernels[[1L]]$learned$basis_rows <- length(st$y)
  p$width_rows <- NULL
  p
}

# The statistics (.sb_statistics()'s sums) of the basis rows `basis(i)` of
# the kept rows i and the targets st$y of standard_units(), rows of
# weight w times sqrt(w) as it forms them, in blocks of at most 1e7 numbers.
block_statistics <- function(basis, st) {
  n <- length(st$y)
  sw <- st$sw
  value <- NULL
  M <- ncol(basis(1L))
  for (i in split(seq_len(n), ceiling(seq_len(n) / max(1L, floor(1e7 / M))))) {
    Phi <- basis(i)
    if (!is.null(st$weights)) Phi <- Phi * sw[i]
    value <- add_sums(value, .sb_statistics(Phi, st$y[i], kernel_threads()))
  }
  value
}

# The description of a fit from chunks that the fit keeps: the passes its
# statistics `st` read (st$pass_count); for a binomial fit (`res` from
# chunk_laplace_fit()) the sums pass and its passes, whether they
# converged, and the deviance and training error at the last pass.
chunk_info <- function(design, st, res = NULL) {
  mom <- design$moments
  if (!is.null(res$passes))
    return(list(source = design$source$label, rows = mom$rows, kept = mom$kept, omitted = mom$omitted,
                offset = mom$offset, passes = design$spec$passes + 1L + res$passes,
                passes_converged = res$passes_converged, deviance = res$deviance, error = res$error))
  list(source = design$source$label, rows = mom$rows, kept = mom$kept, omitted = mom$omitted, offset = mom$offset,
       passes = design$spec$passes + st$pass_count, tss = mom$z$M2 / st$unit)
}

# The line of summary() that says a fit was made from chunks, and what it read.
chunk_line <- function(chunks) {
  if (is.null(chunks)) return("")
  line <- sprintf("Data:               %s in chunks, %d pass%s, %.0f rows fitted%s; sums kept, not rows\n",
                  chunks$source, chunks$passes, if (chunks$passes == 1L) "" else "es", chunks$kept,
                  if (chunks$omitted > 0) sprintf(" (%.0f with NA left out)", chunks$omitted) else "")
  if (identical(chunks$start, "plain"))  # per-sample noise: see chunk_start()
    line <- paste0(line, "Start:              the plain one only (the robust start searches the rows in memory)\n")
  line
}
