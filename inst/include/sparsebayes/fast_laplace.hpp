// The non-Gaussian paths of the fast solver (Bernoulli, Poisson): the
// posterior is the Laplace approximation at the mode, B the IRLS weights
// there, and the caches hold Phi' B Phi_u and Phi' B t_hat with the
// linearised targets t_hat = Phi_u mu + B^-1 (t - y). A gain predicted at a
// fixed curvature may not be realised once the mode moves, so the realised
// evidence is checked by mode searches and what lowered it is undone.
#pragma once

#include <optional>

#include "fast_path.hpp"
#include "likelihood.hpp"

namespace sparsebayes {

class LaplacePath : public FastPath {
 public:
  LaplacePath(FastState& st, const Likelihood& lik) : FastPath(st), lik_(lik), fell_once_(st.M, 0) {}

  void start() override {
    // The first basis has the largest projection on the linearised targets,
    // its weight their least-squares fit.
    Eigen::VectorXd linear_t = lik_.linearised_targets(st_.t);
    if (st_.problem.offset.size()) linear_t -= st_.problem.offset;
    const Eigen::VectorXd proj = (st_.Phi().transpose() * linear_t).cwiseProduct(st_.inv_scale);
    Eigen::Index first;
    proj.cwiseAbs().maxCoeff(&first);
    const double w0 = st_.inv_scale(first) * st_.Phi().col(first).dot(linear_t);
    st_.B = Eigen::VectorXd::Ones(st_.n);  // until the first mode
    st_.begin(first, 1.0 / (w0 * w0), w0);
    full_statistics();
  }

  // The mode searched from mu, and S, Q there.
  void statistics() override {
    mode_ = search();
    adopt_mode();
    laplace_sq();
  }

 protected:
  // A Laplace approximation and the unit-norm columns it used.
  struct Mode {
    LaplacePosterior lp;
    Eigen::MatrixXd PhiU;
  };
  Likelihood lik_;
  std::optional<Mode> mode_;      // the mode of the current model, when known
  std::vector<char> fell_once_;  // columns once deleted at a loss of evidence

  // The Laplace approximation of the current model (used, alpha), searched
  // from mu. Changes no state.
  Mode search() {
    Mode md;
    md.PhiU = st_.unit_columns();
    md.lp = laplace_mode(lik_, md.PhiU, st_.t, st_.alpha, st_.mu, st_.jitter_events, st_.problem.case_weights,
                         st_.problem.offset);
    return md;
  }

  // The evidence and the log posterior at the Laplace approximation lp.
  void adopt_evidence(const LaplacePosterior& lp) {
    st_.log_ml = laplace_log_evidence(lp, st_.alpha);
    st_.log_posterior = st_.log_ml + log_prior();
  }

  // The posterior and evidence become those of mode_.
  void adopt_mode() {
    const LaplacePosterior& lp = mode_->lp;
    st_.mode_converged = lp.converged;
    st_.Sigma = lp.post.Sigma;
    st_.mu = lp.post.mu;
    adopt_evidence(lp);
  }

  // S_m and Q_m of every column at mode_ (whose posterior was adopted), and
  // the caches of the fixed-curvature steps: B, PhiT_PhiU = Phi' B Phi_u and
  // PhiT_t = Phi' B t_hat. O(n M S).
  void laplace_sq() {
    const LaplacePosterior& lp = mode_->lp;
    st_.B = lp.irls_weights;
    const Eigen::MatrixXd BPhiU = lp.irls_weights.asDiagonal() * mode_->PhiU;
    st_.PhiT_PhiU = st_.inv_scale.asDiagonal() * (st_.Phi().transpose() * BPhiU);
    st_.weighted_sparsity();
    retarget(lp);
  }

  // Q and the linearised targets at the mode lp: since Phi_u' (t - y) = A mu
  // there, the Gaussian model at curvature B has posterior mean mu and
  // Q_m = phi_m' (t - y), the mode's own Q, for every column (the mode makes
  // the linearised targets drop out). O(n M).
  void retarget(const LaplacePosterior& lp) {
    st_.Q_in = (st_.Phi().transpose() * lp.score).cwiseProduct(st_.inv_scale);
    st_.PhiT_t = st_.PhiT_PhiU * st_.mu + st_.Q_in;
  }

  // The rule for a step whose realised evidence is checked: an action that
  // lowered the evidence below the saved state's is undone (the saved state
  // restored) and its column barred, except a column's first deletion to do
  // so (the re-estimations that follow often more than make up for it); an
  // action that stands, other than a re-estimation, lifts every bar. Returns
  // whether the action stands.
  bool keep_checked_action(const FastChoice& ch, const FastState::Snapshot& saved, double realised) {
    const Eigen::Index m = ch.column;
    const bool fell = evidence_fell(realised, saved.log_posterior);
    if (fell && (ch.action != kDelete || fell_once_[m])) {
      st_.restore(saved);
      st_.barred[m] = 1;
      return false;
    }
    if (fell) fell_once_[m] = 1;
    if (ch.action != kReestimate) std::fill(st_.barred.begin(), st_.barred.end(), 0);
    return true;
  }
};

// Poisson, whose curvature exp(eta) moves too much with the mode for steps at
// a fixed curvature: every action is followed by a mode search (O(n S^2) per
// Newton step) and checked, and S and Q of every column (O(n M S)) are
// recomputed for an accepted one.
class PoissonPath : public LaplacePath {
 public:
  using LaplacePath::LaplacePath;

  int step(const FastChoice& ch) override {
    if (!ch.changes_model()) return ch.action;
    const FastState::Snapshot saved = st_.save();
    st_.change_alpha(ch);
    mode_ = search();
    adopt_mode();
    if (!keep_checked_action(ch, saved, st_.log_posterior)) {
      mode_.reset();  // the mode of the undone action
      return kRejected;
    }
    laplace_sq();
    return ch.action;
  }
};

// Bernoulli, whose curvature is bounded (at most 1/4): between mode searches,
// up to kBatch steps are taken at a fixed curvature B (the IRLS weights of a
// recent mode), where the model is Gaussian in the linearised targets and the
// Gaussian updates apply; then the mode is searched again (O(n S^2) per
// Newton step) and the batch undone if the realised evidence fell. After an
// accepted batch, S and Q of every column are recomputed at the new
// curvature, O(n M S), only if the IRLS weights moved by more than
// kCurvatureChange (relative l1) since B was last set; otherwise the
// linearised targets are moved to the new mode (exact Q and posterior mean,
// O(n M)) and B is kept. After an undone batch, kBatch steps follow whose
// realised evidence is checked one by one by a mode search (each undone and
// its column barred if the evidence fell, see keep_checked_action()), with S
// and Q recomputed once at the end. Convergence is declared only at a freshly
// found mode with S and Q recomputed there.
class BernoulliPath : public LaplacePath {
 public:
  using LaplacePath::LaplacePath;

  int step(const FastChoice& ch) override {
    if (rule_ == Rule::checked) return checked_step(ch);
    if (ch.changes_model()) return batch_step(ch);
    if (ch.action != kTerminate || stats_ == Stats::at_mode) return ch.action;
    // Termination on statistics not fresh at a mode: the next iteration selects on fresh ones.
    if (stats_ == Stats::retargeted) {
      fresh_statistics();
      return kModeSearch;
    }
    return end_batch(true) ? kModeSearch : kRejected;
  }

 private:
  static constexpr int kBatch = 20;
  // Relative l1 change of the IRLS weights since B was last set above which
  // an accepted batch recomputes S and Q at the new curvature.
  static constexpr double kCurvatureChange = 0.1;

  // The state of the step rule. Where the statistics stand:
  enum class Stats {
    at_mode,     // S, Q, mu, Sigma at the mode of the current model
    retargeted,  // Q and mu at the mode, S and Sigma at an older curvature
    fixed,       // from fixed-curvature steps since the last mode
  };
  // How a step is taken: in batches checked at their end, or checked one by one.
  enum class Rule { batches, checked };
  Stats stats_ = Stats::at_mode;
  Rule rule_ = Rule::batches;
  int steps_ = 0;  // batches: steps since the last mode; checked: steps still to check

  FastState::Snapshot batch_start_;  // the state before the batch,
  Stats batch_start_stats_ = Stats::at_mode;  // and its statistics

  // Sigma, mu, evidence and S, Q of every column at the mode of the current
  // model (searched only if mode_ is not already that mode).
  void fresh_statistics() {
    if (!mode_) mode_ = search();
    adopt_mode();
    laplace_sq();
    stats_ = Stats::at_mode;
  }

  // One step at the fixed curvature of the last mode, its gain predicted;
  // after kBatch of them the mode is searched and the batch checked.
  int batch_step(const FastChoice& ch) {
    if (stats_ != Stats::fixed) {
      batch_start_ = st_.save();
      batch_start_stats_ = stats_;
      steps_ = 0;
    }
    st_.apply(ch);
    mode_.reset();
    st_.log_posterior += ch.gain;  // realised at the next mode
    stats_ = Stats::fixed;
    if (ch.action != kReestimate) std::fill(st_.barred.begin(), st_.barred.end(), 0);
    if (++steps_ >= kBatch && !end_batch()) return kRejected;
    return ch.action;
  }

  // The mode after a batch of fixed-curvature steps: the state before the
  // batch if the realised evidence fell (then kBatch checked steps follow);
  // otherwise S and Q at the new curvature (always if `full`, else only if B
  // has moved by more than kCurvatureChange), or the linearised targets moved
  // to the new mode. Returns whether the batch stands.
  bool end_batch(bool full = false) {
    steps_ = 0;
    mode_ = search();
    adopt_evidence(mode_->lp);
    if (evidence_fell(st_.log_posterior, batch_start_.log_posterior)) {
      st_.restore(batch_start_);
      stats_ = batch_start_stats_;
      mode_.reset();
      rule_ = Rule::checked;
      steps_ = kBatch;
      return false;
    }
    const LaplacePosterior& lp = mode_->lp;
    if (full || (lp.irls_weights - st_.B).lpNorm<1>() > kCurvatureChange * st_.B.lpNorm<1>()) {
      fresh_statistics();
    } else {
      // B and the caches (PhiT_PhiU, S, Sigma) kept: O(n M), against O(n M S) for S.
      st_.mode_converged = lp.converged;
      st_.mu = lp.post.mu;
      retarget(lp);
      stats_ = Stats::retargeted;
    }
    return true;
  }

  // One step at the fixed curvature whose realised evidence is checked at
  // once by a mode search (O(n S^2) per Newton step); S and Q of every column
  // (O(n M S)) are recomputed only when these steps end or would terminate.
  int checked_step(const FastChoice& ch) {
    int action = ch.action;
    if (!ch.changes_model()) {
      if (action != kTerminate || stats_ == Stats::at_mode) return action;
      fresh_statistics();  // the next iteration selects on fresh statistics
      return kModeSearch;
    }
    --steps_;
    const FastState::Snapshot saved = st_.save();
    st_.apply(ch);
    Mode found = search();
    const double log_ml = laplace_log_evidence(found.lp, st_.alpha);
    const double realised = log_ml + log_prior();
    if (!keep_checked_action(ch, saved, realised)) {
      action = kRejected;
    } else {
      mode_ = std::move(found);
      st_.mode_converged = mode_->lp.converged;
      st_.log_ml = log_ml;
      st_.log_posterior = realised;
      stats_ = Stats::fixed;  // mu, Sigma, S, Q: fixed-curvature values
    }
    if (steps_ == 0) {
      rule_ = Rule::batches;
      if (stats_ == Stats::fixed) fresh_statistics();
    }
    return action;
  }
};

}  // namespace sparsebayes
