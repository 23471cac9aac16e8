#' Likelihoods: the families and links rvm() fits
#'
#' The `family` of [rvm()] is one of these family objects (or its name, for
#' the first link of a family). Each is a row of the core's likelihood table
#' (`kLikelihoods` in `inst/include/sparsebayes/likelihood.hpp`), which
#' holds its algebra (the IRLS weights, log-likelihood and start of a fit)
#' and the mean of its response under the posterior N(m, v) of the linear
#' predictor, which `predict(type = "response")` gives.
#'
#' | family | targets | response mean from N(m, v) |
#' | --- | --- | --- |
#' | `gaussian()` | real | `m` |
#' | `binomial()` (logit) | two classes | MacKay's moderated output `plogis(m / sqrt(1 + pi v / 8))` |
#' | `binomial(link = "probit")` | two classes | exactly `pnorm(m / sqrt(1 + v))` |
#' | `poisson()` (log) | counts | the log-normal mean `exp(m + v / 2)` |
#'
#' Non-Gaussian likelihoods are fitted by a Laplace approximation at the
#' posterior mode, found by penalised IRLS with glm()'s working weights
#' (the curvature, with a canonical link; Fisher's information with the
#' probit). A factor with more than two
#' levels is fitted by the multinomial (softmax) model or one binomial model
#' per class (`multiclass` of [rvm()]).
#' @name sparsebayes_families
#' @seealso [rvm()], [predict.sb_rvm()], [stats::family()].
NULL
