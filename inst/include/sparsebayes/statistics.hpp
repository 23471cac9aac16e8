// The statistics layer (DESIGN.md, "The stages"): what a Gaussian fit with
// shared noise reads from its data. Given Phi'Phi, Phi't, t't, sum(t) and
// the number of rows, the fast solver and the batch rules EM and MacKay
// need no row of Phi: these sums add over chunks of rows, so data that do
// not fit in memory are fitted in one pass over them. Per-sample and
// Student-t noise, the IRLS and gradient rules and the Laplace steps read
// the rows.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <cmath>

#include "model.hpp"

namespace sparsebayes {

struct GaussianStatistics {
  Eigen::MatrixXd gram;   // Phi' Phi, M x M
  Eigen::VectorXd cross;  // Phi' t
  double tt = 0.0;        // t' t
  double sum_t = 0.0;     // sum of t
  Eigen::Index n = 0;     // rows

  Eigen::Index cols() const { return gram.cols(); }

  // var(t) with n - 1 in the denominator, as sample_variance() of the rows.
  double target_variance() const {
    if (n < 2) return 0.0;
    return std::max(tt - sum_t * sum_t / static_cast<double>(n), 0.0) / (n - 1.0);
  }

  // Adds a block of rows (Phi: rows x M, t: rows); the Gram product on `threads`.
  void add_rows(const Eigen::Ref<const Eigen::MatrixXd>& Phi, const Eigen::Ref<const Eigen::VectorXd>& t,
                int threads = 1) {
    if ((gram.size() > 0 && Phi.cols() != gram.cols()) || Phi.rows() != t.size())
      throw std::invalid_argument("a block of rows does not match the statistics' columns or targets");
    if (gram.size() == 0) {
      gram = gram_matrix(Phi, threads);
      cross = Phi.transpose() * t;
    } else {
      gram += gram_matrix(Phi, threads);
      cross.noalias() += Phi.transpose() * t;
    }
    tt += t.squaredNorm();
    sum_t += t.sum();
    n += Phi.rows();
  }
};

// Two keys per row of x, equal for exact copies wherever they sit: two
// fixed projections of the row, each summed column by column in the same
// order for every row (a blocked product may sum a block's remainder rows
// in another order). Rows that differ only below the rounding of the sums
// count as copies. Column-wise loops: each row's sum keeps its order.
inline Eigen::MatrixXd row_keys(const Eigen::Ref<const Eigen::MatrixXd>& x) {
  Eigen::MatrixXd keys = Eigen::MatrixXd::Zero(x.rows(), 2);
  for (Eigen::Index j = 0; j < x.cols(); ++j) {
    const double a = std::cos((j + 1) * 1.618034), b = std::sin((j + 1) * 2.718282);
    keys.col(0) += a * x.col(j);
    keys.col(1) += b * x.col(j);
  }
  return keys;
}

}  // namespace sparsebayes
