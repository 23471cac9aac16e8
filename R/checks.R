# Argument checks shared by every exported function. Each stops with a
# message that names the argument and says what was expected.

stop_arg <- function(arg, ...) {
  stop(sprintf("`%s` %s", arg, paste0(...)), call. = FALSE)
}

check_flag <- function(x, arg = deparse(substitute(x))) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) stop_arg(arg, "must be TRUE or FALSE.")
  invisible(x)
}

check_number <- function(x, arg = deparse(substitute(x)), lower = -Inf, upper = Inf,
                         open_lower = FALSE, integer = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && is.finite(x)
  if (!ok) stop_arg(arg, "must be a single finite number.")
  if (x < lower || (open_lower && x == lower) || x > upper) {
    rel <- if (open_lower) ">" else ">="
    stop_arg(arg, sprintf("must be %s %s%s, not %s.", rel, format(lower),
                          if (is.finite(upper)) paste0(" and <= ", format(upper)) else "", format(x)))
  }
  if (integer && x != round(x)) stop_arg(arg, "must be a whole number.")
  invisible(x)
}

# A number strictly between 0 and 1 (a coverage level or a probability).
check_probability <- function(x, arg = deparse(substitute(x))) {
  check_number(x, arg, lower = 0, upper = 1, open_lower = TRUE)
  if (x >= 1) stop_arg(arg, "must be below 1.")
  invisible(x)
}

# A numeric matrix with finite entries; data frames of numbers are accepted.
check_numeric_matrix <- function(x, arg = deparse(substitute(x))) {
  if (is.data.frame(x)) {
    if (!all(vapply(x, is.numeric, logical(1))))
      stop_arg(arg, "must be numeric; use the formula interface for factors.")
    x <- as.matrix(x)
  }
  if (inherits(x, "Matrix")) x <- dense_matrix(x, arg)
  if (is.numeric(x) && is.null(dim(x))) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !is.numeric(x)) stop_arg(arg, "must be a numeric matrix.")
  if (nrow(x) == 0L || ncol(x) == 0L) stop_arg(arg, "has no rows or no columns.")
  if (anyNA(x)) stop_arg(arg, "contains NA or NaN; remove those rows or use the formula interface with `na.action`.")
  if (!.sb_all_finite(x)) stop_arg(arg, "contains infinite values.")  # no n x d logical copy
  storage.mode(x) <- "double"
  unique_column_names(x)
}

# Empty or duplicated column names (cbind(x, x^2) names its second column
# "") made unique once, at fit time: "x2" for an empty name in column 2,
# make.unique() for repeats. A matrix without names keeps none.
unique_column_names <- function(x) {
  nm <- colnames(x)
  if (is.null(nm)) return(x)
  empty <- is.na(nm) | !nzchar(nm)
  nm[empty] <- paste0("x", which(empty))
  colnames(x) <- make.unique(nm)
  x
}

# A Matrix-package object as a base matrix, if the dense copy fits in memory.
dense_matrix <- function(x, arg) {
  check_basis_memory(nrow(x), ncol(x))
  tryCatch(as.matrix(x), error = function(e)
    stop_arg(arg, sprintf("is a %s that could not be converted with as.matrix(): %s", class(x)[1L], conditionMessage(e))))
}

check_response <- function(y, n, arg = "y") {
  if (is.factor(y) || is.character(y) || is.logical(y))
    stop_arg(arg, "must be numeric for the gaussian family; use family = binomial() to classify.")
  if (!is.numeric(y)) stop_arg(arg, "must be a numeric vector.")
  if (!is.null(dim(y)) && NCOL(y) != 1L) stop_arg(arg, "must be a single column.")
  y <- as.numeric(y)
  if (length(y) != n) stop_arg(arg, sprintf("has length %d but the inputs have %d rows.", length(y), n))
  if (anyNA(y)) stop_arg(arg, "contains NA or NaN; remove those rows or use the formula interface with `na.action`.")
  if (!.sb_all_finite(y)) stop_arg(arg, "contains infinite values.")
  if (length(y) < 3L) stop_arg(arg, "needs at least 3 observations.")
  if (diff(range(y)) == 0) stop_arg(arg, "is constant; there is nothing to fit.")
  y
}

# NULL, or non-negative finite case weights (positive ones where a model
# cannot drop a row), one per observation, not all zero.
check_weights <- function(weights, n, positive = FALSE) {
  if (is.null(weights)) return(NULL)
  if (!is.numeric(weights) || !is.null(dim(weights)) && NCOL(weights) != 1L) stop_arg("weights", "must be a numeric vector.")
  weights <- as.numeric(weights)
  if (length(weights) != n) stop_arg("weights", sprintf("has length %d but there are %d observations.", length(weights), n))
  if (any(!is.finite(weights))) stop_arg("weights", "contains NA, NaN or infinite values.")
  if (any(weights < 0)) stop_arg("weights", "must be non-negative.")
  if (positive && any(weights == 0)) stop_arg("weights", "must be positive here; drop the rows with zero weight.")
  if (all(weights == 0)) stop_arg("weights", "are all zero.")
  weights
}

# NULL, or a finite numeric offset with one value per observation.
check_offset <- function(offset, n) {
  if (is.null(offset)) return(NULL)
  if (!is.numeric(offset) || !is.null(dim(offset)) && NCOL(offset) != 1L) stop_arg("offset", "must be a numeric vector.")
  offset <- as.numeric(offset)
  if (length(offset) != n) stop_arg("offset", sprintf("has length %d but there are %d observations.", length(offset), n))
  if (any(!is.finite(offset))) stop_arg("offset", "contains NA, NaN or infinite values.")
  offset
}

# match.arg() with a message that names the argument: `arg` must be one of
# the choices (partial matching allowed); its default vector gives the first.
match_arg <- function(arg, choices, name = deparse(substitute(arg))) {
  if (missing(choices)) {
    caller <- sys.parent()
    choices <- eval(formals(sys.function(caller))[[name]], envir = sys.frame(caller))
  }
  if (identical(arg, choices)) return(choices[1L])
  listed <- paste0("\"", choices, "\"", collapse = ", ")
  if (!is.character(arg) || length(arg) != 1L || is.na(arg)) stop_arg(name, sprintf("must be one of %s.", listed))
  i <- pmatch(arg, choices)
  if (is.na(i)) stop_arg(name, sprintf("must be one of %s; got \"%s\".", listed, arg))
  choices[i]
}

# A control object checked again when a fit starts: one made by `maker` and
# edited by hand, or a plain list of settings, goes through the constructor,
# so it gets the constructor's messages (and can never reach the solver
# with a setting the constructor refuses).
revalidate_control <- function(control, maker, maker_name) {
  if (!is.list(control)) stop_arg("control", sprintf("must be made by %s().", maker_name))
  control_from_list(unclass(control), maker, maker_name)
}

# A control object from a plain list of settings, e.g. list(max_iterations =
# 50), made by `maker` (rvm_control, ard_control); unknown names are named.
control_from_list <- function(control, maker, maker_name) {
  nm <- names(control)
  if (length(control) && (is.null(nm) || any(!nzchar(nm)) || anyDuplicated(nm)))
    stop_arg("control", sprintf("must be made by %s() or be a list of named settings.", maker_name))
  # Checked here although a maker with `...` checks names too: do.call()
  # would partially match a short name (max_iter) to a formal first.
  known <- if ("..." %in% names(formals(maker))) names(control_settings(maker)) else names(formals(maker))
  unknown <- setdiff(nm, known)
  if (length(unknown))
    stop_arg("control", sprintf("has unknown setting(s) %s; see ?%s.", paste(unknown, collapse = ", "), maker_name))
  do.call(maker, control)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# `read()`'s value, computed at the first call of a session: for the core's
# tables (of methods, kernels and likelihoods), which do not change, and
# which a fit asks a score of times (a table built as a data frame costs
# about 0.5 ms; the methods' and kernels' were 6% of a default Servo fit's
# CPU, the likelihoods' 4% of a Boston fit's).
once <- function(read) {
  value <- NULL
  function() value %||% (value <<- read())
}

# The core's table of methods (methods.hpp).
method_table <- once(function() .sb_methods())

# What a fitting method supports ("batch", "non_gaussian", "smoothness",
# "studentized"): the core's table of methods (methods.hpp), the one place
# these rules live. `methods_supporting()` names the methods that do, for
# messages.
method_supports <- function(method, what) {
  table <- method_table()
  table[[what]][match(method, table$name)]
}

# A `method` of rvm() or ard(), partially matched against the names of the
# core's table of methods: a rule added there is accepted with no list in R
# to keep in step (the formals give only the default).
match_method <- function(method) match_arg(method, method_table()$name, "method")

methods_supporting <- function(what) {
  table <- method_table()
  or_list(sprintf("\"%s\"", table$name[table[[what]]]))
}

# "a", "a or b", "a, b or c".
or_list <- function(x) if (length(x) <= 1L) x else paste(paste(x[-length(x)], collapse = ", "), "or", x[length(x)])
