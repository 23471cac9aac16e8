// Student-t noise (Tipping & Lawrence 2005, robust Bayesian interpolation):
//   e_i ~ N(0, lambda_i),  lambda_i ~ InvGamma(nu / 2, nu s2 / 2),
// so that e_i ~ t_nu(0, s2). The lambda_i are integrated out by mean field,
// q(w) q(lambda), with q(lambda_i) = InvGamma(a, a lambda_i): lambda_i is then
// 1 / E[1 / lambda_i], the variance the weight posterior uses, and
// a = (nu + 1) / 2. Given q(w), the best q(lambda) and (nu, s2) have closed
// forms in E_i = E_q(w)[(y_i - x_i' w)^2] = r_i^2 + x_i' Sigma x_i: the
// bound collapses to sum_i log t_nu(sqrt(E_i); 0, s2) (plus terms of q(w)),
// so (nu, s2) are the t maximum-likelihood estimates of sqrt(E_i) and
//   lambda_i = (nu s2 + E_i) / (nu + 1).
// Unlike the free per-sample lambda of joint ARD (whose stationary point has
// lambda_i (1 - h_i) = r_i^2, so that inliers collapse to the floor), lambda_i
// never falls below nu s2 / (nu + 1): inliers keep a common noise level and
// outliers get lambda_i ~ r_i^2 / (nu + 1).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <cmath>
#include <vector>

#include "model.hpp"

namespace sparsebayes {

namespace student_detail {

// log(x) - digamma(x) for x > 0, without cancellation for large x.
inline double log_minus_digamma(double x) {
  double shift = 0.0;  // digamma(x) = digamma(x + 1) - 1 / x
  double y = x;
  while (y < 8.0) {
    shift += 1.0 / y;
    y += 1.0;
  }
  const double y2 = 1.0 / (y * y);
  // log y - digamma(y), asymptotic series
  const double tail = 0.5 / y + y2 * (1.0 / 12.0 - y2 * (1.0 / 120.0 - y2 * (1.0 / 252.0 - y2 / 240.0)));
  return tail + shift + std::log(x / y);
}

inline double digamma(double x) { return std::log(x) - log_minus_digamma(x); }

}  // namespace student_detail

class StudentNoise {
 public:
  static constexpr double kDfMin = 0.5, kDfMax = 1e4;

  // fixed_df > 0 holds nu there; otherwise nu is estimated in [kDfMin, kDfMax].
  explicit StudentNoise(double fixed_df) : fixed_df_(fixed_df > 0.0 ? fixed_df : -1.0) {}

  bool started() const { return shape_ > 0.0; }
  double df() const { return df_; }
  double scale() const { return s2_; }

  // The noise step given E_i = r_i^2 + x_i' Sigma x_i: (nu, s2) by maximum
  // likelihood, then the targets lambda_i = (nu s2 + E_i) / (nu + 1).
  Eigen::VectorXd targets(const Eigen::VectorXd& E) {
    const Eigen::ArrayXd e = E.array().max(1e-300);
    if (!(s2_ > 0.0)) s2_ = e.mean();
    if (fixed_df_ > 0.0) {
      df_ = fixed_df_;
      s2_ = best_scale(e, df_, s2_);
    } else {
      fit_df(e);
    }
    shape_ = 0.5 * (df_ + 1.0);
    return ((df_ * s2_ + e) / (df_ + 1.0)).matrix();
  }

  // The terms of the bound beyond log N(y | 0, L + X A^-1 X') at L = diag(lambda):
  //   -n (log a - digamma(a)) / 2 - sum_i KL(q(tau_i) || p(tau_i)),
  // tau_i = 1 / lambda_i, q(tau_i) = Gamma(a, rate a lambda_i), p = Gamma(nu / 2, rate nu s2 / 2).
  double log_bound_terms(const Eigen::VectorXd& lambda) const {
    if (!started()) return 0.0;
    const double a = shape_, a0 = 0.5 * df_, b0 = 0.5 * df_ * s2_, n = static_cast<double>(lambda.size());
    const double gap = student_detail::log_minus_digamma(a);
    // sum_i KL with b_i = a lambda_i: the terms free of b_i once, times n.
    const double per_sample = (a - a0) * student_detail::digamma(a) - std::lgamma(a) + std::lgamma(a0) - a0 * std::log(b0) - a;
    const Eigen::ArrayXd b = a * lambda.array();
    const double kl = n * per_sample + a0 * b.log().sum() + a * b0 * b.inverse().sum();
    return -0.5 * n * gap - kl;
  }

 private:
  double fixed_df_;
  double df_ = 10.0, s2_ = -1.0, shape_ = -1.0;

  // sum_i log t_nu(sqrt(e_i); 0, s2) up to -n log(pi) / 2.
  static double log_likelihood(const Eigen::ArrayXd& e, double df, double s2) {
    const double n = static_cast<double>(e.size());
    return n * (std::lgamma(0.5 * (df + 1.0)) - std::lgamma(0.5 * df) - 0.5 * std::log(df * s2)) -
           0.5 * (df + 1.0) * (e / (df * s2)).log1p().sum();
  }

  // The scale maximising the likelihood at nu: the fixed point
  // s2 = mean(w_i e_i), w_i = (nu + 1) / (nu + e_i / s2) (EM for the scale).
  static double best_scale(const Eigen::ArrayXd& e, double df, double s2) {
    for (int k = 0; k < 200; ++k) {
      const double next = ((df + 1.0) * e / (df + e / s2)).mean();
      const bool done = std::abs(next - s2) <= 1e-10 * s2;
      s2 = next;
      if (done) break;
    }
    return s2;
  }

  // nu by golden-section search of the profile likelihood over log nu,
  // bracketed by a coarse grid (the profile can be flat towards nu = inf,
  // the Gaussian limit, which the upper bound kDfMax stands for).
  void fit_df(const Eigen::ArrayXd& e) {
    const double lo = std::log(kDfMin), hi = std::log(kDfMax);
    const int grid = 15;
    double best = -kInf;
    int best_k = 0;
    std::vector<double> xs(grid), s2s(grid);
    double s2 = s2_;
    for (int k = 0; k < grid; ++k) {
      xs[k] = lo + (hi - lo) * k / (grid - 1);
      s2s[k] = s2 = best_scale(e, std::exp(xs[k]), s2);
      const double ll = log_likelihood(e, std::exp(xs[k]), s2);
      if (ll > best) {
        best = ll;
        best_k = k;
      }
    }
    const double step = (hi - lo) / (grid - 1), best_x = xs[best_k], s2_best = s2s[best_k];
    double a = std::max(lo, best_x - step), b = std::min(hi, best_x + step);
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    auto profile = [&](double x, double& s2_at) {
      s2_at = best_scale(e, std::exp(x), s2_best);
      return log_likelihood(e, std::exp(x), s2_at);
    };
    double c = b - g * (b - a), d = a + g * (b - a), sc, sd;
    double fc = profile(c, sc), fd = profile(d, sd);
    for (int k = 0; k < 40 && b - a > 1e-6; ++k) {
      if (fc > fd) {
        b = d;
        d = c;
        fd = fc;
        sd = sc;
        c = b - g * (b - a);
        fc = profile(c, sc);
      } else {
        a = c;
        c = d;
        fc = fd;
        sc = sd;
        d = a + g * (b - a);
        fd = profile(d, sd);
      }
    }
    double x = fc > fd ? c : d, s = fc > fd ? sc : sd, f = std::max(fc, fd);
    if (best > f) {  // a grid end (nu at a bound) beat the interior
      x = best_x;
      s = s2_best;
    }
    df_ = std::exp(x);
    s2_ = s;
  }
};

}  // namespace sparsebayes
