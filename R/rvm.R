#' Relevance vector machine
#'
#' Fits a relevance vector machine (Tipping 2001): a linear model on kernel
#' basis functions centred on the training inputs, with one precision per
#' weight chosen by maximising the marginal likelihood, so that most weights
#' are pruned and the few *relevance vectors* remain. The default solver is
#' the fast sequential algorithm of Tipping and Faul (2003), which adds,
#' re-estimates or deletes one basis function per step; its cost per step
#' grows with the number of relevance vectors, not with n^3.
#'
#' @param x A numeric matrix (or data frame of numbers, or vector) of inputs,
#'   one row per observation; or a formula for the formula method.
#' @param formula A formula `y ~ terms`; factors are expanded by
#'   [stats::model.matrix()] and the intercept column is dropped (the `bias`
#'   plays its part).
#' @param data,subset,na.action As in [stats::lm()].
#' @param y Numeric response.
#' @param kernel A kernel object (see [kernels]) or its name. The default
#'   gaussian kernel of a regression has one width per input, learned by a
#'   GP marginal likelihood (`width = "learn"` in [kernels]; see
#'   [input_relevance()]); a classifier's has one width for all inputs,
#'   learned by the Laplace approximation to a GP classifier's evidence
#'   (`width = "learn_one"`; one width per input lost on held-out data
#'   there); count models use the median heuristic (`width = "median"`),
#'   which any fit takes with `kernel = kernel_gaussian("median")`.
#' @param bias Add a constant basis function (with its own precision)?
#' @param scale Standardise each input column with the training means and
#'   standard deviations (kept for `predict`)? Kernel widths then refer to
#'   standardised inputs.
#' @param prior Prior on the precisions: `"none"` (the classic RVM, a flat
#'   prior) or the smoothness prior `p(alpha | sigma^2) ~ exp(-c DF)` of
#'   Schmolck and Everson (2007) with `c` given by a criterion, `"AIC"`
#'   (`c = 1`), `"BIC"` (`c = log(N)/2`), `"RIC"` (`c = log(N)`), or any
#'   number `c >= 0`. The smoothness prior makes flexible dictionaries
#'   (wavelets, splines, several kernels at once) sparse without
#'   overfitting; the paper recommends `"BIC"` as a default for them. Smooth
#'   kernels such as a Gaussian of sensible width need no prior (their
#'   results barely change). Gaussian family and `method = "fast"` only.
#'
#'   A single [kernel_wavelet()] dictionary (fitted by its O(N) path) also
#'   takes one constant per resolution level (a vector: the scaling
#'   coefficient, then the detail levels coarse to fine), or `"adaptive"`:
#'   the constants learned from the data, a beta-binomial prior on the
#'   number of coefficients kept in each level, with the fit averaged over
#'   which coefficients are included (see [kernel_wavelet()]). The default
#'   `"auto"` is `"adaptive"` for such a wavelet fit, `"BIC"` for a single
#'   wavelet dictionary fitted without the O(N) path (unequal `weights`,
#'   `orthonormal_shortcut = FALSE`; with another solver than `"fast"` or
#'   per-sample noise, `"none"`), and `"none"` otherwise.
#' @param method The solver, a name of the core's table of methods
#'   (partially matched): `"fast"` (sequential, Tipping and Faul 2003),
#'   or one of the batch solvers that [ard()] uses, `"mackay"` (all-at-once
#'   re-estimation, Tipping 2001; O(n^3) per iteration), `"em"`, `"irls2"`,
#'   `"irls1"`, `"gradient"`, run on the explicit kernel basis with the
#'   safeguards of [ard_control()] (no smoothness prior; `"em"`, `"mackay"`
#'   and `"irls2"` also fit binomial and poisson models, on the Laplace
#'   approximation at the posterior mode; `"irls1"` and `"gradient"` need
#'   the gaussian family).
#' @param noise `"shared"` (one noise variance) or `"sample"` (one per
#'   training point, joint model-and-data ARD of Timans et al.: outliers get
#'   large variances and little weight). With `method = "fast"` the
#'   per-sample variances enter the sequential solver as B = diag(1/lambda)
#'   in its S, Q and posterior; they are re-estimated on the solver's noise
#'   schedule by the EM rule `lambda_i = r_i^2 + phi_i' Sigma phi_i` (after
#'   `warm_start` iterations of shared updates, clipped and damped as set by
#'   [ard_control()]), each time followed by a full recomputation. It is
#'   the solver to use for per-sample noise on kernel bases: the batch rules
#'   work on all n + 1 columns at once, their precisions grow slowly on
#'   collinear kernel columns, and the variances of points whose own kernel
#'   is relevant (leverage near 1) drift slowly towards `lambda_min`, so they
#'   often stop at `max_iterations` (raise `tolerance` in [ard_control()] to
#'   stop earlier).
#'   `"student"`: per-sample variances with a Student-t prior, as in
#'   [ard()] (every solver; `lambda_i = (nu s^2 + E_i) / (nu + 1)` with
#'   `E_i = r_i^2 + phi_i' Sigma phi_i`, and `nu`, `s^2` by maximum
#'   likelihood), which keeps inliers at a common level at the optimum.
#' @param gradient_form `method = "gradient"`: `"primal"` or `"dual"` form
#'   of the log evidence and its gradient (see [ard()]).
#' @param objective Deprecated: the former name of `gradient_form`.
#' @param family `NULL` (the default: [stats::gaussian()] for a numeric
#'   response, [stats::binomial()] for a factor or logical one),
#'   `gaussian()`, `binomial()` or `poisson()` (the families and links of
#'   [sparsebayes_families]), or their names. Non-Gaussian likelihoods are fitted by a Laplace approximation at
#'   the posterior mode (penalised IRLS) inside the same solver. A factor
#'   with two levels is a binary classifier for the second level, as in
#'   [stats::glm()]; with more levels, see `multiclass` (an object of class
#'   `"sb_rvm_multiclass"`).
#'   From [data_chunks()], two classes only, by one pass over the chunks per
#'   outer iteration (see its Passes section), `method = "fast"` and no prior.
#' @param basis Optional user-supplied n by M design matrix, used instead of
#'   a kernel (then `x` may be `NULL` and `kernel`, `bias`, `scale` are
#'   ignored). `predict` then takes the new design matrix as `newdata`.
#' @param centres Where the kernels are centred. `NULL` (the default): on
#'   every training input up to 5000 rows (the classic RVM, an n x n
#'   basis); beyond that on 1000 k-means++ centres, with a message. A number
#'   `m`: on `m` centres from [kmeans_centres()] (seed 1) of the inputs the
#'   kernels see, so the basis is n x m and memory and time grow linearly in
#'   n (`m >= n` means every training input). A matrix: on its rows (in the
#'   units of `x`, one column per input). Prediction, intervals (the RVM*
#'   augmentation included) and diagnostics work as for the full basis;
#'   [relevance_vectors()] then returns the retained centres. Not with a
#'   wavelet dictionary or a user `basis`.
#' @param control `NULL` (the defaults: [rvm_control()] for `"fast"`,
#'   [ard_control()] for the other solvers), or settings from either
#'   constructor (one class, `"sb_control"`: every solver reads the settings
#'   it uses), or a list of named settings.
#' @param weights `NULL` or n non-negative prior weights (gaussian fits):
#'   known relative precisions (implemented exactly by scaling row i of the
#'   basis and of the response by `sqrt(weights[i])`). With shared noise
#'   only their ratios are information, and exact copies of a row are one
#'   row of their summed weight: what is learned (the noise, the weights'
#'   precisions, the kernel widths, the prior) is learned from the distinct
#'   rows with their weights as precisions, rescaled to average 1. So an
#'   integer weight acts as that many copies of its row, constant weights
#'   (all 3, all 0.5) give the fit of no weights, a bootstrap resample
#'   learns what its distinct rows learn with their counts as precisions,
#'   and copies never pass for noise-free replicates (which made a
#'   resample's learned widths interpolate). `lambda` is the noise variance
#'   of a row of average weight (over the distinct rows), row i's being
#'   `lambda * weight_unit / weights[i]` (`weight_unit`: that average
#'   weight, stored in the fit), and `logLik` is the density of the
#'   distinct rows. `scale = TRUE` uses weighted moments; the
#'   median-heuristic width and the kernel centres are taken from the
#'   distinct rows, so give `centres` and a width for an exact match with
#'   replicated rows. Rows of
#'   weight 0 are left out of the fit (no scaling, width heuristic, centre
#'   or kernel column sees them: with `centres = NULL` the kernels are then
#'   centred on the other rows, stored as `centres` named by their row) but
#'   keep their fitted values (with per-sample noise their `lambda` is
#'   `Inf`; per-sample and Student-t noise take the weights as given
#'   precisions). At least two rows of positive weight are needed to
#'   estimate a shared noise. Stored as
#'   `prior.weights`. A single [kernel_wavelet()] dictionary takes equal
#'   weights on its O(N) path, with its prior; unequal ones are fitted on
#'   the dense basis, which needs a power of two of rows. Binomial and
#'   poisson fits weight each observation's
#'   log-likelihood (an integer weight counts it that many times). Gaussian
#'   fits run in standard units (the response
#'   centred when the design has a constant column, and scaled), so `logLik`
#'   is the evidence of the standardised model expressed as a density of `y`
#'   (and `standard_units` holds the centre and scale).
#' @param offset `NULL` or n known numbers added to the linear predictor: it
#'   is subtracted from the response before the fit and added to the fitted
#'   values (for binomial and poisson fits it enters the linear predictor
#'   of the Laplace mode); `predict` with `newdata` then needs the new rows'
#'   `offset`. Stored as `offset`. The formula method evaluates `weights`
#'   and `offset` in `data`, as [stats::lm()] does, adds `offset()` terms of
#'   the formula, and evaluates them again in `newdata` at `predict`.
#' @param multiclass A factor response of more than two classes:
#'   `"multinomial"` (the default) fits one softmax model over K latent
#'   functions on one basis, with one precision per basis function and
#'   class (a basis function may be relevant to some classes only), by the
#'   fast sequential algorithm on the Laplace approximation of the joint
#'   posterior (inst/include/sparsebayes/multinomial.hpp); its class
#'   probabilities sum to one by construction ([predict.sb_rvm_multiclass()]).
#'   `"multinomial_shared"`: the same model with one precision per basis
#'   function shared by the classes (relevant for all classes or none).
#'   Either fit holds `relevant` (the columns any class keeps), the K-column
#'   `weights` over them (0 where a class has no weight), their joint
#'   covariance `Sigma` (class blocks), `logLik` (the log evidence), and in
#'   `models` one view per class (class k's latent function on its own
#'   columns). On 5-fold CV of iris, Glass, Vehicle, Zoo and Vowel (five
#'   fold draws, learned widths) the shared precisions had the lower
#'   held-out log loss on iris, Glass and Vehicle (by 6-15%) and the same on
#'   Zoo and Vowel, at the same CPU; but their Laplace steps work on all K
#'   weights of every kept function at once, so a fit that keeps many
#'   (narrow widths, many classes) costs far more: Vowel at width 2.5, 76 s
#'   against 2.9 s per class (bench/RESULTS.md).
#'   Needs `method = "fast"` and no offset. `"one_vs_rest"` fits one binary
#'   RVM per class against the rest (fitted through future.apply) and
#'   normalises their probabilities.
#' @param ... Passed from the formula method to the default method.
#' @return An object of class `c("sb_rvm", "sparsebayes")`, a list with
#'   \item{call}{the matched call.}
#'   \item{kernel}{the kernel with its width resolved (`NULL` with `basis`);
#'     with `width = "evidence"` the chosen width, and `width_rule =
#'     "evidence"`; with learned widths, one per input with `width_rule =
#'     "learn"` and the GP's `learned` variance, noise and log marginal
#'     likelihood.}
#'   \item{noise_starts}{gaussian fits with learned widths and shared noise:
#'     the fits from the three starting noises (see [kernels]), on the
#'     `basis` of the GP's widths and, on a response without noise, also of
#'     those widths / sqrt(2); their `logLik`, noise variance `lambda`,
#'     number of `relevant` functions and which was `chosen`: the largest
#'     evidence, or on a response without noise the smallest leave-one-out
#'     mean square `loo_mse` (`NA` elsewhere). A start whose path met
#'     another's early on (the same model at iteration 30, to 1%; to 0.01%
#'     on a response without noise) stops there and is that fit: `joined`
#'     gives its row (`NA` for the others).}
#'   \item{width_search}{fits with `width = "evidence"` (see [kernels]):
#'     a data frame of every width tried, in increasing order, with the
#'     criterion maximised, `logLik` (the log evidence; the log posterior
#'     with a smoothness prior; for a multiclass fit, stored in the
#'     multiclass object, the sum over its classes, which share the width),
#'     the number of `relevant` basis functions and whether the fit
#'     `converged`; attributes `heuristic` (the median-heuristic width the
#'     grid is centred on) and `criterion` (`"log evidence"` or `"log
#'     posterior"`; `objective`, its former name, is kept for one release).
#'     `plot(fit, which = "width")`
#'     draws it. `NULL` for other fits.}
#'   \item{method, prior, noise, family}{the solver, the prior as given,
#'     the noise model and the family object.}
#'   \item{relevant}{indices of the retained basis functions among the
#'     columns of the design (the bias, if any, is column 1).}
#'   \item{relevance_index}{training rows (with `centres`: rows of `centres`)
#'     whose kernels were retained.}
#'   \item{weights}{posterior mean of the retained weights.}
#'   \item{Sigma}{posterior covariance of the retained weights.}
#'   \item{alpha}{precisions of all basis functions, `Inf` where pruned.}
#'   \item{lambda}{noise variance (`NA` for binomial and poisson fits); a
#'     vector of n variances with `noise = "sample"` or `"student"`.}
#'   \item{student, outlier_probability}{Student-t noise: as in [ard()].}
#'   \item{path}{joint ARD solvers: thinned trajectories of `alpha` and
#'     `lambda` (see [ard()]); `NULL` otherwise.}
#'   \item{fitted.values, residuals}{on the response scale (probabilities
#'     and rates for binomial and poisson fits; residuals are `y - fitted`).}
#'   \item{linear.predictors}{the fit on the link scale.}
#'   \item{levels}{binomial fits: the two classes.}
#'   \item{temperature}{classifiers fitted in memory whose probabilities are
#'     at a temperature (`temperature` in [rvm_control()]; by default two
#'     classes): `t`, how it was chosen (`method`: `"cv"` or `"given"`),
#'     and for `"cv"`
#'     the `folds`, the `rows` held out and the held-out `log_loss` as
#'     fitted and tempered (`bound` when `t` is at 1/20 or 20, `reason` when
#'     too few rows or a failed inner fit left `t = 1`). `predict()` applies
#'     it; `fitted.values` stay at the posterior mode.}
#'   \item{log_posterior}{what the solver maximised: `logLik` plus the log
#'     smoothness and noise priors (up to a constant); `logLik` without a
#'     prior. The `trace` records it per iteration.}
#'   \item{smoothness}{the constant `c` of the prior (0 for `"none"`); one
#'     per level for a wavelet fit with constants by level, as given or
#'     learned (`"adaptive"`).}
#'   \item{inclusion}{`"adaptive"` wavelet fits: the posterior probability
#'     that each retained coefficient is in the model; `weights` and `Sigma`
#'     are then the moments averaged over inclusion.}
#'   \item{invariant}{translation-invariant wavelet fits: the fitted `mean`
#'     and its pointwise `variance` on the sorted grid, which `fitted()` and
#'     `predict()` use; the other fields describe the unshifted fit.}
#'   \item{logLik}{log marginal likelihood at the optimum (its Laplace
#'     approximation for binomial and poisson fits).}
#'   \item{trace}{data frame per iteration: `log_posterior` (what the solver
#'     maximised, as `log_posterior` above; `logLik`, its former name, is
#'     kept as a copy for one release), `relevant`, `noise`
#'     (variance) and `action`. A binomial or poisson fit of `"fast"`, in
#'     memory or from [data_chunks()], has one row per pass over the rows:
#'     `"re-estimate"` (new alphas at the pass's curvature, and the Newton
#'     step at them), `"mode search"` (a damped Newton step at fixed alphas
#'     that raised the log posterior), `"rejected"` (a step that did not,
#'     or new alphas whose mode had lower evidence) and `"terminate"` (the
#'     pass at the weights returned, where Sigma and the evidence are
#'     taken); a multiclass fit marks `"rejected"` its batches of steps at
#'     fixed curvature undone because the evidence at the new posterior mode
#'     fell, and `"mode search"` the steps that re-find the mode.}
#'   \item{converged, iterations}{whether the solver met its convergence
#'     rule, and how many iterations it took.}
#'   \item{jitter_events}{Cholesky factorisations that needed jitter.}
#'   \item{x, y, scaling}{training data and input scaling, for `predict`
#'     and `plot`.}
#'   \item{centres}{the centres of the kernels (in the units of `x`), or
#'     `NULL` when they are the training inputs.}
#'   and, for the formula method, `terms`, `xlevels`, `contrasts` and
#'   `na.action`.
#' @references
#' Tipping, M. E. (2001). Sparse Bayesian learning and the relevance vector
#' machine. *Journal of Machine Learning Research*, 1, 211--244.
#' \doi{10.1162/15324430152748236}
#'
#' Tipping, M. E. and Faul, A. C. (2003). Fast marginal likelihood
#' maximisation for sparse Bayesian models. *AISTATS 2003*.
#' @seealso [predict.sb_rvm()], [summary.sb_rvm()], [plot.sb_rvm()], [kernels].
#' @examples
#' set.seed(1)
#' x <- runif(100, -10, 10)
#' y <- sin(x) / x + rnorm(100, sd = 0.1)
#' fit <- rvm(x, y, kernel = kernel_gaussian(3), scale = FALSE)
#' fit
#' predict(fit, c(-5, 0, 5), interval = "prediction")
#'
#' fit2 <- rvm(accel ~ times, data = MASS::mcycle)
#' summary(fit2)
#'
#' # classification: Ripley's synthetic data
#' cls <- rvm(yc ~ xs + ys, data = transform(MASS::synth.tr, yc = factor(yc)),
#'            kernel = kernel_gaussian(0.5), scale = FALSE)
#' mean(predict(cls, MASS::synth.te) != MASS::synth.te$yc)
#' @export
rvm <- function(x, ...) UseMethod("rvm")

#' @rdname rvm
#' @export
rvm.formula <- function(formula, data, subset, weights, na.action, offset, ...) {
  if (!missing(data) && inherits(data, "sb_chunks"))
    return(fit_chunks(match.call(), parent.frame(), data, rvm.default, "rvm", ..., sample_size = chunk_width_rows,
                      copies = chunk_may_pool(list(...)$family), classes = TRUE))
  fit_formula(match.call(), parent.frame(), rvm.default, "rvm", ...)
}

#' @rdname rvm
#' @export
rvm.default <- function(x = NULL, y, kernel = "gaussian", bias = TRUE, scale = TRUE, family = NULL,
                        prior = "auto", method = "fast",
                        noise = c("shared", "sample", "student"), gradient_form = c("primal", "dual"),
                        basis = NULL, centres = NULL, control = NULL, weights = NULL, offset = NULL, objective = NULL,
                        multiclass = c("multinomial", "multinomial_shared", "one_vs_rest"), ...) {
  beat_while("rvm()")  # progress from the core while this fit runs
  multiclass <- match_arg(multiclass)
  method <- match_method(method)
  noise <- match_arg(noise)
  old <- deprecated_objective(objective, "rvm")
  gradient_form <- if (!is.null(old) && missing(gradient_form)) old else match_arg(gradient_form)
  check_dots_empty(...)
  problem <- rvm_problem(list(x = x, y = y, kernel = kernel, bias = bias, scale = scale, family = family, prior = prior,
                              method = method, noise = noise, gradient_form = gradient_form, basis = basis, centres = centres,
                              control = control, weights = weights, offset = offset, multiclass = multiclass))
  call <- generic_call(match.call(), "rvm")
  if (any(vapply(problem$kernels, is_evidence_width, logical(1))))  # a width chosen by the evidence
    return(rvm_width_search(problem, call))  # R/width_search.R
  problem <- width_multiple(learn_widths(problem))  # R/learn_widths.R
  problem <- chunk_basis_widths(problem)  # R/chunks.R: the basis widths of a fit from chunks
  candidates <- learned_kernel_candidates(problem)
  if (length(candidates$problems) == 1L) {
    p <- candidates$problems[[1L]]
    return(temper_fit(fit_rvm(p, call), p, call))  # R/temperature.R
  }
  designs <- shared_designs(candidates$problems)
  fit_candidates(candidates, function(p) fit_rvm(p, call, designs$of(p)),
                 function(fit, p) designs$of(p)$Phi[, fit$relevant, drop = FALSE])
}

# The stages of an rvm() fit: design (the kernels' basis) -> problem
# (rvm_problem(), a checked "sb_problem") -> statistics (basis_statistics())
# -> solve (fit_basis()) -> fit object (fit_rvm()).

# The checked problem of an rvm() call (`a`: rvm.default()'s arguments):
# everything a fit needs but the basis matrix. The data (x, their scaling,
# the scaled xs, the rows in the fit, the encoded response, weights and
# offset `wo`), the basis specification (the resolved `kernels`, a list even
# for one kernel; widths "learn" and "evidence" are left for learn_widths()
# and the width search; `bias`, `centres`, or a user-supplied basis `Phi`,
# and `shortcut`, the O(N) wavelet path), the likelihood (`family`), the
# noise model, the prior (`prior`, its `smoothness` and `level_prior`) and
# the solver specification (solver_spec()). From a chunk source, the rows
# are its sample and `source` says what the source sets (chunk_rvm_rows()).
rvm_problem <- function(a) {
  a <- chunk_rvm_rows(a)  # R/chunks.R
  source <- a$source
  method <- a$method
  noise <- a$noise
  control <- solver_control(a$control, method)
  control$outlier_class <- control$outlier_class %||% FALSE
  family <- resolve_family(a$family, a$y)
  gaussian <- has_noise(family)
  if (!gaussian && (per_sample_noise(noise) || !method_supports(method, "non_gaussian")))
    stop_arg("family", sprintf("must be gaussian for method = \"%s\" with noise = \"%s\" (binomial and poisson fits take ",
                               method, noise), "noise = \"shared\" and method ", methods_supporting("non_gaussian"), ").")
  check_noise_control(control, noise, method)
  x <- a$x
  bias <- a$bias
  centres <- a$centres
  if (is.null(a$basis)) {
    if (is.null(x)) stop_arg("x", "is NULL; give inputs or a `basis` matrix.")
    x <- check_numeric_matrix(x, "x")
    kernels <- as_dictionary(a$kernel)
    check_flag(bias)
    check_flag(a$scale, "scale")
    if (any(vapply(kernels, is_wavelet, logical(1)))) bias <- FALSE  # wavelets hold the constant
    # Rows of weight 0 are not in the fit: the scaling (weighted moments, so that
    # integer weights act as copies), the width heuristic and the centres see
    # only the others.
    case_weights <- check_weights(a$weights, nrow(x))
    in_fit <- if (is.null(case_weights)) rep(TRUE, nrow(x)) else case_weights > 0
    scaling <- input_scaling(x, a$scale, weights = case_weights, moments = source$moments)
    xs <- apply_scaling(x, scaling)
    # The default width of a single gaussian, laplace or cauchy kernel:
    # learned (R/learn_widths.R), one per input in a regression, one for all
    # inputs in a classifier (per input lost on held-out data there:
    # bench/RESULTS.md).
    classes <- likelihood_of(family)$classes
    learn_default <- (gaussian || classes) && length(kernels) == 1L && is.null(kernels[[1L]]$width) &&
      is_learnable(kernels[[1L]])
    if (learn_default) kernels[[1L]]$width <- if (classes) "learn_one" else "learn"
    kernels <- lapply(kernels, resolve_kernel, x = xs[in_fit, , drop = FALSE])
    centres <- resolve_centres(centres, x, xs, scaling, kernels, in_fit)
    if (!is.null(source)) centres <- centres %||% x  # a basis formed chunk by chunk needs its centres
    Phi <- NULL
  } else {
    if (!is.null(centres)) stop_arg("centres", "must be NULL with a user-supplied `basis`.")
    Phi <- check_numeric_matrix(a$basis, "basis")
    if (!is.null(x)) x <- check_numeric_matrix(x, "x")
    kernels <- list()
    learn_default <- FALSE
    in_fit <- NULL
    bias <- FALSE
    scaling <- NULL
    xs <- NULL
  }
  n <- if (is.null(Phi)) nrow(x) else nrow(Phi)
  y <- encode_response(a$y, n, family)
  wo <- check_weights_offset(a$weights, a$offset, n)
  check_noise_response(y, noise, wo$weights)
  # Equal weights are no weights with shared noise (relative_weights()): a
  # single wavelet dictionary keeps its O(N) path with them.
  single_wavelet <- length(kernels) == 1L && is_wavelet(kernels[[1L]])
  equal_weights <- is.null(wo$weights) || !per_sample_noise(noise) && gaussian && all(wo$weights == wo$weights[1L])
  # The O(N) path on a single orthonormal wavelet basis (an equally weighted
  # grid, the fast solver, shared noise): no basis matrix is formed.
  shortcut <- single_wavelet && control$orthonormal_shortcut && gaussian && !method_supports(method, "batch") &&
    !per_sample_noise(noise) && equal_weights
  if (single_wavelet && isTRUE(kernels[[1L]]$translation_invariant) && !shortcut)
    stop_arg("kernel", "is translation invariant, which needs the O(N) wavelet path: a single wavelet dictionary, ",
             "method = \"fast\", noise = \"shared\" and no weights or equal weights.")
  if (single_wavelet && !equal_weights && bitwAnd(n, n - 1L) != 0L)
    stop_arg("weights", sprintf(paste0(
      "are not all equal: a wavelet fit with unequal weights runs on the dense basis, without the O(N) path's ",
      "padding, and needs a power of two of rows (%d here). Give equal weights (or none), or %d or %d points."),
      n, padded_size(n) %/% 2L, padded_size(n)))
  prior <- a$prior
  level_prior <- wavelet_level_prior(prior, n, shortcut)
  # "auto": "adaptive" on the O(N) wavelet path; a single wavelet dictionary
  # fitted without it (unequal weights, orthonormal_shortcut = FALSE) keeps a
  # smoothness prior, "BIC" (Schmolck and Everson's default for such
  # dictionaries; without a prior the fit interpolates); "none" elsewhere.
  if (is.null(level_prior) && identical(prior, "auto"))
    prior <- if (single_wavelet && gaussian && !per_sample_noise(noise) && method_supports(method, "smoothness")) "BIC"
             else "none"
  # counted on every row (a chunk source's, not its sample's)
  smoothness <- if (is.null(level_prior))
                  smoothness_constant(prior, source$rows %||% n, choices = c("auto", "none", "AIC", "BIC", "RIC", "adaptive"))
                else level_prior$smoothness
  if (any(smoothness > 0) && !gaussian) stop_arg("prior", "must be \"none\" for the binomial and poisson families.")
  if (any(smoothness > 0) && !method_supports(method, "smoothness"))
    stop_arg("prior", "needs method = ", methods_supporting("smoothness"), ".")
  if (any(smoothness > 0) && per_sample_noise(noise)) stop_arg("prior", "needs noise = \"shared\".")
  multiclass <- if (is.factor(y) && nlevels(y) > 2L) check_multinomial(a$multiclass %||% "multinomial", method, wo)
  new_sb_problem("rvm", x = x, xs = xs, y = y, scaling = scaling, in_fit = in_fit, n = n, wo = wo,
                 multiclass = multiclass, kernels = kernels, learn_default = learn_default, bias = bias,
                 centres = centres, Phi = Phi, shortcut = shortcut, family = family, noise = noise, prior = prior,
                 level_prior = level_prior, smoothness = smoothness, solver = solver_spec(method, control, a$gradient_form),
                 chunks = source$chunks, width_rows = if (learn_default) source$width_rows)
}

# The kernel of a problem as a fit stores it: the single kernel, the list of
# a dictionary's kernels, or NULL with a user-supplied basis.
problem_kernel <- function(p) if (!length(p$kernels)) NULL else if (length(p$kernels) == 1L) p$kernels[[1L]] else p$kernels

# The problem with its (single) kernel replaced.
with_kernel <- function(p, kernel) {
  p$kernels <- list(kernel)
  p
}

# The design stage: the basis of a problem's kernels (NULL on the O(N)
# wavelet path, which forms none), the names of its columns, the wavelet
# path's settings, and the rows that name the basis rows (the inputs; the
# basis itself when the user gave one). From a chunk source, no basis
# matrix but its statistics, or its passes (basis_of()).
rvm_design <- function(p) {
  kernel <- problem_kernel(p)
  Phi <- p$Phi
  formed <- if (is.null(Phi) && !p$shortcut) basis_of(p)  # R/chunks.R
  Phi <- formed$Phi %||% Phi
  wavelet <- if (p$shortcut) c(list(family = kernel$family, order = wavelet_grid_order(p$x, any_length = TRUE),
                                    invariant = isTRUE(kernel$translation_invariant)), p$level_prior)
  names <- if (!is.null(colnames(Phi))) colnames(Phi)
           else if (is.null(kernel)) paste0("b", seq_len(ncol(Phi)))
           else basis_names_of(kernel, p$bias, if (p$shortcut) padded_size(p$n) else p$n, p$centres)
  list(Phi = Phi, names = names, wavelet = wavelet, rows = if (is.null(kernel)) Phi else p$x,
       statistics = formed$statistics, passes = formed$passes)
}

# The designs of several problems (candidates that differ in their noise
# start or their kernel widths), each basis built once per distinct kernel
# and, for a numeric gaussian response, its statistics computed once:
# `of(p)` gives a problem's design.
shared_designs <- function(problems) {
  kernels <- list()
  designs <- list()
  of <- function(p) {
    i <- Position(function(k) identical(k, p$kernels), kernels)
    if (is.na(i)) {
      d <- rvm_design(p)
      if (is.null(d$statistics) && has_noise(p$family) && is.null(d$wavelet) && !is.factor(p$y)) {
        d$statistics <- basis_statistics(d$Phi, p$y, p$noise, p$wo, d$rows)
        d$statistics$products <- .sb_column_products()  # the candidates' fast fits share Phi' phi_m
      }
      kernels[[length(kernels) + 1L]] <<- p$kernels
      designs[[length(designs) + 1L]] <<- d
      i <- length(designs)
    }
    designs[[i]]
  }
  list(of = of)
}

# The fit of a problem (rvm_problem()) on its design (rvm_design()): one
# model (regression, two classes, the multinomial model of more) or one per
# class against the rest; `call` is stored in the fit.
fit_rvm <- function(p, call, design = rvm_design(p)) {
  kernel <- problem_kernel(p)
  family <- p$family
  method <- p$solver$method
  y <- p$y
  # positive: the class code of the target's 1s, for a binomial fit from chunks;
  # res: the solver's result (a multinomial fit's view of one class)
  fit_one <- function(target, statistics = NULL, positive = 1L,
                      res = if (!is.null(design$passes)) design$passes(positive)  # a chunk source's, R/chunks.R
                            else fit_basis(design$Phi, target, family, p$solver, p$noise, p$smoothness, p$wo,
                                           design$wavelet, rows = design$rows, statistics = statistics,
                                           join = p$join)) {
    core <- model_fields(res, target, design$names, family, method, p$noise, p$solver$control)
    relevance_index <- integer(0)
    if (!is.null(kernel) && !p$shortcut) {
      parts <- column_parts(list(relevant = core$relevant, bias = p$bias, x = p$x, centres = p$centres, kernel = kernel))
      is_kernel_part <- parts$part > 0L
      is_kernel_part[is_kernel_part] <- !vapply(as_dictionary(kernel)[parts$part[is_kernel_part]], is_wavelet,
                                                logical(1))
      relevance_index <- unique(parts$index[is_kernel_part])
    }
    fit <- c(list(call = call, kernel = kernel), core,
             list(gradient_form = fit_gradient_form(p$solver), bias = p$bias,
                  relevance_index = relevance_index, x = p$x, scaling = p$scaling, centres = p$centres))
    fit$objective <- fit$gradient_form  # deprecated copy under the former name, for one release
    fit$prior <- if (!is.null(p$level_prior)) p$level_prior$label else if (is.character(p$prior)) p$prior
                 else p$smoothness
    fit$smoothness <- if (is.null(res$level_smoothness)) p$smoothness else res$level_smoothness
    if (!is.null(res$inclusion)) fit$inclusion <- stats::setNames(res$inclusion, names(fit$weights))
    if (!is.null(res$invariant)) fit$invariant <- res$invariant
    fit$checkpoint <- res$checkpoint  # with p$join: the solver's state there (fit_candidates())
    fit <- add_weights_offset(fit, p$wo, res$standard_units)
    fit <- chunk_fit_fields(fit, p$chunks, res)  # R/chunks.R
    class(fit) <- c("sb_rvm", "sparsebayes")
    if (is.null(res$class_view)) warn_not_converged(fit, res)
    fit
  }
  if (!is.factor(y)) return(fit_one(y, design$statistics))
  if (nlevels(y) == 2L) {
    fit <- fit_one(as.numeric(y == levels(y)[2L]))
    fit$levels <- levels(y)
    return(fit)
  }
  if (p$multiclass != "one_vs_rest") return(fit_multinomial(p, call, design, fit_one))  # R/multiclass.R
  # One model per class against the rest; predict normalises their
  # probabilities. The classes are fitted through future.apply, so a
  # future::plan() fits them in parallel; the fits draw no random numbers,
  # so every plan gives the same models.
  models <- future.apply::future_lapply(levels(y), function(k) {
    fit <- fit_one(as.numeric(y == k), positive = match(k, levels(y)) - 1L)
    fit$levels <- c(paste0("not ", k), k)
    fit
  }, future.seed = NULL)
  names(models) <- levels(y)
  structure(list(call = call, models = models, levels = levels(y), y = y, x = p$x, kernel = kernel,
                 family = family, method = method, multiclass = "one_vs_rest"),
            class = c("sb_rvm_multiclass", "sparsebayes"))
}

# The prior of a fit on the O(N) wavelet path: NULL for a single constant
# (elsewhere, or "none", "AIC", "BIC", "RIC", a number), else list(smoothness
# = one constant per level (the scaling coefficient, then the detail levels
# coarse to fine), learn, label). "auto" is "adaptive" on that path and
# "none" elsewhere.
wavelet_level_prior <- function(prior, n, shortcut) {
  levels <- if (shortcut) round(log2(padded_size(n))) + 1L
  if (is.character(prior) && length(prior) == 1L && prior %in% c("auto", "adaptive")) {
    if (!shortcut && prior == "adaptive")
      stop_arg("prior", "\"adaptive\" learns one constant per resolution level of a wavelet basis; it needs a ",
               "single kernel_wavelet() dictionary, method = \"fast\", noise = \"shared\" and no weights or equal ",
               "weights (unequal weights: give \"BIC\", the default there, or another single constant).")
    if (!shortcut) return(NULL)
    return(list(smoothness = rep(log(n), levels), learn = TRUE, label = "adaptive"))
  }
  if (!is.numeric(prior) || length(prior) <= 1L) return(NULL)
  if (!shortcut || length(prior) != levels)
    stop_arg("prior", sprintf("has %d values; several constants are for a wavelet basis, one per level (%s).",
                              length(prior), if (shortcut) sprintf("%d here", levels) else "none here"))
  if (anyNA(prior) || any(!is.finite(prior)) || any(prior < 0)) stop_arg("prior", "must hold finite numbers >= 0.")
  list(smoothness = as.numeric(prior), learn = FALSE, label = "by level")
}

# c of the smoothness prior p(alpha | sigma^2) ~ exp(-c DF) for n observations
# and d candidate columns (an RVM's kernels are its n rows); `choices` names
# the prior's values the caller accepts, for the error.
smoothness_constant <- function(prior, n, d = n, choices = c("none", "AIC", "BIC", "RIC")) {
  if (is.character(prior) && length(prior) == 1L && !is.na(prior)) {
    c_value <- switch(prior, none = 0, AIC = 1, BIC = log(n) / 2, RIC = log(d), NA)
    if (is.na(c_value))
      stop_arg("prior", sprintf("must be %s or a number >= 0; got \"%s\".", paste0("\"", choices, "\"", collapse = ", "),
                                prior))
    return(c_value)
  }
  check_number(prior, "prior", lower = 0)
  prior
}

# Names of the design columns: "(bias)", then the training row of each
# kernel ("c" and its number for a kernel on candidate centres), prefixed by
# the kernel type in a dictionary ("haar:17", "gaussian:c3").
basis_names_of <- function(kernel, bias, n, centres = NULL) {
  kernels <- as_dictionary(kernel)
  ids <- if (is.null(centres)) as.character(seq_len(n)) else centre_names(centres)
  labels <- lapply(kernels, function(k) {
    tag <- if (is_wavelet(k)) k$family else k$type
    if (length(kernels) == 1L && !is_wavelet(k)) ids else paste0(tag, ":", ids)
  })
  c(if (bias) "(bias)", unlist(labels))
}

check_dots_empty <- function(...) {
  dots <- list(...)
  if (length(dots) > 0L) {
    nm <- names(dots)
    what <- if (is.null(nm) || any(!nzchar(nm))) "unnamed arguments" else paste0("`", nm, "`", collapse = ", ")
    stop(sprintf("unknown argument(s): %s.", what), call. = FALSE)
  }
}
