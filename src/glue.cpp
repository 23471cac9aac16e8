// Thin Rcpp glue: R objects <-> Eigen, core exceptions -> R errors.
// All modelling logic lives in inst/include/sparsebayes/.
#include <RcppEigen.h>

#include <sparsebayes/fit.hpp>
#include <sparsebayes/kernels.hpp>
#include <sparsebayes/scan.hpp>

#include "r_kernel.h"

#include "r_interrupt.h"

// [[Rcpp::depends(RcppEigen)]]

namespace {

sparsebayes::SolverOptions as_options(const Rcpp::List& c) {
  sparsebayes::SolverOptions o;
  o.max_iterations = Rcpp::as<int>(c["max_iterations"]);
  o.time_limit = Rcpp::as<double>(c["time_limit"]);
  o.zero_factor = Rcpp::as<double>(c["zero_factor"]);
  o.min_delta_log_alpha = Rcpp::as<double>(c["min_delta_log_alpha"]);
  o.min_delta_log_beta = Rcpp::as<double>(c["min_delta_log_beta"]);
  o.priority_addition = Rcpp::as<bool>(c["priority_addition"]);
  o.priority_deletion = Rcpp::as<bool>(c["priority_deletion"]);
  o.beta_update_start = Rcpp::as<int>(c["noise_update_start"]);
  o.beta_update_frequency = Rcpp::as<int>(c["noise_update_frequency"]);
  o.beta_max_factor = Rcpp::as<double>(c["beta_max_factor"]);
  o.alignment_test = Rcpp::as<bool>(c["alignment_test"]);
  o.alignment_max = Rcpp::as<double>(c["alignment_max"]);
  o.tolerance = Rcpp::as<double>(c["tolerance"]);
  o.smoothness = Rcpp::as<double>(c["smoothness"]);
  o.noise_shape = Rcpp::as<double>(c["noise_shape"]);
  o.noise_scale = Rcpp::as<double>(c["noise_scale"]);
  o.alpha_max = Rcpp::as<double>(c["alpha_max"]);
  if (c.containsElementNamed("n_effective")) o.n_effective = Rcpp::as<double>(c["n_effective"]);
  if (c.containsElementNamed("per_sample_noise")) {  // joint ARD settings (fast solver, per-sample noise)
    o.per_sample_noise = Rcpp::as<bool>(c["per_sample_noise"]);
    o.per_sample_start = Rcpp::as<int>(c["per_sample_start"]);
    o.lambda_min = Rcpp::as<double>(c["lambda_min"]);
    o.lambda_max = Rcpp::as<double>(c["lambda_max"]);
    o.eta_lambda = Rcpp::as<double>(c["eta_lambda"]);
    o.per_sample_tolerance = Rcpp::as<double>(c["per_sample_tolerance"]);
  }
  if (c.containsElementNamed("case_weights")) o.case_weights = Rcpp::as<Eigen::VectorXd>(c["case_weights"]);
  if (c.containsElementNamed("offset")) o.offset = Rcpp::as<Eigen::VectorXd>(c["offset"]);
  return o;
}

Rcpp::List as_list(const sparsebayes::FitResult& r) {
  Rcpp::IntegerVector relevant(r.relevant.size());
  for (std::size_t k = 0; k < r.relevant.size(); ++k) relevant[k] = static_cast<int>(r.relevant[k]) + 1;
  const std::size_t T = r.trace.size();
  Rcpp::NumericVector tr_ll(T), tr_noise(T);
  Rcpp::IntegerVector tr_n(T), tr_action(T);
  for (std::size_t i = 0; i < T; ++i) {
    tr_ll[i] = r.trace[i].log_ml;
    tr_n[i] = r.trace[i].n_relevant;
    tr_noise[i] = r.trace[i].noise_variance;
    tr_action[i] = r.trace[i].action;
  }
  return Rcpp::List::create(
      Rcpp::Named("relevant") = relevant, Rcpp::Named("mu") = r.mu, Rcpp::Named("Sigma") = r.Sigma,
      Rcpp::Named("alpha") = r.alpha, Rcpp::Named("beta") = r.beta, Rcpp::Named("log_ml") = r.log_ml,
      Rcpp::Named("log_posterior") = r.log_posterior, Rcpp::Named("fitted") = r.fitted, Rcpp::Named("iterations") = r.iterations,
      Rcpp::Named("converged") = r.converged, Rcpp::Named("jitter_events") = r.jitter_events,
      Rcpp::Named("mode_converged") = r.mode_converged, Rcpp::Named("lambda") = r.lambda,
      Rcpp::Named("trace") = Rcpp::List::create(Rcpp::Named("logLik") = tr_ll, Rcpp::Named("relevant") = tr_n,
                                                Rcpp::Named("noise") = tr_noise, Rcpp::Named("action") = tr_action));
}

sparsebayes::Progress make_progress(int verbose) {
  return [verbose](int it, const sparsebayes::TraceRow& row) {
    if (verbose > 0 && (it <= 1 || it % verbose == 0))
      Rprintf("iteration %5d  log objective %.6g  relevant %d  noise sd %.4g\n", it, row.log_ml, row.n_relevant,
              std::sqrt(row.noise_variance));
  };
}

}  // namespace

// Kernel basis between the rows of x and z, with a leading column of ones
// when bias is TRUE; written straight into R's memory.
// [[Rcpp::export(.sb_kernel_design)]]
Rcpp::NumericMatrix sb_kernel_design(Rcpp::List kernel, Eigen::Map<Eigen::MatrixXd> x, Eigen::Map<Eigen::MatrixXd> z,
                                     bool bias) {
  try {
    RInterruptScope interrupts;
    const sparsebayes::Kernel k = as_kernel(kernel);
    // Not zero-filled: the core writes every entry, block by block with interrupt checks.
    Rcpp::NumericMatrix out = Rcpp::no_init_matrix(x.rows(), z.rows() + (bias ? 1 : 0));
    Eigen::Map<Eigen::MatrixXd> K(out.begin(), out.nrow(), out.ncol());
    if (bias) K.col(0).setOnes();
    sparsebayes::fill_kernel_matrix(k, x, z, K, bias ? 1 : 0);
    return out;
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// [[Rcpp::export(.sb_fit)]]
Rcpp::List sb_fit(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t, std::string likelihood,
                  std::string method, Rcpp::List control, double fixed_noise, int verbose) {
  try {
    RInterruptScope interrupts;
    sparsebayes::SolverOptions opt = as_options(control);
    opt.fixed_noise = fixed_noise;
    return as_list(sparsebayes::fit_model(Phi, t, likelihood, method, opt, make_progress(verbose)));
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// The Laplace posterior mode for fixed precisions; exported for the tests
// that compare it with glm().
// [[Rcpp::export(.sb_laplace_mode)]]
Rcpp::List sb_laplace_mode(Eigen::Map<Eigen::MatrixXd> Phi, Eigen::Map<Eigen::VectorXd> t, std::string likelihood,
                           Eigen::Map<Eigen::VectorXd> alpha) {
  try {
    RInterruptScope interrupts;
    int jitter = 0;
    const sparsebayes::LaplacePosterior lp = sparsebayes::laplace_mode(
        sparsebayes::likelihood_from_name(likelihood), Phi, t, alpha, Eigen::VectorXd::Zero(Phi.cols()), jitter);
    return Rcpp::List::create(Rcpp::Named("mu") = lp.post.mu, Rcpp::Named("Sigma") = lp.post.Sigma,
                              Rcpp::Named("converged") = lp.converged,
                              Rcpp::Named("log_evidence") = sparsebayes::laplace_log_evidence(lp, alpha));
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// The smoothness-prior maximiser of l^(alpha) for given s, q, beta and c;
// exported for the tests that check it against a brute-force search.
// [[Rcpp::export(.sb_optimal_alpha)]]
double sb_optimal_alpha(double s, double q, double beta, double c) {
  return sparsebayes::optimal_alpha(s, q, beta, c, 0.0);
}

// Gaussian RVM on an orthonormal wavelet basis by the O(N) path; t in grid order.
// [[Rcpp::export(.sb_fit_wavelet)]]
Rcpp::List sb_fit_wavelet(Eigen::Map<Eigen::VectorXd> t, std::string family, Rcpp::List control, double fixed_noise,
                          int verbose) {
  try {
    RInterruptScope interrupts;
    sparsebayes::SolverOptions opt = as_options(control);
    opt.fixed_noise = fixed_noise;
    return as_list(sparsebayes::fit_wavelet(t, family, opt, make_progress(verbose)));
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// Columns `index` (1-based) of the N-point wavelet synthesis basis.
// [[Rcpp::export(.sb_wavelet_columns)]]
Eigen::MatrixXd sb_wavelet_columns(int N, std::string family, Rcpp::IntegerVector index) {
  try {
    RInterruptScope interrupts;
    std::vector<Eigen::Index> idx(index.size());
    for (R_xlen_t j = 0; j < index.size(); ++j) idx[j] = index[j] - 1;
    return sparsebayes::wavelet_columns(N, family, idx);
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// Forward wavelet transform of a signal of N = 2^J points.
// [[Rcpp::export(.sb_dwt)]]
Eigen::VectorXd sb_dwt(Eigen::Map<Eigen::VectorXd> t, std::string family) {
  try {
    RInterruptScope interrupts;
    return sparsebayes::dwt(t, family);
  } catch (const std::exception& e) {
    Rcpp::stop(e.what());
  }
}

// TRUE when a double vector or matrix holds no NA, NaN or infinite value;
// scans in place (no logical copy of a large input). Integers are finite
// unless NA.
// [[Rcpp::export(.sb_all_finite)]]
bool sb_all_finite(SEXP x) {
  RInterruptScope interrupts;
  if (TYPEOF(x) == REALSXP) return sparsebayes::all_finite(REAL(x), static_cast<std::size_t>(XLENGTH(x)));
  if (TYPEOF(x) == INTSXP || TYPEOF(x) == LGLSXP) {
    const int* p = TYPEOF(x) == INTSXP ? INTEGER(x) : LOGICAL(x);
    return std::find(p, p + XLENGTH(x), NA_INTEGER) == p + XLENGTH(x);
  }
  Rcpp::stop("expected a numeric vector or matrix");
}
