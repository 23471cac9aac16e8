// Sparse Gaussian process regression: the VFE bound (Titsias 2009), the FITC
// marginal likelihood (Snelson & Ghahramani 2006) and the exact GP, in the
// one formulation of the seeds' notes (sparse-gp-fitc-vfe-notes.md):
//
//   F = n/2 log 2pi + 1/2 log det(Q + Lam) + 1/2 r' (Q + Lam)^-1 r + T / (2 s2n)
//
// with Q = K_fu K_uu^-1 K_uf, Lam = s2n I (VFE) or diag(K_ff - Q) + s2n I
// (FITC), T = tr(K_ff - Q) (VFE) or 0 (FITC). For VFE and FITC only the m x m
// matrices K_uu (+ jitter) and B = I + A Lam^-1 A' (A = L_uu^-1 K_uf) are
// factorised, so every evaluation costs O(n m^2). "exact" factorises the
// n x n covariance K_ff + s2n I and is the reference for small n.
//
// Gradients: dF = 1/2 tr(W dSigma) (+ the trace term), W = Sigma^-1 - a a',
// a = Sigma^-1 r, pushed through Q into sensitivities G_uf (m x n), G_uu
// (m x m), a diagonal G_ff and the noise; those are chained through the
// Gaussian kernel's derivatives w.r.t. log width, log variance and the
// inducing locations. W itself (n x n) is never formed.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels.hpp"

namespace sparsebayes {

enum class GPApprox { vfe, fitc, exact };

inline GPApprox gp_approx_from_name(const std::string& name) {
  if (name == "VFE") return GPApprox::vfe;
  if (name == "FITC") return GPApprox::fitc;
  if (name == "exact") return GPApprox::exact;
  throw std::invalid_argument("unknown approximation '" + name + "' (use VFE, FITC or exact)");
}

struct GPObjective {
  double value = 0.0;          // negative log marginal likelihood (FITC, exact) or negative bound (VFE)
  double d_log_width = 0.0;    // derivatives of value
  double d_log_variance = 0.0;
  double d_log_noise = 0.0;
  Eigen::MatrixXd d_inducing;  // m x p (empty for exact)
  int jitter_events = 0;       // factorisations that needed more than the base jitter
};

// What predict, hatvalues and LOO need, at the hyperparameters given.
struct GPPosterior {
  double value = 0.0;
  Eigen::VectorXd weights;     // mean f* = K_*c weights, c = inducing points (training inputs for exact)
  Eigen::MatrixXd var_matrix;  // var f* = k** - K_*c var_matrix K_c*
  Eigen::VectorXd fitted;      // latent mean at the training inputs
  Eigen::VectorXd fitted_var;  // latent variance at the training inputs, clamped at 0
  Eigen::VectorXd lambda;      // Lam: noise (+ FITC's diagonal correction) per training point
  Eigen::VectorXd pi_diag;     // diag((Q + Lam)^-1)
  Eigen::VectorXd pi_r;        // (Q + Lam)^-1 r
  Eigen::VectorXd qu_mean;     // q(u) = N(qu_mean, qu_cov) at the inducing points (empty for exact)
  Eigen::MatrixXd qu_cov;
  int jitter_events = 0;
};

namespace detail {

// Cholesky of M + j I, starting from j = base_jitter and growing tenfold up
// to 1e6 times; each retry is counted. Throws when even that fails.
inline Eigen::LLT<Eigen::MatrixXd> robust_cholesky(const Eigen::MatrixXd& M, double base_jitter, double scale,
                                                   int& events, double& used, const char* what) {
  double j = base_jitter;
  for (int attempt = 0; attempt < 7; ++attempt) {
    Eigen::MatrixXd Mj = M;
    Mj.diagonal().array() += j * scale;
    Eigen::LLT<Eigen::MatrixXd> llt(Mj);
    if (llt.info() == Eigen::Success && llt.matrixLLT().diagonal().minCoeff() > 0.0) {
      used = j;
      return llt;
    }
    ++events;
    j = (j > 0.0 ? j * 10.0 : 1e-10);
  }
  throw std::runtime_error(std::string("the Cholesky factorisation of ") + what +
                           " failed even with jitter; try fewer or more spread inducing points or a larger noise");
}

inline void check_gp_inputs(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                            const Eigen::Ref<const Eigen::VectorXd>& r, const Eigen::Ref<const Eigen::MatrixXd>& z,
                            GPApprox approx) {
  if (k.type != KernelType::gaussian && k.type != KernelType::laplace && k.type != KernelType::cauchy)
    throw std::invalid_argument("sparse GPs support the gaussian, laplace and cauchy kernels");
  if (!(noise > 0.0) || !std::isfinite(noise)) throw std::invalid_argument("noise variance must be positive");
  if (!(k.width > 0.0) || !(k.variance > 0.0)) throw std::invalid_argument("kernel width and variance must be positive");
  if (x.rows() != r.size()) throw std::invalid_argument("inputs and response have different lengths");
  if (approx != GPApprox::exact && (z.cols() != x.cols() || z.rows() < 1))
    throw std::invalid_argument("inducing points must have the inputs' number of columns");
}

// sum_ij G(i,j) dK(i,j) for the Gaussian kernel k = s2 exp(-|x - z|^2 / w^2):
// adds the derivatives w.r.t. log w and log s2, and (when dz is not null)
// w.r.t. the rows of z. K holds k(x_i, z_j). dk/dlog w = 2 k d^2 / w^2,
// dk/dz_j = 2 k (x_i - z_j) / w^2.
inline void gaussian_kernel_chain(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                  const Eigen::Ref<const Eigen::MatrixXd>& z, const Eigen::MatrixXd& K,
                                  const Eigen::MatrixXd& G, double& d_log_width, double& d_log_variance,
                                  Eigen::MatrixXd* dz, double dz_factor) {
  const double w2 = k.width * k.width;
  Eigen::MatrixXd D(x.rows(), z.rows());
  squared_distances(x, z, D);
  const Eigen::MatrixXd GK = G.cwiseProduct(K);
  d_log_width += 2.0 / w2 * GK.cwiseProduct(D).sum();
  d_log_variance += GK.sum();
  if (dz) {
    // d/dz_j = 2/w^2 sum_i GK(i,j) (x_i - z_j)
    Eigen::MatrixXd t = GK.transpose() * x;  // (z.rows x p)
    t -= GK.colwise().sum().transpose().asDiagonal() * z;
    *dz += dz_factor * 2.0 / w2 * t;
  }
}

inline double kernel_diag_value(const Kernel& k) { return k.variance; }  // stationary kernels only

}  // namespace detail

// The objective and, when gradient is true (Gaussian kernel only), its
// derivatives. r is the centred response; z the inducing inputs (ignored for
// exact); jitter is relative to the kernel variance.
inline GPObjective sparse_gp_objective(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                       const Eigen::Ref<const Eigen::VectorXd>& r,
                                       const Eigen::Ref<const Eigen::MatrixXd>& z, GPApprox approx, double jitter,
                                       bool gradient) {
  detail::check_gp_inputs(k, noise, x, r, z, approx);
  if (gradient && k.type != KernelType::gaussian)
    throw std::invalid_argument("gradients are available for the gaussian kernel only");
  const Eigen::Index n = x.rows();
  const double log2pi = 1.8378770664093454836;  // log(2 pi)
  GPObjective out;
  double used = 0.0;

  if (approx == GPApprox::exact) {
    Eigen::MatrixXd K = kernel_matrix(k, x, x);
    Eigen::MatrixXd S = K;
    S.diagonal().array() += noise;
    auto llt = detail::robust_cholesky(S, 0.0, k.variance, out.jitter_events, used, "the covariance matrix");
    const Eigen::MatrixXd L = llt.matrixL();
    const Eigen::VectorXd a = llt.solve(r);
    out.value = 0.5 * n * log2pi + L.diagonal().array().log().sum() + 0.5 * r.dot(a);
    if (gradient) {
      Eigen::MatrixXd W = llt.solve(Eigen::MatrixXd::Identity(n, n));
      W.noalias() -= a * a.transpose();
      const Eigen::MatrixXd G = 0.5 * W;
      detail::gaussian_kernel_chain(k, x, x, K, G, out.d_log_width, out.d_log_variance, nullptr, 0.0);
      out.d_log_noise = noise * 0.5 * W.trace();
    }
    return out;
  }

  const Eigen::Index m = z.rows();
  Eigen::MatrixXd Kuu = kernel_matrix(k, z, z);
  auto llt_u = detail::robust_cholesky(Kuu, jitter, k.variance, out.jitter_events, used, "K_uu");
  Kuu.diagonal().array() += used * k.variance;  // the matrix actually factorised
  const Eigen::MatrixXd L = llt_u.matrixL();
  const Eigen::MatrixXd Kuf = kernel_matrix(k, z, x);
  const Eigen::MatrixXd A = L.triangularView<Eigen::Lower>().solve(Kuf);  // m x n
  const Eigen::VectorXd qdiag = A.colwise().squaredNorm().transpose();
  const double kd = detail::kernel_diag_value(k);

  Eigen::VectorXd lam(n);
  Eigen::Array<bool, Eigen::Dynamic, 1> clamped = Eigen::Array<bool, Eigen::Dynamic, 1>::Constant(n, false);
  if (approx == GPApprox::fitc) {
    for (Eigen::Index i = 0; i < n; ++i) {
      double d = kd - qdiag(i);
      if (d < 0.0) {  // round-off: K_ff - Q_ff is positive semi-definite
        d = 0.0;
        clamped(i) = true;
      }
      lam(i) = d + noise;
    }
  } else {
    lam.setConstant(noise);
  }
  const Eigen::VectorXd lam_inv = lam.cwiseInverse();
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(m, m);
  B.noalias() += A * lam_inv.asDiagonal() * A.transpose();
  int dummy = 0;
  double used_b = 0.0;
  auto llt_b = detail::robust_cholesky(B, 0.0, 1.0, dummy, used_b, "B");  // B >= I: never needs jitter
  const Eigen::MatrixXd LB = llt_b.matrixL();
  const Eigen::MatrixXd V = LB.triangularView<Eigen::Lower>().solve(A * lam_inv.asDiagonal());  // m x n
  const Eigen::VectorXd c = V * r;
  const double trace_term = (approx == GPApprox::vfe) ? (n * kd - qdiag.sum()) : 0.0;
  out.value = 0.5 * n * log2pi + LB.diagonal().array().log().sum() + 0.5 * lam.array().log().sum() +
              0.5 * (r.cwiseProduct(lam_inv).dot(r) - c.squaredNorm()) + 0.5 * trace_term / noise;
  if (!gradient) return out;

  // a = Sigma^-1 r, w = diag(W) = diag(Sigma^-1) - a^2.
  const Eigen::VectorXd a = r.cwiseProduct(lam_inv) - V.transpose() * c;
  const Eigen::VectorXd w = (lam_inv - V.colwise().squaredNorm().transpose()) - a.cwiseProduct(a);
  // P = K_uu^-1 K_uf = L^-T A. P Sigma^-1 = L^-T LB^-T V; P a = L^-T LB^-T c.
  const auto LT = L.transpose().triangularView<Eigen::Upper>();
  const auto LBT = LB.transpose().triangularView<Eigen::Upper>();
  const Eigen::VectorXd Pa = LT.solve(LBT.solve(c));
  Eigen::MatrixXd PW = LT.solve(LBT.solve(V));  // P Sigma^-1
  PW.noalias() -= Pa * a.transpose();
  // P Sigma^-1 P' = L^-T (I - B^-1) L^-1
  Eigen::MatrixXd IminusBinv = Eigen::MatrixXd::Identity(m, m) - llt_b.solve(Eigen::MatrixXd::Identity(m, m));
  Eigen::MatrixXd PWP = LT.solve(LT.solve(IminusBinv).transpose()).transpose();
  PWP.noalias() -= Pa * Pa.transpose();
  const Eigen::MatrixXd P = LT.solve(A);

  Eigen::MatrixXd Guf, Guu;
  double g_diag = 0.0;  // sum_i G_ff(i) dk(x_i, x_i)/dlog s2 / s2 (stationary: dk_ii = k_ii dlog s2)
  double g_noise = 0.5 * w.sum();
  if (approx == GPApprox::vfe) {
    Guf = PW - P / noise;
    Guu = -0.5 * PWP + (0.5 / noise) * (P * P.transpose());
    g_diag = 0.5 * n / noise;
    g_noise -= 0.5 * trace_term / (noise * noise);
  } else {
    Eigen::VectorXd wf = w;
    for (Eigen::Index i = 0; i < n; ++i)
      if (clamped(i)) wf(i) = 0.0;  // the clamp has zero derivative
    Guf = PW - P * wf.asDiagonal();
    Guu = -0.5 * PWP + 0.5 * (P * wf.asDiagonal() * P.transpose());
    g_diag = 0.5 * wf.sum();
  }
  out.d_inducing = Eigen::MatrixXd::Zero(m, x.cols());
  // K_uf(j, i) = k(z_j, x_i): chain over G_uf' with x and z swapped into (x rows, z rows).
  const Eigen::MatrixXd Kfu = Kuf.transpose();
  const Eigen::MatrixXd Gfu = Guf.transpose();
  detail::gaussian_kernel_chain(k, x, z, Kfu, Gfu, out.d_log_width, out.d_log_variance, &out.d_inducing, 1.0);
  // K_uu (symmetric, jitter proportional to s2): both z arguments move.
  detail::gaussian_kernel_chain(k, z, z, Kuu, Guu, out.d_log_width, out.d_log_variance, &out.d_inducing, 2.0);
  out.d_log_variance += g_diag * kd;
  out.d_log_noise = noise * g_noise;
  return out;
}

// Posterior quantities at the given hyperparameters (see GPPosterior).
inline GPPosterior sparse_gp_posterior(const Kernel& k, double noise, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                       const Eigen::Ref<const Eigen::VectorXd>& r,
                                       const Eigen::Ref<const Eigen::MatrixXd>& z, GPApprox approx, double jitter) {
  detail::check_gp_inputs(k, noise, x, r, z, approx);
  const Eigen::Index n = x.rows();
  const double kd = detail::kernel_diag_value(k);
  GPPosterior out;
  out.value = sparse_gp_objective(k, noise, x, r, z, approx, jitter, false).value;
  double used = 0.0;

  if (approx == GPApprox::exact) {
    const Eigen::MatrixXd K = kernel_matrix(k, x, x);
    Eigen::MatrixXd S = K;
    S.diagonal().array() += noise;
    auto llt = detail::robust_cholesky(S, 0.0, k.variance, out.jitter_events, used, "the covariance matrix");
    out.var_matrix = llt.solve(Eigen::MatrixXd::Identity(n, n));  // (K + s2n I)^-1
    out.weights = out.var_matrix * r;
    out.lambda = Eigen::VectorXd::Constant(n, noise + used * k.variance);
    out.pi_diag = out.var_matrix.diagonal();
    out.pi_r = out.weights;
    out.fitted = K * out.weights;
    out.fitted_var = (kd - (K * out.var_matrix).cwiseProduct(K).rowwise().sum().array()).cwiseMax(0.0).matrix();
    return out;
  }

  const Eigen::Index m = z.rows();
  Eigen::MatrixXd Kuu = kernel_matrix(k, z, z);
  auto llt_u = detail::robust_cholesky(Kuu, jitter, k.variance, out.jitter_events, used, "K_uu");
  Kuu.diagonal().array() += used * k.variance;
  const Eigen::MatrixXd L = llt_u.matrixL();
  const Eigen::MatrixXd Kuf = kernel_matrix(k, z, x);
  const Eigen::MatrixXd A = L.triangularView<Eigen::Lower>().solve(Kuf);
  const Eigen::VectorXd qdiag = A.colwise().squaredNorm().transpose();
  out.lambda = Eigen::VectorXd::Constant(n, noise);
  if (approx == GPApprox::fitc) out.lambda.array() += (kd - qdiag.array()).cwiseMax(0.0);
  const Eigen::VectorXd lam_inv = out.lambda.cwiseInverse();
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(m, m);
  B.noalias() += A * lam_inv.asDiagonal() * A.transpose();
  int dummy = 0;
  auto llt_b = detail::robust_cholesky(B, 0.0, 1.0, dummy, used, "B");
  const Eigen::MatrixXd LB = llt_b.matrixL();
  const Eigen::MatrixXd V = LB.triangularView<Eigen::Lower>().solve(A * lam_inv.asDiagonal());
  const Eigen::VectorXd c = V * r;
  const auto LT = L.transpose().triangularView<Eigen::Upper>();
  // mean weights L^-T LB^-T c; var matrix K_uu^-1 - (K_uu + K_uf Lam^-1 K_fu)^-1 = L^-T (I - B^-1) L^-1.
  out.weights = LT.solve(LB.transpose().triangularView<Eigen::Upper>().solve(c));
  const Eigen::MatrixXd Binv = llt_b.solve(Eigen::MatrixXd::Identity(m, m));
  const Eigen::MatrixXd IminusBinv = Eigen::MatrixXd::Identity(m, m) - Binv;
  out.var_matrix = LT.solve(LT.solve(IminusBinv).transpose()).transpose();
  out.var_matrix = 0.5 * (out.var_matrix + out.var_matrix.transpose());
  out.pi_r = r.cwiseProduct(lam_inv) - V.transpose() * c;
  out.pi_diag = lam_inv - V.colwise().squaredNorm().transpose();
  out.fitted = Kuf.transpose() * out.weights;
  // latent variance at x_i: k_ii - ||A_i||^2 + ||LB^-1 A_i||^2
  const Eigen::MatrixXd LBA = LB.triangularView<Eigen::Lower>().solve(A);
  out.fitted_var = (kd - qdiag.array() + LBA.colwise().squaredNorm().transpose().array()).cwiseMax(0.0).matrix();
  // q(u): mean L LB^-T c, covariance L B^-1 L' (Titsias 2009 for VFE; the
  // FITC posterior of u likewise).
  out.qu_mean = L * LB.transpose().triangularView<Eigen::Upper>().solve(c);
  out.qu_cov = L * Binv * L.transpose();
  return out;
}

}  // namespace sparsebayes
