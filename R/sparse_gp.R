#' Sparse Gaussian process regression (VFE and FITC)
#'
#' Fits a Gaussian process with a constant mean and Gaussian noise, either
#' exactly or through `m` inducing points: the variational free energy bound
#' (VFE, Titsias 2009) or the fully independent training conditional (FITC,
#' Snelson and Ghahramani 2006). Both need only `m x m` Cholesky factors, so
#' one evaluation of the objective costs O(n m^2) time and O(n m) memory. The
#' kernel width and variance, the noise variance and (with
#' `optimize = "all"`) the inducing locations are found by L-BFGS-B
#' ([stats::optim()]) on log-transformed positive parameters, with analytic
#' gradients computed in C++.
#'
#' **Mean.** `y` is centred by its (weighted) mean, which is kept as the
#' constant mean of the process (`coef()` reports it as `(mean)`); it is not
#' a hyperparameter of the marginal likelihood. The optimisation runs in the
#' standard units of every gaussian fit in the package (`y` centred and
#' divided by a robust scale), and everything is mapped back, so that
#' `y + c` shifts predictions by `c` and `y * c` scales them by `c` (and
#' variances by `c^2`).
#'
#' **Starting values.** With a `NULL` width (the default) or
#' `width = "learn"`, the kernel has one width per input, and the widths,
#' variance and noise of the exact GP on at most 300 rows (see [kernels])
#' start the optimisation. Otherwise the kernel's `width` (one, or one per
#' input; `"median"`: half the median distance between the inputs) starts
#' it, with the variance at `var(y)` and the noise at `var(y) / 10`. The
#' widths are kept within a factor 10^4 of their start, the variance within
#' a factor 10^6 of `var(y)`, and the noise between
#' `control$noise_lower * var(y)` and `1000 var(y)`. With
#' `optimize = "none"` the kernel is used as given, and a `NULL`
#' `noise_variance` is that starting value.
#'
#' **Inducing points.** A number `m` places them by k-means++ seeding
#' followed by at most 10 Lloyd iterations on the scaled inputs (the
#' [kmeans_centres()] of `rvm(centres = m)`), seeded from the caller's
#' random number stream (or from `set.seed(seed)` when `seed` is given);
#' the caller's `.Random.seed` is restored
#' afterwards, so fitting never changes the random stream and the same call
#' gives the same fit. `restarts` draws its random starting points the same
#' way. Points that `K_uu` cannot tell apart at the starting
#' hyperparameters (each within the jitter of the span of the others, by a
#' pivoted Cholesky factorisation; see `inducing_tol` in
#' [sparse_gp_control()]) are then dropped: they add almost nothing to the
#' bound but cost time. Since the hyperparameters move, the decision is
#' checked after learning: the objective with every point is evaluated once
#' at the learned hyperparameters (on at most 5000 of the rows learned on),
#' and when the dropped points are worth
#' more than `inducing_cost` (1e-4) nats a row there, those the kept points
#' no longer span are restored (then every one, if the rest are still worth
#' too much) and the fit is learned again from its start. So the points
#' dropped never cost more than 1e-4 nats a row of the bound at the
#' optimum. Against the fit that keeps every point, over seeds, start
#' widths, noise levels and layouts (grids, lines, clusters, copies; 288
#' fits, `bench/sparse_gp_pruning.R`) the bound was never more than 0.11
#' nats (4e-4 a row: the rest is where L-BFGS-B stops) lower and the test
#' error never more than 1.3% higher, except with `optimize = "all"` and
#' copies of points, which the fit with every point may move apart (the fit
#' on the distinct points stalls as the default does). `fit$m` is the number
#' kept; `print()` and [summary()] say how many were asked for, how many
#' were restored and what those dropped are worth. At n = 10^6 on a smooth
#' 2-D surface, 150 of 500 k-means points are kept: the fit takes 6.5 s
#' instead of 37 s (2 cores) at the same latent error (bench/RESULTS.md).
#'
#' **A second start.** When the optimum does not pay its price over the
#' constant model (BIC: the widths and the kernel variance, `log(n) / 2`
#' nats each), the optimisation runs again from the median heuristic's width
#' with the response's variance split evenly between the kernel and the
#' noise, and the better optimum is kept (both are in `restart_values`):
#' with inducing points on a line in 2-D, the exact GP's start ran to the
#' constant model (R^2 2e-5) where that start explains 42% of the variance.
#' So it does when a width you gave as the start is more than 10 times the
#' median heuristic's and stays there: the kernel is flat in that input, so
#' is the bound, and the search stops where it began. `summary()` says when
#' the first start ran to the constant model or stayed flat, and when the fit
#' kept is still close to the constant model.
#'
#' **Numerics.** `K_uu` is factorised with a jitter of `control$jitter`
#' times the kernel variance; when that fails the jitter grows tenfold
#' (up to 6 times) and each retry is counted in `jitter_events`. FITC's
#' `diag(K_ff - Q_ff)` is clamped at 0. Predictions use the stored Cholesky
#' factors: with `a = L_uu^-1 k_u(x*)`, the latent variance is
#' `(k(x*, x*) - |a|^2) + |L_B^-1 a|^2` (`k(x*, x*) - |L^-1 k(x, x*)|^2` for
#' the exact GP), sums of squares that need no clamp.
#' With its inducing points free, FITC drives the noise variance to its
#' lower bound and lets the heteroscedastic term `diag(K_ff - Q_ff)` model
#' the noise instead (Bauer et al. 2016); its objective then creeps up until
#' `maxit` (Servo, 5-fold CV: 4 of 5 folds past 5000 iterations, noise at
#' the bound, test RMSE 4.57). With the k-means points kept, every fold
#' converges in 41--70 iterations with a sensible noise and test RMSE 4.48,
#' which is why FITC's default is `optimize = "hyper"`.
#'
#' **Many rows.** Beyond `control$subsample` rows (20000), the
#' hyperparameters and inducing points are learned on a random subsample of
#' that many rows (drawn like the inducing points), and the posterior,
#' fitted values and `logLik` use every row in one O(n m^2) pass:
#' `fit$subsample` says how many rows were learned on. The passes over the
#' rows run in blocks on `getOption("sparsebayes.threads")` threads (see
#' [kernels]), with results identical for any number of threads, and can be
#' interrupted. Progress (the starting values, each evaluation of the
#' objective, the posterior) is reported through [progressr::progressor()]:
#' wrap the call in [progressr::with_progress()] to see it.
#'
#' **Data beyond memory.** With `data = data_chunks(...)` (formula
#' method; VFE or FITC) the rows are read in chunks and never held: a first
#' pass gives the moments of the inputs and the response (the input scaling
#' and the constant mean) and draws a uniform sample of
#' `control$subsample` rows; the kernel, noise and inducing points are
#' those of the fit from the rows above on that sample (given ones, with
#' `optimize = "none"` and `inducing` a matrix, are used as they are), and a
#' second pass adds the sums over rows that the posterior needs (`m x m`
#' per chunk). Given the hyperparameters and inducing points, the fit
#' equals the one from the same rows in memory (to rounding), exact copies
#' pooled as there (wherever they sit in the chunks). The
#' fit keeps no n-length vector: `fitted.values`, `residuals`, `Lambda`,
#' `fitted_var`, `pi_diag` and `pi_r` are `NULL`, `summary()` and
#' `logLik()` work from the sums, `predict(newdata = )` as usual, and what
#' reads the training rows (`fitted()`, `residuals()`, `hatvalues()`,
#' `plot()`) says so.
#'
#' **Kernels.** [kernel_gaussian()], [kernel_laplace()] and
#' [kernel_cauchy()], with one width or one per input (analytic gradients
#' for all three); other kernels are rejected. With `width = "learn"` the
#' kernel has one width per input, and the optimisation starts from those
#' of the exact GP on at most 300 rows (see [kernels]): from the median
#' heuristic, the VFE bound on fixed inducing points in several dimensions
#' often runs to a constant fit.
#'
#' @param x A numeric matrix (or data frame of numbers, or vector) of inputs;
#'   or a formula for the formula method.
#' @param formula A formula `y ~ terms`; factors are expanded by
#'   [stats::model.matrix()] and the intercept column dropped.
#' @param data,subset,na.action As in [stats::lm()]; `data` may be a
#'   [data_chunks()] source (see Data beyond memory).
#' @param weights `NULL` or non-negative case weights, relative precisions.
#'   The hyperparameters (widths, variance, noise, inducing points) are
#'   learned from the distinct rows, exact copies pooled into one row of
#'   their summed weight, with the weights rescaled to average 1: so integer
#'   weights and replicated rows learn the same, constant weights learn what
#'   no weights learn, and a bootstrap resample learns what its distinct
#'   rows learn with their counts as precisions (as replicated rows, copies
#'   rewarded an interpolating fit). The reported `noise_variance` is that
#'   of a row of average weight, row i's being `noise_variance *
#'   weight_unit / weights[i]`. `logLik` is the bound on the rows as given
#'   (with integer weights, that of the replicated rows; FITC's per-row
#'   correction does not replicate). Rows of weight 0 are left out of the fit (the
#'   scaling, the width heuristic and the inducing points do not see them)
#'   and get predictions as fitted values.
#' @param offset A known part of the response, one value per observation
#'   (or, in a formula, `offset()` terms and this argument evaluated in
#'   `data`, as by [stats::lm()]): the GP models `y - offset`, fitted
#'   values and predictions add it back.
#' @param y Numeric response.
#' @param kernel A kernel object (see [kernels]) or its name; its `width`
#'   refers to the standardised inputs when `scale = TRUE`.
#' @param inducing The number of inducing points `m` (at most n; 50 by
#'   default, or n when n < 50), or a matrix of their locations in the units
#'   of the inputs (the columns of the model matrix for formula fits).
#'   Ignored by `approx = "exact"`.
#' @param approx `"VFE"`, `"FITC"` or `"exact"` (the full GP, O(n^3), for n
#'   up to `control$exact_max_n`).
#' @param noise_variance `NULL` (estimate the noise variance) or a fixed
#'   noise variance (with `weights`, that of a row of average weight), as
#'   `noise_variance` in [rvm_control()].
#' @param noise Deprecated: the former name of `noise_variance`. In
#'   [rvm()] and [ard()] `noise` names the noise model, so the sparse GP's
#'   variance now has the name it has everywhere else.
#' @param optimize `"all"` (hyperparameters and inducing locations),
#'   `"hyper"` (kernel width and variance and the noise only), `"none"`, or
#'   `"auto"` (the default): `"all"` for VFE and exact, `"hyper"` for FITC
#'   (see Numerics).
#' @param restarts Number of additional optimisations from random starting
#'   hyperparameters (log width, log variance and log noise perturbed by
#'   standard normal draws); the fit with the best objective is kept.
#' @param seed `NULL` or a number for [set.seed()] used for the inducing
#'   points and restarts (the caller's random state is restored).
#' @param scale Standardise each input column (kept for `predict`)?
#' @param control Settings from [sparse_gp_control()].
#' @param ... Passed from the formula method to the default method.
#' @return An object of class `c("sb_sparse_gp", "sparsebayes")`, a list with
#'   \item{call}{the matched call.}
#'   \item{kernel}{the kernel at the optimum (width in scaled units when
#'     `scale = TRUE`).}
#'   \item{approx, optimize}{as given.}
#'   \item{mean}{the constant mean (the mean of `y`).}
#'   \item{noise}{`"shared"`: one noise variance, as in [rvm()] and [ard()].}
#'   \item{noise_variance, lambda}{the noise variance (the same number;
#'     `lambda` for the methods shared with other sparsebayes models).}
#'   \item{noise_estimated}{whether the noise was optimised.}
#'   \item{Lambda}{per training point, the diagonal of Lambda: the noise,
#'     plus `diag(K_ff - Q_ff)` for FITC.}
#'   \item{inducing, inducing_scaled}{the `m x p` inducing locations in the
#'     units of the inputs and of the scaled inputs (`NULL` for exact).}
#'   \item{m}{number of inducing points, those kept (see Inducing points; n
#'     for exact).}
#'   \item{logLik}{the log marginal likelihood (FITC, exact) or the VFE
#'     lower bound on it, at the optimum.}
#'   \item{fitted.values, residuals}{predictive mean of the latent function
#'     at the training inputs and `y - fitted`.}
#'   \item{fitted_var}{latent predictive variance at the training inputs
#'     (exact fits; `NULL` for VFE and FITC, whose [hatvalues()] and
#'     leave-one-out residuals compute what they need when asked: one
#'     O(n m^2) pass the fit itself does not need).}
#'   \item{converged, iterations, message}{[stats::optim()]'s convergence
#'     (code 0), its `counts` (function and gradient evaluations) and its
#'     message.}
#'   \item{restart_values}{the log marginal likelihood (VFE: its lower bound)
#'     reached from each start (on the rows learned on; with the points kept
#'     at the starting hyperparameters, and the second start when the
#'     first did not pay its price over the constant model).}
#'   \item{subsample}{the number of rows the hyperparameters and inducing
#'     points were learned on, when fewer than n (see Many rows); else
#'     `NULL`.}
#'   \item{jitter_events}{factorisations of K_uu that needed extra jitter,
#'     over the whole fit.}
#'   \item{jitter}{the base jitter (relative to the kernel variance).}
#'   \item{control}{the [sparse_gp_control()] settings used, `factr`
#'     resolved.}
#'   \item{x, y, scaling}{training data and input scaling.}
#'   \item{centres, weights, chol, chol_b}{the predictor: the latent mean at
#'     x* is `mean + k(x*, centres) weights`; `chol` is the lower Cholesky
#'     factor `L_uu` of `K_uu` (jitter included) and `chol_b` that, `L_B`, of
#'     `B = I + L_uu^-1 K_uf Lambda^-1 K_fu L_uu^-T`, both `m x m`; with
#'     `a = L_uu^-1 k(centres, x*)` the latent variance is
#'     `k(x*, x*) - |a|^2 + |L_B^-1 a|^2`. The centres are the scaled inducing
#'     points. For exact fits the centres are the scaled training inputs,
#'     `chol` is the factor of `K_ff + noise W^-1` (n x n: exact objects grow
#'     as n^2), `chol_b` is `NULL` and the variance is
#'     `k(x*, x*) - |L^-1 k(x, x*)|^2`.}
#'   \item{pi_diag, pi_r}{diagonal of `(Q_ff + Lambda)^-1` (exact fits;
#'     `NULL` for VFE and FITC, see `fitted_var`) and
#'     `(Q_ff + Lambda)^-1 (y - mean)`, for [hatvalues()] and LOO residuals.}
#'   \item{edf}{VFE and FITC: the effective degrees of freedom, the sum of
#'     the leverages, `tr(B^-1 (B - I))`.}
#'   \item{qu_mean, qu_cov}{mean (without the constant mean) and covariance
#'     of the posterior of the latent values at the inducing points (VFE's
#'     q(u)); `NULL` for exact.}
#'   and, for the formula method, `terms`, `xlevels`, `contrasts` and
#'   `na.action`.
#' @references
#' Titsias, M. (2009). Variational learning of inducing variables in sparse
#' Gaussian processes. *AISTATS 2009*, PMLR 5, 567--574.
#'
#' Snelson, E. and Ghahramani, Z. (2006). Sparse Gaussian processes using
#' pseudo-inputs. *Advances in Neural Information Processing Systems 18*.
#'
#' Bauer, M., van der Wilk, M. and Rasmussen, C. E. (2016). Understanding
#' probabilistic sparse Gaussian process approximations. *Advances in Neural
#' Information Processing Systems 29*.
#'
#' Rasmussen, C. E. and Williams, C. K. I. (2006). *Gaussian Processes for
#' Machine Learning*. MIT Press.
#' @seealso [predict.sb_sparse_gp()], [summary.sb_sparse_gp()],
#'   [plot.sb_sparse_gp()], [hatvalues.sb_sparse_gp()].
#' @examples
#' set.seed(1)
#' x <- runif(300, -10, 10)
#' y <- sin(x) / x + rnorm(300, sd = 0.1)
#' fit <- sparse_gp(x, y, inducing = 15, seed = 1)
#' fit
#' predict(fit, c(-5, 0, 5), interval = "prediction")
#'
#' fit2 <- sparse_gp(accel ~ times, data = MASS::mcycle, inducing = 20, approx = "FITC", seed = 1)
#' summary(fit2)
#' @export
sparse_gp <- function(x, ...) UseMethod("sparse_gp")

#' @rdname sparse_gp
#' @export
sparse_gp.formula <- function(formula, data, subset, weights, na.action, offset, ...) {
  if (!missing(data) && inherits(data, "sb_chunks"))
    return(fit_chunks(match.call(), parent.frame(), data, sparse_gp.default, "sparse_gp", ...,
                      sample_size = gp_chunk_sample_size(list(...)$control), copies = TRUE))
  fit_formula(match.call(), parent.frame(), sparse_gp.default, "sparse_gp", ...)
}

#' @rdname sparse_gp
#' @export
sparse_gp.default <- function(x, y, kernel = kernel_gaussian(), inducing = 50, approx = c("VFE", "FITC", "exact"),
                              noise_variance = NULL, optimize = c("auto", "all", "hyper", "none"), restarts = 0,
                              seed = NULL, scale = TRUE, weights = NULL, offset = NULL, control = sparse_gp_control(),
                              noise = NULL, ...) {
  beat_while("sparse_gp()")  # progress from the core while this fit runs
  check_dots_empty(...)
  if (!is.null(noise)) {
    warning("`noise` is deprecated in sparse_gp(); use `noise_variance` (in rvm() and ard() `noise` names the noise ",
            "model).", call. = FALSE)
    noise_variance <- noise_variance %||% noise
  }
  approx <- gp_approxes[[match_arg(approx)]]
  optimize <- match_arg(optimize)
  optimize <- gp_optimizes[[if (optimize == "auto") approx$default_optimize else optimize]]
  control <- revalidate_control(control, sparse_gp_control, "sparse_gp_control")
  a <- list(kernel = kernel, inducing = inducing, default_inducing = missing(inducing), approx = approx,
            noise_variance = noise_variance, optimize = optimize, restarts = restarts, seed = seed, scale = scale,
            weights = weights, offset = offset, control = control)
  call <- generic_call(match.call(), "sparse_gp")
  fit_gp_rows(x, y, a, call)
}

# sparse_gp()'s approximations, as the code asks of them (`approx` of the
# fitting code is a row; the fit keeps its `name`, which the core reads):
# `exact`, the GP on every row, without inducing points (O(n^3): learned on
# every row, never from chunks); `bound`, an objective that is a lower bound
# (VFE's ELBO) rather than a likelihood; `fitc`, the heteroscedastic noise
# diag(K_ff - Q_ff) + noise per row; `default_optimize`, what "auto" means
# (FITC with its inducing points free trades its noise for that diagonal
# and creeps up without converging, Bauer et al. 2016: its default keeps
# the k-means points); the `title` printed.
gp_approxes <- list(
  VFE = list(name = "VFE", exact = FALSE, bound = TRUE, fitc = FALSE, default_optimize = "all",
             title = "Sparse Gaussian process (VFE)"),
  FITC = list(name = "FITC", exact = FALSE, bound = FALSE, fitc = TRUE, default_optimize = "hyper",
              title = "Sparse Gaussian process (FITC)"),
  exact = list(name = "exact", exact = TRUE, bound = FALSE, fitc = FALSE, default_optimize = "all",
               title = "Gaussian process (exact)")
)

# What each `optimize` of sparse_gp() learns (a row, as gp_approxes'):
# `hyper`, the widths, the kernel variance and the noise (unless given);
# `inducing`, the inducing points too (an exact GP has none).
gp_optimizes <- list(
  all = list(name = "all", hyper = TRUE, inducing = TRUE),
  hyper = list(name = "hyper", hyper = TRUE, inducing = FALSE),
  none = list(name = "none", hyper = FALSE, inducing = FALSE)
)

# The printed name of what an approximation's objective is.
gp_criterion <- function(approx) if (approx$bound) "ELBO" else "log marginal likelihood"

# A sparse_gp() fit on the rows x, y (`a`: sparse_gp.default()'s other
# arguments, matched, approx and optimize their rows of gp_approxes and
# gp_optimizes; `a$served`: the rows the learned hyperparameters serve
# when more than these). From a chunk source, the rows are its sample and
# the posterior is that of every row (chunk_gp_rows()).
fit_gp_rows <- function(x, y, a, call) {
  rows <- chunk_gp_rows(x, y, a)  # R/chunks.R
  x <- check_numeric_matrix(rows$x, "x")
  y <- rows$y
  a <- rows$a
  n <- nrow(x)
  if (is.factor(y) || is.character(y) || is.logical(y))
    stop_arg("y", "must be numeric: sparse_gp() is for regression with Gaussian noise.")
  y <- check_response(y, n)
  case_weights <- check_weights(a$weights, n)
  offset <- check_offset(a$offset, n)
  if (is.null(a$noise_variance) && a$optimize$hyper)
    check_rows_of_weight(case_weights, "give the noise variance with `noise_variance =`")
  if (!is.null(case_weights) && any(case_weights == 0)) {
    # Rows of weight 0 are not in the fit: it is made without them (scaling,
    # width, inducing points and hyperparameters alike) and they get their
    # predictions.
    keep <- case_weights > 0
    fit <- fit_gp_rows(x[keep, , drop = FALSE], y[keep],
                       utils::modifyList(a, list(weights = case_weights[keep], offset = offset[keep]),
                                         keep.null = TRUE), call)
    return(with_unfitted_rows(fit, x, y, case_weights, offset))
  }
  p <- gp_problem(utils::modifyList(a, list(x = x, y = y, weights = case_weights, offset = offset), keep.null = TRUE))
  rows$posterior(gp_solve(p, a, call))
}

# The learning and the fit of a sparse_gp() problem, with `a$seed` set for
# their random draws and the caller's stream put back.
gp_solve <- function(p, a, call) {
  state <- save_rng()
  on.exit(restore_rng(state), add = TRUE)
  if (!is.null(a$seed)) set.seed(a$seed)
  progress <- progressr::progressor(steps = 3L)
  learning <- gp_learning(p)
  progress(message = "starting values")
  opt <- gp_settle_inducing(learning, gp_optimise(learning, a$optimize, a$restarts, progress), a$optimize,
                            a$restarts, progress)
  progress(message = sprintf("optimised on %d rows", nrow(learning$xs)))
  fit <- gp_fit(p, learning, opt, call)
  progress(message = sprintf("posterior on %d rows", nrow(p$x)))
  fit
}

# The stages of a sparse_gp() fit: problem (gp_problem(): the checked data
# in standard units, the kernel and the noise) -> learning (gp_learning():
# the rows, inducing points and start the hyperparameters are learned
# from) -> solve (gp_optimise()) -> fit object (gp_fit(): one posterior on
# every row).

# The checked problem of a sparse_gp() call (`a`: its arguments, the
# weights checked and positive): the inputs and their scaling, the
# response less its offset in standard units (std, r, vy), the resolved
# kernel (`learn`: its widths are learned, `by_input` one per input), and the
# noise variance in standard units (`noise_variance`; NULL: estimated).
gp_problem <- function(a) {
  x <- a$x
  n <- nrow(x)
  y <- if (is.null(a$offset)) a$y else a$y - a$offset
  check_flag(a$scale, "scale")
  kernel <- as_kernel(a$kernel)
  optimize <- a$optimize
  if (!kernel_supports(kernel, "slope"))
    stop_arg("kernel", sprintf("must be a %s kernel for a sparse GP, not %s.", slope_kernels(), kernel$type))
  if (is_evidence_width(kernel)) {  # the width is optimised by the evidence here anyway, from the median heuristic
    if (!optimize$hyper)
      stop_arg("kernel", "has width = \"evidence\", but optimize = \"none\" uses the width as given; give a number, ",
               "or let sparse_gp() maximise the evidence over the width with optimize = \"hyper\" or \"all\".")
    kernel$width <- NULL
  }
  # one width per input, learned: the default when hyperparameters are
  # optimised ("learn_one": one width for all inputs, learned the same way)
  learn <- is_learned_width(kernel) || (is.null(kernel$width) && optimize$hyper)
  by_input <- !identical(kernel$width, "learn_one")
  if (learn) {
    if (!optimize$hyper)
      stop_arg("kernel", sprintf("has width = \"%s\", but optimize = \"none\" uses the width as given; give numbers, ",
                                 kernel$width %||% "learn"), "or learn the widths with optimize = \"hyper\" or \"all\".")
    kernel$width <- NULL
  }
  noise_variance <- a$noise_variance
  if (!is.null(noise_variance)) check_number(noise_variance, "noise_variance", lower = 0, open_lower = TRUE)
  check_number(a$restarts, "restarts", lower = 0, upper = 1000, integer = TRUE)
  if (!is.null(a$seed)) check_number(a$seed, "seed", integer = TRUE)
  if (a$approx$exact && n > a$control$exact_max_n)
    stop_arg("approx", sprintf("\"exact\" needs O(n^3) time and n^2 memory; n = %d exceeds control$exact_max_n = %d. Use \"VFE\" or \"FITC\".",
                               n, a$control$exact_max_n))
  scaling <- input_scaling(x, a$scale, weights = a$weights)
  xs <- apply_scaling(x, scaling)
  if (!all(is.finite(rowSums(xs^2))))
    stop_arg("x", "is too large for squared distances in double precision; rescale it or use scale = TRUE.")
  kernel <- resolve_kernel(kernel, xs)
  # Standard units, as for every gaussian fit (standard_units.R): y centred
  # by its weighted mean (the constant mean of the process) and divided by a
  # robust, overflow-safe scale; kernel variance, noise and the evidence are
  # mapped back after the optimisation, so y + c shifts predictions by c and
  # y * c scales them by c (variances by c^2).
  std <- gp_standard_units(y, a$weights)
  sy <- std$scale
  if (!is.null(noise_variance)) noise_variance <- noise_variance / sy^2
  if (!optimize$hyper) kernel$variance <- kernel$variance / sy^2
  new_sb_problem("sparse_gp", x = x, xs = xs, y = y, scaling = scaling, weights = a$weights, offset = a$offset,
                 std = std, kernel = kernel, learn = learn, by_input = by_input, noise_variance = noise_variance,
                 inducing = a$inducing, default_inducing = a$default_inducing, approx = a$approx, optimize = optimize,
                 control = a$control, served = a$served)
}

# What the hyperparameters are learned from (gp_optimise()'s `learning`):
# beyond control$subsample rows a random subsample (the posterior uses every
# row), exact copies pooled and weights as precisions of mean 1
# (pooled_rows(), R/learn_widths.R; the noise is that of a row of average
# weight); the inducing points, and the start: for learned widths, those
# of the exact GP on at most learn_max_rows rows (R/learn_widths.R), with
# its variance and noise (from the median heuristic a VFE bound on fixed
# inducing points often runs to the constant fit).
gp_learning <- function(p) {
  xs <- p$xs
  sy <- p$std$scale
  vy <- p$std$variance
  control <- p$control
  pool <- pooled_rows(xs, p$y, p$weights)
  rows <- pool$rows[learning_rows(length(pool$rows), p$approx, p$optimize, control$subsample)]
  Z <- if (p$approx$exact) NULL else initial_inducing(p$inducing, xs[rows, , drop = FALSE], p$scaling,
                                                          p$default_inducing, n_obs = nrow(xs),
                                                          subsampled = length(rows) < length(pool$rows))
  kernel <- p$kernel
  start <- list(log_width = log(kernel$width),
                log_variance = log(if (p$optimize$hyper) vy else kernel$variance),
                log_noise = log(p$noise_variance %||% (vy / 10)))
  learned <- NULL
  if (p$learn) {
    learned <- learn_kernel_widths(kernel, xs, p$y, p$weights, control, by_input = p$by_input, pool = pool)
    start$log_width <- unname(log(learned$width))
    if (identical(learned$width_rule, "learn")) {  # (otherwise no signal: the median heuristic, one width)
      start$log_variance <- unname(log(learned$learned$variance / sy^2))
      if (is.null(p$noise_variance)) start$log_noise <- unname(log(learned$learned$noise_variance / sy^2))
      if (is.null(control$factr) && !is_quiet_response(learned$learned$noise_variance / sy^2, vy))
        control$factr <- 1e11  # a noisy response: the last small gains move no prediction
    }
  }
  asked <- Z
  kept <- NULL
  if (!is.null(Z)) {  # those dropped are looked at again after learning (gp_settle_inducing())
    kept <- distinct_inducing(utils::modifyList(kernel, list(width = exp(start$log_width))), Z,
                              inducing_tolerance(control, start$log_noise - start$log_variance))
    Z <- Z[kept, , drop = FALSE]
  }
  control$factr <- control$factr %||% 1e10
  # The stop is on the gain per row, but what an iteration is worth is its
  # gain over every row the posterior serves (each learning row of a
  # subsample stands for n / subsample of them): beyond 1000 rows the
  # default stops on that total, at what 1000 rows would gain (default
  # factr only). Over seeds, n = 2000 to 3e5: never a worse latent RMSE,
  # up to 9% better (bench/RESULTS.md).
  if (is.null(p$control$factr)) control$factr <- control$factr * min(1, 1000 / (p$served %||% length(pool$rows)))
  list(xs = xs[rows, , drop = FALSE], r = p$std$r[rows], Z = Z,
       wt = if (is.null(pool$weights)) numeric(0) else pool$weights[match(rows, pool$rows)], kernel = kernel,
       approx = p$approx, noise_given = !is.null(p$noise_variance), vy = vy, control = control, start = start,
       learned = learned$learned, pool = pool, rows = rows, asked = asked, kept = kept)
}

# The variance (relative to the kernel variance) under which an inducing
# point counts as in the span of the others, at log(noise / variance) =
# `log_ratio`: a point's worth is its variance given the others against
# the noise, so on a response without noise, differences below the jitter
# still count.
inducing_tolerance <- function(control, log_ratio) {
  (control$inducing_tol %||% control$jitter) * min(1, exp(log_ratio))
}

# The inducing points K_uu can tell apart at the kernel `kernel` (widths
# set): a pivoted Cholesky of K_uu / variance (LAPACK's dpstrf through
# chol()) takes, greedily, the point of largest variance given those taken,
# until that variance is at most `tol`. A point left out is then within
# sqrt(tol) (in the kernel's norm) of the span of the others: with `tol`
# the jitter, about what the jitter of K_uu already blurs, so it adds
# almost nothing to the bound but O(n m^2) time (n = 10^6: 150 of 500
# k-means points are kept, bench/RESULTS.md). The kept points in order.
#
# With `given` (points already kept), the factorisation continues from
# them: the pivoted Cholesky of the variances of Z given `given` (the Schur
# complement, K_uu's factor jittered as the objective's is) returns the
# points of Z to add, none when every one is within `tol` of the span.
distinct_inducing <- function(kernel, Z, tol, given = NULL, jitter = 0) {
  if (is.null(given) && (tol <= 0 || nrow(Z) < 2L)) return(seq_len(nrow(Z)))
  kernel$variance <- 1
  K <- kernel_matrix(kernel, Z)
  if (!is.null(given)) {
    if (tol <= 0) return(seq_len(nrow(Z)))
    L <- chol(kernel_matrix(kernel, given) + diag(max(jitter, 1e-12), nrow(given)))
    A <- backsolve(L, kernel_matrix(kernel, given, Z), transpose = TRUE)
    K <- K - crossprod(A)
    if (max(diag(K)) <= tol) return(integer(0))
  }
  # chol() warns of the rank deficiency that is the point here
  ch <- suppressWarnings(chol(K, pivot = TRUE, tol = tol))
  sort(attr(ch, "pivot")[seq_len(max(1L, attr(ch, "rank")))])
}

# The fit object of a sparse_gp() problem from the optimum `opt` of its
# learning: the hyperparameters back in the units of y, one posterior on
# every row (each with its weight / the pooled unit), and what summary()
# says of the learning (learning_notes()): the start's fallback or
# constant inputs, the optimum's bounds, pooled copies.
gp_fit <- function(p, learning, opt, call) {
  sy <- p$std$scale
  pool <- learning$pool
  names(opt$par$kernel$width) <- if (length(opt$par$kernel$width) > 1L) colnames(p$xs)
  opt$par$kernel$variance <- opt$par$kernel$variance * sy^2  # back to the units of y
  opt$par$noise <- opt$par$noise * sy^2
  n_rows <- replicated_rows(learning$wt, length(learning$rows))
  opt$value <- opt$value + n_rows * log(sy)
  opt$restart_values <- opt$restart_values + n_rows * log(sy)
  if (!is.null(opt$collapse)) opt$collapse[c("first", "second")] <- opt$collapse[c("first", "second")] - n_rows * log(sy)
  wt <- if (is.null(p$weights) && pool$unit == 1) numeric(0) else (p$weights %||% rep(1, nrow(p$x))) / pool$unit
  fit <- new_sparse_gp(opt, list(x = p$x, xs = p$xs, y = p$y, wt = wt, ybar = p$std$shift, scaling = p$scaling),
                       p$approx, p$optimize, learning$control, call)
  fit$prior.weights <- p$weights
  fit$weight_unit <- pool$unit
  fit$subsample <- if (length(learning$rows) < length(pool$rows)) length(learning$rows)
  fit$learned <- c(if (p$optimize$hyper)
    c(if (p$learn) learning$learned[intersect(names(learning$learned),
                                                  c("criterion", "gain", "price", "constant_inputs"))],
      list(bounds = opt$bounds, converged = fit$converged, copies = pool$copies)),
    if (!is.null(opt$inducing)) list(inducing = opt$inducing),
    if (!is.null(opt$collapse)) list(collapse = opt$collapse, stalled = opt$stalled))
  add_offset(fit, p$offset)
}

# The rows whose objective is optimised: all, or a random subsample of
# `subsample` rows (in order) when there are more and something is learned.
learning_rows <- function(n, approx, optimize, subsample) {
  if (approx$exact || !optimize$hyper || n <= subsample) return(seq_len(n))
  sort(sample.int(n, subsample))
}

# A fit made without the rows of weight 0, given them back: their fitted
# values are predictions, with no precision in the fit (Lambda Inf, Pi 0).
with_unfitted_rows <- function(fit, x, y, weights, offset) {
  keep <- weights > 0
  pad <- function(v, fill) {
    out <- rep(fill, length(keep))
    out[keep] <- v
    out
  }
  latent <- gp_latent(fit, x[!keep, , drop = FALSE])
  fitted <- pad(fit$fitted.values, NA_real_)
  fitted[!keep] <- latent$mean + if (is.null(offset)) 0 else offset[!keep]
  if (!is.null(fit$fitted_var)) {  # exact fits (VFE and FITC: gp_row_variances())
    fit$fitted_var <- pad(fit$fitted_var, NA_real_)
    fit$fitted_var[!keep] <- latent$var
    fit$pi_diag <- pad(fit$pi_diag, 0)
  }
  fit$pi_r <- pad(fit$pi_r, 0)
  fit$Lambda <- pad(fit$Lambda, Inf)
  fit$x <- x
  fit$y <- y
  fit$fitted.values <- fitted
  fit$residuals <- y - fitted
  fit$prior.weights <- weights
  if (!is.null(offset)) fit$offset <- offset
  fit
}

#' Control settings for sparse GP fits
#'
#' Settings of the optimiser that maximises a sparse GP's evidence (or VFE
#' bound) over its hyperparameters and inducing locations, checked when
#' made and again when [sparse_gp()] uses them.
#'
#' @param maxit Maximum number of L-BFGS-B iterations per start. Optimising
#'   the inducing locations (`optimize = "all"`) moves `m` times the number
#'   of inputs parameters and can need over a thousand iterations (Boston
#'   housing, 13 inputs, m = 30: 1111).
#' @param verbose Print [stats::optim()]'s progress (every 10 iterations)?
#'   The values printed are the objective minus its value at the start (in
#'   standard units), which is what L-BFGS-B minimises.
#' @param jitter Jitter added to the diagonal of `K_uu`, relative to the
#'   kernel variance; it grows tenfold on a failed factorisation.
#' @param noise_lower The estimated noise variance is bounded below by
#'   `noise_lower * var(y)`.
#' @param factr,pgtol L-BFGS-B convergence tolerances, see [stats::optim()].
#'   The objective minimised is its change from the start divided by the
#'   number of observations, so `factr = 1e10` stops when an iteration gains
#'   less than about `2e-6` nats per observation. With inducing locations to
#'   optimise, L-BFGS-B creeps: `factr = 1e8` took 1085 evaluations on
#'   Boston housing (405 rows, m = 50) where `1e10` takes 413 and ends 0.4
#'   nats lower, and over 21 data sets and 3 fold draws it doubled the CPU
#'   time for a test RMSE 0.3% lower (bench/RESULTS.md). `NULL` (the
#'   default) is `1e11` where the exact GP that learned the widths (the
#'   default kernel) finds noise of at least 1% of the response's variance,
#'   and `1e10` elsewhere: on responses without noise the last small gains
#'   still move the fit (`mlbench.peak`: test RMSE 30% higher at `1e11`),
#'   on noisy ones they do not (within 0.3% on 19 sets at 40% less CPU).
#'   Beyond 1000 rows the default is multiplied by `1000 / n` (n: the rows
#'   the posterior serves, also when learning on a subsample, where each
#'   learning row stands for `n / subsample` of them): an iteration's worth
#'   is its gain over every row, not per row. On a 2-D surface over seeds
#'   and n = 2000 to 3e5 it never gave a worse latent RMSE and up to 9%
#'   better, for up to twice the evaluations (bench/RESULTS.md).
#' @param inducing_tol Inducing points that `K_uu` cannot tell apart are
#'   dropped before learning: a pivoted Cholesky factorisation of `K_uu` at
#'   the starting hyperparameters keeps the point of largest variance given
#'   those kept, until that variance is at most `inducing_tol` times the
#'   kernel variance, or times the noise variance where that is smaller (on
#'   a response without noise, differences below the jitter still move the
#'   fit). A dropped point is then within `sqrt(inducing_tol)` of the span
#'   of the kept ones, so it adds almost nothing to the bound, but O(n m^2)
#'   time. `NULL` (the default) is `jitter`; `0` keeps every point. With 500
#'   k-means points on a smooth surface at n = 10^6, 150 are kept; on 27
#'   regression sets the held-out error is that of every point
#'   (bench/RESULTS.md). `fit$m` is the number kept, and
#'   [summary.sb_sparse_gp()] says how many were dropped and what they are
#'   worth.
#' @param inducing_cost The most, in nats per row (of the rows learned on),
#'   that the inducing points dropped may be worth at the learned
#'   hyperparameters: after learning the objective with every point is
#'   evaluated once (on at most 5000 of the rows learned on), and when the dropped points add more than this, those
#'   the kept ones no longer span at the learned hyperparameters (by the
#'   same factorisation, continued from the kept points) are restored, then
#'   every one if the rest still add too much, and the fit is learned again
#'   from its start. So a fit never loses more than `inducing_cost * n`
#'   nats of its bound to the points dropped (at its optimum); against a
#'   fit that keeps every point from the same start, the bound was never
#'   more than 4e-4 nats a row lower and the test error never more than
#'   1.3% higher (bench/RESULTS.md; one exception in ?sparse_gp). The 350 points dropped at
#'   n = 10^6 were worth 9e-6 nats a row; a width of 50 kept where 1.5 is
#'   learned, 1.2 nats a row. `0` restores any point worth anything; `Inf`
#'   keeps the decision made at the start.
#' @param exact_max_n Largest n accepted by `approx = "exact"`.
#' @param subsample With more rows than this, the hyperparameters and
#'   inducing points are learned on a random subsample of this many rows
#'   (drawn like the inducing points, see [sparse_gp()]), and the posterior
#'   and the reported bound use every row in one O(n m^2) pass. `Inf`
#'   always learns on every row.
#' @return An object of class `"sparse_gp_control"`.
#' @examples
#' sparse_gp_control(maxit = 50)
#' @export
sparse_gp_control <- function(maxit = 5000L, verbose = FALSE, jitter = 1e-6, noise_lower = 1e-6, factr = NULL,
                              pgtol = 0, exact_max_n = 5000L, subsample = 20000, inducing_tol = NULL,
                              inducing_cost = 1e-4) {
  check_number(maxit, "maxit", lower = 1, integer = TRUE)
  check_flag(verbose, "verbose")
  check_number(jitter, "jitter", lower = 0, upper = 1)
  check_number(noise_lower, "noise_lower", lower = 0, open_lower = TRUE, upper = 1)
  if (!is.null(factr)) check_number(factr, "factr", lower = 0, open_lower = TRUE)
  check_number(pgtol, "pgtol", lower = 0)
  check_number(exact_max_n, "exact_max_n", lower = 1, integer = TRUE)
  if (!identical(subsample, Inf)) check_number(subsample, "subsample", lower = 10, integer = TRUE)
  if (!is.null(inducing_tol)) check_number(inducing_tol, "inducing_tol", lower = 0, upper = 1)
  if (!identical(inducing_cost, Inf)) check_number(inducing_cost, "inducing_cost", lower = 0)
  structure(list(maxit = as.integer(maxit), verbose = verbose, jitter = jitter, noise_lower = noise_lower,
                 factr = factr, pgtol = pgtol, exact_max_n = as.integer(exact_max_n), subsample = subsample,
                 inducing_tol = inducing_tol, inducing_cost = inducing_cost),
            class = "sparse_gp_control")
}

#' @export
print.sparse_gp_control <- function(x, ...) {
  cat("Sparse GP control settings\n")
  utils::str(unclass(x), no.list = TRUE, give.head = FALSE)
  invisible(x)
}

# The caller's random state, to be put back by restore_rng(): fitting must
# not move the user's random stream.
save_rng <- function() {
  env <- globalenv()
  if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env) else NULL
}

restore_rng <- function(state) {
  env <- globalenv()
  if (is.null(state)) {
    if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env)
  } else {
    assign(".Random.seed", state, envir = env)
  }
}

# Inducing locations in the scaled input space: from a number (k-means++ on
# the scaled inputs) or from a matrix in the units of the inputs. `xs`: the
# rows learned from (exact copies pooled, perhaps a subsample of them);
# `n_obs`: the observations of the fit. A number of points is at most the
# distinct input rows, which the message counts against the observations.
initial_inducing <- function(inducing, xs, scaling, is_default, n_obs = nrow(xs), subsampled = FALSE) {
  if (is.matrix(inducing) || is.data.frame(inducing)) {
    Z <- check_numeric_matrix(inducing, "inducing")
    if (ncol(Z) != ncol(xs))
      stop_arg("inducing", sprintf("has %d columns but the inputs have %d.", ncol(Z), ncol(xs)))
    return(apply_scaling(Z, scaling))
  }
  if (!is.numeric(inducing) || length(inducing) != 1L)
    stop_arg("inducing", "must be a number of inducing points or a matrix of their locations.")
  check_number(inducing, "inducing", lower = 1, integer = TRUE)
  distinct <- sum(!duplicated(xs))
  if (is_default) inducing <- min(inducing, distinct)  # faithful's waiting: 51 distinct values
  if (inducing > distinct)
    stop_arg("inducing", sprintf("asks for %d inducing points but the inputs have only %d distinct rows (%s).",
                                 inducing, distinct,
                                 if (subsampled) sprintf("in the subsample of %d rows learned from, of %d observations",
                                                         nrow(xs), n_obs)
                                 else sprintf("of %d observations", n_obs)))
  kmeans_inducing(xs, as.integer(inducing))
}

# The centres of rvm(centres = m) (C++ k-means++, seeded): the seed is
# drawn from R's stream, so `seed` and set.seed() decide the points.
kmeans_inducing <- function(xs, m) {
  if (m == nrow(xs)) return(xs)
  centres <- centres_of(xs, m, seed = sample.int(.Machine$integer.max, 1L))
  if (nrow(centres) < m)
    stop_arg("inducing", sprintf("asks for %d inducing points but the inputs have only %d distinct rows.", m,
                                 nrow(centres)))
  dimnames(centres) <- list(NULL, colnames(xs))
  centres
}

# The settings of one .sb_gp_objective() evaluation: the approximation, the
# jitter of K_uu, whether the gradient is wanted and the threads over rows.
gp_settings <- function(approx, jitter, gradient, threads = 1L) {
  list(approx = approx, jitter = jitter, gradient = gradient, threads = as.integer(threads))
}

# Objective and gradient over theta = (log widths (one, or one per input),
# log variance, [log noise], [vec(Z)]): one C++ call per new theta, cached
# so that optim's fn and gr share it.
gp_closure <- function(learning, fixed, est_noise, est_z, progress = NULL) {
  xs <- learning$xs
  Z <- learning$Z
  kernel <- learning$kernel
  approx <- learning$approx
  jitter_events <- 0L
  evaluations <- 0L
  nw <- length(kernel$width)
  workspace <- if (approx$exact) .sb_gp_workspace()  # the n x n buffers, reused by every evaluation
  settings <- gp_settings(approx$name, learning$control$jitter, TRUE, kernel_threads())
  unpack <- function(theta) {
    k <- kernel
    k$width <- exp(theta[seq_len(nw)])
    k$variance <- exp(theta[nw + 1L])
    noise <- if (est_noise) exp(theta[nw + 2L]) else fixed$noise
    z <- if (est_z) matrix(theta[(nw + 2L + est_noise):length(theta)], nrow(Z), ncol(Z)) else Z
    list(kernel = k, noise = noise, Z = z)
  }
  fns <- shared_fn_gr(function(theta) {
    p <- unpack(theta)
    zz <- if (is.null(p$Z)) matrix(0, 0, ncol(xs)) else p$Z
    res <- .sb_gp_objective(unclass(p$kernel), p$noise, xs, learning$r, zz, learning$wt, settings, workspace)
    jitter_events <<- jitter_events + res$jitter_events
    evaluations <<- evaluations + 1L
    if (!is.null(progress))
      progress(amount = 0, message = sprintf("evaluation %d on %d rows: %.6g", evaluations, nrow(xs), res$value))
    g <- res$gradient[c(seq_len(nw + 1L), if (est_noise) nw + 2L, if (est_z) nw + 2L + seq_len(length(Z)))]
    list(value = res$value, gradient = g)
  })
  c(fns, list(unpack = unpack, jitter_events = function() jitter_events))
}

# L-BFGS-B from the start (and `restarts` random starts); the best optimum.
# `learning`: the rows learned from (xs, r, their weights wt), the inducing
# points Z, the kernel, approx, noise_given, the variance vy of r and the
# control settings, and the `start` (start$log_width has one entry per
# width: one, or one per input).
gp_optimise <- function(learning, optimize, restarts, progress = NULL) {
  start <- learning$start
  xs <- learning$xs
  Z <- learning$Z
  wt <- learning$wt
  vy <- learning$vy
  control <- learning$control
  approx <- learning$approx
  noise_given <- learning$noise_given
  est_noise <- !noise_given && optimize$hyper
  est_z <- optimize$inducing && !approx$exact
  fixed <- list(noise = exp(start$log_noise))
  learning$kernel$width <- exp(start$log_width)
  fns <- gp_closure(learning, fixed, est_noise, est_z, progress)
  theta0 <- c(start$log_width, start$log_variance, if (est_noise) start$log_noise, if (est_z) as.vector(Z))
  if (!optimize$hyper) {
    p <- fns$unpack(theta0)
    value <- .sb_gp_objective(unclass(p$kernel), p$noise, xs, learning$r, if (is.null(Z)) matrix(0, 0, ncol(xs)) else Z,
                              wt, gp_settings(approx$name, control$jitter, FALSE))$value
    return(list(par = p, value = value, converged = TRUE, counts = c(`function` = 1L, gradient = 0L),
                message = "no optimisation (optimize = \"none\")", restart_values = value,
                jitter_events = 0L, noise_estimated = FALSE))
  }
  n_hyper <- length(start$log_width) + 1L + est_noise
  lower <- c(start$log_width - log(1e4), log(vy) - log(1e6), if (est_noise) log(control$noise_lower * vy),
             rep(-Inf, length(theta0) - n_hyper))
  upper <- c(start$log_width + log(1e4), log(vy) + log(1e6), if (est_noise) log(vy) + log(1e3),
             rep(Inf, length(theta0) - n_hyper))
  # Every run minimises (f - f(start)) / N, N the number of observations
  # (weights as replicated rows), the same in any units of y (lbfgsb()): as
  # long as the gain is under a nat per observation, it stops on an
  # absolute gain per observation, factr * eps nats.
  f_ref <- fns$fn(pmin(pmax(theta0, lower), upper))
  settings <- list(maxit = control$maxit, factr = control$factr, pgtol = control$pgtol,
                   fnscale = replicated_rows(wt, nrow(xs)), trace = if (control$verbose) 1L else 0L)
  start_of <- function(k) {  # the start, then `restarts` random ones around it
    if (k == 0L) return(theta0)
    theta <- theta0
    theta[seq_len(n_hyper)] <- theta[seq_len(n_hyper)] + stats::rnorm(n_hyper)
    theta
  }
  run <- function(theta) lbfgsb(fns, theta, lower, upper, settings, f_ref, failure = "the sparse GP optimisation failed")
  search <- best_of(0:restarts, function(k) run(start_of(k)), function(run) run$value, keep = "min")
  values <- search$scores
  best <- search$result
  # An optimum that does not pay its price over the constant model (the
  # widths and the kernel variance, BIC) is often the collapse of a start:
  # with inducing points on a line in 2-D, the exact GP's small noise made
  # the trace term so costly that the kernel variance ran to its bound
  # (R^2 2e-5, VFE bound -372) where a start from the median heuristic's
  # width with the response's variance split evenly between signal and
  # noise reaches -302 (R^2 0.42; bench/RESULTS.md). That start is run too,
  # and the better kept (on pure noise both are constant).
  n_obs <- replicated_rows(wt, nrow(xs))
  constant <- gp_constant_value(learning$r, wt, if (est_noise) NULL else fixed$noise)
  price <- (length(start$log_width) + 1) / 2 * log(n_obs)
  # A width the user started far beyond the inputs' spread (10 times the
  # median heuristic's) that ends where it began is not learned: the kernel
  # is flat in that input and so is the bound, and the search stops at its
  # start. Copies of 15 inducing points, start widths (1, 50), "all": x2's
  # width stayed at 48 (bound -321, test RMSE 0.71) where the second start
  # reaches 1400 (RMSE 4e-4). Learned starts come from a search that had
  # these widths in view, so a flat width there is an input switched off.
  log_w <- best$par[seq_along(start$log_width)]
  stalled <- if (is.null(learning$learned))
    which(abs(log_w - start$log_width) < log(1.1) & log_w > log(10 * default_width(xs)))
  collapse <- NULL
  if (constant - best$value < price || length(stalled)) {
    theta <- theta0
    theta[seq_along(start$log_width)] <- log(default_width(xs))
    theta[length(start$log_width) + 1L] <- log(vy / 2)
    if (est_noise) theta[length(start$log_width) + 2L] <- log(vy / 2)
    other <- run(theta)
    collapse <- c(first = best$value, second = other$value)
    values <- c(values, other$value)
    if (other$value < best$value) best <- other
    collapse <- c(-collapse, gain = constant - best$value, price = price)
  }
  message <- if (best$code == 1L) sprintf("iteration limit maxit = %d reached", control$maxit)
             else best$message %||% ""
  widths <- if (length(start$log_width) > 1L) paste("width of", colnames(xs) %||% seq_along(start$log_width))
            else "width"
  list(par = fns$unpack(best$par), value = best$value, converged = best$converged, counts = best$counts,
       message = message, restart_values = values, jitter_events = fns$jitter_events(),
       code = best$code, noise_estimated = est_noise, collapse = collapse,
       stalled = if (length(stalled)) if (length(start$log_width) > 1L) colnames(xs)[stalled] %||% stalled else "the width",
       bounds = bounds_hit(best$bound[seq_len(n_hyper)], c(widths, "kernel variance", if (est_noise) "noise variance")))
}

# The objective (minus the log likelihood) of the constant model on the
# rows learned on: r ~ N(0, noise / wt_i), the noise given or at its
# maximum: what a GP whose kernel explains nothing reaches.
gp_constant_value <- function(r, wt, noise = NULL) {
  w <- if (length(wt)) wt else rep(1, length(r))
  noise <- noise %||% (sum(w * r^2) / length(r))
  -sum(stats::dnorm(r, 0, sqrt(noise / w), log = TRUE))
}

# The inducing points dropped before learning (gp_learning(), at the
# starting hyperparameters), decided again at the learned ones: when those
# dropped are worth more than control$inducing_cost nats a row of the
# objective there (one evaluation with every point), the ones the kept
# points no longer span (distinct_inducing() continued from them) are
# restored, and every one if the rest are still worth too much, each time
# learning again from the start (so a fit that restores every point is the
# fit that dropped none). Widths seldom stay at their start: a width of 50
# in an input that needs 1.5 dropped 25 of 40 points there (VFE bound 98
# against 579 with every point); on Branin without noise 57 of 150 were
# dropped at the exact GP's widths (test RMSE 14-17% higher); with fixed
# hyperparameters and little noise, points under the jitter moved the
# predictive variance by up to 28% (bench/RESULTS.md). Returns `opt` with
# `inducing`: what summary() says of the points (asked, kept, restored, and
# what those dropped are worth at the optimum, in nats and per row).
gp_settle_inducing <- function(learning, opt, optimize, restarts, progress = NULL) {
  kept <- learning$kept
  if (is.null(kept) || length(kept) == nrow(learning$asked)) return(opt)
  asked <- learning$asked
  control <- learning$control
  n_obs <- replicated_rows(learning$wt, nrow(learning$xs))
  settings <- gp_settings(learning$approx$name, control$jitter, FALSE, kernel_threads())
  counts <- opt$counts
  jitter_events <- opt$jitter_events
  restored <- 0L
  # On at most 5000 of the rows learned on (evenly spread), the check costs
  # about one evaluation of the objective with its gradient: 0.15 s at n =
  # 10^6, 500 points asked (0.6 s on all 20000 rows learned on)
  rows <- if (nrow(learning$xs) > 5000L) unique(round(seq(1, nrow(learning$xs), length.out = 5000L)))
  at_rows <- function(v) if (is.null(rows) || !length(v)) v else v[rows]
  check_wt <- at_rows(learning$wt)
  value_on <- function(Z, par) {
    res <- .sb_gp_objective(unclass(par$kernel), par$noise, learning$xs[rows %||% TRUE, , drop = FALSE],
                            at_rows(learning$r), Z, check_wt, settings)
    jitter_events <<- jitter_events + res$jitter_events
    res$value
  }
  for (round in 1:2) {
    par <- opt$par
    dropped <- asked[-kept, , drop = FALSE]
    gain <- (if (is.null(rows)) opt$value else value_on(par$Z, par)) - value_on(rbind(par$Z, dropped), par)
    worth <- max(0, gain) * n_obs / replicated_rows(check_wt, length(at_rows(learning$r)))
    if (worth <= control$inducing_cost * n_obs) break
    add <- if (round == 1L)
      distinct_inducing(par$kernel, dropped, inducing_tolerance(control, log(par$noise) - log(par$kernel$variance)),
                        given = par$Z, jitter = control$jitter)
    if (!length(add)) add <- seq_len(nrow(dropped))
    kept <- sort(c(kept, setdiff(seq_len(nrow(asked)), kept)[add]))
    restored <- restored + length(add)
    learning$Z <- asked[kept, , drop = FALSE]
    opt <- gp_optimise(learning, optimize, restarts, progress)
    counts <- counts + opt$counts
    jitter_events <- jitter_events + opt$jitter_events
    worth <- 0
    if (length(kept) == nrow(asked)) break
  }
  opt$counts <- counts
  opt$jitter_events <- jitter_events
  opt$inducing <- c(asked = nrow(asked), kept = length(kept), restored = restored, worth = worth,
                    worth_row = worth / n_obs)
  opt
}

# The fit object from the optimum `opt` and the data (x, xs, y, wt, ybar,
# scaling): one posterior factorisation on every row.
new_sparse_gp <- function(opt, data, approx, optimize, control, call) {
  x <- data$x
  xs <- data$xs
  Z <- opt$par$Z
  zz <- if (is.null(Z)) matrix(0, 0, ncol(xs)) else Z
  exact <- is.null(Z)
  post <- .sb_gp_posterior(unclass(opt$par$kernel), opt$par$noise, xs, data$y - data$ybar, zz, data$wt, approx$name,
                           control$jitter, kernel_threads(), exact)  # one factorisation
  fitted <- data$ybar + as.numeric(post$fitted)
  # VFE and FITC leave Pi's diagonal and the latent variances at the
  # training inputs to gp_row_variances(), when asked
  rows <- list(x = x, xs = xs, y = data$y, fitted = fitted, fitted_var = if (exact) as.numeric(post$fitted_var),
               Lambda = as.numeric(post$lambda), pi_diag = if (exact) as.numeric(post$pi_diag),
               pi_r = as.numeric(post$pi_r))
  gp_object(opt, post, data$ybar, data$scaling, colnames(x), approx, optimize, control, call, rows)
}

# The fit object from the optimum `opt`, the posterior `post` and the
# constant mean `ybar`; `rows`: the training rows' x, scaled xs (an exact
# GP's centres), y and their fitted values, latent variances, Lambda and
# Pi's diagonal and Pi r (NULL for a fit from chunks, which keeps no
# n-length vector).
gp_object <- function(opt, post, ybar, scaling, columns, approx, optimize, control, call, rows) {
  Z <- opt$par$Z
  centres <- Z %||% rows$xs
  inducing <- NULL
  if (!is.null(Z)) {
    inducing <- unscale_rows(Z, scaling, columns)
    dimnames(Z) <- dimnames(inducing)
  }
  noise <- opt$par$noise
  fit <- list(call = call, kernel = opt$par$kernel, approx = approx$name, optimize = optimize$name, mean = ybar,
              noise = "shared", noise_variance = noise, noise_estimated = opt$noise_estimated, lambda = noise,
              Lambda = rows$Lambda, inducing = inducing, inducing_scaled = Z, m = if (is.null(Z)) nrow(rows$x) else nrow(Z),
              logLik = -post$value, fitted.values = rows$fitted, residuals = rows$y - rows$fitted,
              fitted_var = rows$fitted_var,
              converged = opt$converged, iterations = opt$counts, message = opt$message,
              restart_values = -opt$restart_values,
              jitter_events = opt$jitter_events + post$jitter_events, x = rows$x, y = rows$y, scaling = scaling,
              centres = centres, weights = as.numeric(post$weights),
              chol = post$chol, chol_b = if (is.null(Z)) NULL else post$chol_b,
              pi_diag = rows$pi_diag, pi_r = rows$pi_r,
              qu_mean = if (is.null(Z)) NULL else as.numeric(post$qu_mean),
              qu_cov = if (is.null(Z)) NULL else post$qu_cov, jitter = control$jitter, control = control,
              edf = if (!is.null(Z)) post$edf)
  if (is.null(rows)) fit["residuals"] <- list(NULL)
  class(fit) <- c("sb_sparse_gp", "sparsebayes")
  if (!fit$converged)
    warning(sprintf("the L-BFGS-B optimisation did not converge (%s); see `control = sparse_gp_control(maxit = )`.",
                    fit$message), call. = FALSE)
  fit
}

# The rows of the sample a sparse_gp() fit from chunks learns on: those
# it would learn on in memory (control$subsample).
gp_chunk_sample_size <- function(control) {
  control <- revalidate_control(control %||% sparse_gp_control(), sparse_gp_control, "sparse_gp_control")
  if (!is.finite(control$subsample))
    stop_arg("control", "must have a finite `subsample` for a fit from data_chunks(): it is the size of the sample the hyperparameters are learned on.")
  as.integer(control$subsample)
}

# The response in standard units through standard_units() (the helper of
# every gaussian fit): the shift is the weighted mean (a constant "column"
# const = c(1, 1): the GP's constant mean), the scale robust_scale() of
# y - shift with weights as replicated rows; `variance` is var(r), as of the
# replicated rows with weights. Case weights stay out of r: the GP carries
# them as noise / w_i. Stops on a constant y and on a scale whose square is
# not a double (the posterior is formed in the units of y).
gp_standard_units <- function(y, weights) {
  if (all(y == y[1L])) stop_arg("y", "is constant; there is nothing to fit.")
  st <- standard_units(NULL, y, weights = weights, const = c(1, 1))
  r <- y - st$shift
  if (!any(r != 0)) stop_arg("y", "is constant; there is nothing to fit.")
  if (!is.finite(st$scale^2) || st$scale^2 < 1e-250)
    stop_arg("y", sprintf("has variance %s, beyond what the posterior can hold in double precision; rescale it.",
                          format(st$scale^2)))
  r <- r / st$scale
  list(shift = st$shift, scale = st$scale, r = r,
       variance = if (st$target_variance > 0) st$target_variance else stats::var(r))
}

# Pi's diagonal and the latent variances at the training inputs: stored by
# exact fits; for VFE and FITC one O(n m^2) pass over the rows when asked
# (the fit does not need them: the pass was a third of a fit's time at
# n = 10^6, m = 500), from the predictor: with s_i = |LB^-1 A_i|^2 (the
# `explained` part of the latent variance), diag(Pi)_i = 1/Lam_i -
# s_i/Lam_i^2, 0 for a row of weight 0 (Lam Inf: not in the fit).
gp_row_variances <- function(object) {
  if (!is.null(object$pi_diag)) return(list(pi_diag = object$pi_diag, fitted_var = object$fitted_var))
  p <- .sb_gp_predict(unclass(object$kernel), object$centres, object$weights, object$chol, object$chol_b,
                      apply_scaling(object$x, object$scaling), TRUE, FALSE, kernel_threads())
  lam <- object$Lambda
  list(pi_diag = ifelse(is.finite(lam), 1 / lam - as.numeric(p$explained) / lam^2, 0), fitted_var = as.numeric(p$var))
}

# Latent mean and variance (or covariance) at inputs x in the original
# units, from the stored Cholesky factors (sparse_gp_predict in C++); rows
# with NA give NA.
gp_latent <- function(object, x, full_cov = FALSE, variance = TRUE) {
  xs <- apply_scaling(x, object$scaling)
  ok <- stats::complete.cases(xs)
  mean <- var <- rep(NA_real_, nrow(xs))
  cov <- NULL
  if (any(ok)) {
    chol_b <- if (is.null(object$chol_b)) matrix(0, 0, 0) else object$chol_b
    p <- .sb_gp_predict(unclass(object$kernel), object$centres, object$weights, object$chol, chol_b,
                        xs[ok, , drop = FALSE], variance, full_cov, kernel_threads())
    mean[ok] <- object$mean + as.numeric(p$mean)
    if (variance || full_cov) var[ok] <- as.numeric(p$var)
    if (full_cov) cov <- p$cov
  }
  list(mean = mean, var = var, cov = cov)
}
