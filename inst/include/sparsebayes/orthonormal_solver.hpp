// The fast solver on an orthonormal basis (footnote 7 of Schmolck & Everson):
// with Phi' Phi = I every s_m = beta and q_m = beta z_m, z = Phi' t, so the
// columns decouple given the noise and each alpha_m has its optimum in
// closed form (or from the smoothness prior's cubic). The fit alternates
// those optima with the noise update until the noise settles: O(M) per
// iteration, and Phi itself is never formed.
//
// The smoothness constant may differ between groups of columns (the
// resolution levels of a wavelet basis), and may be learned: a
// beta-binomial prior on the number of columns kept in a group (a uniform
// prior on the group's inclusion rate) makes keeping one more column, with
// k of the group's n_g kept, cost log((n_g - k) / (k + 1)) nats, the
// multiplicity correction of Scott & Berger (2010). A learned fit then
// averages over which columns are included (coefficient_posterior()).
#pragma once

#include <chrono>
#include <stdexcept>
#include <cmath>
#include <vector>

#include "model.hpp"
#include "smoothness.hpp"

namespace sparsebayes {

// The smoothness prior per group of columns. With `group` empty every
// column takes ProblemSpec::smoothness.
struct GroupPrior {
  std::vector<int> group;  // group of each column, 0 .. G - 1
  Eigen::VectorXd c;       // constant per group (the start when learned)
  bool learn = false;      // c from the beta-binomial prior on each group's kept count; the fit averages
};

// Averaged fits leave out a column whose mean is below this share of its
// coefficient z: mostly noise coefficients whose inclusion costs little
// because they would carry little (gamma near 0). It halves the columns kept
// at a change of the mean squared error below 1% on the Donoho-Johnstone
// signals.
constexpr double kMinShare = 0.05;

// Posterior of the weight on an orthonormal column with coefficient z at
// noise precision beta and prior constant c.
// Without averaging: the smooth RVM's, alpha at the optimum of the
// smoothness prior's cubic (kept with inclusion 1, or pruned).
// Averaged: the column is included with alpha at its evidence optimum
// (gamma = 1 - 1 / u, u = beta z^2 > 1), with log posterior odds
// l - c gamma, l = (u - 1 - log u) / 2 its log Bayes factor and c gamma its
// cost under the prior; the moments mix the included posterior with zero.
struct CoefficientPosterior {
  double mean = 0.0, variance = 0.0, inclusion = 0.0, alpha = kInf;
  bool kept = false;
};

inline CoefficientPosterior coefficient_posterior(double z, double beta, double c, bool average, double zero_factor) {
  CoefficientPosterior out;
  const double alpha = optimal_alpha(beta, beta * z, beta, average ? 0.0 : c, zero_factor);
  if (std::isinf(alpha)) return out;
  const double m = beta * z / (beta + alpha), v = 1.0 / (beta + alpha);
  out.alpha = alpha;
  if (!average) {
    out.mean = m;
    out.variance = v;
    out.inclusion = 1.0;
    out.kept = true;
    return out;
  }
  const double gamma = beta * v;
  const double log_odds = smooth_gain(alpha, beta, beta * z, beta, 0.0) - c * gamma;
  const double p = 1.0 / (1.0 + std::exp(-log_odds));
  out.mean = p * m;
  out.variance = p * (v + m * m) - out.mean * out.mean;
  out.inclusion = p;
  out.kept = p * gamma >= kMinShare;
  return out;
}

// Log prior odds of keeping one more of n columns when k are kept, under a
// uniform prior on the inclusion rate, as a cost >= 0.
inline double beta_binomial_cost(double n, double k) { return std::max(0.0, std::log((n - k) / (k + 1.0))); }

// An orthonormal fit: the result, the constant of each group at the end
// (learned or as given) and the inclusion probability of each relevant
// column (1 unless averaged).
struct OrthonormalFit {
  FitResult fit;
  Eigen::VectorXd group_smoothness;
  Eigen::VectorXd inclusion;
  double beta = 0.0;  // noise precision
};

// z = Phi' t for orthonormal columns Phi (n x M, M <= n) and tt = t' t.
inline OrthonormalFit orthonormal_solve(const Eigen::VectorXd& z, double tt, Eigen::Index n, const ProblemSpec& problem,
                                        const LoopControl& loop, const NoiseControl& noise, const FastControl& fast,
                                        const Progress& progress, const GroupPrior& prior = GroupPrior()) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const Eigen::Index M = z.size();
  const double N = static_cast<double>(n);
  const double var_t = std::max(tt / N, 1e-300);  // scale of the targets (they are standardised)
  const bool noise_fixed = problem.noise_variance > 0.0;
  const bool grouped = !prior.group.empty();
  if (grouped && static_cast<Eigen::Index>(prior.group.size()) != M)
    throw std::invalid_argument("the prior needs one group per column");
  const std::vector<int> group = grouped ? prior.group : std::vector<int>(M, 0);
  Eigen::VectorXd group_c = grouped ? prior.c : Eigen::VectorXd::Constant(1, problem.smoothness);
  Eigen::VectorXd group_n = Eigen::VectorXd::Zero(group_c.size());
  for (int g : group) {
    if (g < 0 || g >= group_c.size()) throw std::invalid_argument("a column's group has no prior constant");
    group_n(g) += 1.0;
  }
  double beta = 1.0 / (noise_fixed ? problem.noise_variance : noise.init_lambda * var_t);
  Eigen::VectorXd alpha(M), mu(M), sigma(M), c_col(M);
  OrthonormalFit out;
  FitResult& res = out.fit;
  double log_ml = 0.0, log_post = 0.0, rss = 0.0, gamma_sum = 0.0;
  auto set_alpha = [&]() {
    for (Eigen::Index m = 0; m < M; ++m) {
      c_col(m) = group_c(group[m]);
      alpha(m) = optimal_alpha(beta, beta * z(m), beta, c_col(m), fast.zero_factor);
    }
  };
  // Learned constants: the fixed point of c_g = cost(n_g, k_g(c_g)) reached
  // from above (c_g = log n_g, no column kept), where c falls and k grows
  // monotonically.
  auto learn_constants = [&]() {
    for (Eigen::Index g = 0; g < group_c.size(); ++g) group_c(g) = beta_binomial_cost(group_n(g), 0.0);
    for (int sweep = 0; sweep < 1000; ++sweep) {
      set_alpha();
      Eigen::VectorXd kept = Eigen::VectorXd::Zero(group_c.size());
      for (Eigen::Index m = 0; m < M; ++m)
        if (std::isfinite(alpha(m))) kept(group[m]) += 1.0;
      Eigen::VectorXd next(group_c.size());
      for (Eigen::Index g = 0; g < group_c.size(); ++g) next(g) = beta_binomial_cost(group_n(g), kept(g));
      if (next == group_c) break;
      group_c = next;
    }
  };
  // Every alpha at its optimum given beta, and the posterior and evidence there.
  auto evaluate = [&]() {
    if (prior.learn) learn_constants();
    else set_alpha();
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
    log_post = log_ml + log_smoothness_prior(alpha, beta, c_col, fast.noise_shape, fast.noise_scale);
  };
  bool converged = false;
  int it = 0;
  while (it < loop.max_iterations) {
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
    if ((c_col.array() > 0.0).any()) {
      std::vector<double> finite, finite_c;
      for (Eigen::Index m = 0; m < M; ++m)
        if (std::isfinite(alpha(m))) {
          finite.push_back(alpha(m));
          finite_c.push_back(c_col(m));
        }
      const Eigen::VectorXd a = Eigen::Map<const Eigen::VectorXd>(finite.data(), finite.size());
      const Eigen::VectorXd ac = Eigen::Map<const Eigen::VectorXd>(finite_c.data(), finite_c.size());
      b = 1.0 / smooth_noise_variance(N, rss, gamma_sum, a, ac, fast.noise_shape, fast.noise_scale, 1.0 / b);
    }
    b = std::min(b, fast.beta_max_factor / var_t);
    const double change = std::abs(std::log(b) - std::log(beta));
    beta = b;
    if (change < fast.min_delta_log_beta) {
      converged = true;
      break;
    }
    if (std::chrono::duration<double>(clock::now() - start).count() > loop.time_limit) break;
  }
  evaluate();  // the posterior at the final beta
  std::vector<CoefficientPosterior> post;
  for (Eigen::Index m = 0; m < M; ++m) {
    const CoefficientPosterior p = coefficient_posterior(z(m), beta, c_col(m), prior.learn, fast.zero_factor);
    alpha(m) = kInf;
    if (!p.kept) continue;
    alpha(m) = p.alpha;
    res.relevant.push_back(m);
    post.push_back(p);
  }
  const Eigen::Index S = res.relevant.size();
  res.mu.resize(S);
  res.Sigma = Eigen::MatrixXd::Zero(S, S);
  out.inclusion.resize(S);
  for (Eigen::Index k = 0; k < S; ++k) {
    res.mu(k) = post[k].mean;
    res.Sigma(k, k) = post[k].variance;
    out.inclusion(k) = post[k].inclusion;
  }
  res.alpha = alpha;
  res.lambda = Eigen::VectorXd::Constant(1, 1.0 / beta);
  res.log_evidence = log_ml;
  res.log_posterior = log_post;
  res.iterations = it;
  res.converged = converged;
  out.group_smoothness = group_c;
  out.beta = beta;
  return out;
}

}  // namespace sparsebayes
