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
//
// With an outlier class (a response range R > 0), each row is, with
// probability eps, drawn from a density h = 1 / R that does not depend on the
// weights (R at least kSpread robust residual scales, below):
// y_i ~ (1 - eps) t_nu(x_i' w, s2) + eps h. A t row keeps a weight
// ~ 1 / r_i^2 in the fit however far it lies, and a cluster of rows far out
// in x keeps its pull through its leverage (Rousseeuw & Leroy's masking);
// a row of the outlier class has none. With q(z_i, lambda_i) = q(z_i)
// q(lambda_i | z_i), the bound given E_i collapses to
// log[(1 - eps) t_nu(sqrt(E_i); 0, s2) + eps h]: pi_i = q(z_i = 1) is that
// mixture's posterior, (nu, s2) the t estimates weighted by 1 - pi_i,
// eps = mean(pi_i) (at most 1/2), and the weight posterior sees the variance
// lambda_i / (1 - pi_i). eps = 0 is the plain t model.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
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

constexpr double kLogPi = 1.1447298858494001741;

}  // namespace student_detail

class StudentNoise {
 public:
  static constexpr double kDfMin = 0.5, kDfMax = 1e4;
  static constexpr double kStartShare = 0.1;  // eps before the first E-step
  static constexpr double kMinClean = 1e-10;  // 1 - pi_i at least: lambda_i / (1 - pi_i) stays finite
  // The t scale is at least kFloor times the residuals' robust scale (see
  // robust_variance()). A t of s below half the robust scale is the
  // likelihood's degenerate direction, not a fit: with many tied targets it
  // is unbounded as s -> 0 (s = 1e-150 on 160 zeros of 200). On clean
  // normal residuals s ~ their scale, and with outliers (at most half) the
  // robust scale exceeds the inliers' by at most a factor ~1.6 at 30%.
  static constexpr double kFloor = 0.5;
  // The outlier class spreads over the response's range, and at least over
  // kSpread robust residual scales. A class narrower than that competes with
  // the t's own tails, not with outliers: a sample of n = 40 normal rows spans
  // ~4.5 sd, and over that range a mixture of N(0, 0.64^2) with 48% in the
  // class has the higher expected log likelihood than N(0, 1) itself;
  // ard(noise = "student") put a median 47% of clean rows in the class at
  // n = 40, 18% at n = 80 (bench/robust_clean.R). At kSpread = 10 the
  // median is ~0 in every cell; at 8 single fits still put up to 46% there.
  static constexpr double kSpread = 10.0;

  // fixed_df > 0 holds nu there; otherwise nu is estimated in [kDfMin, kDfMax].
  // response_range > 0 adds the outlier class, uniform over that range; y are
  // the targets, whose tied values count once in the floor's robust scale
  // (no floor without them).
  explicit StudentNoise(double fixed_df, double response_range = 0.0, const Eigen::VectorXd& y = Eigen::VectorXd())
      : fixed_df_(fixed_df > 0.0 ? fixed_df : -1.0),
        outlier_class_(response_range > 0.0),
        range_(response_range),
        log_background_(outlier_class_ ? -std::log(response_range) : 0.0),
        distinct_(distinct_rows(y)) {}

  bool started() const { return shape_ > 0.0; }
  bool has_outlier_class() const { return outlier_class_; }
  double df() const { return df_; }
  double scale() const { return s2_; }
  double outlier_share() const { return share_; }  // eps
  // pi_i: the posterior probability that row i belongs to the outlier class.
  Eigen::VectorXd outlier_probability() const { return (1.0 - clean_).matrix(); }

  // The fitted (nu, s2) and the outlier class into a solver's result (once fitted).
  void report(FitResult& res) const {
    if (!started()) return;
    res.student_df = df_;
    res.student_scale = s2_;
    res.student_outlier_share = share_;  // eps, 0 without the outlier class: the plain Student-t
    if (has_outlier_class()) res.outlier_probability = outlier_probability();
  }

  // The noise step given E_i = r_i^2 + x_i' Sigma x_i: (nu, s2) by maximum
  // likelihood (weighted by 1 - pi_i), the outlier class's E-step, then the
  // targets lambda_i / (1 - pi_i), lambda_i = (nu s2 + E_i) / (nu + 1).
  Eigen::VectorXd targets(const Eigen::VectorXd& E) {
    const Eigen::ArrayXd e = E.array().max(1e-300);
    if (clean_.size() != e.size()) {
      clean_ = Eigen::ArrayXd::Ones(e.size());
      share_ = has_outlier_class() ? kStartShare : 0.0;
    }
    if (!(s2_ > 0.0)) s2_ = e.mean();
    const double robust = robust_variance(e);
    floor_ = kFloor * kFloor * robust;
    if (has_outlier_class()) log_background_ = -std::log(std::max(range_, kSpread * std::sqrt(robust)));
    if (fixed_df_ > 0.0) {
      df_ = fixed_df_;
      s2_ = std::max(floor_, best_scale(e, clean_, df_, s2_));
    } else {
      fit_df(e);
    }
    shape_ = 0.5 * (df_ + 1.0);
    if (has_outlier_class() && share_ > 0.0) {
      const Eigen::ArrayXd log_odds =
          std::log(share_) + log_background_ - std::log1p(-share_) - log_density(e, df_, s2_);
      clean_ = (1.0 / (1.0 + log_odds.exp())).max(kMinClean);
      share_ = std::min(0.5, (1.0 - clean_).mean());  // > 0 where any pi_i > 0: KL(q(z) || eps) stays finite
    }
    return ((df_ * s2_ + e) / ((df_ + 1.0) * clean_)).matrix();
  }

  // The terms of the bound beyond log N(y | 0, L + X A^-1 X') at L = diag(lambda):
  //   -n (log a - digamma(a)) / 2 - sum_i KL(q(tau_i) || p(tau_i)),
  // tau_i = 1 / lambda_i, q(tau_i) = Gamma(a, rate a lambda_i), p = Gamma(nu / 2, rate nu s2 / 2).
  // With the outlier class, lambda here is lambda_i / (1 - pi_i) and row i adds
  //   -(1 - pi_i) [(log a - digamma(a)) / 2 + KL_i] + pi_i log(2 pi lambda_i) / 2 - log(1 - pi_i) / 2
  //   + pi_i log h - KL(q(z_i) || Bernoulli(eps)).
  double log_bound_terms(const Eigen::VectorXd& lambda) const {
    if (!started()) return 0.0;
    const double a = shape_, a0 = 0.5 * df_, b0 = 0.5 * df_ * s2_;
    const double gap = student_detail::log_minus_digamma(a);
    // KL_i with b_i = a lambda_i: the terms free of b_i, then those with it.
    const double per_sample = (a - a0) * student_detail::digamma(a) - std::lgamma(a) + std::lgamma(a0) - a0 * std::log(b0) - a;
    // Without the class pi_i = 0 in every row (clean_ = 1, eps = 0), and the
    // terms of the class vanish.
    const Eigen::ArrayXd c = clean_, p = 1.0 - clean_, l = lambda.array() * c, b = a * l;
    const Eigen::ArrayXd kl = per_sample + a0 * b.log() + a * b0 / b;
    const Eigen::ArrayXd kl_z = xlogy(p, p / share_) + xlogy(c, c / (1.0 - share_));
    return (-c * (0.5 * gap + kl) + 0.5 * p * (kLog2Pi + l.log()) - 0.5 * c.log() + p * log_background_ - kl_z).sum();
  }

 private:
  double fixed_df_;
  bool outlier_class_;
  double range_;
  double log_background_;  // log h, the class's density (0 without the class)
  double df_ = 10.0, s2_ = -1.0, shape_ = -1.0, share_ = 0.0;
  Eigen::ArrayXd clean_;                // 1 - pi_i
  std::vector<Eigen::Index> distinct_;  // one row of each distinct target value
  double floor_ = 0.0;                  // the scale's floor at the current step

  static std::vector<Eigen::Index> distinct_rows(const Eigen::VectorXd& y) {
    std::vector<Eigen::Index> rows(y.size());
    std::iota(rows.begin(), rows.end(), Eigen::Index{0});
    std::stable_sort(rows.begin(), rows.end(), [&](Eigen::Index a, Eigen::Index b) { return y(a) < y(b); });
    rows.erase(std::unique(rows.begin(), rows.end(), [&](Eigen::Index a, Eigen::Index b) { return y(a) == y(b); }),
               rows.end());
    return rows;
  }

  // A robust variance of the residuals that ties cannot make zero: median(E_i)
  // over one row per distinct target value, over the median of chi^2_1 (a
  // normal's variance). A fit that reproduces 160 zeros of 200 exactly has
  // E_i ~ 0 on 80% of the rows, but on one of the 41 distinct values.
  double robust_variance(const Eigen::ArrayXd& e) const {
    std::vector<double> v;
    v.reserve(distinct_.size());
    for (Eigen::Index i : distinct_) v.push_back(e(i));
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2] / 0.45493642311957;
  }

  // x log y, 0 where x = 0.
  static Eigen::ArrayXd xlogy(const Eigen::ArrayXd& x, const Eigen::ArrayXd& y) {
    return (x > 0.0).select(x * y.log(), 0.0);
  }

  // log t_nu(sqrt(e_i); 0, s2), row by row.
  static Eigen::ArrayXd log_density(const Eigen::ArrayXd& e, double df, double s2) {
    return std::lgamma(0.5 * (df + 1.0)) - std::lgamma(0.5 * df) - 0.5 * (student_detail::kLogPi + std::log(df * s2)) -
           0.5 * (df + 1.0) * (e / (df * s2)).log1p();
  }

  // sum_i v_i log t_nu(sqrt(e_i); 0, s2).
  static double log_likelihood(const Eigen::ArrayXd& e, const Eigen::ArrayXd& v, double df, double s2) {
    return (v * log_density(e, df, s2)).sum();
  }

  // The scale maximising the (weighted) likelihood at nu: the fixed point
  // s2 = sum(v_i w_i e_i) / sum(v_i), w_i = (nu + 1) / (nu + e_i / s2) (EM for the scale).
  static double best_scale(const Eigen::ArrayXd& e, const Eigen::ArrayXd& v, double df, double s2) {
    const double total = v.sum();
    for (int k = 0; k < 200; ++k) {
      const double next = (v * (df + 1.0) * e / (df + e / s2)).sum() / total;
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
    const Eigen::ArrayXd& v = clean_;
    const double lo = std::log(kDfMin), hi = std::log(kDfMax);
    const int grid = 15;
    double best = -kInf;
    int best_k = 0;
    std::vector<double> xs(grid), s2s(grid);
    double s2 = s2_;
    for (int k = 0; k < grid; ++k) {
      xs[k] = lo + (hi - lo) * k / (grid - 1);
      s2s[k] = s2 = std::max(floor_, best_scale(e, v, std::exp(xs[k]), s2));
      const double ll = log_likelihood(e, v, std::exp(xs[k]), s2);
      if (ll > best) {
        best = ll;
        best_k = k;
      }
    }
    const double step = (hi - lo) / (grid - 1), best_x = xs[best_k], s2_best = s2s[best_k];
    double a = std::max(lo, best_x - step), b = std::min(hi, best_x + step);
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    auto profile = [&](double x, double& s2_at) {
      s2_at = std::max(floor_, best_scale(e, v, std::exp(x), s2_best));
      return log_likelihood(e, v, std::exp(x), s2_at);
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
