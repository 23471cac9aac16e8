// The Gaussian paths of the fast solver: every action is applied at once by
// the incremental updates (FastState::apply), O(M S) per iteration plus
// O(n M) per addition, never O(n^3), and its predicted gain is exact. The
// noise is re-estimated on SparseBayes's schedule; a noise that moved
// recomputes the posterior, S and Q. With shared noise nothing per iteration
// reads the rows: the residual sum of squares comes from t't and the caches.
#pragma once

#include "fast_path.hpp"
#include "student_noise.hpp"

namespace sparsebayes {

// One noise variance 1 / beta, B = beta I: the caches hold Phi' Phi_u and Phi' t.
class SharedNoisePath : public FastPath {
 public:
  explicit SharedNoisePath(FastState& st)
      : FastPath(st),
        fixed_(st.problem.noise_variance > 0.0),
        var_t_(target_variance(st.t, st.problem)),
        tt_(st.in_memory() ? st.t.squaredNorm() : st.data.sums().tt) {}

  void start() override {
    st_.PhiT_t = (st_.in_memory() ? Eigen::VectorXd(st_.Phi().transpose() * st_.t) : st_.data.sums().cross).cwiseProduct(st_.inv_scale);
    if (st_.problem.start_alpha.size()) {  // a warm start: the model given
      st_.begin_model(st_.problem.start_alpha);
      full_statistics();
      return;
    }
    // The first basis has the largest projection on the targets, with
    // alpha = s^2 / (q^2 - s) for a unit-norm column alone in the model.
    Eigen::Index first;
    st_.PhiT_t.cwiseAbs().maxCoeff(&first);
    const double s = st_.beta, q = st_.beta * st_.PhiT_t(first);
    double a = s * s / (q * q - s);
    if (a < 0.0) a = 1e3;
    st_.begin(first, a, 0.0);
    full_statistics();
  }

  int step(const FastChoice& chosen) override {
    FastChoice ch = chosen;
    // (Not from the statistics alone: there the recomputed evidence takes the
    // residual from t't - 2 mu'Phi't + ..., which cancels with no rows to ask;
    // a Poisson fit from chunks at counts near 80 ended at -122149 against
    // -28155.)
    const bool reversal = st_.in_memory() && st_.fast.exact_on_reversal && reverses(ch);
    if (ch.changes_model() && (ch.column == changed_ || reversal)) {
      // The column changed last sits at its optimum given s_m and q_m, which
      // do not depend on its own alpha: in exact arithmetic no action on it
      // can gain now. Choosing it again means S and Q have lost their digits
      // in the incremental updates (an ill-conditioned Sigma), and the
      // predicted gain is spurious: recompute them and choose again. So for
      // adding a column deleted (or deleting one added) since they were last
      // exact: 1000 centres at n = 1e5 cycled add A, re-estimate B, delete
      // A, re-estimate B for 9000 iterations, each re-estimate a phantom
      // nat, the summed log posterior 6500 nats above the exact one.
      exact_statistics();
      ch = st_.select();
    }
    if (ch.changes_model()) {
      st_.apply(ch);
      st_.log_posterior += ch.gain;
      changed_ = ch.column;
      if (ch.action == kAdd || ch.action == kDelete) toggled_.push_back(ch.column);
      // the cycle's next step (B's re-estimate) reads S and Q: exact ones
      if (reversal) exact_statistics();
    }
    return ch.action;
  }

  int noise_step(int it, int action) override {
    const FastControl& f = st_.fast;
    if (fixed_ || !(action == kTerminate || it <= f.noise_update_start || it % f.noise_update_frequency == 0))
      return action;
    if (update_noise(it, action)) {
      exact_statistics();
      if (action == kTerminate) action = kNoiseOnly;
    }
    return action;
  }

  double noise() const override { return 1.0 / st_.beta; }

  // From the caches: O(M S^2).
  void statistics() override {
    const double beta = st_.beta;
    const Posterior p = st_.posterior_from_caches(beta);
    const double rss = residual_ss();
    st_.log_ml = log_evidence(p.log_det_H, st_.alpha, st_.mu, -static_cast<double>(st_.n) * std::log(beta),
                              beta * rss, st_.n);
    st_.S_in = (beta - beta * beta * sandwich_diagonal(st_.PhiT_PhiU, p.Linv).array()).matrix();
    st_.Q_in = beta * (st_.PhiT_t - st_.PhiT_PhiU * st_.mu);
  }

  void report(FitResult& res) const override {
    res.lambda = Eigen::VectorXd::Constant(1, 1.0 / st_.beta);
    res.log_evidence = st_.log_ml;
  }

 protected:
  // ||t - Phi_u mu||^2 = t't - 2 mu' Phi_u't + mu' Phi_u'Phi_u mu from the
  // unweighted caches, O(S^2) instead of O(n S) per noise update. Its terms
  // cancel as the fit nears interpolation, losing about log10(t't / rss)
  // digits (the rows lose half as many): below 1e-4 t't, 4 digits, the rows
  // give it (quiet targets, noise at beta_max_factor's floor), so the result
  // keeps 11 or more digits either way.
  double residual_ss() const {
    if (!st_.weighted()) {
      double rss = tt_;
      for (std::size_t k = 0; k < st_.used.size(); ++k)
        rss -= st_.mu(k) * (2.0 * st_.PhiT_t(st_.used[k]) - st_.PhiT_PhiU.row(st_.used[k]).dot(st_.mu));
      if (rss > kCancellationLimit * tt_ || !st_.in_memory()) return std::max(rss, 0.0);  // no rows to ask
    }
    return (st_.t - st_.fitted()).squaredNorm();
  }

  // One noise update at iteration `it`; whether the noise moved enough to
  // recompute everything.
  virtual bool update_noise(int /*it*/, int action) {
    const double beta_old = st_.beta;
    update_beta();
    const double moved = std::abs(std::log(st_.beta) - std::log(beta_old));
    const FastControl& f = st_.fast;
    if (action != kTerminate && f.min_noise_move > f.min_delta_log_beta && moved < f.min_noise_move) {
      st_.beta = beta_old;
      return false;
    }
    return moved > f.min_delta_log_beta;
  }

 private:
  static constexpr double kCancellationLimit = 1e-4;  // rss / t't below which the rows give rss
  Eigen::Index changed_ = -1;  // the column of the last action since S and Q were last exact (-1: none)
  std::vector<Eigen::Index> toggled_;  // columns added or deleted since S and Q were last exact

  void exact_statistics() {
    full_statistics();
    changed_ = -1;
    toggled_.clear();
  }

  // Adds or deletes a column added or deleted since S and Q were last exact.
  bool reverses(const FastChoice& ch) const {
    return (ch.action == kAdd || ch.action == kDelete) &&
           std::find(toggled_.begin(), toggled_.end(), ch.column) != toggled_.end();
  }
  bool fixed_;    // the noise is held at problem.noise_variance
  double var_t_;  // var(t), for the bound on beta
  double tt_;     // t't, for residual_ss()

  // A noise that comes out unusable is left as it was: on a nearly noiseless
  // fit with wide kernels Sigma loses its digits, and the gammas summed past
  // N (mlbench.peak, 240 rows: beta turned negative, then NaN, and the
  // Cholesky of the next posterior failed).
  void update_beta() {
    const FastControl& f = st_.fast;
    const double c = st_.problem.smoothness;
    const double rss = residual_ss();
    const double gamma_sum = (1.0 - st_.alpha.array() * st_.Sigma.diagonal().array()).sum();
    const double N = replicated_rows(st_.problem, st_.n);
    double b = (N - gamma_sum) / std::max(rss, 1e-300);
    if (c > 0.0) b = 1.0 / smooth_noise_variance(N, rss, gamma_sum, st_.alpha, c, f.noise_shape, f.noise_scale, 1.0 / b);
    if (!(b > 0.0) || !std::isfinite(b)) return;
    st_.beta = std::min(b, f.beta_max_factor / std::max(var_t_, 1e-300));
  }
};

// Per-sample noise (joint ARD) and its Student-t form: the shared noise until
// the warm start ends (or the shared fit terminates), then lambda_i, with the
// caches rebuilt as Phi' B Phi_u and Phi' B t, B = diag(1 / lambda).
class SampleNoisePath : public SharedNoisePath {
 public:
  explicit SampleNoisePath(FastState& st)
      : SharedNoisePath(st),
        bounds_(st.noise.lambda_min, st.noise.lambda_max),
        student_(st.noise.student_df, outlier_class_range(st.problem, st.noise, st.t), st.t) {}

  double noise() const override { return on_ ? lambda_.mean() : SharedNoisePath::noise(); }

  // Rebuilds the B-weighted caches, O(n M S), then
  // S_m = phi' B phi - phi' B Phi_u Sigma Phi_u' B phi and Q_m = phi' B t - phi' B Phi_u mu.
  void statistics() override {
    if (!on_) return SharedNoisePath::statistics();
    const Eigen::VectorXd& B = st_.B;
    const Eigen::Index S = st_.used.size();
    Eigen::MatrixXd BPhiU(st_.n, S);
    for (Eigen::Index k = 0; k < S; ++k)
      BPhiU.col(k) = B.cwiseProduct(st_.Phi().col(st_.used[k])) * st_.inv_scale(st_.used[k]);
    st_.PhiT_PhiU = st_.inv_scale.asDiagonal() * (st_.Phi().transpose() * BPhiU);
    st_.PhiT_t = (st_.Phi().transpose() * B.cwiseProduct(st_.t)).cwiseProduct(st_.inv_scale);
    const Posterior p = st_.posterior_from_caches(1.0);
    const Eigen::VectorXd r = st_.t - st_.fitted();
    st_.log_ml = log_evidence(p.log_det_H, st_.alpha, st_.mu, -B.array().log().sum(), r.cwiseAbs2().dot(B), st_.n);
    st_.weighted_sparsity(p.Linv);
    st_.Q_in = st_.PhiT_t - st_.PhiT_PhiU * st_.mu;
  }

  // The Student-t noise's terms of the bound (0 until its first step).
  double log_prior() const override { return on_ ? student_.log_bound_terms(lambda_) : SharedNoisePath::log_prior(); }

  void report(FitResult& res) const override {
    if (!on_) {
      SharedNoisePath::report(res);
      return;
    }
    res.lambda = lambda_;
    res.log_evidence = st_.log_posterior;  // Student-t noise: the bound on log p(y | alpha, nu, s2), its evidence
    student_.report(res);
  }

 protected:
  // Once on, the per-sample updates stay on.
  bool update_noise(int it, int action) override {
    if (!on_ && it <= st_.noise.warm_start && action != kTerminate) return SharedNoisePath::update_noise(it, action);
    return update_lambda() > st_.loop.tolerance;
  }

 private:
  bool on_ = false;  // lambda_ (and B) in use
  Eigen::VectorXd lambda_;
  NoiseBounds bounds_;
  StudentNoise student_;

  // lambda_i <- r_i^2 + phi_i' Sigma phi_i (EM / MacKay rule of joint ARD), damped
  // in log space and clipped (damped_noise_step); returns the relative l_inf change of log lambda.
  double update_lambda() {
    if (!on_) {
      on_ = true;
      lambda_ = Eigen::VectorXd::Constant(st_.n, 1.0 / st_.beta);
    }
    const Eigen::MatrixXd PhiU = st_.unit_columns();
    const Eigen::VectorXd r = st_.t - st_.fitted();
    const Eigen::VectorXd q = ((PhiU * st_.Sigma).array() * PhiU.array()).rowwise().sum().matrix();
    bounds_.widen(robust_residual_variance(r));
    const Eigen::VectorXd E = r.cwiseAbs2() + q;
    const double change =
        damped_noise_step(lambda_, st_.problem.student ? student_.targets(E) : E, bounds_, st_.noise.damping_lambda);
    st_.B = lambda_.cwiseInverse();
    return change;
  }
};

}  // namespace sparsebayes
