// The Laplace approximation to the marginal likelihood of a Gaussian process
// classifier (logistic likelihood, a constant prior mean m), with its
// gradient in the kernel's log widths and log variance: Rasmussen and
// Williams (2006), Algorithm 3.1 (the mode, here with step halving) and
// Algorithm 5.1 (the gradient, including the implicit change of the mode;
// see the sign note at s2).
// The criterion by which kernel widths are learned for classification.
//
// With t in {0, 1}, case weights w, latent f and pi = sigma(m + f):
//   log p(t | f) = sum w_i (t_i (m + f_i) - log(1 + exp(m + f_i))),
//   W = diag(w pi (1 - pi)), B = I + W^1/2 K W^1/2 = L L',
//   -log q(t | X) = a'f / 2 - log p(t | f) + sum log diag(L),  f = K a.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

#include "kernels.hpp"
#include "sparse_gp.hpp"

namespace sparsebayes {

struct LaplaceGPObjective {
  double value = 0.0;           // -log q(t | X)
  Eigen::VectorXd d_log_width;  // derivatives of value: one per width (one, or one per input)
  double d_log_variance = 0.0;
  Eigen::VectorXd a;            // K^-1 f at the mode: a warm start for the next evaluation
  int newton_steps = 0;
};

namespace detail {

// sum_i w_i log sigma(s_i z_i), s = 2t - 1, without overflow.
inline double logistic_log_likelihood(const Eigen::VectorXd& z, const Eigen::VectorXd& t, const Eigen::VectorXd& w) {
  double out = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double u = (2.0 * t(i) - 1.0) * z(i);
    out -= w(i) * (u > 0.0 ? std::log1p(std::exp(-u)) : -u + std::log1p(std::exp(u)));
  }
  return out;
}

inline Eigen::VectorXd logistic(const Eigen::VectorXd& z) {
  return z.unaryExpr([](double v) { return v >= 0.0 ? 1.0 / (1.0 + std::exp(-v)) : std::exp(v) / (1.0 + std::exp(v)); });
}

}  // namespace detail

// The objective at kernel k (with one width or one per input), for inputs x
// (n x p), 0/1 targets t, case weights wt (empty: all 1), prior mean m and
// a warm start a0 (empty: a = 0). The mode is found to a relative change of
// 1e-12 in the objective; gradient = false skips Algorithm 5.1.
inline LaplaceGPObjective laplace_gp_objective(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                               const Eigen::Ref<const Eigen::VectorXd>& t,
                                               const Eigen::Ref<const Eigen::VectorXd>& wt, double m,
                                               const Eigen::Ref<const Eigen::VectorXd>& a0, bool gradient) {
  const Eigen::Index n = x.rows();
  if (t.size() != n) throw std::invalid_argument("inputs and targets have different lengths");
  if (!((t.array() == 0.0) || (t.array() == 1.0)).all()) throw std::invalid_argument("targets must be 0 or 1");
  if (wt.size() != 0 && (wt.size() != n || !((wt.array() > 0.0).all() && wt.allFinite())))
    throw std::invalid_argument("case weights must be positive, finite and one per row");
  if (a0.size() != 0 && a0.size() != n) throw std::invalid_argument("the warm start has the wrong length");
  if (!std::isfinite(m)) throw std::invalid_argument("the prior mean must be finite");
  if (!(k.variance > 0.0)) throw std::invalid_argument("kernel variance must be positive");
  check_kernel_widths(k, x.cols());
  const Eigen::VectorXd w = wt.size() ? Eigen::VectorXd(wt) : Eigen::VectorXd::Ones(n);
  const Eigen::MatrixXd K = kernel_matrix(k, x, x);
  LaplaceGPObjective out;
  out.d_log_width = Eigen::VectorXd::Zero(detail::width_count(k));

  // Psi(a) = log p(t | K a) - a'K a / 2, maximised by Newton steps in a,
  // each halved until Psi does not fall.
  auto psi = [&](const Eigen::VectorXd& a, const Eigen::VectorXd& f) {
    return detail::logistic_log_likelihood((f.array() + m).matrix(), t, w) - 0.5 * a.dot(f);
  };
  Eigen::VectorXd a = a0.size() ? Eigen::VectorXd(a0) : Eigen::VectorXd::Zero(n);
  Eigen::VectorXd f = K * a;
  double value = psi(a, f);
  Eigen::VectorXd pi, sw;
  Eigen::LLT<Eigen::MatrixXd> llt;
  auto factor = [&]() {  // pi, W^1/2 and the factor of B at the current f
    pi = detail::logistic((f.array() + m).matrix());
    sw = (w.array() * pi.array() * (1.0 - pi.array())).sqrt().matrix();
    Eigen::MatrixXd B = sw.asDiagonal() * K * sw.asDiagonal();
    B.diagonal().array() += 1.0;
    llt = CheckedLLT(B);  // B >= I; the trailing updates on the SIMD path
    if (llt.info() != Eigen::Success) throw std::runtime_error("the Laplace GP factorisation failed");
  };
  for (int step = 0; step < 200; ++step) {
    check_interrupt();
    factor();
    const Eigen::VectorXd grad = w.cwiseProduct(t - pi);
    const Eigen::VectorXd b = sw.cwiseAbs2().cwiseProduct(f) + grad;
    const Eigen::VectorXd a_newton = b - sw.cwiseProduct(llt.solve(sw.cwiseProduct(K * b)));
    const Eigen::VectorXd da = a_newton - a;
    double size = 1.0, next = value;
    Eigen::VectorXd a_try, f_try;
    for (int halving = 0; halving < 30; ++halving, size *= 0.5) {
      a_try = a + size * da;
      f_try = K * a_try;
      next = psi(a_try, f_try);
      if (next >= value) break;
    }
    ++out.newton_steps;
    if (!(next >= value)) break;  // no ascent left: at the mode to rounding
    const double change = next - value;
    a = a_try;
    f = f_try;
    value = next;
    if (change <= 1e-12 * (1.0 + std::abs(value))) break;
  }
  factor();
  out.value = -value + llt.matrixLLT().diagonal().array().log().sum();
  out.a = a;
  if (!gradient) return out;

  // Algorithm 5.1. R = W^1/2 B^-1 W^1/2; the explicit part of the gradient
  // of log q is tr((a a' - R) dK) / 2 and the implicit part (through the
  // mode) s2' (dK g - K R dK g), g = grad log p.
  const Eigen::VectorXd g = w.cwiseProduct(t - pi);
  // B^-1 is the gradient's one O(n^3) quantity: in place from L, 2n^3/3
  // flops (as the exact GP's, sparse_gp.hpp), where the printed algorithm
  // solves against W^1/2 and forms C = L^-1 W^1/2 K, 3n^3.
  const Eigen::MatrixXd B_inv = cholesky_inverse(llt);
  const Eigen::MatrixXd R = sw.asDiagonal() * B_inv * sw.asDiagonal();
  // d log q / d f = -1/2 diag(Sigma) dW/df = +1/2 diag(Sigma) d3, Sigma = (K^-1 + W)^-1 (as GPML's
  // infLaplace; the printed Algorithm 5.1 carries a minus sign here). With
  // Sigma = W^-1/2 (I - B^-1) W^-1/2 and d3 = d W / d f = -W (1 - 2 pi):
  // s2 = -1/2 (1 - diag(B^-1)) (1 - 2 pi), without dividing by W.
  const Eigen::VectorXd s2 =
      (-0.5 * (1.0 - B_inv.diagonal().array()) * (1.0 - 2.0 * pi.array())).matrix();
  // explicit part, for every parameter at once
  Eigen::MatrixXd G = 0.5 * (a * a.transpose() - R);
  Eigen::VectorXd d_width = Eigen::VectorXd::Zero(out.d_log_width.size());
  double d_variance = 0.0;
  detail::kernel_chain(k, x, x, K, G, d_width, d_variance, nullptr, 0.0);
  // implicit part: one dK g per parameter
  auto implicit = [&](const Eigen::VectorXd& dKg) { return s2.dot(dKg - K * (R * dKg)); };
  d_variance += implicit(K * g);
  const Eigen::MatrixXd xs = scaled_inputs(k, x);
  Eigen::MatrixXd slope = Eigen::MatrixXd::Ones(n, n);
  detail::scale_by_rho_slope(k, xs, xs, K, slope);  // dK = slope o d(rho)
  // d rho = sum over inputs c of (x_c - x'_c)^2 times -d log v_c (one
  // width: times -2 d log r / r^2 for all inputs at once)
  const bool per_input = k.input_widths.size() > 0;
  Eigen::VectorXd all_inputs = Eigen::VectorXd::Zero(n);
  for (Eigen::Index c = 0; c < xs.cols(); ++c) {
    Eigen::VectorXd dKg = Eigen::VectorXd::Zero(n);
    for (Eigen::Index l = 0; l < n; ++l)
      dKg += slope.col(l).cwiseProduct((xs.col(c).array() - xs(l, c)).square().matrix()) * g(l);
    if (per_input)
      d_width(c) += implicit(dKg);
    else
      all_inputs += dKg;
  }
  if (!per_input) d_width(0) += implicit(all_inputs / (k.width * k.width));
  out.d_log_width = -d_width;
  out.d_log_variance = -d_variance;
  return out;
}

}  // namespace sparsebayes
