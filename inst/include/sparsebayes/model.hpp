// Options, results and the shared pieces of the sparse Bayesian linear model
//   t = Phi w + e,  w_j ~ N(0, 1/alpha_j),  e_i ~ N(0, 1/beta).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
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
  double lambda_min = 0.05;             // clipping of lambda_i, as multiples of the residuals' squared MAD
  double lambda_max = 1e20;
  double n_effective = -1.0;            // > 0: sum of prior weights, the N of the shared noise update
  double eta_lambda = 1.0;              // damping of log lambda
  double per_sample_tolerance = 1e-4;   // relative l_inf change of log lambda that ends the fit
  // Bernoulli and Poisson: case weights of the log-likelihood terms and an
  // offset of the linear predictor, one per observation (empty: none).
  Eigen::VectorXd case_weights;
  Eigen::VectorXd offset;
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

// Eigen's LLT computed by the same blocked algorithm (same panels, same
// operations, so the same factor) with an interrupt check between panels.
class CheckedLLT : public Eigen::LLT<Eigen::MatrixXd> {
 public:
  explicit CheckedLLT(const Eigen::MatrixXd& a) {
    const Eigen::Index size = a.rows();
    m_matrix = a;
    m_l1_norm = 0.0;
    for (Eigen::Index c = 0; c < size; ++c)
      m_l1_norm = std::max(m_l1_norm, m_matrix.col(c).tail(size - c).lpNorm<1>() + m_matrix.row(c).head(c).lpNorm<1>());
    m_isInitialized = true;
    m_info = factorise() ? Eigen::Success : Eigen::NumericalIssue;
  }

 private:
  bool factorise() {
    using inplace = Eigen::internal::llt_inplace<double, Eigen::Lower>;
    const Eigen::Index size = m_matrix.rows();
    if (size < 32) return inplace::unblocked(m_matrix) < 0;
    const Eigen::Index block = std::min<Eigen::Index>(std::max<Eigen::Index>((size / 8 / 16) * 16, 8), 128);
    for (Eigen::Index k = 0; k < size; k += block) {
      check_interrupt();
      const Eigen::Index bs = std::min(block, size - k), rs = size - k - bs;
      Eigen::Block<Eigen::MatrixXd> A11(m_matrix, k, k, bs, bs), A21(m_matrix, k + bs, k, rs, bs),
          A22(m_matrix, k + bs, k + bs, rs, rs);
      if (inplace::unblocked(A11) >= 0) return false;
      if (rs > 0) {
        A11.adjoint().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(A21);
        A22.selfadjointView<Eigen::Lower>().rankUpdate(A21, -1.0);
      }
    }
    return true;
  }
};

// Cholesky factor of M + j scale I, trying j = base first and then tenfold
// larger values from max(base, 1e-10), `attempts` tries in all. Every failed
// try is counted in `events`; `used` is the j that worked. False if none did.
inline bool jittered_cholesky(const Eigen::MatrixXd& M, double base, double scale, int attempts,
                              Eigen::LLT<Eigen::MatrixXd>& llt, int& events, double& used) {
  double j = base;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    check_interrupt();
    if (j > 0.0) {
      Eigen::MatrixXd Mj = M;
      Mj.diagonal().array() += j * scale;
      llt = CheckedLLT(Mj);
    } else {
      llt = CheckedLLT(M);
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

// Columns per panel so that one panel of an O(rows * cols * width) product
// is about 5e8 flops (a fraction of a second) between interrupt checks.
inline Eigen::Index interrupt_panel(Eigen::Index rows, Eigen::Index cols) {
  const double per_col = 2.0 * std::max<double>(1.0, static_cast<double>(rows)) * std::max<double>(1.0, cols);
  return std::max<Eigen::Index>(32, static_cast<Eigen::Index>(5e8 / per_col));
}

// A' A, by column panels with an interrupt check between them.
inline Eigen::MatrixXd gram_matrix(const Eigen::Ref<const Eigen::MatrixXd>& A) {
  const Eigen::Index S = A.cols(), w = interrupt_panel(A.rows(), S);
  Eigen::MatrixXd G(S, S);
  for (Eigen::Index j = 0; j < S; j += w) {
    check_interrupt();
    const Eigen::Index nb = std::min(w, S - j);
    G.middleCols(j, nb).noalias() = A.transpose() * A.middleCols(j, nb);
  }
  return G;
}

// H^-1 from the Cholesky factor of H, by column panels with an interrupt check between them.
inline Eigen::MatrixXd cholesky_inverse(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  const Eigen::Index S = llt.rows(), w = interrupt_panel(S, S);
  Eigen::MatrixXd out(S, S);
  for (Eigen::Index j = 0; j < S; j += w) {
    check_interrupt();
    const Eigen::Index nb = std::min(w, S - j);
    out.middleCols(j, nb) = llt.solve(Eigen::MatrixXd::Identity(S, S).middleCols(j, nb));
  }
  return out;
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
  p.Sigma = cholesky_inverse(llt);
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

// Robust scale of residuals for the noise clipping bounds: the squared MAD
// (times 1.4826^2, a variance for Gaussian residuals), falling back to the
// mean square when more than half the residuals are zero, and to 1e-300.
// Bounds relative to it never bind on well-specified data and are not
// inflated by outliers (as bounds relative to var(y) are).
inline double robust_residual_variance(const Eigen::Ref<const Eigen::VectorXd>& r) {
  const Eigen::Index n = r.size();
  if (n == 0) return 1.0;
  std::vector<double> a(r.data(), r.data() + n);
  auto median = [](std::vector<double>& v) {
    const std::size_t h = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + h, v.end());
    double m = v[h];
    if (v.size() % 2 == 0) m = 0.5 * (m + *std::max_element(v.begin(), v.begin() + h));
    return m;
  };
  const double med = median(a);
  for (Eigen::Index i = 0; i < n; ++i) a[i] = std::abs(r(i) - med);
  const double mad = 1.482602218505602 * median(a);
  double v = mad * mad;
  if (!(v > 0.0) || !std::isfinite(v)) v = r.squaredNorm() / static_cast<double>(n);
  if (!(v > 1e-300) || !std::isfinite(v)) v = 1e-300;
  return v;
}

// Scale of the targets with per-sample noise: the robust residual sd of
// t about its median (an outlier must not set the units), or its sd.
inline double robust_target_sd(const Eigen::Ref<const Eigen::VectorXd>& t) {
  const double v = robust_residual_variance(t);
  if (v > 1e-300 && std::isfinite(v)) return std::sqrt(v);
  return 1.0;
}

inline void check_inputs(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t) {
  if (Phi.rows() != t.size()) throw std::invalid_argument("the basis has a different number of rows than the targets");
  if (Phi.rows() < 2) throw std::invalid_argument("at least two observations are needed");
  if (Phi.cols() < 1) throw std::invalid_argument("the basis has no columns");
  if (!Phi.allFinite()) throw std::invalid_argument("the basis contains NA, NaN or infinite values");
  if (!t.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
}

}  // namespace sparsebayes
