// The update rules of the batch ARD solver (joint_ard.hpp; App. B.7, Algs.
// 1-4 of Timans et al.), one object per rule, chosen once by
// make_ard_rule() from the method table (methods.hpp):
//   em       alpha_j <- 1 / (mu_j^2 + Sigma_jj),  lambda_i <- r_i^2 + x_i' Sigma x_i
//   mackay   alpha_j <- (1 - alpha_j Sigma_jj) / mu_j^2, lambda as em (shared: rss / (n - sum gamma))
//   irls2    the same fixed point written through Pi_y = Sigma_y^-1 (Wipf & Nagarajan)
//   irls1    a double-l1 weighted problem solved by ADMM (warm-started), then map-back rules
//   gradient Adam on log alpha, log lambda
// A rule turns the current posterior (ard_posterior.hpp) into targets for
// alpha and, for Gaussian noise of its own (not Student-t: ard_noise.hpp),
// for lambda; the loop damps, clips, prunes and schedules. A rule with
// per-column state (ADMM, Adam) owns it.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "ard_posterior.hpp"
#include "methods.hpp"

namespace sparsebayes {

class ArdRule {
 public:
  using Columns = ArdPosterior::Columns;
  ArdRule(const ProblemSpec& problem, const BatchControl& batch) : problem_(problem), batch_(batch) {}
  virtual ~ArdRule() = default;
  // What the step needs of the posterior beyond the noise model's (ArdPosterior::k*).
  virtual int needs() const { return 0; }
  // Whether the loop damps the step (Adam has its own step size).
  virtual bool damped() const { return true; }
  // Whether pruned columns may come back.
  virtual bool readmits() const { return true; }
  // The active set changes from `from` to `to` (both increasing): carry per-column state.
  virtual void follow(const Columns& /*from*/, const Columns& /*to*/) {}
  // Writes the targets of alpha into alpha_new (if update_alpha) and of lambda
  // into l_new (if update_lambda), from the posterior at (alpha, lambda).
  virtual void step(ArdPosterior& post, const Columns& active, const Eigen::VectorXd& alpha,
                    const Eigen::VectorXd& lambda, bool update_alpha, bool update_lambda, int t,
                    Eigen::VectorXd& alpha_new, Eigen::VectorXd& l_new) = 0;

 protected:
  const ProblemSpec& problem_;  // the solver's, which outlive the rule
  const BatchControl& batch_;

  // sum_j (1 - alpha_j Sigma_jj): the effective number of parameters, = sum_i h_i.
  static double effective_parameters(const ArdPosterior& post, const Eigen::VectorXd& alpha) {
    return (1.0 - alpha.array() * post.diag_sigma().array()).sum();
  }
  double replicated(const ArdPosterior& post) const { return replicated_rows(problem_, post.rows()); }
};

// em, mackay and irls2: fixed points in closed form.
class ClosedFormRule : public ArdRule {
 public:
  using ArdRule::ArdRule;
  void step(ArdPosterior& post, const Columns&, const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda,
            bool update_alpha, bool update_lambda, int, Eigen::VectorXd& alpha_new, Eigen::VectorXd& l_new) override {
    if (update_alpha) alpha_new = alpha_target(post.mu().array().square(), post.diag_sigma().array(), alpha.array());
    if (update_lambda) l_new = lambda_target(post, alpha, lambda);
  }

 protected:
  virtual Eigen::VectorXd alpha_target(const Eigen::ArrayXd& mu2, const Eigen::ArrayXd& diag_sigma,
                                       const Eigen::ArrayXd& alpha) const = 0;
  // em and irls2 (the latter as (rss + n lambda - lambda^2 tr Pi_y) / n, tr Pi_y = (n - gamma) / lambda)
  virtual double shared_lambda(double rss, double lambda, double gamma, double N) const {
    return (rss + lambda * gamma) / N;
  }
  virtual Eigen::ArrayXd sample_lambda(const Eigen::ArrayXd& r2, const Eigen::ArrayXd& /*lambda*/,
                                       const Eigen::ArrayXd& q_row) const {
    return r2 + q_row;
  }

 private:
  Eigen::VectorXd lambda_target(const ArdPosterior& post, const Eigen::VectorXd& alpha,
                                const Eigen::VectorXd& lambda) const {
    if (!problem_.per_sample) {
      const double rss = post.rss();
      return Eigen::VectorXd::Constant(1, shared_lambda(rss, lambda(0), effective_parameters(post, alpha),
                                                        replicated(post)));
    }
    const Eigen::ArrayXd r2 = post.resid().array().square();
    if (batch_.studentized) {
      const Eigen::ArrayXd h = (post.q_row().array() / lambda.array()).min(1.0 - 1e-12);
      return (r2 / (1.0 - h).pow(batch_.studentized_power)).matrix();
    }
    return sample_lambda(r2, lambda.array(), post.q_row().array()).matrix();
  }
};

class EmRule : public ClosedFormRule {
 public:
  using ClosedFormRule::ClosedFormRule;

 protected:
  Eigen::VectorXd alpha_target(const Eigen::ArrayXd& mu2, const Eigen::ArrayXd& diag_sigma,
                               const Eigen::ArrayXd&) const override {
    return (mu2 + diag_sigma).inverse().matrix();
  }
};

class MackayRule : public ClosedFormRule {
 public:
  using ClosedFormRule::ClosedFormRule;

 protected:
  Eigen::VectorXd alpha_target(const Eigen::ArrayXd& mu2, const Eigen::ArrayXd& diag_sigma,
                               const Eigen::ArrayXd& alpha) const override {
    return ((1.0 - alpha * diag_sigma).max(0.0) / mu2).matrix();
  }
  double shared_lambda(double rss, double, double gamma, double N) const override {
    return rss / std::max(N - gamma, 1e-12);
  }
};

class Irls2Rule : public ClosedFormRule {
 public:
  using ClosedFormRule::ClosedFormRule;

 protected:
  Eigen::VectorXd alpha_target(const Eigen::ArrayXd& mu2, const Eigen::ArrayXd& diag_sigma,
                               const Eigen::ArrayXd& alpha) const override {
    // (theta^2 + 1/alpha - q_j / alpha^2)^-1 with q_j / alpha^2 = 1/alpha - Sigma_jj
    const Eigen::ArrayXd ginv = alpha.inverse();
    const Eigen::ArrayXd qj_over = ginv - diag_sigma;
    return (mu2 + ginv - qj_over).inverse().matrix();
  }
  Eigen::ArrayXd sample_lambda(const Eigen::ArrayXd& r2, const Eigen::ArrayXd& lambda,
                               const Eigen::ArrayXd& q_row) const override {
    // r^2 + lambda - lambda^2 [Pi_y]_ii, [Pi_y]_ii = (1 - h_i) / lambda_i
    const Eigen::ArrayXd pii = (lambda - q_row) / lambda.square();
    return r2 + lambda - lambda.square() * pii;
  }
};

// Adam on log alpha and log lambda for -log p(y | alpha, lambda); its moments
// follow the active set.
class GradientRule : public ArdRule {
 public:
  using ArdRule::ArdRule;
  bool damped() const override { return false; }

  void follow(const Columns& from, const Columns& to) override {
    if (m_alpha_.size() == 0) return;  // no step yet: the moments start at zero
    // Kept columns carry their moments, readmitted ones start afresh.
    Eigen::VectorXd m = Eigen::VectorXd::Zero(to.size()), v = Eigen::VectorXd::Zero(to.size());
    std::size_t c = 0;
    for (std::size_t k = 0; k < to.size(); ++k) {
      while (c < from.size() && from[c] < to[k]) ++c;
      if (c == from.size() || from[c] != to[k]) continue;
      m(k) = m_alpha_(c);
      v(k) = v_alpha_(c);
    }
    m_alpha_ = m;
    v_alpha_ = v;
  }

  void step(ArdPosterior& post, const Columns&, const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda,
            bool update_alpha, bool update_lambda, int t, Eigen::VectorXd& alpha_new,
            Eigen::VectorXd& l_new) override {
    if (m_alpha_.size() != alpha.size()) m_alpha_ = v_alpha_ = Eigen::VectorXd::Zero(alpha.size());
    if (m_lambda_.size() != lambda.size()) m_lambda_ = v_lambda_ = Eigen::VectorXd::Zero(lambda.size());
    // The step decays as 1 / sqrt(1 + t / 100) so that the iterates settle and the
    // relative-change rule can stop the run (a constant step keeps oscillating).
    const double lr = batch_.learning_rate / std::sqrt(1.0 + t / 100.0);
    const double c1 = 1.0 - std::pow(kB1, t + 1), c2 = 1.0 - std::pow(kB2, t + 1);
    const auto adam = [&](const Eigen::ArrayXd& grad, Eigen::VectorXd& m, Eigen::VectorXd& v,
                          const Eigen::VectorXd& x) -> Eigen::VectorXd {
      m = kB1 * m.array() + (1 - kB1) * grad;
      v = kB2 * v.array() + (1 - kB2) * grad.square();
      const Eigen::ArrayXd step = lr * (m.array() / c1) / ((v.array() / c2).sqrt() + kEps);
      return (x.array().log() - step).exp().matrix();
    };
    if (update_alpha) {
      const Eigen::ArrayXd grad =
          0.5 * (alpha.array() * (post.mu().array().square() + post.diag_sigma().array()) - 1.0);
      alpha_new = adam(grad, m_alpha_, v_alpha_, alpha);
    }
    if (update_lambda) {
      Eigen::ArrayXd grad;
      if (problem_.per_sample) {
        grad = 0.5 * (1.0 - post.q_row().array() / lambda.array() - post.resid().array().square() / lambda.array());
      } else {
        grad = Eigen::ArrayXd::Constant(1, 0.5 * (replicated(post) - effective_parameters(post, alpha) -
                                                  post.rss() / lambda(0)));
      }
      l_new = adam(grad, m_lambda_, v_lambda_, lambda);
    }
  }

 private:
  static constexpr double kB1 = 0.9, kB2 = 0.999, kEps = 1e-8;
  Eigen::VectorXd m_alpha_, v_alpha_, m_lambda_, v_lambda_;
};

// l1-IRLS (Alg. 4): weights from Pi_y, the double-l1 problem by ADMM
// (warm-started from its last solution), map-back rules.
class Irls1Rule : public ArdRule {
 public:
  using ArdRule::ArdRule;
  int needs() const override { return ArdPosterior::kRowStats | ArdPosterior::kColStats; }
  // Its ADMM state follows the active set only downwards.
  bool readmits() const override { return false; }

  void step(ArdPosterior& post, const Columns& active, const Eigen::VectorXd& /*alpha*/, const Eigen::VectorXd& lambda,
            bool update_alpha, bool update_lambda, int, Eigen::VectorXd& alpha_new,
            Eigen::VectorXd& l_new) override {
    const Eigen::Index S = active.size(), n = post.rows();
    const Eigen::VectorXd& y = post.y();
    const Eigen::MatrixXd& Xa = post.active_X(active);
    const Eigen::VectorXd lam = problem_.per_sample ? lambda : Eigen::VectorXd::Constant(n, lambda(0));
    const Eigen::VectorXd W = lam.cwiseInverse();
    const Eigen::VectorXd w = post.q_col().cwiseMax(0.0).cwiseSqrt();
    const Eigen::VectorXd pii = ((lam - post.q_row()).cwiseMax(0.0).array() / lam.array().square()).matrix();
    const Eigen::VectorXd v = problem_.per_sample ? Eigen::VectorXd(pii.cwiseSqrt()) : Eigen::VectorXd::Zero(n);
    if (cols_ != active) restart(post, active, Xa);
    const double rho = 2.0 * W.mean();
    // (I + X'X)^-1 rhs, through the smaller of the two factorisations.
    auto solve = [&](const Eigen::VectorXd& rhs) -> Eigen::VectorXd {
      if (!wide_) return llt_.solve(rhs);
      return rhs - Xa.transpose() * llt_.solve(Xa * rhs);
    };
    // ADMM on theta - a = 0, X theta + e - y = 0 (scaled duals u, s).
    const Eigen::VectorXd ka = 2.0 * w / rho;
    for (int k = 0; k < batch_.admm_iterations; ++k) {
      check_interrupt();
      theta_ = solve(a_ - u_ + Xa.transpose() * (y - e_ - s_));
      const Eigen::VectorXd Xth = Xa * theta_;
      const Eigen::VectorXd a_old = a_, e_old = e_;
      a_ = soft(theta_ + u_, ka);
      const Eigen::VectorXd c = y - Xth - s_;
      e_ = (soft(rho * c, 2.0 * v).array() / (2.0 * W.array() + rho)).matrix();
      u_ += theta_ - a_;
      const Eigen::VectorXd pr2 = Xth + e_ - y;
      s_ += pr2;
      const double primal = std::sqrt((theta_ - a_).squaredNorm() + pr2.squaredNorm());
      const double dual = rho * std::sqrt((a_ - a_old).squaredNorm() + (e_ - e_old).squaredNorm());
      const double scale = std::max({theta_.norm(), y.norm(), 1e-12});
      if (primal < batch_.admm_tolerance * scale && dual < batch_.admm_tolerance * scale) break;
    }
    const Eigen::VectorXd& theta = a_;  // exact zeros where the l1 penalty bites
    if (update_alpha) {
      for (Eigen::Index k = 0; k < S; ++k) alpha_new(k) = std::abs(theta(k)) > 0.0 ? w(k) / std::abs(theta(k)) : kInf;
    }
    if (update_lambda) {
      const Eigen::VectorXd r = y - Xa * theta;
      if (problem_.per_sample) {
        for (Eigen::Index i = 0; i < n; ++i) l_new(i) = v(i) > 0.0 ? std::abs(r(i)) / v(i) : lambda(i);
      } else {
        // tr Pi_y over the replicated rows: each extra copy adds 1 / lambda.
        const double trace_pi = pii.sum() + (replicated(post) - static_cast<double>(n)) / lam(0);
        l_new(0) = r.norm() / std::sqrt(std::max(trace_pi, 1e-300));
      }
    }
  }

 private:
  // ADMM state on the active columns cols_.
  Eigen::VectorXd theta_, a_, u_, e_, s_;
  Columns cols_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  bool wide_ = false;

  static Eigen::VectorXd soft(const Eigen::VectorXd& z, const Eigen::VectorXd& k) {
    return (z.array().sign() * (z.array().abs() - k.array()).max(0.0)).matrix();
  }

  // The active set shrank (or this is the first step): the kept columns keep
  // their ADMM state, and I + X_a'X_a (or I + X_a X_a', when wider) is refactorised.
  void restart(ArdPosterior& post, const Columns& active, const Eigen::MatrixXd& Xa) {
    const Eigen::Index S = active.size(), n = post.rows();
    Eigen::VectorXd th = Eigen::VectorXd::Zero(S), u = Eigen::VectorXd::Zero(S);
    std::size_t c = 0;
    for (Eigen::Index k = 0; k < S && !cols_.empty(); ++k) {
      while (cols_[c] != active[k]) ++c;
      th(k) = theta_(c);
      u(k) = u_(c);
    }
    if (cols_.empty()) th = post.mu();
    theta_ = th;
    a_ = th;
    u_ = u;
    if (e_.size() != n) {
      e_ = post.y() - Xa * th;
      s_ = Eigen::VectorXd::Zero(n);
    }
    wide_ = S > n;
    Eigen::MatrixXd G = wide_ ? Eigen::MatrixXd(Xa * Xa.transpose()) : Eigen::MatrixXd(Xa.transpose() * Xa);
    G.diagonal().array() += 1.0;
    llt_ = robust_cholesky(G, post.jitter_events());
    cols_ = active;
  }
};

// The rule of problem.method, chosen once per fit.
inline std::unique_ptr<ArdRule> make_ard_rule(const ProblemSpec& problem, const BatchControl& batch) {
  switch (method_named(problem.method).rule) {
    case Rule::em: return std::make_unique<EmRule>(problem, batch);
    case Rule::mackay: return std::make_unique<MackayRule>(problem, batch);
    case Rule::irls2: return std::make_unique<Irls2Rule>(problem, batch);
    case Rule::irls1: return std::make_unique<Irls1Rule>(problem, batch);
    case Rule::gradient: return std::make_unique<GradientRule>(problem, batch);
    case Rule::fast: break;
  }
  throw std::invalid_argument("JointArd runs the batch rules, not the fast solver");
}

}  // namespace sparsebayes
