// The one entry of every fit, and the solver interface. A solver is a
// function (or class) of
//   (Phi, inv_scale, t, likelihood, SolverOptions, Progress) -> FitResult
// working on the basis with columns scaled to unit norm, Phi diag(inv_scale)
// (applied on the fly or copied, as the solver likes), so that its constants
// are scale-free; fit_model() maps its result back to the columns as given.
// Gaussian targets arrive in standard units (R's standard_units(): centred
// and scaled, offset and weights applied), so nothing here rescales them.
// To add a solver: write it in one header and add one line to the dispatch.
#pragma once

#include <string>

#include "fast_solver.hpp"
#include "joint_ard.hpp"
#include "mackay_solver.hpp"
#include "orthonormal_solver.hpp"
#include "wavelets.hpp"

namespace sparsebayes {

namespace detail {

inline void check_problem(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t,
                          Likelihood lik, const SolverOptions& opt) {
  check_inputs(Phi, t);
  const Eigen::Index n = Phi.rows();
  if (lik == Likelihood::gaussian && !(sample_variance(t) > 0.0 && std::isfinite(sample_variance(t))))
    throw std::invalid_argument("the response is constant (or its spread overflows); nothing to fit");
  if (lik == Likelihood::bernoulli && ((t.array() < 0.0).any() || (t.array() > 1.0).any()))
    throw std::invalid_argument("Bernoulli targets must lie in [0, 1]");
  if (lik == Likelihood::poisson && (t.array() < 0.0).any())
    throw std::invalid_argument("Poisson targets must be non-negative");
  if (opt.per_sample && (lik != Likelihood::gaussian || opt.smoothness > 0.0))
    throw std::invalid_argument("per-sample noise needs the gaussian family and no smoothness prior");
  if (opt.smoothness > 0.0 && (lik != Likelihood::gaussian || opt.method != "fast"))
    throw std::invalid_argument("the smoothness prior needs the gaussian family and method 'fast'");
  if (lik != Likelihood::gaussian && opt.method != "fast" && opt.method != "mackay")
    throw std::invalid_argument("method '" + opt.method + "' needs the gaussian family");
  for (const Eigen::VectorXd* v : {&opt.case_weights, &opt.offset}) {
    if (v->size() == 0) continue;
    if (lik == Likelihood::gaussian)
      throw std::invalid_argument("gaussian case weights and offsets are applied to the targets, not in the solver");
    if (v->size() != n || !v->allFinite())
      throw std::invalid_argument("case weights and offsets need one finite value per observation");
  }
  if (opt.case_weights.size() && (opt.case_weights.array() < 0.0).any())
    throw std::invalid_argument("case weights must be non-negative");
}

}  // namespace detail

inline FitResult fit_model(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t_in,
                           const std::string& likelihood, const SolverOptions& opt, const Progress& progress = nullptr) {
  const Likelihood lik = likelihood_from_name(likelihood);
  detail::check_problem(Phi, t_in, lik, opt);
  const Eigen::VectorXd t = t_in;
  Eigen::VectorXd scale = Phi.colwise().norm().transpose();
  if (!scale.allFinite()) throw std::invalid_argument("basis column norms overflow; rescale the inputs");
  for (Eigen::Index j = 0; j < scale.size(); ++j)
    if (!(scale(j) > 0.0)) scale(j) = 1.0;  // a zero column can never enter the model
  const Eigen::VectorXd inv_scale = scale.cwiseInverse();

  FitResult r;
  const std::string& m = opt.method;
  if (m == "fast") r = FastSolver(Phi, inv_scale, t, lik, opt).run(progress);
  else if (m == "mackay" && lik != Likelihood::gaussian) r = mackay_laplace_solve(Phi, inv_scale, t, lik, opt, progress);
  else r = fit_joint_ard(Phi, inv_scale, t, opt, progress);  // em, mackay, irls2, irls1, gradient

  weights_to_caller_units(r.relevant, scale, r.mu, r.Sigma, r.alpha);
  for (Eigen::Index k = 0; k < r.path_alpha.rows(); ++k)
    r.path_alpha.row(k) = r.path_alpha.row(k).cwiseProduct(scale.cwiseAbs2().transpose());
  return r;
}

// Gaussian fit on the orthonormal wavelet basis of t's N = 2^J points (t in
// grid order, standard units) without forming the basis: O(N) per iteration.
inline FitResult fit_wavelet(const Eigen::Ref<const Eigen::VectorXd>& t, const std::string& family,
                             const SolverOptions& opt, const Progress& progress = nullptr) {
  if (!t.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
  if (!(sample_variance(t) > 0.0)) throw std::invalid_argument("the response is constant; nothing to fit");
  const Eigen::Index n = t.size();
  FitResult r = orthonormal_solve(dwt(t, family), t.squaredNorm(), n, opt, progress);
  Eigen::VectorXd coef = Eigen::VectorXd::Zero(n);
  for (std::size_t k = 0; k < r.relevant.size(); ++k) coef(r.relevant[k]) = r.mu(k);
  r.fitted = idwt(coef, family);
  return r;
}

}  // namespace sparsebayes
