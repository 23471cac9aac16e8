// The multinomial (softmax) RVM: K latent functions f_k = o_k + Phi w_k on
// one basis (o_k a known offset; R passes none: a prior mean of the log
// class shares lost held-out log loss, R/multiclass.R), P(t_i = k) =
// softmax(f_i)_k, and either one precision per basis function and class
// (w_jk ~ N(0, 1 / alpha_jk)) or, with `shared`, one per basis function
// (w_jk ~ N(0, 1 / alpha_j)), so that a basis function is relevant for
// every class or for none (DESIGN.md, "Classifiers"). The
// weight posterior is the Laplace approximation at the joint mode of all K S
// weights, with the softmax's curvature across classes. The precisions are
// chosen by the fast sequential rule (Tipping & Faul) on the K Gaussian
// models that the mode linearises to, class k at the curvature
// B_k = c p_k (1 - p_k) (the Hessian's diagonal blocks): for a shared alpha
// the classes' marginal likelihoods add. Steps are taken in batches at a
// fixed curvature and the joint Laplace evidence at the new mode decides
// whether a batch stands.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "fast_state.hpp"
#include "likelihood.hpp"

namespace sparsebayes {

// Softmax of each row of F, without overflow.
inline Eigen::MatrixXd softmax_rows(const Eigen::MatrixXd& F) {
  Eigen::MatrixXd P = (F.colwise() - F.rowwise().maxCoeff()).array().exp().matrix();
  P.array().colwise() /= P.rowwise().sum().array();
  return P;
}

// sum_i c_i sum_k t_ik log softmax(f_i)_k, with T the n x K class
// indicators (or proportions) and c the case weights (an integer weight
// counts a row that many times).
inline double softmax_log_likelihood(const Eigen::MatrixXd& T, const Eigen::MatrixXd& F, const Eigen::VectorXd& cw) {
  const Eigen::VectorXd top = F.rowwise().maxCoeff();
  const Eigen::VectorXd lse = top.array() + (F.colwise() - top).array().exp().rowwise().sum().log();
  double ll = 0.0;
  for (Eigen::Index i = 0; i < T.rows(); ++i)
    if (cw(i) != 0.0) ll += cw(i) * (T.row(i).dot(F.row(i)) - lse(i) * T.row(i).sum());
  return std::isfinite(ll) ? ll : -kInf;
}

// The latent functions' basis: class k's relevant columns (unit norm),
// n x S_k; the shared model has the same columns in every class.
using ClassColumns = std::vector<Eigen::MatrixXd>;

// Where class k's weights sit in the vector of all: start[k] .. start[k + 1].
inline std::vector<Eigen::Index> class_starts(const ClassColumns& PhiU) {
  std::vector<Eigen::Index> start(PhiU.size() + 1, 0);
  for (std::size_t k = 0; k < PhiU.size(); ++k) start[k + 1] = start[k] + PhiU[k].cols();
  return start;
}

// The joint Laplace approximation at the mode. The weights of all classes
// are one vector, class blocks in order (class_starts()): Sigma's block
// (k, l) is Cov(w_k, w_l).
struct MultinomialMode {
  Eigen::VectorXd w;      // the mode, all classes
  Eigen::MatrixXd P;      // n x K class probabilities at the mode
  Eigen::LLT<Eigen::MatrixXd> H;  // the Hessian's factor: Sigma = H^-1 (formed once, for the fit's result)
  double log_det_H = 0.0;
  double data_ll = 0.0;
  bool converged = true;
};

// -d^2 log p(T, w | alpha) / dw^2: blockdiag_k(Phi_k' diag(c p_k) Phi_k + A_k) - X'X,
// X = [diag(sqrt(c) p_k) Phi_k]_k (the softmax's diag(p) - p p' per row).
inline Eigen::MatrixXd softmax_precision(const ClassColumns& PhiU, const Eigen::MatrixXd& P, const Eigen::VectorXd& cw,
                                         const Eigen::VectorXd& alpha) {
  const std::vector<Eigen::Index> start = class_starts(PhiU);
  const Eigen::Index n = P.rows(), N = start.back();
  const Eigen::VectorXd sc = cw.cwiseSqrt();
  Eigen::MatrixXd X(n, N);
  Eigen::MatrixXd Xk;
  for (std::size_t k = 0; k < PhiU.size(); ++k)
    scale_rows_into(sc.cwiseProduct(P.col(k)), PhiU[k], X.middleCols(start[k], PhiU[k].cols()));
  Eigen::MatrixXd H = -gram_matrix(X);  // Gram products: the SIMD path where the CPU has one
  for (std::size_t k = 0; k < PhiU.size(); ++k) {
    Xk.resize(n, PhiU[k].cols());
    scale_rows_into(cw.cwiseProduct(P.col(k)).cwiseSqrt(), PhiU[k], Xk);
    H.block(start[k], start[k], PhiU[k].cols(), PhiU[k].cols()) += gram_matrix(Xk);
  }
  H.diagonal() += alpha;
  return H;
}

// The mode of log p(T | F) - sum alpha w^2 / 2, F_k = Phi_k w_k + offset_k,
// by Newton steps from w, with the step control of laplace_mode()
// (likelihood.hpp): at most 25 steps, each halved down to 1/2^8 until the
// log joint rises; stationary at a gradient norm below 1e-6 per weight or a
// Newton decrement below 1e-14 of the log joint's magnitude.
inline MultinomialMode multinomial_mode(const ClassColumns& PhiU, const Eigen::MatrixXd& T, const Eigen::VectorXd& cw,
                                        const Eigen::MatrixXd& offset, const Eigen::VectorXd& alpha, Eigen::VectorXd w,
                                        int& jitter_events) {
  const std::vector<Eigen::Index> start = class_starts(PhiU);
  const Eigen::Index K = T.cols(), N = start.back();
  auto latent = [&](const Eigen::VectorXd& wv) {
    Eigen::MatrixXd F = offset;
    for (Eigen::Index k = 0; k < K; ++k) F.col(k) += PhiU[k] * wv.segment(start[k], PhiU[k].cols());
    return F;
  };
  auto log_joint = [&](const Eigen::VectorXd& wv, Eigen::MatrixXd& F) {
    F = latent(wv);
    const double v = softmax_log_likelihood(T, F, cw) - 0.5 * alpha.dot(wv.cwiseAbs2());
    return std::isfinite(v) ? v : -kInf;
  };
  MultinomialMode md;
  Eigen::MatrixXd F;
  double lj = log_joint(w, F);
  if (!(lj > -kInf)) {
    w.setZero();
    lj = log_joint(w, F);
  }
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::VectorXd g(N);
  md.converged = false;
  for (int it = 0; it <= 25; ++it) {
    check_interrupt();
    md.P = softmax_rows(F);
    const Eigen::MatrixXd R = cw.asDiagonal() * (T - md.P);
    for (Eigen::Index k = 0; k < K; ++k) g.segment(start[k], PhiU[k].cols()) = PhiU[k].transpose() * R.col(k);
    g -= alpha.cwiseProduct(w);
    llt = robust_cholesky(softmax_precision(PhiU, md.P, cw, alpha), jitter_events);
    const Eigen::VectorXd delta = llt.solve(g);
    const double decrement = g.dot(delta);
    if (g.norm() / static_cast<double>(N) < 1e-6 || decrement < 1e-14 * (1.0 + std::abs(lj))) {
      md.converged = true;
      break;
    }
    if (it == 25) break;
    if (!damped_newton_step(w, F, lj, delta, log_joint)) {
      md.converged = decrement < 1e-8 * (1.0 + std::abs(lj));
      break;
    }
  }
  md.w = w;
  md.log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  md.H = std::move(llt);
  md.data_ll = softmax_log_likelihood(T, F, cw);
  return md;
}

// Laplace approximation of log p(T | alpha), alpha the precisions of all
// classes' weights (a shared precision once per class).
inline double multinomial_log_evidence(const MultinomialMode& md, const Eigen::VectorXd& alpha) {
  return md.data_ll - 0.5 * alpha.dot(md.w.cwiseAbs2()) + 0.5 * alpha.array().log().sum() - 0.5 * md.log_det_H;
}

// The marginal likelihood of a column at precision a, summed over the classes
// whose sparsity and quality factors are s and q (Tipping & Faul's l(a) per
// class; 0 at a = inf).
inline double shared_gain(double a, const Eigen::VectorXd& s, const Eigen::VectorXd& q) {
  double g = 0.0;
  for (Eigen::Index k = 0; k < s.size(); ++k) g += smooth_gain(a, s(k), q(k), 1.0, 0.0);
  return g;
}

// The precision a maximising shared_gain(a), inf when the column explains
// nothing (sum_k q_k^2 - s_k not above zero_factor, or no finite a gains).
// a^2 dl/da * 2 = sum_k a s_k / (a + s_k) - a^2 q_k^2 / (a + s_k)^2 is
// positive at small a and tends to sum_k s_k - q_k^2 < 0, so the maximum
// is bracketed and bisected in log a. With one class it is s^2 / (q^2 - s).
inline double shared_alpha(const Eigen::VectorXd& s, const Eigen::VectorXd& q, double zero_factor) {
  if (!((q.cwiseAbs2() - s).sum() > zero_factor)) return kInf;
  auto rising = [&](double a) {
    double h = 0.0;
    for (Eigen::Index k = 0; k < s.size(); ++k) {
      const double d = a + s(k);
      h += a * s(k) / d - a * a * q(k) * q(k) / (d * d);
    }
    return h > 0.0;
  };
  double lo = 1e-12 * std::max(s.maxCoeff(), 1e-300);
  if (!rising(lo)) return lo;  // a column no class's curvature sees: as free as the others allow
  double hi = std::max(1.0, 2.0 * lo);
  while (rising(hi)) {
    hi *= 16.0;
    if (hi > 1e300) return kInf;
  }
  const double a = detail::log_bisect(rising, lo, hi);
  return shared_gain(a, s, q) > 0.0 ? a : kInf;
}

// Shared precisions: the action with the largest gain in the summed marginal
// likelihood of the classes' Gaussian models st (MultinomialSolver's), before
// the alignment test.
inline FastChoice shared_choice(const std::vector<std::unique_ptr<FastState>>& st, const FastControl& fast) {
  const Eigen::Index K = st.size(), M = st[0]->M;
  std::vector<Eigen::VectorXd> s(K), q(K);
  for (Eigen::Index k = 0; k < K; ++k) st[k]->leave_one_out(s[k], q[k]);
  const std::vector<Eigen::Index>& u = st[0]->used;
  const Eigen::VectorXd& alpha = st[0]->alpha;
  const std::vector<char>& barred = st[0]->barred;
  const std::vector<char>& aligned_out = st[0]->aligned_out;
  const Eigen::Index S = u.size();
  std::vector<Eigen::Index> pos(M, -1);
  for (Eigen::Index j = 0; j < S; ++j) pos[u[j]] = j;
  Eigen::VectorXd a_new = Eigen::VectorXd::Constant(M, kInf), gain = Eigen::VectorXd::Zero(M);
  std::vector<int> act(M, kReestimate);
  bool any_delete = false;
  Eigen::VectorXd sm(K), qm(K);
  for (Eigen::Index m = 0; m < M; ++m) {
    if (barred[m] || (pos[m] < 0 && aligned_out[m])) continue;
    for (Eigen::Index k = 0; k < K; ++k) {
      sm(k) = s[k](m);
      qm(k) = q[k](m);
    }
    a_new(m) = shared_alpha(sm, qm, fast.zero_factor);
    if (pos[m] >= 0) {
      const double now = shared_gain(alpha(pos[m]), sm, qm);
      if (std::isfinite(a_new(m))) {
        gain(m) = shared_gain(a_new(m), sm, qm) - now;
      } else if (S > 1) {
        any_delete = true;
        act[m] = kDelete;
        gain(m) = -now;
      }
    } else if (std::isfinite(a_new(m))) {
      act[m] = kAdd;
      gain(m) = shared_gain(a_new(m), sm, qm);
    }
  }
  if (any_delete && fast.priority_deletion)
    for (Eigen::Index m = 0; m < M; ++m)
      if (act[m] != kDelete) gain(m) = 0.0;
  FastChoice ch;
  ch.gain = gain.maxCoeff(&ch.column);
  if (!(ch.gain > 0.0)) return FastChoice{kTerminate, ch.column, 0.0, 0.0};
  ch.action = act[ch.column];
  ch.alpha = a_new(ch.column);
  if (ch.action == kReestimate && !any_delete &&
      std::abs(std::log(ch.alpha) - std::log(alpha(pos[ch.column]))) < fast.min_delta_log_alpha)
    return FastChoice{kTerminate, ch.column, ch.alpha, 0.0};
  return ch;
}

// What a multinomial fit returns, in the columns as given (fit_multinomial()).
// Per-class sparsity keeps a column for some classes only: W and Sigma are
// then over the union of the classes' columns, with zeros where a class has
// none (a weight known to be 0), and alpha holds Inf there.
struct MultinomialResult {
  std::vector<Eigen::Index> relevant;  // 0-based columns of Phi relevant to any class, increasing
  Eigen::MatrixXd W;                   // S x K posterior mean
  Eigen::MatrixXd Sigma;               // K S x K S posterior covariance, class blocks
  Eigen::MatrixXd alpha;               // M x K precisions, +inf where pruned
  Eigen::MatrixXd fitted;              // n x K linear predictors
  double log_evidence = 0.0;
  int iterations = 0;
  bool converged = false;
  bool mode_converged = true;
  int jitter_events = 0;
  std::vector<TraceRow> trace;
};

class MultinomialSolver {
 public:
  // Phi with columns of norm 1 / inv_scale; T: n x K class indicators; cw:
  // case weights; offset: n x K; shared: one precision per column for all
  // classes, or one per column and class.
  MultinomialSolver(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
                    const Eigen::MatrixXd& T, const Eigen::VectorXd& cw, const Eigen::MatrixXd& offset, bool shared,
                    const LoopControl& loop, const FastControl& fast)
      : Phi_(Phi), inv_scale_(inv_scale), T_(T), cw_(cw), offset_(offset), shared_(shared), loop_(loop), fast_(fast),
        M_(Phi.cols()), K_(T.cols()) {
    ProblemSpec problem{};
    problem.method = "fast";
    problem.noise_variance = 1.0;  // the classes' Gaussian models carry their curvature in B
    FastControl own = fast;
    own.alignment_test = false;  // tested here, in the case-weighted inner product (aligned())
    for (Eigen::Index k = 0; k < K_; ++k) {
      rows_.push_back(std::make_unique<RowsInMemory>(Phi, T.col(k)));
      st_.push_back(std::make_unique<FastState>(*rows_.back(), inv_scale, problem, loop, NoiseControl{}, own));
    }
  }

  MultinomialResult run(const Progress& progress) {
    using clock = std::chrono::steady_clock;
    const auto start_time = clock::now();
    start();
    MultinomialResult res;
    int it = 0;
    while (it < loop_.max_iterations) {
      check_interrupt();
      ++it;
      const int action = step(select());
      const TraceRow row{it, log_ev_, static_cast<int>(relevant_count()), std::nan(""), action};
      res.trace.push_back(row);
      if (progress) progress(row);
      if (action == kTerminate) {
        res.converged = true;
        break;
      }
      if (std::chrono::duration<double>(clock::now() - start_time).count() > loop_.time_limit) break;
    }
    if (!at_mode_) end_batch();  // the mode of the last batch, or (undone) the state before it
    finish(res);
    res.iterations = it;
    return res;
  }

 private:
  static constexpr int kBatch = 10;
  // The gains are predicted at the classes' own curvatures, without the
  // softmax's coupling, so near the optimum a batch can predict a gain the
  // joint evidence does not confirm, be undone, and return: the fit stops
  // when kStall realised evidences in a row (at new modes, or undone
  // steps) have not risen by kMinGain relative to the best.
  static constexpr int kStall = 3 * kBatch;
  static constexpr double kMinGain = 1e-6;
  // Relative l1 change of the curvatures since the caches were computed
  // above which a new mode recomputes S and Q of every column (O(n M N));
  // below it, only Q and the means move to the new mode (O(n M K)).
  // Convergence is declared only on statistics fresh at a mode.
  static constexpr double kCurvatureChange = 0.1;
  bool fresh_ = false;  // S and Q of every column at the curvature of the current mode
  Eigen::Ref<const Eigen::MatrixXd> Phi_;
  Eigen::VectorXd inv_scale_;
  Eigen::MatrixXd T_;
  Eigen::VectorXd cw_;
  Eigen::MatrixXd offset_;  // n x K, added to the latent functions
  bool shared_;
  LoopControl loop_;
  FastControl fast_;
  Eigen::Index M_, K_;
  std::vector<std::unique_ptr<RowsInMemory>> rows_;  // class k's rows: the basis and its indicators
  std::vector<std::unique_ptr<FastState>> st_;       // class k's Gaussian model at its curvature
  MultinomialMode mode_;                        // the mode of the current model, when at_mode_
  double log_ev_ = 0.0;                         // the joint Laplace evidence (predicted within a batch)
  bool at_mode_ = false;
  int jitter_events_ = 0;
  double best_ev_ = -kInf;
  int stall_ = 0;
  enum class Rule { batches, checked };
  Rule rule_ = Rule::batches;
  int steps_ = 0;  // batches: steps since the last mode; checked: steps still to check

  // A chosen action and its class (-1: every class, the shared precisions).
  struct Choice {
    FastChoice ch;
    Eigen::Index cls = -1;
  };

  struct Snapshot {
    std::vector<FastState::Snapshot> st;
    MultinomialMode mode;
    double log_ev;
    bool fresh;
  };
  Snapshot batch_start_;

  Snapshot save() const {
    Snapshot s{{}, mode_, log_ev_, fresh_};
    for (const auto& st : st_) s.st.push_back(st->save());
    return s;
  }
  void restore(const Snapshot& s) {
    for (Eigen::Index k = 0; k < K_; ++k) st_[k]->restore(s.st[k]);
    mode_ = s.mode;
    log_ev_ = s.log_ev;
    fresh_ = s.fresh;
    at_mode_ = true;
  }

  std::size_t relevant_count() const {
    std::vector<char> any(M_, 0);
    for (const auto& st : st_)
      for (Eigen::Index m : st->used) any[m] = 1;
    return std::count(any.begin(), any.end(), 1);
  }

  ClassColumns unit_columns() const {
    ClassColumns PhiU;
    for (const auto& st : st_) PhiU.push_back(st->unit_columns());
    return PhiU;
  }
  Eigen::VectorXd all_alpha() const {
    Eigen::Index N = 0;
    for (const auto& st : st_) N += st->alpha.size();
    Eigen::VectorXd a(N);
    N = 0;
    for (const auto& st : st_) {
      a.segment(N, st->alpha.size()) = st->alpha;
      N += st->alpha.size();
    }
    return a;
  }
  // The classes' means as a warm start (moved by the fixed-curvature steps).
  Eigen::VectorXd class_means() const {
    Eigen::VectorXd w(all_alpha().size());
    Eigen::Index N = 0;
    for (const auto& st : st_) {
      w.segment(N, st->mu.size()) = st->mu;
      N += st->mu.size();
    }
    return w;
  }

  // The first column: the largest projection on the centred log targets
  // log(0.9 t + 0.1 / K) (SparseBayes's start, per class), in every class;
  // its weights their least-squares fit and its precision K / |w|^2.
  void start() {
    Eigen::MatrixXd Z = (0.9 * T_.array() + 0.1 / static_cast<double>(K_)).log().matrix() - offset_;
    Z = Z.colwise() - Z.rowwise().mean();
    const Eigen::MatrixXd proj = inv_scale_.asDiagonal() * cross_matrix(Phi_, cw_.asDiagonal() * Z);
    Eigen::Index first;
    proj.rowwise().squaredNorm().maxCoeff(&first);
    const Eigen::RowVectorXd w0 = proj.row(first);
    const double a0 = std::clamp(static_cast<double>(K_) / std::max(w0.squaredNorm(), 1e-300), 1e-3, 1e3);
    for (auto& st : st_) {
      st->used.assign(1, first);
      st->alpha = Eigen::VectorXd::Constant(1, a0);
    }
    adopt(search(w0.transpose()));
    realised(log_ev_);
  }

  // The joint mode of the current model, searched from w.
  MultinomialMode search(const Eigen::VectorXd& w) {
    return multinomial_mode(unit_columns(), T_, cw_, offset_, all_alpha(), w, jitter_events_);
  }

  // The mode md becomes the state; the caches keep their curvature if it has
  // moved by less than kCurvatureChange (and `full` is not asked).
  void adopt_mode(MultinomialMode md, bool full = false) {
    double moved = 0.0, total = 0.0;
    for (Eigen::Index k = 0; k < K_ && !full; ++k) {
      const Eigen::VectorXd b = cw_.cwiseProduct(md.P.col(k)).cwiseProduct((1.0 - md.P.col(k).array()).matrix());
      moved += (b - st_[k]->B).lpNorm<1>();
      total += st_[k]->B.lpNorm<1>();
    }
    if (full || !(moved <= kCurvatureChange * total)) {
      adopt(std::move(md));
      return;
    }
    mode_ = std::move(md);
    log_ev_ = multinomial_log_evidence(mode_, all_alpha());
    const Eigen::MatrixXd R = cw_.asDiagonal() * (T_ - mode_.P);
    const Eigen::MatrixXd Q = inv_scale_.asDiagonal() * cross_matrix(Phi_, R);
    Eigen::Index start = 0;
    for (Eigen::Index k = 0; k < K_; ++k) {
      FastState& st = *st_[k];
      st.mu = mode_.w.segment(start, st.used.size());
      start += st.used.size();
      st.Q_in = Q.col(k);
      st.PhiT_t = st.PhiT_PhiU * st.mu + st.Q_in;
    }
    at_mode_ = true;
    fresh_ = false;
  }

  // The mode md becomes the state: its evidence, and each class's Gaussian
  // model at its curvature there, with S and Q of every column. At the mode
  // Phi_k' c (t_k - p_k) = A_k w_k, so each class's posterior mean is w_k
  // and Q_m = phi_m' c (t_k - p_k). O(n M sum_k S_k) in one product.
  void adopt(MultinomialMode md) {
    mode_ = std::move(md);
    log_ev_ = multinomial_log_evidence(mode_, all_alpha());
    const ClassColumns PhiU = unit_columns();
    const std::vector<Eigen::Index> start = class_starts(PhiU);
    const Eigen::Index n = Phi_.rows(), N = start.back();
    Eigen::MatrixXd Y(n, N + K_);
    Eigen::MatrixXd B(n, K_);
    for (Eigen::Index k = 0; k < K_; ++k) {
      B.col(k) = cw_.cwiseProduct(mode_.P.col(k)).cwiseProduct((1.0 - mode_.P.col(k).array()).matrix());
      scale_rows_into(B.col(k), PhiU[k], Y.middleCols(start[k], PhiU[k].cols()));
      Y.col(N + k) = cw_.cwiseProduct(T_.col(k) - mode_.P.col(k));
    }
    const Eigen::MatrixXd Z = inv_scale_.asDiagonal() * cross_matrix(Phi_, Y);
    for (Eigen::Index k = 0; k < K_; ++k) {
      FastState& st = *st_[k];
      const Eigen::VectorXd w_k = mode_.w.segment(start[k], PhiU[k].cols());
      st.B = B.col(k);
      st.PhiT_PhiU = Z.middleCols(start[k], PhiU[k].cols());
      st.Q_in = Z.col(N + k);
      st.PhiT_t = st.PhiT_PhiU * w_k + st.Q_in;
      const Posterior p = st.posterior_from_caches(1.0);
      st.mu = w_k;
      st.weighted_sparsity(p.Linv);
    }
    at_mode_ = true;
    fresh_ = true;
  }

  // Records a realised evidence (of an adopted or an undone model).
  void realised(double ev) {
    if (best_ev_ == -kInf || ev > best_ev_ + kMinGain * (1.0 + std::abs(best_ev_))) {
      best_ev_ = ev;
      stall_ = 0;
    } else {
      ++stall_;
    }
  }

  Choice select() { return shared_ ? aligned(Choice{shared_choice(st_, fast_)}) : select_per_class(); }

  // Per-class precisions: each class's own best action (FastState's rule),
  // the one with the largest gain taken.
  Choice select_per_class() {
    Choice best;
    best.ch = FastChoice{kTerminate, -1, 0.0, 0.0};
    for (Eigen::Index k = 0; k < K_; ++k) {
      const FastChoice ch = st_[k]->select();
      if (ch.changes_model() && ch.gain > best.ch.gain) best = Choice{ch, k};
    }
    return aligned(best);
  }

  // The alignment test of an addition: a column nearly parallel to one of
  // the class's relevant columns (every class's, for a shared precision) is
  // barred from addition in that class until its twin leaves (FastState's
  // own record, restored with its snapshot) and the step skipped. Cosines
  // in the case-weighted inner product of the columns' norms, so that an
  // integer weight and copies of a row test alike.
  Choice aligned(const Choice& c) {
    if (c.ch.action != kAdd || !fast_.alignment_test) return c;
    const Eigen::Index m = c.ch.column;
    const Eigen::VectorXd wm = cw_.cwiseProduct(Phi_.col(m)) * inv_scale_(m);
    bool any = false;
    for (Eigen::Index j : st_[std::max<Eigen::Index>(c.cls, 0)]->used) {
      if (!(wm.dot(Phi_.col(j)) * inv_scale_(j) > fast_.alignment_max)) continue;
      any = true;
      for (Eigen::Index k = 0; k < K_; ++k)
        if (c.cls < 0 || c.cls == k) {
          st_[k]->aligned_out[m] = 1;
          st_[k]->aligned_pairs.emplace_back(m, j);
        }
    }
    if (!any) return c;
    return Choice{FastChoice{kAlignmentSkip, m, 0.0, 0.0}, c.cls};
  }

  // The Gaussian updates of the chosen class's model (every class's, for a
  // shared precision) for one action at the fixed curvature.
  void apply(const Choice& c) {
    for (Eigen::Index k = 0; k < K_; ++k)
      if (c.cls < 0 || c.cls == k) st_[k]->apply(c.ch);  // a deletion frees its aligned twins
    at_mode_ = false;
  }

  void bar(const Choice& c) {
    for (Eigen::Index k = 0; k < K_; ++k)
      if (c.cls < 0 || c.cls == k) st_[k]->barred[c.ch.column] = 1;
  }
  void lift_bars() {
    for (auto& st : st_) std::fill(st->barred.begin(), st->barred.end(), 0);
  }

  int step(const Choice& c) {
    const FastChoice& ch = c.ch;
    if (stall_ >= kStall && at_mode_) return kTerminate;  // (statistics fresh or not: no step realises a gain)
    if (!ch.changes_model()) {
      if (ch.action != kTerminate || (at_mode_ && fresh_)) return ch.action;
      // Termination on statistics not fresh at a mode: select again on fresh ones.
      if (at_mode_) {
        adopt(mode_);
        return kModeSearch;
      }
      return end_batch(true) ? kModeSearch : kRejected;
    }
    if (rule_ == Rule::checked) return checked_step(c);
    if (at_mode_) {
      batch_start_ = save();
      steps_ = 0;
    }
    apply(c);
    log_ev_ += ch.gain;  // realised at the next mode
    if (ch.action != kReestimate) lift_bars();
    if (++steps_ >= kBatch && !end_batch()) return kRejected;
    return ch.action;
  }

  // The mode after a batch of fixed-curvature steps: the state before the
  // batch if the realised evidence fell (then kBatch checked steps follow).
  bool end_batch(bool full = false) {
    steps_ = 0;
    MultinomialMode md = search(class_means());
    const double ev = multinomial_log_evidence(md, all_alpha());
    realised(ev);
    if (evidence_fell(ev, batch_start_.log_ev)) {
      restore(batch_start_);
      rule_ = Rule::checked;
      steps_ = kBatch;
      return false;
    }
    adopt_mode(std::move(md), full);
    return true;
  }

  // One step whose realised evidence is checked at once by a mode search; a
  // step that lowered it is undone and its column barred.
  int checked_step(const Choice& c) {
    int action = c.ch.action;
    const Snapshot saved = save();
    apply(c);
    MultinomialMode md = search(class_means());
    const double ev = multinomial_log_evidence(md, all_alpha());
    realised(ev);
    if (evidence_fell(ev, saved.log_ev)) {
      restore(saved);
      bar(c);
      action = kRejected;
    } else {
      adopt_mode(std::move(md));
      if (c.ch.action != kReestimate) lift_bars();
    }
    if (--steps_ <= 0) rule_ = Rule::batches;
    return action;
  }

  // The result in unit-norm columns over the union of the classes' columns, increasing.
  void finish(MultinomialResult& res) const {
    std::vector<Eigen::Index> pos(M_, -1);
    for (const auto& st : st_)
      for (Eigen::Index m : st->used) pos[m] = 0;
    for (Eigen::Index m = 0; m < M_; ++m)
      if (pos[m] == 0) {
        pos[m] = static_cast<Eigen::Index>(res.relevant.size());
        res.relevant.push_back(m);
      }
    const Eigen::Index S = res.relevant.size();
    const std::vector<Eigen::Index> start = class_starts(unit_columns());
    std::vector<Eigen::Index> at;  // the union position (class blocks) of each weight of the mode
    for (Eigen::Index k = 0; k < K_; ++k)
      for (Eigen::Index m : st_[k]->used) at.push_back(k * S + pos[m]);
    res.W = Eigen::MatrixXd::Zero(S, K_);
    res.Sigma = Eigen::MatrixXd::Zero(S * K_, S * K_);
    Eigen::MatrixXd Sigma = cholesky_inverse(mode_.H);
    Sigma = 0.5 * (Sigma + Sigma.transpose());
    res.alpha = Eigen::MatrixXd::Constant(M_, K_, kInf);
    for (std::size_t a = 0; a < at.size(); ++a) {
      res.W(at[a] % S, at[a] / S) = mode_.w(a);
      for (std::size_t b = 0; b < at.size(); ++b) res.Sigma(at[a], at[b]) = Sigma(a, b);
    }
    res.fitted = offset_;
    for (Eigen::Index k = 0; k < K_; ++k) {
      const FastState& st = *st_[k];
      for (std::size_t j = 0; j < st.used.size(); ++j) res.alpha(st.used[j], k) = st.alpha(j);
      res.fitted.col(k) += st.unit_columns() * mode_.w.segment(start[k], st.used.size());
    }
    res.log_evidence = multinomial_log_evidence(mode_, all_alpha());
    res.mode_converged = mode_.converged;
    res.jitter_events = jitter_events_;
    for (const auto& st : st_) res.jitter_events += st->jitter_events;
  }
};

// A multinomial fit on the basis Phi (n x M) of targets T (n x K class
// indicators, K >= 2) with case weights cw (empty: all 1), an n x K
// offset of the latent functions (empty: none), and shared precisions (one
// per column) or one per column and class: checks, the
// solver on the unit-norm columns (norms weighted by cw), and the result in the columns as given
// (weights / scale, precisions * scale^2).
inline MultinomialResult fit_multinomial(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::MatrixXd& T,
                                         Eigen::VectorXd cw, Eigen::MatrixXd offset, bool shared,
                                         const LoopControl& loop, const FastControl& fast,
                                         const Progress& progress = nullptr) {
  const Eigen::Index n = Phi.rows();
  if (n < 2 || Phi.cols() < 1) throw std::invalid_argument("the basis needs at least two rows and one column");
  if (T.rows() != n || T.cols() < 2) throw std::invalid_argument("the class indicators need one row per observation and two or more classes");
  if (!Phi.allFinite() || !T.allFinite()) throw std::invalid_argument("the basis or the targets contain NA, NaN or infinite values");
  if ((T.array() < 0.0).any() || (T.array() > 1.0).any()) throw std::invalid_argument("class indicators must lie in [0, 1]");
  if (cw.size() == 0) cw = Eigen::VectorXd::Ones(n);
  if (offset.size() == 0) offset = Eigen::MatrixXd::Zero(n, T.cols());
  if (offset.rows() != n || offset.cols() != T.cols() || !offset.allFinite())
    throw std::invalid_argument("the offset needs one finite value per observation and class");
  if (cw.size() != n || !cw.allFinite() || (cw.array() < 0.0).any())
    throw std::invalid_argument("case weights need one finite non-negative value per observation");
  // Columns of unit norm in the case-weighted inner product, so that an
  // integer weight and that many copies of a row give the same steps.
  const Eigen::VectorXd norms = (Phi.array().square().colwise() * cw.array()).colwise().sum().sqrt().transpose();
  if (!norms.allFinite()) throw std::invalid_argument("basis column norms overflow; rescale the inputs");
  const Eigen::VectorXd scale = column_scale(norms);
  const Eigen::VectorXd inv_scale = scale.cwiseInverse();
  MultinomialResult r = MultinomialSolver(Phi, inv_scale, T, cw, offset, shared, loop, fast).run(progress);
  const Eigen::Index S = r.relevant.size();
  Eigen::VectorXd d(S * T.cols());
  for (Eigen::Index k = 0; k < T.cols(); ++k)
    for (Eigen::Index j = 0; j < S; ++j) d(k * S + j) = inv_scale(r.relevant[j]);
  for (Eigen::Index j = 0; j < S; ++j) r.W.row(j) *= inv_scale(r.relevant[j]);
  r.Sigma = d.asDiagonal() * r.Sigma * d.asDiagonal();
  r.alpha = scale.cwiseAbs2().asDiagonal() * r.alpha;
  return r;
}

}  // namespace sparsebayes
