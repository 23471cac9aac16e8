// Kernel functions k(x, z) between the rows of two input matrices.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "interrupt.hpp"

namespace sparsebayes {

enum class KernelType { gaussian, laplace, cauchy, polynomial, linear, lspline, tpspline };

struct Kernel {
  KernelType type = KernelType::gaussian;
  double width = 1.0;     // r in the seeds' notation
  double variance = 1.0;  // multiplies every kernel
  double degree = 2.0;    // polynomial only
  double offset = 1.0;    // polynomial only
};

inline KernelType kernel_type_from_name(const std::string& name) {
  if (name == "gaussian") return KernelType::gaussian;
  if (name == "laplace") return KernelType::laplace;
  if (name == "cauchy") return KernelType::cauchy;
  if (name == "polynomial") return KernelType::polynomial;
  if (name == "linear") return KernelType::linear;
  if (name == "lspline") return KernelType::lspline;
  if (name == "tpspline") return KernelType::tpspline;
  throw std::invalid_argument("unknown kernel type '" + name + "'");
}

namespace detail {

// Squared Euclidean distances between rows of x (n x d) and rows of z
// (m x d), written into out. For few columns the direct sum is exact (no
// cancellation); for many, the Gram-matrix identity is far faster and its
// round-off is clamped at zero.
template <typename Out>
void squared_distances(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::Ref<const Eigen::MatrixXd>& z,
                       Out&& out) {
  const Eigen::Index m = z.rows(), d = x.cols();
  if (d <= 8) {
    out.setZero();
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index k = 0; k < d; ++k) out.col(j).array() += (x.col(k).array() - z(j, k)).square();
  } else {
    out.noalias() = -2.0 * x * z.transpose();
    out.colwise() += x.rowwise().squaredNorm();
    out.rowwise() += z.rowwise().squaredNorm().transpose();
    out = out.cwiseMax(0.0);
  }
}

// Linear spline kernel of one input dimension (sRVM paper, App. 6.1, eq. 38).
inline double lspline_1d(double a, double b, double r) {
  const double mn = std::min(a, b), r2 = r * r, r3 = r2 * r;
  return 1.0 + a * b / r2 + a * b * mn / r3 - 0.5 * (a + b) * mn * mn / r3 + mn * mn * mn / (3.0 * r3);
}

// k(x_i, z_j) for one block of centres z, written into K.
inline void fill_kernel_block(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                              const Eigen::Ref<const Eigen::MatrixXd>& z, Eigen::Ref<Eigen::MatrixXd> K) {
  const double r = k.width;
  switch (k.type) {
    case KernelType::gaussian:
      detail::squared_distances(x, z, K);
      K.array() = (K.array() * (-1.0 / (r * r))).exp();
      break;
    case KernelType::laplace:
      detail::squared_distances(x, z, K);
      K.array() = (K.array().sqrt() * (-1.0 / r)).exp();
      break;
    case KernelType::cauchy:
      detail::squared_distances(x, z, K);
      K.array() = 1.0 / (1.0 + K.array() / (r * r));
      break;
    case KernelType::tpspline:
      // (d/r)^2 log(d/r), with its limit 0 at d = 0 (the seeds' delta_mn).
      detail::squared_distances(x, z, K);
      K = K.unaryExpr([r](double d2) {
        const double u = d2 / (r * r);
        return u > 0.0 ? 0.5 * u * std::log(u) : 0.0;
      });
      break;
    case KernelType::polynomial:
      K.noalias() = x * z.transpose();
      K.array() = (K.array() + k.offset).pow(k.degree);
      break;
    case KernelType::linear:
      K.noalias() = x * z.transpose();
      break;
    case KernelType::lspline:
      // Product over input dimensions, as for spline kernels in several inputs.
      K.setOnes();
      for (Eigen::Index c = 0; c < x.cols(); ++c)
        for (Eigen::Index j = 0; j < z.rows(); ++j)
          for (Eigen::Index i = 0; i < x.rows(); ++i) K(i, j) *= detail::lspline_1d(x(i, c), z(j, c), r);
      break;
  }
  if (k.variance != 1.0) K *= k.variance;
}

}  // namespace detail

// Writes k(x_i, z_j) into out(i, j + offset): callers that want a leading
// constant (bias) column pass offset 1 and fill it themselves, so a large
// basis is built in place with no temporary copies.
inline void fill_kernel_matrix(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                               const Eigen::Ref<const Eigen::MatrixXd>& z, Eigen::Ref<Eigen::MatrixXd> out,
                               Eigen::Index offset = 0) {
  if (x.cols() != z.cols())
    throw std::invalid_argument("kernel inputs have different numbers of columns");
  if (out.rows() != x.rows() || out.cols() != z.rows() + offset)
    throw std::invalid_argument("kernel output has the wrong dimensions");
  if (!(k.variance > 0.0)) throw std::invalid_argument("kernel variance must be positive");
  const bool needs_width = k.type != KernelType::polynomial && k.type != KernelType::linear;
  if (needs_width && !(k.width > 0.0)) throw std::invalid_argument("kernel width must be positive");
  // Built in blocks of about 2^20 entries (contiguous column blocks), with
  // a check for a user interrupt between blocks.
  const Eigen::Index m = z.rows(), block = std::max<Eigen::Index>(1, (Eigen::Index(1) << 20) / std::max<Eigen::Index>(1, x.rows()));
  for (Eigen::Index j0 = 0; j0 < m; j0 += block) {
    check_interrupt();
    const Eigen::Index nb = std::min(block, m - j0);
    detail::fill_kernel_block(k, x, z.middleRows(j0, nb), out.middleCols(offset + j0, nb));
  }
}

inline Eigen::MatrixXd kernel_matrix(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                     const Eigen::Ref<const Eigen::MatrixXd>& z) {
  Eigen::MatrixXd K(x.rows(), z.rows());
  fill_kernel_matrix(k, x, z, K);
  return K;
}

}  // namespace sparsebayes
