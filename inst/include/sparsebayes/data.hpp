// The data layer (DESIGN.md, "One data layer"): where a solver reads its
// rows. One interface, Data, and three sources: the rows in memory
// (RowsInMemory: the basis and the targets, which the solvers' incremental
// updates read in place), the sums of rows not held (SumsOfRows: the
// statistics of statistics.hpp), and passes over rows held elsewhere (R's
// chunk sources, in the glue). A solver asks a source what its method
// needs (methods.hpp says which methods read what): the rows themselves,
// their sums, their sums under weights, the residual rows of a noise step,
// or one Laplace pass at a linear predictor. A request that a source cannot
// answer is an error that names it, never a placeholder.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "likelihood.hpp"
#include "statistics.hpp"

namespace sparsebayes {

// What a pass over the rows gives at a linear predictor: the statistics of
// sqrt(b) Phi and sqrt(b) z (b = w v the curvature of a row with case
// weight w, z its linearised target), the log-likelihood, that of the
// saturated model and that at f = offset (`null_log_lik`, first pass only),
// the rows (`kept`), the sum of the targets (`positive`) and the rows on
// the wrong side of 1/2 (classes only). Sums of blocks of rows add.
struct PassSums {
  GaussianStatistics statistics;
  // From rows in memory, the weighted rows themselves instead of their sums:
  // sqrt(b) Phi (shared by the copies a fit keeps of a pass) and sqrt(b) z
  // (statistics then holds only tt, sum_t and n).
  std::shared_ptr<const Eigen::MatrixXd> rows;
  Eigen::VectorXd z;
  double log_lik = 0.0, log_sat = 0.0, null_log_lik = 0.0;
  double kept = 0.0, positive = 0.0, wrong = 0.0;

  bool has_rows() const { return rows != nullptr; }
  bool finite() const {
    const bool sums = has_rows() ? rows->allFinite() && z.allFinite()
                                 : statistics.gram.allFinite() && statistics.cross.allFinite();
    return sums && std::isfinite(statistics.tt) && std::isfinite(statistics.sum_t) && std::isfinite(log_lik);
  }
  // The block G[r, c] of G = Phi' B Phi, and (Phi' B z)[r].
  Eigen::MatrixXd gram(const std::vector<Eigen::Index>& r, const std::vector<Eigen::Index>& c) const {
    Eigen::MatrixXd G(r.size(), c.size());
    if (has_rows()) {
      for (std::size_t j = 0; j < c.size(); ++j)
        for (std::size_t i = 0; i < r.size(); ++i) G(i, j) = rows->col(r[i]).dot(rows->col(c[j]));
    } else {
      for (std::size_t j = 0; j < c.size(); ++j)
        for (std::size_t i = 0; i < r.size(); ++i) G(i, j) = statistics.gram(r[i], c[j]);
    }
    return G;
  }
  Eigen::VectorXd cross(const std::vector<Eigen::Index>& r) const {
    Eigen::VectorXd c(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) c(i) = has_rows() ? rows->col(r[i]).dot(z) : statistics.cross(r[i]);
    return c;
  }
};

// A block of rows' share of a pass (Phi: the block's basis, every column;
// t, w, offset: its targets, case weights and offset) at the weights mu of
// the columns `relevant` (0-based, in order). The first pass of a
// likelihood that starts at its targets (Poisson) is at their own linear
// predictor, not at mu, and gives the log-likelihood at f = offset too.
inline PassSums laplace_pass_sums(const Likelihood& lik, const Eigen::Ref<const Eigen::MatrixXd>& Phi,
                                  const Eigen::VectorXd& t, const Eigen::VectorXd& w, const Eigen::VectorXd& offset,
                                  const std::vector<Eigen::Index>& relevant, const Eigen::VectorXd& mu,
                                  bool first_pass, bool keep_rows = false) {
  const Eigen::Index n = Phi.rows();
  if (t.size() != n || w.size() != n || offset.size() != n || mu.size() != static_cast<Eigen::Index>(relevant.size()))
    throw std::invalid_argument("a block of a pass needs one target, weight and offset per row, one weight per column");
  Eigen::VectorXd eta0 = Eigen::VectorXd::Zero(n);  // the linear predictor less the offset
  if (first_pass && lik.starts_at_targets()) {
    eta0 = lik.linearised_targets(t) - offset;
  } else {
    for (std::size_t k = 0; k < relevant.size(); ++k) {
      if (relevant[k] < 0 || relevant[k] >= Phi.cols()) throw std::invalid_argument("a relevant column is out of range");
      eta0 += mu(k) * Phi.col(relevant[k]);
    }
  }
  const Eigen::VectorXd eta = eta0 + offset;
  Eigen::VectorXd sb(n), z(n);  // sqrt(b) and sqrt(b) z
  for (Eigen::Index i = 0; i < n; ++i) {
    double root = 0.0, resid = 0.0;
    lik.irls_row(eta(i), t(i), root, resid);
    const double sw = std::sqrt(w(i));
    sb(i) = sw * root;
    z(i) = sb(i) * eta0(i) + sw * resid;
  }
  PassSums s;
  if (keep_rows) {
    s.rows = std::make_shared<const Eigen::MatrixXd>(sb.asDiagonal() * Phi);
    s.z = z;
    s.statistics.tt = z.squaredNorm();
    s.statistics.sum_t = z.sum();
    s.statistics.n = n;
  } else {
    s.statistics.add_rows(sb.asDiagonal() * Phi, z);
  }
  s.log_lik = lik.log_likelihood(t, eta, w);
  s.log_sat = lik.saturated_log_likelihood(t, w);
  if (first_pass) s.null_log_lik = lik.log_likelihood(t, offset, w);
  s.kept = static_cast<double>(n);
  s.positive = t.sum();
  if (lik.classes())
    for (Eigen::Index i = 0; i < n; ++i) s.wrong += (eta(i) > 0.0) != (t(i) == 1.0);
  return s;
}

// Where a solver reads its rows (see the top of this file).
class Data {
 public:
  using Columns = std::vector<Eigen::Index>;
  virtual ~Data() = default;

  // The rows n (a source read by passes: those read so far) and the basis's columns M.
  virtual Eigen::Index rows() const = 0;
  virtual Eigen::Index cols() const = 0;

  // The rows in memory: the basis (n x M, not copied) and the targets.
  virtual bool in_memory() const { return false; }
  virtual const Eigen::Ref<const Eigen::MatrixXd>& basis() const { missing("its rows"); }
  // The targets, one per row: held in memory, and by sources read by passes
  // whose noise steps read every row's (the Student-t floor, the outlier class).
  virtual bool has_targets() const { return in_memory(); }
  virtual const Eigen::VectorXd& targets() const { missing("the targets"); }
  // Phi'Phi, Phi't, t't, sum(t) and n of the rows (sources not in memory).
  virtual const GaussianStatistics& sums() const { missing("the sums of its rows"); }

  // Whether the rows can be read again, a pass each time, as follows.
  virtual bool reads_passes() const { return false; }
  // Phi' W Phi, Phi' W t and t' W t for W = diag(w).
  virtual GaussianStatistics weighted(const Eigen::VectorXd& /*w*/) { missing("weighted sums"); }
  // Per row i: t_i - phi_i' coef and |R phi_i|^2, phi_i over the columns `cols`.
  virtual void residual_rows(const Columns& /*cols*/, const Eigen::VectorXd& /*coef*/, const Eigen::MatrixXd& /*R*/,
                             Eigen::VectorXd& /*resid*/, Eigen::VectorXd& /*q*/) {
    missing("residual rows");
  }
  // One Laplace pass at the weights mu of the columns `relevant` (0-based,
  // in order; laplace_passes.hpp); `pass` counts from 1.
  virtual PassSums laplace_pass(const Likelihood& /*lik*/, const Columns& /*relevant*/, const Eigen::VectorXd& /*mu*/,
                                int /*pass*/) {
    missing("Laplace passes");
  }

 protected:
  [[noreturn]] static void missing(const std::string& what) {
    throw std::logic_error("this data source does not give " + what);
  }
};

// The rows in memory: the caller's basis (which outlives the source, not
// copied), the targets and, for Laplace passes, the case weights and offset (empty:
// none). It answers every request, from its rows.
class RowsInMemory : public Data {
 public:
  RowsInMemory(const Eigen::Ref<const Eigen::MatrixXd>& Phi, Eigen::VectorXd t,
               Eigen::VectorXd case_weights = Eigen::VectorXd(), Eigen::VectorXd offset = Eigen::VectorXd())
      : Phi_(Phi), t_(std::move(t)), w_(std::move(case_weights)), offset_(std::move(offset)) {
    if (t_.size() != Phi_.rows()) throw std::invalid_argument("the basis and the targets have different rows");
    if (w_.size() == 0) w_ = Eigen::VectorXd::Ones(t_.size());
    if (offset_.size() == 0) offset_ = Eigen::VectorXd::Zero(t_.size());
  }
  Eigen::Index rows() const override { return Phi_.rows(); }
  Eigen::Index cols() const override { return Phi_.cols(); }
  bool in_memory() const override { return true; }
  const Eigen::Ref<const Eigen::MatrixXd>& basis() const override { return Phi_; }
  const Eigen::VectorXd& targets() const override { return t_; }
  bool reads_passes() const override { return true; }
  GaussianStatistics weighted(const Eigen::VectorXd& w) override {
    const Eigen::VectorXd root = w.cwiseSqrt();
    GaussianStatistics s;
    s.add_rows(root.asDiagonal() * Phi_, root.cwiseProduct(t_));
    return s;
  }
  void residual_rows(const Columns& cols, const Eigen::VectorXd& coef, const Eigen::MatrixXd& R, Eigen::VectorXd& resid,
                     Eigen::VectorXd& q) override {
    Eigen::MatrixXd X(Phi_.rows(), cols.size());
    for (std::size_t k = 0; k < cols.size(); ++k) X.col(k) = Phi_.col(cols[k]);
    resid = t_ - X * coef;
    q = (X * R.transpose()).rowwise().squaredNorm();
  }
  PassSums laplace_pass(const Likelihood& lik, const Columns& relevant, const Eigen::VectorXd& mu, int pass) override {
    return laplace_pass_sums(lik, Phi_, t_, w_, offset_, relevant, mu, pass == 1, true);
  }

 private:
  Eigen::Ref<const Eigen::MatrixXd> Phi_;
  Eigen::VectorXd t_, w_, offset_;
};

// The sums of rows not held (statistics.hpp), which outlive the source.
class SumsOfRows : public Data {
 public:
  explicit SumsOfRows(const GaussianStatistics& s) : s_(s) {}
  Eigen::Index rows() const override { return s_.n; }
  Eigen::Index cols() const override { return s_.cols(); }
  const GaussianStatistics& sums() const override { return s_; }

 private:
  const GaussianStatistics& s_;
};

}  // namespace sparsebayes
