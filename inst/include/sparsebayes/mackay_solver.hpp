// The classic all-at-once re-estimation of Tipping (2001), after MacKay:
//   alpha_j <- gamma_j / mu_j^2,  beta <- (N - sum gamma) / ||t - Phi mu||^2,
// with gamma_j = 1 - alpha_j Sigma_jj, pruning columns whose alpha diverges.
// Each iteration factorises the whole active set: O(n M^2 + M^3). It is the
// slow, independent route to the evidence maximum that the fast solver finds.
// Non-Gaussian likelihoods use the Laplace approximation at the mode.
#pragma once

#include <algorithm>
#include <chrono>

#include "likelihood.hpp"

namespace sparsebayes {

namespace mackay_detail {
constexpr double kReadmitGain = 1e-4;  // nats
constexpr int kMaxReadmissions = 3;    // per column, so add/prune cycles end
constexpr double kPruneShare = 1e-2;   // see the pruning rule in mackay_solve()
}  // namespace mackay_detail

// Gaussian: the pruned columns m whose single-column evidence gain at the
// current (alpha, beta), (theta / s + log(s / q^2)) / 2 with theta = q^2 - s,
// exceeds kReadmitGain re-enter (at most kMaxReadmissions times each) at their
// best alpha s^2 / theta; s_m = beta - beta^2 c' Sigma c, q_m = beta (phi't - c' mu),
// c = Phi_A' phi_m. O(n S P) for P pruned columns. Returns whether any came back.
inline bool readmit_columns(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
                            const Eigen::VectorXd& PhiT_t, const Eigen::VectorXd& sq_norm, const Eigen::MatrixXd& PhiA,
                            const Posterior& post, double beta, double alpha_max, std::vector<int>& readmissions,
                            std::vector<Eigen::Index>& active, std::vector<double>& alpha_active) {
  const Eigen::Index M = Phi.cols();
  std::vector<char> in(M, 0);
  for (Eigen::Index m : active) in[m] = 1;
  std::vector<Eigen::Index> P;
  for (Eigen::Index m = 0; m < M; ++m)
    if (!in[m] && sq_norm(m) > 0.0 && readmissions[m] < mackay_detail::kMaxReadmissions) P.push_back(m);
  if (P.empty()) return false;
  Eigen::MatrixXd PhiP(Phi.rows(), P.size());
  for (std::size_t k = 0; k < P.size(); ++k) PhiP.col(k) = Phi.col(P[k]) * inv_scale(P[k]);
  const Eigen::MatrixXd C = PhiA.transpose() * PhiP;  // S x P
  const Eigen::MatrixXd SC = post.Sigma * C;
  bool any = false;
  for (std::size_t k = 0; k < P.size(); ++k) {
    const double s = beta * sq_norm(P[k]) - beta * beta * C.col(k).dot(SC.col(k));
    const double q = beta * (PhiT_t(P[k]) - C.col(k).dot(post.mu));
    const double theta = q * q - s;
    if (!(s > 0.0) || !(theta > 0.0) || 0.5 * (theta / s + std::log(s / (q * q))) <= mackay_detail::kReadmitGain)
      continue;
    const auto pos = std::lower_bound(active.begin(), active.end(), P[k]);
    alpha_active.insert(alpha_active.begin() + (pos - active.begin()), std::min(s * s / theta, 0.5 * alpha_max));
    active.insert(pos, P[k]);
    ++readmissions[P[k]];
    any = true;
  }
  return any;
}

// Phi diag(inv_scale) has unit-norm columns (see fit.hpp).
inline FitResult mackay_solve(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
                              const Eigen::VectorXd& t, Likelihood lik, const SolverOptions& opt,
                              const Progress& progress) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const Eigen::Index n = Phi.rows(), M = Phi.cols();
  const double sd_t = std::sqrt((t.array() - t.mean()).square().sum() / std::max<double>(1.0, n - 1.0));
  const bool gaussian = lik == Likelihood::gaussian;
  const bool noise_fixed = opt.fixed_noise > 0.0 || !gaussian;
  double beta = opt.fixed_noise > 0.0 ? 1.0 / opt.fixed_noise : 1.0 / std::pow(std::max(1e-6, sd_t) * 0.1, 2);
  const double beta_max = opt.beta_max_factor / std::max(sd_t * sd_t, 1e-300);

  const Eigen::VectorXd PhiT_t = (Phi.transpose() * t).cwiseProduct(inv_scale);
  const Eigen::VectorXd sq_norm = Phi.colwise().squaredNorm().transpose().cwiseProduct(inv_scale.cwiseAbs2());
  // Start every column at its single-column optimum, clipped as SparseBayes does.
  std::vector<Eigen::Index> active;
  std::vector<double> alpha_active;
  for (Eigen::Index m = 0; m < M; ++m) {
    const double s = beta * sq_norm(m), q = beta * PhiT_t(m);
    if (!(s > 0.0)) continue;
    double a = s * s / (q * q - s);
    if (a < 0.0) a = 1e3;
    active.push_back(m);
    alpha_active.push_back(std::clamp(a, 1e-3, 1e3));
  }
  if (active.empty()) throw std::invalid_argument("every basis column is zero");

  FitResult res;
  std::vector<int> readmissions(M, 0);
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
    Eigen::VectorXd PhiA_t(S);
    alpha.resize(S);
    for (Eigen::Index k = 0; k < S; ++k) {
      PhiA.col(k) = Phi.col(active[k]) * inv_scale(active[k]);
      PhiA_t(k) = PhiT_t(active[k]);
      alpha(k) = alpha_active[k];
    }
    double rss = 0.0;
    if (gaussian) {
      post = weight_posterior(gram_matrix(PhiA), PhiA_t, alpha, beta, jitter_events);
      fitted = PhiA * post.mu;
      rss = (t - fitted).squaredNorm();
      log_ml = log_marginal_likelihood(post, alpha, beta, rss, n);
    } else {
      const LaplacePosterior lp = laplace_mode(lik, PhiA, t, alpha, mu_start, jitter_events, opt.case_weights, opt.offset);
      mode_converged = lp.converged;
      post = lp.post;
      fitted = PhiA * post.mu;
      log_ml = laplace_log_evidence(lp, alpha);
    }
    // Converged on the active set (Gaussian): pruned columns whose evidence
    // gain given the current model is positive come back, as the fast solver
    // adds them, and the iterations go on; the end point is then a maximum
    // over all columns, not only over those that survived the pruning.
    if (converged && gaussian &&
        readmit_columns(Phi, inv_scale, PhiT_t, sq_norm, PhiA, post, beta, opt.alpha_max, readmissions, active,
                        alpha_active)) {
      converged = false;
      mu_start = Eigen::VectorXd::Zero(active.size());
      continue;
    }
    const TraceRow row{log_ml, static_cast<int>(S), gaussian ? 1.0 / beta : std::nan(""), kReestimate};
    res.trace.push_back(row);
    if (progress) progress(it, row);
    if (converged || it >= opt.max_iterations) break;
    if (std::chrono::duration<double>(clock::now() - start).count() > opt.time_limit) break;
    ++it;

    const Eigen::ArrayXd gamma = 1.0 - alpha.array() * post.Sigma.diagonal().array();
    double max_change = 0.0;
    std::vector<Eigen::Index> next;
    std::vector<double> next_alpha, next_mu;
    // Gaussian, once the noise has had beta_update_start updates: a column
    // whose removal raises the evidence (q^2 < s: its best alpha given the
    // others is infinite, the fast solver's deletion) and whose weight the data
    // determine to less than kPruneShare (gamma_k, so the gain is below
    // kPruneShare / 2 nats) is pruned, instead of drifting towards alpha_max
    // (slowly when q^2 is close to s).
    const bool prune_by_gain = gaussian && it > opt.beta_update_start;
    for (Eigen::Index k = 0; k < S; ++k) {
      const double a = std::max(gamma(k), 0.0) / (post.mu(k) * post.mu(k));
      const double Skk = post.Sigma(k, k);
      const bool drop_raises = prune_by_gain && gamma(k) < mackay_detail::kPruneShare &&
                               post.mu(k) * post.mu(k) / Skk + std::log(alpha(k) * Skk) < 0.0;
      if (a < opt.alpha_max && !drop_raises) {
        max_change = std::max(max_change, std::abs(std::log(a) - std::log(alpha(k))));
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
    double delta_log_beta = 0.0;
    if (!noise_fixed) {
      const double N = opt.n_effective > 0.0 ? opt.n_effective : static_cast<double>(n);  // sum of prior weights
      const double b = std::min((N - gamma.sum()) / std::max(rss, 1e-300), beta_max);
      delta_log_beta = std::abs(std::log(b) - std::log(beta));
      beta = b;
    }
    active.swap(next);
    alpha_active.swap(next_alpha);
    mu_start = Eigen::Map<const Eigen::VectorXd>(next_mu.data(), next_mu.size());
    converged = !pruned && max_change < opt.tolerance && delta_log_beta < opt.tolerance;
  }
  res.relevant = active;
  res.mu = post.mu;
  res.Sigma = post.Sigma;
  res.alpha = Eigen::VectorXd::Constant(M, kInf);
  for (std::size_t k = 0; k < active.size(); ++k) res.alpha(active[k]) = alpha(k);
  res.beta = gaussian ? beta : std::nan("");
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
