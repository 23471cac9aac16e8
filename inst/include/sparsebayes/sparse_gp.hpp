// Sparse Gaussian process regression: the VFE bound (Titsias 2009), the FITC
// marginal likelihood (Snelson & Ghahramani 2006) and the exact GP, in the
// one formulation of the seeds' notes (sparse-gp-fitc-vfe-notes.md):
//
//   F = n/2 log 2pi + 1/2 log det(Q + Lam) + 1/2 r' (Q + Lam)^-1 r + T / (2 s2n)
//
// with Q = K_fu K_uu^-1 K_uf, Lam = s2n W^-1 (VFE) or diag(K_ff - Q) + s2n W^-1
// (FITC), T = tr(W (K_ff - Q)) (VFE) or 0 (FITC), where W = diag(w) holds
// case weights (point i has noise s2n / w_i; an empty w means all ones).
// F also carries (sum w - n) log(2 pi s2n) / 2 + sum log w / 2, so that
// integer weights give the objective of replicated rows (VFE, exact; FITC's
// correction is per row and does not replicate). For VFE and FITC only the m x m
// matrices K_uu (+ jitter) and B = I + A Lam^-1 A' (A = L_uu^-1 K_uf) are
// factorised, so every evaluation costs O(n m^2). "exact" factorises the
// n x n covariance K_ff + s2n I and is the reference for small n.
//
// Gradients: dF = 1/2 tr(W dSigma) (+ the trace term), W = Sigma^-1 - a a',
// a = Sigma^-1 r, pushed through Q into sensitivities G_uf (m x n, formed
// one block of training points at a time), G_uu (m x m), a diagonal G_ff and
// the noise; those are chained through the Gaussian kernel's derivatives
// w.r.t. log width, log variance and the inducing locations. For VFE and
// FITC, W (n x n) is never formed and memory is O(m^2 + m * block).
//
// Prediction (sparse_gp_predict) works from the stored Cholesky factors
// alone: with a = L^-1 k_u(x*), the latent mean is k_u(x*)' weights and the
// variance (k** - |a|^2) + |LB^-1 a|^2 (VFE, FITC; the exact GP: k** -
// |L^-1 k*|^2 with L the factor of the n x n covariance). No inverse is
// formed; the one exception is the note "The one explicit inverse" below.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "model.hpp"

namespace sparsebayes {

enum class GPApprox { vfe, fitc, exact };

inline GPApprox gp_approx_from_name(const std::string& name) {
  if (name == "VFE") return GPApprox::vfe;
  if (name == "FITC") return GPApprox::fitc;
  if (name == "exact") return GPApprox::exact;
  throw std::invalid_argument("unknown approximation '" + name + "' (use VFE, FITC or exact)");
}

struct GPObjective {
  double value = 0.0;          // negative log marginal likelihood (FITC, exact) or negative bound (VFE)
  Eigen::VectorXd d_log_width;  // derivatives of value: one per width (one, or one per input)
  double d_log_variance = 0.0;
  double d_log_noise = 0.0;
  Eigen::MatrixXd d_inducing;  // m x p (empty for exact)
  int jitter_events = 0;       // factorisations that needed more than the base jitter
};

// What predict, hatvalues and LOO need, at the hyperparameters given, from
// one factorisation. The predictor is (centres, weights, chol, chol_b): see
// sparse_gp_predict.
struct GPPosterior {
  double value = 0.0;
  Eigen::VectorXd weights;     // mean f* = K_*c weights, c = inducing points (training inputs for exact)
  Eigen::MatrixXd chol;        // lower Cholesky factor of K_uu + jitter (VFE, FITC) or of K_ff + s2n W^-1 (exact)
  Eigen::MatrixXd chol_b;      // lower Cholesky factor of B = I + A Lam^-1 A' (VFE, FITC; empty for exact)
  Eigen::VectorXd fitted;      // latent mean at the training inputs
  Eigen::VectorXd fitted_var;  // latent variance at the training inputs
  Eigen::VectorXd lambda;      // Lam: noise (+ FITC's diagonal correction) per training point
  Eigen::VectorXd pi_diag;     // diag((Q + Lam)^-1)
  Eigen::VectorXd pi_r;        // (Q + Lam)^-1 r
  Eigen::VectorXd qu_mean;     // q(u) = N(qu_mean, qu_cov) at the inducing points (empty for exact)
  Eigen::MatrixXd qu_cov;
  double edf = 0.0;  // sum of the leverages (VFE, FITC)
  double rss = std::numeric_limits<double>::quiet_NaN();  // sum_i w_i (r_i - f_i)^2 where the sums give it
  int jitter_events = 0;
};

// Latent predictive mean, variance and (on request) covariance at new inputs.
struct GPPrediction {
  Eigen::VectorXd mean;
  Eigen::VectorXd var;
  Eigen::VectorXd explained;  // |LB^-1 A|^2, the part of var that the data add (VFE, FITC)
  Eigen::MatrixXd cov;
};

namespace detail {

// Retries of jittered_cholesky (model.hpp): the jitter grows tenfold from its
// base, up to 1e6 times it.
constexpr int gp_jitter_attempts = 7;

inline std::runtime_error gp_cholesky_failure(const char* what) {
  return std::runtime_error(std::string("the Cholesky factorisation of ") + what +
                            " failed even with jitter; try fewer or more spread inducing points or a larger noise");
}

inline void check_gp_inputs(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                            const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::MatrixXd>& z,
                            const Eigen::Ref<const Eigen::VectorXd>& wt, GPApprox approx) {
  if (wt.size() != 0 && wt.size() != r.size())
    throw std::invalid_argument("case weights and response have different lengths");
  if (wt.size() != 0 && !((wt.array() > 0.0).all() && wt.allFinite()))
    throw std::invalid_argument("case weights must be positive and finite");
  if (!kernel_info(k.type).slope) throw std::invalid_argument("sparse GPs support a " + kernels_with_slope() + " kernel");
  if (!(noise > 0.0) || !std::isfinite(noise)) throw std::invalid_argument("noise variance must be positive");
  if (!(k.variance > 0.0)) throw std::invalid_argument("kernel variance must be positive");
  check_kernel_widths(k, x.cols());
  if (x.rows() != r.size()) throw std::invalid_argument("inputs and response have different lengths");
  if (approx != GPApprox::exact && (z.cols() != x.cols() || z.rows() < 1))
    throw std::invalid_argument("inducing points must have the inputs' number of columns");
}

// sum_jl G(j,l) dK(j,l) for K(j, l) = k(z_j, x_l), k = s2 f(rho) a gaussian
// (f = exp(-rho)), laplace (exp(-sqrt rho)) or cauchy (1 / (1 + rho))
// kernel of rho = sum_k (z_jk - x_lk)^2 / (r^2 v_k^2), v the per-input
// widths (all 1 with one width r; r = 1 with per-input widths). Adds the
// derivatives w.r.t. the log widths (one, or one per input) and log s2 and
// (when dz is not null) dz_factor times those w.r.t. the rows z_j. With
// H = G o (-2 s2 f'(rho)) and u = (z - x) / v on the scaled inputs:
// dk/dlog v_k = -2 s2 f' u_k^2, dk/dlog r = sum_k of those / r^2 and
// dk/dz_jk = 2 s2 f' u_k / (v_k r^2). G is overwritten.
inline void kernel_chain(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& z,
                         const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::Ref<const Eigen::MatrixXd>& K,
                         Eigen::Ref<Eigen::MatrixXd> G, Eigen::VectorXd& d_log_width, double& d_log_variance,
                         Eigen::MatrixXd* dz, double dz_factor) {
  const bool per_input = k.input_widths.size() > 0;
  const Eigen::MatrixXd zs = scaled_inputs(k, z), xs = scaled_inputs(k, x);
  const double r2 = per_input ? 1.0 : k.width * k.width;
  d_log_variance += (G.array() * K.array()).sum();
  scale_by_rho_slope(k, zs, xs, K, G);  // G becomes H = G o (-2 s2 f'(rho))
  if (dz) {
    for (Eigen::Index c = 0; c < xs.cols(); ++c) {
      double s = 0.0;
      for (Eigen::Index l = 0; l < xs.rows(); ++l) s += (G.col(l).array() * (zs.col(c).array() - xs(l, c)).square()).sum();
      d_log_width(per_input ? c : 0) += s / r2;
    }
    // d/dz_jk = sum_l H(j,l) (x_lk - z_jk) / (v_k r^2), on the scaled inputs
    Eigen::MatrixXd t = G * xs;  // z.rows x p
    t -= G.rowwise().sum().asDiagonal() * zs;
    if (per_input) t = t * k.input_widths.cwiseInverse().asDiagonal();
    *dz += dz_factor / r2 * t;
    return;
  }
  // Without inducing points (the exact and Laplace GPs, z = x, many inputs): sum_jl H(j,l)
  // (z_jc - x_lc)^2 = sum_j z_jc^2 h_j + sum_l x_lc^2 g_l - 2 z_c' (H x)_c, h and g H's row and
  // column sums, by one product H x (the SIMD path where the CPU has one; the direct sum took a
  // tenth of a width learner's evaluation at 13 inputs), on inputs centred at x's means, which the
  // distances do not see, so the terms cancel no more than the spread of the inputs makes them.
  // (With inducing points, two inputs and blocks of rows, the product was the slower.)
  const Eigen::RowVectorXd centre = xs.colwise().mean();
  const Eigen::MatrixXd zc = zs.rowwise() - centre, xc = xs.rowwise() - centre;
  Eigen::MatrixXd HX = Eigen::MatrixXd::Zero(G.rows(), xs.cols());
  if (!simd::multiply_add(G, xc, HX, 1.0)) HX.noalias() = G * xc;
  const Eigen::VectorXd h = G.rowwise().sum(), g = G.colwise().sum().transpose();
  for (Eigen::Index c = 0; c < xs.cols(); ++c) {
    const double s = zc.col(c).cwiseAbs2().dot(h) + xc.col(c).cwiseAbs2().dot(g) - 2.0 * zc.col(c).dot(HX.col(c));
    d_log_width(per_input ? c : 0) += s / r2;
  }
}

// Number of width parameters of a kernel: one, or one per input column.
inline Eigen::Index width_count(const Kernel& k) { return k.input_widths.size() ? k.input_widths.size() : 1; }

// What kernel_chain adds up over one lane of blocks: the derivatives w.r.t.
// the log widths, the log variance and the inducing points.
struct KernelSlopes {
  Eigen::VectorXd log_width;
  double log_variance = 0.0;
  Eigen::MatrixXd inducing;
  KernelSlopes(const Kernel& k, Eigen::Index m, Eigen::Index p)
      : log_width(Eigen::VectorXd::Zero(width_count(k))), inducing(Eigen::MatrixXd::Zero(m, p)) {}
  void chain(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& z, const Eigen::Ref<const Eigen::MatrixXd>& x,
             const Eigen::Ref<const Eigen::MatrixXd>& K, Eigen::Ref<Eigen::MatrixXd> G, double dz_factor) {
    kernel_chain(k, z, x, K, G, log_width, log_variance, &inducing, dz_factor);
  }
  KernelSlopes& operator+=(const KernelSlopes& other) {
    log_width += other.log_width;
    log_variance += other.log_variance;
    inducing += other.inducing;
    return *this;
  }
  void add_to(GPObjective& out) const {
    out.d_log_width += log_width;
    out.d_log_variance += log_variance;
    out.d_inducing += inducing;
  }
};

// Columns of the training data are processed in blocks of this many, so a
// VFE/FITC evaluation holds O(m * block) memory, not O(m n).
constexpr Eigen::Index gp_block = 2048;

// Block b belongs to lane b % gp_lanes; a lane adds up its blocks in order
// and the lanes' sums are added in lane order. Threads take whole lanes, so
// every sum is formed by the same operations for any number of threads:
// results are bit-identical.
constexpr Eigen::Index gp_lanes = 8;

inline Eigen::Index lane_count(Eigen::Index n) {
  return std::max<Eigen::Index>(1, std::min<Eigen::Index>(gp_lanes, (n + gp_block - 1) / gp_block));
}

// The lanes' sums added in lane order.
template <class T>
T sum_lanes(const std::vector<T>& lanes) {
  T total = lanes[0];
  for (std::size_t lane = 1; lane < lanes.size(); ++lane) total += lanes[lane];
  return total;
}

// Calls body(lane, start, nb) for every block of rows, in rounds of one
// block per lane shared among `threads` OpenMP threads. Interrupts are
// checked between rounds (never inside the parallel region), and an
// exception in a block is rethrown after its round.
template <class Body>
void for_each_block(Eigen::Index n, int threads, Body&& body) {
  const Eigen::Index blocks = (n + gp_block - 1) / gp_block, lanes = lane_count(n);
  threads = std::max(1, threads);
  for (Eigen::Index first = 0; first < blocks; first += lanes) {
    check_interrupt();
    const Eigen::Index count = std::min(lanes, blocks - first);
    std::exception_ptr failure = nullptr;
    InterruptPause pause;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && count > 1)
#endif
    for (Eigen::Index lane = 0; lane < count; ++lane) {
      try {
        const Eigen::Index start = (first + lane) * gp_block;
        body(lane, start, std::min(gp_block, n - start));
      } catch (...) {
#ifdef _OPENMP
#pragma omp critical(sparsebayes_gp_failure)
#endif
        if (!failure) failure = std::current_exception();
      }
    }
    if (failure) std::rethrow_exception(failure);
  }
}

inline double kernel_diag_value(const Kernel& k) { return k.variance; }  // stationary kernels only

}  // namespace detail

namespace detail {

// The sums over the training rows that the VFE and FITC objectives and
// posteriors read, given L = chol(K_uu + jitter) and A = L^-1 K_uf: they add
// over blocks of rows, so a pass over rows held in memory and passes over
// chunks read one at a time (R/chunks.R) form them by the same code.
// `fit` (on request, for FITC fits from chunks, whose Lam is not s2n / w):
// the case-weighted sums that give the training residuals' sum of squares.
struct SparseSums {
  Eigen::MatrixXd E;            // A Lam^-1 A' (lower triangle)
  Eigen::VectorXd alr;          // A Lam^-1 r
  double weighted_trace = 0.0;  // sum_i w_i (k_ii - Q_ii): VFE's trace term
  double log_lam = 0.0;         // sum_i log Lam_ii
  double r_lam_r = 0.0;         // r' Lam^-1 r
  double rows = 0.0;            // n
  double weight_sum = 0.0;      // sum_i w_i (n without weights)
  double log_weight_sum = 0.0;  // sum_i log w_i
  bool fit = false;
  Eigen::MatrixXd fit_E;  // sum_i w_i A_i A_i' (lower triangle)
  Eigen::VectorXd fit_ar;  // sum_i w_i A_i r_i
  double fit_rr = 0.0;     // sum_i w_i r_i^2
  SparseSums(Eigen::Index m, bool fit_sums)
      : E(Eigen::MatrixXd::Zero(m, m)), alr(Eigen::VectorXd::Zero(m)), fit(fit_sums),
        fit_E(Eigen::MatrixXd::Zero(fit_sums ? m : 0, fit_sums ? m : 0)), fit_ar(Eigen::VectorXd::Zero(fit_sums ? m : 0)) {}
  SparseSums& operator+=(const SparseSums& o) {
    E += o.E;
    alr += o.alr;
    weighted_trace += o.weighted_trace;
    log_lam += o.log_lam;
    r_lam_r += o.r_lam_r;
    rows += o.rows;
    weight_sum += o.weight_sum;
    log_weight_sum += o.log_weight_sum;
    if (fit) {
      fit_E += o.fit_E;
      fit_ar += o.fit_ar;
      fit_rr += o.fit_rr;
    }
    return *this;
  }
};

// What VFE and FITC share: the factors of K_uu (+ jitter) and of
// B = I + A Lam^-1 A' (A = L^-1 K_uf), c = LB^-1 A Lam^-1 r and the sums
// over rows; from a pass over rows in memory also Lam, Q_ii = |A_i|^2 and
// FITC's clamps, per row.
struct SparseFactors {
  Eigen::MatrixXd Kuu;  // as factorised, jitter included
  Eigen::MatrixXd L, LB;
  Eigen::MatrixXd E;    // B - I = A Lam^-1 A' (+ B's jitter, if any)
  Eigen::LLT<Eigen::MatrixXd> llt_b;
  Eigen::VectorXd c;
  SparseSums sums{0, false};
  Eigen::VectorXd lam, lam_inv, q;
  Eigen::Array<bool, Eigen::Dynamic, 1> clamped;  // FITC: diag(K_ff - Q_ff) clamped at 0
  int jitter_events = 0;
};

// A block of A = L^-1 K_uf: columns start .. start + nb - 1.
inline Eigen::MatrixXd block_A(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& z,
                               const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::MatrixXd& L,
                               Eigen::Index start, Eigen::Index nb) {
  Eigen::MatrixXd Ab = kernel_matrix(k, z, x.middleRows(start, nb));
  solve_lower_in_place(L, Ab);
  return Ab;
}

// E += A A' in its lower triangle (A: m x a block of rows): simd.hpp's
// Gram product where the CPU has AVX2, else Eigen's rank update.
inline void add_outer(Eigen::MatrixXd& E, const Eigen::Ref<const Eigen::MatrixXd>& A) {
  if (!simd::add_outer_lower(A, E)) E.selfadjointView<Eigen::Lower>().rankUpdate(A);
}

// Case weight of point i (all ones when none were given).
inline double case_weight(const Eigen::Ref<const Eigen::VectorXd>& wt, Eigen::Index i) {
  return wt.size() ? wt(i) : 1.0;
}

// (sum w - n) log(2 pi s2n) / 2 + sum log w / 2: what replicating row i
// w_i times adds to the negative log likelihood; and its derivative in
// log s2n (both 0 without weights, where sum w = n).
inline double replication_term(double noise, const SparseSums& s) {
  return 0.5 * (s.weight_sum - s.rows) * (kLog2Pi + std::log(noise)) + 0.5 * s.log_weight_sum;
}
inline double replication_term(double noise, const Eigen::Ref<const Eigen::VectorXd>& wt) {
  if (!wt.size()) return 0.0;
  return 0.5 * (wt.sum() - wt.size()) * (kLog2Pi + std::log(noise)) + 0.5 * wt.array().log().sum();
}
inline double replication_slope(const Eigen::Ref<const Eigen::VectorXd>& wt) {
  return wt.size() ? 0.5 * (wt.sum() - wt.size()) : 0.0;
}

// The noise variance s2n / w_i of every training point.
inline Eigen::VectorXd point_noise(double noise, const Eigen::Ref<const Eigen::VectorXd>& wt, Eigen::Index n) {
  if (!wt.size()) return Eigen::VectorXd::Constant(n, noise);
  return noise * wt.cwiseInverse();
}

// The factor L of K_uu + jitter (jitter relative to the kernel variance,
// grown on failure): Kuu as factorised.
inline void inducing_factor(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& z, double jitter,
                            SparseFactors& f) {
  double used = 0.0;
  f.Kuu = kernel_matrix(k, z, z);
  Eigen::LLT<Eigen::MatrixXd> llt_u;
  if (!jittered_cholesky(f.Kuu, jitter, k.variance, gp_jitter_attempts, llt_u, f.jitter_events, used))
    throw gp_cholesky_failure("K_uu");
  f.Kuu.diagonal().array() += used * k.variance;
  f.L = llt_u.matrixL();
}

// The sums over the rows x (with centred response r and case weights wt),
// given L, in blocks on `threads` threads (lanes added in a fixed order).
// Per row, on request: Lam_ii, Q_ii and FITC's clamp (vectors of n).
inline SparseSums sparse_sums(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                              const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::MatrixXd>& z,
                              const Eigen::Ref<const Eigen::VectorXd>& wt, GPApprox approx,
                              const Eigen::MatrixXd& L, bool fit_sums, int threads, Eigen::VectorXd* lam = nullptr,
                              Eigen::VectorXd* q_out = nullptr,
                              Eigen::Array<bool, Eigen::Dynamic, 1>* clamped = nullptr) {
  const Eigen::Index n = x.rows(), m = z.rows();
  if (L.rows() != m || L.cols() != m)
    throw std::invalid_argument("the factor of K_uu must be m x m for the m inducing points");
  const double kd = kernel_diag_value(k);
  const bool fitc = approx == GPApprox::fitc;
  std::vector<SparseSums> lanes(lane_count(n), SparseSums(m, fit_sums));
  for_each_block(n, threads, [&](Eigen::Index lane, Eigen::Index start, Eigen::Index nb) {
    SparseSums& s = lanes[lane];
    const Eigen::MatrixXd Ab = block_A(k, z, x, L, start, nb);
    Eigen::VectorXd lb(nb);
    for (Eigen::Index i = 0; i < nb; ++i) {
      const double q = Ab.col(i).squaredNorm(), w = case_weight(wt, start + i);
      if (q_out) (*q_out)(start + i) = q;
      s.weighted_trace += w * (kd - q);
      double d = 0.0;
      if (fitc) {
        d = kd - q;
        if (d < 0.0) {  // round-off: K_ff - Q_ff is positive semi-definite
          d = 0.0;
          if (clamped) (*clamped)(start + i) = true;
        }
      }
      lb(i) = d + noise / w;
      s.log_lam += std::log(lb(i));
      s.r_lam_r += r(start + i) * r(start + i) / lb(i);
      s.weight_sum += w;
      if (wt.size()) s.log_weight_sum += std::log(w);
    }
    s.rows += double(nb);
    if (lam) lam->segment(start, nb) = lb;
    const Eigen::VectorXd isd = lb.cwiseInverse().cwiseSqrt();
    const Eigen::MatrixXd As = Ab * isd.asDiagonal();
    add_outer(s.E, As);
    s.alr.noalias() += As * (r.segment(start, nb).cwiseProduct(isd));
    if (fit_sums) {
      const auto rb = r.segment(start, nb);
      if (wt.size()) {
        const Eigen::VectorXd sw = wt.segment(start, nb).cwiseSqrt();
        add_outer(s.fit_E, Ab * sw.asDiagonal());
        s.fit_ar.noalias() += Ab * rb.cwiseProduct(wt.segment(start, nb));
        s.fit_rr += rb.cwiseProduct(rb).dot(wt.segment(start, nb));
      } else {
        add_outer(s.fit_E, Ab);
        s.fit_ar.noalias() += Ab * rb;
        s.fit_rr += rb.squaredNorm();
      }
    }
  });
  return sum_lanes(lanes);
}

// The factor of B = I + E and c = LB^-1 A Lam^-1 r from the sums.
inline void factor_b(SparseFactors& f) {
  double used = 0.0;
  f.E = f.sums.E;
  f.E.triangularView<Eigen::StrictlyUpper>() = f.E.transpose();
  Eigen::MatrixXd B = f.E;
  B.diagonal().array() += 1.0;
  // B >= I: never needs jitter unless Lam carries a NaN.
  if (!jittered_cholesky(B, 0.0, 1.0, gp_jitter_attempts, f.llt_b, f.jitter_events, used))
    throw gp_cholesky_failure("B = I + A Lam^-1 A'");
  f.E.diagonal().array() += used;  // B - I as factorised
  f.LB = f.llt_b.matrixL();
  f.c = f.LB.triangularView<Eigen::Lower>().solve(f.sums.alr);
}

inline SparseFactors sparse_factors(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                    const Eigen::Ref<const Eigen::VectorXd>& r,
                                    const Eigen::Ref<const Eigen::MatrixXd>& z,
                                    const Eigen::Ref<const Eigen::VectorXd>& wt, GPApprox approx, double jitter,
                                    int threads = 1) {
  const Eigen::Index n = x.rows();
  SparseFactors f;
  inducing_factor(k, z, jitter, f);
  f.lam.resize(n);
  f.q.resize(n);
  f.clamped = Eigen::Array<bool, Eigen::Dynamic, 1>::Constant(n, false);
  f.sums = sparse_sums(k, noise, x, r, z, wt, approx, f.L, false, threads, &f.lam, &f.q, &f.clamped);
  f.lam_inv = f.lam.cwiseInverse();
  factor_b(f);
  return f;
}

// The objective from the sparse factors (see the top of this file).
inline double sparse_value(const SparseFactors& f, double noise, GPApprox approx) {
  const SparseSums& s = f.sums;
  const double trace_term = (approx == GPApprox::vfe) ? s.weighted_trace : 0.0;
  return 0.5 * s.rows * kLog2Pi + f.LB.diagonal().array().log().sum() + 0.5 * s.log_lam +
         0.5 * (s.r_lam_r - f.c.squaredNorm()) + 0.5 * trace_term / noise + replication_term(noise, s);
}

// What the exact GP needs: K_ff, the noise per point, the lower Cholesky
// factor L of Sigma = K_ff + s2n W^-1 (+ jitter on failure; its strict upper
// triangle is scratch) and a = Sigma^-1 r. Kept by a GPWorkspace between
// evaluations, so that its n x n buffers are reused.
struct ExactFactors {
  Eigen::MatrixXd K;
  Eigen::MatrixXd L;
  Eigen::VectorXd noise_i;
  Eigen::VectorXd a;
  double used = 0.0;  // jitter added, relative to the kernel variance
  int jitter_events = 0;
};

inline void exact_factors(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                          const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::VectorXd>& wt,
                          ExactFactors& f) {
  const Eigen::Index n = x.rows();
  f.K.resize(n, n);
  fill_kernel_matrix(k, x, x, f.K);
  f.noise_i = point_noise(noise, wt, n);
  f.jitter_events = 0;
  if (!jittered_cholesky(f.K, f.noise_i, 0.0, k.variance, gp_jitter_attempts, f.L, f.jitter_events, f.used))
    throw gp_cholesky_failure("the covariance matrix K_ff + noise");
  f.a = r;
  f.L.triangularView<Eigen::Lower>().solveInPlace(f.a);
  f.L.triangularView<Eigen::Lower>().transpose().solveInPlace(f.a);
}

inline double exact_value(const ExactFactors& f, double noise, const Eigen::Ref<const Eigen::VectorXd>& r,
                          const Eigen::Ref<const Eigen::VectorXd>& wt) {
  return 0.5 * r.size() * kLog2Pi + f.L.diagonal().array().log().sum() + 0.5 * r.dot(f.a) +
         replication_term(noise, wt);
}

// The one explicit inverse in this file, and only for the exact GP. Two of
// its quantities are, by definition, elements of Sigma^-1 that no solve with
// a right-hand side yields: diag(Sigma^-1) = column sums of squares of L^-1
// (leverages and LOO residuals, R&W eq. 5.12) and the gradient's
// W = Sigma^-1 - a a', whose every element meets dK elementwise (R&W
// Algorithm 5.1). Both come from L^-1 (invert_lower(), model.hpp): the
// first as its columns' norms (sparse_gp_posterior()), the second by
// cholesky_inverse_in_place() (sparse_gp_objective()).

// What the VFE and FITC gradients share, with Sigma_u = K_uu + K_uf Lam^-1
// K_fu = L B L': mu = Sigma_u^-1 K_uf Lam^-1 r = L^-T LB^-T c, B^-1 E and
// M = mu mu' - (K_uu^-1 - Sigma_u^-1) = mu mu' - L^-T B^-1 E L^-1, where
// B^-1 E = I - B^-1 is a solve against E: no cancellation when E is small.
struct GradientCore {
  Eigen::VectorXd LTmu, mu;  // L' mu and mu
  Eigen::MatrixXd BiE, M;
};

// L^-T S L^-1 for the factor L of K_uu.
inline Eigen::MatrixXd both_sides_inverse(const Eigen::MatrixXd& L, const Eigen::MatrixXd& S) {
  const auto LT = L.transpose().triangularView<Eigen::Upper>();
  return LT.solve(LT.solve(S).transpose()).transpose();
}

inline GradientCore gradient_core(const SparseFactors& f) {
  GradientCore g;
  g.LTmu = f.LB.transpose().triangularView<Eigen::Upper>().solve(f.c);
  g.mu = f.L.transpose().triangularView<Eigen::Upper>().solve(g.LTmu);
  g.BiE = f.llt_b.solve(f.E);
  g.BiE = 0.5 * (g.BiE + g.BiE.transpose()).eval();
  g.M = -both_sides_inverse(f.L, g.BiE);
  g.M.noalias() += g.mu * g.mu.transpose();
  return g;
}

// The VFE gradient from its factors, in one more pass over the training
// points. With D = Lam^-1 = W / s2n and mu, M of gradient_core, the
// sensitivities are
//   G_uf = M K_uf D - mu (D r)',   G_uu = (M + L^-T E L^-1) / 2,
// so a block costs one m x m by m x nb product (FITC, whose Lam depends on
// K_uf, needs the general route below).
inline void vfe_gradient(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                         const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::MatrixXd>& z,
                         const Eigen::Ref<const Eigen::VectorXd>& wt, const SparseFactors& f, GPObjective& out,
                         int threads) {
  const Eigen::Index n = x.rows(), m = z.rows();
  const GradientCore g = gradient_core(f);
  const Eigen::VectorXd& mu = g.mu;
  out.d_inducing = Eigen::MatrixXd::Zero(m, x.cols());
  std::vector<KernelSlopes> slopes(lane_count(n), KernelSlopes(k, m, x.cols()));
  for_each_block(n, threads, [&](Eigen::Index lane, Eigen::Index start, Eigen::Index nb) {
    const auto xb = x.middleRows(start, nb);
    const auto db = f.lam_inv.segment(start, nb);
    const Eigen::MatrixXd Kb = kernel_matrix(k, z, xb);
    Eigen::MatrixXd G = product(g.M, Kb * db.asDiagonal());
    G.noalias() -= mu * r.segment(start, nb).cwiseProduct(db).transpose();
    slopes[lane].chain(k, z, xb, Kb, G, 1.0);
  });
  sum_lanes(slopes).add_to(out);
  Eigen::MatrixXd Guu = 0.5 * (g.M + both_sides_inverse(f.L, f.E));
  kernel_chain(k, z, z, f.Kuu, Guu, out.d_log_width, out.d_log_variance, &out.d_inducing, 2.0);
  // the trace term's sum_i w_i k_ii / (2 s2n), through k_ii = s2
  const double weight_sum = wt.size() ? wt.sum() : double(n);
  out.d_log_variance += 0.5 * weight_sum * kernel_diag_value(k) / noise;
  // d/dlog s2n of n/2 log s2n + log|B| + r'Dr/2 - c'c/2 + T/(2 s2n), with D and
  // E proportional to 1/s2n
  out.d_log_noise = 0.5 * double(n) - 0.5 * g.BiE.trace() - 0.5 * f.sums.r_lam_r +
                    f.c.squaredNorm() - 0.5 * g.LTmu.dot(f.E * g.LTmu) - 0.5 * f.sums.weighted_trace / noise +
                    replication_slope(wt);
}

// The FITC gradient from its factors. With a = Sigma^-1 r, w = diag(Sigma^-1)
// - a^2, P = K_uu^-1 K_uf = L^-T A: P Sigma^-1 = L^-T LB^-T V
// (V = LB^-1 A Lam^-1) and P a = L^-T LB^-T c. G_uf = P (W - diag w) is
// chained block by block, and P diag(w) P' is accumulated for G_uu.
inline void fitc_gradient(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                          const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::MatrixXd>& z,
                          const Eigen::Ref<const Eigen::VectorXd>& wt, const SparseFactors& f, GPObjective& out,
                          int threads) {
  const Eigen::Index n = x.rows(), m = z.rows();
  const auto LT = f.L.transpose().triangularView<Eigen::Upper>();
  const auto LBlow = f.LB.triangularView<Eigen::Lower>();
  const auto LBT = f.LB.transpose().triangularView<Eigen::Upper>();
  const GradientCore g = gradient_core(f);
  const Eigen::VectorXd& Pa = g.mu;
  out.d_inducing = Eigen::MatrixXd::Zero(m, x.cols());
  const Eigen::Index lanes = lane_count(n);
  std::vector<KernelSlopes> slopes(lanes, KernelSlopes(k, m, x.cols()));
  std::vector<Eigen::MatrixXd> PwP(lanes, Eigen::MatrixXd::Zero(m, m));  // sum P diag(w) P'
  std::vector<double> g_noise(lanes, 0.0), g_diag(lanes, 0.0);
  for_each_block(n, threads, [&](Eigen::Index lane, Eigen::Index start, Eigen::Index nb) {
    const auto li = f.lam_inv.segment(start, nb);
    const Eigen::MatrixXd Ab = block_A(k, z, x, f.L, start, nb);
    Eigen::MatrixXd V = LBlow.solve(Ab * li.asDiagonal());
    const Eigen::VectorXd a = r.segment(start, nb).cwiseProduct(li) - V.transpose() * f.c;
    Eigen::VectorXd w = li - V.colwise().squaredNorm().transpose();
    w -= a.cwiseProduct(a);
    for (Eigen::Index i = 0; i < nb; ++i) {
      g_noise[lane] += 0.5 * w(i) / case_weight(wt, start + i);  // dLam_ii / dlog s2n = s2n / w_i
      if (f.clamped(start + i)) w(i) = 0.0;  // the clamp has zero derivative
    }
    const Eigen::MatrixXd P = LT.solve(Ab);
    LBT.solveInPlace(V);
    LT.solveInPlace(V);
    Eigen::MatrixXd& G = V;  // becomes G_uf for this block
    G.noalias() -= Pa * a.transpose();
    G.noalias() -= P * w.asDiagonal();
    PwP[lane].noalias() += P * w.asDiagonal() * P.transpose();
    g_diag[lane] += 0.5 * w.sum();
    const auto xb = x.middleRows(start, nb);
    slopes[lane].chain(k, z, xb, kernel_matrix(k, z, xb), G, 1.0);
  });
  sum_lanes(slopes).add_to(out);
  // G_uu = -P W P'/2 + P diag(w) P'/2 with P W P' = P Sigma^-1 P' - Pa Pa'
  // = -M; K_uu (symmetric, jitter proportional to s2): both z arguments move.
  Eigen::MatrixXd Guu = 0.5 * (g.M + sum_lanes(PwP));
  kernel_chain(k, z, z, f.Kuu, Guu, out.d_log_width, out.d_log_variance, &out.d_inducing, 2.0);
  out.d_log_variance += sum_lanes(g_diag) * kernel_diag_value(k);
  out.d_log_noise = noise * sum_lanes(g_noise) + replication_slope(wt);
}

// What a posterior from the sparse factors holds whatever the rows: the
// objective, the predictor (weights L^-T LB^-T c with the factors L, LB),
// q(u) = N(L LB^-T c, L B^-1 L') (Titsias 2009 for VFE; the FITC
// posterior of u likewise; L B^-1 L' = R'R with R = LB^-1 L'), the
// effective degrees of freedom sum_i h_i = tr(B^-1 E) (h_i = |LB^-1 A_i|^2
// / Lam_ii) and, where the sums give it, the training residuals' sum of
// squares sum_i w_i (r_i - f_i)^2, f = A' LB^-T c: for VFE (Lam = s2n / w)
// s2n (r'Lam^-1 r - 2 v' A Lam^-1 r + v' E v), v = LB^-T c; for FITC from
// the sums `fit` (NaN without them).
inline void sparse_predictor(const SparseFactors& f, double noise, GPApprox approx, GPPosterior& out) {
  out.jitter_events = f.jitter_events;
  out.value = sparse_value(f, noise, approx);
  out.chol = f.L;
  out.chol_b = f.LB;
  const Eigen::VectorXd v = f.LB.transpose().triangularView<Eigen::Upper>().solve(f.c);
  out.weights = f.L.transpose().triangularView<Eigen::Upper>().solve(v);
  out.qu_mean = f.L * v;
  const Eigen::MatrixXd R = f.LB.triangularView<Eigen::Lower>().solve(f.L.transpose());
  out.qu_cov = R.transpose() * R;
  out.edf = f.llt_b.solve(f.E).trace();
  const SparseSums& s = f.sums;
  const auto lower = [](const Eigen::MatrixXd& M) { return M.selfadjointView<Eigen::Lower>(); };
  if (approx == GPApprox::vfe)
    out.rss = noise * (s.r_lam_r - 2.0 * v.dot(s.alr) + v.dot(lower(s.E) * v));
  else if (s.fit)
    out.rss = s.fit_rr - 2.0 * v.dot(s.fit_ar) + v.dot(lower(s.fit_E) * v);
}

}  // namespace detail

// Buffers that an optimiser's repeated evaluations of the exact objective
// reuse (n x n each; see jittered_cholesky's buffer form).
struct GPWorkspace {
  detail::ExactFactors exact;
};

// The objective and, when gradient is true (Gaussian kernel only), its
// derivatives. r is the centred response; z the inducing inputs (ignored for
// exact); jitter is relative to the kernel variance.
inline GPObjective sparse_gp_objective(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                       const Eigen::Ref<const Eigen::VectorXd>& r,
                                       const Eigen::Ref<const Eigen::MatrixXd>& z,
                                       const Eigen::Ref<const Eigen::VectorXd>& wt, GPApprox approx, double jitter,
                                       bool gradient, GPWorkspace* workspace = nullptr, int threads = 1) {
  detail::check_gp_inputs(k, noise, x, r, z, wt, approx);
  GPObjective out;
  out.d_log_width = Eigen::VectorXd::Zero(detail::width_count(k));

  if (approx == GPApprox::exact) {
    GPWorkspace local;
    detail::ExactFactors& f = (workspace ? *workspace : local).exact;
    detail::exact_factors(k, noise, x, r, wt, f);
    out.jitter_events = f.jitter_events;
    out.value = detail::exact_value(f, noise, r, wt);
    if (gradient) {
      // W = Sigma^-1 - a a' = L^-T L^-1 - a a', in L's storage
      Eigen::MatrixXd& W = f.L;
      cholesky_inverse_in_place(W);
      W.noalias() -= f.a * f.a.transpose();
      out.d_log_noise = 0.5 * W.diagonal().dot(f.noise_i) + detail::replication_slope(wt);
      W *= 0.5;
      detail::kernel_chain(k, x, x, f.K, W, out.d_log_width, out.d_log_variance, nullptr, 0.0);
    }
    return out;
  }

  const detail::SparseFactors f = detail::sparse_factors(k, noise, x, r, z, wt, approx, jitter, threads);
  out.jitter_events = f.jitter_events;
  out.value = detail::sparse_value(f, noise, approx);
  if (!gradient) return out;

  if (approx == GPApprox::vfe)
    detail::vfe_gradient(k, noise, x, r, z, wt, f, out, threads);
  else
    detail::fitc_gradient(k, noise, x, r, z, wt, f, out, threads);
  return out;
}

// Posterior quantities at the given hyperparameters (see GPPosterior), from
// one factorisation.
inline GPPosterior sparse_gp_posterior(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                       const Eigen::Ref<const Eigen::VectorXd>& r,
                                       const Eigen::Ref<const Eigen::MatrixXd>& z,
                                       const Eigen::Ref<const Eigen::VectorXd>& wt, GPApprox approx, double jitter,
                                       int threads = 1, bool row_variances = true) {
  detail::check_gp_inputs(k, noise, x, r, z, wt, approx);
  const Eigen::Index n = x.rows();
  const double kd = detail::kernel_diag_value(k);
  GPPosterior out;

  if (approx == GPApprox::exact) {
    detail::ExactFactors f;
    detail::exact_factors(k, noise, x, r, wt, f);
    out.jitter_events = f.jitter_events;
    out.value = detail::exact_value(f, noise, r, wt);
    out.chol = f.L.triangularView<Eigen::Lower>();
    out.weights = f.a;  // Sigma^-1 r
    out.lambda = f.noise_i.array() + f.used * k.variance;
    out.pi_r = f.a;
    Eigen::MatrixXd Li = out.chol;
    invert_lower(Li);
    out.pi_diag = Li.colwise().squaredNorm().transpose();
    out.fitted = f.K * f.a;
    // k_ii - |L^-1 K_:i|^2, as at new inputs
    const Eigen::MatrixXd LK = f.L.triangularView<Eigen::Lower>().solve(f.K);
    out.fitted_var = (kd - LK.colwise().squaredNorm().array()).matrix().transpose();
    return out;
  }

  const detail::SparseFactors f = detail::sparse_factors(k, noise, x, r, z, wt, approx, jitter, threads);
  detail::sparse_predictor(f, noise, approx, out);
  // Per training point, block by block, with K_b = K_uf's block: the latent
  // mean K_b' weights and Pi r = (r - A' LB^-T c) / Lam; with
  // row_variances, also s_i = |LB^-1 A_i|^2 = |(L LB)^-1 K_b,i|^2 (one
  // triangular solve, half the cost of solving by L and LB in turn), the
  // latent variance (k_ii - Q_ii) + s_i and diag(Pi) = 1/Lam - s_i/Lam^2.
  // Without them the pass costs O(n m): the solve was a third of a fit's
  // time at n = 10^6, m = 500, for diagnostics a fit may never be asked
  // for (sparse_gp_predict's `explained` gives s_i when they are).
  const Eigen::MatrixXd LLB = f.L.triangularView<Eigen::Lower>() * f.LB;
  const auto LLBlow = LLB.triangularView<Eigen::Lower>();
  out.lambda = f.lam;
  out.pi_r.resize(n);
  out.fitted.resize(n);
  if (row_variances) {
    out.pi_diag.resize(n);
    out.fitted_var.resize(n);
  }
  detail::for_each_block(n, threads, [&](Eigen::Index, Eigen::Index start, Eigen::Index nb) {
    Eigen::MatrixXd Kb = kernel_matrix(k, z, x.middleRows(start, nb));
    out.fitted.segment(start, nb).noalias() = Kb.transpose() * out.weights;
    const auto li = f.lam_inv.segment(start, nb).array();
    out.pi_r.segment(start, nb) = (r.segment(start, nb) - out.fitted.segment(start, nb)).array() * li;
    if (!row_variances) return;
    LLBlow.solveInPlace(Kb);
    const Eigen::ArrayXd s = Kb.colwise().squaredNorm().transpose().array();
    out.pi_diag.segment(start, nb) = li - s * li.square();
    out.fitted_var.segment(start, nb) = ((kd - f.q.segment(start, nb).array()) + s).matrix();
  });
  return out;
}

// The posterior of a VFE or FITC fit from its sums over rows (added over
// the chunks of a fit from data_chunks(), each by detail::sparse_sums with
// the same L = chol), without the per-row quantities: the predictor, the
// objective, the effective degrees of freedom and the training residuals'
// sum of squares.
inline GPPosterior sparse_gp_posterior_from_sums(double noise, const Eigen::MatrixXd& L,
                                                 const detail::SparseSums& sums, GPApprox approx) {
  if (approx == GPApprox::exact) throw std::invalid_argument("the exact GP has no posterior from sums over rows");
  if (!(noise > 0.0) || !std::isfinite(noise)) throw std::invalid_argument("noise variance must be positive");
  if (L.rows() != sums.E.rows() || L.cols() != L.rows() || sums.alr.size() != L.rows())
    throw std::invalid_argument("the sums and the factor of K_uu must have the inducing points' size");
  detail::SparseFactors f;
  f.L = L;
  f.sums = sums;
  detail::factor_b(f);
  GPPosterior out;
  detail::sparse_predictor(f, noise, approx, out);
  return out;
}

// Latent predictive mean and variance at new inputs xs (rows) from a stored
// posterior: centres c (inducing points, or the training inputs for exact),
// weights, chol = L and chol_b = LB (empty for exact), all as returned by
// sparse_gp_posterior. With A = L^-1 K_c*:
//   mean = K_*c weights,
//   var  = (k** - |A|^2) + |LB^-1 A|^2   (VFE, FITC)   or   k** - |A|^2   (exact),
// column by column. Both parts are sums of squares: k** - |A|^2 is the
// conditional variance of f* given u (>= 0: the Schur complement of the
// positive definite [K_uu + jitter, k_u; k_u', k**]) and |LB^-1 A|^2 =
// k_*u (K_uu + K_uf Lam^-1 K_fu)^-1 k_u* >= 0, so no clamp is applied; the
// only negative values possible are rounding in the first part of order
// 1e-16 k** where it is itself zero to working precision (see the tests).
// full_cov also returns the covariance between the rows of xs.
inline GPPrediction sparse_gp_predict(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& centres,
                                      const Eigen::Ref<const Eigen::VectorXd>& weights,
                                      const Eigen::Ref<const Eigen::MatrixXd>& chol,
                                      const Eigen::Ref<const Eigen::MatrixXd>& chol_b,
                                      const Eigen::Ref<const Eigen::MatrixXd>& xs, bool variance, bool full_cov,
                                      int threads = 1) {
  const Eigen::Index c = centres.rows(), q = xs.rows();
  if (!kernel_info(k.type).slope) throw std::invalid_argument("sparse GPs support a " + kernels_with_slope() + " kernel");
  if (xs.cols() != centres.cols())
    throw std::invalid_argument("new inputs must have the training inputs' number of columns");
  if (weights.size() != c || chol.rows() != c || chol.cols() != c)
    throw std::invalid_argument("the stored posterior is inconsistent: weights and Cholesky factor must match the centres");
  const bool sparse = chol_b.size() > 0;
  if (sparse && (chol_b.rows() != c || chol_b.cols() != c))
    throw std::invalid_argument("the stored posterior is inconsistent: the factor of B must be m x m");
  const double kd = detail::kernel_diag_value(k);
  const auto Llow = chol.triangularView<Eigen::Lower>();
  const auto LBlow = chol_b.triangularView<Eigen::Lower>();
  GPPrediction out;
  out.mean.resize(q);
  if (variance || full_cov) out.var.resize(q);
  if (sparse && variance && !full_cov) out.explained.resize(q);
  if (full_cov) {
    Eigen::MatrixXd A = kernel_matrix(k, centres, xs);
    out.mean.noalias() = A.transpose() * weights;
    Llow.solveInPlace(A);
    out.cov = kernel_matrix(k, xs, xs);
    out.cov.noalias() -= A.transpose() * A;
    if (sparse) {
      LBlow.solveInPlace(A);
      out.cov.noalias() += A.transpose() * A;
      out.explained = A.colwise().squaredNorm().transpose();
    }
    out.var = out.cov.diagonal();
    return out;
  }
  detail::for_each_block(q, threads, [&](Eigen::Index, Eigen::Index start, Eigen::Index nb) {
    Eigen::MatrixXd A = kernel_matrix(k, centres, xs.middleRows(start, nb));
    out.mean.segment(start, nb).noalias() = A.transpose() * weights;
    if (!variance) return;
    Llow.solveInPlace(A);
    Eigen::ArrayXd v = kd - A.colwise().squaredNorm().transpose().array();
    if (sparse) {
      LBlow.solveInPlace(A);
      const Eigen::ArrayXd e = A.colwise().squaredNorm().transpose().array();
      v += e;
      out.explained.segment(start, nb) = e.matrix();
    }
    out.var.segment(start, nb) = v.matrix();
  });
  return out;
}

}  // namespace sparsebayes
