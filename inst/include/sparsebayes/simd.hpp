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
#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

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

// The nonzero part of a factor of multiply_add(): all of it, or the
// triangle on and below (lower: A(i, p) = 0 for p > i + diag) or on and
// above (upper: p < i + diag) a diagonal p = i + diag.
enum class Shape { full, lower, upper };

#ifdef SPARSEBAYES_X86_DISPATCH
namespace detail {

// Rows per block of the Gram product: 6 column segments of 512 rows stay in
// the level-1 cache while a block of 2 x 4 column pairs is formed.
constexpr Eigen::Index kGramRows = 512;

// The operands of a product of columns C(i, j) += a_i' b_j over rows: the
// Gram product (B = A, lower: only i >= j) or the cross product A'B (all
// i, j). Pointers at the first row of the rows summed.
struct Operands {
  const double* A;
  Eigen::Index lda, SA;  // leading dimension; columns of A
  const double* B;
  Eigen::Index ldb;
  double* C;
  Eigen::Index ldc;
  bool lower;
};

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

// The AVX-512 block: 4 x 4 columns (16 accumulators of 8 lanes, 32
// registers), lanes summed ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)),
// then the rows past the last multiple of 8.
__attribute__((target("avx512f"))) inline void gram_block_4x4(const double* const* a, const double* const* b,
                                                                Eigen::Index rn, double out[4][4]) {
  const Eigen::Index r8 = rn - rn % 8;
  __m512d c[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) c[i][j] = _mm512_setzero_pd();
  for (Eigen::Index r = 0; r < r8; r += 8) {
    const __m512d x0 = _mm512_loadu_pd(a[0] + r), x1 = _mm512_loadu_pd(a[1] + r), x2 = _mm512_loadu_pd(a[2] + r),
                  x3 = _mm512_loadu_pd(a[3] + r);
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
      _mm512_store_pd(l, c[i][j]);
      double s = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
      for (Eigen::Index r = r8; r < rn; ++r) s += a[i][r] * b[j][r];
      out[i][j] = s;
    }
}

// Columns [j0, j0 + nb) of the product over rows [0, n), by blocks of
// kGramRows rows and of IB x 4 columns (the block kernel). A block at the
// edge (fewer columns left) repeats its last column and drops those
// entries, so every entry is summed in the same order wherever it sits: its
// bits depend on its two columns alone. One loop for both paths, inlined
// into each path's function.
template <int IB, typename Block>
__attribute__((always_inline)) inline void product_panel(const Operands& o, Eigen::Index n, Eigen::Index j0,
                                                         Eigen::Index nb, Block block) {
  const Eigen::Index jend = j0 + nb;
  for (Eigen::Index r0 = 0; r0 < n; r0 += kGramRows) {
    const Eigen::Index rn = std::min(kGramRows, n - r0);
    for (Eigen::Index jb = j0; jb < jend; jb += 4) {
      const Eigen::Index jn = std::min<Eigen::Index>(4, jend - jb);
      for (Eigen::Index ib = o.lower ? jb : 0; ib < o.SA; ib += IB) {
        const Eigen::Index in = std::min<Eigen::Index>(IB, o.SA - ib);
        const double* a[IB];
        const double* b[4];
        for (int k = 0; k < IB; ++k) a[k] = o.A + (ib + std::min<Eigen::Index>(k, in - 1)) * o.lda + r0;
        for (int k = 0; k < 4; ++k) b[k] = o.B + (jb + std::min<Eigen::Index>(k, jn - 1)) * o.ldb + r0;
        double out[IB][4];
        block(a, b, rn, out);
        for (int i = 0; i < in; ++i)
          for (int j = 0; j < jn; ++j)
            if (!o.lower || ib + i >= jb + j) o.C[(jb + j) * o.ldc + ib + i] += out[i][j];
      }
    }
  }
}

__attribute__((target("avx2,fma"))) inline void product_panel_avx2(const Operands& o, Eigen::Index n, Eigen::Index j0,
                                                                     Eigen::Index nb) {
  product_panel<2>(o, n, j0, nb, gram_block_2x4);
}
__attribute__((target("avx512f"))) inline void product_panel_avx512(const Operands& o, Eigen::Index n, Eigen::Index j0,
                                                                       Eigen::Index nb) {
  product_panel<4>(o, n, j0, nb, gram_block_4x4);
}

}  // namespace detail
#endif

#ifdef SPARSEBAYES_X86_DISPATCH
namespace detail {

// C += s A B in the broadcast form (the Gram kernels take dot products
// down long columns; here the inner dimension may be short): tiles of 16
// rows (AVX-512) or 8 (AVX2) by 4 columns, the tile's rows of a column of A
// loaded as vectors (masked past m), B's 4 columns packed (4 x k,
// contiguous) and broadcast. A may be triangular (`shape`, about a diagonal
// p = i + diag): its other triangle is neither read nor multiplied, and a
// tile's p run is cut to the triangle. `lower_c` >= 0: only C(i, j) with
// i >= j + lower_c is written. The inner dimension runs in blocks of kMultiplyDepth (4
// columns of B packed once per block, A's rows streamed from the level-2
// cache); an entry is one FMA chain over the p of a block, in order, added
// into C as C + s acc, so its bits depend on the sizes and its own row and
// column alone.
struct Multiply {
  const double* A;
  Eigen::Index lda;
  const double* B;
  Eigen::Index b_row, b_col;  // B(p, j) = B[p * b_row + j * b_col]
  double* C;
  Eigen::Index ldc, m, n, k;
  double s;
  Shape shape;
  Eigen::Index diag;  // A's diagonal: p = i + diag
  int lower_c;        // -1: all of C; else only C(i, j) with i >= j + lower_c
};

constexpr Eigen::Index kMultiplyDepth = 256;  // at least a Cholesky block (128): its update is one chain

// Columns [j0, j0 + jn) (jn <= 4) of B's rows [k0, k1) into pack, 4 per p;
// a block at the edge repeats its last column, as the Gram kernels do.
__attribute__((always_inline)) inline void pack_columns(const Multiply& o, Eigen::Index k0, Eigen::Index k1,
                                                        Eigen::Index j0, Eigen::Index jn, double* pack) {
  for (Eigen::Index p = k0; p < k1; ++p)
    for (int c = 0; c < 4; ++c) pack[4 * (p - k0) + c] = o.B[p * o.b_row + (j0 + std::min<Eigen::Index>(c, jn - 1)) * o.b_col];
}

// The p run [p0, p1) of a tile of rows [i0, i0 + rows) within [k0, k1), cut
// to A's triangle, and for one p the rows [lo, hi) of the tile it multiplies.
__attribute__((always_inline)) inline void tile_depth(const Multiply& o, Eigen::Index i0, Eigen::Index rows,
                                                      Eigen::Index k0, Eigen::Index k1, Eigen::Index& p0,
                                                      Eigen::Index& p1) {
  p0 = o.shape == Shape::upper ? std::max(k0, i0 + o.diag) : k0;
  p1 = o.shape == Shape::lower ? std::min(k1, i0 + rows + o.diag) : k1;
}
__attribute__((always_inline)) inline void tile_rows(const Multiply& o, Eigen::Index i0, Eigen::Index p,
                                                     Eigen::Index rem, Eigen::Index& lo, Eigen::Index& hi) {
  const Eigen::Index r = p - o.diag - i0;  // the tile's row on A's diagonal at p
  lo = o.shape == Shape::lower ? std::clamp<Eigen::Index>(r, 0, rem) : 0;
  hi = o.shape == Shape::upper ? std::clamp<Eigen::Index>(r + 1, 0, rem) : rem;
}

// The p of [p0, p1) whose rows need a mask of their own: [e0, e1), where
// A's triangle crosses the tile (empty for a full A).
__attribute__((always_inline)) inline void tile_edge(const Multiply& o, Eigen::Index i0, Eigen::Index rows,
                                                     Eigen::Index p0, Eigen::Index p1, Eigen::Index& e0,
                                                     Eigen::Index& e1) {
  const Eigen::Index d = i0 + o.diag;  // p on the diagonal at the tile's first row
  if (o.shape == Shape::lower) e0 = std::clamp(d + 1, p0, p1), e1 = p1;  // rows below p - diag
  else if (o.shape == Shape::upper) e0 = p0, e1 = std::clamp(d + rows - 1, p0, p1);  // rows above
  else e0 = e1 = p0;
}

// A tile of C: rows [i0, i0 + rem), columns [j0, j0 + jn), the p run
// [p0, p1) of the depth block from k0 (tile_depth()), masked in [e0, e1).
struct Tile {
  Eigen::Index i0, rem, j0, jn, k0, p0, e0, e1, p1;
};

// One loop nest for both paths, inlined into each path's function: blocks
// of the depth, 4 columns of B packed, then every tile of T rows in turn
// (from the diagonal's block with lower_c).
template <Eigen::Index T, typename TileKernel>
__attribute__((always_inline)) inline void multiply_tiles(const Multiply& o, double* pack, TileKernel kernel) {
  for (Eigen::Index k0 = 0; k0 < o.k; k0 += kMultiplyDepth) {
    const Eigen::Index k1 = std::min(o.k, k0 + kMultiplyDepth);
    for (Eigen::Index j0 = 0; j0 < o.n; j0 += 4) {
      const Eigen::Index jn = std::min<Eigen::Index>(4, o.n - j0);
      pack_columns(o, k0, k1, j0, jn, pack);
      for (Eigen::Index i0 = o.lower_c >= 0 ? j0 - j0 % T : 0; i0 < o.m; i0 += T) {
        Tile t{i0, std::min(T, o.m - i0), j0, jn, k0, 0, 0, 0, 0};
        tile_depth(o, i0, t.rem, k0, k1, t.p0, t.p1);
        if (t.p0 >= t.p1) continue;
        tile_edge(o, i0, t.rem, t.p0, t.p1, t.e0, t.e1);
        kernel(o, pack, t);
      }
    }
  }
}

// acc[c] += A(tile rows, p) B(p, c) for `count` p from a (A's column p0,
// the tile's first row) and b (the pack at p0), rows by the masks.
__attribute__((target("avx512f"), always_inline)) inline void fma_run_avx512(const double* a, Eigen::Index lda,
                                                                           const double* b, Eigen::Index count,
                                                                           unsigned rows, __m512d (&acc)[4][2]) {
  const __mmask8 m0 = static_cast<__mmask8>(rows), m1 = static_cast<__mmask8>(rows >> 8);
  // written out: the 8 accumulators must stay in registers
  __m512d c00 = acc[0][0], c10 = acc[0][1], c01 = acc[1][0], c11 = acc[1][1], c02 = acc[2][0], c12 = acc[2][1],
          c03 = acc[3][0], c13 = acc[3][1];
  for (Eigen::Index q = 0; q < count; ++q, a += lda, b += 4) {
    const __m512d x0 = _mm512_maskz_loadu_pd(m0, a), x1 = _mm512_maskz_loadu_pd(m1, a + 8);
    __m512d y = _mm512_set1_pd(b[0]);
    c00 = _mm512_fmadd_pd(x0, y, c00);
    c10 = _mm512_fmadd_pd(x1, y, c10);
    y = _mm512_set1_pd(b[1]);
    c01 = _mm512_fmadd_pd(x0, y, c01);
    c11 = _mm512_fmadd_pd(x1, y, c11);
    y = _mm512_set1_pd(b[2]);
    c02 = _mm512_fmadd_pd(x0, y, c02);
    c12 = _mm512_fmadd_pd(x1, y, c12);
    y = _mm512_set1_pd(b[3]);
    c03 = _mm512_fmadd_pd(x0, y, c03);
    c13 = _mm512_fmadd_pd(x1, y, c13);
  }
  acc[0][0] = c00, acc[0][1] = c10, acc[1][0] = c01, acc[1][1] = c11, acc[2][0] = c02, acc[2][1] = c12,
  acc[3][0] = c03, acc[3][1] = c13;
}

// acc (the tile's 16 rows by 4 columns) from p0 to p1, rows masked from e0
// to e1 (tile_edge()), then C += s acc in the rows and columns written.
__attribute__((target("avx512f"))) inline void multiply_tile_avx512(const Multiply& o, const double* pack,
                                                                      const Tile& t) {
  __m512d acc[4][2];
  for (auto& a : acc) a[0] = a[1] = _mm512_setzero_pd();
  const unsigned all = (1u << t.rem) - 1u;
  const double* a = o.A + t.i0;
  const double* b = pack - 4 * t.k0;
  fma_run_avx512(a + t.p0 * o.lda, o.lda, b + 4 * t.p0, t.e0 - t.p0, all, acc);
  for (Eigen::Index p = t.e0; p < t.e1; ++p) {
    Eigen::Index lo, hi;
    tile_rows(o, t.i0, p, t.rem, lo, hi);
    fma_run_avx512(a + p * o.lda, o.lda, b + 4 * p, 1, ((1u << hi) - 1u) & ~((1u << lo) - 1u), acc);
  }
  fma_run_avx512(a + t.e1 * o.lda, o.lda, b + 4 * t.e1, t.p1 - t.e1, all, acc);
  const __m512d s = _mm512_set1_pd(o.s);
  for (int c = 0; c < t.jn; ++c) {
    const Eigen::Index j = t.j0 + c;
    const Eigen::Index first = o.lower_c >= 0 ? std::clamp<Eigen::Index>(j + o.lower_c - t.i0, 0, t.rem) : 0;
    const unsigned keep = all & ~((1u << first) - 1u);
    for (int h = 0; h < 2; ++h) {
      const __mmask8 mk = static_cast<__mmask8>(keep >> (8 * h));
      if (!mk) continue;
      double* dst = o.C + j * o.ldc + t.i0 + 8 * h;
      _mm512_mask_storeu_pd(dst, mk, _mm512_fmadd_pd(s, acc[c][h], _mm512_maskz_loadu_pd(mk, dst)));
    }
  }
}
__attribute__((target("avx512f"))) inline void multiply_avx512(const Multiply& o, double* pack) {
  multiply_tiles<16>(o, pack, multiply_tile_avx512);
}

// The lanes with lo <= lane < hi.
__attribute__((target("avx2"))) inline __m256i lanes_between(__m256i lane, Eigen::Index lo, Eigen::Index hi) {
  return _mm256_andnot_si256(_mm256_cmpgt_epi64(_mm256_set1_epi64x(lo), lane),
                             _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), lane));
}

__attribute__((target("avx2,fma"), always_inline)) inline void fma_run_avx2(const double* a, Eigen::Index lda,
                                                                          const double* b, Eigen::Index count,
                                                                          __m256i m0, __m256i m1,
                                                                          __m256d (&acc)[4][2]) {
  __m256d c00 = acc[0][0], c10 = acc[0][1], c01 = acc[1][0], c11 = acc[1][1], c02 = acc[2][0], c12 = acc[2][1],
          c03 = acc[3][0], c13 = acc[3][1];
  for (Eigen::Index q = 0; q < count; ++q, a += lda, b += 4) {
    const __m256d x0 = _mm256_maskload_pd(a, m0), x1 = _mm256_maskload_pd(a + 4, m1);
    __m256d y = _mm256_broadcast_sd(b);
    c00 = _mm256_fmadd_pd(x0, y, c00);
    c10 = _mm256_fmadd_pd(x1, y, c10);
    y = _mm256_broadcast_sd(b + 1);
    c01 = _mm256_fmadd_pd(x0, y, c01);
    c11 = _mm256_fmadd_pd(x1, y, c11);
    y = _mm256_broadcast_sd(b + 2);
    c02 = _mm256_fmadd_pd(x0, y, c02);
    c12 = _mm256_fmadd_pd(x1, y, c12);
    y = _mm256_broadcast_sd(b + 3);
    c03 = _mm256_fmadd_pd(x0, y, c03);
    c13 = _mm256_fmadd_pd(x1, y, c13);
  }
  acc[0][0] = c00, acc[0][1] = c10, acc[1][0] = c01, acc[1][1] = c11, acc[2][0] = c02, acc[2][1] = c12,
  acc[3][0] = c03, acc[3][1] = c13;
}

__attribute__((target("avx2,fma"))) inline void multiply_tile_avx2(const Multiply& o, const double* pack,
                                                                     const Tile& t) {
  const __m256i lane0 = _mm256_set_epi64x(3, 2, 1, 0), lane1 = _mm256_set_epi64x(7, 6, 5, 4);
  __m256d acc[4][2];
  for (auto& a : acc) a[0] = a[1] = _mm256_setzero_pd();
  const __m256i all0 = lanes_between(lane0, 0, t.rem), all1 = lanes_between(lane1, 0, t.rem);
  const double* a = o.A + t.i0;
  const double* b = pack - 4 * t.k0;
  fma_run_avx2(a + t.p0 * o.lda, o.lda, b + 4 * t.p0, t.e0 - t.p0, all0, all1, acc);
  for (Eigen::Index p = t.e0; p < t.e1; ++p) {
    Eigen::Index lo, hi;
    tile_rows(o, t.i0, p, t.rem, lo, hi);
    fma_run_avx2(a + p * o.lda, o.lda, b + 4 * p, 1, lanes_between(lane0, lo, hi), lanes_between(lane1, lo, hi), acc);
  }
  fma_run_avx2(a + t.e1 * o.lda, o.lda, b + 4 * t.e1, t.p1 - t.e1, all0, all1, acc);
  const __m256d s = _mm256_set1_pd(o.s);
  for (int c = 0; c < t.jn; ++c) {
    const Eigen::Index j = t.j0 + c;
    const Eigen::Index first = o.lower_c >= 0 ? std::clamp<Eigen::Index>(j + o.lower_c - t.i0, 0, t.rem) : 0;
    double* dst = o.C + j * o.ldc + t.i0;
    const __m256i k0m = lanes_between(lane0, first, t.rem), k1m = lanes_between(lane1, first, t.rem);
    _mm256_maskstore_pd(dst, k0m, _mm256_fmadd_pd(s, acc[c][0], _mm256_maskload_pd(dst, k0m)));
    _mm256_maskstore_pd(dst + 4, k1m, _mm256_fmadd_pd(s, acc[c][1], _mm256_maskload_pd(dst + 4, k1m)));
  }
}
__attribute__((target("avx2,fma"))) inline void multiply_avx2(const Multiply& o, double* pack) {
  multiply_tiles<8>(o, pack, multiply_tile_avx2);
}

// exp(x) by x = n ln 2 + r, |r| <= ln 2 / 2: the Taylor polynomial of
// degree 13 in r (truncation below 1e-17 relative) by Horner's rule, times
// 2^n built in the exponent bits; n from adding 1.5 * 2^52, which rounds
// x log2(e) to an integer in the low bits. Valid for x in [kExpLow,
// kExpHigh]; the callers send the other lanes (underflow to subnormals,
// overflow, NaN) to std::exp. Each lane is a function of its own x alone,
// so an entry's value never depends on where it sits in a vector.
constexpr double kExpLow = -708.0, kExpHigh = 709.0;
constexpr double kExpCoef[14] = {1.0,
                                 1.0,
                                 1.0 / 2,
                                 1.0 / 6,
                                 1.0 / 24,
                                 1.0 / 120,
                                 1.0 / 720,
                                 1.0 / 5040,
                                 1.0 / 40320,
                                 1.0 / 362880,
                                 1.0 / 3628800,
                                 1.0 / 39916800,
                                 1.0 / 479001600,
                                 1.0 / 6227020800.0};
constexpr double kLog2e = 1.4426950408889634, kLn2Hi = 0.6931471805599453, kLn2Lo = 2.3190468138462996e-17;
constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
constexpr long long kExponentShift = 1023LL - (1LL << 51);

__attribute__((target("avx2,fma"))) inline __m256d exp_avx2(__m256d x) {
  const __m256d magic = _mm256_set1_pd(kRoundMagic);
  const __m256d t = _mm256_fmadd_pd(x, _mm256_set1_pd(kLog2e), magic);
  const __m256d n = _mm256_sub_pd(t, magic);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(kLn2Hi), x);
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(kLn2Lo), r);
  __m256d p = _mm256_set1_pd(kExpCoef[13]);
  for (int k = 12; k >= 0; --k) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kExpCoef[k]));
  const __m256i e =
      _mm256_slli_epi64(_mm256_add_epi64(_mm256_castpd_si256(t), _mm256_set1_epi64x(kExponentShift)), 52);
  return _mm256_mul_pd(p, _mm256_castsi256_pd(e));
}

__attribute__((target("avx512f"))) inline __m512d exp_avx512(__m512d x) {
  const __m512d magic = _mm512_set1_pd(kRoundMagic);
  const __m512d t = _mm512_fmadd_pd(x, _mm512_set1_pd(kLog2e), magic);
  const __m512d n = _mm512_sub_pd(t, magic);
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(kLn2Hi), x);
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(kLn2Lo), r);
  __m512d p = _mm512_set1_pd(kExpCoef[13]);
  for (int k = 12; k >= 0; --k) p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(kExpCoef[k]));
  const __m512i e =
      _mm512_slli_epi64(_mm512_add_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(kExponentShift)), 52);
  return _mm512_mul_pd(p, _mm512_castsi512_pd(e));
}

// v[i] = exp(s v[i]) for i < n; the last lanes by masked loads and stores.
__attribute__((target("avx2,fma"))) inline void exp_scaled_avx2(double* v, Eigen::Index n, double s) {
  const __m256d scale = _mm256_set1_pd(s), low = _mm256_set1_pd(kExpLow), high = _mm256_set1_pd(kExpHigh);
  for (Eigen::Index i = 0; i < n; i += 4) {
    const Eigen::Index left = std::min<Eigen::Index>(4, n - i);
    const __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(left), _mm256_set_epi64x(3, 2, 1, 0));
    const __m256d x = _mm256_mul_pd(_mm256_maskload_pd(v + i, mask), scale);
    alignas(32) double out[4], in[4];
    _mm256_store_pd(out, exp_avx2(x));
    const int ok = _mm256_movemask_pd(_mm256_and_pd(_mm256_cmp_pd(x, low, _CMP_GE_OQ), _mm256_cmp_pd(x, high, _CMP_LE_OQ)));
    if (ok != 0xF) {
      _mm256_store_pd(in, x);
      for (int k = 0; k < 4; ++k)
        if (!(ok >> k & 1)) out[k] = std::exp(in[k]);
    }
    _mm256_maskstore_pd(v + i, mask, _mm256_load_pd(out));
  }
}

__attribute__((target("avx512f"))) inline void exp_scaled_avx512(double* v, Eigen::Index n, double s) {
  const __m512d scale = _mm512_set1_pd(s), low = _mm512_set1_pd(kExpLow), high = _mm512_set1_pd(kExpHigh);
  for (Eigen::Index i = 0; i < n; i += 8) {
    const Eigen::Index left = std::min<Eigen::Index>(8, n - i);
    const __mmask8 mask = static_cast<__mmask8>((1u << left) - 1u);
    const __m512d x = _mm512_mul_pd(_mm512_maskz_loadu_pd(mask, v + i), scale);
    __m512d y = exp_avx512(x);
    const __mmask8 ok = _mm512_cmp_pd_mask(x, low, _CMP_GE_OQ) & _mm512_cmp_pd_mask(x, high, _CMP_LE_OQ);
    if (ok != 0xFF) {
      alignas(64) double out[8], in[8];
      _mm512_store_pd(out, y);
      _mm512_store_pd(in, x);
      for (int k = 0; k < 8; ++k)
        if (!(ok >> k & 1)) out[k] = std::exp(in[k]);
      y = _mm512_load_pd(out);
    }
    _mm512_mask_storeu_pd(v + i, mask, y);
  }
}

}  // namespace detail
#endif

#ifdef SPARSEBAYES_X86_DISPATCH
namespace detail {

// Columns [j0, j0 + nb) of the product o (rows [0, n)) added into o.C, by
// the AVX-512 path, else the AVX2 one. The columns go to `threads` threads
// in groups of 4 dealt in turn; each thread takes the blocks of rows in
// order, and for each block all its groups while the block is in cache. A
// group's blocks and sums are those of the whole panel's, so the result
// does not depend on the number of threads. One parallel region per panel:
// its work is interrupt_panel()'s, large enough that a thread the system
// deschedules does not hold up many small regions.
inline void add_product_panel(const Operands& o, Eigen::Index n, Eigen::Index j0, Eigen::Index nb, int threads) {
  const auto panel = avx512() ? product_panel_avx512 : product_panel_avx2;
  const Eigen::Index groups = (nb + 3) / 4;
  threads = static_cast<int>(std::clamp<Eigen::Index>(threads, 1, groups));
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1)
#endif
  {
#ifdef _OPENMP
    const Eigen::Index first = omp_get_thread_num(), step = omp_get_num_threads();
#else
    const Eigen::Index first = 0, step = 1;
#endif
    for (Eigen::Index r0 = 0; r0 < n; r0 += kGramRows) {
      const Eigen::Index rn = std::min(kGramRows, n - r0);
      const Operands block{o.A + r0, o.lda, o.SA, o.B + r0, o.ldb, o.C, o.ldc, o.lower};
      for (Eigen::Index g = first; g < groups; g += step) {
        const Eigen::Index jb = j0 + 4 * g;
        panel(block, rn, jb, std::min<Eigen::Index>(4, j0 + nb - jb));
      }
    }
  }
}

// The lower triangle of columns [j0, j0 + nb) of A' A added into G.
inline void add_gram_panel(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::Index j0, Eigen::Index nb, double* G,
                           Eigen::Index ldg, int threads) {
  add_product_panel({A.data(), A.outerStride(), A.cols(), A.data(), A.outerStride(), G, ldg, true}, A.rows(), j0, nb,
                    threads);
}

}  // namespace detail
#endif

// The lower triangle of columns [j0, j0 + nb) of A' A into G on `threads`
// (detail::add_product_panel()); false (G untouched) where no SIMD path runs.
inline bool gram_panel(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::Index j0, Eigen::Index nb,
                       Eigen::Ref<Eigen::MatrixXd> G, int threads = 1) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (!avx2() || A.innerStride() != 1 || G.innerStride() != 1) return false;
  for (Eigen::Index j = j0; j < j0 + nb; ++j) G.col(j).tail(A.cols() - j).setZero();
  detail::add_gram_panel(A, j0, nb, G.data(), G.outerStride(), threads);
  return true;
#else
  (void)A;
  (void)j0;
  (void)nb;
  (void)G;
  (void)threads;
  return false;
#endif
}

// Columns [j0, j0 + nb) of A' B into C (A: n x SA, B: n x SB, C: SA x SB) by
// the Gram product's blocks; false (C untouched) where no SIMD path runs.
inline bool cross_panel(const Eigen::Ref<const Eigen::MatrixXd>& A, const Eigen::Ref<const Eigen::MatrixXd>& B,
                        Eigen::Index j0, Eigen::Index nb, Eigen::Ref<Eigen::MatrixXd> C) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (!avx2() || A.innerStride() != 1 || B.innerStride() != 1 || C.innerStride() != 1) return false;
  C.middleCols(j0, nb).setZero();
  detail::add_product_panel({A.data(), A.outerStride(), A.cols(), B.data(), B.outerStride(), C.data(), C.outerStride(),
                             false},
                            A.rows(), j0, nb, 1);
  return true;
#else
  (void)A;
  (void)B;
  (void)j0;
  (void)nb;
  (void)C;
  return false;
#endif
}

// C += s A B (A: m x k, B: k x n, C: m x n), or s A Bt' with `transposed`
// (Bt: n x k), by detail::multiply_avx512/avx2: `shape` and `diag` say
// which triangle of A is read (the rest counts as zero), `lower_c` >= 0
// that only C(i, j) with i >= j + lower_c is written (0: the lower
// triangle; -1: all of C). False (C untouched) where no SIMD
// path runs.
inline bool multiply_add(const Eigen::Ref<const Eigen::MatrixXd>& A, const Eigen::Ref<const Eigen::MatrixXd>& B,
                         Eigen::Ref<Eigen::MatrixXd> C, double s, bool transposed = false, Shape shape = Shape::full,
                         Eigen::Index diag = 0, int lower_c = -1) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (!avx2() || A.innerStride() != 1 || B.innerStride() != 1 || C.innerStride() != 1) return false;
  const detail::Multiply o{A.data(), A.outerStride(), B.data(), transposed ? B.outerStride() : 1,
                           transposed ? 1 : B.outerStride(), C.data(), C.outerStride(), A.rows(),
                           transposed ? B.rows() : B.cols(), A.cols(), s, shape, diag, lower_c};
  std::vector<double> pack(4 * static_cast<std::size_t>(detail::kMultiplyDepth));
  (avx512() ? detail::multiply_avx512 : detail::multiply_avx2)(o, pack.data());
  return true;
#else
  (void)A;
  (void)B;
  (void)C;
  (void)s;
  (void)transposed;
  (void)shape;
  (void)diag;
  (void)lower_c;
  return false;
#endif
}

// C -= A A' in the lower triangle (A: m x k, C: m x m), the trailing update
// of a blocked Cholesky; false (C untouched) where no SIMD path runs.
inline bool rank_update_lower(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::Ref<Eigen::MatrixXd> C) {
  return multiply_add(A, A, C, -1.0, true, Shape::full, 0, 0);
}

// G += A A' in the lower triangle (A: S x rows, as the sparse GP holds a
// block of its rows; G: S x S); false (G untouched) where no SIMD path runs.
inline bool add_outer_lower(const Eigen::Ref<const Eigen::MatrixXd>& A, Eigen::Ref<Eigen::MatrixXd> G) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (!avx2() || G.innerStride() != 1) return false;
  const Eigen::MatrixXd T = A.transpose();
  detail::add_gram_panel(T, 0, T.cols(), G.data(), G.outerStride(), 1);
  return true;
#else
  (void)A;
  (void)G;
  return false;
#endif
}

// K = exp(s K), column by column: by the AVX-512 path, else the AVX2 one,
// else Eigen's exp (SSE2), whose last bits may differ.
inline void exp_scaled(Eigen::Ref<Eigen::MatrixXd> K, double s) {
#ifdef SPARSEBAYES_X86_DISPATCH
  if (avx2()) {
    const auto column = avx512() ? detail::exp_scaled_avx512 : detail::exp_scaled_avx2;
    for (Eigen::Index j = 0; j < K.cols(); ++j) column(K.col(j).data(), K.rows(), s);
    return;
  }
#endif
  K.array() = (K.array() * s).exp();
}

}  // namespace simd
}  // namespace sparsebayes
