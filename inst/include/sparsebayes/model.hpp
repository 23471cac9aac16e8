// Options, results and the shared pieces of the sparse Bayesian linear model
//   t = Phi w + e,  w_j ~ N(0, 1/alpha_j),  e_i ~ N(0, 1/beta).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "interrupt.hpp"
#include "simd.hpp"

namespace sparsebayes {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLog2Pi = 1.8378770664093454836;

// What a solver is asked to do, in parts by concern, each handed only to
// the code that reads it. Every setting has the name and the meaning of the
// R setting of rvm_control()/ard_control(), which give every default: the
// fields have no defaults here, and the glue fills each of them.

// The problem (set by R's fitting routine, solver_problem()): every solver.
struct ProblemSpec {
  std::string method;          // fast, mackay, em, irls2, irls1, gradient
  bool per_sample;             // one noise variance per sample (joint ARD) instead of one shared
  bool student;                //   with a Student-t prior on them (student_noise.hpp)
  std::string gradient_form;   // batch posterior's space: auto (the smaller), primal (n x n), dual (d x d)
  double smoothness;           // c of the smoothness prior; 0 = none
  double noise_variance;       // > 0: noise variance held at this value; <= 0: estimated
  double n_effective;          // > 0: the N of the shared noise update (sum of prior weights)
  double target_variance;      // > 0: var(t) of the targets as replicated rows (prior weights); else computed
  Eigen::VectorXd case_weights;  // Bernoulli, Poisson: weights of the log-likelihood terms (empty: none)
  Eigen::VectorXd offset;        //   and an offset of the linear predictor (empty: none)
  Eigen::VectorXd init_noise;    // per-sample noise: starting variances (empty: init_lambda for all); set by fit_joint_ard()
  // Fast solver, gaussian: a warm start, the precision of every column (Inf: not in the model; of the columns
  // as the caller gave them, set in unit-norm columns by fit_model() and fit_statistics()); empty: the usual start.
  Eigen::VectorXd start_alpha;
  // Fast solver: at iteration join_at (0: never) the state is kept as the result's checkpoint, and with another
  // fit's checkpoint here (join_alpha: every column's precision in unit-norm columns, Inf out of the model, and
  // join_noise) the fit stops as `joined` when it has reached that state to join_tolerance in log alpha and log
  // noise (fast_solver.hpp).
  int join_at = 0;
  Eigen::VectorXd join_alpha;
  double join_noise = 0.0;
  double join_tolerance = 0.0;
};

// When a solver stops: every solver.
struct LoopControl {
  int max_iterations;
  double time_limit;           // seconds
  double tolerance;            // relative l_inf change of log alpha and log lambda at convergence
};

// The estimated noise: the fast and the batch solvers.
struct NoiseControl {
  double init_lambda;          // initial noise variance, as a fraction of var(t)
  double lambda_min, lambda_max;  // noise bounds, as multiples of the residuals' squared MAD
  double damping_lambda;       // damping of log lambda, (0, 1]
  double student_df;           // > 0: the Student-t noise's degrees of freedom held there; <= 0: estimated
  bool outlier_class;          // Student-t noise: plus a class of rows uniform over the response's range
  int warm_start;              // iterations before the per-sample (batch: any) noise is re-estimated
};

// The fast solver (SparseBayes v2's constants) and its orthonormal shortcut.
struct FastControl {
  double min_delta_log_alpha;  // re-estimation convergence
  double min_delta_log_beta;   // a larger noise change cancels termination
  double min_noise_move;       // before termination, a smaller noise change is not made (fast_gaussian.hpp)
  bool priority_addition, priority_deletion;
  int noise_update_start, noise_update_frequency;
  double beta_max_factor;      // 1 / noise <= beta_max_factor / var(t)
  bool alignment_test;
  double alignment_max;
  double zero_factor;          // q^2 - s must exceed this to count as positive
  double noise_shape, noise_scale;  // inverse-gamma prior on the noise with the smoothness prior
  bool exact_on_reversal = true;    // rows: S and Q recomputed before a reversal (fast_gaussian.hpp)
};

// The batch solvers (joint ARD, App. D.1 of Timans et al.; MacKay).
struct BatchControl {
  std::string schedule;        // "converge"; "paper": damping of alpha and lambda themselves, the whole budget run
  int patience;
  double alpha_min, alpha_max;  // clipping of the precisions (unit mean-square columns); alpha_max prunes
  double damping_alpha;
  int noise_every;             // iterations between noise updates after the warm start
  double init_alpha;
  double fixed_alpha;          // > 0: every precision held at this value
  bool studentized;            // lambda_i <- r_i^2 / (1 - h_i)^p
  double studentized_power;
  double learning_rate;        // gradient: Adam on the log parameters
  int admm_iterations;         // irls1
  double admm_tolerance;
  int path_max;                // rows of the thinned alpha and lambda trajectories
  std::string start;           // per-sample noise: "plain", or also from the LTS start keeping the "best" or the "robust" one
  int start_subsets;           //   random elemental subsets of the LTS start
};

// All the parts, as the glue fills them and fit.hpp hands them out.
struct SolverOptions {
  ProblemSpec problem;
  LoopControl loop;
  NoiseControl noise;
  FastControl fast;
  BatchControl batch;
};

// One row of the per-iteration trace.
struct TraceRow {
  int iteration;
  double log_posterior;   // what the solver climbs (FitResult::log_posterior at this iteration)
  int n_relevant;
  double noise_variance;  // mean(lambda) with per-sample noise
  int action;             // see Action
};

enum Action { kReestimate = 0, kAdd = 1, kDelete = 2, kAlignmentSkip = 3, kNoiseOnly = 4, kTerminate = 5, kRejected = 6,
             kModeSearch = 7 };

// Called once per iteration; may throw to abort (e.g. on a user interrupt).
using Progress = std::function<void(const TraceRow&)>;

// What every solver returns (in the units of the basis and targets it was given).
struct FitResult {
  std::vector<Eigen::Index> relevant;  // 0-based columns of Phi
  Eigen::VectorXd mu;                  // posterior mean of the relevant weights
  Eigen::MatrixXd Sigma;               // posterior covariance of the relevant weights
  Eigen::VectorXd alpha;               // all M precisions; +inf for pruned columns
  Eigen::VectorXd lambda;              // noise variance: 1 (shared) or n (per sample); empty if none
  double student_df = std::nan("");    // Student-t noise: degrees of freedom nu and scale s2
  double student_scale = std::nan("");
  double student_outlier_share = std::nan("");  //   and the share eps of its outlier class,
  Eigen::VectorXd outlier_probability;          //   each row's probability of belonging to it
  double log_evidence = 0.0;           // log marginal likelihood (Laplace approximation if non-Gaussian);
                                       //   under Student-t noise its variational lower bound
  double log_posterior = 0.0;          // log_evidence plus the log priors (= log_evidence without a prior)
  Eigen::VectorXd fitted;              // linear predictor Phi mu
  int iterations = 0;
  bool converged = false;
  int jitter_events = 0;               // Cholesky factorisations that needed jitter
  bool mode_converged = true;          // non-Gaussian: the last posterior-mode search converged
  std::vector<TraceRow> trace;
  std::vector<int> path_iteration;     // batch solvers: thinned trajectories of alpha and lambda
  Eigen::MatrixXd path_alpha;          // T x M
  Eigen::MatrixXd path_lambda;         // T x (n or 1)
  Eigen::VectorXd start_log_evidence;  // per-sample noise from two starts: the plain and the robust optimum (else empty)
  int start_chosen = 0;                //   and which is returned (0 plain, 1 robust),
  std::shared_ptr<FitResult> other;    //   the optimum not returned (null when one start ran)
  Eigen::VectorXd checkpoint_alpha;    // fast solver: the state at iteration ProblemSpec::join_at (else empty)
  double checkpoint_noise = 0.0;
  bool joined = false;                 //   and whether the fit stopped there, on the path of the checkpoint given
};

// The solvers' column scales: the norms of the columns as given, 1 for a zero
// column (it can never enter the model).
inline Eigen::VectorXd column_scale(Eigen::VectorXd norms) {
  for (Eigen::Index j = 0; j < norms.size(); ++j)
    if (!(norms(j) > 0.0)) norms(j) = 1.0;
  return norms;
}

// Sample variance of t (0 for fewer than two values).
inline double sample_variance(const Eigen::Ref<const Eigen::VectorXd>& t) {
  if (t.size() < 2) return 0.0;
  return (t.array() - t.mean()).square().sum() / (t.size() - 1.0);
}

// N: the number of rows, or the sum of prior weights when they count
// replicated rows (shared noise: rows scaled by sqrt(w) then act as w copies).
inline double replicated_rows(const ProblemSpec& problem, Eigen::Index n) {
  return problem.n_effective > 0.0 ? problem.n_effective : static_cast<double>(n);
}

// var(t), or with prior weights that of the replicated rows (given by R: rows
// scaled by sqrt(w) do not show it), so that starting values and bounds see
// an integer weight as copies of its row.
inline double target_variance(const Eigen::Ref<const Eigen::VectorXd>& t, const ProblemSpec& problem) {
  return problem.target_variance > 0.0 ? problem.target_variance : sample_variance(t);
}

// The starting noise variance: a fraction of var(t) (targets in standard units).
inline double initial_noise_variance(const Eigen::Ref<const Eigen::VectorXd>& t, const ProblemSpec& problem,
                                     const NoiseControl& noise) {
  return noise.init_lambda * std::max(target_variance(t, problem), 1e-12);
}

// f(start, size) over the panels [start, start + size) of [0, total), each at
// most `width` wide, with an interrupt check before each panel.
template <class F>
inline void for_panels(Eigen::Index total, Eigen::Index width, F&& f) {
  for (Eigen::Index j = 0; j < total; j += width) {
    check_interrupt();
    f(j, std::min(width, total - j));
  }
}

// Lower Cholesky factor of A in its lower triangle, in place, by Eigen's
// blocked algorithm (the same panels) with an interrupt check between
// panels; the trailing updates on the SIMD path where the CPU has one
// (simd::rank_update_lower(): twice Eigen's SSE2 speed at n = 200-800).
// False when A is not positive definite. The strict upper triangle is left
// as it was.
inline bool cholesky_in_place(Eigen::Ref<Eigen::MatrixXd> A) {
  using inplace = Eigen::internal::llt_inplace<double, Eigen::Lower>;
  const Eigen::Index size = A.rows();
  if (size < 32) return inplace::unblocked(A) < 0;
  const Eigen::Index block = std::min<Eigen::Index>(std::max<Eigen::Index>((size / 8 / 16) * 16, 8), 128);
  for (Eigen::Index k = 0; k < size; k += block) {
    check_interrupt();
    const Eigen::Index bs = std::min(block, size - k), rs = size - k - bs;
    auto A11 = A.block(k, k, bs, bs);
    auto A21 = A.block(k + bs, k, rs, bs);
    auto A22 = A.block(k + bs, k + bs, rs, rs);
    if (inplace::unblocked(A11) >= 0) return false;
    if (rs > 0) {
      A11.adjoint().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(A21);
      if (!simd::rank_update_lower(A21, A22)) A22.selfadjointView<Eigen::Lower>().rankUpdate(A21, -1.0);
    }
  }
  return true;
}

// Eigen's LLT computed by cholesky_in_place().
class CheckedLLT : public Eigen::LLT<Eigen::MatrixXd> {
 public:
  explicit CheckedLLT(const Eigen::MatrixXd& a) {
    const Eigen::Index size = a.rows();
    // copied by panels: the first touch of a large fresh matrix takes a while
    m_matrix.resize(size, size);
    for_panels(size, 256, [&](Eigen::Index j, Eigen::Index nb) { m_matrix.middleCols(j, nb) = a.middleCols(j, nb); });
    m_l1_norm = 0.0;
    for (Eigen::Index c = 0; c < size; ++c)
      m_l1_norm = std::max(m_l1_norm, m_matrix.col(c).tail(size - c).lpNorm<1>() + m_matrix.row(c).head(c).lpNorm<1>());
    m_isInitialized = true;
    m_info = cholesky_in_place(m_matrix) ? Eigen::Success : Eigen::NumericalIssue;
  }
};

// The jitter schedule: factorise(j) for j = base first and then tenfold
// larger values from max(base, 1e-10), `attempts` tries in all. Every failed
// try is counted in `events`; `used` is the j that worked. False if none did.
template <class Factorise>
inline bool with_jitter(double base, int attempts, int& events, double& used, Factorise&& factorise) {
  double j = base;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    check_interrupt();
    if (factorise(j)) {
      used = j;
      return true;
    }
    ++events;
    j = j > 0.0 ? j * 10.0 : 1e-10;
  }
  return false;
}

// Cholesky factor of M + j scale I on the jitter schedule of with_jitter().
inline bool jittered_cholesky(const Eigen::MatrixXd& M, double base, double scale, int attempts,
                              Eigen::LLT<Eigen::MatrixXd>& llt, int& events, double& used) {
  return with_jitter(base, attempts, events, used, [&](double j) {
    if (j > 0.0) {
      Eigen::MatrixXd Mj = M;
      Mj.diagonal().array() += j * scale;
      llt = CheckedLLT(Mj);
    } else {
      llt = CheckedLLT(M);
    }
    return llt.info() == Eigen::Success && llt.matrixLLT().diagonal().minCoeff() > 0.0;
  });
}

// The same into `factor`, whose storage is reused (the lower triangle holds
// the factor of M + diag(d) + j scale I, the strict upper one is scratch): a
// GP objective evaluated 100 times keeps its n x n buffers, whose fresh pages
// cost more than the factorisation on small problems.
inline bool jittered_cholesky(const Eigen::Ref<const Eigen::MatrixXd>& M, const Eigen::VectorXd& d, double base,
                              double scale, int attempts, Eigen::MatrixXd& factor, int& events, double& used) {
  return with_jitter(base, attempts, events, used, [&](double j) {
    factor = M;
    factor.diagonal() += d;
    factor.diagonal().array() += j * scale;
    return cholesky_in_place(factor) && factor.diagonal().minCoeff() > 0.0;
  });
}

// Cholesky factor of a symmetric positive-definite H, retried with a growing
// jitter (1e-10 to 1e-2) scaled to H's diagonal when it fails; each retry is
// counted. This form writes into `llt`, whose storage a solver can keep from
// one iteration to the next (see ArdPosterior::weight_space).
inline void robust_cholesky(const Eigen::MatrixXd& H, int& jitter_events, Eigen::LLT<Eigen::MatrixXd>& llt) {
  double used = 0.0;
  const double scale = std::max(H.diagonal().cwiseAbs().mean(), 1e-300);
  if (jittered_cholesky(H, 0.0, scale, 10, llt, jitter_events, used)) return;
  throw std::runtime_error("the posterior precision matrix is not positive definite even with jitter; "
                           "the basis is probably degenerate (duplicated or constant columns)");
}

inline Eigen::LLT<Eigen::MatrixXd> robust_cholesky(const Eigen::MatrixXd& H, int& jitter_events) {
  Eigen::LLT<Eigen::MatrixXd> llt;
  robust_cholesky(H, jitter_events, llt);
  return llt;
}

// Columns per panel so that one panel of an O(rows * cols * width) product
// is about 5e8 flops (a fraction of a second) between interrupt checks.
inline Eigen::Index interrupt_panel(Eigen::Index rows, Eigen::Index cols) {
  const double per_col = 2.0 * std::max<double>(1.0, static_cast<double>(rows)) * std::max<double>(1.0, cols);
  return std::max<Eigen::Index>(32, static_cast<Eigen::Index>(5e8 / per_col));
}

// diag(d) A into `out` (rows(A) x cols(A)), column by column: Eigen's
// diagonal product assigned into a block does not vectorise, and a diagonal
// given as an expression is evaluated again for every entry.
inline void scale_rows_into(const Eigen::VectorXd& d, const Eigen::Ref<const Eigen::MatrixXd>& A,
                            Eigen::Ref<Eigen::MatrixXd> out) {
  for (Eigen::Index j = 0; j < A.cols(); ++j) out.col(j) = d.cwiseProduct(A.col(j));
}

// A' A: its lower triangle by column panels, half the flops of the general
// product, with an interrupt check between them, then mirrored. `threads`
// share the SIMD path's panels (the same bits for any number); Eigen's
// product, where the CPU has no AVX2, runs on one.
inline Eigen::MatrixXd gram_matrix(const Eigen::Ref<const Eigen::MatrixXd>& A, int threads = 1) {
  const Eigen::Index S = A.cols();
  Eigen::MatrixXd G(S, S);  // every entry is written below (a zero fill of fresh memory would not see an interrupt)
  for_panels(S, interrupt_panel(A.rows(), S), [&](Eigen::Index j, Eigen::Index nb) {
    if (!simd::gram_panel(A, j, nb, G, threads))  // AVX-512 or AVX2 + FMA where the CPU has them (simd.hpp)
      G.block(j, j, S - j, nb).noalias() = A.middleCols(j, S - j).transpose() * A.middleCols(j, nb);
  });
  // From column 1: column 0 mirrors nothing, and Eigen's debug-mode aliasing
  // check would see two empty blocks at the same address.
  for (Eigen::Index j = 1; j < S; ++j) G.col(j).head(j) = G.row(j).head(j).transpose();
  return G;
}

// A' B by column panels of B with an interrupt check between them: the
// Gram product's SIMD blocks where the CPU has them, else Eigen's product.
inline Eigen::MatrixXd cross_matrix(const Eigen::Ref<const Eigen::MatrixXd>& A,
                                    const Eigen::Ref<const Eigen::MatrixXd>& B) {
  Eigen::MatrixXd C(A.cols(), B.cols());
  for_panels(B.cols(), interrupt_panel(A.rows(), A.cols()), [&](Eigen::Index j, Eigen::Index nb) {
    if (!simd::cross_panel(A, B, j, nb, C)) C.middleCols(j, nb).noalias() = A.transpose() * B.middleCols(j, nb);
  });
  return C;
}

// Blocks of the in-place triangular routines invert_lower() and
// lower_gram_in_place(), in matrix-matrix products as LAPACK's trtri and
// lauum.
constexpr Eigen::Index kTriangularBlock = 64;

// D (lower triangular, at most a block) becomes D^-1, its strict upper
// triangle zero, column by column from the last as LAPACK's trti2: each column below the
// diagonal is the inverted part below it times that column, by axpys (no
// sums whose order depends on an address). n^3/6 multiply-adds, a third of
// a solve against the identity, whose small blocks ran at a fraction of the
// SIMD product's speed.
inline void invert_lower_unblocked(Eigen::Ref<Eigen::MatrixXd> D) {
  const Eigen::Index n = D.rows();
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    D(j, j) = 1.0 / D(j, j);
    const Eigen::Index r = n - j - 1;
    auto x = D.col(j).tail(r);
    const auto T = D.bottomRightCorner(r, r);  // already inverted
    for (Eigen::Index k = r - 1; k >= 0; --k) {  // x = T x in place, from the last entry
      const double xk = x(k);
      x(k) = T(k, k) * xk;
      x.tail(r - k - 1) += xk * T.col(k).tail(r - k - 1);
    }
    x *= -D(j, j);
  }
  D.triangularView<Eigen::StrictlyUpper>().setZero();
}

// L (lower triangular) becomes L^-1 in its lower triangle (the strict upper
// one is left as it was), by blocks of columns: n^3/3 flops, where a solve
// against the identity does not see that the result is triangular and takes n^3.
inline void invert_lower(Eigen::Ref<Eigen::MatrixXd> L) {
  const Eigen::Index n = L.rows();
  const Eigen::Index last = ((n - 1) / kTriangularBlock) * kTriangularBlock;
  Eigen::MatrixXd work(std::max<Eigen::Index>(n - kTriangularBlock, 0), kTriangularBlock);  // touched once
  for (Eigen::Index j = last; j >= 0; j -= kTriangularBlock) {
    check_interrupt();
    const Eigen::Index jb = std::min(kTriangularBlock, n - j), rest = n - j - jb;
    auto diag = L.block(j, j, jb, jb);
    Eigen::MatrixXd inv = diag;
    invert_lower_unblocked(inv);
    if (rest > 0) {
      // below the diagonal block: -L22^-1 L21 L11^-1, L22^-1 already in place
      auto below = L.block(j + jb, j, rest, jb);
      const auto L22 = L.block(j + jb, j + jb, rest, rest);
      auto t = work.topLeftCorner(rest, jb);
      t.setZero();
      if (simd::multiply_add(L22, below, t, -1.0, false, simd::Shape::lower)) {
        below.setZero();
        simd::multiply_add(t, inv, below, 1.0, false, simd::Shape::full);
      } else {
        below = -(L22.triangularView<Eigen::Lower>() * below);
        diag.triangularView<Eigen::Lower>().solveInPlace<Eigen::OnTheRight>(below);
      }
    }
    diag.triangularView<Eigen::Lower>() = inv;
  }
}

// Li (lower triangular) becomes the lower triangle of Li' Li, as LAPACK's
// lauum: n^3/3 flops. By the SIMD product where the CPU has one: Li is
// mirrored into its strict upper triangle, which with the diagonal holds
// U = Li', and U U' fills the strict lower triangle by column panels (an
// interrupt check between them; no n x n buffer, whose first touch cost as
// much as the product at n = 300); the diagonal, the columns' sums of
// squares, is taken first. Else by blocks of Eigen's products.
inline void lower_gram_in_place(Eigen::Ref<Eigen::MatrixXd> Li) {
  const Eigen::Index n = Li.rows();
  if (simd::avx2()) {
    Eigen::VectorXd d(n);
    for (Eigen::Index i = 0; i < n; ++i) {  // in order: its bits do not depend on the address
      double sum = 0.0;
      for (Eigen::Index p = i; p < n; ++p) sum += Li(p, i) * Li(p, i);
      d(i) = sum;
    }
    Li.triangularView<Eigen::StrictlyUpper>() = Li.transpose();
    Li.triangularView<Eigen::StrictlyLower>().setZero();
    // G(i, j) = sum_p U(i, p) U(j, p) for i > j, U = Li' (U(i, p) = 0 for p < i)
    for_panels(n, interrupt_panel(n, n), [&](Eigen::Index j, Eigen::Index nb) {
      simd::multiply_add(Li.middleRows(j, n - j), Li.middleRows(j, nb), Li.block(j, j, n - j, nb), 1.0, true,
                         simd::Shape::upper, j, 1);
    });
    Li.diagonal() = d;
    return;
  }
  for (Eigen::Index i = 0; i < n; i += kTriangularBlock) {
    check_interrupt();
    const Eigen::Index ib = std::min(kTriangularBlock, n - i), rest = n - i - ib;
    auto diag = Li.block(i, i, ib, ib);
    auto left = Li.block(i, 0, ib, i);  // the block row left of the diagonal block
    const Eigen::MatrixXd d = diag.triangularView<Eigen::Lower>();
    left = d.transpose() * left;
    diag.triangularView<Eigen::Lower>() = d.transpose() * d;
    if (rest > 0) {
      const auto below = Li.block(i + ib, i, rest, ib);
      left.noalias() += below.transpose() * Li.block(i + ib, 0, rest, i);
      diag.selfadjointView<Eigen::Lower>().rankUpdate(below.transpose());
    }
  }
}

// Li (lower triangular) becomes Li' Li in both triangles: lower_gram_in_place(), then the mirror.
inline void gram_in_place(Eigen::Ref<Eigen::MatrixXd> Li) {
  lower_gram_in_place(Li);
  Li.triangularView<Eigen::StrictlyUpper>() = Li.transpose();
}

// L, the lower Cholesky factor of H, becomes H^-1 = L^-T L^-1 (both
// triangles), in place as LAPACK's potri (invert_lower(), then
// gram_in_place()): 2 S^3 / 3 flops, where solving against the
// identity takes 2 S^3.
inline void cholesky_inverse_in_place(Eigen::Ref<Eigen::MatrixXd> L) {
  invert_lower(L);
  gram_in_place(L);
}

// H^-1 from the Cholesky factor of H.
inline Eigen::MatrixXd cholesky_inverse(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  Eigen::MatrixXd out = llt.matrixLLT();
  cholesky_inverse_in_place(out);
  return out;
}

// B becomes L^-1 B (L: m x m lower triangular), by blocks of rows: each
// block takes the product of the rows solved above it and is then
// multiplied by its diagonal block's inverse, both through the SIMD product
// (simd.hpp; the inverses cost m kTriangularBlock^2 / 3 flops, the solve
// m^2 columns); else Eigen's triangular solve, whose small diagonal solves
// took as long as the SIMD products (sparse GP, m = 500).
inline void solve_lower_in_place(const Eigen::Ref<const Eigen::MatrixXd>& L, Eigen::Ref<Eigen::MatrixXd> B) {
  const Eigen::Index m = L.rows();
  if (!simd::avx2() || m <= kTriangularBlock) {
    L.triangularView<Eigen::Lower>().solveInPlace(B);
    return;
  }
  Eigen::MatrixXd inv, work(kTriangularBlock, B.cols());
  for (Eigen::Index i = 0; i < m; i += kTriangularBlock) {
    const Eigen::Index ib = std::min(kTriangularBlock, m - i);
    auto rows = B.middleRows(i, ib);
    if (i > 0) simd::multiply_add(L.block(i, 0, ib, i), B.topRows(i), rows, -1.0);
    inv = L.block(i, i, ib, ib);
    invert_lower_unblocked(inv);
    auto t = work.topRows(ib);
    t.setZero();
    simd::multiply_add(inv, rows, t, 1.0, false, simd::Shape::lower);
    rows = t;
  }
}

// A B: the SIMD product where the CPU has one (simd.hpp), else Eigen's.
inline Eigen::MatrixXd product(const Eigen::Ref<const Eigen::MatrixXd>& A, const Eigen::Ref<const Eigen::MatrixXd>& B) {
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(A.rows(), B.cols());
  if (!simd::multiply_add(A, B, C, 1.0)) C.noalias() = A * B;
  return C;
}

// Posterior of the weights on columns `used` of Phi, given their precisions
// alpha_used and the noise precision beta. PhiT_PhiU = Phi_used^T Phi_used,
// PhiU_t = Phi_used^T t.
struct Posterior {
  Eigen::MatrixXd Sigma;
  Eigen::MatrixXd Linv;    // L^-1 in its lower triangle (H = L L', Sigma = Linv' Linv); the strict upper one is scratch
  Eigen::VectorXd mu;
  double log_det_H = 0.0;  // log |beta Phi_u^T Phi_u + A|
};

inline Posterior weight_posterior(const Eigen::MatrixXd& PhiU_PhiU, const Eigen::VectorXd& PhiU_t,
                                  const Eigen::VectorXd& alpha_used, double beta, int& jitter_events) {
  Eigen::MatrixXd H = beta * PhiU_PhiU;
  H.diagonal() += alpha_used;
  const auto llt = robust_cholesky(H, jitter_events);
  Posterior p;
  p.Linv = llt.matrixLLT();
  invert_lower(p.Linv);
  p.Sigma = p.Linv;  // cholesky_inverse_in_place(), keeping the inverse factor for sandwich_diagonal()
  gram_in_place(p.Sigma);
  p.mu = beta * (p.Sigma * PhiU_t);
  p.log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  return p;
}

// diag(C Sigma C') for Sigma = Linv' Linv (Linv lower triangular, its
// strict upper triangle not read): the squared column norms of Linv C',
// half the flops of forming C Sigma. The S of every column after a noise
// update, where it was a fast fit's largest product.
inline Eigen::VectorXd sandwich_diagonal(const Eigen::Ref<const Eigen::MatrixXd>& C,
                                         const Eigen::Ref<const Eigen::MatrixXd>& Linv) {
  Eigen::MatrixXd V = Eigen::MatrixXd::Zero(Linv.rows(), C.rows());
  if (!simd::multiply_add(Linv, C, V, 1.0, true, simd::Shape::lower))
    V.noalias() = Linv.triangularView<Eigen::Lower>() * C.transpose();
  return V.colwise().squaredNorm().transpose();
}

// log N(t | 0, L + Phi_u A^-1 Phi_u^T), L = diag(lambda), through the weight
// posterior: log_det_H = log |Phi_u' L^-1 Phi_u + A|, weighted_rss = r' L^-1 r
// with r = t - Phi_u mu, log_det_noise = log |L|. No cancellation when lambda is tiny.
inline double log_evidence(double log_det_H, const Eigen::VectorXd& alpha_used, const Eigen::VectorXd& mu,
                           double log_det_noise, double weighted_rss, Eigen::Index n) {
  return -0.5 * (static_cast<double>(n) * kLog2Pi + log_det_H - alpha_used.array().log().sum() + log_det_noise +
                 weighted_rss + (alpha_used.array() * mu.array().square()).sum());
}

// Maps the posterior of weights fitted on columns divided by `scale` back to
// the columns as given: mu / scale, Sigma likewise, precisions * scale^2.
inline void weights_to_caller_units(const std::vector<Eigen::Index>& relevant, const Eigen::VectorXd& scale,
                                    Eigen::VectorXd& mu, Eigen::MatrixXd& Sigma, Eigen::VectorXd& precisions) {
  Eigen::VectorXd inv_used(relevant.size());
  for (std::size_t k = 0; k < relevant.size(); ++k) inv_used(k) = 1.0 / scale(relevant[k]);
  mu = mu.cwiseProduct(inv_used);
  Sigma = inv_used.asDiagonal() * Sigma * inv_used.asDiagonal();
  precisions = precisions.cwiseProduct(scale.cwiseAbs2());
}

// The median of v (the middle value, or the mean of the two); reorders v.
inline double median_in_place(std::vector<double>& v) {
  const std::size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  double m = v[h];
  if (v.size() % 2 == 0) m = 0.5 * (m + *std::max_element(v.begin(), v.begin() + h));
  return m;
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
  const double med = median_in_place(a);
  for (Eigen::Index i = 0; i < n; ++i) a[i] = std::abs(r(i) - med);
  const double mad = 1.482602218505602 * median_in_place(a);
  double v = mad * mad;
  if (!(v > 0.0) || !std::isfinite(v)) v = r.squaredNorm() / static_cast<double>(n);
  if (!(v > 1e-300) || !std::isfinite(v)) v = 1e-300;
  return v;
}

// The range of the uniform outlier class of Student-t noise (0: no such class).
inline double outlier_class_range(const ProblemSpec& problem, const NoiseControl& noise, const Eigen::VectorXd& y) {
  return problem.student && noise.outlier_class ? y.maxCoeff() - y.minCoeff() : 0.0;
}

// The noise bounds [lambda_min s2_lo, lambda_max s2_hi], where s2_lo and s2_hi
// are the smallest and largest robust residual variances seen so far: the box
// only grows, so EM stays monotone, and a first fit pulled by a gross outlier
// cannot hold the floor up.
class NoiseBounds {
 public:
  NoiseBounds(double min_factor, double max_factor) : min_factor_(min_factor), max_factor_(max_factor) {}
  void widen(double s2) {  // the residuals' variance (robust_residual_variance(), or their mean square)
    if (!(lo_ > 0.0) || s2 < lo_) lo_ = s2;
    if (s2 > hi_) hi_ = s2;
  }
  // At least kExactFloor: on a response the basis fits exactly the residuals
  // are rounding, the evidence grows without bound as the noise falls to
  // them, and MacKay's updates then ran to the iteration cap or lost the
  // posterior's factorisation (noiseless y = x2, 250 rows). In standard
  // units (the response's robust scale is 1) it is a noise sd of 1e-10,
  // far below any measured response's.
  static constexpr double kExactFloor = 1e-20;
  double lower() const { return std::max(min_factor_ * lo_, kExactFloor); }
  double upper() const { return max_factor_ * hi_; }

 private:
  double min_factor_, max_factor_, lo_ = -1.0, hi_ = -1.0;
};

// lambda <- exp((1 - eta) log lambda + eta log clip(target)): the one noise
// step of every solver (a NaN target keeps its lambda); `linear` damps lambda
// itself, (1 - eta) lambda + eta clip(target) (the joint-ARD paper's moving
// average). Returns the relative l_inf change of log lambda,
// max |change| / (1 + max |log lambda|).
inline double damped_noise_step(Eigen::VectorXd& lambda, const Eigen::VectorXd& target, const NoiseBounds& bounds,
                                double eta, bool linear = false) {
  const double lo = bounds.lower(), hi = bounds.upper();
  double change = 0.0, biggest = 0.0;
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    const double old = std::log(lambda(i));
    const double v = std::clamp(std::isnan(target(i)) ? lambda(i) : target(i), lo, hi);
    const double now = linear ? std::log((1.0 - eta) * lambda(i) + eta * v) : (1.0 - eta) * old + eta * std::log(v);
    change = std::max(change, std::abs(now - old));
    biggest = std::max(biggest, std::abs(now));
    lambda(i) = std::exp(now);
  }
  return change / (1.0 + biggest);
}

inline void check_inputs(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t) {
  if (Phi.rows() != t.size()) throw std::invalid_argument("the basis has a different number of rows than the targets");
  if (Phi.rows() < 2) throw std::invalid_argument("at least two observations are needed");
  if (Phi.cols() < 1) throw std::invalid_argument("the basis has no columns");
  if (!Phi.allFinite()) throw std::invalid_argument("the basis contains NA, NaN or infinite values");
  if (!t.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
}

}  // namespace sparsebayes
