// The posterior policy of the batch ARD solver (joint_ard.hpp): the weight
// posterior over the active columns given (alpha, lambda), in the weight
// space (S x S, Sigma = (A + X_a' L^-1 X_a)^-1) or the sample space (n x n,
// Sigma_y = L + X_a A^-1 X_a'), whichever is smaller, or by the Laplace
// approximation at the posterior mode for a non-Gaussian likelihood (IRLS
// weights in the place of 1 / lambda; Tipping 2001). It owns the caches and
// buffers that make an iteration cheap, and the statistics that readmission
// and the final result need. Works on the columns scaled to unit mean square
// (ScaledColumns).
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "data.hpp"

namespace sparsebayes {

namespace ard_detail {

// Squared norms of the rows of A B' (A: n x S, B: S x S), by row panels with
// an interrupt check between them: x_i' Sigma x_i for B = L^-1.
inline Eigen::VectorXd row_norms_of_product(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::VectorXd out(A.rows());
  for_panels(A.rows(), interrupt_panel(B.rows(), B.cols()), [&](Eigen::Index i, Eigen::Index nb) {
    out.segment(i, nb) = (A.middleRows(i, nb) * B.transpose()).rowwise().squaredNorm();
  });
  return out;
}

}  // namespace ard_detail

// The columns scaled to unit mean square, x_j = Phi_j x_scale_j, applied on
// the fly: a copy of an n x d design costs more than the whole shared-noise
// fit at n = 20000, d = 500. Only the active columns are copied, once per
// change of the active set. Phi diag(inv_scale) has unit-norm columns (see
// fit.hpp); from a source not in memory the columns' norms are its sums',
// and only the scales are read.
class ScaledColumns {
 public:
  using Columns = std::vector<Eigen::Index>;

  ScaledColumns(const Data& data, const Eigen::VectorXd& inv_scale, double root_n)
      : data_(data), scale_(Eigen::VectorXd::Zero(data.cols())) {
    for (Eigen::Index j = 0; j < scale_.size(); ++j) {
      if ((data.in_memory() ? data.basis().col(j).squaredNorm() : data.sums().gram(j, j)) > 0.0) {
        scale_(j) = inv_scale(j) * root_n;
        nonzero_.push_back(j);
      }  // else a zero column (scale 0) can never explain anything: pruned from the start
    }
  }

  // Column j with unit mean square.
  auto col(Eigen::Index j) const { return data_.basis().col(j) * scale_(j); }
  const Eigen::VectorXd& scale() const { return scale_; }
  const Eigen::Ref<const Eigen::MatrixXd>& given() const { return data_.basis(); }
  const Columns& nonzero() const { return nonzero_; }
  bool usable(Eigen::Index j) const { return scale_(j) > 0.0; }

  // The active columns, copied once per change of the active set.
  const Eigen::MatrixXd& active(const Columns& cols) {
    if (active_cols_ != cols) {
      Xa_.resize(data_.rows(), cols.size());
      for_panels(Xa_.cols(), 256, [&](Eigen::Index j, Eigen::Index nb) {
        for (Eigen::Index k = j; k < j + nb; ++k) Xa_.col(k) = col(cols[k]);
      });
      active_cols_ = cols;
    }
    return Xa_;
  }

  // X_a v read from the active columns in place, four per pass over the result.
  const Eigen::VectorXd& times(const Columns& cols, const Eigen::VectorXd& v) {
    const Eigen::Ref<const Eigen::MatrixXd>& Phi = data_.basis();
    Eigen::VectorXd& out = xv_;
    out.setZero(Phi.rows());
    const std::size_t S = cols.size();
    std::size_t k = 0;
    for (; k + 4 <= S; k += 4)
      out += (v(k) * scale_(cols[k])) * Phi.col(cols[k]) + (v(k + 1) * scale_(cols[k + 1])) * Phi.col(cols[k + 1]) +
             (v(k + 2) * scale_(cols[k + 2])) * Phi.col(cols[k + 2]) +
             (v(k + 3) * scale_(cols[k + 3])) * Phi.col(cols[k + 3]);
    for (; k < S; ++k) out += (v(k) * scale_(cols[k])) * Phi.col(cols[k]);
    return out;
  }

 private:
  const Data& data_;  // the caller's: it outlives the solver (see fit.hpp)
  Eigen::VectorXd scale_;                  // 0 for a zero column
  Columns nonzero_;
  Eigen::MatrixXd Xa_;
  Columns active_cols_;
  Eigen::VectorXd xv_;
};

class ArdPosterior {
 public:
  using Columns = ScaledColumns::Columns;
  // The extra statistics an update can ask for (bits of `need`).
  static constexpr int kRowStats = 1;  // q_row: x_i' Sigma x_i
  static constexpr int kColStats = 2;  // q_col: x_j' Pi_y x_j (and the full Sigma)
  static constexpr int kSigma = 4;     // the full Sigma (weight space)

  // Phi diag(inv_scale) has unit-norm columns (see fit.hpp); the data and the problem outlive the posterior.
  // From sums (shared noise) there are no rows; read by passes (per-sample
  // noise), the targets are held and the rows are read at noise steps.
  ArdPosterior(Data& data, const Eigen::VectorXd& inv_scale, const Likelihood& lik, const ProblemSpec& problem)
      : problem_(problem), lik_(lik), data_(data), in_memory_(data.in_memory()), passes_(!in_memory_ && data.reads_passes()),
        n_(data.rows()), d_(data.cols()), y_(data.has_targets() ? data.targets() : Eigen::VectorXd()),
        // Unit-norm columns times sqrt(N): unit mean square (over the replicated rows
        // when prior weights count copies), the units of alpha_min, alpha_max and init_alpha.
        X_(data, inv_scale, std::sqrt(replicated_rows(problem, n_))) {}

  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return d_; }
  const Eigen::VectorXd& y() const { return y_; }
  // Whether the rows are in memory, so that the residuals follow every update.
  bool has_rows() const { return in_memory_; }
  const Columns& nonzero_columns() const { return X_.nonzero(); }
  bool usable(Eigen::Index j) const { return X_.usable(j); }

  // Results of the last update.
  double log_ml() const { return log_ml_; }  // without the Student-t noise's bound terms
  const Eigen::VectorXd& mu() const { return mu_; }
  const Eigen::VectorXd& diag_sigma() const { return diag_sigma_; }
  const Eigen::VectorXd& resid() const { return resid_; }  // y - X_a mu (the linear predictor's residual; none from stats)
  double rss() const { return in_memory_ ? resid_.squaredNorm() : rss_; }
  // The residuals' variance that the noise bounds follow: their squared MAD, or
  // from the statistics alone their mean square.
  double residual_variance() const { return !in_memory_ && !passes_ ? rss_ / n_ : robust_residual_variance(resid_); }
  const Eigen::VectorXd& q_row() const { return q_row_; }
  const Eigen::VectorXd& q_col() const { return q_col_; }
  int& jitter_events() { return jitter_events_; }
  bool mode_converged() const { return mode_converged_; }

  // Columns came back: the weighted caches must be rebuilt.
  void invalidate() { lambda_changed_ = true; }
  // The noise changed: so do the weighted caches and, read by passes, the rows' statistics.
  void noise_changed() {
    lambda_changed_ = true;
    weights_stale_ = true;
  }

  void update(const Columns& active, const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda, int need) {
    if (!lik_.gaussian()) laplace(active, alpha);
    else if (use_sample_space(active)) sample_space(active, alpha, lambda, need);
    else weight_space(active, alpha, lambda, need);
  }

  const Eigen::MatrixXd& active_X(const Columns& active) { return X_.active(active); }

  // s_j = x_j' Sigma_y^-1 x_j and q_j = x_j' Sigma_y^-1 y of the columns P
  // outside the model, given the active ones (the fast solver's statistics).
  void candidate_scores(const Columns& P, const Columns& active, const Eigen::VectorXd& alpha,
                        const Eigen::VectorXd& lambda, Eigen::VectorXd& s, Eigen::VectorXd& q) {
    const Eigen::Index S = active.size(), nP = P.size();
    // Shared noise, X'X cached, or the weighted X' L^-1 X of all columns from passes: its blocks, O(S^2 (S + P)).
    if ((!problem_.per_sample || passes_) && XtX_.size() > 0 && S <= n_) {
      const double w = passes_ ? 1.0 : 1.0 / lambda(0);
      Eigen::MatrixXd H(S, S), C(S, nP);
      Eigen::VectorXd b(S);
      for (Eigen::Index k = 0; k < S; ++k) {
        b(k) = Xty_(active[k]) * w;
        for (Eigen::Index l = 0; l < S; ++l) H(k, l) = XtX_(active[k], active[l]) * w;
      }
      for (Eigen::Index m = 0; m < nP; ++m)
        for (Eigen::Index k = 0; k < S; ++k) C(k, m) = XtX_(active[k], P[m]) * w;
      H.diagonal() += alpha;
      const auto llt = robust_cholesky(H, jitter_events_);
      const Eigen::VectorXd mu = llt.solve(b);
      const Eigen::MatrixXd V = llt.solve(C);
      s.resize(nP);
      q.resize(nP);
      for (Eigen::Index m = 0; m < nP; ++m) {
        s(m) = XtX_(P[m], P[m]) * w - C.col(m).dot(V.col(m));
        q(m) = Xty_(P[m]) * w - C.col(m).dot(mu);
      }
      return;
    }
    Eigen::MatrixXd XP(n_, nP);
    for (Eigen::Index k = 0; k < nP; ++k) XP.col(k) = X_.col(P[k]);
    const Eigen::MatrixXd& Xa = active_X(active);
    if (!lik_.gaussian()) {
      // At the mode, with B the IRLS weights: s_j = x_j' B x_j - x_j' B X_a Sigma X_a' B x_j and
      // q_j = x_j' score (the Woodbury form below on the working targets, with Sigma at hand).
      const Eigen::MatrixXd C = (laplace_.irls_weights.asDiagonal() * Xa).transpose() * XP;  // S x P
      s = XP.cwiseAbs2().transpose() * laplace_.irls_weights -
          (C.array() * (Sigma_ * C).array()).colwise().sum().transpose().matrix();
      q = XP.transpose() * laplace_.score;
    } else if (S <= n_) {  // Woodbury in the weight space: O(n S (S + P))
      const Eigen::VectorXd w = inverse(lambda);
      const Eigen::MatrixXd WXa = w.asDiagonal() * Xa;
      Eigen::MatrixXd H = Xa.transpose() * WXa;
      H.diagonal() += alpha;
      const auto llt = robust_cholesky(H, jitter_events_);
      const Eigen::VectorXd mu = llt.solve(WXa.transpose() * y_);
      const Eigen::MatrixXd C = WXa.transpose() * XP;  // S x P
      const Eigen::MatrixXd V = llt.solve(C);
      s = XP.cwiseAbs2().transpose() * w - (C.array() * V.array()).colwise().sum().transpose().matrix();
      q = XP.transpose() * w.cwiseProduct(y_) - C.transpose() * mu;
    } else {  // the sample space: O(n^2 (S + P) + n^3)
      const auto llt = sample_covariance_factor(active, alpha, lambda);
      const Eigen::MatrixXd Z = llt.solve(XP);
      s = (XP.array() * Z.array()).colwise().sum().transpose();
      q = Z.transpose() * y_;
    }
  }

  // The exact posterior of the final (alpha, lambda) and its covariance: in
  // the weight space when it is small enough, else from
  // Sigma = G^-1 - G^-1 X' Pi_y X G^-1. `iterations` is for the message.
  Eigen::MatrixXd final_covariance(const Columns& active, const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda,
                                   std::size_t iterations) {
    const Eigen::Index S = active.size();
    if (!lik_.gaussian()) {
      laplace(active, alpha);
      return Sigma_;
    }
    if (S <= n_ || S <= 2000) {
      lambda_changed_ = true;
      weight_space(active, alpha, lambda, kSigma);
      return Sigma_;
    }
    if (static_cast<double>(S) * S * 8.0 > 4.0 * 1073741824.0)
      throw std::runtime_error(std::to_string(S) + " weights are still active after " + std::to_string(iterations) +
                               " iterations: their posterior covariance would need " +
                               std::to_string(static_cast<long long>(static_cast<double>(S) * S * 8.0 / 1073741824.0)) +
                               " GB. Use method \"mackay\" or \"fast\", which prune faster, or more iterations.");
    const auto llt = sample_space(active, alpha, lambda, 0);  // one factorisation serves mu and Sigma
    const Eigen::MatrixXd GX = alpha.cwiseInverse().asDiagonal() * active_X(active).transpose();
    Eigen::MatrixXd Sigma = -GX * llt.solve(GX.transpose());
    Sigma.diagonal() += alpha.cwiseInverse();
    return Sigma;
  }

 private:
  const ProblemSpec& problem_;
  Likelihood lik_;
  Data& data_;
  const bool in_memory_, passes_;  // the rows in memory; else read by passes at noise steps, or only their sums
  Eigen::Index n_, d_;
  Eigen::VectorXd y_;
  ScaledColumns X_;
  int jitter_events_ = 0;

  // Caches of the weight-space form: A = X_a' L^-1 X_a and b = X_a' L^-1 y.
  Eigen::MatrixXd A_;
  Eigen::VectorXd b_;
  bool lambda_changed_ = true;
  Columns cache_cols_;
  Eigen::MatrixXd XtX_;  // shared noise: X'X of all columns, once; from passes: X' L^-1 X at the current noise
  Eigen::VectorXd Xty_;
  double tWt_ = 0.0;           // from passes: y' L^-1 y
  bool weights_stale_ = true;  // from passes: the noise changed since they were read

  // Posterior quantities of the current iterate.
  double log_ml_ = 0.0, rss_ = 0.0;  // rss_: from the statistics only
  Eigen::VectorXd mu_, diag_sigma_, resid_;
  Eigen::VectorXd q_row_;  // x_i' Sigma x_i, when asked for
  Eigen::VectorXd q_col_;  // x_j' Pi_y x_j, when asked for
  Eigen::MatrixXd Sigma_;  // weight space and Laplace only
  // Buffers of the weight-space posterior, kept across iterations: freeing and
  // allocating S x S blocks each iteration cost more (in page faults) than the
  // factorisation itself at S = 500.
  Eigen::MatrixXd H_, Linv_;
  Eigen::LLT<Eigen::MatrixXd> llt_;

  // The Laplace approximation (non-Gaussian likelihoods): the mode of every
  // column (0 for those never active; the warm start of the next search),
  // and the IRLS weights and scores at the mode, for readmission.
  Eigen::VectorXd mode_;
  LaplacePosterior laplace_;
  bool mode_converged_ = true;

  bool use_sample_space(const Columns& active) const {
    if (!in_memory_) return false;
    if (problem_.gradient_form == "primal") return true;
    if (problem_.gradient_form == "dual") return false;
    return static_cast<Eigen::Index>(active.size()) > n_;
  }

  Eigen::VectorXd inverse(const Eigen::VectorXd& lambda) const {
    return problem_.per_sample ? Eigen::VectorXd(lambda.cwiseInverse()) : Eigen::VectorXd::Constant(n_, 1.0 / lambda(0));
  }

  double log_det(const Eigen::VectorXd& lambda) const {
    return problem_.per_sample ? lambda.array().log().sum() : n_ * std::log(lambda(0));
  }

  void refresh_cache(const Columns& active, const Eigen::VectorXd& lambda) {
    const Eigen::Index S = active.size();
    // Shared noise: A_ and b_ change only with the active set and the noise,
    // which EM holds fixed between noise updates (most iterations).
    if (!problem_.per_sample && !lambda_changed_ && cache_cols_ == active) return;
    // X'X of all d columns is cached only when it is small next to the data (d x d
    // may not fit when d > n): otherwise the products are formed over the active columns.
    if (!problem_.per_sample && in_memory_ && d_ > std::max<Eigen::Index>(n_, 4096)) {
      const Eigen::MatrixXd& Xa = active_X(active);
      A_.noalias() = Xa.transpose() * Xa / lambda(0);
      b_.noalias() = Xa.transpose() * y_ / lambda(0);
    } else if (!problem_.per_sample || passes_) {
      // X'X and X'y of all columns, scaled in place by the column scales. Shared
      // noise: Phi'Phi and Phi'y once, the statistics given or those of the rows
      // (statistics.hpp; the O(n d^2) cost of a shared-noise fit). Per-sample
      // noise with rows read by passes: X' L^-1 X and X' L^-1 y, read once per
      // noise step. The active block, over the shared noise.
      if (passes_ && weights_stale_) {
        GaussianStatistics s = data_.weighted(lambda.cwiseInverse());
        if (s.gram.rows() != d_ || s.gram.cols() != d_ || s.cross.size() != d_)
          throw std::invalid_argument("a pass over the rows gave statistics of the wrong size");
        if (!s.gram.allFinite() || !s.cross.allFinite() || !std::isfinite(s.tt))
          throw std::invalid_argument("the weighted statistics contain NA, NaN or infinite values");
        scale_sums(std::move(s.gram), s.cross);
        tWt_ = s.tt;
        weights_stale_ = false;
      } else if (!passes_ && XtX_.size() == 0) {
        GaussianStatistics own;
        if (in_memory_) own.add_rows(X_.given(), y_);
        scale_sums(in_memory_ ? std::move(own.gram) : data_.sums().gram, in_memory_ ? own.cross : data_.sums().cross);
      }
      const double noise = passes_ ? 1.0 : lambda(0);  // the weights are in the passes' sums
      A_.resize(S, S);
      b_.resize(S);
      for (Eigen::Index k = 0; k < S; ++k) {
        b_(k) = Xty_(active[k]) / noise;
        for (Eigen::Index l = 0; l < S; ++l) A_(k, l) = XtX_(active[k], active[l]) / noise;
      }
    } else if (lambda_changed_ || cache_cols_.empty()) {
      const Eigen::VectorXd w = lambda.cwiseInverse().cwiseSqrt();
      const Eigen::MatrixXd Xw = w.asDiagonal() * active_X(active);
      A_ = gram_matrix(Xw);
      b_.noalias() = Xw.transpose() * (w.cwiseProduct(y_));
    } else if (cache_cols_ != active) {  // columns were pruned: keep the sub-block
      std::vector<Eigen::Index> pos;
      std::size_t c = 0;
      for (Eigen::Index j : active) {
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
    cache_cols_ = active;
    lambda_changed_ = false;
  }

  // XtX_ and Xty_ from sums over the columns as given: times the column scales.
  void scale_sums(Eigen::MatrixXd gram, const Eigen::VectorXd& cross) {
    Xty_ = cross.cwiseProduct(X_.scale());
    XtX_ = std::move(gram);
    XtX_.array().colwise() *= X_.scale().array();
    XtX_.array().rowwise() *= X_.scale().transpose().array();
  }

  // Sigma_theta = (Alpha + A)^-1: O(d^3) per iteration, plus O(n d^2) when lambda changed.
  void weight_space(const Columns& active, const Eigen::VectorXd& alpha, const Eigen::VectorXd& lambda, int need) {
    refresh_cache(active, lambda);
    H_ = A_;
    H_.diagonal() += alpha;
    robust_cholesky(H_, jitter_events_, llt_);
    const Eigen::LLT<Eigen::MatrixXd>& llt = llt_;
    // Sigma = L^-T L^-1: its diagonal and x_i' Sigma x_i are squared norms of
    // columns of L^-1 and of L^-1 x_i, so the full Sigma is formed only when asked.
    Linv_ = llt.matrixL();
    const Eigen::MatrixXd& Linv = Linv_;
    invert_lower(Linv_);
    mu_ = llt.solve(b_);
    diag_sigma_ = Linv.colwise().squaredNorm().transpose();
    if (need & (kColStats | kSigma)) Sigma_ = gram_matrix(Linv);
    // Shared noise needs no copy of the active columns (A_ comes from X'X).
    if (passes_) {  // the rows' residuals when a pass reads them (kRowStats)
    } else if (problem_.per_sample) resid_ = y_ - active_X(active) * mu_;
    else if (!in_memory_) rss_ = std::max(data_.sums().tt - lambda(0) * mu_.dot(2.0 * b_ - A_ * mu_), 0.0);  // its terms cancel near interpolation
    else resid_ = y_ - X_.times(active, mu_);
    const double log_det_H = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    // y' Sigma_y^-1 y = r' L^-1 r + mu' G mu: no cancellation when lambda is tiny.
    const double fit_term = passes_ ? std::max(tWt_ - mu_.dot(2.0 * b_ - A_ * mu_), 0.0)
                            : problem_.per_sample ? (resid_.array().square() / lambda.array()).sum()
                                                  : rss() / lambda(0);
    log_ml_ = log_evidence(log_det_H, alpha, mu_, log_det(lambda), fit_term, n_);
    if ((need & kRowStats) && passes_) {
      // x_i = phi_i x_scale: the coefficients and Sigma's factor of the columns as given.
      const Eigen::Index S = active.size();
      Eigen::VectorXd xs(S);
      for (Eigen::Index k = 0; k < S; ++k) xs(k) = X_.scale()(active[k]);
      const Eigen::VectorXd coef = mu_.cwiseProduct(xs);
      const Eigen::MatrixXd R = Linv * xs.asDiagonal();
      data_.residual_rows(active, coef, R, resid_, q_row_);
      if (resid_.size() != n_ || q_row_.size() != n_)
        throw std::invalid_argument("a pass over the rows gave the wrong number of rows");
    } else if (need & kRowStats) {
      q_row_ = ard_detail::row_norms_of_product(active_X(active), Linv);
    }
    if (need & kColStats) q_col_ = (A_.array() * Sigma_.array()).rowwise().sum().matrix().cwiseProduct(alpha);
  }

  // The Laplace approximation at the mode of the weights of the active
  // columns, searched from their last mode: Sigma = (X_a' B X_a + A)^-1 with
  // B the IRLS weights, and its log evidence. resid_ = y - X_a mu, so that
  // the fitted values are the linear predictor.
  void laplace(const Columns& active, const Eigen::VectorXd& alpha) {
    if (mode_.size() == 0) mode_ = Eigen::VectorXd::Zero(d_);
    const Eigen::Index S = active.size();
    Eigen::VectorXd start(S);
    for (Eigen::Index k = 0; k < S; ++k) start(k) = mode_(active[k]);
    const Eigen::MatrixXd& Xa = active_X(active);
    laplace_ = laplace_mode(lik_, Xa, y_, alpha, start, jitter_events_, problem_.case_weights, problem_.offset);
    mode_converged_ = laplace_.converged;
    mu_ = laplace_.post.mu;
    for (Eigen::Index k = 0; k < S; ++k) mode_(active[k]) = mu_(k);
    Sigma_ = laplace_.post.Sigma;
    diag_sigma_ = Sigma_.diagonal();
    resid_ = y_ - Xa * mu_;
    log_ml_ = laplace_log_evidence(laplace_, alpha);
  }

  // The Cholesky factor of Sigma_y = L + X_a A^-1 X_a' (n x n) over the active columns.
  Eigen::LLT<Eigen::MatrixXd> sample_covariance_factor(const Columns& active, const Eigen::VectorXd& alpha,
                                                       const Eigen::VectorXd& lambda) {
    const Eigen::MatrixXd& Xa = active_X(active);
    const Eigen::VectorXd ginv = alpha.cwiseInverse();
    Eigen::MatrixXd Sy(n_, n_);
    for_panels(n_, interrupt_panel(Xa.cols(), n_), [&](Eigen::Index j, Eigen::Index nb) {
      Sy.middleCols(j, nb).noalias() = Xa * (ginv.asDiagonal() * Xa.middleRows(j, nb).transpose());
    });
    if (problem_.per_sample) Sy.diagonal() += lambda;
    else Sy.diagonal().array() += lambda(0);
    return robust_cholesky(Sy, jitter_events_);
  }

  // Through Sigma_y: O(n^2 d + n^3) per iteration. Returns its factor.
  Eigen::LLT<Eigen::MatrixXd> sample_space(const Columns& active, const Eigen::VectorXd& alpha,
                                           const Eigen::VectorXd& lambda, int need) {
    const Eigen::MatrixXd& Xa = active_X(active);
    const Eigen::VectorXd ginv = alpha.cwiseInverse();
    const auto llt = sample_covariance_factor(active, alpha, lambda);
    const Eigen::VectorXd Piy = llt.solve(y_);
    Eigen::MatrixXd PiX(n_, Xa.cols());
    for_panels(Xa.cols(), interrupt_panel(n_, n_),
               [&](Eigen::Index j, Eigen::Index nb) { PiX.middleCols(j, nb) = llt.solve(Xa.middleCols(j, nb)); });
    mu_ = ginv.cwiseProduct(Xa.transpose() * Piy);
    const Eigen::VectorXd qc = (Xa.array() * PiX.array()).colwise().sum().transpose();
    diag_sigma_ = ginv - qc.cwiseProduct(ginv.cwiseAbs2());
    resid_ = y_ - Xa * mu_;
    const double log_det = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    log_ml_ = -0.5 * (n_ * kLog2Pi + log_det + y_.dot(Piy));
    if (need & kColStats) q_col_ = qc;
    if (need & kRowStats) {
      // x_i' Sigma x_i = lambda_i - lambda_i^2 [Pi_y]_ii
      // [Pi_y]_ii: the squared column norms of L^-1
      Eigen::MatrixXd Linv = llt.matrixL();
      invert_lower(Linv);
      const Eigen::VectorXd lam = problem_.per_sample ? lambda : Eigen::VectorXd::Constant(n_, lambda(0));
      q_row_ = lam - lam.cwiseAbs2().cwiseProduct(Linv.colwise().squaredNorm().transpose());
    }
    return llt;
  }
};

}  // namespace sparsebayes
