// Binomial (two classes) and Poisson fits, from any source of rows
// (data.hpp): one pass over the rows per outer (IRLS) iteration, as
// biglm::bigglm fits a GLM. A pass at the current weights mu gives the
// curvature-weighted rows sqrt(B) Phi and linearised targets sqrt(B) z
// (B the IRLS weights times the case weights, z = Phi mu + (t - E t) / B),
// held as those rows in memory or as their sums from chunks, and the
// log-likelihood (Data::laplace_pass()); the fast solver fits the Gaussian
// model on them with the noise variance fixed at 1, and its posterior mean
// is a Newton step towards the mode at its alphas. The fixed point is the
// Laplace approximation at the mode with alphas stationary for the
// Gaussian model at the mode's curvature. Rows in memory and chunks run the
// same steps and differ by rounding only (the fast solver's rule that
// recomputes S and Q before a reversal, which reads rows, is off for both).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "fit.hpp"

namespace sparsebayes {

// The fit, with what its passes did.
struct PassesResult {
  FitResult fit;
  int passes = 0;
  bool passes_converged = false;
  double deviance = 0.0;
  double error = std::numeric_limits<double>::quiet_NaN();  // classes: the share of rows on the wrong side of 1/2
};

namespace laplace_passes_detail {

using Columns = std::vector<Eigen::Index>;

// log p(t | mu) - sum(alpha mu^2) / 2.
inline double penalised(double log_lik, const Eigen::VectorXd& mu, const Eigen::VectorXd& alpha) {
  return log_lik - 0.5 * (alpha.array() * mu.array().square()).sum();
}

// G[r, r] + diag(alpha): the Hessian of the penalised log posterior of the columns r at a pass's curvature.
inline Eigen::MatrixXd penalised_gram(const PassSums& sums, const Columns& r, const Eigen::VectorXd& alpha) {
  Eigen::MatrixXd H = sums.gram(r, r);
  H.diagonal() += alpha;
  return H;
}

// From the factor of that Hessian H at weights mu: Sigma = H^-1 and the
// Laplace log evidence there.
inline Eigen::MatrixXd covariance(const Eigen::LLT<Eigen::MatrixXd>& llt) {
  const Eigen::Index S = llt.matrixLLT().rows();
  return llt.solve(Eigen::MatrixXd::Identity(S, S));
}
inline double evidence_at(double log_lik, const Eigen::VectorXd& mu, const Eigen::VectorXd& alpha,
                        const Eigen::LLT<Eigen::MatrixXd>& llt) {
  return laplace_log_evidence(log_lik, mu, alpha, 2.0 * llt.matrixLLT().diagonal().array().log().sum());
}

[[noreturn]] inline void stuck(int pass) {
  throw std::runtime_error(
      "the Laplace fit could not make progress at outer pass " + std::to_string(pass) +
      ": even damped Newton steps at fixed alphas did not raise the log posterior (or its sums were not finite). "
      "Give fewer `centres` or a wider kernel.");
}

}  // namespace laplace_passes_detail

// A fit at some point: columns (in order), their weights, covariance and precisions (all M).
struct PassesPoint {
  std::vector<Eigen::Index> relevant;
  Eigen::VectorXd mu;
  Eigen::MatrixXd Sigma;
  Eigen::VectorXd alpha_all;
  Eigen::VectorXd alpha() const {  // of the relevant columns
    Eigen::VectorXd a(relevant.size());
    for (std::size_t k = 0; k < relevant.size(); ++k) a(k) = alpha_all(relevant[k]);
    return a;
  }
};

// A damped Newton search of the mode at the fixed precisions `alpha` of the
// columns `relevant`, one pass per trial: the in-memory laplace_mode()'s
// steps, each trial's log posterior read from its pass's sums.
struct ModeSearch {
  using Columns = std::vector<Eigen::Index>;
  Columns relevant;
  Eigen::VectorXd alpha;
  double tolerance = 1e-7;
  bool has_base = false;
  Eigen::VectorXd base_mu;  // the last point that stood: its weights, sums, penalised log posterior
  PassSums base_sums;
  double base_log_posterior = 0.0;
  Eigen::VectorXd target;   // the Newton step's end from the base, H^-1 c
  Eigen::MatrixXd Sigma;    // H^-1
  double decrement = 0.0, log_evidence = 0.0, step = 1.0;
  Eigen::VectorXd mu;       // the point to pass next
  bool accepted = false, at_mode = false;
  bool failed = false;      // no mode found: the start's sums were not finite, or no damped step ascended
  bool has_last = false;    // the mode of the previous alphas, kept if the new alphas' evidence is lower
  PassesPoint last_fit;
  PassSums last_sums;
  double last_log_evidence = 0.0;

  ModeSearch() = default;
  ModeSearch(Columns relevant_, Eigen::VectorXd alpha_, double tolerance_)
      : relevant(std::move(relevant_)), alpha(std::move(alpha_)), tolerance(tolerance_) {}

  void start(const Columns& from_relevant, const Eigen::VectorXd& from_mu, const PassSums& from_sums, bool failed);
  void set_base(const Eigen::VectorXd& at, const PassSums& sums);
  void pass(const PassSums& sums);
  void next_trial(double to) {
    step = to;
    mu = base_mu + to * (target - base_mu);
    accepted = false;
    at_mode = false;
  }
};

// The cap on the passes of a fit from rows in memory (from chunks: R's chunk_max_passes()).
constexpr int kMaxPasses = 100;

// The outer loop. The first pass is at mu = 0 (Poisson: at the counts'
// linear predictor), fitted from the fast solver's usual start; each later
// pass warm-starts it from the model of the last, so that the passes follow
// one path rather than each choosing anew among the local optima of the
// evidence (from scratch, one data set ended 9.9 nats lower).
// Those full steps at newly re-estimated alphas can overshoot without bound
// where the classes nearly separate (Sonar, 208 centres: weights from 91 to
// 3e7 in two passes), and halving them while still re-estimating the alphas
// every pass cycled: the alphas were re-estimated at a curvature far from
// any mode. So a step is checked at the next pass (step_failed()), and once
// one fails (or the steps cycle, or stall: see run()) the fit takes another
// structure for the rest of the passes: a damped Newton search of the mode
// at fixed alphas, one pass per trial, then the fast solver once at the
// mode's sums to re-estimate the alphas, whose new mode must not lower the
// Laplace evidence (else the previous mode and alphas are kept and the fit
// ends). Fits whose steps all improve keep the interleaved path.
// The passes end when the relevant set is unchanged and mu and log(alpha)
// change by less than the tolerance (relative l-infinity, as the batch
// solvers; at least 1e-7, below which the fast solver's alphas move by
// rounding), or after max_passes (converged = false). The log evidence is
// laplace_log_evidence()'s at the weights returned, from one more pass there
// (or, ending at a kept mode, from that mode's pass).
class LaplacePassesFit {
 public:
  using Columns = std::vector<Eigen::Index>;

  LaplacePassesFit(Data& data, const std::string& likelihood, int max_passes, SolverOptions opt,
                   Progress progress = nullptr)
      : data_(data), M_(data.cols()), lik_(Likelihood::from_name(likelihood)), max_passes_(max_passes),
        opt_(std::move(opt)), progress_(std::move(progress)), tolerance_(std::max(opt_.loop.tolerance, 1e-7)) {
    if (lik_.gaussian()) throw std::invalid_argument("a fit from Laplace passes needs the binomial or poisson family");
    if (M_ < 1 || max_passes_ < 1) throw std::invalid_argument("a fit from passes needs a basis column and a pass");
    opt_.problem.method = "fast";
    opt_.problem.noise_variance = 1.0;
    opt_.problem.case_weights.resize(0);  // in the passes' rows
    opt_.problem.offset.resize(0);
  }

  PassesResult run();

 private:
  // The point of the last pass whose step stood.
  struct Previous {
    Columns relevant;
    Eigen::VectorXd mu, alpha;
    PassSums sums;
  };

  PassesPoint refit(const PassSums& sums, const Columns& relevant, const Eigen::VectorXd& alpha);
  bool step_failed(const PassSums& sums, const Previous* previous) const;

  // The relative change from (relevant, alpha, mu) to `to` (Inf if the relevant set moved).
  static double change(const PassesPoint& to, const Columns& relevant, const Eigen::VectorXd& alpha, const Eigen::VectorXd& mu) {
    if (to.relevant != relevant) return kInf;
    if (relevant.empty()) return 0.0;
    const Eigen::ArrayXd la = alpha.array().log();
    return std::max((to.alpha().array().log() - la).abs().maxCoeff() / (1.0 + la.abs().maxCoeff()),
                    (to.mu - mu).cwiseAbs().maxCoeff() / (1.0 + mu.cwiseAbs().maxCoeff()));
  }
  void record(int pass, double log_posterior, int n_relevant, int action) {
    trace_.push_back(TraceRow{pass, log_posterior, n_relevant, std::numeric_limits<double>::quiet_NaN(), action});
  }
  // log det of a symmetric positive definite matrix (by LU, as R's determinant()).
  static double log_det_spd(const Eigen::MatrixXd& S) {
    if (S.size() == 0) return 0.0;
    return S.partialPivLu().matrixLU().diagonal().array().abs().log().sum();
  }
  static Eigen::VectorXd all_alpha(Eigen::Index M, const Columns& relevant, const Eigen::VectorXd& alpha) {
    Eigen::VectorXd a = Eigen::VectorXd::Constant(M, kInf);
    for (std::size_t k = 0; k < relevant.size(); ++k) a(relevant[k]) = alpha(k);
    return a;
  }

  Data& data_;
  Eigen::Index M_;
  Likelihood lik_;
  int max_passes_;
  SolverOptions opt_;
  Progress progress_;
  double tolerance_;
  std::vector<TraceRow> trace_;
  // The interleaved steps: the sets of columns they left, their best
  // evidence, and the passes since it last rose (kStalledPasses end them; a
  // converging path raises it, however little, at every pass).
  static constexpr int kStalledPasses = 5;
  std::vector<Columns> seen_;
  double best_evidence_ = -kInf;
  int stalled_ = 0;
  Columns relevant_;  // the current point: columns, weights, precisions
  Eigen::VectorXd mu_, alpha_;
  double null_log_lik_ = 0.0;
  int iterations_ = 0, jitter_ = 0;
  bool inner_converged_ = true;
};

// The fast solver on a pass's sums, warm-started from (relevant, alpha); its columns in order.
inline PassesPoint LaplacePassesFit::refit(const PassSums& sums, const Columns& relevant,
                                                        const Eigen::VectorXd& alpha) {
  SolverOptions opt = opt_;
  opt.problem.start_alpha = relevant.empty() ? Eigen::VectorXd() : all_alpha(M_, relevant, alpha);
  // (the weighted rows in memory, else their sums: one path, the rule that
  // recomputes S and Q on a reversal being off for the rows as for sums)
  opt.fast.exact_on_reversal = false;
  const FitResult r = sums.has_rows() ? fit_model(*sums.rows, sums.z, "gaussian", opt, progress_)
                                      : fit_statistics(sums.statistics, opt, progress_);
  iterations_ += r.iterations;
  inner_converged_ = inner_converged_ && r.converged;
  jitter_ += r.jitter_events;
  std::vector<Eigen::Index> order(r.relevant.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<Eigen::Index>(k);
  std::sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) { return r.relevant[a] < r.relevant[b]; });
  PassesPoint p;
  const Eigen::Index S = static_cast<Eigen::Index>(order.size());
  p.relevant.resize(S);
  p.mu.resize(S);
  p.Sigma.resize(S, S);
  for (Eigen::Index i = 0; i < S; ++i) {
    p.relevant[i] = r.relevant[order[i]];
    p.mu(i) = r.mu(order[i]);
    for (Eigen::Index j = 0; j < S; ++j) p.Sigma(i, j) = r.Sigma(order[i], order[j]);
  }
  p.alpha_all = r.alpha;
  return p;
}

// Did the full Newton step of the last pass fail? Its sums (at the new mu,
// with the alphas that step was taken at) are not finite, its
// log-likelihood fell below that at f = offset, or its penalised log
// posterior fell below that of the point it started from (`previous`) under
// the same alphas. A column of that point that the step deleted keeps its
// former alpha there: under the new alpha (infinite) every step that
// deletes would pass, and on Sonar the run-away began with one
// (log-likelihood -17.7 to -30.4, then -73, then -7e6).
inline bool LaplacePassesFit::step_failed(const PassSums& sums, const Previous* previous) const {
  if (!sums.finite()) return true;
  if (!previous) return false;
  if (sums.log_lik < null_log_lik_) return true;
  Eigen::VectorXd before = previous->alpha;
  for (std::size_t k = 0; k < previous->relevant.size(); ++k) {
    const auto at = std::find(relevant_.begin(), relevant_.end(), previous->relevant[k]);
    if (at != relevant_.end()) before(k) = alpha_(at - relevant_.begin());
  }
  using laplace_passes_detail::penalised;
  return evidence_fell(penalised(sums.log_lik, mu_, alpha_), penalised(previous->sums.log_lik, previous->mu, before));
}

// A mode search at the fixed alphas `alpha` of the columns `relevant`, from
// a point (its columns, weights and pass's sums); `failed`: the full Newton
// step from there at these alphas was the step that failed, so the first
// trial is half of it. A point with a column outside `relevant` is first
// moved into their span, which needs a pass of its own: the weights on
// `relevant` that best give its linear predictor under its curvature, with
// the prior at `alpha` (from its sums, no pass). Setting the leaving
// column's weight to 0 instead undid the cancellation of large weights on
// nearby centres (Poisson counts near 80: weights of 1e3, the
// log-likelihood from -28531 to -3e6). New columns start at 0, which moves
// nothing.
inline void ModeSearch::start(const Columns& from_relevant, const Eigen::VectorXd& from_mu,
                              const PassSums& from_sums, bool failed) {
  Eigen::VectorXd start = Eigen::VectorXd::Zero(relevant.size());
  bool inside = true;
  for (std::size_t k = 0; k < from_relevant.size(); ++k) {
    const auto at = std::find(relevant.begin(), relevant.end(), from_relevant[k]);
    if (at == relevant.end()) inside = false;
    else start(at - relevant.begin()) = from_mu(k);
  }
  if (!inside) {
    const Eigen::MatrixXd cross = from_sums.gram(relevant, from_relevant);
    mu = laplace_passes_detail::penalised_gram(from_sums, relevant, alpha).partialPivLu().solve(cross * from_mu);  // to pass
    return;
  }
  set_base(start, from_sums);
  next_trial(failed ? 0.5 : 1.0);
}

// The search's base becomes (mu, sums at mu): its penalised log posterior,
// Newton step and the Laplace evidence there at the search's alphas, from
// the pass's sums: with G = Phi' B Phi and c = Phi' B z over the relevant
// columns, the Hessian is H = G + diag(alpha) and the Newton step goes to
// H^-1 c.
inline void ModeSearch::set_base(const Eigen::VectorXd& at, const PassSums& sums) {
  const Eigen::MatrixXd H = laplace_passes_detail::penalised_gram(sums, relevant, alpha);
  const Eigen::LLT<Eigen::MatrixXd> llt(H);
  if (llt.info() != Eigen::Success) throw std::runtime_error("the Hessian of a mode search is not positive definite");
  const Eigen::VectorXd c = sums.cross(relevant);
  has_base = true;
  base_mu = at;
  base_sums = sums;
  base_log_posterior = laplace_passes_detail::penalised(sums.log_lik, at, alpha);
  target = llt.solve(c);
  Sigma = laplace_passes_detail::covariance(llt);
  decrement = (c - H * at).dot(target - at);  // g' H^-1 g, g = c - H mu the gradient
  log_evidence = laplace_passes_detail::evidence_at(sums.log_lik, at, alpha, llt);
}

// One pass of the mode search: `sums` at its trial point s.mu. The trial
// stands if its penalised log posterior exceeds the base's (it becomes the
// base), else the step is halved, down to 1/256 (SparseBayes's constants,
// as laplace_mode()). The mode is found where the Newton step from the base
// moves mu by less than the tolerance (relative, as the passes' rule) or the
// Newton decrement is at round-off; where no step down to 1/256 ascends, the
// base is the mode if the decrement is at the rounding level of the log
// posterior, and otherwise the search has failed (as where the start's sums
// are not finite): the passes decide what follows.
inline void ModeSearch::pass(const PassSums& sums) {
  const bool finite = sums.finite();
  if (!has_base) {  // the pass of the search's starting point
    if (!finite) {
      failed = true;
      return;
    }
    set_base(mu, sums);
    accepted = true;
  } else if (finite && laplace_passes_detail::penalised(sums.log_lik, mu, alpha) > base_log_posterior) {
    set_base(mu, sums);
    accepted = true;
  } else if (step > 1.0 / 256.0) {
    next_trial(step / 2.0);
    return;
  } else {
    if (decrement >= 1e-8 * (1.0 + std::abs(base_log_posterior))) {
      failed = true;
      return;
    }
    at_mode = true;
    accepted = false;
    return;
  }
  if (base_mu.size() == 0 ||
      (target - base_mu).cwiseAbs().maxCoeff() / (1.0 + base_mu.cwiseAbs().maxCoeff()) < tolerance ||
      decrement < 1e-14 * (1.0 + std::abs(base_log_posterior))) {
    at_mode = true;
    return;
  }
  next_trial(1.0);
  accepted = true;
}

inline PassesResult LaplacePassesFit::run() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PassesResult out;
  PassesPoint fit;
  PassSums sums;
  double log_evidence = nan;
  bool converged = false, have_previous = false, searching = false, ended_at_refit = false;
  Previous previous;
  ModeSearch search;
  int pass = 1;
  for (;; ++pass) {
    check_interrupt();
    sums = data_.laplace_pass(lik_, relevant_, mu_, pass);
    if (pass == 1) null_log_lik_ = sums.null_log_lik;
    const int n_relevant = static_cast<int>(relevant_.size());
    if (!searching && step_failed(sums, have_previous ? &previous : nullptr)) {
      // The full step from `previous` failed: search the mode at these alphas from there.
      if (!have_previous) laplace_passes_detail::stuck(pass);  // not finite at mu = 0
      search = ModeSearch(relevant_, alpha_, tolerance_);
      search.start(previous.relevant, previous.mu, previous.sums, true);
      searching = true;
      record(pass, nan, n_relevant, kRejected);
      mu_ = search.mu;
    } else if (searching) {
      search.pass(sums);
      if (search.failed && !search.has_last) laplace_passes_detail::stuck(pass);
      if (search.failed || (search.at_mode && search.has_last &&
                            evidence_fell(search.log_evidence, search.last_log_evidence))) {
        // The new alphas have no mode, or one of lower evidence: keep the
        // previous mode and its alphas and end. (No mode: on separable
        // classes the new alphas' columns can start where rows are
        // misclassified at near certainty, with infinite linearised targets;
        // crabs, 4 columns replaced at once: log-likelihood -15 to -49430.)
        record(pass, search.failed ? nan : search.log_evidence, n_relevant, kRejected);
        fit = search.last_fit;
        sums = search.last_sums;
        log_evidence = search.last_log_evidence;
        converged = true;
        break;
      }
      if (!search.at_mode) {
        record(pass, search.log_evidence, n_relevant, search.accepted ? kModeSearch : kRejected);
        mu_ = search.mu;
      } else {
        // At the mode of these alphas: re-estimate them on its sums (one solver call, no pass).
        fit = refit(search.base_sums, relevant_, alpha_);
        const double moved = change(fit, relevant_, alpha_, search.base_mu);
        sums = search.base_sums;
        log_evidence = search.log_evidence;
        record(pass, log_evidence, static_cast<int>(fit.relevant.size()), kReestimate);
        if (moved < tolerance_) {
          converged = ended_at_refit = true;
          break;
        }
        ModeSearch next(fit.relevant, fit.alpha(), tolerance_);
        next.start(relevant_, search.base_mu, search.base_sums, false);
        next.has_last = true;
        next.last_fit = PassesPoint{relevant_, search.base_mu, search.Sigma, all_alpha(M_, relevant_, alpha_)};
        next.last_sums = search.base_sums;
        next.last_log_evidence = log_evidence;
        search = std::move(next);
        relevant_ = fit.relevant;
        alpha_ = fit.alpha();
        mu_ = search.mu;
      }
    } else {
      fit = refit(sums, relevant_, alpha_);
      const Eigen::VectorXd new_alpha = fit.alpha();
      // laplace_log_evidence() at this pass's mu (its data log-likelihood) and curvature (Sigma)
      log_evidence = fit.relevant == relevant_ ? laplace_log_evidence(sums.log_lik, mu_, new_alpha, -log_det_spd(fit.Sigma))
                                               : nan;
      if (std::isfinite(log_evidence)) {
        if (log_evidence > best_evidence_) {
          best_evidence_ = log_evidence;
          stalled_ = 0;
        } else {
          ++stalled_;
        }
      }
      const bool cycles = fit.relevant != relevant_ && std::find(seen_.begin(), seen_.end(), fit.relevant) != seen_.end();
      if (!relevant_.empty() && (cycles || stalled_ >= kStalledPasses)) {
        // The interleaved steps cycle (a set of columns left returns; Sonar,
        // a fold: two columns swapped every three passes, to the cap) or
        // wander without raising the evidence (Ionosphere, a fold: the same
        // columns, the evidence between -42.5 and -41.2 for 90 passes). From
        // here the fit takes the structure of the mode searches, whose
        // evidence checks end it: search the mode at these alphas.
        search = ModeSearch(relevant_, alpha_, tolerance_);
        search.start(relevant_, mu_, sums, false);
        searching = true;
        record(pass, nan, n_relevant, kModeSearch);
        mu_ = search.mu;
        if (pass == max_passes_) break;
        continue;
      }
      seen_.push_back(relevant_);
      const double moved = change(fit, relevant_, alpha_, mu_);
      record(pass, log_evidence, static_cast<int>(fit.relevant.size()), kReestimate);  // new alphas, a full Newton step
      // (a first pass at the targets' own linear predictor is at no point of the model: the step from it is not checked)
      have_previous = pass > 1 || !lik_.starts_at_targets();
      if (have_previous) previous = Previous{relevant_, mu_, alpha_, sums};
      relevant_ = fit.relevant;
      mu_ = fit.mu;
      alpha_ = new_alpha;
      if (moved < tolerance_) {
        converged = ended_at_refit = true;
        break;
      }
    }
    if (pass == max_passes_) break;
  }
  if (converged && ended_at_refit) {
    // The fit ends at the fast solver's weights, a Newton step from the last
    // pass's point, with that pass's curvature: one more pass at them gives
    // the Laplace covariance and evidence at the weights returned, consistent
    // to rounding (hat values and leverage read them with the weights).
    ++pass;
    const PassSums at = data_.laplace_pass(lik_, fit.relevant, fit.mu, pass);
    const Eigen::VectorXd alpha = fit.alpha();
    const Eigen::LLT<Eigen::MatrixXd> llt(laplace_passes_detail::penalised_gram(at, fit.relevant, alpha));
    if (at.finite() && llt.info() == Eigen::Success) {
      sums = at;
      fit.Sigma = laplace_passes_detail::covariance(llt);
      log_evidence = laplace_passes_detail::evidence_at(at.log_lik, fit.mu, alpha, llt);
    }
    record(pass, log_evidence, static_cast<int>(fit.relevant.size()), kTerminate);
  }
  if (!converged && searching && search.has_base) {
    // Out of passes while searching: the last point that stood, at the alphas being searched.
    fit = PassesPoint{relevant_, search.base_mu, search.Sigma, all_alpha(M_, relevant_, alpha_)};
    sums = search.base_sums;
    log_evidence = search.log_evidence;
  }
  FitResult& r = out.fit;
  r.relevant = fit.relevant;
  r.mu = fit.mu;
  r.Sigma = fit.Sigma;
  r.alpha = fit.alpha_all;
  r.log_evidence = r.log_posterior = log_evidence;
  r.trace = std::move(trace_);
  r.converged = converged && inner_converged_;
  r.iterations = iterations_;
  r.jitter_events = jitter_;
  out.passes = pass;
  out.passes_converged = converged;
  out.deviance = 2.0 * (sums.log_sat - sums.log_lik);
  if (lik_.classes()) out.error = sums.wrong / sums.kept;
  return out;
}

// A binomial or Poisson fit of rows in memory by the passes (fit_model()'s
// fast solver for these likelihoods): the algorithm of a fit from chunks,
// each pass reading the rows in place, its inner fits on the weighted rows.
inline FitResult fit_laplace_rows(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& t,
                                  const std::string& likelihood, const SolverOptions& opt, const Progress& progress) {
  RowsInMemory rows(Phi, t, opt.problem.case_weights, opt.problem.offset);
  PassesResult pr = LaplacePassesFit(rows, likelihood, kMaxPasses, opt, progress).run();
  FitResult r = std::move(pr.fit);
  r.fitted = Eigen::VectorXd::Zero(Phi.rows());
  for (std::size_t k = 0; k < r.relevant.size(); ++k) r.fitted += r.mu(k) * Phi.col(r.relevant[k]);
  return r;
}

}  // namespace sparsebayes
