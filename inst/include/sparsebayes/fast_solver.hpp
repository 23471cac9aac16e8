// The fast sequential marginal-likelihood solver (Tipping & Faul 2003,
// SparseBayes v2): one basis function is added, re-estimated or deleted per
// iteration, chosen by the largest increase of the log marginal likelihood.
// Works on the basis with columns scaled to unit norm (Phi diag(inv_scale)),
// applied on the fly so a large basis is never copied; see fit.hpp.
// Gaussian likelihood: Sigma, mu, S and Q are updated incrementally, so an
// iteration costs O(M S) plus O(n M) per addition, never O(n^3).
// Bernoulli likelihood: between mode searches, up to
// kFixedCurvatureSteps steps are taken at a fixed curvature B (IRLS weights
// of a recent mode), where the model is Gaussian in the linearised targets
// and the Gaussian updates above apply; then the mode is searched again
// (O(n S^2) per Newton step) and the batch undone if the realised evidence
// fell. After an accepted batch, S and Q of every column are recomputed at
// the new curvature, O(n M S), only if the IRLS weights moved by more than
// kCurvatureChange (relative l1) since B was last set; otherwise the
// linearised targets are moved to the new mode (exact Q and posterior mean,
// O(n M)) and B is kept. After an undone batch, kFixedCurvatureSteps steps
// follow whose realised evidence is checked one by one by a mode search
// (each undone and its column barred if the evidence fell), with S and Q
// recomputed once at the end. Convergence is declared only at a freshly
// found mode with S and Q recomputed there. Poisson likelihood (whose
// curvature exp(eta) moves too much with the mode for this): every action is
// followed by a mode search, O(n M S) per iteration.
#pragma once

#include <algorithm>
#include <chrono>
#include <utility>

#include "likelihood.hpp"
#include "smoothness.hpp"
#include "student_noise.hpp"

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

class FastSolver {
 public:
  FastSolver(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
             const Eigen::VectorXd& t, const Likelihood& lik, const SolverOptions& opt)
      : Phi_(Phi), inv_scale_(inv_scale), t_(t), lik_(lik), opt_(opt), n_(Phi.rows()), M_(Phi.cols()) {}

  FitResult run(const Progress& progress) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    initialise();
    FitResult res;
    int it = 0;
    bool converged = false;
    while (it < opt_.max_iterations) {
      check_interrupt();
      ++it;
      int action = select_action();
      const bool changes_model = action != kTerminate && action != kAlignmentSkip;
      if (lik_.gaussian()) {
        if (changes_model) apply_action(action);
        if (action != kAlignmentSkip) objective_ += best_delta_;
      } else if (lik_.bounded_curvature() && exact_left_ == 0 && (stale_ || curvature_stale_ || changes_model)) {
        action = fixed_curvature_step(action, changes_model);
      } else if (lik_.bounded_curvature()) {
        action = checked_step(action, changes_model);
      } else if (changes_model) {
        if (exact_left_ > 0) --exact_left_;
        // The predicted gain comes from the Gaussian approximation at the
        // current mode; a large move (a deletion above all) shifts the mode
        // and its curvature, and the realised evidence may fall. A deletion
        // may lower it once per column (the re-estimations that follow often
        // more than make up for it); any other action that lowers it, or a
        // second such deletion of the same column (the add/delete cycle), is
        // undone and its column barred until a column enters or leaves the model.
        // The mode and evidence come first (O(n S^2) per Newton step); S and
        // Q of every column (O(n M S)) only for an accepted action.
        const State saved = save_state();
        change_alpha(action);
        laplace_posterior();  // B depends on the mode: recompute the Laplace approximation
        if (keep_checked_action(action, saved, objective_)) {
          laplace_sq();
        } else {
          lp_current_ = false;  // lp_ is the mode of the undone action
          action = kRejected;
        }
      }
      if (!noise_fixed_ && (action == kTerminate || it <= opt_.noise_update_start ||
                            it % opt_.noise_update_frequency == 0)) {
        // Per-sample updates start after the warm start, or earlier if the
        // shared-noise fit has already terminated; once on they stay on.
        if (opt_.per_sample && (per_sample_ || it > opt_.warm_start || action == kTerminate)) {
          // Joint ARD: lambda_i re-estimated, then everything recomputed with B = diag(1 / lambda).
          if (update_sample_noise() > opt_.tolerance) {
            full_statistics();
            if (action == kTerminate) action = kNoiseOnly;
          }
        } else {
          const double beta_old = beta_;
          update_noise();
          if (std::abs(std::log(beta_) - std::log(beta_old)) > opt_.min_delta_log_beta) {
            full_statistics();
            if (action == kTerminate) action = kNoiseOnly;
          }
        }
      }
      const double noise = lik_.gaussian() ? (per_sample_ ? lambda_.mean() : 1.0 / beta_) : std::nan("");
      const TraceRow row{it, objective_, static_cast<int>(used_.size()), noise, action};
      res.trace.push_back(row);
      if (progress) progress(row);
      if (action == kTerminate) {
        converged = true;
        break;
      }
      if (std::chrono::duration<double>(clock::now() - start).count() > opt_.time_limit) break;
    }
    full_statistics();  // exact posterior and evidence at the end
    res.relevant = used_;
    res.mu = mu_;
    res.Sigma = Sigma_;
    res.alpha = Eigen::VectorXd::Constant(M_, kInf);
    for (std::size_t k = 0; k < used_.size(); ++k) res.alpha(used_[k]) = alpha_(k);
    if (per_sample_) res.lambda = lambda_;
    else if (lik_.gaussian()) res.lambda = Eigen::VectorXd::Constant(1, 1.0 / beta_);
    student_.report(res);
    // Student-t noise: the bound on log p(y | alpha, nu, s2), its evidence.
    res.log_ml = per_sample_ ? objective_ : log_ml_;
    res.log_posterior = objective_;
    res.fitted = fitted();
    res.mode_converged = mode_converged_;
    res.iterations = it;
    res.converged = converged;
    res.jitter_events = jitter_events_;
    return res;
  }

 private:
  Eigen::Ref<const Eigen::MatrixXd> Phi_;  // the caller's basis, not copied (see fit.hpp)
  Eigen::VectorXd inv_scale_;              // 1 / column norms of Phi
  Eigen::VectorXd t_;
  Likelihood lik_;
  SolverOptions opt_;
  Eigen::Index n_, M_;
  bool noise_fixed_ = false;

  double beta_ = 1.0, best_delta_ = 0.0;
  double log_ml_ = 0.0;     // log p(t | alpha, beta), exact after full_statistics()
  double objective_ = 0.0;  // what the solver climbs: log_ml_ plus the log priors
  std::vector<Eigen::Index> used_;   // relevant columns
  Eigen::VectorXd alpha_, mu_;       // per relevant column
  Eigen::MatrixXd Sigma_;
  Eigen::MatrixXd PhiT_PhiU_;        // Phi^T Phi_used, M x S: the cache that keeps steps cheap
  Eigen::VectorXd PhiT_t_;           // Phi^T t
  Eigen::VectorXd S_in_, Q_in_;      // S_m, Q_m of every column
  std::vector<char> aligned_out_;    // columns barred from addition by the alignment test
  std::vector<std::pair<Eigen::Index, Eigen::Index>> aligned_pairs_;  // (barred, relevant twin)
  int jitter_events_ = 0;
  bool mode_converged_ = true;
  // Per-sample noise: once on, the caches PhiT_PhiU_ and PhiT_t_ hold Phi' B Phi_used and
  // Phi' B t with B = diag(1 / lambda), and beta_ plays no part in S, Q or the posterior.
  bool per_sample_ = false;
  Eigen::VectorXd lambda_, B_, phi_B_phi_;
  Eigen::Index selected_ = -1;
  double new_alpha_ = 0.0;
  LaplacePosterior lp_;        // non-Gaussian: the last Laplace approximation
  Eigen::MatrixXd PhiU_;       //   and the relevant unit-norm columns it used
  std::vector<char> fell_once_;  // non-Gaussian: columns once deleted at a loss of evidence
  std::vector<char> barred_;  // non-Gaussian: columns whose last action lowered the evidence

  // Non-Gaussian: steps at the fixed curvature of the last mode between mode searches.
  static constexpr int kFixedCurvatureSteps = 20;
  // Bernoulli: relative l1 change of the IRLS weights since B was last set
  // above which an accepted batch recomputes S and Q at the new curvature.
  static constexpr double kCurvatureChange = 0.1;
  bool stale_ = false;     // S_in_, Q_in_, mu_, Sigma_ come from fixed-curvature steps, not a mode
  bool curvature_stale_ = false;  // Bernoulli: Q_in_ and mu_ at the last mode, S_in_ and Sigma_ at an older B
  bool lp_current_ = false;       // lp_ and PhiU_ are the mode of the current model
  int batch_steps_ = 0;    // fixed-curvature steps since the last mode
  int exact_left_ = 0;     // steps with one mode search each still to take after a failed batch

  // What a non-Gaussian action (or batch of them) changes, to undo it.
  struct State {
    std::vector<Eigen::Index> used;
    Eigen::VectorXd alpha, mu;
    Eigen::MatrixXd Sigma, PhiT_PhiU;
    std::vector<char> aligned_out;
    std::vector<std::pair<Eigen::Index, Eigen::Index>> aligned_pairs;
    double log_ml, objective;
    bool mode_converged;
    Eigen::VectorXd S_in, Q_in, PhiT_t;
    std::vector<char> barred;
  };
  State save_state() const {
    return State{used_, alpha_, mu_, Sigma_, PhiT_PhiU_, aligned_out_, aligned_pairs_,
                 log_ml_, objective_, mode_converged_, S_in_, Q_in_, PhiT_t_, barred_};
  }
  State batch_start_;
  void restore_state(const State& st) {
    S_in_ = st.S_in;
    Q_in_ = st.Q_in;
    PhiT_t_ = st.PhiT_t;
    barred_ = st.barred;
    used_ = st.used;
    alpha_ = st.alpha;
    mu_ = st.mu;
    Sigma_ = st.Sigma;
    PhiT_PhiU_ = st.PhiT_PhiU;
    aligned_out_ = st.aligned_out;
    aligned_pairs_ = st.aligned_pairs;
    log_ml_ = st.log_ml;
    objective_ = st.objective;
    mode_converged_ = st.mode_converged;
  }

  Eigen::VectorXd fitted() const {
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n_);
    for (std::size_t k = 0; k < used_.size(); ++k) y += (mu_(k) * inv_scale_(used_[k])) * Phi_.col(used_[k]);
    return y;
  }

  // The caches PhiT_PhiU_, PhiT_t_ hold B-weighted products: per-sample noise,
  // or non-Gaussian likelihoods (B = the IRLS weights of the last mode).
  bool weighted() const { return per_sample_ || !lik_.gaussian(); }

  // Inner products of every unit-norm column with unit-norm column m: O(n M).
  Eigen::VectorXd cross(Eigen::Index m) const {
    if (weighted()) return (Phi_.transpose() * B_.cwiseProduct(Phi_.col(m))).cwiseProduct(inv_scale_) * inv_scale_(m);
    return (Phi_.transpose() * Phi_.col(m)).cwiseProduct(inv_scale_) * inv_scale_(m);
  }

  // Cosine of unit-norm columns m and k (the alignment test).
  double cosine(Eigen::Index m, Eigen::Index k) const {
    return Phi_.col(m).dot(Phi_.col(k)) * inv_scale_(m) * inv_scale_(k);
  }

  Eigen::Index position_in_used(Eigen::Index m) const {
    return std::find(used_.begin(), used_.end(), m) - used_.begin();
  }

  void initialise() {
    var_t_ = target_variance(t_, opt_);
    noise_fixed_ = opt_.noise_variance > 0.0 || !lik_.gaussian();
    beta_ = 1.0 / (opt_.noise_variance > 0.0 ? opt_.noise_variance : initial_noise_variance(t_, opt_));
    aligned_out_.assign(M_, 0);
    barred_.assign(M_, 0);
    fell_once_.assign(M_, 0);
    PhiT_t_ = (Phi_.transpose() * t_).cwiseProduct(inv_scale_);
    // The first basis has the largest projection on the linearised targets.
    Eigen::VectorXd linear_t = lik_.linearised_targets(t_);
    if (!lik_.gaussian() && opt_.offset.size()) linear_t -= opt_.offset;
    const Eigen::VectorXd proj =
        lik_.gaussian() ? PhiT_t_ : Eigen::VectorXd((Phi_.transpose() * linear_t).cwiseProduct(inv_scale_));
    Eigen::Index first;
    proj.cwiseAbs().maxCoeff(&first);
    double a;
    if (lik_.gaussian()) {
      // alpha = s^2 / (q^2 - s) for a unit-norm column alone in the model.
      const double s = beta_, q = beta_ * PhiT_t_(first);
      a = s * s / (q * q - s);
      if (a < 0.0) a = 1e3;
      mu_ = Eigen::VectorXd::Zero(1);
    } else {
      // Least squares of the linearised targets on the first column.
      const double w0 = inv_scale_(first) * Phi_.col(first).dot(linear_t);
      a = 1.0 / (w0 * w0);
      mu_ = Eigen::VectorXd::Constant(1, w0);
    }
    a = std::clamp(a, 1e-3, 1e3);
    used_.assign(1, first);
    alpha_ = Eigen::VectorXd::Constant(1, a);
    if (!lik_.gaussian()) B_ = Eigen::VectorXd::Ones(n_);  // until the first mode
    PhiT_PhiU_ = cross(first);
    full_statistics();
  }

  // Exact Sigma, mu, log evidence and S_m, Q_m of every column.
  void full_statistics() {
    if (lik_.gaussian()) gaussian_statistics();
    else laplace_statistics();
    objective_ = log_ml_ + log_prior();
  }

  // The smoothness prior, or the Student-t noise's terms of the bound (0 until its first step).
  double log_prior() const {
    if (per_sample_) return student_.log_bound_terms(lambda_);
    return log_smoothness_prior(alpha_, beta_, opt_.smoothness, opt_.noise_shape, opt_.noise_scale);
  }

  // From the cache: O(M S^2).
  void gaussian_statistics() {
    if (per_sample_) {
      sample_noise_statistics();
      return;
    }
    const Eigen::Index S = used_.size();
    Eigen::MatrixXd PhiU_PhiU(S, S);
    Eigen::VectorXd PhiU_t(S);
    for (Eigen::Index k = 0; k < S; ++k) {
      PhiU_PhiU.row(k) = PhiT_PhiU_.row(used_[k]);
      PhiU_t(k) = PhiT_t_(used_[k]);
    }
    const Posterior p = weight_posterior(PhiU_PhiU, PhiU_t, alpha_, beta_, jitter_events_);
    Sigma_ = p.Sigma;
    mu_ = p.mu;
    const double rss = (t_ - fitted()).squaredNorm();
    log_ml_ = log_evidence(p.log_det_H, alpha_, mu_, -static_cast<double>(n_) * std::log(beta_), beta_ * rss, n_);
    const Eigen::MatrixXd CS = PhiT_PhiU_ * Sigma_;
    S_in_ = (beta_ - beta_ * beta_ * (CS.array() * PhiT_PhiU_.array()).rowwise().sum()).matrix();
    Q_in_ = beta_ * (PhiT_t_ - PhiT_PhiU_ * mu_);
  }

  // Laplace approximation at the posterior mode, warm-started from mu_, with
  // B = diag(IRLS weights): S_m = phi' B phi - phi' B Phi_u Sigma Phi_u' B phi
  // and Q_m = phi' (t - y) (the mode makes the linearised targets drop out).
  void laplace_statistics() {
    laplace_posterior();
    laplace_sq();
  }

  // The mode, Sigma and log evidence (Laplace); keeps what laplace_sq() needs.
  void laplace_posterior() {
    lp_ = mode_of_current(PhiU_);
    lp_current_ = true;
    adopt_mode();
  }

  // The Laplace approximation of the current model (used_, alpha_), searched
  // from mu_; PhiU receives the model's unit-norm columns. Changes no state.
  LaplacePosterior mode_of_current(Eigen::MatrixXd& PhiU) {
    const Eigen::Index S = used_.size();
    PhiU.resize(n_, S);
    for (Eigen::Index k = 0; k < S; ++k) PhiU.col(k) = Phi_.col(used_[k]) * inv_scale_(used_[k]);
    return laplace_mode(lik_, PhiU, t_, alpha_, mu_, jitter_events_, opt_.case_weights, opt_.offset);
  }

  // The posterior and evidence become those of the mode in lp_.
  void adopt_mode() {
    mode_converged_ = lp_.converged;
    Sigma_ = lp_.post.Sigma;
    mu_ = lp_.post.mu;
    log_ml_ = laplace_log_evidence(lp_, alpha_);
    objective_ = log_ml_ + log_prior();
  }

  // Bernoulli: Sigma, mu, evidence and S, Q of every column at the mode of
  // the current model (searched only if lp_ is not already that mode).
  void fresh_statistics() {
    if (!lp_current_) lp_ = mode_of_current(PhiU_);
    lp_current_ = true;
    adopt_mode();
    laplace_sq();
    stale_ = false;
    curvature_stale_ = false;
  }

  // S_m and Q_m of every column at the mode found by laplace_posterior(), and
  // the caches of the fixed-curvature steps: B, PhiT_PhiU_ = Phi' B Phi_u and
  // PhiT_t_ = Phi' B t_hat with the linearised targets t_hat = Phi_u mu + B^-1 (t - y).
  void laplace_sq() {
    const LaplacePosterior& lp = lp_;
    const Eigen::MatrixXd& PhiU = PhiU_;
    B_ = lp.irls_weights;
    const Eigen::MatrixXd BPhiU = lp.irls_weights.asDiagonal() * PhiU;
    PhiT_PhiU_ = inv_scale_.asDiagonal() * (Phi_.transpose() * BPhiU);  // O(n M S)
    const Eigen::MatrixXd& PhiT_BPhiU = PhiT_PhiU_;
    Eigen::VectorXd phi_B_phi(M_);
    for (Eigen::Index m = 0; m < M_; ++m)
      phi_B_phi(m) = Phi_.col(m).cwiseAbs2().dot(lp.irls_weights) * inv_scale_(m) * inv_scale_(m);
    const Eigen::MatrixXd CS = PhiT_BPhiU * Sigma_;
    S_in_ = phi_B_phi - (CS.array() * PhiT_BPhiU.array()).rowwise().sum().matrix();
    Q_in_ = (Phi_.transpose() * lp.score).cwiseProduct(inv_scale_);
    PhiT_t_ = PhiT_PhiU_ * mu_ + Q_in_;
  }

  // Non-Gaussian: one step at the fixed curvature B of the last mode (the
  // Gaussian updates of apply_action() on the weighted caches), or, after
  // kFixedCurvatureSteps of them or when they would terminate, a mode search
  // with fresh S and Q; the batch is undone if the realised evidence fell.
  // Returns the action taken.
  int fixed_curvature_step(int action, bool changes_model) {
    if (!changes_model) {
      if (action != kTerminate) return action;  // an alignment skip changes nothing
      // the next iteration selects on fresh statistics
      if (!stale_) {  // at the mode already, with S only at an older curvature
        fresh_statistics();
        return kModeSearch;
      }
      return refresh_mode(true) ? kModeSearch : kRejected;
    }
    if (!stale_) {
      batch_start_ = save_state();
      batch_steps_ = 0;
    }
    apply_action(action);
    objective_ += best_delta_;  // predicted; realised at the next mode
    stale_ = true;
    if (action != kReestimate) std::fill(barred_.begin(), barred_.end(), 0);
    if (++batch_steps_ >= kFixedCurvatureSteps && !refresh_mode()) return kRejected;
    return action;
  }

  // The mode after a batch of fixed-curvature steps: the state before the
  // batch if the realised evidence fell; otherwise S and Q at the new
  // curvature (always if `full`, else only if B has moved by more than
  // kCurvatureChange), or the linearised targets moved to the new mode.
  bool refresh_mode(bool full = false) {
    stale_ = false;
    batch_steps_ = 0;
    lp_ = mode_of_current(PhiU_);
    lp_current_ = true;
    log_ml_ = laplace_log_evidence(lp_, alpha_);
    objective_ = log_ml_ + log_prior();
    const double before = batch_start_.objective;
    if (evidence_fell(objective_, before)) {
      restore_state(batch_start_);
      lp_current_ = false;
      exact_left_ = kFixedCurvatureSteps;
      return false;
    }
    if (full || (lp_.irls_weights - B_).lpNorm<1>() > kCurvatureChange * B_.lpNorm<1>()) {
      fresh_statistics();
    } else {
      retarget();
    }
    return true;
  }

  // Keeps the curvature B of the caches (PhiT_PhiU_, S_in_, Sigma_) and
  // moves the linearised targets to t_hat = Phi_u mu* + B^-1 (t - y*) at the
  // new mode mu*: since Phi_u' (t - y*) = A mu* there, the Gaussian model
  // at curvature B has posterior mean mu* and Q_m = phi_m' (t - y*), the
  // mode's own Q, for every column. O(n M), against O(n M S) for S.
  void retarget() {
    mode_converged_ = lp_.converged;
    mu_ = lp_.post.mu;
    Q_in_ = (Phi_.transpose() * lp_.score).cwiseProduct(inv_scale_);
    PhiT_t_ = PhiT_PhiU_ * mu_ + Q_in_;
    curvature_stale_ = true;
  }

  // Did the evidence fall from `before` to `now` (beyond round-off)?
  static bool evidence_fell(double now, double before) { return now < before - 1e-9 * (1.0 + std::abs(before)); }

  // The rule for a step whose realised evidence is checked (see run()): an
  // action that lowered the evidence below the saved state's is undone (the
  // saved state restored) and its column barred, except a column's first
  // deletion to do so; an action that stands, other than a re-estimation,
  // lifts every bar. Returns whether the action stands.
  bool keep_checked_action(int action, const State& saved, double realised) {
    const Eigen::Index m = selected_;
    const bool fell = evidence_fell(realised, saved.objective);
    if (fell && (action != kDelete || fell_once_[m])) {
      restore_state(saved);
      barred_[m] = 1;
      return false;
    }
    if (fell) fell_once_[m] = 1;
    if (action != kReestimate) std::fill(barred_.begin(), barred_.end(), 0);
    return true;
  }

  // Bernoulli, after an undone batch: one step at the fixed curvature whose
  // realised evidence is checked at once by a mode search (O(n S^2) per
  // Newton step); under the rule of the exact steps (see run()) it is undone
  // and its column barred if the evidence fell. S and Q of every column
  // (O(n M S)) are recomputed only when these steps end or would terminate.
  int checked_step(int action, bool changes_model) {
    if (!changes_model) {
      if (action != kTerminate || !(stale_ || curvature_stale_)) return action;
      fresh_statistics();  // the next iteration selects on fresh statistics
      return kModeSearch;
    }
    --exact_left_;
    const State saved = save_state();
    apply_action(action);
    Eigen::MatrixXd PhiU;
    LaplacePosterior lp = mode_of_current(PhiU);
    const double realised = laplace_log_evidence(lp, alpha_) + log_prior();
    if (!keep_checked_action(action, saved, realised)) {
      action = kRejected;
    } else {
      lp_ = std::move(lp);
      PhiU_.swap(PhiU);
      lp_current_ = true;
      mode_converged_ = lp_.converged;
      log_ml_ = laplace_log_evidence(lp_, alpha_);
      objective_ = log_ml_ + log_prior();
      stale_ = true;  // mu_, Sigma_, S, Q: fixed-curvature values
    }
    if (exact_left_ == 0 && stale_) fresh_statistics();
    return action;
  }

  // Per-sample noise: rebuilds the B-weighted caches, O(n M S), then
  // S_m = phi' B phi - phi' B Phi_u Sigma Phi_u' B phi and Q_m = phi' B t - phi' B Phi_u mu.
  void sample_noise_statistics() {
    const Eigen::Index S = used_.size();
    Eigen::MatrixXd BPhiU(n_, S);
    for (Eigen::Index k = 0; k < S; ++k) BPhiU.col(k) = B_.cwiseProduct(Phi_.col(used_[k])) * inv_scale_(used_[k]);
    PhiT_PhiU_ = inv_scale_.asDiagonal() * (Phi_.transpose() * BPhiU);
    PhiT_t_ = (Phi_.transpose() * B_.cwiseProduct(t_)).cwiseProduct(inv_scale_);
    phi_B_phi_.resize(M_);
    for (Eigen::Index m = 0; m < M_; ++m) phi_B_phi_(m) = Phi_.col(m).cwiseAbs2().dot(B_) * inv_scale_(m) * inv_scale_(m);
    Eigen::MatrixXd PhiU_PhiU(S, S);
    Eigen::VectorXd PhiU_t(S);
    for (Eigen::Index k = 0; k < S; ++k) {
      PhiU_PhiU.row(k) = PhiT_PhiU_.row(used_[k]);
      PhiU_t(k) = PhiT_t_(used_[k]);
    }
    const Posterior p = weight_posterior(PhiU_PhiU, PhiU_t, alpha_, 1.0, jitter_events_);
    Sigma_ = p.Sigma;
    mu_ = p.mu;
    const Eigen::VectorXd r = t_ - fitted();
    log_ml_ = log_evidence(p.log_det_H, alpha_, mu_, -B_.array().log().sum(), r.cwiseAbs2().dot(B_), n_);
    const Eigen::MatrixXd CS = PhiT_PhiU_ * Sigma_;
    S_in_ = phi_B_phi_ - (CS.array() * PhiT_PhiU_.array()).rowwise().sum().matrix();
    Q_in_ = PhiT_t_ - PhiT_PhiU_ * mu_;
  }

  // lambda_i <- r_i^2 + phi_i' Sigma phi_i (EM / MacKay rule of joint ARD), damped
  // in log space and clipped (damped_noise_step); returns the relative l_inf change of log lambda.
  double update_sample_noise() {
    if (!per_sample_) {
      per_sample_ = true;
      lambda_ = Eigen::VectorXd::Constant(n_, 1.0 / beta_);
    }
    const Eigen::Index S = used_.size();
    Eigen::MatrixXd PhiU(n_, S);
    for (Eigen::Index k = 0; k < S; ++k) PhiU.col(k) = Phi_.col(used_[k]) * inv_scale_(used_[k]);
    const Eigen::VectorXd r = t_ - fitted();
    const Eigen::VectorXd q = ((PhiU * Sigma_).array() * PhiU.array()).rowwise().sum().matrix();
    noise_bounds_.widen(r);
    const Eigen::VectorXd E = r.cwiseAbs2() + q;
    const double change = damped_noise_step(lambda_, opt_.student ? student_.targets(E) : E, noise_bounds_,
                                            opt_.damping_lambda);
    B_ = lambda_.cwiseInverse();
    beta_ = 1.0 / lambda_.mean();
    return change;
  }

  double var_t_ = 1.0;
  NoiseBounds noise_bounds_{opt_.lambda_min, opt_.lambda_max};
  StudentNoise student_{opt_.student_df, outlier_class_range(opt_, t_), t_};

  // A noise that comes out unusable is left as it was: on a nearly noiseless
  // fit with wide kernels Sigma loses its digits, and the gammas summed past
  // N (mlbench.peak, 240 rows: beta turned negative, then NaN, and the
  // Cholesky of the next posterior failed).
  void update_noise() {
    const double rss = (t_ - fitted()).squaredNorm();
    const double gamma_sum = (1.0 - alpha_.array() * Sigma_.diagonal().array()).sum();
    const double N = replicated_rows(opt_, n_);
    double b = (N - gamma_sum) / std::max(rss, 1e-300);
    if (opt_.smoothness > 0.0)
      b = 1.0 / smooth_noise_variance(N, rss, gamma_sum, alpha_, opt_.smoothness,
                                      opt_.noise_shape, opt_.noise_scale, 1.0 / b);
    if (!(b > 0.0) || !std::isfinite(b)) return;
    beta_ = std::min(b, opt_.beta_max_factor / std::max(var_t_, 1e-300));
  }

  // Chooses the action with the largest gain; sets selected_, new_alpha_, best_delta_.
  int select_action() {
    const Eigen::Index S = used_.size();
    Eigen::VectorXd s = S_in_, q = Q_in_;
    for (Eigen::Index k = 0; k < S; ++k) {
      // s_m, q_m of a relevant column with it left out. alpha S / (alpha - S)
      // cancels catastrophically when S_m is close to alpha_m (a well-
      // determined weight with a small precision); then the marginal posterior
      // of w_m, N(q_m / (alpha_m + s_m), 1 / (alpha_m + s_m)), gives them.
      const Eigen::Index m = used_[k];
      if (S_in_(m) < 0.5 * alpha_(k)) {
        const double d = alpha_(k) - S_in_(m);
        s(m) = alpha_(k) * S_in_(m) / d;
        q(m) = alpha_(k) * Q_in_(m) / d;
      } else {
        s(m) = 1.0 / Sigma_(k, k) - alpha_(k);
        q(m) = mu_(k) / Sigma_(k, k);
      }
    }
    // Each column's best alpha given the others (the smoothness prior's cubic
    // when c > 0) and the gain in the log posterior of moving it there.
    const double c = opt_.smoothness;
    Eigen::VectorXd a_new(M_), delta = Eigen::VectorXd::Zero(M_);
    std::vector<int> act(M_, kReestimate);
    std::vector<char> is_used(M_, 0);
    bool any_delete = false, any_add = false;
    for (Eigen::Index k = 0; k < S; ++k) {
      const Eigen::Index m = used_[k];
      is_used[m] = 1;
      if (barred_[m]) continue;
      a_new(m) = optimal_alpha(s(m), q(m), beta_, c, opt_.zero_factor);
      const double now = smooth_gain(alpha_(k), s(m), q(m), beta_, c);
      if (std::isfinite(a_new(m))) {
        delta(m) = smooth_gain(a_new(m), s(m), q(m), beta_, c) - now;
      } else if (S > 1) {
        any_delete = true;
        act[m] = kDelete;
        delta(m) = -now;
      }
    }
    for (Eigen::Index m = 0; m < M_; ++m) {
      if (is_used[m] || aligned_out_[m] || barred_[m]) continue;
      a_new(m) = optimal_alpha(s(m), q(m), beta_, c, opt_.zero_factor);
      if (!std::isfinite(a_new(m))) continue;
      any_add = true;
      act[m] = kAdd;
      delta(m) = smooth_gain(a_new(m), s(m), q(m), beta_, c);
    }
    if ((any_add && opt_.priority_addition) || (any_delete && opt_.priority_deletion)) {
      const int keep = any_delete && opt_.priority_deletion ? kDelete : kAdd;
      for (Eigen::Index m = 0; m < M_; ++m)
        if (act[m] != keep) delta(m) = 0.0;
    }
    Eigen::Index best;
    best_delta_ = delta.maxCoeff(&best);
    selected_ = best;
    if (!(best_delta_ > 0.0)) {
      best_delta_ = 0.0;
      return kTerminate;
    }
    int action = act[best];
    new_alpha_ = a_new(best);
    if (action == kReestimate && !any_delete) {
      const double old_alpha = alpha_(position_in_used(best));
      if (std::abs(std::log(new_alpha_) - std::log(old_alpha)) < opt_.min_delta_log_alpha) {
        best_delta_ = 0.0;
        return kTerminate;
      }
    }
    if (action == kAdd && opt_.alignment_test) {
      // Column norms are one, so the cached inner products are the cosines.
      bool aligned = false;
      for (Eigen::Index k = 0; k < S; ++k) {
        if ((weighted() ? cosine(best, used_[k]) : PhiT_PhiU_(best, k)) > opt_.alignment_max) {
          aligned = true;
          aligned_pairs_.emplace_back(best, used_[k]);
        }
      }
      if (aligned) {
        aligned_out_[best] = 1;
        best_delta_ = 0.0;
        return kAlignmentSkip;
      }
    }
    return action;
  }

  void apply_action(int action) {
    const Eigen::Index m = selected_;
    const double b = weighted() ? 1.0 : beta_;  // B is inside the weighted caches
    if (action == kReestimate) {
      const Eigen::Index k = position_in_used(m);
      const Eigen::VectorXd s_k = Sigma_.col(k);
      const double kappa = 1.0 / (Sigma_(k, k) + 1.0 / (new_alpha_ - alpha_(k)));
      const Eigen::VectorXd tmp = kappa * s_k;
      Sigma_ -= tmp * s_k.transpose();
      const Eigen::VectorXd delta_mu = -mu_(k) * tmp;
      mu_ += delta_mu;
      const Eigen::VectorXd beta_C_s = b * (PhiT_PhiU_ * s_k);
      S_in_.array() += kappa * beta_C_s.array().square();
      Q_in_ -= b * (PhiT_PhiU_ * delta_mu);
      alpha_(k) = new_alpha_;
    } else if (action == kAdd) {
      const Eigen::VectorXd PhiT_phi = cross(m);  // the O(n M) step
      const Eigen::VectorXd tmp = b * (Sigma_ * PhiT_PhiU_.row(m).transpose());
      const double s_ii = 1.0 / (new_alpha_ + S_in_(m));
      const Eigen::VectorXd s_i = -s_ii * tmp;
      const Eigen::Index S = used_.size();
      Eigen::MatrixXd Sigma_new(S + 1, S + 1);
      Sigma_new.topLeftCorner(S, S) = Sigma_ - s_i * tmp.transpose();
      Sigma_new.topRightCorner(S, 1) = s_i;
      Sigma_new.bottomLeftCorner(1, S) = s_i.transpose();
      Sigma_new(S, S) = s_ii;
      Sigma_.swap(Sigma_new);
      const double mu_i = s_ii * Q_in_(m);
      mu_.conservativeResize(S + 1);
      mu_.head(S) -= mu_i * tmp;
      mu_(S) = mu_i;
      const Eigen::VectorXd mCi = b * (PhiT_phi - PhiT_PhiU_ * tmp);
      S_in_.array() -= s_ii * mCi.array().square();
      Q_in_ -= mu_i * mCi;
      append_column(m, PhiT_phi);
    } else if (action == kDelete) {
      const Eigen::Index k = position_in_used(m);
      const double s_kk = Sigma_(k, k);
      const Eigen::VectorXd s_k = Sigma_.col(k);
      const Eigen::VectorXd tmp = s_k / s_kk;
      Sigma_ -= tmp * s_k.transpose();
      const double mu_k = mu_(k);
      mu_ -= mu_k * tmp;
      const Eigen::VectorXd jPm = b * (PhiT_PhiU_ * s_k);
      S_in_.array() += jPm.array().square() / s_kk;
      Q_in_ += jPm * (mu_k / s_kk);
      detail::remove_row_and_column(Sigma_, k);
      detail::remove_entry(mu_, k);
      remove_column(k);
    }
  }

  // Non-Gaussian likelihoods: change the model only; full_statistics() follows.
  void change_alpha(int action) {
    const Eigen::Index m = selected_;
    if (action == kReestimate) {
      alpha_(position_in_used(m)) = new_alpha_;
    } else if (action == kAdd) {
      const Eigen::Index S = used_.size();
      mu_.conservativeResize(S + 1);
      mu_(S) = 0.0;  // warm start of the mode search
      append_column(m, cross(m));
    } else if (action == kDelete) {
      const Eigen::Index k = position_in_used(m);
      detail::remove_entry(mu_, k);
      remove_column(k);
    }
  }

  // Bookkeeping shared by both likelihood paths (mu_ and Sigma_ aside).
  void append_column(Eigen::Index m, const Eigen::VectorXd& PhiT_phi) {
    const Eigen::Index S = used_.size();
    PhiT_PhiU_.conservativeResize(Eigen::NoChange, S + 1);
    PhiT_PhiU_.col(S) = PhiT_phi;
    used_.push_back(m);
    alpha_.conservativeResize(S + 1);
    alpha_(S) = new_alpha_;
  }

  void remove_column(Eigen::Index k) {
    const Eigen::Index m = used_[k];
    detail::remove_entry(alpha_, k);
    detail::remove_column(PhiT_PhiU_, k);
    used_.erase(used_.begin() + k);
    // Columns barred because they aligned with m may compete again.
    for (auto it = aligned_pairs_.begin(); it != aligned_pairs_.end();) {
      if (it->second == m) {
        aligned_out_[it->first] = 0;
        it = aligned_pairs_.erase(it);
      } else {
        ++it;
      }
    }
  }
};

}  // namespace sparsebayes
