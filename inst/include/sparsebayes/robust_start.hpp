// A high-breakdown start for per-sample noise: least trimmed squares (LTS)
// by random elemental subsets and concentration steps (Rousseeuw and Van
// Driessen 2006, FAST-LTS). Joint ARD started from least squares climbs to
// the optimum next to that start, where a cluster of high-leverage points has
// pulled the fit towards itself and so never looks outlying (masking). The
// LTS fit is computed from the h rows that fit best, so up to half the rows
// can be arbitrary; its residuals give the starting noise variances.
// Seeded and independent of R's random numbers. Pure C++17 + Eigen.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "interrupt.hpp"
#include "model.hpp"

namespace sparsebayes {

namespace lts_detail {

// Least squares on the rows `rows` of X, with a ridge of 1e-8 per row (the
// columns have unit mean square) so that a singular subset still gives an
// answer: a column that is zero on the subset gets weight 0. X'X of a large
// subset (h ~ n / 2 rows) is summed over panels of rows with an interrupt
// check between them: one panel is at most 512 p^2 flops.
inline Eigen::VectorXd subset_fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const std::vector<Eigen::Index>& rows) {
  const Eigen::Index p = X.cols(), m = rows.size();
  Eigen::MatrixXd Xs(m, p);
  Eigen::VectorXd ys(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    Xs.row(k) = X.row(rows[k]);
    ys(k) = y(rows[k]);
  }
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(p, p);
  const Eigen::Index panel = 512;
  for (Eigen::Index k = 0; k < m; k += panel) {
    if (k > 0) check_interrupt();
    G.selfadjointView<Eigen::Lower>().rankUpdate(Xs.middleRows(k, std::min(panel, m - k)).transpose());
  }
  G.diagonal().array() += 1e-8 * static_cast<double>(m);
  return G.selfadjointView<Eigen::Lower>().ldlt().solve(Xs.transpose() * ys);
}

// The h rows with the smallest squared residuals and their sum.
inline double best_rows(const Eigen::VectorXd& r2, Eigen::Index h, std::vector<Eigen::Index>& rows) {
  rows.resize(r2.size());
  std::iota(rows.begin(), rows.end(), Eigen::Index{0});
  std::nth_element(rows.begin(), rows.begin() + (h - 1), rows.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return r2(a) < r2(b); });
  rows.resize(h);
  double s = 0.0;
  for (Eigen::Index i : rows) s += r2(i);
  return s;
}

struct Candidate {
  double trimmed = kInf;
  Eigen::VectorXd coef;
};

// Concentration steps from `c`: refit on the h best rows until the trimmed
// sum stops falling (it never rises) or `steps` are done. A check per step:
// the final steps to convergence ran seconds unchecked at n = 5000, p = 200.
inline void concentrate(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, Eigen::Index h, int steps, Candidate& c) {
  std::vector<Eigen::Index> rows;
  for (int k = 0; k < steps; ++k) {
    check_interrupt();
    const double trimmed = best_rows((y - X * c.coef).cwiseAbs2(), h, rows);
    const bool settled = trimmed >= c.trimmed * (1.0 - 1e-12);
    c.trimmed = std::min(c.trimmed, trimmed);
    if (settled && k > 0) return;
    c.coef = subset_fit(X, y, rows);
  }
  std::vector<Eigen::Index> last;
  c.trimmed = std::min(c.trimmed, best_rows((y - X * c.coef).cwiseAbs2(), h, last));
}

}  // namespace lts_detail

// At most this many multiply-adds on the subsets' first concentration steps
// (2 h p^2 each): every classic data set and n = 500, p = 51 keep all 500
// subsets; n = 2000, p = 257 gets 10. A random p-subset of so wide a basis
// is almost never clean anyway (0.95^257 ~ 2e-6 at 5% outliers), so the
// concentration steps, not the count of subsets, do the work there.
inline constexpr double kLtsBudget = 1e9;

// Residuals of the LTS fit of y on the columns of X (n x p, p < n / 2),
// over `subsets` random elemental starts (fewer within kLtsBudget, at least
// 10): two concentration steps each, then the best 2% (1 to 10) to
// convergence. Empty when X is too wide for a start of breakdown near one half.
inline Eigen::VectorXd lts_residuals(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int subsets,
                                     std::uint64_t seed = 20261125) {
  using namespace lts_detail;
  const Eigen::Index n = X.rows(), p = X.cols();
  if (p < 1 || 2 * p >= n || subsets < 1) return Eigen::VectorXd();
  const Eigen::Index h = (n + p + 1) / 2;
  const double per_subset = 2.0 * static_cast<double>(h) * static_cast<double>(p) * static_cast<double>(p);
  subsets = std::min(subsets, std::max(10, static_cast<int>(kLtsBudget / per_subset)));
  std::mt19937_64 rng(seed);
  std::vector<Eigen::Index> index(n);
  std::iota(index.begin(), index.end(), Eigen::Index{0});
  std::vector<Candidate> kept;
  const std::size_t keep = static_cast<std::size_t>(std::clamp(subsets / 50, 1, 10));
  for (int k = 0; k < subsets; ++k) {
    check_interrupt();
    // A random p-subset: the first p entries of a partial Fisher-Yates shuffle.
    for (Eigen::Index i = 0; i < p; ++i) {
      std::uniform_int_distribution<Eigen::Index> pick(i, n - 1);
      std::swap(index[i], index[pick(rng)]);
    }
    Candidate c;
    c.coef = subset_fit(X, y, std::vector<Eigen::Index>(index.begin(), index.begin() + p));
    concentrate(X, y, h, 2, c);
    kept.push_back(std::move(c));
    if (kept.size() > keep) {  // drop the worst
      auto worst = std::max_element(kept.begin(), kept.end(),
                                    [](const Candidate& a, const Candidate& b) { return a.trimmed < b.trimmed; });
      kept.erase(worst);
    }
  }
  for (Candidate& c : kept) concentrate(X, y, h, 100, c);
  const auto best = std::min_element(kept.begin(), kept.end(),
                                     [](const Candidate& a, const Candidate& b) { return a.trimmed < b.trimmed; });
  return y - X * best->coef;
}

// The design of the robust start: the columns of Phi that are not zero
// throughout, scaled to unit mean square (the units of the subset fits'
// ridge). Empty when the basis is too wide (2p >= n) for a start of
// breakdown near one half.
inline Eigen::MatrixXd robust_start_design(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::VectorXd& inv_scale) {
  std::vector<Eigen::Index> cols;
  for (Eigen::Index j = 0; j < Phi.cols(); ++j)
    if (Phi.col(j).squaredNorm() > 0.0) cols.push_back(j);
  const Eigen::Index n = Phi.rows(), p = cols.size();
  if (2 * p >= n) return Eigen::MatrixXd();
  Eigen::MatrixXd X(n, p);
  const double root_n = std::sqrt(static_cast<double>(n));
  for (Eigen::Index k = 0; k < p; ++k) X.col(k) = Phi.col(cols[k]) * (inv_scale(cols[k]) * root_n);
  return X;
}

// Residuals of the least squares fit of y on X (robust_start_design()) on
// the rows whose residual lies within 2.5 robust sds of zero, from the LTS
// residuals r, twice (the scale re-estimated in between): reweighted LTS.
// Raw LTS fits half the rows and is far less efficient (7% at the normal),
// and with many columns its trimmed fit also understates the scale, so on
// clean data its residuals stray from any efficient fit's by more than
// 2.5 s; the reweighted ones do not.
inline Eigen::VectorXd reweighted_residuals(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, const Eigen::VectorXd& r) {
  const Eigen::Index n = X.rows(), p = X.cols();
  Eigen::VectorXd out = r;
  for (int step = 0; step < 2; ++step) {
    const double s2 = robust_residual_variance(out);
    std::vector<Eigen::Index> rows;
    for (Eigen::Index i = 0; i < n; ++i)
      if (out(i) * out(i) <= 6.25 * s2) rows.push_back(i);
    if (2 * p >= static_cast<Eigen::Index>(rows.size())) break;
    out = y - X * lts_detail::subset_fit(X, y, rows);
  }
  return out;
}

// A robust (MAD) variance of the LTS residuals, kept off zero.
inline double robust_start_variance(const Eigen::VectorXd& r, const Eigen::VectorXd& y) {
  return std::max(robust_residual_variance(r), 1e-12 * std::max(sample_variance(y), 1e-300));
}

}  // namespace sparsebayes
