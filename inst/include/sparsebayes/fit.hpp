// Entry point for every fit: puts the problem in standard units (basis
// columns scaled to unit norm, as SparseBayes does, and Gaussian targets
// divided by their sd), runs the chosen solver and maps the result back, so
// the solvers' constants are scale-free and extreme magnitudes do not
// overflow.
#pragma once

#include <string>

#include "fast_solver.hpp"
#include "mackay_solver.hpp"
#include "orthonormal_solver.hpp"
#include "wavelets.hpp"

namespace sparsebayes {

namespace detail {

inline double sample_sd(const Eigen::Ref<const Eigen::VectorXd>& t) {
  const double sd = std::sqrt((t.array() - t.mean()).square().sum() / (t.size() - 1.0));
  if (!(sd > 0.0) || !std::isfinite(sd))
    throw std::invalid_argument("the response is constant (or its spread overflows); nothing to fit");
  return sd;
}

// Maps a result on unit-norm columns and targets t / sd_t back to the
// caller's units: w = sd_t w~ / scale, alpha = alpha~ scale^2 / sd_t^2.
inline void to_caller_units(FitResult& r, const Eigen::VectorXd& scale, double sd_t, Eigen::Index n) {
  const double v = sd_t * sd_t;
  weights_to_caller_units(r.relevant, scale, sd_t, r.mu, r.Sigma, r.alpha);
  r.beta /= v;
  r.lambda *= v;
  r.fitted *= sd_t;
  const double shift = -static_cast<double>(n) * std::log(sd_t);  // density of t = sd_t * t~
  r.log_ml += shift;
  r.log_posterior += shift;
  for (auto& row : r.trace) {
    row.log_ml += shift;
    row.noise_variance *= v;
  }
}

}  // namespace detail

inline FitResult fit_model(const Eigen::Ref<const Eigen::MatrixXd>& Phi_in, const Eigen::Ref<const Eigen::VectorXd>& t_in,
                           const std::string& likelihood, const std::string& method, SolverOptions opt,
                           const Progress& progress = nullptr) {
  check_inputs(Phi_in, t_in);
  const Likelihood lik = likelihood_from_name(likelihood);
  const Eigen::Index n = Phi_in.rows();
  double sd_t = 1.0;  // only Gaussian targets are rescaled
  if (lik == Likelihood::gaussian) {
    sd_t = detail::sample_sd(t_in);
    if (opt.per_sample_noise) sd_t = robust_target_sd(t_in);  // an outlier must not set the units
  } else if (lik == Likelihood::bernoulli && ((t_in.array() < 0.0).any() || (t_in.array() > 1.0).any())) {
    throw std::invalid_argument("Bernoulli targets must lie in [0, 1]");
  } else if (lik == Likelihood::poisson && (t_in.array() < 0.0).any()) {
    throw std::invalid_argument("Poisson targets must be non-negative");
  }
  if (opt.per_sample_noise && (lik != Likelihood::gaussian || opt.smoothness > 0.0 || method != "fast"))
    throw std::invalid_argument("per-sample noise in this solver needs the gaussian family, no smoothness prior and "
                                "method 'fast'");
  for (const Eigen::VectorXd* v : {&opt.case_weights, &opt.offset}) {
    if (v->size() == 0) continue;
    if (lik == Likelihood::gaussian)
      throw std::invalid_argument("gaussian case weights and offsets are applied to the targets, not in the solver");
    if (v->size() != n || !v->allFinite()) throw std::invalid_argument("case weights and offsets need one finite value per observation");
  }
  if (opt.case_weights.size() && (opt.case_weights.array() < 0.0).any())
    throw std::invalid_argument("case weights must be non-negative");
  if (lik != Likelihood::gaussian && opt.smoothness > 0.0)
    throw std::invalid_argument("the smoothness prior is defined for the gaussian family only");
  const Eigen::VectorXd t = t_in / sd_t;
  Eigen::VectorXd scale = Phi_in.colwise().norm().transpose();
  if (!scale.allFinite()) throw std::invalid_argument("basis column norms overflow; rescale the inputs");
  Eigen::VectorXd inv_scale(scale.size());
  for (Eigen::Index j = 0; j < scale.size(); ++j) {
    if (!(scale(j) > 0.0)) scale(j) = 1.0;  // a zero column can never enter the model
    inv_scale(j) = 1.0 / scale(j);
  }
  if (opt.fixed_noise > 0.0) opt.fixed_noise /= sd_t * sd_t;

  FitResult r;
  if (method == "fast") {
    r = FastSolver(Phi_in, inv_scale, t, lik, opt).run(progress);
  } else if (method == "mackay") {
    if (opt.smoothness > 0.0) throw std::invalid_argument("the smoothness prior needs method 'fast'");
    r = mackay_solve(Phi_in, inv_scale, t, lik, opt, progress);
  } else {
    throw std::invalid_argument("unknown method '" + method + "'");
  }

  detail::to_caller_units(r, scale, sd_t, n);
  return r;
}

// Gaussian fit on the orthonormal wavelet basis of t's N = 2^J points (t in
// grid order) without forming the basis: O(N) per iteration.
inline FitResult fit_wavelet(const Eigen::Ref<const Eigen::VectorXd>& t_in, const std::string& family,
                             SolverOptions opt, const Progress& progress = nullptr) {
  if (!t_in.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
  const Eigen::Index n = t_in.size();
  const double sd_t = detail::sample_sd(t_in);
  const Eigen::VectorXd t = t_in / sd_t;
  if (opt.fixed_noise > 0.0) opt.fixed_noise /= sd_t * sd_t;
  FitResult r = orthonormal_solve(dwt(t, family), t.squaredNorm(), n, opt, progress);
  Eigen::VectorXd coef = Eigen::VectorXd::Zero(n);
  for (std::size_t k = 0; k < r.relevant.size(); ++k) coef(r.relevant[k]) = r.mu(k);
  r.fitted = idwt(coef, family);
  detail::to_caller_units(r, Eigen::VectorXd::Ones(n), sd_t, n);
  return r;
}

}  // namespace sparsebayes
