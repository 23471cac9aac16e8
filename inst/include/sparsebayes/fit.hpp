// The one entry of every fit, and the solver interface. A solver is a
// function (or class) of
//   (Phi, inv_scale, t, likelihood, the parts of SolverOptions it reads, Progress) -> FitResult
// working on the basis with columns scaled to unit norm, Phi diag(inv_scale)
// (applied on the fly or copied, as the solver likes), so that its constants
// are scale-free; fit_model() maps its result back to the columns as given.
// Gaussian targets arrive in standard units (R's standard_units(): centred
// and scaled, offset and weights applied), so nothing here rescales them.
// Methods, their rules and what each supports: methods.hpp.
#pragma once

#include <algorithm>
#include <string>

#include "fast_solver.hpp"
#include "joint_ard.hpp"
#include "orthonormal_solver.hpp"
#include "wavelets.hpp"

namespace sparsebayes {

namespace detail {

// What every entry checks of the targets and options (fit_model, fit_wavelet).
inline void check_options(const Eigen::Ref<const Eigen::VectorXd>& t, const Likelihood& lik, const SolverOptions& opt) {
  const ProblemSpec& p = opt.problem;
  const Eigen::Index n = t.size();
  lik.validate(t);
  const Method& method = method_named(p.method);
  if (!lik.gaussian() && !method.non_gaussian)
    throw std::invalid_argument("method '" + p.method + "' needs the gaussian family (binomial and poisson: " +
                                methods_supporting(&Method::non_gaussian) + ")");
  if (p.per_sample && (!lik.gaussian() || p.smoothness > 0.0))
    throw std::invalid_argument("per-sample noise needs the gaussian family and no smoothness prior");
  if (p.student && !p.per_sample) throw std::invalid_argument("Student-t noise is per-sample noise");
  if (p.smoothness > 0.0 && (!lik.gaussian() || !method.smoothness))
    throw std::invalid_argument("the smoothness prior needs the gaussian family and method " +
                                methods_supporting(&Method::smoothness));
  if (opt.batch.studentized && (!p.per_sample || p.student || !method.studentized))
    throw std::invalid_argument("the studentized noise update needs per-sample noise and method " +
                                methods_supporting(&Method::studentized));
  for (const Eigen::VectorXd* v : {&p.case_weights, &p.offset}) {
    if (v->size() == 0) continue;
    if (lik.gaussian())
      throw std::invalid_argument("gaussian case weights and offsets are applied to the targets, not in the solver");
    if (v->size() != n || !v->allFinite())
      throw std::invalid_argument("case weights and offsets need one finite value per observation");
  }
  if (p.case_weights.size() && (p.case_weights.array() < 0.0).any())
    throw std::invalid_argument("case weights must be non-negative");
}

// A solver's result on the unit-norm columns, back in the columns as given.
inline void to_caller_columns(FitResult& r, const Eigen::VectorXd& scale) {
  weights_to_caller_units(r.relevant, scale, r.mu, r.Sigma, r.alpha);
  if (r.other) weights_to_caller_units(r.other->relevant, scale, r.other->mu, r.other->Sigma, r.other->alpha);
  for (Eigen::Index k = 0; k < r.path_alpha.rows(); ++k)
    r.path_alpha.row(k) = r.path_alpha.row(k).cwiseProduct(scale.cwiseAbs2().transpose());
}

// The checked statistics of a fit from sums (fit_statistics(), fit_passes())
// and their columns' scales, the norms of the columns as given.
inline Eigen::VectorXd statistics_scale(const GaussianStatistics& stats) {
  if (stats.gram.rows() != stats.gram.cols() || stats.cross.size() != stats.cols())
    throw std::invalid_argument("the statistics' Gram matrix and cross products do not match");
  if (stats.n < 2) throw std::invalid_argument("at least two observations are needed");
  if (stats.cols() < 1) throw std::invalid_argument("the basis has no columns");
  if (!stats.gram.allFinite() || !stats.cross.allFinite() || !std::isfinite(stats.tt))
    throw std::invalid_argument("the statistics contain NA, NaN or infinite values");
  return column_scale(stats.gram.diagonal().cwiseMax(0.0).cwiseSqrt());
}

// The problem with its warm start (start_alpha, of the columns as given) in the unit-norm columns.
inline ProblemSpec in_unit_columns(ProblemSpec p, const Eigen::VectorXd& scale) {
  if (p.start_alpha.size() == 0) return p;
  if (p.start_alpha.size() != scale.size() || (p.start_alpha.array() <= 0.0).any() || p.start_alpha.hasNaN())
    throw std::invalid_argument("a warm start needs one positive precision (or Inf) per basis column");
  p.start_alpha = p.start_alpha.cwiseQuotient(scale.cwiseAbs2());
  return p;
}

inline void check_problem(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t,
                          const Likelihood& lik, const SolverOptions& opt) {
  check_inputs(Phi, t);
  check_options(t, lik, opt);
}

}  // namespace detail

// Binomial and Poisson fits of rows in memory (laplace_passes.hpp, included below).
inline FitResult fit_laplace_rows(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& t,
                                  const std::string& likelihood, const SolverOptions& opt, const Progress& progress);

// `products`: the kept Phi' phi_m of this basis (fast_state.hpp), shared by
// several fits of one basis; none: the fit keeps its own.
inline FitResult fit_model(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t_in,
                           const std::string& likelihood, const SolverOptions& opt, const Progress& progress = nullptr,
                           std::shared_ptr<ColumnProducts> products = nullptr) {
  const Likelihood lik = Likelihood::from_name(likelihood);
  detail::check_problem(Phi, t_in, lik, opt);
  const Eigen::VectorXd t = t_in;
  const bool fast = method_named(opt.problem.method).rule == Rule::fast;
  if (fast && !lik.gaussian()) return fit_laplace_rows(Phi, t, likelihood, opt, progress);
  const Eigen::VectorXd norms = Phi.colwise().norm().transpose();
  if (!norms.allFinite()) throw std::invalid_argument("basis column norms overflow; rescale the inputs");
  const Eigen::VectorXd scale = column_scale(norms);
  const Eigen::VectorXd inv_scale = scale.cwiseInverse();

  RowsInMemory rows(Phi, t);
  FitResult r = fast ? FastSolver(rows, inv_scale, detail::in_unit_columns(opt.problem, scale), opt.loop, opt.noise,
                                 opt.fast, std::move(products)).run(progress)
                    : fit_joint_ard(rows, inv_scale, lik, opt.problem, opt.loop, opt.noise, opt.batch, progress);
  detail::to_caller_columns(r, scale);
  return r;
}

// A gaussian fit with shared noise from its statistics alone (statistics.hpp:
// the sums of a pass over rows in standard units, in chunks or not), by the
// fast solver or a batch rule that reads no row statistics. The same fit as
// fit_model() on those rows, up to rounding, without fitted values (there
// are no rows to give them). Where the batch noise bounds follow the
// residuals' squared MAD, here they follow their mean square.
inline FitResult fit_statistics(const GaussianStatistics& stats, const SolverOptions& opt,
                                const Progress& progress = nullptr) {
  const ProblemSpec& p = opt.problem;
  const bool fast = method_named(p.method).rule == Rule::fast;
  if (p.per_sample) throw std::invalid_argument("a fit from statistics needs shared noise");
  if (!method_named(p.method).statistics)
    throw std::invalid_argument("method '" + p.method + "' reads the rows; a fit from statistics needs " +
                                methods_supporting(&Method::statistics));
  if (!fast && p.gradient_form == "primal")
    throw std::invalid_argument("a fit from statistics has no sample space (gradient form 'primal')");
  const Eigen::VectorXd scale = detail::statistics_scale(stats);
  ProblemSpec problem = detail::in_unit_columns(p, scale);
  if (!(problem.target_variance > 0.0)) problem.target_variance = stats.target_variance();
  SumsOfRows sums(stats);
  const Likelihood lik = Likelihood::from_name("gaussian");
  const Eigen::VectorXd inv_scale = scale.cwiseInverse();
  FitResult r = fast ? FastSolver(sums, inv_scale, problem, opt.loop, opt.noise, opt.fast).run(progress)
                     : JointArd(sums, inv_scale, lik, problem, opt.loop, opt.noise, opt.batch).run(progress);
  detail::to_caller_columns(r, scale);
  return r;
}

// A gaussian fit with per-sample (or Student-t) noise from rows read by
// passes (data.hpp; data_chunks()): the source gives the rows' sums in
// standard units (statistics.hpp: the column scales and the count) and
// their targets, held because the noise step reads every row's (the
// Student-t floor's robust scale, the outlier class's range), and reads
// the rows again at each noise step, twice: their residuals and
// x_i' Sigma x_i at the current posterior, then their sums weighted by the
// new noise. The batch solver from its plain start only (the
// high-breakdown start reads the rows in memory), with the rules that read
// no row statistics between noise steps: the same fit as fit_model() on
// those rows with start "plain", up to rounding, without fitted values.
inline FitResult fit_passes(Data& data, const SolverOptions& opt, const Progress& progress = nullptr) {
  const ProblemSpec& p = opt.problem;
  if (!p.per_sample) throw std::invalid_argument("a fit from passes over rows is for per-sample noise");
  if (!method_named(p.method).passes)
    throw std::invalid_argument("method '" + p.method + "' reads the rows at every step; a fit from passes needs " +
                                methods_supporting(&Method::passes));
  if (p.gradient_form == "primal") throw std::invalid_argument("a fit from passes has no sample space (gradient form 'primal')");
  if (opt.batch.studentized) throw std::invalid_argument("the studentized noise update reads the rows at every step");
  if (data.in_memory() || !data.reads_passes() || !data.has_targets())
    throw std::invalid_argument("a fit from passes needs a source read by passes, with its targets");
  const Eigen::VectorXd scale = detail::statistics_scale(data.sums());
  const Eigen::VectorXd& t = data.targets();
  if (t.size() != data.sums().n || !t.allFinite())
    throw std::invalid_argument("the targets must be one finite value per row of the statistics");
  const Likelihood lik = Likelihood::from_name("gaussian");
  const Eigen::VectorXd inv_scale = scale.cwiseInverse();
  FitResult r = JointArd(data, inv_scale, lik, p, opt.loop, opt.noise, opt.batch).run(progress);
  detail::to_caller_columns(r, scale);
  return r;
}

// The prior of a wavelet fit: the smoothness constant per level (the
// scaling coefficient, then the detail levels coarse to fine; empty: the
// options' constant for all), learned when asked (with the fit averaged
// over inclusion), and whether the fit is made translation invariant.
struct WaveletPrior {
  Eigen::VectorXd level_smoothness;
  bool learn = false;
  bool invariant = false;
};

// A wavelet fit: the smooth RVM on the basis, with fitted = W' mu or, when
// translation invariant, the mean over all cyclic shifts of the fits with
// the same noise and constants; the constants per level at the end and the
// inclusion probability of each relevant column. fitted_variance is the
// pointwise variance of the fitted mean.
struct WaveletFit {
  FitResult fit;
  Eigen::VectorXd level_smoothness, inclusion, fitted_variance;
};

// Shifts whose posteriors give the variance of a translation-invariant fit.
constexpr Eigen::Index kVarianceShifts = 8;

// Gaussian fit on the orthonormal wavelet basis of t's N = 2^J points (t in
// grid order, standard units) without forming the basis: O(N) per iteration.
inline WaveletFit fit_wavelet(const Eigen::Ref<const Eigen::VectorXd>& t, const std::string& family,
                              const SolverOptions& opt, const WaveletPrior& wp = WaveletPrior(),
                              const Progress& progress = nullptr) {
  if (!t.allFinite()) throw std::invalid_argument("the targets contain NA, NaN or infinite values");
  detail::check_options(t, Likelihood::from_name("gaussian"), opt);
  const Eigen::Index n = t.size();
  const int J = wavelet_levels(n);
  GroupPrior prior;
  prior.learn = wp.learn;
  prior.c = wp.level_smoothness.size() ? wp.level_smoothness : Eigen::VectorXd::Constant(J + 1, opt.problem.smoothness);
  if (prior.c.size() != J + 1) throw std::invalid_argument("a wavelet prior needs one constant per level");
  prior.group.resize(n);
  for (Eigen::Index m = 0; m < n; ++m) {  // coefficient m of level l sits in [2^l, 2^(l+1))
    int g = 0;
    for (Eigen::Index k = m; k > 0; k /= 2) ++g;
    prior.group[m] = g;
  }
  const Eigen::VectorXd z = dwt(t, family);
  ProblemSpec start = opt.problem;
  if (wp.learn && !(start.noise_variance > 0.0)) {
    // Learned constants and the evidence's noise feed each other: a smaller
    // noise makes more coefficients relevant, which lowers the constants and
    // then the noise, down to interpolation. So the noise is held at the
    // standard robust estimate from the finest details, (median |d| /
    // 0.6745)^2 (Donoho & Johnstone, 1994), as EbayesThresh does.
    std::vector<double> finest(n / 2);
    for (Eigen::Index i = 0; i < n / 2; ++i) finest[i] = std::abs(z(n / 2 + i));
    const double sd = median_in_place(finest) / 0.6745;
    if (sd > 0.0) start.noise_variance = sd * sd;
  }
  OrthonormalFit of = orthonormal_solve(z, t.squaredNorm(), n, start, opt.loop, opt.noise, opt.fast, progress, prior);
  WaveletFit out;
  out.level_smoothness = of.group_smoothness;
  out.inclusion = of.inclusion;
  const Eigen::VectorXd& c = of.group_smoothness;
  // The posterior of every coefficient of a shift s of t, at the fit's noise and constants.
  auto coefficients = [&](const Eigen::VectorXd& s, Eigen::VectorXd& mean, Eigen::VectorXd& variance) {
    const Eigen::VectorXd z = dwt(s, family);
    mean.resize(n);
    variance.resize(n);
    for (Eigen::Index m = 0; m < n; ++m) {
      const CoefficientPosterior p =
          coefficient_posterior(z(m), of.beta, c(prior.group[m]), wp.learn, opt.fast.zero_factor);
      mean(m) = p.kept ? p.mean : 0.0;
      variance(m) = p.kept ? p.variance : 0.0;
    }
  };
  out.fit = std::move(of.fit);
  if (!wp.invariant) {
    Eigen::VectorXd coef = Eigen::VectorXd::Zero(n);
    for (std::size_t k = 0; k < out.fit.relevant.size(); ++k) coef(out.fit.relevant[k]) = out.fit.mu(k);
    out.fit.fitted = idwt(coef, family);
    return out;
  }
  const auto rule = [&](double z, int level) {
    const CoefficientPosterior p = coefficient_posterior(z, of.beta, c(level + 1), wp.learn, opt.fast.zero_factor);
    return p.kept ? p.mean : 0.0;
  };
  out.fit.fitted = cycle_spin(t, family, rule);
  // The variance of the mixture over shifts about the invariant mean, from
  // the first few shifts: their posterior variances and their means' spread.
  out.fitted_variance = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd shifted(n), mean, variance;
  const Eigen::Index K = std::min<Eigen::Index>(n, kVarianceShifts);
  for (Eigen::Index s = 0; s < K; ++s) {
    for (Eigen::Index i = 0; i < n; ++i) shifted(i) = t((i + s) % n);
    coefficients(shifted, mean, variance);
    const Eigen::VectorXd f = idwt(mean, family), v = synthesis_variance(variance, family);
    for (Eigen::Index i = 0; i < n; ++i) {
      const double d = f(i) - out.fit.fitted((i + s) % n);
      out.fitted_variance((i + s) % n) += (v(i) + d * d) / static_cast<double>(K);
    }
  }
  return out;
}

}  // namespace sparsebayes

#include "laplace_passes.hpp"  // fit_laplace_rows()
