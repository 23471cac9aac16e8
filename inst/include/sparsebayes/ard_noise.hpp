// The noise model of the batch ARD solver (joint_ard.hpp): one shared noise
// variance or one per sample, free (the update rule's own lambda step,
// ard_rules.hpp) or with a Student-t prior (q(lambda) and (nu, s2) in closed
// form for every rule, student_noise.hpp), or held (at the caller's value,
// or by a likelihood without one). It owns lambda, its bounds and when it is
// re-estimated: every noise_every iterations after the warm start.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <cmath>

#include "ard_posterior.hpp"
#include "student_noise.hpp"

namespace sparsebayes {

class ArdNoise {
 public:
  ArdNoise(const ProblemSpec& problem, const NoiseControl& noise, const BatchControl& batch, const Likelihood& lik,
           const Eigen::VectorXd& y)
      : problem_(problem),
        noise_control_(noise),
        batch_(batch),
        fixed_(problem.noise_variance > 0.0 || !lik.gaussian()),
        gaussian_(lik.gaussian()),
        bounds_(noise.lambda_min, noise.lambda_max),
        student_(noise.student_df, outlier_class_range(problem, noise, y), y) {
    const double lam0 = problem.noise_variance > 0.0 ? problem.noise_variance : initial_noise_variance(y, problem, noise);
    lambda_ = Eigen::VectorXd::Constant(problem.per_sample ? y.size() : 1, lam0);
    if (problem.per_sample && !fixed_ && problem.init_noise.size() == y.size()) lambda_ = problem.init_noise;
  }

  const Eigen::VectorXd& lambda() const { return lambda_; }
  bool fixed() const { return fixed_; }
  bool due(int t) const {
    return !fixed_ && t >= noise_control_.warm_start && (t - noise_control_.warm_start) % batch_.noise_every == 0;
  }
  // What the noise step at iteration t needs of the posterior.
  int needs(int t) const { return due(t) && problem_.per_sample ? ArdPosterior::kRowStats : 0; }
  // Whether the update rule's own lambda step is the target (not under a Student-t prior).
  bool rule_sets_target() const { return !problem_.student; }
  // The trace's noise column: mean(lambda), NaN without a noise.
  double trace_value() const { return gaussian_ ? lambda_.mean() : std::nan(""); }

  // lambda moves towards `target` (the rule's, or the Student-t one), damped
  // by eta (in log space, or linearly) within bounds that widen with the
  // residuals' robust scale. Returns the relative change of log lambda.
  double step(Eigen::VectorXd target, const ArdPosterior& post, double eta, bool linear) {
    if (problem_.student) target = student_.targets(post.resid().cwiseAbs2() + post.q_row());
    bounds_.widen(post.residual_variance());
    return damped_noise_step(lambda_, target, bounds_, eta, linear);
  }

  // The Student-t prior's terms of the log evidence bound (0 without it).
  double log_bound_terms() const { return student_.log_bound_terms(lambda_); }

  void report(FitResult& res) const {
    if (gaussian_) res.lambda = lambda_;
    student_.report(res);
  }

 private:
  const ProblemSpec& problem_;  // the solver's, which outlive the noise model
  const NoiseControl& noise_control_;
  const BatchControl& batch_;
  bool fixed_, gaussian_;
  Eigen::VectorXd lambda_;
  NoiseBounds bounds_;
  StudentNoise student_;
};

}  // namespace sparsebayes
