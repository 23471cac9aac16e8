// The state of the fast sequential marginal-likelihood solver (Tipping & Faul
// 2003, SparseBayes v2) and what every likelihood path shares: the choice of
// the next action and the incremental updates of Sigma, mu, S and Q. Works on
// the basis with columns scaled to unit norm (Phi diag(inv_scale)), applied on
// the fly so a large basis is never copied; see fit.hpp. The caches hold
// Phi' Phi_u and Phi' t, B = beta I being applied by the updates (shared
// noise), or Phi' B Phi_u and Phi' B t for a weight vector B (per-sample
// noise, or a class's IRLS weights in multinomial.hpp): one set of updates
// serves every path.
#pragma once

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "model.hpp"
#include "smoothness.hpp"
#include "data.hpp"

namespace sparsebayes {

namespace detail {

inline void remove_column(Eigen::MatrixXd& X, Eigen::Index k) {
  const Eigen::Index c = X.cols();
  if (k < c - 1) X.middleCols(k, c - k - 1) = X.rightCols(c - k - 1).eval();
  X.conservativeResize(Eigen::NoChange, c - 1);
}

inline void remove_row_and_column(Eigen::MatrixXd& X, Eigen::Index k) {
  const Eigen::Index c = X.cols();
  if (k < c - 1) {
    X.middleCols(k, c - k - 1) = X.rightCols(c - k - 1).eval();
    X.middleRows(k, c - k - 1) = X.bottomRows(c - k - 1).eval();
  }
  X.conservativeResize(c - 1, c - 1);
}

inline void remove_entry(Eigen::VectorXd& v, Eigen::Index k) {
  const Eigen::Index c = v.size();
  if (k < c - 1) v.segment(k, c - k - 1) = v.tail(c - k - 1).eval();
  v.conservativeResize(c - 1);
}

}  // namespace detail

// Phi' phi_m of a basis's unweighted rows, kept once formed (up to 64 MB of
// numbers). Columns are deleted and added again within a fit (1000 centres
// at n = 1e5 added 111 times to keep 33, each addition 1e8 multiply-adds),
// and the candidate fits of one rvm() (R/learn_widths.R) add mostly the same
// columns of one basis, so fits may share one (fit_model()'s `products`).
// It answers for the basis it was formed from: another clears it.
class ColumnProducts {
 public:
  static constexpr Eigen::Index kNumbers = Eigen::Index(1) << 23;

  const Eigen::VectorXd& of(const Eigen::Ref<const Eigen::MatrixXd>& Phi, Eigen::Index m) {
    if (Phi.data() != data_ || Phi.rows() != rows_ || Phi.cols() != cols_ || Phi.outerStride() != stride_) {
      data_ = Phi.data();
      rows_ = Phi.rows();
      cols_ = Phi.cols();
      stride_ = Phi.outerStride();
      kept_.assign(cols_, Eigen::VectorXd());
      numbers_ = 0;
    }
    Eigen::VectorXd& c = kept_[m];
    if (c.size()) return c;
    if (numbers_ + cols_ > kNumbers) {
      scratch_ = Phi.transpose() * Phi.col(m);
      return scratch_;
    }
    c = Phi.transpose() * Phi.col(m);
    numbers_ += cols_;
    return c;
  }

 private:
  const double* data_ = nullptr;
  Eigen::Index rows_ = -1, cols_ = -1, stride_ = -1;
  std::vector<Eigen::VectorXd> kept_;
  Eigen::Index numbers_ = 0;
  Eigen::VectorXd scratch_;
};

// The action chosen for one iteration: its column, the column's new alpha
// and the predicted gain in the log posterior.
struct FastChoice {
  int action = kTerminate;
  Eigen::Index column = -1;
  double alpha = 0.0;
  double gain = 0.0;
  bool changes_model() const { return action != kTerminate && action != kAlignmentSkip; }
};

// What an action (or a batch of them) changes: a copy of it undoes them.
struct FastUndoable {
  double log_ml = 0.0;      // log p(t | alpha, noise), exact after the path's statistics()
  double log_posterior = 0.0;  // what the solver climbs: log_ml plus the log priors
  std::vector<Eigen::Index> used;  // relevant columns
  Eigen::VectorXd alpha, mu;       // per relevant column
  Eigen::MatrixXd Sigma;
  Eigen::MatrixXd PhiT_PhiU;       // Phi' B Phi_used, M x S: the cache that keeps steps cheap
  Eigen::VectorXd PhiT_t;          // Phi' B t
  Eigen::VectorXd S_in, Q_in;      // S_m, Q_m of every column
  std::vector<char> aligned_out;   // columns barred from addition by the alignment test
  std::vector<std::pair<Eigen::Index, Eigen::Index>> aligned_pairs;  // (barred, relevant twin)
  std::vector<char> barred;        // columns barred from the model (multinomial.hpp: its own alignment test)
};

// A plain struct: the loop and the likelihood paths all work on this state.
struct FastState : FastUndoable {
  FastState(const Data& data_, const Eigen::VectorXd& inv_scale_, const ProblemSpec& problem_, const LoopControl& loop_,
            const NoiseControl& noise_, const FastControl& fast_, std::shared_ptr<ColumnProducts> products_ = nullptr)
      : data(data_), inv_scale(inv_scale_), t(data_.in_memory() ? data_.targets() : Eigen::VectorXd()),
        problem(problem_), loop(loop_), noise(noise_), fast(fast_),
        products(products_ ? std::move(products_) : std::make_shared<ColumnProducts>()), n(data_.rows()),
        M(data_.cols()),
        beta(1.0 / (problem_.noise_variance > 0.0 ? problem_.noise_variance
                                                  : initial_noise_variance(t, problem_, noise_))) {
    aligned_out.assign(M, 0);
    barred.assign(M, 0);
  }

  // The rows in memory, or the sums of rows not held (data.hpp): the caller's, not copied (see fit.hpp).
  const Data& data;
  Eigen::VectorXd inv_scale;  // 1 / column norms of Phi
  Eigen::VectorXd t;          // the targets (none from the sums)
  ProblemSpec problem;  // the parts of SolverOptions the fast solver reads
  LoopControl loop;
  NoiseControl noise;
  FastControl fast;
  std::shared_ptr<ColumnProducts> products;  // Phi' phi_m of the rows, kept (shared by fits of one basis)
  Eigen::Index n, M;
  double beta;         // shared noise precision (the B = beta I of unweighted caches; the smoothness prior's)
  Eigen::VectorXd B;   // the weights inside the caches (empty: none)
  int jitter_events = 0;

  using Snapshot = FastUndoable;
  Snapshot save() const { return *this; }
  void restore(const Snapshot& s) { FastUndoable::operator=(s); }

  bool weighted() const { return B.size() > 0; }
  bool in_memory() const { return data.in_memory(); }
  const Eigen::Ref<const Eigen::MatrixXd>& Phi() const { return data.basis(); }

  // Phi mu (rows in memory).
  Eigen::VectorXd fitted() const {
    const Eigen::Ref<const Eigen::MatrixXd>& Phi = this->Phi();
    Eigen::VectorXd y = Eigen::VectorXd::Zero(Phi.rows());
    for (std::size_t k = 0; k < used.size(); ++k) y += (mu(k) * inv_scale(used[k])) * Phi.col(used[k]);
    return y;
  }

  // The relevant columns at unit norm, n x S.
  Eigen::MatrixXd unit_columns() const {
    const Eigen::Ref<const Eigen::MatrixXd>& Phi = this->Phi();
    const Eigen::Index S = used.size();
    Eigen::MatrixXd PhiU(Phi.rows(), S);
    for (Eigen::Index k = 0; k < S; ++k) PhiU.col(k) = Phi.col(used[k]) * inv_scale(used[k]);
    return PhiU;
  }

  // B-weighted inner products of every unit-norm column with unit-norm column m: O(n M)
  // from the rows, O(M) from the statistics.
  Eigen::VectorXd cross(Eigen::Index m) const {
    if (!in_memory()) return data.sums().gram.col(m).cwiseProduct(inv_scale) * inv_scale(m);
    const Eigen::Ref<const Eigen::MatrixXd>& Phi = this->Phi();
    if (weighted()) return (Phi.transpose() * B.cwiseProduct(Phi.col(m))).cwiseProduct(inv_scale) * inv_scale(m);
    return products->of(Phi, m).cwiseProduct(inv_scale) * inv_scale(m);
  }

  // Cosine of unit-norm columns m and k (the alignment test).
  double cosine(Eigen::Index m, Eigen::Index k) const {
    if (!in_memory()) return data.sums().gram(m, k) * inv_scale(m) * inv_scale(k);
    return Phi().col(m).dot(Phi().col(k)) * inv_scale(m) * inv_scale(k);
  }

  Eigen::Index position_in_used(Eigen::Index m) const { return std::find(used.begin(), used.end(), m) - used.begin(); }

  // The one-column model the fit starts from (the caller sets B first).
  void begin(Eigen::Index first, double a, double mu0) {
    used.assign(1, first);
    alpha = Eigen::VectorXd::Constant(1, std::clamp(a, 1e-3, 1e3));
    mu = Eigen::VectorXd::Constant(1, mu0);
    PhiT_PhiU = cross(first);
  }

  // The model of the columns whose precisions `a` (one per column) are finite (a warm start).
  void begin_model(const Eigen::VectorXd& a) {
    used.clear();
    for (Eigen::Index m = 0; m < M; ++m)
      if (std::isfinite(a(m))) used.push_back(m);
    if (used.empty()) throw std::invalid_argument("a warm start needs at least one column in the model");
    const Eigen::Index S = used.size();
    alpha.resize(S);
    PhiT_PhiU.resize(M, S);
    for (Eigen::Index k = 0; k < S; ++k) {
      alpha(k) = a(used[k]);
      PhiT_PhiU.col(k) = cross(used[k]);
    }
    mu = Eigen::VectorXd::Zero(S);
  }

  // Sigma and mu from the caches, with noise precision b outside them: O(M S^2).
  Posterior posterior_from_caches(double b) {
    const Eigen::Index S = used.size();
    Eigen::MatrixXd PhiU_PhiU(S, S);
    Eigen::VectorXd PhiU_t(S);
    for (Eigen::Index k = 0; k < S; ++k) {
      PhiU_PhiU.row(k) = PhiT_PhiU.row(used[k]);
      PhiU_t(k) = PhiT_t(used[k]);
    }
    Posterior p = weight_posterior(PhiU_PhiU, PhiU_t, alpha, b, jitter_events);
    Sigma = p.Sigma;
    mu = p.mu;
    return p;
  }

  // S_m = phi' B phi - phi' B Phi_u Sigma Phi_u' B phi of every column, from the weighted cache and
  // the posterior's inverse factor (Posterior::Linv).
  void weighted_sparsity(const Eigen::MatrixXd& Linv) {
    Eigen::VectorXd phi_B_phi(M);
    const Eigen::Ref<const Eigen::MatrixXd>& Phi = this->Phi();
    for (Eigen::Index m = 0; m < M; ++m) phi_B_phi(m) = Phi.col(m).cwiseAbs2().dot(B) * inv_scale(m) * inv_scale(m);
    S_in = phi_B_phi - sandwich_diagonal(PhiT_PhiU, Linv);
  }

  // s_m and q_m of every column, a relevant one's with it left out.
  void leave_one_out(Eigen::VectorXd& s, Eigen::VectorXd& q) const {
    const Eigen::Index S = used.size();
    s = S_in;
    q = Q_in;
    for (Eigen::Index k = 0; k < S; ++k) {
      // s_m, q_m of a relevant column with it left out. alpha S / (alpha - S)
      // cancels catastrophically when S_m is close to alpha_m (a well-
      // determined weight with a small precision); then the marginal posterior
      // of w_m, N(q_m / (alpha_m + s_m), 1 / (alpha_m + s_m)), gives them.
      const Eigen::Index m = used[k];
      if (S_in(m) < 0.5 * alpha(k)) {
        const double d = alpha(k) - S_in(m);
        s(m) = alpha(k) * S_in(m) / d;
        q(m) = alpha(k) * Q_in(m) / d;
      } else {
        s(m) = 1.0 / Sigma(k, k) - alpha(k);
        q(m) = mu(k) / Sigma(k, k);
      }
    }
  }

  // The action with the largest gain in the log posterior.
  FastChoice select() {
    const Eigen::Index S = used.size();
    Eigen::VectorXd s, q;
    leave_one_out(s, q);
    // Each column's best alpha given the others (the smoothness prior's cubic
    // when c > 0) and the gain in the log posterior of moving it there.
    const double c = problem.smoothness;
    Eigen::VectorXd a_new(M), delta = Eigen::VectorXd::Zero(M);
    std::vector<int> act(M, kReestimate);
    std::vector<char> is_used(M, 0);
    bool any_delete = false, any_add = false;
    for (Eigen::Index k = 0; k < S; ++k) {
      const Eigen::Index m = used[k];
      is_used[m] = 1;
      if (barred[m]) continue;
      a_new(m) = optimal_alpha(s(m), q(m), beta, c, fast.zero_factor);
      const double now = smooth_gain(alpha(k), s(m), q(m), beta, c);
      if (std::isfinite(a_new(m))) {
        delta(m) = smooth_gain(a_new(m), s(m), q(m), beta, c) - now;
      } else if (S > 1) {
        any_delete = true;
        act[m] = kDelete;
        delta(m) = -now;
      }
    }
    for (Eigen::Index m = 0; m < M; ++m) {
      if (is_used[m] || aligned_out[m] || barred[m]) continue;
      a_new(m) = optimal_alpha(s(m), q(m), beta, c, fast.zero_factor);
      if (!std::isfinite(a_new(m))) continue;
      any_add = true;
      act[m] = kAdd;
      delta(m) = smooth_gain(a_new(m), s(m), q(m), beta, c);
    }
    if ((any_add && fast.priority_addition) || (any_delete && fast.priority_deletion)) {
      const int keep = any_delete && fast.priority_deletion ? kDelete : kAdd;
      for (Eigen::Index m = 0; m < M; ++m)
        if (act[m] != keep) delta(m) = 0.0;
    }
    FastChoice ch;
    ch.gain = delta.maxCoeff(&ch.column);
    if (!(ch.gain > 0.0)) return FastChoice{kTerminate, ch.column, 0.0, 0.0};
    ch.action = act[ch.column];
    ch.alpha = a_new(ch.column);
    if (ch.action == kReestimate && !any_delete) {
      const double old_alpha = alpha(position_in_used(ch.column));
      if (std::abs(std::log(ch.alpha) - std::log(old_alpha)) < fast.min_delta_log_alpha)
        return FastChoice{kTerminate, ch.column, ch.alpha, 0.0};
    }
    test_alignment(ch);
    return ch;
  }

  // The Gaussian updates of Sigma, mu, S and Q for one action: O(M S), plus
  // O(n M) for an addition.
  void apply(const FastChoice& ch) {
    const Eigen::Index m = ch.column;
    const double b = weighted() ? 1.0 : beta;  // B is inside the weighted caches
    if (ch.action == kReestimate) {
      const Eigen::Index k = position_in_used(m);
      const Eigen::VectorXd s_k = Sigma.col(k);
      const double kappa = 1.0 / (Sigma(k, k) + 1.0 / (ch.alpha - alpha(k)));
      const Eigen::VectorXd tmp = kappa * s_k;
      Sigma -= tmp * s_k.transpose();
      const Eigen::VectorXd delta_mu = -mu(k) * tmp;
      mu += delta_mu;
      const Eigen::VectorXd beta_C_s = b * (PhiT_PhiU * s_k);
      S_in.array() += kappa * beta_C_s.array().square();
      Q_in -= b * (PhiT_PhiU * delta_mu);
      alpha(k) = ch.alpha;
    } else if (ch.action == kAdd) {
      const Eigen::VectorXd PhiT_phi = cross(m);  // the O(n M) step
      const Eigen::VectorXd tmp = b * (Sigma * PhiT_PhiU.row(m).transpose());
      const double s_ii = 1.0 / (ch.alpha + S_in(m));
      const Eigen::VectorXd s_i = -s_ii * tmp;
      const Eigen::Index S = used.size();
      Eigen::MatrixXd Sigma_new(S + 1, S + 1);
      Sigma_new.topLeftCorner(S, S) = Sigma - s_i * tmp.transpose();
      Sigma_new.topRightCorner(S, 1) = s_i;
      Sigma_new.bottomLeftCorner(1, S) = s_i.transpose();
      Sigma_new(S, S) = s_ii;
      Sigma.swap(Sigma_new);
      const double mu_i = s_ii * Q_in(m);
      mu.conservativeResize(S + 1);
      mu.head(S) -= mu_i * tmp;
      mu(S) = mu_i;
      const Eigen::VectorXd mCi = b * (PhiT_phi - PhiT_PhiU * tmp);
      S_in.array() -= s_ii * mCi.array().square();
      Q_in -= mu_i * mCi;
      append_column(m, ch.alpha, PhiT_phi);
    } else if (ch.action == kDelete) {
      const Eigen::Index k = position_in_used(m);
      const double s_kk = Sigma(k, k);
      const Eigen::VectorXd s_k = Sigma.col(k);
      const Eigen::VectorXd tmp = s_k / s_kk;
      Sigma -= tmp * s_k.transpose();
      const double mu_k = mu(k);
      mu -= mu_k * tmp;
      const Eigen::VectorXd jPm = b * (PhiT_PhiU * s_k);
      S_in.array() += jPm.array().square() / s_kk;
      Q_in += jPm * (mu_k / s_kk);
      detail::remove_row_and_column(Sigma, k);
      detail::remove_entry(mu, k);
      remove_column(k);
    }
  }

 private:
  // The alignment test of an addition: a column nearly parallel to a
  // relevant one is barred (until that one leaves) and the step skipped.
  // Column norms are one, so unweighted cached inner products are the cosines.
  void test_alignment(FastChoice& ch) {
    if (ch.action != kAdd || !fast.alignment_test) return;
    bool aligned = false;
    for (std::size_t k = 0; k < used.size(); ++k) {
      if ((weighted() ? cosine(ch.column, used[k]) : PhiT_PhiU(ch.column, k)) > fast.alignment_max) {
        aligned = true;
        aligned_pairs.emplace_back(ch.column, used[k]);
      }
    }
    if (aligned) {
      aligned_out[ch.column] = 1;
      ch.action = kAlignmentSkip;
      ch.gain = 0.0;
    }
  }

  void append_column(Eigen::Index m, double a, const Eigen::VectorXd& PhiT_phi) {
    const Eigen::Index S = used.size();
    PhiT_PhiU.conservativeResize(Eigen::NoChange, S + 1);
    PhiT_PhiU.col(S) = PhiT_phi;
    used.push_back(m);
    alpha.conservativeResize(S + 1);
    alpha(S) = a;
  }

  void remove_column(Eigen::Index k) {
    const Eigen::Index m = used[k];
    detail::remove_entry(alpha, k);
    detail::remove_column(PhiT_PhiU, k);
    used.erase(used.begin() + k);
    // Columns barred because they aligned with m may compete again.
    for (auto it = aligned_pairs.begin(); it != aligned_pairs.end();) {
      if (it->second == m) {
        aligned_out[it->first] = 0;
        it = aligned_pairs.erase(it);
      } else {
        ++it;
      }
    }
  }
};

}  // namespace sparsebayes
