// Non-Gaussian likelihoods (Bernoulli with the logit or probit link, Poisson
// with the log link) and the Laplace approximation of the weight posterior at its
// mode, found by penalised IRLS (Newton) as in SparseBayes v2.
#pragma once

#include <cmath>
#include <string>
#include <utility>

#include "model.hpp"

namespace sparsebayes {

namespace detail {
// The standard normal's log cdf and inverse Mills ratio phi(f) / Phi(f), the
// probit likelihood's pieces, accurate in both tails: erfc() of the upper
// tail (no cancellation in 1 - Phi) and, below f = -30, where Phi(f) nears
// the smallest double, the Mills ratio's asymptotic series
// Phi(-x) x / phi(x) = 1 + s, s = -1/x^2 + 3/x^4 - ... (8 terms: below 1e-17
// relative there).
inline double mills_series_tail(double x) {
  const double r = 1.0 / (x * x);
  double term = 1.0, s = 0.0;
  for (int k = 1; k < 8; ++k) s += (term *= -(2.0 * k - 1.0) * r);
  return s;
}
inline double normal_cdf(double f) { return 0.5 * std::erfc(-f / std::sqrt(2.0)); }
inline double log_normal_cdf(double f) {
  if (f >= 0.0) return std::log1p(-normal_cdf(-f));
  if (f > -30.0) return std::log(normal_cdf(f));
  return -0.5 * f * f - std::log(-f) - 0.5 * std::log(2.0 * M_PI) + std::log1p(mills_series_tail(-f));
}
inline double inverse_mills(double f) {
  if (f > -30.0) return std::exp(-0.5 * f * f) / std::sqrt(2.0 * M_PI) / normal_cdf(f);
  return -f / (1.0 + mills_series_tail(-f));
}
// The probit row's score t lambda(f) - (1 - t) lambda(-f) and Fisher
// information lambda(f) lambda(-f), glm()'s weights (t-free, so that R's
// diagnostics have them from the family). The information is taken at f
// clamped to +-35, where Phi is 1e-268 from 0 or 1: beyond, it underflows
// and a misfit row's scaled residual would overflow.
inline void probit_row(double f, double t, double& score, double& weight) {
  score = t * inverse_mills(f) - (1.0 - t) * inverse_mills(-f);
  const double g = std::min(std::max(f, -35.0), 35.0);
  weight = inverse_mills(g) * inverse_mills(-g);
}
}  // namespace detail

enum class LikelihoodKind { gaussian, binomial, poisson, probit };

// The one table of likelihoods: what R knows of each (read through
// .sb_likelihoods(): R's family object is its family and link, and R checks,
// encodes and scores a response by the kind of its targets) and what the
// solvers ask of it. Adding a likelihood: a row here and its cases in
// Likelihood below; no R file changes.
struct LikelihoodInfo {
  const char* name;        // the likelihood's name in the core and R's entries
  const char* family;      // R's family object: its family
  const char* link;        // and link
  bool noise;              // a noise variance (the Gaussian; its weight posterior is closed-form)
  bool canonical;          // the family's canonical link: the score is t - E[t | f]
  const char* targets;     // "real", "classes" (0/1: a classifier) or "counts"
  const char* title;       // of a fit's print-out
  // Does an IRLS fit over passes start from the targets' own linear
  // predictor (linearised_targets()), as glm() does? Poisson: from f = 0 the
  // first step overshoots by the counts' size. Bernoulli starts at f = offset.
  bool starts_at_targets;
  LikelihoodKind kind;
};

inline constexpr LikelihoodInfo kLikelihoods[] = {
    {"gaussian", "gaussian", "identity", true, true, "real", "Relevance vector machine", false,
     LikelihoodKind::gaussian},
    {"binomial", "binomial", "logit", false, true, "classes", "Relevance vector machine classifier", false,
     LikelihoodKind::binomial},
    {"poisson", "poisson", "log", false, true, "counts", "Relevance vector machine, Poisson counts", true,
     LikelihoodKind::poisson},
    {"probit", "binomial", "probit", false, false, "classes", "Relevance vector machine probit classifier", false,
     LikelihoodKind::probit},
};

// A likelihood of the targets given the linear predictor f: everything a
// solver needs to know of it, so that no solver asks which one it is. The
// Gaussian's weight posterior is Gaussian in closed form and its noise is a
// parameter; the others are fitted by a Laplace approximation at the mode
// (laplace_mode() below), with the IRLS weights as curvature.
class Likelihood {
 public:
  static Likelihood from_name(const std::string& name) {
    for (const LikelihoodInfo& info : kLikelihoods)
      if (name == info.name) return Likelihood(info);
    throw std::invalid_argument("unknown likelihood '" + name + "'");
  }

  bool gaussian() const { return info_->noise; }
  bool starts_at_targets() const { return info_->starts_at_targets; }
  // Are the targets the indicators of a class (0/1), so that a fit counts its misclassified rows?
  bool classes() const { return std::string(info_->targets) == "classes"; }

  // Targets the likelihood can have produced (finiteness is checked elsewhere).
  void validate(const Eigen::VectorXd& t) const {
    if (gaussian() && !(sample_variance(t) > 0.0 && std::isfinite(sample_variance(t))))
      throw std::invalid_argument("the response is constant (or its spread overflows); nothing to fit");
    if (classes() && ((t.array() < 0.0).any() || (t.array() > 1.0).any()))
      throw std::invalid_argument("Bernoulli targets must lie in [0, 1]");
    if (std::string(info_->targets) == "counts" && (t.array() < 0.0).any())
      throw std::invalid_argument("Poisson targets must be non-negative");
  }

  // E[t | f] (the inverse link).
  Eigen::VectorXd mean(const Eigen::VectorXd& f) const {
    switch (kind()) {
      case LikelihoodKind::binomial: return (1.0 / (1.0 + (-f.array()).exp())).matrix();
      case LikelihoodKind::poisson: return f.array().min(700.0).exp().matrix();
      case LikelihoodKind::probit: return f.unaryExpr([](double x) { return detail::normal_cdf(x); });
      default: return f;
    }
  }

  // E[t] under a Gaussian posterior N(eta, v) of f, the predicted response.
  double predictive_mean(double eta, double v) const {
    switch (kind()) {
      // MacKay's moderated output sigmoid(m / sqrt(1 + pi v / 8)), which
      // accounts for the uncertainty of the weights.
      case LikelihoodKind::binomial: return 1.0 / (1.0 + std::exp(-(eta / std::sqrt(1.0 + M_PI * v / 8.0))));
      case LikelihoodKind::poisson: return std::exp(eta + v / 2.0);  // the log-normal mean
      case LikelihoodKind::probit: return detail::normal_cdf(eta / std::sqrt(1.0 + v));  // exact
      default: return eta;
    }
  }

  // d log p(t | f) / df and the IRLS weights at f, whose mean is m, for a
  // unit case weight. With a canonical link they are t - m and the
  // curvature -d^2 log p(t | f) / df^2, a function of m; otherwise (probit)
  // Fisher's information, glm()'s weights.
  void derivatives(const Eigen::VectorXd& t, const Eigen::VectorXd& f, const Eigen::VectorXd& m,
                   Eigen::VectorXd& score, Eigen::VectorXd& weights) const {
    if (kind() == LikelihoodKind::probit) {
      score.resize(t.size());
      weights.resize(t.size());
      for (Eigen::Index i = 0; i < t.size(); ++i) detail::probit_row(f(i), t(i), score(i), weights(i));
      return;
    }
    score = t - m;
    switch (kind()) {
      case LikelihoodKind::binomial: weights = (m.array() * (1.0 - m.array())).matrix(); break;
      case LikelihoodKind::poisson: weights = m; break;
      default: weights = Eigen::VectorXd::Ones(m.size());
    }
  }

  // log p(t | f) of the non-Gaussian likelihoods, summed over observations,
  // each weighted by its case weight (an integer weight counts an
  // observation that many times); without_constants leaves out the terms
  // free of f (Poisson's -log t!), so that log joint differences keep their
  // precision at large counts.
  double log_likelihood(const Eigen::VectorXd& t, const Eigen::VectorXd& f,
                        const Eigen::VectorXd& case_weights = Eigen::VectorXd(), bool without_constants = false) const {
    if (gaussian()) throw std::logic_error("the Gaussian log-likelihood needs its noise");
    double ll = 0.0;
    for (Eigen::Index i = 0; i < t.size(); ++i) {
      const double cw = case_weights.size() ? case_weights(i) : 1.0;
      if (cw == 0.0) continue;
      switch (kind()) {
        case LikelihoodKind::binomial: {
          // log sigmoid(f) = -log1p(exp(-f)), computed without overflow.
          const double log_p = f(i) >= 0 ? -std::log1p(std::exp(-f(i))) : f(i) - std::log1p(std::exp(f(i)));
          ll += cw * (t(i) * log_p + (1.0 - t(i)) * (log_p - f(i)));
          break;
        }
        case LikelihoodKind::probit:
          if (t(i) > 0.0) ll += cw * t(i) * detail::log_normal_cdf(f(i));
          if (t(i) < 1.0) ll += cw * (1.0 - t(i)) * detail::log_normal_cdf(-f(i));
          break;
        default:
          ll += cw * (t(i) * f(i) - std::exp(std::min(f(i), 700.0)) -
                      (without_constants ? 0.0 : std::lgamma(t(i) + 1.0)));
      }
    }
    return ll;
  }

  // A row's IRLS quantities at f, for a unit case weight: sqrt(b), b the
  // IRLS weight, and the score / sqrt(b), so that the linearised target
  // is f + that / sqrt(b); written so that nothing cancels where the mean
  // is near a bound (Bernoulli: sqrt(p (1 - p)) as the product of two
  // sigmoids, (1 - p) / sqrt(p (1 - p)) as exp(-f / 2)), and without 0 * Inf.
  void irls_row(double f, double t, double& root_curvature, double& scaled_residual) const {
    switch (kind()) {
      case LikelihoodKind::binomial:
        root_curvature = std::sqrt(1.0 / (1.0 + std::exp(-f)) * (1.0 / (1.0 + std::exp(f))));
        scaled_residual = (t > 0.0 ? t * std::exp(-f / 2.0) : 0.0) - (t < 1.0 ? (1.0 - t) * std::exp(f / 2.0) : 0.0);
        break;
      case LikelihoodKind::poisson: {
        const double g = std::min(f, 700.0);  // as mean()
        root_curvature = std::exp(g / 2.0);
        scaled_residual = t * std::exp(-g / 2.0) - root_curvature;
        break;
      }
      case LikelihoodKind::probit: {
        double score = 0.0, weight = 0.0;
        detail::probit_row(f, t, score, weight);
        root_curvature = std::sqrt(weight);
        scaled_residual = score / root_curvature;
        break;
      }
      default:
        root_curvature = 1.0;
        scaled_residual = t - f;
    }
  }

  // log p(t | f) of the saturated model (each mean at its target), summed
  // with the case weights: 0 for 0/1 Bernoulli targets, t log t - t - log t!
  // for Poisson. The deviance is twice its excess over log_likelihood().
  double saturated_log_likelihood(const Eigen::VectorXd& t, const Eigen::VectorXd& case_weights = Eigen::VectorXd()) const {
    if (kind() != LikelihoodKind::poisson) return 0.0;
    double ll = 0.0;
    for (Eigen::Index i = 0; i < t.size(); ++i) {
      const double cw = case_weights.size() ? case_weights(i) : 1.0;
      ll += cw * ((t(i) > 0.0 ? t(i) * std::log(t(i)) : 0.0) - t(i) - std::lgamma(t(i) + 1.0));
    }
    return ll;
  }

  // Targets on the scale of f, for least-squares starts: log(t + 1/2) for
  // Poisson; for Bernoulli SparseBayes's logit((0.9 (2t - 1) + 1) / 2), for
  // the probit that divided by 1.7 (the logistic's scale against the
  // normal's: a start, not a fit).
  Eigen::VectorXd linearised_targets(const Eigen::VectorXd& t) const {
    switch (kind()) {
      case LikelihoodKind::poisson: return (t.array() + 0.5).log().matrix();
      case LikelihoodKind::binomial:
        return ((0.9 * (2.0 * t.array() - 1.0) + 1.0) / 2.0).unaryExpr([](double p) { return std::log(p / (1.0 - p)); });
      case LikelihoodKind::probit:
        return ((0.9 * (2.0 * t.array() - 1.0) + 1.0) / 2.0).unaryExpr([](double p) { return std::log(p / (1.0 - p)) / 1.7; });
      default: return t;
    }
  }

 private:
  explicit Likelihood(const LikelihoodInfo& info) : info_(&info) {}
  LikelihoodKind kind() const { return info_->kind; }
  const LikelihoodInfo* info_;
};

// Did a Laplace evidence (or penalised log posterior) fall from `before` to
// `now`, beyond round-off? Every check of a Laplace step asks this.
inline bool evidence_fell(double now, double before) { return now < before - 1e-9 * (1.0 + std::abs(before)); }

// One damped Newton step of a penalised log-likelihood: from w along delta,
// halved down to 1/2^8 (SparseBayes v2's constants) until log_joint(w_new,
// state_new) rises above lj; then w, the state it computed (the linear
// predictor) and lj move there. False if no step rose. Every Laplace mode
// search (this file's, multinomial.hpp's) takes its steps here.
template <class State, class LogJoint>
bool damped_newton_step(Eigen::VectorXd& w, State& state, double& lj, const Eigen::VectorXd& delta,
                        LogJoint&& log_joint) {
  for (double step = 1.0; step >= 1.0 / 256.0; step *= 0.5) {
    State state_new;
    const Eigen::VectorXd w_new = w + step * delta;
    const double lj_new = log_joint(w_new, state_new);
    if (lj_new > lj) {
      w = w_new;
      state = std::move(state_new);
      lj = lj_new;
      return true;
    }
  }
  return false;
}

struct LaplacePosterior {
  Posterior post;          // Sigma, mu (the mode), log |H|
  Eigen::VectorXd irls_weights;  // b_i = -d^2 log p(t_i | f_i) / df_i^2 at the mode (case weights included)
  Eigen::VectorXd mean;    // E[t | mode]
  Eigen::VectorXd score;   // d log p(t | f) / df at the mode, times the case weight (t - E[t | mode] for a canonical link)
  double data_ll = 0.0;
  bool converged = true;
};

// Mode of log p(t | Phi_u w) - sum alpha_k w_k^2 / 2. The search starts from
// the warm start w0 or, if w0 is zero or its posterior is not finite, from
// the better of w0 and the penalised least-squares fit of the linearised
// targets (as SparseBayes starts Bernoulli fits), then takes at most
// 25 Newton steps, each with a backtracking line search that halves the step
// down to 1/2^8 (SparseBayes v2's constants) and accepts only an increase of
// the penalised log posterior. The mode counts as found only at a stationary
// point: gradient norm below 1e-6 per weight, or a Newton decrement g' H^-1 g
// below 1e-14 of the log joint's magnitude. Case weights multiply each
// observation's log-likelihood and the offset is added to the linear
// predictor Phi_u w (empty vectors: none).
inline LaplacePosterior laplace_mode(const Likelihood& lik, const Eigen::MatrixXd& PhiU, const Eigen::VectorXd& t,
                                     const Eigen::VectorXd& alpha, Eigen::VectorXd w, int& jitter_events,
                                     const Eigen::VectorXd& case_weights = Eigen::VectorXd(),
                                     const Eigen::VectorXd& offset = Eigen::VectorXd()) {
  const Eigen::Index S = PhiU.cols();
  const Eigen::VectorXd cw = case_weights.size() ? case_weights : Eigen::VectorXd::Ones(t.size());
  // The penalised log posterior: log p(t | w) + log p(w | alpha) up to a constant.
  auto log_joint = [&](const Eigen::VectorXd& wv, Eigen::VectorXd& f) {
    f = PhiU * wv;
    if (offset.size()) f += offset;
    const double v = lik.log_likelihood(t, f, case_weights, true) - 0.5 * (alpha.array() * wv.array().square()).sum();
    return std::isfinite(v) ? v : -kInf;
  };
  // Phi_u' diag(b) Phi_u + A: a Gram product (the SIMD path where the CPU has one).
  auto precision = [&](const Eigen::VectorXd& b) {
    Eigen::MatrixXd X(PhiU.rows(), PhiU.cols());
    scale_rows_into(b.cwiseSqrt(), PhiU, X);
    Eigen::MatrixXd H = gram_matrix(X);
    H.diagonal() += alpha;
    return H;
  };
  LaplacePosterior lp;
  Eigen::VectorXd f;
  double lj = log_joint(w, f);
  Eigen::LLT<Eigen::MatrixXd> llt;
  if (!(lj > -kInf) || (w.array() == 0.0).all()) {
    // Penalised least squares of the linearised targets on the current basis.
    const Eigen::MatrixXd G = precision(cw);
    Eigen::VectorXd z = lik.linearised_targets(t);
    if (offset.size()) z -= offset;
    const Eigen::VectorXd w_ls = robust_cholesky(G, jitter_events).solve(PhiU.transpose() * cw.cwiseProduct(z));
    Eigen::VectorXd f_ls;
    const double lj_ls = log_joint(w_ls, f_ls);
    if (w_ls.allFinite() && lj_ls > lj) {
      w = w_ls;
      f = f_ls;
      lj = lj_ls;
    }
  }
  auto stationary = [&](const Eigen::VectorXd& g, const Eigen::VectorXd& delta) {
    return g.norm() / static_cast<double>(S) < 1e-6 || g.dot(delta) < 1e-14 * (1.0 + std::abs(lj));
  };
  lp.converged = false;
  // Every exit from the loop leaves y, b and llt evaluated at the final w.
  for (int it = 0; it <= 25; ++it) {
    check_interrupt();
    lp.mean = lik.mean(f);
    lik.derivatives(t, f, lp.mean, lp.score, lp.irls_weights);
    lp.irls_weights = cw.cwiseProduct(lp.irls_weights);
    lp.score = cw.cwiseProduct(lp.score);
    const Eigen::VectorXd g = PhiU.transpose() * lp.score - alpha.cwiseProduct(w);
    llt = robust_cholesky(precision(lp.irls_weights), jitter_events);
    const Eigen::VectorXd delta = llt.solve(g);
    if (stationary(g, delta)) {
      lp.converged = true;
      break;
    }
    if (it == 25) break;  // out of Newton steps away from a stationary point
    if (!damped_newton_step(w, f, lj, delta, log_joint)) {
      // No ascent along the Newton direction: the mode to round-off if the
      // predicted increase is at the log joint's rounding level.
      lp.converged = g.dot(delta) < 1e-8 * (1.0 + std::abs(lj));
      break;
    }
  }
  // Curvature and covariance at the final mode (factorised in the loop).
  lp.post.Sigma = llt.solve(Eigen::MatrixXd::Identity(S, S));
  lp.post.Sigma = 0.5 * (lp.post.Sigma + lp.post.Sigma.transpose());
  lp.post.mu = w;
  lp.post.log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  lp.data_ll = lik.log_likelihood(t, f, case_weights);
  return lp;
}

// Laplace approximation of log p(t | alpha): the data log-likelihood at the
// mode mu, the prior there, and log |H| of the posterior precision there.
inline double laplace_log_evidence(double data_ll, const Eigen::VectorXd& mu, const Eigen::VectorXd& alpha,
                                   double log_det_H) {
  return data_ll - 0.5 * (alpha.array() * mu.array().square()).sum() + 0.5 * alpha.array().log().sum() -
         0.5 * log_det_H;
}

inline double laplace_log_evidence(const LaplacePosterior& lp, const Eigen::VectorXd& alpha) {
  return laplace_log_evidence(lp.data_ll, lp.post.mu, alpha, lp.post.log_det_H);
}

}  // namespace sparsebayes
