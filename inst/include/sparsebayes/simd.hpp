// Dense kernels with AVX2 + FMA and AVX-512 paths chosen at run time (issue
// 59, item 3). The package is built with R's default flags (SSE2 on x86-64),
// at which Eigen's products run; where the CPU has AVX-512, or AVX2 and FMA,
// the functions here run the same product through a path compiled for it by
// a target attribute, selected once by the CPU the code runs on. Their sums run in an
// order fixed by the matrix sizes alone (unaligned loads, blocks placed from
// index 0), so on one machine the result never depends on where R put the
// memory, on the number of threads or on the future plan. Between machines
// with different paths (AVX-512, AVX2, neither) results differ by rounding. Pure C++17 + Eigen: no
// R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define SPARSEBAYES_X86_DISPATCH 1
#include <immintrin.h>
#endif

namespace sparsebayes {
namespace simd {

// Whether the AVX2 + FMA paths run: the CPU has both, and they are not
// switched off (set_enabled(false), options(sparsebayes.simd = FALSE): the
// SSE2 results of a machine without them, for comparison).
inline bool& enabled_flag() {
  static bool flag = true;
  return flag;
}
inline void set_enabled(bool on) { enabled_flag() = on; }
inline bool cpu_has_avx2() {
#ifdef SPARSEBAYES_X86_DISPATCH
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}
inline bool cpu_has_avx512() {
#ifdef SPARSEBAYES_X86_DISPATCH
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}
inline bool avx2() { return enabled_flag() && cpu_has_avx2(); }
inline bool avx512() { return enabled_flag() && cpu_has_avx512(); }

#ifdef SPARSEBAYES_X86_DISPATCH
namespace detail {

// Rows per block of the Gram product: 6 column segments of 512 rows stay in
// the level-1 cache while a block of 2 x 4 column pairs is formed.
constexpr Eigen::Index kGramRows = 512;

// The entries (i, j), i >= j, of an edge block (columns [ib, ib + in) by
// [jb, jb + jn)) over rows [r0, r0 + rn): plain sums over the rows in order.
inline void gram_edge(const double* A, Eigen::Index lda, Eigen::Index r0, Eigen::Index rn, Eigen::Index ib,
                      Eigen::Index in, Eigen::Index jb, Eigen::Index jn, double* G, Eigen::Index ldg) {
  for (Eigen::Index i = ib; i < ib + in; ++i)
    for (Eigen::Index j = jb; j < jb + jn; ++j) {
      if (i < j) continue;
      const double* a = A + i * lda + r0;
      const double* b = A + j * lda + r0;
      double s = 0.0;
      for (Eigen::Index r = 0; r < rn; ++r) s += a[r] * b[r];
      G[j * ldg + i] += s;
    }
}

// G(i, j) += a_i' b_j over rows [0, rn) for column pointers a (2) and b (4),
// each entry in 4 lanes of rows r = 0, 1, 2, 3 mod 4, then
// (l0 + l1) + (l2 + l3), then the rows past the last multiple of 4.
__attribute__((target("avx2,fma"))) inline void gram_block_2x4(const double* const* a, const double* const* b,
                                                                 Eigen::Index rn, double out[2][4]) {
  const Eigen::Index r4 = rn - rn % 4;
  __m256d c00 = _mm256_setzero_pd(), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00;
  for (Eigen::Index r = 0; r < r4; r += 4) {
    const __m256d x0 = _mm256_loadu_pd(a[0] + r), x1 = _mm256_loadu_pd(a[1] + r);
    __m256d y = _mm256_loadu_pd(b[0] + r);
    c00 = _mm256_fmadd_pd(x0, y, c00);
    c10 = _mm256_fmadd_pd(x1, y, c10);
    y = _mm256_loadu_pd(b[1] + r);
    c01 = _mm256_fmadd_pd(x0, y, c01);
    c11 = _mm256_fmadd_pd(x1, y, c11);
    y = _mm256_loadu_pd(b[2] + r);
    c02 = _mm256_fmadd_pd(x0, y, c02);
    c12 = _mm256_fmadd_pd(x1, y, c12);
    y = _mm256_loadu_pd(b[3] + r);
    c03 = _mm256_fmadd_pd(x0, y, c03);
    c13 = _mm256_fmadd_pd(x1, y, c13);
  }
  alignas(32) double lanes[8][4];
  _mm256_store_pd(lanes[0], c00);
  _mm256_store_pd(lanes[1], c01);
  _mm256_store_pd(lanes[2], c02);
  _mm256_store_pd(lanes[3], c03);
  _mm256_store_pd(lanes[4], c10);
  _mm256_store_pd(lanes[5], c11);
  _mm256_store_pd(lanes[6], c12);
  _mm256_store_pd(lanes[7], c13);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      const double* l = lanes[i * 4 + j];
      double s = (l[0] + l[1]) + (l[2] + l[3]);
      for (Eigen::Index r = r4; r < rn; ++r) s += a[i][r] * b[j][r];
      out[i][j] = s;
    }
}

// The lower triangle of columns [j0, j0 + nb) of A' A added into G (G(i, j)
// for i >= j; A: n x S, leading dimension lda; G: leading dimension ldg), by
// blocks of rows; entries of the edge blocks (fewer than 2 x 4 columns left)
// are plain sums over the rows in order. Raw pointers only: no template of
// another target is instantiated under this one.
__attribute__((target("avx2,fma"))) inline void gram_panel_avx2(const double* A, Eigen::Index lda, Eigen::Index n,
                                                                  Eigen::Index S, Eigen::Index j0, Eigen::Index nb,
                                                                  double* G, Eigen::Index ldg) {
  const Eigen::Index jend = j0 + nb;
  for (Eigen::Index r0 = 0; r0 < n; r0 += kGramRows) {
    const Eigen::Index rn = std::min(kGramRows, n - r0);
    for (Eigen::Index jb = j0; jb < jend; jb += 4) {
      const Eigen::Index jn = std::min<Eigen::Index>(4, jend - jb);
      for (Eigen::Index ib = jb; ib < S; ib += 2) {
        const Eigen::Index in = std::min<Eigen::Index>(2, S - ib);
        if (jn == 4 && in == 2) {
          const double* a[2] = {A + ib * lda + r0, A + (ib + 1) * lda + r0};
          const double* b[4] = {A + jb * lda + r0, A + (jb + 1) * lda + r0, A + (jb + 2) * lda + r0,
                                A + (jb + 3) * lda + r0};
          double out[2][4];
          gram_block_2x4(a, b, rn, out);
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 4; ++j)
              if (ib + i >= jb + j) G[(jb + j) * ldg + ib + i] += out[i][j];
        } else {
          gram_edge(A, lda, r0, rn, ib, in, jb, jn, G, ldg);
        }
      }
    }
  }
}

// The AVX-512 path: blocks of 4 x 4 columns (16 accumulators of 8 lanes, 32
// registers), lanes summed ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)),
// then the rows past the last multiple of 8; edge blocks as above.
__attribute__((target("avx512f"))) inline void gram_panel_avx512(const double* A, Eigen::Index lda, Eigen::Index n,
                                                                   Eigen::Index S, Eigen::Index j0, Eigen::Index nb,
                                                                   double* G, Eigen::Index ldg) {
  const Eigen::Index jend = j0 + nb;
  for (Eigen::Index r0 = 0; r0 < n; r0 += kGramRows) {
    const Eigen::Index rn = std::min(kGramRows, n - r0), r8 = rn - rn % 8;
    for (Eigen::Index jb = j0; jb < jend; jb += 4) {
      const Eigen::Index jn = std::min<Eigen::Index>(4, jend - jb);
      for (Eigen::Index ib = jb; ib < S; ib += 4) {
        const Eigen::Index in = std::min<Eigen::Index>(4, S - ib);
        if (jn == 4 && in == 4) {
          const double* a[4];
          const double* b[4];
          for (int k = 0; k < 4; ++k) {
            a[k] = A + (ib + k) * lda + r0;
            b[k] = A + (jb + k) * lda + r0;
          }
          __m512d c[4][4];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) c[i][j] = _mm512_setzero_pd();
          for (Eigen::Index r = 0; r < r8; r += 8) {
            const __m512d x0 = _mm512_loadu_pd(a[0] + r), x1 = _mm512_loadu_pd(a[1] + r),
                          x2 = _mm512_loadu_pd(a[2] + r), x3 = _mm512_loadu_pd(a[3] + r);
            // written out: the 16 accumulators must stay in registers
            __m512d y = _mm512_loadu_pd(b[0] + r);
            c[0][0] = _mm512_fmadd_pd(x0, y, c[0][0]);
            c[1][0] = _mm512_fmadd_pd(x1, y, c[1][0]);
            c[2][0] = _mm512_fmadd_pd(x2, y, c[2][0]);
            c[3][0] = _mm512_fmadd_pd(x3, y, c[3][0]);
            y = _mm512_loadu_pd(b[1] + r);
            c[0][1] = _mm512_fmadd_pd(x0, y, c[0][1]);
            c[1][1] = _mm512_fmadd_pd(x1, y, c[1][1]);
            c[2][1] = _mm512_fmadd_pd(x2, y, c[2][1]);
            c[3][1] = _mm512_fmadd_pd(x3, y, c[3][1]);
            y = _mm512_loadu_pd(b[2] + r);
            c[0][2] = _mm512_fmadd_pd(x0, y, c[0][2]);
            c[1][2] = _mm512_fmadd_pd(x1, y, c[1][2]);
            c[2][2] = _mm512_fmadd_pd(x2, y, c[2][2]);
            c[3][2] = _mm512_fmadd_pd(x3, y, c[3][2]);
            y = _mm512_loadu_pd(b[3] + r);
            c[0][3] = _mm512_fmadd_pd(x0, y, c[0][3]);
            c[1][3] = _mm512_fmadd_pd(x1, y, c[1][3]);
            c[2][3] = _mm512_fmadd_pd(x2, y, c[2][3]);
            c[3][3] = _mm512_fmadd_pd(x3, y, c[3][3]);
          }
          alignas(64) double l[8];
          for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
              if (ib + i < jb + j) continue;
              _mm512_store_pd(l, c[i][j]);
              double s = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
              for (Eigen::Index r = r8; r < rn; ++r) s += a[i][r] * b[j][r];
              G[(jb + j) * ldg + ib + i] += s;
            }
        } else {
          gram_edge(A, lda, r0, rn, ib, in, jb, jn, G, ldg);
        }
      }
    }
  }
}

}  // namespace detail
#endif

// The lower triangle of columns [j0, j0 + nb) of A' A into G, by the
// AVX-512 path, else the AVX2 one; false (G untouched) where neither runs.
inline bool gram_panel(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::Index j0, Eigen::Index nb,
                       Eigen::Ref<Eigen::MatrixXd> G) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (!avx2() || A.innerStride() != 1 || G.innerStride() != 1) return false;
  for (Eigen::Index j = j0; j < j0 + nb; ++j) G.col(j).tail(A.cols() - j).setZero();
  if (avx512())
    detail::gram_panel_avx512(A.data(), A.outerStride(), A.rows(), A.cols(), j0, nb, G.data(), G.outerStride());
  else
    detail::gram_panel_avx2(A.data(), A.outerStride(), A.rows(), A.cols(), j0, nb, G.data(), G.outerStride());
  return true;
#else
  (void)A;
  (void)j0;
  (void)nb;
  (void)G;
  return false;
#endif
}

}  // namespace simd
}  // namespace sparsebayes
