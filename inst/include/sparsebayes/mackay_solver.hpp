// The classic all-at-once re-estimation of Tipping (2001), after MacKay,
// for the Bernoulli and Poisson likelihoods (Laplace approximation at the
// posterior mode): alpha_j <- g_j / mu_j^2 with g_j = 1 - alpha_j Sigma_jj,
// pruning columns whose alpha passes alpha_max. The Gaussian MacKay rule,
// with shared or per-sample noise, is JointArd's (joint_ard.hpp). Each
// iteration factorises the whole active set: O(n M^2 + M^3).
#pragma once

#include <algorithm>
#include <chrono>

#include "likelihood.hpp"

namespace sparsebayes {

// Phi diag(inv_scale) has unit-norm columns (see fit.hpp).
inline FitResult mackay_laplace_solve(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
                                      const Eigen::VectorXd& t, Likelihood lik, const SolverOptions& opt,
                                      const Progress& progress) {
  if (lik == Likelihood::gaussian) throw std::invalid_argument("mackay_laplace_solve: gaussian fits are JointArd's");
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const Eigen::Index n = Phi.rows(), M = Phi.cols();
  // alpha_max refers to columns of unit mean square, whose precisions are n times those of unit-norm ones.
  const double alpha_max = opt.alpha_max / static_cast<double>(n);
  const double beta0 = 1.0 / initial_noise_variance(t, opt);
  const Eigen::VectorXd PhiT_t = (Phi.transpose() * t).cwiseProduct(inv_scale);
  // Start every column at its single-column optimum, clipped as SparseBayes does.
  std::vector<Eigen::Index> active;
  std::vector<double> alpha_active;
  for (Eigen::Index m = 0; m < M; ++m) {
    const double s = beta0 * Phi.col(m).squaredNorm() * inv_scale(m) * inv_scale(m), q = beta0 * PhiT_t(m);
    if (!(s > 0.0)) continue;
    double a = s * s / (q * q - s);
    if (a < 0.0) a = 1e3;
    active.push_back(m);
    alpha_active.push_back(std::clamp(a, 1e-3, 1e3));
  }
  if (active.empty()) throw std::invalid_argument("every basis column is zero");

  FitResult res;
  int jitter_events = 0, it = 0;
  bool converged = false;
  Posterior post;
  Eigen::VectorXd alpha, fitted, mu_start = Eigen::VectorXd::Zero(active.size());
  bool mode_converged = true;
  double log_ml = 0.0;
  while (true) {
    check_interrupt();
    const Eigen::Index S = active.size();
    Eigen::MatrixXd PhiA(n, S);
    alpha.resize(S);
    for (Eigen::Index k = 0; k < S; ++k) {
      PhiA.col(k) = Phi.col(active[k]) * inv_scale(active[k]);
      alpha(k) = alpha_active[k];
    }
    const LaplacePosterior lp = laplace_mode(lik, PhiA, t, alpha, mu_start, jitter_events, opt.case_weights, opt.offset);
    mode_converged = lp.converged;
    post = lp.post;
    fitted = PhiA * post.mu;
    log_ml = laplace_log_evidence(lp, alpha);
    const TraceRow row{it, log_ml, static_cast<int>(S), std::nan(""), kReestimate};
    res.trace.push_back(row);
    if (progress) progress(row);
    if (converged || it >= opt.max_iterations) break;
    if (std::chrono::duration<double>(clock::now() - start).count() > opt.time_limit) break;
    ++it;

    const Eigen::ArrayXd g = 1.0 - alpha.array() * post.Sigma.diagonal().array();
    double max_change = 0.0, max_log = 0.0;
    std::vector<Eigen::Index> next;
    std::vector<double> next_alpha, next_mu;
    for (Eigen::Index k = 0; k < S; ++k) {
      const double a = std::max(g(k), 0.0) / (post.mu(k) * post.mu(k));
      if (a < alpha_max) {
        max_change = std::max(max_change, std::abs(std::log(a) - std::log(alpha(k))));
        max_log = std::max(max_log, std::abs(std::log(a)));
        next.push_back(active[k]);
        next_alpha.push_back(a);
        next_mu.push_back(post.mu(k));
      }
    }
    bool pruned = static_cast<Eigen::Index>(next.size()) < S;
    if (next.empty()) {  // keep the strongest column rather than an empty model
      Eigen::Index k;
      post.mu.cwiseAbs().maxCoeff(&k);
      next.assign(1, active[k]);
      next_alpha.assign(1, alpha(k));
      next_mu.assign(1, post.mu(k));
      pruned = S > 1;
    }
    active.swap(next);
    alpha_active.swap(next_alpha);
    mu_start = Eigen::Map<const Eigen::VectorXd>(next_mu.data(), next_mu.size());
    converged = !pruned && max_change / (1.0 + max_log) < opt.tolerance;  // the relative rule of every solver
  }
  res.relevant = active;
  res.mu = post.mu;
  res.Sigma = post.Sigma;
  res.alpha = Eigen::VectorXd::Constant(M, kInf);
  for (std::size_t k = 0; k < active.size(); ++k) res.alpha(active[k]) = alpha(k);
  res.mode_converged = mode_converged;
  res.log_ml = log_ml;
  res.log_posterior = log_ml;
  res.fitted = fitted;
  res.iterations = it;
  res.converged = converged;
  res.jitter_events = jitter_events;
  return res;
}

}  // namespace sparsebayes
