// The fast solver on an orthonormal basis (footnote 7 of Schmolck & Everson):
// with Phi' Phi = I every s_m = beta and q_m = beta z_m, z = Phi' t, so the
// columns decouple given the noise and each alpha_m has its optimum in
// closed form (or from the smoothness prior's cubic). The fit alternates
// those optima with the noise update until the noise settles: O(M) per
// iteration, and Phi itself is never formed.
#pragma once

#include <chrono>
#include <vector>

#include "model.hpp"
#include "smoothness.hpp"

namespace sparsebayes {

// z = Phi' t for orthonormal columns Phi (n x M, M <= n) and tt = t' t.
inline FitResult orthonormal_solve(const Eigen::VectorXd& z, double tt, Eigen::Index n, const SolverOptions& opt,
                                   const Progress& progress) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const Eigen::Index M = z.size();
  const double N = static_cast<double>(n), c = opt.smoothness;
  const double var_t = std::max(tt / N, 1e-300);  // scale of the targets (they are standardised)
  const bool noise_fixed = opt.fixed_noise > 0.0;
  double beta = 1.0 / (noise_fixed ? opt.fixed_noise : opt.init_lambda * var_t);
  Eigen::VectorXd alpha(M), mu(M), sigma(M);
  FitResult res;
  double log_ml = 0.0, log_post = 0.0, rss = 0.0, gamma_sum = 0.0;
  // Every alpha at its optimum given beta, and the posterior and evidence there.
  auto evaluate = [&]() {
    for (Eigen::Index m = 0; m < M; ++m) alpha(m) = optimal_alpha(beta, beta * z(m), beta, c, opt.zero_factor);
    sigma = (beta + alpha.array()).inverse().matrix();  // 0 where alpha is infinite
    mu = beta * sigma.cwiseProduct(z);
    rss = std::max(tt - 2.0 * mu.dot(z) + mu.squaredNorm(), 0.0);
    gamma_sum = (beta * sigma.array()).sum();
    // log N(t | 0, C): C has eigenvalues 1/beta + 1/alpha_m on the columns, 1/beta elsewhere.
    double log_det = (N - M) * -std::log(beta), quad = (tt - z.squaredNorm()) * beta;
    for (Eigen::Index m = 0; m < M; ++m) {
      const double ev = 1.0 / beta + (std::isinf(alpha(m)) ? 0.0 : 1.0 / alpha(m));
      log_det += std::log(ev);
      quad += z(m) * z(m) / ev;
    }
    log_ml = -0.5 * (N * kLog2Pi + log_det + quad);
    log_post = log_ml + log_smoothness_prior(alpha, beta, c, opt.noise_shape, opt.noise_scale);
  };
  bool converged = false;
  int it = 0;
  while (it < opt.max_iterations) {
    check_interrupt();
    ++it;
    evaluate();
    const int n_rel = static_cast<int>((alpha.array() < kInf).count());
    const TraceRow row{it, log_post, n_rel, 1.0 / beta, kReestimate};
    res.trace.push_back(row);
    if (progress) progress(row);
    if (noise_fixed) {
      converged = true;
      break;
    }
    double b = (N - gamma_sum) / std::max(rss, 1e-300);
    if (c > 0.0) {
      std::vector<double> finite;
      for (Eigen::Index m = 0; m < M; ++m)
        if (std::isfinite(alpha(m))) finite.push_back(alpha(m));
      const Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(finite.data(), finite.size());
      b = 1.0 / smooth_noise_variance(N, rss, gamma_sum, a, c, opt.noise_shape, opt.noise_scale, 1.0 / b);
    }
    b = std::min(b, opt.beta_max_factor / var_t);
    const double change = std::abs(std::log(b) - std::log(beta));
    beta = b;
    if (change < opt.min_delta_log_beta) {
      converged = true;
      break;
    }
    if (std::chrono::duration<double>(clock::now() - start).count() > opt.time_limit) break;
  }
  evaluate();  // the posterior at the final beta
  for (Eigen::Index m = 0; m < M; ++m)
    if (std::isfinite(alpha(m))) res.relevant.push_back(m);
  const Eigen::Index S = res.relevant.size();
  res.mu.resize(S);
  res.Sigma = Eigen::MatrixXd::Zero(S, S);
  for (Eigen::Index k = 0; k < S; ++k) {
    const Eigen::Index m = res.relevant[k];
    res.Sigma(k, k) = 1.0 / (beta + alpha(m));
    res.mu(k) = beta * z(m) * res.Sigma(k, k);
  }
  res.alpha = alpha;
  res.lambda = Eigen::VectorXd::Constant(1, 1.0 / beta);
  res.log_ml = log_ml;
  res.log_posterior = log_post;
  res.iterations = it;
  res.converged = converged;
  return res;
}

}  // namespace sparsebayes
