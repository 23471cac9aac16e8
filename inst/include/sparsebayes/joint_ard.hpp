// Joint model-and-data ARD (Timans et al.): y = X theta + e with
// theta_j ~ N(0, 1/alpha_j) and e_i ~ N(0, lambda_i) (or one shared lambda),
// alpha and lambda chosen by maximising log p(y | alpha, lambda).
//
// One solver loop serves five update rules (App. B.7, Algs. 1-4 of the paper):
//   em       alpha_j <- 1 / (mu_j^2 + Sigma_jj),  lambda_i <- r_i^2 + x_i' Sigma x_i
//   mackay   alpha_j <- (1 - alpha_j Sigma_jj) / mu_j^2, lambda as em (shared: rss / (n - sum gamma))
//   irls2    the same fixed point written through Pi_y = Sigma_y^-1 (Wipf & Nagarajan)
//   irls1    a double-l1 weighted problem solved by ADMM (warm-started), then map-back rules
//   gradient Adam on log alpha, log lambda; "primal" evaluates through Sigma_y (n x n),
//            "dual" through Sigma_theta (d x d)
// The posterior is computed in the weight space (d x d, Sigma_theta = (Alpha + X' L^-1 X)^-1)
// or in the sample space (n x n, Sigma_y = L + X G^-1 X'), whichever is smaller, over the
// columns still active. Non-Gaussian likelihoods (Bernoulli, Poisson) take the Laplace
// approximation at the posterior mode instead (warm-started from the last mode; Tipping
// 2001), with the IRLS weights in the place of 1 / lambda: the rules, pruning, readmission,
// damping and the schedule are the same for every likelihood.
// Safeguards of App. D.1: damping in log space, clipping, jitter on a
// failed Cholesky (counted), warm start (alpha only for the first iterations), lambda updated
// every K iterations, convergence by the relative l_inf change of the log parameters with
// patience. A weight whose alpha reaches the upper clip is pruned.
// Runs on the columns scaled to unit mean square (applied on the fly; targets in standard units, from R);
// fit.hpp maps the result back to the columns as given.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "likelihood.hpp"
#include "methods.hpp"
#include "robust_start.hpp"
#include "student_noise.hpp"

namespace sparsebayes {

namespace ard_detail {

inline Eigen::VectorXd soft(const Eigen::VectorXd& z, const Eigen::VectorXd& k) {
  return (z.array().sign() * (z.array().abs() - k.array()).max(0.0)).matrix();
}

// Squared norms of the rows of A B' (A: n x S, B: S x S), by row panels with
// an interrupt check between them: x_i' Sigma x_i for B = L^-1.
inline Eigen::VectorXd row_norms_of_product(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::VectorXd out(A.rows());
  for_panels(A.rows(), interrupt_panel(B.rows(), B.cols()), [&](Eigen::Index i, Eigen::Index nb) {
    out.segment(i, nb) = (A.middleRows(i, nb) * B.transpose()).rowwise().squaredNorm();
  });
  return out;
}

// Thinned record of alpha and lambda: every `stride` iterations, halved when full.
struct PathRecorder {
  int max_rows = 200, stride = 1;
  std::vector<int> it;
  std::vector<Eigen::VectorXd> alpha, lambda;
  void record(int t, const Eigen::VectorXd& alpha_t, const Eigen::VectorXd& lambda_t) {
    if (max_rows <= 0 || t % stride != 0) return;
    it.push_back(t);
    alpha.push_back(alpha_t);
    lambda.push_back(lambda_t);
    if (static_cast<int>(it.size()) > max_rows) {
      std::size_t k = 0;
      for (std::size_t i = 0; i < it.size(); i += 2, ++k) {
        it[k] = it[i];
        alpha[k] = alpha[i];
        lambda[k] = lambda[i];
      }
      it.resize(k);
      alpha.resize(k);
      lambda.resize(k);
      stride *= 2;
    }
  }
};

}  // namespace ard_detail

class JointArd {
 public:
  // Phi diag(inv_scale) has unit-norm columns (see fit.hpp).
  JointArd(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale, const Eigen::VectorXd& y,
           const Likelihood& lik, const SolverOptions& opt)
      : opt_(opt), lik_(lik), n_(Phi.rows()), d_(Phi.cols()), y_(y), Phi_(Phi) {
    if (rule_ == Rule::fast) throw std::invalid_argument("JointArd runs the batch rules, not the fast solver");
    if (opt_.objective != "auto" && opt_.objective != "primal" && opt_.objective != "dual")
      throw std::invalid_argument("unknown objective '" + opt_.objective + "'");
    if (!(opt_.alpha_min > 0.0 && opt_.alpha_min < opt_.alpha_max && opt_.lambda_min > 0.0 &&
          opt_.lambda_min < opt_.lambda_max))
      throw std::invalid_argument("the clipping bounds must satisfy 0 < min < max");
    if (opt_.schedule != "converge" && opt_.schedule != "paper")
      throw std::invalid_argument("unknown schedule '" + opt_.schedule + "'");
    if (lik_.gaussian() && !(sample_variance(y) > 0.0))
      throw std::invalid_argument("the response is constant; nothing to fit");
    // Unit-norm columns times sqrt(N): unit mean square (over the replicated rows
    // when prior weights count copies), the units of alpha_min, alpha_max and init_alpha.
    // Applied on the fly (xcol()), not copied: a copy of an n x d design costs
    // more than the whole shared-noise fit at n = 20000, d = 500.
    const double root_n = std::sqrt(replicated_rows(opt_, n_));
    x_scale_ = Eigen::VectorXd::Zero(d_);
    for (Eigen::Index j = 0; j < d_; ++j) {
      if (Phi.col(j).squaredNorm() > 0.0) {
        x_scale_(j) = inv_scale(j) * root_n;
        active_.push_back(j);
      }  // else a zero column (scale 0) can never explain anything: pruned from the start
    }
    if (active_.empty()) throw std::invalid_argument("every feature column is zero");
  }

  FitResult run(const Progress& progress) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const bool alpha_fixed = opt_.fixed_alpha > 0.0;
    const bool noise_fixed = noise_fixed_;
    alpha_ = Eigen::VectorXd::Constant(active_.size(), alpha_fixed ? opt_.fixed_alpha : opt_.init_alpha);
    const double lam0 = opt_.noise_variance > 0.0 ? opt_.noise_variance : initial_noise_variance(y_, opt_);
    lambda_ = Eigen::VectorXd::Constant(opt_.per_sample ? n_ : 1, lam0);
    if (opt_.per_sample && !noise_fixed && opt_.init_noise.size() == n_) lambda_ = opt_.init_noise;
    if (rule_ == Rule::gradient) {
      adam_m_alpha_ = adam_v_alpha_ = Eigen::VectorXd::Zero(alpha_.size());
      adam_m_lambda_ = adam_v_lambda_ = Eigen::VectorXd::Zero(lambda_.size());
    }
    ard_detail::PathRecorder path;
    path.max_rows = opt_.path_max;
    FitResult res;
    int t = 0, calm = 0;
    bool converged = false;
    double last_lambda_change = noise_fixed ? 0.0 : kInf;
    while (true) {
      check_interrupt();
      posterior(need_extras(t));
      // No pruning during the warm start and the first three noise updates:
      // with the noise still near its start value a precision may touch the
      // clip and must be free to come back.
      const bool pruned = (t >= opt_.warm_start + 3 * opt_.noise_every || noise_fixed) && prune();
      if (pruned) {
        calm = 0;
        posterior(need_extras(t));  // exact for the reduced model
      }
      // Converged on the active set: a pruned column whose evidence gain given
      // the current model is positive comes back (the fast solver's addition),
      // so the end point is a maximum over all columns, not only over the ones
      // that survived an early prune.
      if (converged && readmit()) {
        converged = false;
        calm = 0;
        posterior(need_extras(t));
      }
      const TraceRow row{t, log_ml_, static_cast<int>(active_.size()), lik_.gaussian() ? lambda_.mean() : std::nan(""),
                         kReestimate};
      res.trace.push_back(row);
      path.record(t, full_alpha(), lambda_);
      if (progress) progress(row);
      if (converged || t >= opt_.max_iterations) break;
      if (std::chrono::duration<double>(clock::now() - start).count() > opt_.time_limit) break;

      const bool update_lambda = !noise_fixed && lambda_due(t);
      // Student-t noise: q(lambda) and (nu, s2) in closed form for every
      // method, in place of the method's own lambda step.
      const bool method_lambda = update_lambda && !opt_.student;
      Eigen::VectorXd alpha_new = alpha_, l_new = lambda_;
      if (rule_ == Rule::irls1) {
        irls1_step(alpha_new, l_new, method_lambda);
      } else if (rule_ == Rule::gradient) {
        adam_step(alpha_new, l_new, method_lambda, t);
      } else {
        if (!alpha_fixed) alpha_new = alpha_rule();
        if (method_lambda) l_new = lambda_rule();
      }
      if (update_lambda && opt_.student) l_new = student_.targets(resid_.cwiseAbs2() + q_row_);
      if (alpha_fixed) alpha_new = alpha_;
      // Damping in log space (closed-form rules only; the paper's schedule damps
      // alpha itself), then clipping.
      const bool damp = rule_ != Rule::gradient, linear = opt_.schedule == "paper";
      const Eigen::VectorXd log_alpha_old = alpha_.array().log();
      for (Eigen::Index k = 0; k < alpha_new.size(); ++k) {
        const double a =
            std::isfinite(alpha_new(k)) ? std::clamp(alpha_new(k), opt_.alpha_min, opt_.alpha_max) : opt_.alpha_max;
        double lg = std::log(a);
        if (damp && linear) lg = std::log((1.0 - opt_.damping_alpha) * alpha_(k) + opt_.damping_alpha * a);
        else if (damp) lg = (1.0 - opt_.damping_alpha) * log_alpha_old(k) + opt_.damping_alpha * lg;
        alpha_new(k) = alpha_fixed ? alpha_(k) : std::exp(lg);
      }
      if (update_lambda) {
        noise_bounds_.widen(resid_);
        // Damped (closed-form rules only) and clipped, as every solver's noise step.
        last_lambda_change = damped_noise_step(lambda_, l_new, noise_bounds_, damp ? opt_.damping_lambda : 1.0, linear);
        lambda_changed_ = true;
      }
      const Eigen::VectorXd log_alpha_new = alpha_new.array().log();
      const double alpha_change =
          alpha_new.size()
              ? (log_alpha_new - log_alpha_old).cwiseAbs().maxCoeff() / (1.0 + log_alpha_new.cwiseAbs().maxCoeff())
              : 0.0;
      alpha_ = alpha_new;
      ++t;
      const bool noise_settled = noise_fixed || t > opt_.warm_start;
      // The paper's schedule runs its whole budget: the budget is part of that estimator.
      if (noise_settled && alpha_change < opt_.tolerance && last_lambda_change < opt_.tolerance && !linear) ++calm;
      else calm = 0;
      converged = calm >= opt_.patience;
    }
    final_posterior(res);
    student_.report(res);
    res.iterations = t;
    res.converged = converged;
    res.jitter_events = jitter_events_;
    res.mode_converged = mode_converged_;
    const Eigen::Index T = path.it.size();
    res.path_iteration = path.it;
    res.path_alpha.resize(T, d_);
    res.path_lambda.resize(T, lambda_.size());
    for (Eigen::Index k = 0; k < T; ++k) {
      res.path_alpha.row(k) = path.alpha[k].transpose();
      res.path_lambda.row(k) = path.lambda[k].transpose();
    }
    to_unit_norm(res);
    return res;
  }

 private:
  SolverOptions opt_;
  Likelihood lik_;
  Rule rule_ = method_named(opt_.method).rule;
  Eigen::Index n_, d_;
  // The noise is held: at the caller's value, or by a likelihood without one.
  const bool noise_fixed_ = opt_.noise_variance > 0.0 || !lik_.gaussian();
  Eigen::VectorXd y_;
  NoiseBounds noise_bounds_{opt_.lambda_min, opt_.lambda_max};
  StudentNoise student_{opt_.student_df, outlier_class_range(opt_, y_), y_};
  // The columns with unit mean square, x_j = Phi_j x_scale_j (x_scale_j = 0 for a zero column).
  Eigen::Ref<const Eigen::MatrixXd> Phi_;  // the caller's basis: it outlives the solver (see fit.hpp)
  Eigen::VectorXd x_scale_;
  auto xcol(Eigen::Index j) const { return Phi_.col(j) * x_scale_(j); }
  std::vector<Eigen::Index> active_;  // columns still in the model, increasing
  Eigen::VectorXd alpha_, lambda_;    // alpha per active column
  int jitter_events_ = 0;

  // Caches of the weight-space form: A = X_a' L^-1 X_a and b = X_a' L^-1 y.
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
  bool lambda_changed_ = true;
  std::vector<Eigen::Index> cache_cols_;
  Eigen::MatrixXd XtX_;  // shared noise: X'X of all columns, once
  Eigen::VectorXd Xty_;

  // Posterior quantities of the current iterate.
  double log_ml_ = 0.0;
  Eigen::VectorXd mu_, diag_sigma_, resid_;
  Eigen::VectorXd q_row_;  // x_i' Sigma x_i, when asked for
  Eigen::VectorXd q_col_;  // x_j' Pi_y x_j, when asked for
  bool in_sample_space_ = false;
  Eigen::MatrixXd Sigma_;  // weight space only
  // Buffers of the weight-space posterior, kept across iterations: freeing and
  // allocating S x S blocks each iteration cost more (in page faults) than the
  // factorisation itself at S = 500.
  Eigen::MatrixXd H_, Linv_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd xv_;

  // Adam state
  Eigen::VectorXd adam_m_alpha_, adam_v_alpha_, adam_m_lambda_, adam_v_lambda_;
  // ADMM state (warm start), on the active columns
  Eigen::VectorXd admm_theta_, admm_a_, admm_u_, admm_e_, admm_s_;
  std::vector<Eigen::Index> admm_cols_;
  Eigen::LLT<Eigen::MatrixXd> admm_llt_;
  bool admm_wide_ = false;

  // The Laplace approximation (non-Gaussian likelihoods): the mode of every
  // column (0 for those never active; the warm start of the next search),
  // and the IRLS weights and scores at the mode, for readmission.
  Eigen::VectorXd mode_;
  LaplacePosterior laplace_;
  bool mode_converged_ = true;

  bool lambda_due(int t) const { return t >= opt_.warm_start && (t - opt_.warm_start) % opt_.noise_every == 0; }

  // Which extra statistics the coming update needs: 1 x_i' Sigma x_i,
  // 2 x_j' Pi_y x_j (and the full Sigma), 4 the full Sigma.
  int need_extras(int t) const {
    const bool lam = !noise_fixed_ && lambda_due(t);
    int need = 0;
    if (lam && opt_.per_sample) need |= 1;  // q_row
    if (rule_ == Rule::irls1) need |= 3;   // q_row and q_col
    return need;
  }

  Eigen::VectorXd inv_lambda_vec() const {
    return opt_.per_sample ? Eigen::VectorXd(lambda_.cwiseInverse()) : Eigen::VectorXd::Constant(n_, 1.0 / lambda_(0));
  }

  // The active columns, copied once per change of the active set.
  const Eigen::MatrixXd& active_X() {
    if (xa_cols_ != active_) {
      Xa_.resize(n_, active_.size());
      for_panels(Xa_.cols(), 256, [&](Eigen::Index j, Eigen::Index nb) {
        for (Eigen::Index k = j; k < j + nb; ++k) Xa_.col(k) = xcol(active_[k]);
      });
      xa_cols_ = active_;
    }
    return Xa_;
  }
  Eigen::MatrixXd Xa_;
  std::vector<Eigen::Index> xa_cols_;

  // X_a v read from the active columns in place, four per pass over the result.
  const Eigen::VectorXd& active_times(const Eigen::VectorXd& v) {
    Eigen::VectorXd& out = xv_;
    out.setZero(n_);
    const std::size_t S = active_.size();
    std::size_t k = 0;
    for (; k + 4 <= S; k += 4)
      out += (v(k) * x_scale_(active_[k])) * Phi_.col(active_[k]) +
             (v(k + 1) * x_scale_(active_[k + 1])) * Phi_.col(active_[k + 1]) +
             (v(k + 2) * x_scale_(active_[k + 2])) * Phi_.col(active_[k + 2]) +
             (v(k + 3) * x_scale_(active_[k + 3])) * Phi_.col(active_[k + 3]);
    for (; k < S; ++k) out += (v(k) * x_scale_(active_[k])) * Phi_.col(active_[k]);
    return out;
  }

  bool use_sample_space() const {
    if (opt_.objective == "primal") return true;
    if (opt_.objective == "dual") return false;
    return static_cast<Eigen::Index>(active_.size()) > n_;
  }

  void posterior(int need) {
    if (!lik_.gaussian()) laplace_posterior();
    else if (use_sample_space()) sample_space_posterior(need);
    else weight_space_posterior(need);
  }

  void refresh_cache() {
    const Eigen::Index S = active_.size();
    // Shared noise: A_ and b_ change only with the active set and the noise,
    // which EM holds fixed between noise updates (most iterations).
    if (!opt_.per_sample && !lambda_changed_ && cache_cols_ == active_) return;
    // X'X of all d columns is cached only when it is small next to the data (d x d
    // may not fit when d > n): otherwise the products are formed over the active columns.
    if (!opt_.per_sample && d_ > std::max<Eigen::Index>(n_, 4096)) {
      const Eigen::MatrixXd& Xa = active_X();
      A_.noalias() = Xa.transpose() * Xa / lambda_(0);
      b_.noalias() = Xa.transpose() * y_ / lambda_(0);
    } else if (!opt_.per_sample) {
      if (XtX_.size() == 0) {
        // Phi'Phi scaled by the column scales (X is never formed); its lower
        // triangle by column panels, half the flops of the general product
        // (this is the O(n d^2) cost of a shared-noise fit), then mirrored.
        XtX_.resize(d_, d_);  // every entry is written below (a zero fill of fresh memory would not see an interrupt)
        for_panels(d_, interrupt_panel(n_, d_), [&](Eigen::Index j, Eigen::Index nb) {
          XtX_.block(j, j, d_ - j, nb).noalias() = Phi_.middleCols(j, d_ - j).transpose() * Phi_.middleCols(j, nb);
        });
        for (Eigen::Index j = 0; j < d_; ++j) {
          check_interrupt();
          XtX_.col(j).tail(d_ - j) = XtX_.col(j).tail(d_ - j).cwiseProduct(x_scale_.tail(d_ - j)) * x_scale_(j);
          // j = 0 mirrors nothing; skipping it also spares Eigen's debug-mode aliasing
          // check, which sees two empty blocks at the same address.
          if (j > 0) XtX_.col(j).head(j) = XtX_.row(j).head(j).transpose();
        }
        Xty_.noalias() = x_scale_.asDiagonal() * (Phi_.transpose() * y_);
      }
      A_.resize(S, S);
      b_.resize(S);
      for (Eigen::Index k = 0; k < S; ++k) {
        b_(k) = Xty_(active_[k]) / lambda_(0);
        for (Eigen::Index l = 0; l < S; ++l) A_(k, l) = XtX_(active_[k], active_[l]) / lambda_(0);
      }
    } else if (lambda_changed_ || cache_cols_.empty()) {
      const Eigen::VectorXd w = lambda_.cwiseInverse().cwiseSqrt();
      const Eigen::MatrixXd Xw = w.asDiagonal() * active_X();
      A_ = gram_matrix(Xw);
      b_.noalias() = Xw.transpose() * (w.cwiseProduct(y_));
    } else if (cache_cols_ != active_) {  // columns were pruned: keep the sub-block
      std::vector<Eigen::Index> pos;
      std::size_t c = 0;
      for (Eigen::Index j : active_) {
        while (cache_cols_[c] != j) ++c;
        pos.push_back(c);
      }
      const Eigen::Index S2 = pos.size();
      Eigen::MatrixXd A2(S2, S2);
      Eigen::VectorXd b2(S2);
      for (Eigen::Index k = 0; k < S2; ++k) {
        b2(k) = b_(pos[k]);
        for (Eigen::Index l = 0; l < S2; ++l) A2(k, l) = A_(pos[k], pos[l]);
      }
      A_.swap(A2);
      b_.swap(b2);
    }
    cache_cols_ = active_;
    lambda_changed_ = false;
  }

  double log_det_lambda() const {
    return opt_.per_sample ? lambda_.array().log().sum() : n_ * std::log(lambda_(0));
  }

  // Sigma_theta = (Alpha + A)^-1: O(d^3) per iteration, plus O(n d^2) when lambda changed.
  void weight_space_posterior(int need) {
    in_sample_space_ = false;
    refresh_cache();
    H_ = A_;
    H_.diagonal() += alpha_;
    robust_cholesky(H_, jitter_events_, llt_);
    const Eigen::LLT<Eigen::MatrixXd>& llt = llt_;
    // Sigma = L^-T L^-1: its diagonal and x_i' Sigma x_i are squared norms of
    // columns of L^-1 and of L^-1 x_i, so the full Sigma is formed only when asked.
    Linv_ = llt.matrixL();
    const Eigen::MatrixXd& Linv = Linv_;
    invert_lower(Linv_);
    mu_ = llt.solve(b_);
    diag_sigma_ = Linv.colwise().squaredNorm().transpose();
    if (need & 6) Sigma_ = gram_matrix(Linv);
    // Shared noise needs no copy of the active columns (A_ comes from X'X).
    if (opt_.per_sample) resid_ = y_ - active_X() * mu_;
    else resid_ = y_ - active_times(mu_);
    const double log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    // y' Sigma_y^-1 y = r' L^-1 r + mu' G mu: no cancellation when lambda is tiny.
    const double fit_term = opt_.per_sample ? (resid_.array().square() / lambda_.array()).sum()
                                            : resid_.squaredNorm() / lambda_(0);
    log_ml_ = log_evidence(log_det_H, alpha_, mu_, log_det_lambda(), fit_term, n_) + student_.log_bound_terms(lambda_);
    if (need & 1) q_row_ = ard_detail::row_norms_of_product(active_X(), Linv);
    if (need & 2) q_col_ = (A_.array() * Sigma_.array()).rowwise().sum().matrix().cwiseProduct(alpha_);
  }

  // The Laplace approximation at the mode of the weights of the active
  // columns, searched from their last mode: Sigma = (X_a' B X_a + A)^-1 with
  // B the IRLS weights, and its log evidence. resid_ = y - X_a mu, so that
  // the fitted values are the linear predictor.
  void laplace_posterior() {
    in_sample_space_ = false;
    if (mode_.size() == 0) mode_ = Eigen::VectorXd::Zero(d_);
    const Eigen::Index S = active_.size();
    Eigen::VectorXd start(S);
    for (Eigen::Index k = 0; k < S; ++k) start(k) = mode_(active_[k]);
    const Eigen::MatrixXd& Xa = active_X();
    laplace_ = laplace_mode(lik_, Xa, y_, alpha_, start, jitter_events_, opt_.case_weights, opt_.offset);
    mode_converged_ = laplace_.converged;
    mu_ = laplace_.post.mu;
    for (Eigen::Index k = 0; k < S; ++k) mode_(active_[k]) = mu_(k);
    Sigma_ = laplace_.post.Sigma;
    diag_sigma_ = Sigma_.diagonal();
    resid_ = y_ - Xa * mu_;
    log_ml_ = laplace_log_evidence(laplace_, alpha_);
  }

  // The Cholesky factor of Sigma_y = L + X_a A^-1 X_a' (n x n) over the active columns.
  Eigen::LLT<Eigen::MatrixXd> sample_covariance_factor() {
    const Eigen::MatrixXd& Xa = active_X();
    const Eigen::VectorXd ginv = alpha_.cwiseInverse();
    Eigen::MatrixXd Sy(n_, n_);
    for_panels(n_, interrupt_panel(Xa.cols(), n_), [&](Eigen::Index j, Eigen::Index nb) {
      Sy.middleCols(j, nb).noalias() = Xa * (ginv.asDiagonal() * Xa.middleRows(j, nb).transpose());
    });
    if (opt_.per_sample) Sy.diagonal() += lambda_;
    else Sy.diagonal().array() += lambda_(0);
    return robust_cholesky(Sy, jitter_events_);
  }

  // Through Sigma_y: O(n^2 d + n^3) per iteration. Returns its factor.
  Eigen::LLT<Eigen::MatrixXd> sample_space_posterior(int need) {
    in_sample_space_ = true;
    const Eigen::MatrixXd& Xa = active_X();
    const Eigen::VectorXd ginv = alpha_.cwiseInverse();
    const auto llt = sample_covariance_factor();
    const Eigen::VectorXd Piy = llt.solve(y_);
    Eigen::MatrixXd PiX(n_, Xa.cols());
    for_panels(Xa.cols(), interrupt_panel(n_, n_),
               [&](Eigen::Index j, Eigen::Index nb) { PiX.middleCols(j, nb) = llt.solve(Xa.middleCols(j, nb)); });
    mu_ = ginv.cwiseProduct(Xa.transpose() * Piy);
    const Eigen::VectorXd qc = (Xa.array() * PiX.array()).colwise().sum().transpose();
    diag_sigma_ = ginv - qc.cwiseProduct(ginv.cwiseAbs2());
    resid_ = y_ - Xa * mu_;
    const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    log_ml_ = -0.5 * (n_ * kLog2Pi + log_det + y_.dot(Piy)) + student_.log_bound_terms(lambda_);
    if (need & 2) q_col_ = qc;
    if (need & 1) {
      // x_i' Sigma x_i = lambda_i - lambda_i^2 [Pi_y]_ii
      // [Pi_y]_ii: the squared column norms of L^-1
      Eigen::MatrixXd Linv = llt.matrixL();
      invert_lower(Linv);
      const Eigen::VectorXd lam = opt_.per_sample ? lambda_ : Eigen::VectorXd::Constant(n_, lambda_(0));
      q_row_ = lam - lam.cwiseAbs2().cwiseProduct(Linv.colwise().squaredNorm().transpose());
    }
    return llt;
  }

  // sum_j (1 - alpha_j Sigma_jj): the effective number of parameters, = sum_i h_i.
  double effective_parameters() const {
    return (1.0 - alpha_.array() * diag_sigma_.array()).sum();
  }

  Eigen::VectorXd alpha_rule() const {
    const Eigen::ArrayXd mu2 = mu_.array().square();
    if (rule_ == Rule::mackay) return ((1.0 - alpha_.array() * diag_sigma_.array()).max(0.0) / mu2).matrix();
    if (rule_ == Rule::irls2) {
      // (theta^2 + 1/alpha - q_j / alpha^2)^-1 with q_j / alpha^2 = 1/alpha - Sigma_jj
      const Eigen::ArrayXd ginv = alpha_.array().inverse();
      const Eigen::ArrayXd qj_over = ginv - diag_sigma_.array();
      return (mu2 + ginv - qj_over).inverse().matrix();
    }
    return (mu2 + diag_sigma_.array()).inverse().matrix();  // em
  }

  Eigen::VectorXd lambda_rule() const {
    const double rss = resid_.squaredNorm();
    if (!opt_.per_sample) {
      const double lam = lambda_(0), gamma = effective_parameters();
      const double N = replicated_rows(opt_, n_);
      if (rule_ == Rule::mackay) return Eigen::VectorXd::Constant(1, rss / std::max(N - gamma, 1e-12));
      // em and irls2 (the latter as (rss + n lambda - lambda^2 tr Pi_y) / n, tr Pi_y = (n - gamma) / lambda)
      return Eigen::VectorXd::Constant(1, (rss + lam * gamma) / N);
    }
    const Eigen::ArrayXd r2 = resid_.array().square();
    if (opt_.studentized) {
      const Eigen::ArrayXd h = (q_row_.array() / lambda_.array()).min(1.0 - 1e-12);
      return (r2 / (1.0 - h).pow(opt_.studentized_power)).matrix();
    }
    if (rule_ == Rule::irls2) {
      // r^2 + lambda - lambda^2 [Pi_y]_ii, [Pi_y]_ii = (1 - h_i) / lambda_i
      const Eigen::ArrayXd pii = (lambda_.array() - q_row_.array()) / lambda_.array().square();
      return (r2 + lambda_.array() - lambda_.array().square() * pii).matrix();
    }
    return (r2 + q_row_.array()).matrix();
  }

  // Adam on log alpha and log lambda for -log p(y | alpha, lambda).
  void adam_step(Eigen::VectorXd& alpha_new, Eigen::VectorXd& l_new, bool update_lambda, int t) {
    // The step decays as 1 / sqrt(1 + t / 100) so that the iterates settle and the
    // relative-change rule can stop the run (a constant step keeps oscillating).
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = opt_.learning_rate / std::sqrt(1.0 + t / 100.0);
    const double c1 = 1.0 - std::pow(b1, t + 1), c2 = 1.0 - std::pow(b2, t + 1);
    if (opt_.fixed_alpha <= 0.0) {
      const Eigen::ArrayXd grad = 0.5 * (alpha_.array() * (mu_.array().square() + diag_sigma_.array()) - 1.0);
      adam_m_alpha_ = b1 * adam_m_alpha_.array() + (1 - b1) * grad;
      adam_v_alpha_ = b2 * adam_v_alpha_.array() + (1 - b2) * grad.square();
      const Eigen::ArrayXd step = lr * (adam_m_alpha_.array() / c1) / ((adam_v_alpha_.array() / c2).sqrt() + eps);
      alpha_new = (alpha_.array().log() - step).exp().matrix();
    }
    if (update_lambda) {
      Eigen::ArrayXd grad;
      if (opt_.per_sample) {
        grad = 0.5 * (1.0 - q_row_.array() / lambda_.array() - resid_.array().square() / lambda_.array());
      } else {
        grad = Eigen::ArrayXd::Constant(1, 0.5 * (replicated_rows(opt_, n_) - effective_parameters() - resid_.squaredNorm() / lambda_(0)));
      }
      adam_m_lambda_ = b1 * adam_m_lambda_.array() + (1 - b1) * grad;
      adam_v_lambda_ = b2 * adam_v_lambda_.array() + (1 - b2) * grad.square();
      const Eigen::ArrayXd step = lr * (adam_m_lambda_.array() / c1) / ((adam_v_lambda_.array() / c2).sqrt() + eps);
      l_new = (lambda_.array().log() - step).exp().matrix();
    }
  }

  // l1-IRLS (Alg. 4): weights from Pi_y, the double-l1 problem by ADMM, map-back rules.
  void irls1_step(Eigen::VectorXd& alpha_new, Eigen::VectorXd& l_new, bool update_lambda) {
    const Eigen::Index S = active_.size();
    const Eigen::MatrixXd& Xa = active_X();
    const Eigen::VectorXd lam = opt_.per_sample ? lambda_ : Eigen::VectorXd::Constant(n_, lambda_(0));
    const Eigen::VectorXd W = lam.cwiseInverse();
    const Eigen::VectorXd w = q_col_.cwiseMax(0.0).cwiseSqrt();
    const Eigen::VectorXd pii = ((lam - q_row_).cwiseMax(0.0).array() / lam.array().square()).matrix();
    const Eigen::VectorXd v = opt_.per_sample ? Eigen::VectorXd(pii.cwiseSqrt()) : Eigen::VectorXd::Zero(n_);
    // ADMM on theta - a = 0, X theta + e - y = 0 (scaled duals u, s), warm-started.
    if (admm_cols_ != active_) {
      Eigen::VectorXd th = Eigen::VectorXd::Zero(S), u = Eigen::VectorXd::Zero(S);
      std::size_t c = 0;
      for (Eigen::Index k = 0; k < S && !admm_cols_.empty(); ++k) {
        while (admm_cols_[c] != active_[k]) ++c;
        th(k) = admm_theta_(c);
        u(k) = admm_u_(c);
      }
      if (admm_cols_.empty()) th = mu_;
      admm_theta_ = th;
      admm_a_ = th;
      admm_u_ = u;
      if (admm_e_.size() != n_) {
        admm_e_ = y_ - Xa * th;
        admm_s_ = Eigen::VectorXd::Zero(n_);
      }
      admm_wide_ = S > n_;
      if (admm_wide_) {
        Eigen::MatrixXd G = Xa * Xa.transpose();
        G.diagonal().array() += 1.0;
        admm_llt_ = robust_cholesky(G, jitter_events_);
      } else {
        Eigen::MatrixXd G = Xa.transpose() * Xa;
        G.diagonal().array() += 1.0;
        admm_llt_ = robust_cholesky(G, jitter_events_);
      }
      admm_cols_ = active_;
    }
    const double rho = 2.0 * W.mean();
    // (I + X'X)^-1 rhs, through the smaller of the two factorisations.
    auto solve = [&](const Eigen::VectorXd& rhs) -> Eigen::VectorXd {
      if (!admm_wide_) return admm_llt_.solve(rhs);
      return rhs - Xa.transpose() * admm_llt_.solve(Xa * rhs);
    };
    const Eigen::VectorXd ka = 2.0 * w / rho;
    for (int k = 0; k < opt_.admm_iterations; ++k) {
      check_interrupt();
      admm_theta_ = solve(admm_a_ - admm_u_ + Xa.transpose() * (y_ - admm_e_ - admm_s_));
      const Eigen::VectorXd Xth = Xa * admm_theta_;
      const Eigen::VectorXd a_old = admm_a_, e_old = admm_e_;
      admm_a_ = ard_detail::soft(admm_theta_ + admm_u_, ka);
      const Eigen::VectorXd c = y_ - Xth - admm_s_;
      admm_e_ = (ard_detail::soft(rho * c, 2.0 * v).array() / (2.0 * W.array() + rho)).matrix();
      admm_u_ += admm_theta_ - admm_a_;
      const Eigen::VectorXd pr2 = Xth + admm_e_ - y_;
      admm_s_ += pr2;
      const double primal = std::sqrt((admm_theta_ - admm_a_).squaredNorm() + pr2.squaredNorm());
      const double dual = rho * std::sqrt((admm_a_ - a_old).squaredNorm() + (admm_e_ - e_old).squaredNorm());
      const double scale = std::max({admm_theta_.norm(), y_.norm(), 1e-12});
      if (primal < opt_.admm_tolerance * scale && dual < opt_.admm_tolerance * scale) break;
    }
    const Eigen::VectorXd& theta = admm_a_;  // exact zeros where the l1 penalty bites
    if (opt_.fixed_alpha <= 0.0) {
      for (Eigen::Index k = 0; k < S; ++k)
        alpha_new(k) = std::abs(theta(k)) > 0.0 ? w(k) / std::abs(theta(k)) : kInf;
    }
    if (update_lambda) {
      const Eigen::VectorXd r = y_ - Xa * theta;
      if (opt_.per_sample) {
        for (Eigen::Index i = 0; i < n_; ++i) l_new(i) = v(i) > 0.0 ? std::abs(r(i)) / v(i) : lambda_(i);
      } else {
        // tr Pi_y over the replicated rows: each extra copy adds 1 / lambda.
        const double trace_pi = pii.sum() + (replicated_rows(opt_, n_) - static_cast<double>(n_)) / lam(0);
        l_new(0) = r.norm() / std::sqrt(std::max(trace_pi, 1e-300));
      }
    }
  }

  // Drops columns whose alpha reached the upper clip, from the current
  // posterior; never the last one.
  static constexpr double kPruneShare = 1e-2;
  bool prune() {
    if (opt_.fixed_alpha > 0.0) return false;
    std::vector<Eigen::Index> keep_cols;
    std::vector<double> keep_alpha;
    for (std::size_t k = 0; k < active_.size(); ++k) {
      // Pruned once alpha reaches the clip (damped updates only approach it)
      // and dropping the column costs next to nothing: the exact change of the
      // log evidence is -(mu_j^2 / Sigma_jj + log(alpha_j Sigma_jj)) / 2.
      // Also pruned below the clip when dropping it raises the evidence (cost
      // < 0, i.e. q_j^2 < s_j: its best alpha given the others is infinite, the
      // fast solver's deletion) and the data determine less than
      // kPruneShare of its weight (1 - alpha_j Sigma_jj, so the gain is below
      // kPruneShare / 2 nats): EM only crawls towards the clip (alpha grows by
      // about s_j - q_j^2 per step) and would otherwise stop with such columns
      // still in. readmit() brings back any that the final model wants.
      const double cost = 0.5 * (mu_(k) * mu_(k) / diag_sigma_(k) + std::log(alpha_(k) * diag_sigma_(k)));
      const bool drop_raises = cost < 0.0 && 1.0 - alpha_(k) * diag_sigma_(k) < kPruneShare;
      if (!drop_raises && (alpha_(k) < 0.99 * opt_.alpha_max || cost > 1e-6)) {
        keep_cols.push_back(active_[k]);
        keep_alpha.push_back(alpha_(k));
      }
    }
    if (keep_cols.size() == active_.size()) return false;
    if (keep_cols.empty()) {  // keep the column with the largest posterior mean
      Eigen::Index k;
      mu_.cwiseAbs().maxCoeff(&k);
      keep_cols.assign(1, active_[k]);
      keep_alpha.assign(1, alpha_(k));
      if (active_.size() == 1) return false;
    }
    // Carry the optimiser states of the kept columns.
    if (rule_ == Rule::gradient) {
      Eigen::VectorXd m(keep_cols.size()), v(keep_cols.size());
      std::size_t c = 0;
      for (std::size_t k = 0; k < keep_cols.size(); ++k) {
        while (active_[c] != keep_cols[k]) ++c;
        m(k) = adam_m_alpha_(c);
        v(k) = adam_v_alpha_(c);
      }
      adam_m_alpha_ = m;
      adam_v_alpha_ = v;
    }
    active_ = keep_cols;
    alpha_ = Eigen::Map<const Eigen::VectorXd>(keep_alpha.data(), keep_alpha.size());
    return true;
  }

  // Pruned columns whose single-column evidence gain at the current (alpha,
  // lambda) exceeds kReadmitGain re-enter at their best alpha given the others,
  // s_j^2 / (q_j^2 - s_j), with s_j = x_j' Sigma_y^-1 x_j and q_j = x_j' Sigma_y^-1 y
  // (the fast solver's addition, all at once: one per round of convergence
  // took ten times the iterations for the same end point on n = 2000,
  // d = 256). A column re-enters at most kMaxReadmissions times, so add/prune
  // cycles end. Not for irls1 (its ADMM state follows the
  // active set only downwards) or fixed alpha. Returns whether any came back.
  static constexpr double kReadmitGain = 1e-4;
  static constexpr int kMaxReadmissions = 3;
  std::vector<int> readmissions_;
  bool readmit() {
    if (opt_.fixed_alpha > 0.0 || rule_ == Rule::irls1) return false;
    if (static_cast<Eigen::Index>(active_.size()) == d_) return false;
    if (readmissions_.empty()) readmissions_.assign(d_, 0);
    std::vector<char> in(d_, 0);
    for (Eigen::Index j : active_) in[j] = 1;
    std::vector<Eigen::Index> P;
    for (Eigen::Index j = 0; j < d_; ++j)
      if (!in[j] && readmissions_[j] < kMaxReadmissions && x_scale_(j) > 0.0) P.push_back(j);
    if (P.empty()) return false;
    const Eigen::Index S = active_.size(), nP = P.size();
    Eigen::VectorXd s, q;
    if (!opt_.per_sample && XtX_.size() > 0 && S <= n_) {  // shared noise, X'X cached: its blocks, O(S^2 (S + P))
      const double w = 1.0 / lambda_(0);
      Eigen::MatrixXd H(S, S), C(S, nP);
      Eigen::VectorXd b(S);
      for (Eigen::Index k = 0; k < S; ++k) {
        b(k) = Xty_(active_[k]) * w;
        for (Eigen::Index l = 0; l < S; ++l) H(k, l) = XtX_(active_[k], active_[l]) * w;
      }
      for (Eigen::Index m = 0; m < nP; ++m)
        for (Eigen::Index k = 0; k < S; ++k) C(k, m) = XtX_(active_[k], P[m]) * w;
      H.diagonal() += alpha_;
      const auto llt = robust_cholesky(H, jitter_events_);
      const Eigen::VectorXd mu = llt.solve(b);
      const Eigen::MatrixXd V = llt.solve(C);
      s.resize(nP);
      q.resize(nP);
      for (Eigen::Index m = 0; m < nP; ++m) {
        s(m) = XtX_(P[m], P[m]) * w - C.col(m).dot(V.col(m));
        q(m) = Xty_(P[m]) * w - C.col(m).dot(mu);
      }
      return readmit_from(P, s, q);
    }
    Eigen::MatrixXd XP(n_, nP);
    for (Eigen::Index k = 0; k < nP; ++k) XP.col(k) = xcol(P[k]);
    const Eigen::MatrixXd& Xa = active_X();
    if (!lik_.gaussian()) {
      // At the mode, with B the IRLS weights: s_j = x_j' B x_j - x_j' B X_a Sigma X_a' B x_j and
      // q_j = x_j' score (the Woodbury form below on the working targets, with Sigma at hand).
      const Eigen::MatrixXd C = (laplace_.irls_weights.asDiagonal() * Xa).transpose() * XP;  // S x P
      s = XP.cwiseAbs2().transpose() * laplace_.irls_weights -
          (C.array() * (Sigma_ * C).array()).colwise().sum().transpose().matrix();
      q = XP.transpose() * laplace_.score;
    } else if (S <= n_) {  // Woodbury in the weight space: O(n S (S + P))
      const Eigen::VectorXd w = inv_lambda_vec();
      const Eigen::MatrixXd WXa = w.asDiagonal() * Xa;
      Eigen::MatrixXd H = Xa.transpose() * WXa;
      H.diagonal() += alpha_;
      const auto llt = robust_cholesky(H, jitter_events_);
      const Eigen::VectorXd mu = llt.solve(WXa.transpose() * y_);
      const Eigen::MatrixXd C = WXa.transpose() * XP;  // S x P
      const Eigen::MatrixXd V = llt.solve(C);
      s = XP.cwiseAbs2().transpose() * w - (C.array() * V.array()).colwise().sum().transpose().matrix();
      q = XP.transpose() * w.cwiseProduct(y_) - C.transpose() * mu;
    } else {  // the sample space: O(n^2 (S + P) + n^3)
      const auto llt = sample_covariance_factor();
      const Eigen::MatrixXd Z = llt.solve(XP);
      s = (XP.array() * Z.array()).colwise().sum().transpose();
      q = Z.transpose() * y_;
    }
    return readmit_from(P, s, q);
  }

  // Readmits the pruned columns P whose gain from s and q passes the test above.
  bool readmit_from(const std::vector<Eigen::Index>& P, const Eigen::VectorXd& s, const Eigen::VectorXd& q) {
    std::vector<Eigen::Index> cols = active_;
    std::vector<double> alphas(alpha_.data(), alpha_.data() + alpha_.size());
    bool any = false;
    for (std::size_t k = 0; k < P.size(); ++k) {
      const double sk = s(k), q2 = q(k) * q(k), theta = q2 - sk;
      if (!(sk > 0.0) || !(theta > 0.0)) continue;
      if (0.5 * (theta / sk + std::log(sk / q2)) <= kReadmitGain) continue;
      const auto pos = std::lower_bound(cols.begin(), cols.end(), P[k]);
      alphas.insert(alphas.begin() + (pos - cols.begin()), std::clamp(sk * sk / theta, opt_.alpha_min, opt_.alpha_max));
      cols.insert(pos, P[k]);
      ++readmissions_[P[k]];
      any = true;
    }
    if (!any) return false;
    if (rule_ == Rule::gradient) {  // fresh Adam moments for the new columns
      Eigen::VectorXd m = Eigen::VectorXd::Zero(cols.size()), v = Eigen::VectorXd::Zero(cols.size());
      std::size_t c = 0;
      for (std::size_t k = 0; k < cols.size() && c < active_.size(); ++k) {
        if (cols[k] != active_[c]) continue;
        m(k) = adam_m_alpha_(c);
        v(k) = adam_v_alpha_(c);
        ++c;
      }
      adam_m_alpha_ = m;
      adam_v_alpha_ = v;
    }
    active_ = cols;
    alpha_ = Eigen::Map<const Eigen::VectorXd>(alphas.data(), alphas.size());
    lambda_changed_ = true;  // the weighted caches hold a sub-block only while columns leave
    return true;
  }

  Eigen::VectorXd full_alpha() const {
    Eigen::VectorXd out = Eigen::VectorXd::Constant(d_, kInf);
    for (std::size_t k = 0; k < active_.size(); ++k) out(active_[k]) = alpha_(k);
    return out;
  }

  // Exact posterior of the final (alpha, lambda), in the weight space when it is
  // small enough, else from Sigma = G^-1 - G^-1 X' Pi_y X G^-1.
  void final_posterior(FitResult& res) {
    const Eigen::Index S = active_.size();
    if (!lik_.gaussian()) {
      laplace_posterior();
      res.Sigma = Sigma_;
    } else if (S <= n_ || S <= 2000) {
      const std::string objective = opt_.objective;
      opt_.objective = "dual";
      lambda_changed_ = true;
      weight_space_posterior(4);
      opt_.objective = objective;
      res.Sigma = Sigma_;
    } else {
      if (static_cast<double>(S) * S * 8.0 > 4.0 * 1073741824.0)
        throw std::runtime_error(std::to_string(S) + " weights are still active after " + std::to_string(res.trace.size()) +
                                 " iterations: their posterior covariance would need " +
                                 std::to_string(static_cast<long long>(static_cast<double>(S) * S * 8.0 / 1073741824.0)) +
                                 " GB. Use method \"mackay\" or \"fast\", which prune faster, or more iterations.");
      const auto llt = sample_space_posterior(0);  // one factorisation serves mu and Sigma
      const Eigen::MatrixXd& Xa = active_X();
      const Eigen::MatrixXd GX = alpha_.cwiseInverse().asDiagonal() * Xa.transpose();
      res.Sigma = -GX * llt.solve(GX.transpose());
      res.Sigma.diagonal() += alpha_.cwiseInverse();
    }
    res.relevant = active_;
    res.mu = mu_;
    res.alpha = full_alpha();
    if (lik_.gaussian()) res.lambda = lambda_;
    res.log_ml = log_ml_;
    res.log_posterior = log_ml_;  // no prior on the precisions in the batch solvers
    res.fitted = y_ - resid_;
  }

  // From unit mean-square columns to unit-norm ones: w sqrt(N), alpha / N (N rows, or replicated ones).
  void to_unit_norm(FitResult& r) const {
    const double nn = replicated_rows(opt_, n_);
    r.mu *= std::sqrt(nn);
    r.Sigma *= nn;
    r.alpha /= nn;
    r.path_alpha /= nn;
  }
};

// Per-sample noise is fitted from two starts when the basis is narrow
// enough for a high-breakdown one: the plain start and the LTS start
// (robust_start.hpp), whose noise variances start at max(r_i^2, s^2) for LTS
// residuals r and robust scale s. Both optima and their log evidences
// (bounds) are reported; "best" returns the higher, "robust" the one reached
// from the LTS start (the MM-estimator's choice: a local optimum next to a
// high-breakdown start, which a cluster of bad leverage points cannot
// capture, even where it has the lower evidence). When the plain fit
// already agrees with the LTS fit within 2.5 s on every row, both starts
// lie in one basin and the second fit is not run (its evidence is NaN); the
// test uses the reweighted LTS fit and its scale (robust_start.hpp), as
// efficient as least squares on clean data. The optimum not returned is
// kept in `other`, so that R can say how the two explain the data.
inline FitResult fit_joint_ard(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale,
                               const Eigen::VectorXd& y, const Likelihood& lik, const SolverOptions& opt,
                               const Progress& progress) {
  if (opt.start != "plain" && opt.start != "best" && opt.start != "robust")
    throw std::invalid_argument("unknown start '" + opt.start + "'");
  FitResult plain = JointArd(Phi, inv_scale, y, lik, opt).run(progress);
  // The paper's schedule stops early by design: an estimator of its own, from its own start.
  if (opt.start == "plain" || !opt.per_sample || opt.noise_variance > 0.0 || opt.schedule == "paper") return plain;
  const Eigen::MatrixXd X = robust_start_design(Phi, inv_scale);  // built once for both residuals
  if (X.size() == 0) return plain;  // too wide a basis for a high-breakdown start
  const Eigen::VectorXd r = lts_residuals(X, y, opt.start_subsets);
  if (r.size() == 0) return plain;
  const double s2 = robust_start_variance(r, y);
  const Eigen::VectorXd rw = reweighted_residuals(X, y, r);
  if ((y - plain.fitted - rw).cwiseAbs().maxCoeff() <= 2.5 * std::sqrt(robust_start_variance(rw, y))) {
    plain.start_log_ml = Eigen::Vector2d(plain.log_ml, std::nan(""));  // not run
    return plain;
  }
  SolverOptions robust_opt = opt;
  robust_opt.init_noise = r.cwiseAbs2().cwiseMax(s2);
  FitResult robust = JointArd(Phi, inv_scale, y, lik, robust_opt).run(progress);
  const bool keep_robust = opt.start == "robust" || robust.log_ml > plain.log_ml;
  FitResult& kept = keep_robust ? robust : plain;
  FitResult& other = keep_robust ? plain : robust;
  kept.start_log_ml = Eigen::Vector2d(plain.log_ml, robust.log_ml);
  kept.start_chosen = keep_robust ? 1 : 0;
  other.trace.clear();  // R reads its weights, noise and fitted values only
  other.path_iteration.clear();
  other.path_alpha.resize(0, 0);
  other.path_lambda.resize(0, 0);
  kept.other = std::make_shared<FitResult>(std::move(other));
  return std::move(kept);
}

}  // namespace sparsebayes
