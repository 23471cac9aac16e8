#' sparsebayes: sparse Bayesian learning
#'
#' Relevance vector machines fitted by the fast sequential
#' marginal-likelihood algorithm, with a C++ core.
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
#' @keywords internal
#' @useDynLib sparsebayes, .registration = TRUE
#' @importFrom Rcpp sourceCpp
#' @importFrom stats coef fitted logLik nobs predict residuals vcov
"_PACKAGE"
