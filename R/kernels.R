#' Kernel functions for RVM bases and sparse GPs
#'
#' Small objects describing a kernel function k(x, x'); the computation is
#' done in C++. Every kernel is multiplied by `variance`. With `r` the
#' `width` and `d` the Euclidean distance between x and x':
#'
#' * `kernel_gaussian()`: `exp(-d^2 / r^2)`.
#' * `kernel_laplace()`: `exp(-d / r)`.
#' * `kernel_cauchy()`: `1 / (1 + d^2 / r^2)`.
#' * `kernel_polynomial()`: `(<x, x'> + offset)^degree`.
#' * `kernel_linear()`: `<x, x'>`.
#' * `kernel_lspline()`: the linear spline kernel of Schmolck and Everson
#'   (2007, eq. 38), a product over input dimensions for several inputs.
#' * `kernel_tpspline()`: the thin-plate spline `(d/r)^2 log(d/r)`, 0 at
#'   `d = 0`.
#'
#' **Parameterisation.** The width `r` enters as `d^2 / r^2`, not as the
#' `d^2 / (2 l^2)` of a lengthscale `l`: `kernel_gaussian(r)` is the
#' Gaussian kernel with lengthscale `l = r / sqrt(2)`, the one
#' [rff_features()] approximates with `lengthscale = r / sqrt(2)`, and
#' kernlab's `rbfdot(sigma)` (`exp(-sigma d^2)`) with `sigma = 1 / r^2`;
#' kernlab's `laplacedot(sigma)` is `kernel_laplace(1 / sigma)`. A fit with
#' `scale = TRUE` (the default of [rvm()]) applies the width to
#' standardised inputs, so compare widths with kernlab on the same scale.
#'
#' Wherever a kernel is expected, its name (`"gaussian"`, ...) may be given
#' instead, meaning the kernel with its default arguments (`"haar"` and
#' `"symmlet8"` name the wavelet dictionaries of [kernel_wavelet()]). A list
#' of kernels is an overcomplete dictionary: their bases side by side.
#'
#' Kernel matrices (every basis of [rvm()], and [kernel_matrix()]) are
#' evaluated in tiles on `getOption("sparsebayes.threads")` threads, by
#' default what R allows ([parallelly::availableCores()]: the machine's or
#' the job's cores, 1 inside a `future` worker), with at most one thread
#' per 4 tiles of 32768 entries (a smaller matrix is filled by one thread:
#' a second would cost more to start and idle than it saves). Results are
#' bit-identical for any number of threads.
#'
#' @param width Width `r` of the kernel, in the units of the inputs the
#'   kernel sees (standardised inputs when a model is fitted with
#'   `scale = TRUE`). `NULL` (the default) is resolved when a model is
#'   fitted: `"learn"` (below) for a single gaussian, laplace or cauchy
#'   kernel of a gaussian [rvm()] and of [sparse_gp()], `"learn_one"` for
#'   that of a classifier (both fall back to `"median"` when fewer than 5
#'   rows or a constant response leave nothing to learn from), `"median"`
#'   otherwise (count models, dictionaries, the other kernels,
#'   [kernel_matrix()]). `"median"`: half
#'   the median Euclidean distance between training inputs (computed on at
#'   most 1000 evenly spaced rows), which for Tipping's sinc example gives
#'   about the width 3 used there; it was the default of every fit before
#'   widths were learned.
#'
#'   **One width per input.** A vector of widths, one per input column the
#'   kernel sees (after factors are expanded, in the order of the model
#'   matrix; every column of a factor has its own width), divides the
#'   difference in column k by `r_k`: `kernel_gaussian(c(r1, r2))` is
#'   `exp(-(dx1 / r1)^2 - (dx2 / r2)^2)`, and equal widths give the
#'   one-width kernel. The linear spline is a product over inputs, each with
#'   its width. Named widths are matched to the input columns by name
#'   (`kernel_gaussian(c(x2 = 5, x1 = 0.2))` gives `x1` the width 0.2 in
#'   any order; columns without names are `x1`, `x2`, ... as in
#'   [input_relevance()]); names that are not one per column are refused.
#'   Unnamed widths are used in column order.
#'
#'   `"learn"`: one width per input learned from the data when [rvm()] or
#'   [sparse_gp()] fits (gaussian, laplace and cauchy kernels). The widths,
#'   the kernel variance and the noise maximise the marginal likelihood of
#'   the Gaussian process with this kernel (exact, on at most 300 training
#'   rows, a random subset with seed 1 beyond; L-BFGS-B with analytic
#'   gradients, first with one width for all inputs from the median
#'   heuristic and two starting noises, then with one per input from each
#'   optimum found and from the heuristic in every input, the best kept:
#'   the likelihood has optima whose short widths make the kernel noise by
#'   another name; inputs whose width does not pay its BIC price,
#'   `log(n) / 2`, are then switched off together, a width 1e4 times the
#'   heuristic, and the widths optimised again, kept where the likelihood is
#'   higher). Exact copies of a row are pooled and weights taken as
#'   precisions (see `weights` in [rvm()]); a constant input gets a width
#'   1e4 times the largest. Unlike the RVM
#'   evidence, this criterion does not reward narrow kernels: it has one
#'   prior for all the kernel's weights. When the GP's evidence beats the
#'   constant model by less than the BIC price of its extra parameters
#'   (`(p + 1) log(n) / 2` for p widths), the data show no signal the
#'   widths could describe, and the median heuristic is used (`width_rule =
#'   "median"`): on pure noise the GP finds short, near-white widths on
#'   which an RVM would interpolate. [rvm()] then fits its sparse
#'   weights on the learned kernel; [sparse_gp()] starts its own
#'   optimisation there. The widths are stored in the fit's kernel (named
#'   by input, with `width_rule = "learn"` and the GP's `learned` variance,
#'   noise and log marginal likelihood), so `predict()` needs nothing else
#'   and `update()` learns again; [input_relevance()] reports them (small
#'   width, relevant input). The kernel variance is kept below 10 times the
#'   response's variance: beyond, the GP uses the kernel in a
#'   near-polynomial regime (widths far beyond the data) whose nearly
#'   collinear columns the RVM cannot use. A gaussian [rvm()] then fits
#'   from three starting noises (its own start, the GP's noise as a start,
#'   and the noise fixed at the GP's; `noise_starts` in the fit) and keeps
#'   the fit of largest evidence: the RVM evidence has a second optimum
#'   with a few vectors and a large noise on such kernels. On a response
#'   without noise (the GP's noise under 1% of the response's variance:
#'   computer experiments, exact surfaces) the basis with the GP's widths
#'   implies a covariance sqrt(2) times wider than the GP's, and the RVM
#'   stops far from the GP; there [rvm()] also fits the basis of widths /
#'   sqrt(2), from each start, and keeps the fit of smallest leave-one-out
#'   error (the kept widths are the kernel's). A classifier
#'   learns the widths by the Laplace approximation to the evidence of a
#'   GP classifier (logistic link, the class share as the prior mean,
#'   latent variance at most 10; one per class for a multiclass fit,
#'   sharing the widths); a poisson model by GP regression on
#'   `log(1 + y)`. For classifiers one width per input loses on held-out
#'   data against one width for all (`bench/RESULTS.md`), so their default
#'   is `"learn_one"`.
#'
#'   `"learn_one"`: one width for all inputs (in the units of the spreads
#'   the kernel sees), learned as `"learn"` learns its first stage: the
#'   same marginal likelihood, pooling and fallback, without the per-input
#'   stage. The default of a classifier's kernel: over ten public sets it
#'   had a lower held-out log loss than the median heuristic on seven, and
#'   than `"learn"` on six, with three ties (`bench/RESULTS.md`).
#'
#'   `"evidence"`: [rvm()] chooses the width that maximises the log
#'   evidence of the fit (`logLik`, the log marginal likelihood, a density
#'   of the same `y` at every width; `log_posterior` with a smoothness
#'   prior). It fits on a grid of widths `h * 2^k` around the median
#'   heuristic `h` above, walking outward from `k = 0` in steps of 0.5 down
#'   to `k = -4.5` and up to `k = 4` (each way stopping early only after
#'   two widths in a row whose fits failed or interpolate, see below), then
#'   refines the best point by golden-section search ([stats::optimize()])
#'   on log width between its grid neighbours, to about 1% of the width,
#'   and warns when the best width is at an end of the grid. That is some
#'   15 to 25 fits instead of one,
#'   and the narrow widths, which keep many relevance vectors, are the
#'   slowest of them (on 400 rows of Boston housing the search took about
#'   40 s against 0.2 s for one fit at `h`). A gaussian fit whose noise
#'   variance fell to the fast solver's floor (`var(y) / beta_max_factor`,
#'   see [rvm_control()]) interpolates the data, each point explained by its
#'   own kernel; its evidence is set by that floor, not by the model, so
#'   such widths are recorded but never chosen. The fit returned is the fit
#'   at the chosen width (as a fit with that number as `width` would give),
#'   with the search in `width_search`; convergence warnings of the trial
#'   fits are not shown, those of the final fit are. Multiclass fits choose
#'   one width for all classes (maximising the multinomial model's joint
#'   evidence, or the sum of the one-against-the-rest evidences).
#'
#'   The evidence is not a predictive criterion: with a weight precision per
#'   kernel, narrower kernels let the fit give single points their own
#'   variance, which the evidence rewards, so it tends to choose narrower
#'   widths and more relevance vectors than predict best (a fit that keeps
#'   more than half the training points is warned about). On the five
#'   regression sets of `bench/width_evidence.R` (Boston housing twice,
#'   Servo, Ozone, mcycle; 10 splits each) its test RMSE was worse than the
#'   median heuristic's on four (better on Servo), worse than
#'   `e1071::svm()`'s on Boston housing and Ozone, and worse than 5-fold
#'   cross-validation of the width on all five: cross-validate the width
#'   when prediction is the aim. The evidence is the criterion for
#'   comparing models by their evidence, and its choice is good on smooth,
#'   low-dimensional signals (the sinc example).
#'   Not available in a dictionary of several kernels, nor in
#'   [kernel_matrix()]; [sparse_gp()] accepts it only when it optimises
#'   the width itself (`optimize = "all"` or `"hyper"`), where it means a
#'   start at the median heuristic.
#' @param variance Positive multiplier of the kernel.
#' @param degree,offset Degree and offset of the polynomial kernel.
#' @return An object of class `"sparsebayes_kernel"`: a list with `type`,
#'   `width`, `variance`, `degree` and `offset`.
#' @references Schmolck, A. and Everson, R. (2007). Smooth relevance vector
#'   machine: a smoothness prior extension of the RVM. *Machine Learning*,
#'   68, 107--135. \doi{10.1007/s10994-007-5012-z}
#' @examples
#' kernel_gaussian(width = 3)
#' k <- kernel_matrix(kernel_laplace(1), matrix(1:3))
#' k
#' @name kernels
NULL

new_kernel <- function(type, width = NULL, variance = 1, degree = 2, offset = 1) {
  check_width(width)
  check_number(variance, "variance", lower = 0, open_lower = TRUE)
  check_number(degree, "degree", lower = 1, integer = TRUE)
  check_number(offset, "offset", lower = 0)
  structure(list(type = type, width = width, variance = variance, degree = degree, offset = offset),
            class = "sparsebayes_kernel")
}

#' @rdname kernels
#' @export
kernel_gaussian <- function(width = NULL, variance = 1) new_kernel("gaussian", width, variance)

#' @rdname kernels
#' @export
kernel_laplace <- function(width = NULL, variance = 1) new_kernel("laplace", width, variance)

#' @rdname kernels
#' @export
kernel_cauchy <- function(width = NULL, variance = 1) new_kernel("cauchy", width, variance)

#' @rdname kernels
#' @export
kernel_polynomial <- function(degree = 2, offset = 1, variance = 1) {
  check_not_width_rule(degree, "polynomial", "degree")
  new_kernel("polynomial", NULL, variance, degree, offset)
}

#' @rdname kernels
#' @export
kernel_linear <- function(variance = 1) {
  check_not_width_rule(variance, "linear", "variance")
  new_kernel("linear", NULL, variance)
}

# A width rule ("evidence", "learn", "median") given as the first argument
# of a kernel without a width is refused as such, not as a bad number.
check_not_width_rule <- function(value, type, arg) {
  if (!is.character(value) || length(value) != 1L || !value %in% width_rules) return(invisible())
  stop_arg(arg, sprintf(paste0(
    "is \"%s\", a rule that chooses a kernel width, but the %s kernel has no width to choose (its first ",
    "argument is its %s). Use kernel_%s() without it, or a kernel with a width, e.g. kernel_gaussian(\"%s\")."),
    value, type, arg, type, value))
}

#' @rdname kernels
#' @export
kernel_lspline <- function(width = NULL, variance = 1) new_kernel("lspline", width, variance)

#' @rdname kernels
#' @export
kernel_tpspline <- function(width = NULL, variance = 1) new_kernel("tpspline", width, variance)

# The kernel names: the core's table (kernels.hpp's kKernels, through
# .sb_kernels()), each made by kernel_<name>(), then the wavelet families,
# which kernel_wavelet()'s `family` lists: they are not in the core's
# table because they are orthonormal dictionaries on a grid (wavelets.hpp),
# not functions k(x, z) that fill_kernel_block() evaluates.
kernel_names <- function() c(kernel_table()$name, wavelet_families())

# The core's table of kernels (kernels.hpp), read once a session (once(), R/checks.R).
kernel_table <- once(function() .sb_kernels())

# The constructor of the kernel named `name` (NULL for another name).
kernel_constructor <- function(name) {
  if (!name %in% kernel_names()) return(NULL)
  if (name %in% wavelet_families()) return(function() kernel_wavelet(name))
  get(paste0("kernel_", name), mode = "function")
}

# A width is positive numbers (one, or one per input column), NULL (from
# the data, at fit time), "median" (the median heuristic), "learn" or
# "learn_one" (learned by a GP marginal likelihood, one per input or one for
# all, R/learn_widths.R) or "evidence" (chosen by
# rvm(), R/width_search.R).
width_rules <- c("learn", "learn_one", "median", "evidence")
check_width <- function(width) {
  if (is.null(width) || (is.character(width) && length(width) == 1L && width %in% width_rules))
    return(invisible(width))
  expected <- "must be positive numbers (one, or one per input column), NULL (from the data), \"learn\", \"learn_one\", \"median\" or \"evidence\""
  if (is.character(width) || is.factor(width))
    stop_arg("width", sprintf("%s; got %s.", expected, paste0("\"", width, "\"", collapse = ", ")))
  if (!is.numeric(width) || !length(width) || anyNA(width)) stop_arg("width", paste0(expected, "."))
  if (length(width) == 1L) return(check_number(width, "width", lower = 0, open_lower = TRUE))
  if (!all(is.finite(width)) || any(width <= 0)) stop_arg("width", "must be positive and finite in every input column.")
  invisible(width)
}

# What the core's table of kernels (kernels.hpp) says of a kernel: whether
# it has a width ("width") and a slope in its widths ("slope": a GP
# marginal likelihood can learn them).
kernel_supports <- function(kernel, what) {
  table <- kernel_table()
  isTRUE(table[[what]][match(kernel$type, table$name)])
}

kernel_has_width <- function(kernel) kernel_supports(kernel, "width")

# "gaussian, laplace or cauchy": the kernels with a slope, for messages.
slope_kernels <- function() {
  table <- kernel_table()
  or_list(table$name[table$slope])
}

# A kernel object from a kernel object or a kernel name.
as_kernel <- function(kernel, arg = "kernel") {
  if (inherits(kernel, "sparsebayes_kernel")) return(kernel)
  if (is.character(kernel) && length(kernel) == 1L && !is.na(kernel)) {
    ctor <- kernel_constructor(kernel)
    if (is.null(ctor))
      stop_arg(arg, sprintf("must be one of %s, or a kernel object such as kernel_gaussian(); got \"%s\".",
                            paste0("\"", kernel_names(), "\"", collapse = ", "), kernel))
    return(ctor())
  }
  stop_arg(arg, "must be a kernel object such as kernel_gaussian(3) or a kernel name such as \"gaussian\".")
}

# Half the median pairwise distance between (at most 1000 evenly spaced) rows.
default_width <- function(x) {
  n <- nrow(x)
  rows <- if (n > 1000L) unique(round(seq(1, n, length.out = 1000L))) else seq_len(n)
  d <- stats::dist(x[rows, , drop = FALSE])
  w <- stats::median(d[d > 0]) / 2
  if (!is.finite(w) || w <= 0) 1 else w
}

# Fill in a data-driven width from the training inputs when none was given
# (or "median"); check per-input widths against the inputs. "learn" and
# "evidence" are left for the fitter (R/learn_widths.R, R/width_search.R); a
# `width_rule` copied from a fit's kernel no longer applies.
resolve_kernel <- function(kernel, x) {
  if (kernel_has_width(kernel)) {
    if (is.null(kernel$width) || identical(kernel$width, "median")) kernel$width <- default_width(x)
    if (is.numeric(kernel$width) && !is.null(names(kernel$width))) kernel$width <- match_width_names(kernel$width, x)
    if (is.numeric(kernel$width) && length(kernel$width) > 1L && length(kernel$width) != ncol(x))
      stop_arg("kernel", sprintf("has %d widths but the kernel sees %d input columns (give one width, or one per column%s).",
                                 length(kernel$width), ncol(x),
                                 if (is.null(colnames(x))) "" else paste0(": ", paste(colnames(x), collapse = ", "))))
  } else if (is.numeric(kernel$width) || is.character(kernel$width)) {
    stop_arg("kernel", sprintf("is a %s kernel, which has no width.", kernel$type))
  }
  kernel$width_rule <- NULL
  kernel$learned <- NULL
  kernel
}

# The names of a kernel's input columns: their own, or x1, x2, ...
input_names <- function(x) colnames(x) %||% paste0("x", seq_len(ncol(x)))

# Named widths in the order of the input columns, matched by name
# (input_names()); names that are not those of the columns are refused.
match_width_names <- function(width, x) {
  inputs <- input_names(x)
  given <- names(width)
  listed <- function(v) paste0("`", v, "`", collapse = ", ")
  if (anyNA(given) || !all(nzchar(given)))
    stop_arg("kernel", "has widths with names and widths without; name every width by its input column, or none ",
             "(unnamed widths are used in column order).")
  if (anyDuplicated(given)) stop_arg("kernel", sprintf("names the width of %s twice.", listed(unique(given[duplicated(given)]))))
  unknown <- setdiff(given, inputs)
  missing <- setdiff(inputs, given)
  if (length(unknown) || length(missing))
    stop_arg("kernel", sprintf("has widths named %s, but the kernel sees the input columns %s%s%s. Name one width per column, ",
                               listed(given), listed(inputs),
                               if (length(unknown)) sprintf("; no column is named %s", listed(unknown)) else "",
                               if (length(missing)) sprintf("; no width is given for %s", listed(missing)) else ""),
             "or give them unnamed in column order.")
  width[inputs]
}

#' Evaluate a kernel between two sets of points
#'
#' Computes the Gram matrix of a kernel between the rows of `x` and the
#' rows of `y`, in the same C++ code (and with the same threads) that builds
#' the basis of every fit: useful to inspect a kernel, to check a width or
#' to build a custom basis for `rvm(basis = )`.
#'
#' @param kernel A kernel object or name, see [kernels].
#' @param x,y Numeric matrices (or vectors, taken as one column) with the
#'   same number of columns.
#' @return The `nrow(x)` by `nrow(y)` matrix `k(x[i, ], y[j, ])`. A `NULL`
#'   width is resolved from `x` as described in [kernels].
#' @examples
#' kernel_matrix("gaussian", matrix(rnorm(6), 3))
#' @export
kernel_matrix <- function(kernel, x, y = x) {
  kernel <- as_kernel(kernel)
  x <- check_numeric_matrix(x, "x")
  y <- check_numeric_matrix(y, "y")
  if (ncol(x) != ncol(y)) stop_arg("y", sprintf("has %d columns but `x` has %d.", ncol(y), ncol(x)))
  if (is_evidence_width(kernel) || is_learned_width(kernel))
    stop_arg("kernel", sprintf("has width = \"%s\", which is chosen when a model is fitted; give kernel_matrix() numbers.",
                               kernel$width))
  kernel_design(resolve_kernel(kernel, x), x, y)
}

# Kernel basis k(x_i, centre_j), with a leading column of ones when bias is
# TRUE. Used by kernel_matrix(), every fit and predict.
kernel_design <- function(kernel, x, centres, bias = FALSE) {
  check_basis_memory(nrow(x), nrow(centres) + bias)
  spec <- kernel
  if (is.null(spec$width)) spec$width <- 1  # width-free kernels ignore it
  K <- .sb_kernel_design(unclass(spec), x, centres, bias, kernel_threads())
  if (!.sb_all_finite(K))  # in place: no n x M logical copy
    stop(sprintf("the %s kernel overflows on these inputs (values beyond %.0e); rescale the inputs ",
                 spec$type, .Machine$double.xmax), "(or fit with scale = TRUE).", call. = FALSE)
  K
}

# Threads for kernel evaluation: options(sparsebayes.threads =), else what
# R allows (parallelly::availableCores(): the cgroup and R CMD check
# limits, mc.cores, 1 inside a future worker). Results do not depend on it.
# availableCores() runs `nproc` in a shell (8 ms; half the time of a small
# rvm() fit, which builds its basis once per candidate), so its answer is
# kept for the settings it reads.
kernel_threads <- function() {
  threads <- getOption("sparsebayes.threads")
  if (is.null(threads)) return(available_cores())
  if (!is.numeric(threads) || length(threads) != 1L || is.na(threads) || threads < 1 || threads != round(threads))
    stop(sprintf("options(sparsebayes.threads =) must be a whole number >= 1; got %s.",
                 paste(format(threads), collapse = ", ")), call. = FALSE)
  as.integer(min(threads, .Machine$integer.max))
}

available_cores <- local({
  known <- list()
  function() {
    settings <- paste(c(format(getOption("mc.cores")), format(getOption("parallelly.availableCores.custom")),
                        format(getOption("parallelly.availableCores.fallback")),
                        Sys.getenv(c("MC_CORES", "_R_CHECK_LIMIT_CORES_", "R_PARALLELLY_AVAILABLECORES_FALLBACK"))),
                      collapse = "|")
    if (is.null(known[[settings]])) known[[settings]] <<- as.integer(parallelly::availableCores())
    known[[settings]]
  }
})

# Stops before allocating an n x M basis that would not fit in memory: the
# limit is options(sparsebayes.max_memory_gb =) if set, otherwise the
# memory the system reports available (MemAvailable), otherwise 16 GB.
check_basis_memory <- function(n, M) {
  need_gb <- 8 * as.double(n) * as.double(M) / 2^30
  limit_gb <- getOption("sparsebayes.max_memory_gb", available_memory_gb())
  if (need_gb > limit_gb)
    stop(sprintf(paste0("the %.0f x %.0f basis matrix would need %.1f GB, more than the %.1f GB available. ",
                        "Fit on a subset of the rows, use sparse_gp() with inducing points, or raise ",
                        "options(sparsebayes.max_memory_gb = ) if you know the memory is there."),
                 n, M, need_gb, limit_gb), call. = FALSE)
  invisible(need_gb)
}

# Stops before a fit whose peak memory would not fit: the basis (n x M, twice
# for a dictionary bound from parts) plus the solver's working matrices, in
# doubles: fast, the M x S caches for up to 1000 relevant columns; the batch
# solvers (JointArd, MacKay's rule included), a standardised copy and the
# active columns (2 n M), six M x M (weight space, M <= n) or n x n (sample
# space) matrices, and the path.
check_fit_memory <- function(n, M, method, noise = "shared", family = "gaussian", parts = 1L) {
  n <- as.double(n)
  M <- as.double(M)
  work <- if (method_supports(method, "batch")) {
    2 * n * M + 6 * min(M, n)^2 + n * min(M, n) + 200 * M
  } else {
    2 * (M + if (has_noise(family) && !per_sample_noise(noise)) 0 else n) * min(M, n, 1000)
  }
  need_gb <- 8 * (n * M * (if (parts > 1L) 2 else 1) + work) / 2^30
  limit_gb <- getOption("sparsebayes.max_memory_gb", available_memory_gb())
  if (need_gb > limit_gb)
    stop(sprintf(paste0("the %.0f x %.0f basis matrix would need %.1f GB and the %s solver's working matrices ",
                        "about %.1f GB more: %.1f GB in all, more than the %.1f GB available. Fit on a subset of the ",
                        "rows, use method = \"fast\" or sparse_gp() with inducing points, or raise ",
                        "options(sparsebayes.max_memory_gb = ) if you know the memory is there."),
                 n, M, 8 * n * M / 2^30, method, need_gb - 8 * n * M / 2^30, need_gb, limit_gb), call. = FALSE)
  invisible(need_gb)
}

available_memory_gb <- function() {
  info <- tryCatch(readLines("/proc/meminfo", warn = FALSE), error = function(e) character(0))
  line <- grep("^MemAvailable:", info, value = TRUE)
  if (!length(line)) return(16)
  as.numeric(gsub("[^0-9]", "", line)) / 2^20
}

# k(x_i, x_i) for each row of x.
kernel_diagonal <- function(kernel, x) {
  switch(kernel$type,
    gaussian = , laplace = , cauchy = rep(kernel$variance, nrow(x)),
    tpspline = rep(0, nrow(x)),
    vapply(seq_len(nrow(x)), function(i) {
      kernel_design(kernel, x[i, , drop = FALSE], x[i, , drop = FALSE])[1L, 1L]
    }, numeric(1)))
}

#' @export
print.sparsebayes_kernel <- function(x, ...) {
  args <- switch(x$type,
    wavelet = if (isTRUE(x$translation_invariant)) paste0(x$family, ", translation invariant") else x$family,
    polynomial = sprintf("degree = %s, offset = %s", format(x$degree), format(x$offset)),
    linear = "",
    if (is.numeric(x$width) && length(x$width) > 1L) per_input_width_label(x)
    else sprintf("width = %s", if (is.null(x$width)) "NULL (from the data)"
                               else if (is.character(x$width)) sprintf("\"%s\" (when fitted)", x$width)
                               else paste0(format(unname(x$width), digits = 4),
                                           switch(x$width_rule %||% "", evidence = ", chosen by the evidence",
                                                  learn = ", learned", ""))))
  if (x$variance != 1) args <- paste0(args, if (nzchar(args)) ", ", "variance = ", format(x$variance, digits = 4))
  cat(sprintf("%s kernel(%s)\n", x$type, args))
  invisible(x)
}

# "widths 0.53 (Pgain) to 2.3e+03 (Screw), one per input, learned": one line
# for any number of inputs.
per_input_width_label <- function(x) {
  w <- x$width
  nm <- names(w) %||% paste0("x", seq_along(w))
  lo <- which.min(w)
  hi <- which.max(w)
  sprintf("widths %s (%s) to %s (%s), one per input%s", format(w[lo], digits = 3), nm[lo], format(w[hi], digits = 3),
          nm[hi], if (identical(x$width_rule, "learn")) ", learned" else "")
}
