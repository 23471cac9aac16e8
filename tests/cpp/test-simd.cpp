// The AVX2 + FMA paths of simd.hpp: the Gram product equals Eigen's to
// rounding, and its sums do not depend on where the matrix sits in memory.
#include <testthat.h>

#include <vector>

#include <sparsebayes/model.hpp>

namespace {

// A' A by Eigen's product, the reference.
Eigen::MatrixXd eigen_gram(const Eigen::MatrixXd& A) { return A.transpose() * A; }

}  // namespace

context("simd: the Gram product") {
  test_that("gram_matrix() equals Eigen's A'A to rounding, with edge blocks in rows and columns") {
    const Eigen::Index sizes[][2] = {{1, 1}, {3, 2}, {7, 5}, {513, 9}, {1030, 37}, {2049, 70}};
    for (const auto& nm : sizes) {
      const Eigen::MatrixXd A = Eigen::MatrixXd::Random(nm[0], nm[1]);
      const Eigen::MatrixXd G = sparsebayes::gram_matrix(A), E = eigen_gram(A);
      expect_true((G - E).cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + E.cwiseAbs().maxCoeff()));
      expect_true(G.isApprox(G.transpose(), 0.0));  // mirrored exactly
    }
  }
  test_that("each path the CPU has (AVX2, AVX-512) equals Eigen's A'A to rounding") {
#ifdef SPARSEBAYES_X86_DISPATCH
    const Eigen::Index sizes[][2] = {{5, 3}, {515, 11}, {1030, 37}};
    for (const auto& nm : sizes) {
      const Eigen::MatrixXd A = Eigen::MatrixXd::Random(nm[0], nm[1]), E = eigen_gram(A);
      const Eigen::Index S = A.cols();
      for (int path = 0; path < 2; ++path) {
        if (path == 0 && !sparsebayes::simd::cpu_has_avx2()) continue;
        if (path == 1 && !sparsebayes::simd::cpu_has_avx512()) continue;
        Eigen::MatrixXd G = Eigen::MatrixXd::Zero(S, S);
        if (path == 0) sparsebayes::simd::detail::gram_panel_avx2(A.data(), A.rows(), A.rows(), S, 0, S, G.data(), S);
        else sparsebayes::simd::detail::gram_panel_avx512(A.data(), A.rows(), A.rows(), S, 0, S, G.data(), S);
        const Eigen::MatrixXd D = (G - E).triangularView<Eigen::Lower>();
        expect_true(D.cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + E.cwiseAbs().maxCoeff()));
      }
    }
#endif
  }
  test_that("its sums do not depend on the alignment of the rows in memory") {
    const Eigen::Index n = 1027, M = 23;
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(n, M);
    for (Eigen::Index shift = 1; shift < 4; ++shift) {  // the same matrix 8, 16 and 24 bytes further on
      std::vector<double> buffer(n * M + shift);
      Eigen::Map<Eigen::MatrixXd> B(buffer.data() + shift, n, M);
      B = A;
      expect_true(sparsebayes::gram_matrix(B) == sparsebayes::gram_matrix(A));
    }
  }
  test_that("switched off, the AVX2 path does not run and the product is Eigen's") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(600, 13);
    Eigen::MatrixXd G = Eigen::MatrixXd::Zero(13, 13);
    sparsebayes::simd::set_enabled(false);
    expect_false(sparsebayes::simd::gram_panel(A, 0, 13, G));
    const Eigen::MatrixXd off = sparsebayes::gram_matrix(A);
    sparsebayes::simd::set_enabled(true);
    expect_true(G.isZero(0.0));
    expect_true((off - eigen_gram(A)).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + off.cwiseAbs().maxCoeff()));
    expect_true(sparsebayes::simd::gram_panel(A, 0, 13, G) == sparsebayes::simd::cpu_has_avx2());
  }
}
