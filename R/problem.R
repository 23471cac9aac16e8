# The problem object (DESIGN.md, "The problem object"): everything a fit
# needs but its basis, checked, from any data backend (rows in memory, or
# a chunk source's sums and sample: then `chunks` describes the source and
# the rows are the sample's). One constructor for rvm(), ard() and
# sparse_gp(), each model's problem in one shape: the fields of
# problem_fields, every one given (NULL where it does not apply).
problem_fields <- list(
  rvm = c("x", "xs", "y", "scaling", "in_fit", "n", "wo", "multiclass", "kernels", "learn_default", "bias", "centres",
          "Phi", "shortcut", "family", "noise", "prior", "level_prior", "smoothness", "solver", "chunks", "width_rows"),
  ard = c("xs", "y", "wo", "scaling", "n_rows", "chunks", "noise", "prior", "smoothness", "prior_choice", "solver",
          "statistics"),
  sparse_gp = c("x", "xs", "y", "scaling", "weights", "offset", "std", "kernel", "learn", "by_input", "noise_variance",
                "inducing", "default_inducing", "approx", "optimize", "control", "served")
)

new_sb_problem <- function(model, ...) {
  p <- list(...)
  fields <- problem_fields[[model]]
  if (!setequal(names(p), fields) || anyDuplicated(names(p)))
    stop(sprintf("internal: a %s problem needs the fields %s; got %s.", model, paste(fields, collapse = ", "),
                 paste(names(p), collapse = ", ")), call. = FALSE)
  # the solver a fit runs (rvm(), ard()): a row of the core's table with
  # validated settings; a design's scaling, one centre per column
  if (!is.null(p$solver) && !(p$solver$method %in% method_table()$name && inherits(p$solver$control, "sb_control")))
    stop(sprintf("internal: a %s problem's solver must be a method of the table with sb_control settings.", model),
         call. = FALSE)
  if (!is.null(p$scaling) && !is.null(p$xs) && length(p$scaling$center) != ncol(p$xs))
    stop(sprintf("internal: a %s problem's scaling has %d columns, its design %d.", model, length(p$scaling$center),
                 ncol(p$xs)), call. = FALSE)
  if (is.null(p$y) && is.null(p$statistics))
    stop(sprintf("internal: a %s problem needs a response or its statistics.", model), call. = FALSE)
  structure(p, class = "sb_problem")
}
