// Thin Rcpp glue for sparse Gaussian processes (core in sparse_gp.hpp).
#include <RcppEigen.h>

#include <sparsebayes/kernels.hpp>
#include <sparsebayes/laplace_gp.hpp>
#include <sparsebayes/sparse_gp.hpp>

#include "r_kernel.h"

#include "r_interrupt.h"

// [[Rcpp::depends(RcppEigen)]]

namespace {

// One entry of a settings list, read by its name.
template <typename T>
T gp_setting(const Rcpp::List& list, const char* name) {
  if (!list.containsElementNamed(name)) Rcpp::stop("internal: the GP settings lack '%s'", name);
  return Rcpp::as<T>(list[name]);
}

}  // namespace

// Objective (negative log marginal likelihood or negative VFE bound) and,
// with settings$gradient = TRUE, its derivatives c(log widths (one, or one per
// input), log variance, log noise, vec(inducing)) in one call, so optim's fn and gr share it.
// settings (R's gp_settings()): approx, jitter, gradient and threads (OpenMP
// threads over blocks of rows; same result for any number);
// workspace: NULL or a .sb_gp_workspace() that successive calls share.
// [[Rcpp::export(.sb_gp_objective)]]
Rcpp::List sb_gp_objective(Rcpp::List kernel, double noise, Eigen::Map<Eigen::MatrixXd> x,
                           Eigen::Map<Eigen::VectorXd> r, Eigen::Map<Eigen::MatrixXd> z,
                           Eigen::Map<Eigen::VectorXd> case_weights, Rcpp::List settings,
                           SEXP workspace = R_NilValue) {
  RInterruptScope interrupts;
  const std::string approx = gp_setting<std::string>(settings, "approx");
  const double jitter = gp_setting<double>(settings, "jitter");
  const bool gradient = gp_setting<bool>(settings, "gradient");
  const int threads = gp_setting<int>(settings, "threads");
  sparsebayes::GPWorkspace* buffers =
      Rf_isNull(workspace) ? nullptr : Rcpp::XPtr<sparsebayes::GPWorkspace>(workspace).checked_get();
  const sparsebayes::GPObjective o =
      sparsebayes::sparse_gp_objective(as_kernel(kernel), noise, x, r, z, case_weights,
                                       sparsebayes::gp_approx_from_name(approx), jitter, gradient, buffers,
                                       threads);
  Rcpp::NumericVector g;
  if (gradient) {
    const Eigen::Index nw = o.d_log_width.size(), nz = o.d_inducing.size();
    g = Rcpp::NumericVector(nw + 2 + nz);
    for (Eigen::Index i = 0; i < nw; ++i) g[i] = o.d_log_width(i);
    g[nw] = o.d_log_variance;
    g[nw + 1] = o.d_log_noise;
    for (Eigen::Index i = 0; i < nz; ++i) g[nw + 2 + i] = o.d_inducing.data()[i];
  }
  return Rcpp::List::create(Rcpp::Named("value") = o.value, Rcpp::Named("gradient") = g,
                            Rcpp::Named("jitter_events") = o.jitter_events);
}

// Buffers for repeated calls of .sb_gp_objective (freed with the pointer).
// [[Rcpp::export(.sb_gp_workspace)]]
SEXP sb_gp_workspace() { return Rcpp::XPtr<sparsebayes::GPWorkspace>(new sparsebayes::GPWorkspace(), true); }

// Posterior quantities for predict, hatvalues and LOO residuals: the
// predictor is (weights, chol, chol_b), plain matrices.
// [[Rcpp::export(.sb_gp_posterior)]]
Rcpp::List sb_gp_posterior(Rcpp::List kernel, double noise, Eigen::Map<Eigen::MatrixXd> x,
                           Eigen::Map<Eigen::VectorXd> r, Eigen::Map<Eigen::MatrixXd> z,
                           Eigen::Map<Eigen::VectorXd> case_weights, std::string approx, double jitter,
                           int threads = 1, bool row_variances = true) {
  RInterruptScope interrupts;
  const sparsebayes::GPPosterior p =
      sparsebayes::sparse_gp_posterior(as_kernel(kernel), noise, x, r, z, case_weights,
                                       sparsebayes::gp_approx_from_name(approx), jitter, threads, row_variances);
  return Rcpp::List::create(
      Rcpp::Named("value") = p.value, Rcpp::Named("weights") = p.weights, Rcpp::Named("chol") = p.chol,
      Rcpp::Named("chol_b") = p.chol_b, Rcpp::Named("fitted") = p.fitted, Rcpp::Named("fitted_var") = p.fitted_var,
      Rcpp::Named("lambda") = p.lambda, Rcpp::Named("pi_diag") = p.pi_diag, Rcpp::Named("pi_r") = p.pi_r,
      Rcpp::Named("qu_mean") = p.qu_mean, Rcpp::Named("qu_cov") = p.qu_cov, Rcpp::Named("edf") = p.edf,
      Rcpp::Named("jitter_events") = p.jitter_events);
}

// Latent predictive mean and variance (and, with full_cov, covariance) at
// new scaled inputs from a stored posterior (sparse_gp_predict).
// [[Rcpp::export(.sb_gp_predict)]]
Rcpp::List sb_gp_predict(Rcpp::List kernel, Eigen::Map<Eigen::MatrixXd> centres, Eigen::Map<Eigen::VectorXd> weights,
                         Eigen::Map<Eigen::MatrixXd> chol, Eigen::Map<Eigen::MatrixXd> chol_b,
                         Eigen::Map<Eigen::MatrixXd> x, bool variance, bool full_cov, int threads = 1) {
  RInterruptScope interrupts;
  const sparsebayes::GPPrediction p = sparsebayes::sparse_gp_predict(as_kernel(kernel), centres, weights, chol, chol_b,
                                                                     x, variance, full_cov, threads);
  return Rcpp::List::create(Rcpp::Named("mean") = p.mean, Rcpp::Named("var") = p.var,
                            Rcpp::Named("explained") = p.explained, Rcpp::Named("cov") = p.cov);
}

// The Laplace GP classifier's objective (-log q(t | X)) and, with
// gradient = TRUE, its derivatives c(log widths, log variance); `a` is the
// mode's K^-1 f, a warm start for the next call (laplace_gp.hpp).
// [[Rcpp::export(.sb_laplace_gp_objective)]]
Rcpp::List sb_laplace_gp_objective(Rcpp::List kernel, Eigen::Map<Eigen::MatrixXd> x, Eigen::Map<Eigen::VectorXd> t,
                                   Eigen::Map<Eigen::VectorXd> case_weights, double prior_mean,
                                   Eigen::Map<Eigen::VectorXd> start, bool gradient) {
  RInterruptScope interrupts;
  const sparsebayes::LaplaceGPObjective o =
      sparsebayes::laplace_gp_objective(as_kernel(kernel), x, t, case_weights, prior_mean, start, gradient);
  Rcpp::NumericVector g;
  if (gradient) {
    const Eigen::Index nw = o.d_log_width.size();
    g = Rcpp::NumericVector(nw + 1);
    for (Eigen::Index i = 0; i < nw; ++i) g[i] = o.d_log_width(i);
    g[nw] = o.d_log_variance;
  }
  return Rcpp::List::create(Rcpp::Named("value") = o.value, Rcpp::Named("gradient") = g, Rcpp::Named("a") = o.a,
                            Rcpp::Named("newton_steps") = o.newton_steps);
}

// The factor L of K_uu + jitter that every chunk's sums and the posterior
// from them share (detail::inducing_factor).
// [[Rcpp::export(.sb_gp_inducing_factor)]]
Rcpp::List sb_gp_inducing_factor(Rcpp::List kernel, Eigen::Map<Eigen::MatrixXd> z, double jitter) {
  sparsebayes::detail::SparseFactors f;
  sparsebayes::detail::inducing_factor(as_kernel(kernel), z, jitter, f);
  return Rcpp::List::create(Rcpp::Named("chol") = f.L, Rcpp::Named("jitter_events") = f.jitter_events);
}

// One chunk's sums over rows given L (detail::sparse_sums), as a list that
// R adds chunk by chunk.
// [[Rcpp::export(.sb_gp_sums)]]
Rcpp::List sb_gp_sums(Rcpp::List kernel, double noise, Eigen::Map<Eigen::MatrixXd> x, Eigen::Map<Eigen::VectorXd> r,
                      Eigen::Map<Eigen::MatrixXd> z, Eigen::Map<Eigen::VectorXd> case_weights, std::string approx,
                      Eigen::Map<Eigen::MatrixXd> chol, bool fit_sums, int threads = 1) {
  RInterruptScope interrupts;
  const sparsebayes::Kernel k = as_kernel(kernel);
  const sparsebayes::GPApprox a = sparsebayes::gp_approx_from_name(approx);
  sparsebayes::detail::check_gp_inputs(k, noise, x, r, z, case_weights, a);
  const sparsebayes::detail::SparseSums s =
      sparsebayes::detail::sparse_sums(k, noise, x, r, z, case_weights, a, chol, fit_sums, threads);
  return Rcpp::List::create(
      Rcpp::Named("E") = s.E, Rcpp::Named("alr") = s.alr, Rcpp::Named("weighted_trace") = s.weighted_trace,
      Rcpp::Named("log_lam") = s.log_lam, Rcpp::Named("r_lam_r") = s.r_lam_r, Rcpp::Named("rows") = s.rows,
      Rcpp::Named("weight_sum") = s.weight_sum, Rcpp::Named("log_weight_sum") = s.log_weight_sum,
      Rcpp::Named("fit_E") = s.fit_E, Rcpp::Named("fit_ar") = s.fit_ar, Rcpp::Named("fit_rr") = s.fit_rr);
}

// The posterior from the sums of every chunk (sparse_gp_posterior_from_sums).
// [[Rcpp::export(.sb_gp_posterior_from_sums)]]
Rcpp::List sb_gp_posterior_from_sums(double noise, Eigen::Map<Eigen::MatrixXd> chol, Rcpp::List sums,
                                     std::string approx) {
  const Eigen::MatrixXd E = Rcpp::as<Eigen::MatrixXd>(sums["E"]), fit_E = Rcpp::as<Eigen::MatrixXd>(sums["fit_E"]);
  sparsebayes::detail::SparseSums s(E.rows(), fit_E.size() > 0);
  s.E = E;
  s.alr = Rcpp::as<Eigen::VectorXd>(sums["alr"]);
  s.weighted_trace = Rcpp::as<double>(sums["weighted_trace"]);
  s.log_lam = Rcpp::as<double>(sums["log_lam"]);
  s.r_lam_r = Rcpp::as<double>(sums["r_lam_r"]);
  s.rows = Rcpp::as<double>(sums["rows"]);
  s.weight_sum = Rcpp::as<double>(sums["weight_sum"]);
  s.log_weight_sum = Rcpp::as<double>(sums["log_weight_sum"]);
  if (s.fit) {
    s.fit_E = fit_E;
    s.fit_ar = Rcpp::as<Eigen::VectorXd>(sums["fit_ar"]);
    s.fit_rr = Rcpp::as<double>(sums["fit_rr"]);
  }
  const sparsebayes::GPPosterior p = sparsebayes::sparse_gp_posterior_from_sums(
      noise, chol, s, sparsebayes::gp_approx_from_name(approx));
  return Rcpp::List::create(
      Rcpp::Named("value") = p.value, Rcpp::Named("weights") = p.weights, Rcpp::Named("chol") = p.chol,
      Rcpp::Named("chol_b") = p.chol_b, Rcpp::Named("qu_mean") = p.qu_mean, Rcpp::Named("qu_cov") = p.qu_cov,
      Rcpp::Named("edf") = p.edf, Rcpp::Named("rss") = p.rss, Rcpp::Named("jitter_events") = p.jitter_events);
}
