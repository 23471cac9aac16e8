// Options, results and the shared pieces of the sparse Bayesian linear model
//   t = Phi w + e,  w_j ~ N(0, 1/alpha_j),  e_i ~ N(0, 1/beta).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "interrupt.hpp"

namespace sparsebayes {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLog2Pi = 1.8378770664093454836;

// Defaults mirror SparseBayes v2 (see DESIGN.md, "Reference constants").
struct SolverOptions {
  int max_iterations = 10000;
  double time_limit = 10000.0;          // seconds
  double zero_factor = 1e-12;           // q^2 - s must exceed this to count as positive
  double min_delta_log_alpha = 1e-3;    // fast: re-estimation convergence
  double min_delta_log_beta = 1e-6;     // a larger noise change cancels termination
  bool priority_addition = false;
  bool priority_deletion = true;
  int beta_update_start = 10;
  int beta_update_frequency = 5;
  double beta_max_factor = 1e6;         // beta <= beta_max_factor / var(t)
  bool alignment_test = true;
  double alignment_max = 1.0 - 1e-3;
  double fixed_noise = -1.0;            // > 0: noise variance held fixed at this value
  double smoothness = 0.0;              // c of the smoothness prior; 0 = classic RVM
  double noise_shape = 1e-4;            // g, h of the inverse-gamma noise prior used with c > 0,
  double noise_scale = 1e-4;            //   on the variance of the standardised targets
  double tolerance = 1e-6;              // mackay: max |delta log alpha| at convergence
  double alpha_max = 1e12;              // mackay: prune when alpha (unit-norm basis) exceeds this
  // fast solver with per-sample noise (joint ARD): B = diag(1 / lambda_i)
  bool per_sample_noise = false;
  int per_sample_start = 50;            // shared noise updates before the first per-sample one
  double lambda_min = 1e-3;             // clipping of lambda_i, as fractions of var(t)
  double lambda_max = 1e4;
  double eta_lambda = 1.0;              // damping of log lambda
  double per_sample_tolerance = 1e-4;   // relative l_inf change of log lambda that ends the fit
};

// One row of the per-iteration trace.
struct TraceRow {
  double log_ml;
  int n_relevant;
  double noise_variance;
  int action;  // see Action
};

enum Action { kReestimate = 0, kAdd = 1, kDelete = 2, kAlignmentSkip = 3, kNoiseOnly = 4, kTerminate = 5, kRejected = 6,
             kModeSearch = 7 };

// Called once per iteration; may throw to abort (e.g. on a user interrupt).
using Progress = std::function<void(int iteration, const TraceRow&)>;

struct FitResult {
  std::vector<Eigen::Index> relevant;  // 0-based columns of Phi, in order of inclusion
  Eigen::VectorXd mu;                  // posterior mean of the relevant weights
  Eigen::MatrixXd Sigma;               // posterior covariance of the relevant weights
  Eigen::VectorXd alpha;               // all M precisions; +inf for pruned columns
  double beta = 0.0;                   // noise precision (1 / mean(lambda) with per-sample noise)
  Eigen::VectorXd lambda;              // per-sample noise variances (fast solver, per_sample_noise)
  double log_ml = 0.0;                 // log marginal likelihood, log p(t | alpha, beta)
  double log_posterior = 0.0;          // log_ml plus the log priors (= log_ml without a prior)
  Eigen::VectorXd fitted;              // linear predictor Phi mu
  int iterations = 0;
  bool converged = false;
  int jitter_events = 0;               // Cholesky factorisations that needed jitter
  bool mode_converged = true;          // non-Gaussian: the last posterior-mode search converged
  std::vector<TraceRow> trace;
};

// Cholesky factor of M + j scale I, trying j = base first and then tenfold
// larger values from max(base, 1e-10), `attempts` tries in all. Every failed
// try is counted in `events`; `used` is the j that worked. False if none did.
inline bool jittered_cholesky(const Eigen::MatrixXd& M, double base, double scale, int attempts,
                              Eigen::LLT<Eigen::MatrixXd>& llt, int& events, double& used) {
  double j = base;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    if (j > 0.0) {
      Eigen::MatrixXd Mj = M;
      Mj.diagonal().array() += j * scale;
      llt.compute(Mj);
    } else {
      llt.compute(M);
    }
    if (llt.info() == Eigen::Success && llt.matrixLLT().diagonal().minCoeff() > 0.0) {
      used = j;
      return true;
    }
    ++events;
    j = j > 0.0 ? j * 10.0 : 1e-10;
  }
  return false;
}

// Cholesky factor of a symmetric positive-definite H, retried with a growing
// jitter (1e-10 to 1e-2) scaled to H's diagonal when it fails; each retry is
// counted.
inline Eigen::LLT<Eigen::MatrixXd> robust_cholesky(const Eigen::MatrixXd& H, int& jitter_events) {
  Eigen::LLT<Eigen::MatrixXd> llt;
  double used = 0.0;
  const double scale = std::max(H.diagonal().cwiseAbs().mean(), 1e-300);
  if (jittered_cholesky(H, 0.0, scale, 10, llt, jitter_events, used)) return llt;
  throw std::runtime_error("the posterior precision matrix is not positive definite even with jitter; "
                           "the basis is probably degenerate (duplicated or constant columns)");
}

// Posterior of the weights on columns `used` of Phi, given their precisions
// alpha_used and the noise precision beta. PhiT_PhiU = Phi_used^T Phi_used,
// PhiU_t = Phi_used^T t.
struct Posterior {
  Eigen::MatrixXd Sigma;
  Eigen::VectorXd mu;
  double log_det_H = 0.0;  // log |beta Phi_u^T Phi_u + A|
};

inline Posterior weight_posterior(const Eigen::MatrixXd& PhiU_PhiU, const Eigen::VectorXd& PhiU_t,
                                  const Eigen::VectorXd& alpha_used, double beta, int& jitter_events) {
  Eigen::MatrixXd H = beta * PhiU_PhiU;
  H.diagonal() += alpha_used;
  const auto llt = robust_cholesky(H, jitter_events);
  Posterior p;
  p.Sigma = llt.solve(Eigen::MatrixXd::Identity(H.rows(), H.cols()));
  p.Sigma = 0.5 * (p.Sigma + p.Sigma.transpose());
  p.mu = beta * (p.Sigma * PhiU_t);
  p.log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  return p;
}

// log N(t | 0, 1/beta I + Phi_u A^-1 Phi_u^T), through the weight posterior.
inline double log_marginal_likelihood(const Posterior& p, const Eigen::VectorXd& alpha_used, double beta,
                                      double residual_ss, Eigen::Index n) {
  const double N = static_cast<double>(n);
  return 0.5 * (N * std::log(beta) - beta * residual_ss - N * kLog2Pi) -
         0.5 * (alpha_used.array() * p.mu.array().square()).sum() + 0.5 * alpha_used.array().log().sum() -
         0.5 * p.log_det_H;
}

// Maps the posterior of weights fitted on unit-norm columns (norms `scale`)
// and targets t / sd back to the caller's units: mu = sd mu~ / scale,
// Sigma likewise, precisions = precisions~ scale^2 / sd^2 (all columns).
inline void weights_to_caller_units(const std::vector<Eigen::Index>& relevant, const Eigen::VectorXd& scale,
                                    double sd, Eigen::VectorXd& mu, Eigen::MatrixXd& Sigma,
                                    Eigen::VectorXd& precisions) {
  const double v = sd * sd;
  Eigen::VectorXd inv_used(relevant.size());
  for (std::size_t k = 0; k < relevant.size(); ++k) inv_used(k) = 1.0 / scale(relevant[k]);
  mu = sd * mu.cwiseProduct(inv_used);
  Sigma = v * (inv_used.asDiagonal() * Sigma * inv_used.asDiagonal());
  precisions = precisions.cwiseProduct(scale.cwiseAbs2()) / v;
}

inline void check_inputs(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t) {
  if (Phi.rows() != t.size()) throw std::invalid_argument("the basis has a different number of rows than the targets");
  if (Phi.rows() < 2) throw std::invalid_argument("at least two observations are needed");
  if (Phi.cols() < 1) throw std::invalid_argument("the basis has no columns");
  if (!Phi.allFinite()) throw std::invalid_argument("the basis contains NA, NaN or infinite values");
  if (!t.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
}

}  // namespace sparsebayes
