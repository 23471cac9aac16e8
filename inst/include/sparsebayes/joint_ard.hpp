// Joint model-and-data ARD (Timans et al.): y = X theta + e with
// theta_j ~ N(0, 1/alpha_j) and e_i ~ N(0, lambda_i) (or one shared lambda),
// alpha and lambda chosen by maximising log p(y | alpha, lambda).
//
// One loop (JointArd) owns the schedule and runs three policies, each chosen
// once per fit:
//   the update rule   em, mackay, irls2, irls1, gradient (ard_rules.hpp)
//   the posterior     weight space, sample space or Laplace (ard_posterior.hpp)
//   the noise model   shared, per-sample or Student-t, or held (ard_noise.hpp)
// so the rules, pruning, readmission, damping and the schedule are the same
// for every likelihood and noise.
// Safeguards of App. D.1: damping in log space, clipping, jitter on a
// failed Cholesky (counted), warm start (alpha only for the first iterations), lambda updated
// every K iterations, convergence by the relative l_inf change of the log parameters with
// patience. A weight whose alpha reaches the upper clip is pruned.
// Runs on the columns scaled to unit mean square (applied on the fly; targets in standard units, from R);
// fit.hpp maps the result back to the columns as given.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ard_noise.hpp"
#include "ard_posterior.hpp"
#include "ard_rules.hpp"
#include "robust_start.hpp"

namespace sparsebayes {

namespace ard_detail {

// Thinned record of alpha and lambda: every `stride` iterations, halved when full.
struct PathRecorder {
  int max_rows = 200, stride = 1;
  std::vector<int> it;
  std::vector<Eigen::VectorXd> alpha, lambda;
  void record(int t, const Eigen::VectorXd& alpha_t, const Eigen::VectorXd& lambda_t) {
    if (max_rows <= 0 || t % stride != 0) return;
    it.push_back(t);
    alpha.push_back(alpha_t);
    lambda.push_back(lambda_t);
    if (static_cast<int>(it.size()) > max_rows) {
      std::size_t k = 0;
      for (std::size_t i = 0; i < it.size(); i += 2, ++k) {
        it[k] = it[i];
        alpha[k] = alpha[i];
        lambda[k] = lambda[i];
      }
      it.resize(k);
      alpha.resize(k);
      lambda.resize(k);
      stride *= 2;
    }
  }
  void report(FitResult& res, Eigen::Index d, Eigen::Index n_lambda) const {
    const Eigen::Index T = it.size();
    res.path_iteration = it;
    res.path_alpha.resize(T, d);
    res.path_lambda.resize(T, n_lambda);
    for (Eigen::Index k = 0; k < T; ++k) {
      res.path_alpha.row(k) = alpha[k].transpose();
      res.path_lambda.row(k) = lambda[k].transpose();
    }
  }
};

}  // namespace ard_detail

class JointArd {
 public:
  // Phi diag(inv_scale) has unit-norm columns (see fit.hpp); the data
  // (data.hpp) are the rows in memory, their sums (shared noise), or sums
  // and targets with passes over the rows (per-sample noise).
  JointArd(Data& data, const Eigen::VectorXd& inv_scale, const Likelihood& lik, const ProblemSpec& problem,
           const LoopControl& loop, const NoiseControl& noise, const BatchControl& batch)
      : problem_(problem),
        loop_(loop),
        noise_control_(noise),
        batch_(batch),
        rule_(make_ard_rule(problem_, batch_)),
        noise_(problem_, noise_control_, batch_, lik, data.has_targets() ? data.targets() : Eigen::VectorXd()),
        post_(data, inv_scale, lik, problem_) {
    if (problem_.gradient_form != "auto" && problem_.gradient_form != "primal" && problem_.gradient_form != "dual")
      throw std::invalid_argument("unknown gradient form '" + problem_.gradient_form + "'");
    if (!(batch_.alpha_min > 0.0 && batch_.alpha_min < batch_.alpha_max && noise_control_.lambda_min > 0.0 &&
          noise_control_.lambda_min < noise_control_.lambda_max))
      throw std::invalid_argument("the clipping bounds must satisfy 0 < min < max");
    if (batch_.schedule != "converge" && batch_.schedule != "paper")
      throw std::invalid_argument("unknown schedule '" + batch_.schedule + "'");
    if (lik.gaussian() && !((data.in_memory() ? sample_variance(data.targets()) : data.sums().target_variance()) > 0.0))
      throw std::invalid_argument("the response is constant; nothing to fit");
    active_ = post_.nonzero_columns();
    if (active_.empty()) throw std::invalid_argument("every feature column is zero");
    alpha_ = Eigen::VectorXd::Constant(active_.size(), alpha_fixed_ ? batch_.fixed_alpha : batch_.init_alpha);
  }
  // The policies hold references to the settings.
  JointArd(const JointArd&) = delete;
  JointArd& operator=(const JointArd&) = delete;

  FitResult run(const Progress& progress) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    // Damping in log space (closed-form rules only; the paper's schedule damps
    // alpha itself), then clipping.
    const bool damp = rule_->damped(), linear = batch_.schedule == "paper";
    ard_detail::PathRecorder path;
    path.max_rows = batch_.path_max;
    FitResult res;
    int t = 0, calm = 0;
    bool converged = false;
    double last_lambda_change = noise_.fixed() ? 0.0 : kInf;
    while (true) {
      check_interrupt();
      posterior(t);
      // No pruning during the warm start and the first three noise updates:
      // with the noise still near its start value a precision may touch the
      // clip and must be free to come back. A fit that converges before then
      // prunes at once (a loose tolerance stopped at iteration 55-60 with
      // every column relevant).
      const bool pruned =
          (t >= noise_control_.warm_start + 3 * batch_.noise_every || noise_.fixed() || converged) && prune();
      if (pruned) {
        calm = 0;
        posterior(t);  // exact for the reduced model
      }
      // Converged on the active set: a pruned column whose evidence gain given
      // the current model is positive comes back (the fast solver's addition),
      // so the end point is a maximum over all columns, not only over the ones
      // that survived an early prune.
      if (converged && readmit(t)) {
        converged = false;
        calm = 0;
      }
      const TraceRow row{t, log_evidence(), static_cast<int>(active_.size()), noise_.trace_value(), kReestimate};
      res.trace.push_back(row);
      path.record(t, full_alpha(), path_lambda());
      if (progress) progress(row);
      if (converged || t >= loop_.max_iterations) break;
      if (std::chrono::duration<double>(clock::now() - start).count() > loop_.time_limit) break;

      const bool update_lambda = noise_.due(t);
      Eigen::VectorXd alpha_new = alpha_, l_new = noise_.lambda();
      rule_->step(post_, active_, alpha_, noise_.lambda(), !alpha_fixed_, update_lambda && noise_.rule_sets_target(), t,
                  alpha_new, l_new);
      const Eigen::VectorXd log_alpha_old = alpha_.array().log();
      for (Eigen::Index k = 0; k < alpha_new.size() && !alpha_fixed_; ++k) {
        const double a =
            std::isfinite(alpha_new(k)) ? std::clamp(alpha_new(k), batch_.alpha_min, batch_.alpha_max) : batch_.alpha_max;
        double lg = std::log(a);
        if (damp && linear) lg = std::log((1.0 - batch_.damping_alpha) * alpha_(k) + batch_.damping_alpha * a);
        else if (damp) lg = (1.0 - batch_.damping_alpha) * log_alpha_old(k) + batch_.damping_alpha * lg;
        alpha_new(k) = std::exp(lg);
      }
      if (update_lambda) {
        // Damped (closed-form rules only) and clipped, as every solver's noise step.
        last_lambda_change = noise_.step(l_new, post_, damp ? noise_control_.damping_lambda : 1.0, linear);
        post_.noise_changed();
      }
      const Eigen::VectorXd log_alpha_new = alpha_new.array().log();
      const double alpha_change =
          alpha_new.size()
              ? (log_alpha_new - log_alpha_old).cwiseAbs().maxCoeff() / (1.0 + log_alpha_new.cwiseAbs().maxCoeff())
              : 0.0;
      alpha_ = alpha_new;
      ++t;
      const bool noise_settled = noise_.fixed() || t > noise_control_.warm_start;
      // The paper's schedule runs its whole budget: the budget is part of that estimator.
      if (noise_settled && alpha_change < loop_.tolerance && last_lambda_change < loop_.tolerance && !linear) ++calm;
      else calm = 0;
      converged = calm >= batch_.patience;
    }
    res.Sigma = post_.final_covariance(active_, alpha_, noise_.lambda(), res.trace.size());
    res.relevant = active_;
    res.mu = post_.mu();
    res.alpha = full_alpha();
    noise_.report(res);
    res.log_evidence = log_evidence();
    res.log_posterior = res.log_evidence;  // no prior on the precisions in the batch solvers
    if (post_.has_rows()) res.fitted = post_.y() - post_.resid();
    res.iterations = t;
    res.converged = converged;
    res.jitter_events = post_.jitter_events();
    res.mode_converged = post_.mode_converged();
    path.report(res, post_.cols(), path_lambda().size());
    to_unit_norm(res);
    return res;
  }

 private:
  using Columns = ArdPosterior::Columns;
  // The parts of SolverOptions the batch solver reads (copies, which the policies reference).
  const ProblemSpec problem_;
  const LoopControl loop_;
  const NoiseControl noise_control_;
  const BatchControl batch_;
  const bool alpha_fixed_ = batch_.fixed_alpha > 0.0;
  std::unique_ptr<ArdRule> rule_;
  ArdNoise noise_;
  ArdPosterior post_;
  Columns active_;        // columns still in the model, increasing
  Eigen::VectorXd alpha_;  // alpha per active column

  // The noise's trajectory, but not per row when the rows are read by passes:
  // it would hold T x n numbers (1.6 GB at n = 1e6).
  Eigen::VectorXd path_lambda() const {
    return post_.has_rows() || !problem_.per_sample ? noise_.lambda() : Eigen::VectorXd();
  }

  void posterior(int t) { post_.update(active_, alpha_, noise_.lambda(), noise_.needs(t) | rule_->needs()); }
  // The log evidence: the posterior's log_ml() plus, under Student-t noise,
  // the bound terms that make it the variational bound (FitResult::log_evidence).
  double log_evidence() const { return post_.log_ml() + noise_.log_bound_terms(); }

  // Drops columns whose alpha reached the upper clip, from the current
  // posterior; never the last one.
  static constexpr double kPruneShare = 1e-2;
  bool prune() {
    if (alpha_fixed_) return false;
    const Eigen::VectorXd& mu = post_.mu();
    const Eigen::VectorXd& diag_sigma = post_.diag_sigma();
    Columns keep_cols;
    std::vector<double> keep_alpha;
    for (std::size_t k = 0; k < active_.size(); ++k) {
      // Pruned once alpha reaches the clip (damped updates only approach it)
      // and dropping the column costs next to nothing: the exact change of the
      // log evidence is -(mu_j^2 / Sigma_jj + log(alpha_j Sigma_jj)) / 2.
      // Also pruned below the clip when dropping it raises the evidence (cost
      // < 0, i.e. q_j^2 < s_j: its best alpha given the others is infinite, the
      // fast solver's deletion) and the data determine less than
      // kPruneShare of its weight (1 - alpha_j Sigma_jj, so the gain is below
      // kPruneShare / 2 nats): EM only crawls towards the clip (alpha grows by
      // about s_j - q_j^2 per step) and would otherwise stop with such columns
      // still in. readmit() brings back any that the final model wants.
      const double cost = 0.5 * (mu(k) * mu(k) / diag_sigma(k) + std::log(alpha_(k) * diag_sigma(k)));
      const bool drop_raises = cost < 0.0 && 1.0 - alpha_(k) * diag_sigma(k) < kPruneShare;
      if (!drop_raises && (alpha_(k) < 0.99 * batch_.alpha_max || cost > 1e-6)) {
        keep_cols.push_back(active_[k]);
        keep_alpha.push_back(alpha_(k));
      }
    }
    if (keep_cols.size() == active_.size()) return false;
    if (keep_cols.empty()) {  // keep the column with the largest posterior mean
      Eigen::Index k;
      mu.cwiseAbs().maxCoeff(&k);
      keep_cols.assign(1, active_[k]);
      keep_alpha.assign(1, alpha_(k));
      if (active_.size() == 1) return false;
    }
    set_active(keep_cols, keep_alpha);
    return true;
  }

  // Pruned columns whose single-column evidence gain at the current (alpha,
  // lambda) exceeds kReadmitGain re-enter at their best alpha given the others,
  // s_j^2 / (q_j^2 - s_j), with s_j = x_j' Sigma_y^-1 x_j and q_j = x_j' Sigma_y^-1 y
  // (the fast solver's addition, all at once: one per round of convergence
  // took ten times the iterations for the same end point on n = 2000,
  // d = 256). A column re-enters at most kMaxReadmissions times, so add/prune
  // cycles end. Each gain is exact alone but the columns' gains do not add,
  // so when the evidence falls only the column of the largest gain comes
  // back, whose gain is exact (EM's trace must not fall). Not for
  // fixed alpha or a rule that does not readmit. Returns whether any came
  // back, with the posterior of the new model.
  static constexpr double kReadmitGain = 1e-4;
  static constexpr int kMaxReadmissions = 3;
  std::vector<int> readmissions_;
  bool readmit(int t) {
    const Eigen::Index d = post_.cols();
    if (alpha_fixed_ || !rule_->readmits()) return false;
    if (static_cast<Eigen::Index>(active_.size()) == d) return false;
    if (readmissions_.empty()) readmissions_.assign(d, 0);
    std::vector<char> in(d, 0);
    for (Eigen::Index j : active_) in[j] = 1;
    Columns P;
    for (Eigen::Index j = 0; j < d; ++j)
      if (!in[j] && readmissions_[j] < kMaxReadmissions && post_.usable(j)) P.push_back(j);
    if (P.empty()) return false;
    Eigen::VectorXd s, q;
    post_.candidate_scores(P, active_, alpha_, noise_.lambda(), s, q);
    const Columns before_cols = active_;
    const std::vector<double> before_alpha(alpha_.data(), alpha_.data() + alpha_.size());
    const double before = log_evidence();
    // The model with the columns `which` (indices into P) readmitted.
    auto readmitted = [&](const std::vector<std::size_t>& which) {
      Columns cols = before_cols;
      std::vector<double> alphas = before_alpha;
      for (std::size_t k : which) {
        const auto pos = std::lower_bound(cols.begin(), cols.end(), P[k]);
        alphas.insert(alphas.begin() + (pos - cols.begin()),
                      std::clamp(s(k) * s(k) / (q(k) * q(k) - s(k)), batch_.alpha_min, batch_.alpha_max));
        cols.insert(pos, P[k]);
      }
      set_active(cols, alphas);
      post_.invalidate();  // the weighted caches hold a sub-block only while columns leave
      posterior(t);
    };
    std::vector<std::size_t> gaining;
    std::size_t best = 0;
    double best_gain = -kInf;
    for (std::size_t k = 0; k < P.size(); ++k) {
      const double sk = s(k), q2 = q(k) * q(k), theta = q2 - sk;
      if (!(sk > 0.0) || !(theta > 0.0)) continue;
      const double gain = 0.5 * (theta / sk + std::log(sk / q2));
      // Its best alpha beyond the upper clip is a pruned column's: clipped
      // below its best, its gain turns into a loss (0.011 nats at n = 500).
      if (gain <= kReadmitGain || sk * sk / theta >= 0.99 * batch_.alpha_max) continue;
      gaining.push_back(k);
      if (gain > best_gain) {
        best_gain = gain;
        best = k;
      }
    }
    if (gaining.empty()) return false;
    readmitted(gaining);
    if (gaining.size() > 1 && log_evidence() < before - 1e-9 * (1.0 + std::abs(before))) {
      set_active(before_cols, before_alpha);  // rule_->follow() maps its state back through the columns
      gaining.assign(1, best);
      readmitted(gaining);
    }
    for (std::size_t k : gaining) ++readmissions_[P[k]];
    return true;
  }

  void set_active(const Columns& cols, const std::vector<double>& alpha) {
    rule_->follow(active_, cols);
    active_ = cols;
    alpha_ = Eigen::Map<const Eigen::VectorXd>(alpha.data(), alpha.size());
  }

  Eigen::VectorXd full_alpha() const {
    Eigen::VectorXd out = Eigen::VectorXd::Constant(post_.cols(), kInf);
    for (std::size_t k = 0; k < active_.size(); ++k) out(active_[k]) = alpha_(k);
    return out;
  }

  // From unit mean-square columns to unit-norm ones: w sqrt(N), alpha / N (N rows, or replicated ones).
  void to_unit_norm(FitResult& r) const {
    const double nn = replicated_rows(problem_, post_.rows());
    r.mu *= std::sqrt(nn);
    r.Sigma *= nn;
    r.alpha /= nn;
    r.path_alpha /= nn;
  }
};

// Per-sample noise is fitted from two starts when the basis is narrow
// enough for a high-breakdown one: the plain start and the LTS start
// (robust_start.hpp), whose noise variances start at max(r_i^2, s^2) for LTS
// residuals r and robust scale s. Both optima and their log evidences
// (bounds) are reported; "best" returns the higher, "robust" the one reached
// from the LTS start (the MM-estimator's choice: a local optimum next to a
// high-breakdown start, which a cluster of bad leverage points cannot
// capture, even where it has the lower evidence). When the plain fit
// already agrees with the LTS fit within 2.5 s on every row, both starts
// lie in one basin and the second fit is not run (its evidence is NaN); the
// test uses the reweighted LTS fit and its scale (robust_start.hpp), as
// efficient as least squares on clean data. The optimum not returned is
// kept in `other`, so that R can say how the two explain the data.
inline FitResult fit_joint_ard(RowsInMemory& data, const Eigen::VectorXd& inv_scale, const Likelihood& lik,
                               const ProblemSpec& problem, const LoopControl& loop, const NoiseControl& noise,
                               const BatchControl& batch, const Progress& progress) {
  const Eigen::Ref<const Eigen::MatrixXd>& Phi = data.basis();
  const Eigen::VectorXd& y = data.targets();
  if (batch.start != "plain" && batch.start != "best" && batch.start != "robust")
    throw std::invalid_argument("unknown start '" + batch.start + "'");
  FitResult plain = JointArd(data, inv_scale, lik, problem, loop, noise, batch).run(progress);
  // The paper's schedule stops early by design: an estimator of its own, from its own start.
  if (batch.start == "plain" || !problem.per_sample || problem.noise_variance > 0.0 || batch.schedule == "paper")
    return plain;
  const Eigen::MatrixXd X = robust_start_design(Phi, inv_scale);  // built once for both residuals
  if (X.size() == 0) return plain;  // too wide a basis for a high-breakdown start
  const Eigen::VectorXd r = lts_residuals(X, y, batch.start_subsets);
  if (r.size() == 0) return plain;
  const double s2 = robust_start_variance(r, y);
  const Eigen::VectorXd rw = reweighted_residuals(X, y, r);
  if ((y - plain.fitted - rw).cwiseAbs().maxCoeff() <= 2.5 * std::sqrt(robust_start_variance(rw, y))) {
    plain.start_log_evidence = Eigen::Vector2d(plain.log_evidence, std::nan(""));  // not run
    return plain;
  }
  ProblemSpec robust_start = problem;
  robust_start.init_noise = r.cwiseAbs2().cwiseMax(s2);
  FitResult robust = JointArd(data, inv_scale, lik, robust_start, loop, noise, batch).run(progress);
  const bool keep_robust = batch.start == "robust" || robust.log_evidence > plain.log_evidence;
  FitResult& kept = keep_robust ? robust : plain;
  FitResult& other = keep_robust ? plain : robust;
  kept.start_log_evidence = Eigen::Vector2d(plain.log_evidence, robust.log_evidence);
  kept.start_chosen = keep_robust ? 1 : 0;
  other.trace.clear();  // R reads its weights, noise and fitted values only
  other.path_iteration.clear();
  other.path_alpha.resize(0, 0);
  other.path_lambda.resize(0, 0);
  kept.other = std::make_shared<FitResult>(std::move(other));
  return std::move(kept);
}

}  // namespace sparsebayes
