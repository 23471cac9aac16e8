// The AVX2 + FMA paths of simd.hpp: the Gram, cross and broadcast products
// equal Eigen's to rounding, and their sums do not depend on where the
// matrix sits in memory nor on the number of threads; exp() is within an
// ulp or two of std::exp.
#include <testthat.h>

#include <cmath>
#include <limits>
#include <vector>

#include <sparsebayes/kernels.hpp>
#include <sparsebayes/model.hpp>

namespace {

// A' A by Eigen's product, the reference.
Eigen::MatrixXd eigen_gram(const Eigen::MatrixXd& A) { return A.transpose() * A; }

}  // namespace

context("simd: the Gram product") {
  test_that("scale_rows_into() writes diag(d) A exactly, into a block of a wider matrix too") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(37, 5);
    const Eigen::VectorXd d = Eigen::VectorXd::Random(37);
    const Eigen::MatrixXd E = d.asDiagonal() * A;
    Eigen::MatrixXd out(37, 5), wide = Eigen::MatrixXd::Zero(37, 9);
    sparsebayes::scale_rows_into(d, A, out);
    sparsebayes::scale_rows_into(d, A, wide.middleCols(2, 5));
    expect_true(out == E);
    expect_true(wide.middleCols(2, 5) == E);
    expect_true(wide.leftCols(2).isZero(0.0));
    expect_true(wide.rightCols(2).isZero(0.0));
  }
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
        const sparsebayes::simd::detail::Operands o{A.data(), A.rows(), S, A.data(), A.rows(), G.data(), S, true};
        if (path == 0) sparsebayes::simd::detail::product_panel_avx2(o, A.rows(), 0, S);
        else sparsebayes::simd::detail::product_panel_avx512(o, A.rows(), 0, S);
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
  test_that("its sums do not depend on the number of threads") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(1500, 45);
    const Eigen::MatrixXd one = sparsebayes::gram_matrix(A, 1);
    expect_true(sparsebayes::gram_matrix(A, 2) == one);
    expect_true(sparsebayes::gram_matrix(A, 3) == one);
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

context("simd: the cross product") {
  test_that("cross_matrix() equals Eigen's A'B to rounding on each path, with edge blocks everywhere") {
    const Eigen::Index sizes[][3] = {{1, 1, 1}, {3, 2, 5}, {7, 5, 4}, {513, 9, 13}, {1030, 37, 70}, {990, 143, 154}};
    for (int off = 0; off < 3; ++off) {  // 0: AVX-512 where the CPU has it; 1: AVX2 alone; 2: Eigen's product
      if (off == 1 && !sparsebayes::simd::cpu_has_avx512()) continue;
      for (const auto& s : sizes) {
        const Eigen::MatrixXd A = Eigen::MatrixXd::Random(s[0], s[1]), B = Eigen::MatrixXd::Random(s[0], s[2]);
        Eigen::MatrixXd C;
#ifdef SPARSEBAYES_X86_DISPATCH
        if (off == 1) {
          C = Eigen::MatrixXd::Zero(s[1], s[2]);
          sparsebayes::simd::detail::product_panel_avx2({A.data(), A.rows(), A.cols(), B.data(), B.rows(), C.data(),
                                                         C.rows(), false},
                                                        A.rows(), 0, B.cols());
        }
#endif
        sparsebayes::simd::set_enabled(off != 2);
        if (off != 1) C = sparsebayes::cross_matrix(A, B);
        sparsebayes::simd::set_enabled(true);
        const Eigen::MatrixXd E = A.transpose() * B;
        expect_true((C.rows() == E.rows() && C.cols() == E.cols()));
        expect_true((C - E).cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + E.cwiseAbs().maxCoeff()));
      }
    }
  }
  test_that("its entries do not depend on the alignment of the rows in memory") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(1027, 23), B = Eigen::MatrixXd::Random(1027, 9);
    for (Eigen::Index shift = 1; shift < 4; ++shift) {
      std::vector<double> buffer(A.size() + shift);
      Eigen::Map<Eigen::MatrixXd> S(buffer.data() + shift, A.rows(), A.cols());
      S = A;
      expect_true(sparsebayes::cross_matrix(S, B) == sparsebayes::cross_matrix(A, B));
    }
  }
}

context("simd: the product C += s A B") {
  test_that("each path the CPU has equals Eigen's product to rounding, for every shape, and writes only its part of C") {
#ifdef SPARSEBAYES_X86_DISPATCH
    using sparsebayes::simd::Shape;
    const Eigen::Index sizes[][3] = {{1, 1, 1}, {3, 2, 5}, {7, 5, 7}, {17, 32, 17}, {100, 16, 100}, {301, 37, 301},
                                     {40, 9, 600}, {600, 13, 40}};
    std::vector<double> pack(4 * sparsebayes::simd::detail::kMultiplyDepth);
    for (int path = 0; path < 2; ++path) {
      if (path == 0 && !sparsebayes::simd::cpu_has_avx2()) continue;
      if (path == 1 && !sparsebayes::simd::cpu_has_avx512()) continue;
      for (const auto& sz : sizes) {
        const Eigen::Index m = sz[0], n = sz[1], k = sz[2];
        for (Shape shape : {Shape::full, Shape::lower, Shape::upper}) {
          for (Eigen::Index diag : {Eigen::Index(0), Eigen::Index(3)}) {
            for (int transposed = 0; transposed < 2; ++transposed) {
              for (int lower_c = -1; lower_c < 2; ++lower_c) {
                if (lower_c >= 0 && m != n) continue;
                const Eigen::MatrixXd A = Eigen::MatrixXd::Random(m, k), B = Eigen::MatrixXd::Random(k, n),
                                      Bt = B.transpose(), C0 = Eigen::MatrixXd::Random(m, n);
                Eigen::MatrixXd Aref = A;  // the triangle of A read
                for (Eigen::Index i = 0; i < m; ++i)
                  for (Eigen::Index p = 0; p < k; ++p)
                    if ((shape == Shape::lower && p > i + diag) || (shape == Shape::upper && p < i + diag))
                      Aref(i, p) = 0.0;
                Eigen::MatrixXd E = C0 - 0.5 * Aref * B;
                Eigen::MatrixXd C = C0;
                const Eigen::MatrixXd& Bs = transposed ? Bt : B;
                const sparsebayes::simd::detail::Multiply o{A.data(), m, Bs.data(), transposed ? n : 1,
                                                            transposed ? 1 : k, C.data(), m, m, n, k, -0.5, shape,
                                                            diag, lower_c};
                if (path == 0) sparsebayes::simd::detail::multiply_avx2(o, pack.data());
                else sparsebayes::simd::detail::multiply_avx512(o, pack.data());
                bool close = true, untouched = true;  // one expectation each per case, not per entry
                for (Eigen::Index j = 0; j < n; ++j)
                  for (Eigen::Index i = 0; i < m; ++i) {
                    if (lower_c < 0 || i >= j + lower_c)
                      close = close && std::abs(C(i, j) - E(i, j)) <= 1e-13 * (1.0 + std::abs(E(i, j)));
                    else
                      untouched = untouched && C(i, j) == C0(i, j);
                  }
                expect_true(close);
                expect_true(untouched);
              }
            }
          }
        }
      }
    }
#endif
  }
  test_that("its entries do not depend on the alignment of the rows in memory") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(301, 37), C0 = Eigen::MatrixXd::Random(301, 301);
    Eigen::MatrixXd C = C0;
    sparsebayes::simd::rank_update_lower(A, C);
    for (Eigen::Index shift = 1; shift < 4; ++shift) {
      std::vector<double> a(A.size() + shift), c(C0.size() + shift);
      Eigen::Map<Eigen::MatrixXd> As(a.data() + shift, 301, 37), Cs(c.data() + shift, 301, 301);
      As = A;
      Cs = C0;
      sparsebayes::simd::rank_update_lower(As, Cs);
      expect_true(Cs == C);
    }
  }
  test_that("cholesky_in_place() with the SIMD trailing updates equals Eigen's LLT to rounding") {
    for (Eigen::Index n : {31, 33, 100, 171, 300, 513}) {
      const Eigen::MatrixXd X = Eigen::MatrixXd::Random(n, n);
      Eigen::MatrixXd S = X * X.transpose();
      S.diagonal().array() += static_cast<double>(n);
      Eigen::MatrixXd L = S;
      expect_true(sparsebayes::cholesky_in_place(L));
      const Eigen::MatrixXd E = Eigen::LLT<Eigen::MatrixXd>(S).matrixL();
      const Eigen::MatrixXd D = L.triangularView<Eigen::Lower>().toDenseMatrix() - E;
      expect_true(D.cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + E.cwiseAbs().maxCoeff()));
    }
  }
  test_that("invert_lower(), lower_gram_in_place(), cholesky_inverse() and solve_lower_in_place() equal Eigen's solves on every path") {
    for (int simd = 0; simd < 2; ++simd) {
      sparsebayes::simd::set_enabled(simd == 1);
      for (Eigen::Index n : {1, 5, 63, 64, 65, 171, 300}) {
        const Eigen::MatrixXd X = Eigen::MatrixXd::Random(n, n);
        Eigen::MatrixXd S = X * X.transpose();
        S.diagonal().array() += static_cast<double>(n);
        const Eigen::LLT<Eigen::MatrixXd> llt(S);
        const Eigen::MatrixXd L = llt.matrixL();
        const Eigen::MatrixXd Li = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(n, n));
        Eigen::MatrixXd W = L;
        W.triangularView<Eigen::StrictlyUpper>().setConstant(7.0);  // left as it was
        sparsebayes::invert_lower(W);
        const Eigen::MatrixXd WL = W.triangularView<Eigen::Lower>();
        expect_true((WL - Li).cwiseAbs().maxCoeff() <= 1e-13 * Li.cwiseAbs().maxCoeff());
        expect_true((n == 1 || W(0, n - 1) == 7.0));
        sparsebayes::lower_gram_in_place(W);
        const Eigen::MatrixXd G = Li.transpose() * Li;
        const Eigen::MatrixXd GL = W.triangularView<Eigen::Lower>(), GE = G.triangularView<Eigen::Lower>();
        expect_true((GL - GE).cwiseAbs().maxCoeff() <= 1e-13 * G.cwiseAbs().maxCoeff());
        const Eigen::MatrixXd inv = sparsebayes::cholesky_inverse(llt);
        expect_true((inv - G).cwiseAbs().maxCoeff() <= 1e-13 * G.cwiseAbs().maxCoeff());
        expect_true(inv == inv.transpose());
        const Eigen::MatrixXd R = Eigen::MatrixXd::Random(n, 37), LiR = Li * R;
        Eigen::MatrixXd Y = R;
        sparsebayes::solve_lower_in_place(L, Y);
        expect_true((Y - LiR).cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + LiR.cwiseAbs().maxCoeff()));
      }
    }
    sparsebayes::simd::set_enabled(true);
  }
  test_that("product() equals Eigen's A B to rounding, at any alignment") {
    const Eigen::MatrixXd A = Eigen::MatrixXd::Random(143, 57), B = Eigen::MatrixXd::Random(57, 57);
    const Eigen::MatrixXd P = sparsebayes::product(A, B), E = A * B;
    expect_true((P - E).cwiseAbs().maxCoeff() <= 1e-13 * (1.0 + E.cwiseAbs().maxCoeff()));
    for (Eigen::Index shift = 1; shift < 4; ++shift) {
      std::vector<double> a(A.size() + shift);
      Eigen::Map<Eigen::MatrixXd> As(a.data() + shift, 143, 57);
      As = A;
      expect_true(sparsebayes::product(As, B) == P);
    }
  }
}

context("simd: exp") {
  test_that("each path the CPU has is within 2 ulp of std::exp, and exact at the edges") {
#ifdef SPARSEBAYES_X86_DISPATCH
    std::vector<double> x;
    for (double v = -760.0; v <= 720.0; v += 0.37) x.push_back(v);
    for (double v : {0.0, -0.0, 1e-300, -1e-300, -708.0, -708.5, -745.0, -745.2, -800.0, 709.0, 709.9, 800.0})
      x.push_back(v);
    x.push_back(std::numeric_limits<double>::quiet_NaN());
    x.push_back(-std::numeric_limits<double>::infinity());
    for (int path = 0; path < 2; ++path) {
      if (path == 0 && !sparsebayes::simd::cpu_has_avx2()) continue;
      if (path == 1 && !sparsebayes::simd::cpu_has_avx512()) continue;
      std::vector<double> y = x;
      if (path == 0) sparsebayes::simd::detail::exp_scaled_avx2(y.data(), static_cast<Eigen::Index>(y.size()), 1.0);
      else sparsebayes::simd::detail::exp_scaled_avx512(y.data(), static_cast<Eigen::Index>(y.size()), 1.0);
      double worst = 0.0;
      bool edges = true;
      for (std::size_t i = 0; i < x.size(); ++i) {
        const double e = std::exp(x[i]);
        if (std::isnan(e) || e == 0.0 || std::isinf(e) || e < std::numeric_limits<double>::min()) {
          edges = edges && ((std::isnan(e) && std::isnan(y[i])) || y[i] == e);
          continue;
        }
        worst = std::max(worst, std::abs(y[i] - e) / (std::nextafter(e, HUGE_VAL) - e));
      }
      expect_true(worst <= 2.0);
      expect_true(edges);
    }
#endif
  }
  test_that("a Gaussian kernel entry does not depend on where it sits in the matrix") {
    const Eigen::MatrixXd x = Eigen::MatrixXd::Random(37, 2) * 5.0;
    sparsebayes::Kernel k;
    k.type = sparsebayes::KernelType::gaussian;
    k.width = 0.7;
    const Eigen::MatrixXd K = sparsebayes::kernel_matrix(k, x, x);
    for (Eigen::Index i = 0; i < 37; i += 5) {
      const Eigen::MatrixXd one = sparsebayes::kernel_matrix(k, x.row(i), x.bottomRows(37 - i));
      expect_true(one.row(0) == K.row(i).tail(37 - i));
    }
  }
}
