// Kernel functions k(x, z) between the rows of two input matrices.
// Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "interrupt.hpp"
#include "names.hpp"
#include "simd.hpp"

namespace sparsebayes {

enum class KernelType { gaussian, laplace, cauchy, polynomial, linear, lspline, tpspline };

struct Kernel {
  KernelType type = KernelType::gaussian;
  double width = 1.0;     // r in the seeds' notation
  // One width per input column (empty: `width` serves every column). Every
  // width kernel depends on x and z only through (x_k - z_k) / r, or (the
  // linear spline) is homogeneous of degree 0 in (x, z, r), so per-input
  // widths r_k are the kernel of width 1 on inputs whose column k is divided
  // by r_k: see scaled_inputs().
  Eigen::VectorXd input_widths;
  double variance = 1.0;  // multiplies every kernel
  double degree = 2.0;    // polynomial only
  double offset = 1.0;    // polynomial only
};

// The one table of kernels: each kernel's name (as R's kernel objects give
// it) and whether it has a width and a slope in rho (the kernels whose
// widths, variance and noise a GP marginal likelihood can learn: the sparse
// and exact GPs, the Laplace GP classifier and width = "learn"). R reads it
// through .sb_kernels(). Adding a kernel: a row here and its formula in
// fill_kernel_block() (and its slope in scale_by_rho_slope() below), then its
// constructor in R/kernels.R.
struct KernelInfo {
  const char* name;
  KernelType type;
  bool width;
  bool slope;
};

inline constexpr KernelInfo kKernels[] = {
    {"gaussian", KernelType::gaussian, true, true},       {"laplace", KernelType::laplace, true, true},
    {"cauchy", KernelType::cauchy, true, true},           {"polynomial", KernelType::polynomial, false, false},
    {"linear", KernelType::linear, false, false},         {"lspline", KernelType::lspline, true, false},
    {"tpspline", KernelType::tpspline, true, false},
};

inline const KernelInfo& kernel_info(KernelType t) {
  for (const KernelInfo& k : kKernels)
    if (k.type == t) return k;
  throw std::logic_error("a kernel type without a row in kKernels");
}

inline bool has_width(KernelType t) { return kernel_info(t).width; }

// The kernels with a slope, for messages: "a, b or c".
inline std::string kernels_with_slope() {
  std::vector<std::string> names;
  for (const KernelInfo& k : kKernels)
    if (k.slope) names.push_back(k.name);
  return or_list(names);
}

// Checks the widths of k for inputs of `columns` columns.
inline void check_kernel_widths(const Kernel& k, Eigen::Index columns) {
  if (!has_width(k.type)) {
    if (k.input_widths.size()) throw std::invalid_argument("the polynomial and linear kernels have no width");
    return;
  }
  if (!(k.width > 0.0) || !std::isfinite(k.width)) throw std::invalid_argument("kernel width must be positive");
  if (!k.input_widths.size()) return;
  if (k.input_widths.size() != columns)
    throw std::invalid_argument("the kernel has " + std::to_string(k.input_widths.size()) +
                                " input widths but the inputs have " + std::to_string(columns) + " columns");
  if (!((k.input_widths.array() > 0.0).all() && k.input_widths.allFinite()))
    throw std::invalid_argument("kernel input widths must be positive and finite");
}

// x with column k divided by the k-th input width (x itself when the kernel
// has one width).
inline Eigen::MatrixXd scaled_inputs(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x) {
  if (!k.input_widths.size()) return x;
  return x * k.input_widths.cwiseInverse().asDiagonal();
}

// The kernel on scaled_inputs(): per-input widths folded into the inputs.
inline Kernel on_scaled_inputs(Kernel k) {
  if (k.input_widths.size()) {
    k.input_widths.resize(0);
    k.width = 1.0;
  }
  return k;
}

inline KernelType kernel_type_from_name(const std::string& name) {
  for (const KernelInfo& k : kKernels)
    if (name == k.name) return k.type;
  throw std::invalid_argument("unknown kernel type '" + name + "'");
}

namespace detail {

// Squared Euclidean distances between rows of x (n x d) and rows of z
// (m x d), written into out. For few columns the direct sum is exact (no
// cancellation); for many, the Gram-matrix identity is far faster (its
// product on the SIMD path where the CPU has one: Eigen's took a tenth of a
// width learner's evaluation at 13 inputs) and its round-off is clamped at
// zero.
template <typename Out>
void squared_distances(const Eigen::Ref<const Eigen::MatrixXd>& x, const Eigen::Ref<const Eigen::MatrixXd>& z,
                       Out&& out) {
  const Eigen::Index m = z.rows(), d = x.cols();
  if (d <= 8) {
    out.setZero();
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index k = 0; k < d; ++k) out.col(j).array() += (x.col(k).array() - z(j, k)).square();
  } else {
    out.setZero();
    if (!simd::multiply_add(x, z, out, -2.0, true)) out.noalias() = -2.0 * x * z.transpose();
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
      simd::exp_scaled(K, -1.0 / (r * r));
      break;
    case KernelType::laplace:
      detail::squared_distances(x, z, K);
      K.array() = K.array().sqrt();
      simd::exp_scaled(K, -1.0 / r);
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

// Asks Linux for transparent huge pages on a large output buffer before it
// is first written. A fresh n x m basis is otherwise faulted in 4 KB pages,
// and on virtual machines those first-touch faults cost 3-5 times the
// kernel evaluation itself (measured: ~25 ns per entry against ~5 ns); with
// 2 MB pages the cost per entry no longer depends on whether the allocator
// handed out fresh or recycled memory. Advice only: ignored where
// unsupported.
inline void advise_huge_pages(double* data, std::size_t count) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(1) << 21;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(data + count) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)count;
#endif
}

// G o= -2 s2 f'(rho) for every entry of K = k(zs, xs) on the scaled inputs:
// the factor that turns d rho into dk (kernel_chain() in sparse_gp.hpp; here,
// beside fill_kernel_block(), a kernel's formula and its slope are in one
// file). In place, column by column: no n x n temporary.
inline void scale_by_rho_slope(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& zs,
                               const Eigen::Ref<const Eigen::MatrixXd>& xs, const Eigen::Ref<const Eigen::MatrixXd>& K,
                               Eigen::Ref<Eigen::MatrixXd> G) {
  const double r2 = k.input_widths.size() ? 1.0 : k.width * k.width;
  switch (k.type) {
    case KernelType::gaussian:
      G.array() *= 2.0 * K.array();
      return;
    case KernelType::cauchy:
      G.array() *= (2.0 / k.variance) * K.array().square();
      return;
    case KernelType::laplace: {
      // -2 s2 f' = K / sqrt(rho); at rho = 0 (a centre on a point) the
      // kernel has a cusp: its derivatives are taken as 0 there.
      Eigen::VectorXd d(zs.rows());
      for (Eigen::Index l = 0; l < xs.rows(); ++l) {
        d = (zs.rowwise() - xs.row(l)).rowwise().squaredNorm();  // r^2 rho
        G.col(l).array() *= (d.array() > 0.0).select(K.col(l).array() * std::sqrt(r2) / d.array().sqrt(), 0.0);
      }
      return;
    }
    default:
      throw std::invalid_argument("gradients are available for a " + kernels_with_slope() + " kernel only");
  }
}

}  // namespace detail

// Writes k(x_i, z_j) into out(i, j + offset): callers that want a leading
// constant (bias) column pass offset 1 and fill it themselves, so a large
// basis is built in place with no temporary copies.
//
// The matrix is built in tiles of about 2^15 entries (at most 4096 rows), so
// that the distance and kernel passes over a tile stay in cache and the
// output is written once; tiles are shared among `threads` OpenMP threads.
// The tiling depends only on the dimensions, never on the thread count, so
// every entry is computed by the same operations for any number of threads:
// results are bit-identical. Interrupts are checked between rounds of tiles,
// outside the parallel region (an exception must not cross it).
inline void fill_kernel_matrix(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                               const Eigen::Ref<const Eigen::MatrixXd>& z, Eigen::Ref<Eigen::MatrixXd> out,
                               Eigen::Index offset = 0, int threads = 1) {
  if (x.cols() != z.cols())
    throw std::invalid_argument("kernel inputs have different numbers of columns");
  if (out.rows() != x.rows() || out.cols() != z.rows() + offset)
    throw std::invalid_argument("kernel output has the wrong dimensions");
  if (!(k.variance > 0.0)) throw std::invalid_argument("kernel variance must be positive");
  check_kernel_widths(k, x.cols());
  const Eigen::Index n = x.rows(), m = z.rows();
  if (n == 0 || m == 0) return;
  if (k.input_widths.size()) {
    fill_kernel_matrix(on_scaled_inputs(k), scaled_inputs(k, x), scaled_inputs(k, z), out, offset, threads);
    return;
  }
  if (out.outerStride() == out.rows()) detail::advise_huge_pages(out.data(), std::size_t(out.size()));
  const Eigen::Index tile_rows = std::min<Eigen::Index>(n, 4096);
  const Eigen::Index tile_cols = std::max<Eigen::Index>(1, (Eigen::Index(1) << 15) / tile_rows);
  const Eigen::Index row_tiles = (n + tile_rows - 1) / tile_rows, col_tiles = (m + tile_cols - 1) / tile_cols;
  const Eigen::Index tiles = row_tiles * col_tiles;
  threads = std::max(1, threads);
  const Eigen::Index round = 64 * Eigen::Index(threads);
  for (Eigen::Index t0 = 0; t0 < tiles; t0 += round) {
    check_interrupt();
    const Eigen::Index t1 = std::min(tiles, t0 + round);
    // At least 4 tiles (of 32768 entries) per thread: a thread's start and
    // spin-wait cost more than a few tiles' work, and on small problems (n =
    // 133: one tile) the idle second thread had doubled a kernel fit's CPU time.
    const int team = static_cast<int>(std::clamp<Eigen::Index>((t1 - t0) / 4, 1, threads));
#ifdef _OPENMP
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
#endif
    for (Eigen::Index t = t0; t < t1; ++t) {
      const Eigen::Index i0 = (t % row_tiles) * tile_rows, j0 = (t / row_tiles) * tile_cols;
      const Eigen::Index nr = std::min(tile_rows, n - i0), nc = std::min(tile_cols, m - j0);
      detail::fill_kernel_block(k, x.middleRows(i0, nr), z.middleRows(j0, nc), out.block(i0, offset + j0, nr, nc));
    }
  }
}

inline Eigen::MatrixXd kernel_matrix(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                     const Eigen::Ref<const Eigen::MatrixXd>& z) {
  Eigen::MatrixXd K(x.rows(), z.rows());
  fill_kernel_matrix(k, x, z, K);
  return K;
}

}  // namespace sparsebayes
