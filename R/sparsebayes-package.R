#' sparsebayes: sparse Bayesian learning
#'
#' Sparse linear-in-the-weights models whose weights each have their own
#' prior precision, learned by maximising the marginal likelihood (the
#' evidence): most precisions grow without bound and their weights are
#' pruned. The numerical work is C++ (Eigen); every model is an S3 object
#' with formula and matrix interfaces.
#'
#' @section Models:
#' * [rvm()]: the relevance vector machine, a kernel (or dictionary of
#'   kernels, or any basis) centred on the training inputs or on
#'   [kmeans_centres()]; gaussian, binomial (two or more classes) and
#'   poisson families; the fast sequential solver of Tipping and Faul by
#'   default, the re-estimation of Tipping (2001) as `method = "mackay"`;
#'   the smoothness prior of Schmolck and Everson through `prior =`.
#' * [ard()]: ARD regression on the columns of a model matrix (or
#'   [rff_features()]), with joint model-and-data ARD: `noise = "sample"`
#'   learns a noise variance per sample, `noise = "student"` puts an
#'   inverse-gamma prior on them (Student-t noise). Solvers `"em"`,
#'   `"mackay"`, `"irls2"`, `"irls1"`, `"gradient"`, `"fast"`.
#' * [sparse_gp()]: Gaussian process regression with inducing points, VFE
#'   or FITC, in O(n m^2).
#'
#' @section Coming from another package:
#' | you use | here |
#' | --- | --- |
#' | `kernlab::rvm()`, caret's `rvmRadial` | [rvm()]; `caret::train(x, y, method = sparsebayes_caret("rvm"))` ([sparsebayes_caret()]) |
#' | scikit-learn's `ARDRegression` | [ard()] |
#' | GPflow's (or GPyTorch's) `SGPR` | [sparse_gp()] (`approx = "VFE"`) |
#' | `robustbase::lmrob()` | `ard(noise = "student")`, `rvm(noise = "student")`, [outliers()] |
#' | `EbayesThresh`, `wavethresh` thresholding | `rvm(x, y, kernel = kernel_wavelet("symmlet8"))` ([kernel_wavelet()]) |
#'
#' @section Kernels and bases:
#' [kernels] (`kernel_gaussian()`, `kernel_laplace()`, `kernel_cauchy()`,
#' `kernel_polynomial()`, `kernel_linear()`, `kernel_lspline()`,
#' `kernel_tpspline()`), [kernel_wavelet()], [kernel_matrix()],
#' [kmeans_centres()], [rff_features()]. The width of a kernel may be
#' chosen by the evidence (`width = "evidence"`) or by [cross_validate()].
#'
#' @section Using a fit:
#' `print()`, `summary()`, `plot()`, `predict()` (with `interval =`),
#' `coef()`, `vcov()`, `fitted()`, `residuals()` (including leave-one-out),
#' `logLik()` (the log evidence), `nobs()`, `update()`,
#' [relevance_vectors()], and the diagnostics [ess()] (effective support
#' size of the weights and of the samples), [hatvalues()][hatvalues.sparsebayes]
#' (leverage) and [outliers()]. [cross_validate()] scores fits over folds and
#' a grid of settings, in parallel through `future`.
#'
#' @section Data and protocols:
#' [make_signal()] (the test signals of the smooth-RVM paper) and
#' [contaminate()] (outliers as in the joint-ARD paper).
#'
#' @section Options:
#' `sparsebayes.threads`: threads for kernel matrices (default
#' [parallelly::availableCores()]).
#'
#' Start with `vignette("sparsebayes")`, the user's guide.
#'
#' @references
#' Tipping, M. E. (2001). Sparse Bayesian learning and the relevance vector
#' machine. *Journal of Machine Learning Research*, 1, 211--244.
#' \doi{10.1162/15324430152748236}
#'
#' Tipping, M. E. and Faul, A. C. (2003). Fast marginal likelihood
#' maximisation for sparse Bayesian models. *Proceedings of the Ninth
#' International Workshop on Artificial Intelligence and Statistics*.
#'
#' Schmolck, A. and Everson, R. (2007). Smooth relevance vector machine: a
#' smoothness prior extension of the RVM. *Machine Learning*, 68, 107--135.
#' \doi{10.1007/s10994-007-5012-z}
#'
#' Timans, A., Möllenhoff, T., Naesseth, C. A., Khan, M. E. and Nalisnick,
#' E. (2026). Joint model and data sparsification via the marginal
#' likelihood. \doi{10.48550/arXiv.2605.29908}
#'
#' Titsias, M. (2009). Variational learning of inducing variables in sparse
#' Gaussian processes. *Proceedings of the Twelfth International Conference
#' on Artificial Intelligence and Statistics*, PMLR 5, 567--574.
#'
#' @useDynLib sparsebayes, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats coef fitted logLik nobs predict residuals vcov
"_PACKAGE"
