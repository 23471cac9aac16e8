// The smoothness prior of Schmolck & Everson (2007): p(alpha | sigma^2) is
// proportional to exp(-c DF) with DF ~ sum_m 1 / (1 + sigma^2 alpha_m), so
// one basis function contributes
//   l^(a) = l(a) - c / (1 + a / beta),
//   l(a)  = [log a - log(a + s) + q^2 / (a + s)] / 2     (Tipping & Faul),
// with beta = 1 / sigma^2 and sparsity and quality factors s and q.
// c = 0 is the classic RVM; AIC, BIC and RIC are c = 1, log(N)/2, log(N).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <limits>

namespace sparsebayes {

// l^(a) in a form that stays accurate for large a; l^(inf) = 0.
inline double smooth_gain(double a, double s, double q, double beta, double c) {
  if (std::isinf(a)) return 0.0;
  return 0.5 * (-std::log1p(s / a) + q * q / (a + s)) - c / (1.0 + a / beta);
}

// log p(alpha | beta) + log p(1 / beta): the smoothness prior -sum_m c_m / (1 + alpha_m / beta)
// (a pruned column, alpha_m = inf, adds nothing; c holds one constant per
// column) and, with it, the inverse-gamma prior (its shape and scale) on the
// noise variance (eq. 60 of Schmolck & Everson, up to its constant
// normaliser). 0 without a prior (every c_m = 0).
inline double log_smoothness_prior(const Eigen::VectorXd& alpha, double beta, const Eigen::VectorXd& c, double shape,
                                   double scale) {
  if (!(c.array() > 0.0).any()) return 0.0;
  return -(c.array() / (1.0 + alpha.array() / beta)).sum() + shape * std::log(scale) - std::lgamma(shape) +
         (shape + 1.0) * std::log(beta) - scale * beta;
}

// The same with one constant c for every column.
inline double log_smoothness_prior(const Eigen::VectorXd& alpha, double beta, double c, double shape, double scale) {
  return log_smoothness_prior(alpha, beta, Eigen::VectorXd::Constant(alpha.size(), c), shape, scale);
}

namespace detail {

// The numerator P(a) of dl^/da (paper eqs. 46-49).
struct SmoothCubic {
  double b0, b1, b2, b3;
  SmoothCubic(double s, double q, double beta, double c)
      : b0(s * s * beta * beta),
        b1(s * beta * beta + 2.0 * beta * s * s - beta * beta * q * q + 2.0 * s * s * c * beta),
        b2(2.0 * s * beta + s * s - 2.0 * beta * q * q + 4.0 * s * beta * c),
        b3(s - q * q + 2.0 * c * beta) {}
  double operator()(double a) const { return ((b3 * a + b2) * a + b1) * a + b0; }
};

// The point where `below(a)` turns false, between lo (true) and hi (false),
// by bisection in log a: robust over the many decades a spans.
template <typename Below>
double log_bisect(const Below& below, double lo, double hi) {
  for (int it = 0; it < 200 && hi / lo > 1.0 + 1e-13; ++it) {
    const double mid = std::sqrt(lo * hi);
    if (below(mid)) lo = mid;
    else hi = mid;
  }
  return std::sqrt(lo * hi);
}

// A root of P between lo (P > 0) and hi (P < 0).
inline double bisect_root(const SmoothCubic& P, double lo, double hi) {
  return log_bisect([&P](double a) { return P(a) > 0.0; }, lo, hi);
}

}  // namespace detail

// The maximiser of l^(a) over a in (0, inf], choosing among the four cases
// of the paper's Fig. 4 (App. 6.3): no finite turning point, one (B3 < 0:
// the maximum), or two (B3 > 0: the smaller is the maximum, kept only if it
// beats l^(inf) = 0). Every positive root lies above the c = 0 optimum
// a* = s^2 / (q^2 - s), since P >= P0 > 0 below it.
inline double optimal_alpha(double s, double q, double beta, double c, double zero_factor) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double theta = q * q - s;
  if (!(theta > zero_factor)) return inf;
  const double a_star = s * s / theta;
  if (c <= 0.0) return a_star;
  const detail::SmoothCubic P(s, q, beta, c);
  double a_hat;
  if (P.b3 <= 0.0) {
    double hi = 2.0 * a_star;
    while (P(hi) > 0.0) {
      hi *= 2.0;
      if (hi > 1e300) return inf;
    }
    a_hat = detail::bisect_root(P, a_star, hi);
  } else {
    // P'(a) = 3 B3 a^2 + 2 B2 a + B1; the larger critical point is P's minimum.
    const double disc = P.b2 * P.b2 - 3.0 * P.b3 * P.b1;
    if (disc <= 0.0) return inf;
    const double a_min = (-P.b2 + std::sqrt(disc)) / (3.0 * P.b3);
    if (!(a_min > a_star) || P(a_min) >= 0.0) return inf;
    a_hat = detail::bisect_root(P, a_star, a_min);
  }
  return smooth_gain(a_hat, s, q, beta, c) > 0.0 ? a_hat : inf;
}

// The noise variance v solving eq. 36 of Schmolck & Everson with Sigma and
// mu held (alpha: the finite precisions, c: their constants; gamma_sum =
// sum 1 - alpha Sigma_mm):
//   [N v - rss - v gamma_sum] / 2 - sum c alpha v^2 / (1 + v alpha)^2
//     + (shape - 1) v - scale = 0,
// bracketed upwards from v0 (the c = 0 solution, where the left side is
// negative: the prior term only lowers it) and bisected in log v.
inline double smooth_noise_variance(double N, double rss, double gamma_sum, const Eigen::VectorXd& alpha,
                                    const Eigen::VectorXd& c, double shape, double scale, double v0) {
  auto f = [&](double v) {
    const double prior = (c.array() * alpha.array() * v * v / (1.0 + v * alpha.array()).square()).sum();
    return 0.5 * (N * v - rss - v * gamma_sum) - prior + (shape - 1.0) * v - scale;
  };
  double lo = std::max(v0, 1e-300), hi = 2.0 * lo;
  while (f(lo) > 0.0 && lo > 1e-300) lo *= 0.5;
  while (f(hi) <= 0.0) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e300) return lo;
  }
  return detail::log_bisect([&f](double v) { return !(f(v) > 0.0); }, lo, hi);
}

inline double smooth_noise_variance(double N, double rss, double gamma_sum, const Eigen::VectorXd& alpha, double c,
                                    double shape, double scale, double v0) {
  return smooth_noise_variance(N, rss, gamma_sum, alpha, Eigen::VectorXd::Constant(alpha.size(), c), shape, scale, v0);
}

}  // namespace sparsebayes
