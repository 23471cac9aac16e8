// The Cholesky helpers, inverses and the Gaussian log evidence of
// sparsebayes/model.hpp (and the triangular inverse of sparse_gp.hpp).
#include <testthat.h>

#include <sparsebayes/model.hpp>
#include <sparsebayes/sparse_gp.hpp>

#include "test-helpers.h"

namespace {

// L L' from the lower triangle of `factor`.
Eigen::MatrixXd product_of_lower(const Eigen::MatrixXd& factor) {
  const Eigen::MatrixXd L = factor.triangularView<Eigen::Lower>();
  return L * L.transpose();
}

// A singular positive semi-definite matrix whose Cholesky factorisation
// meets an exactly zero pivot (no round-off): blockdiag(v v', 1 1') with
// integer v, rank 2 in 6 dimensions.
Eigen::MatrixXd singular_psd() {
  const Eigen::Vector4d v(1.0, 2.0, 3.0, 4.0);
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(6, 6);
  S.topLeftCorner(4, 4) = v * v.transpose();
  S.bottomRightCorner(2, 2).setOnes();
  return S;
}

}  // namespace

context("Cholesky helpers") {
  std::mt19937 rng(7);

  test_that("cholesky_in_place: L L' reproduces a random SPD matrix, unblocked and blocked") {
    for (Eigen::Index size : {1, 5, 31, 32, 70, 200}) {
      const Eigen::MatrixXd A = sbtest::random_spd(size, rng);
      Eigen::MatrixXd F = A;
      F.triangularView<Eigen::StrictlyUpper>().setConstant(-3.0);
      expect_true(sparsebayes::cholesky_in_place(F));
      expect_true(sbtest::relative_difference(product_of_lower(F), A) <= 1e-13);
      // the same factor as Eigen's LLT, and the strict upper triangle untouched
      const Eigen::MatrixXd L = A.llt().matrixL();
      expect_true(sbtest::relative_difference(Eigen::MatrixXd(F.triangularView<Eigen::Lower>()), L) <= 1e-12);
      const Eigen::Index untouched = (F.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().array() == -3.0).count();
      expect_true(untouched == size * (size - 1) / 2);
    }
  }

  test_that("cholesky_in_place and CheckedLLT refuse a matrix that is not positive definite") {
    for (Eigen::Index size : {4, 80}) {
      Eigen::MatrixXd A = sbtest::random_spd(size, rng);
      A(size - 1, size - 1) = -1.0;
      Eigen::MatrixXd F = A;
      expect_false(sparsebayes::cholesky_in_place(F));
      expect_true(sparsebayes::CheckedLLT(A).info() == Eigen::NumericalIssue);
      const Eigen::MatrixXd B = sbtest::random_spd(size, rng);
      const sparsebayes::CheckedLLT llt(B);
      expect_true(llt.info() == Eigen::Success);
      const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(size, -1.0, 2.0);
      expect_true(sbtest::relative_difference(llt.solve(b), B.llt().solve(b)) <= 1e-12);
    }
  }

  test_that("cholesky_inverse and weight_posterior against Eigen's solve") {
    const Eigen::MatrixXd H = sbtest::random_spd(40, rng);
    int events = 0;
    const Eigen::LLT<Eigen::MatrixXd> llt = sparsebayes::robust_cholesky(H, events);
    expect_true(events == 0);
    const Eigen::MatrixXd Hinv = sparsebayes::cholesky_inverse(llt);
    expect_true(sbtest::relative_difference(Hinv, H.ldlt().solve(Eigen::MatrixXd::Identity(40, 40))) <= 1e-12);
    expect_true(sbtest::relative_difference(H * Hinv, Eigen::MatrixXd::Identity(40, 40)) <= 1e-12);

    const Eigen::MatrixXd Phi = sbtest::normal_matrix(30, 6, rng);
    const Eigen::VectorXd t = sbtest::normal_matrix(30, 1, rng).col(0);
    const Eigen::VectorXd alpha = (Eigen::VectorXd(6) << 0.5, 1.0, 2.0, 4.0, 0.1, 10.0).finished();
    const double beta = 3.0;
    const sparsebayes::Posterior p =
        sparsebayes::weight_posterior(Phi.transpose() * Phi, Phi.transpose() * t, alpha, beta, events);
    Eigen::MatrixXd Hw = beta * Phi.transpose() * Phi;
    Hw.diagonal() += alpha;
    const Eigen::MatrixXd Sigma = Hw.inverse();
    expect_true(sbtest::relative_difference(p.Sigma, Sigma) <= 1e-12);
    expect_true(sbtest::relative_difference(p.mu, beta * Sigma * Phi.transpose() * t) <= 1e-12);
    expect_true(sbtest::near(p.log_det_H, std::log(Hw.determinant()), 1e-12));
    expect_true(events == 0);
    const Eigen::MatrixXd Li = p.Linv.triangularView<Eigen::Lower>();
    expect_true(sbtest::relative_difference(Li.transpose() * Li, Sigma) <= 1e-12);
  }

  test_that("invert_lower_unblocked() equals Eigen's solve, its strict upper triangle zero") {
    for (Eigen::Index size : {1, 2, 17, 64}) {
      const Eigen::MatrixXd A = sbtest::random_spd(size, rng);
      Eigen::MatrixXd D = A.llt().matrixLLT();  // A's entries above the diagonal
      const Eigen::MatrixXd L = D.triangularView<Eigen::Lower>();
      sparsebayes::invert_lower_unblocked(D);
      const Eigen::MatrixXd expected = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(size, size));
      expect_true(sbtest::relative_difference(D, expected) <= 1e-12);
    }
  }

  test_that("sandwich_diagonal() is diag(C Sigma C') for any number of rows and columns") {
    for (Eigen::Index size : {1, 5, 40, 90}) {
      for (Eigen::Index rows : {1, 7, 130}) {
        const Eigen::MatrixXd H = sbtest::random_spd(size, rng);
        Eigen::MatrixXd Linv = H.llt().matrixLLT();  // its strict upper triangle holds H's: never read
        sparsebayes::invert_lower(Linv);
        const Eigen::MatrixXd C = sbtest::normal_matrix(rows, size, rng);
        const Eigen::VectorXd expected = (C * H.inverse() * C.transpose()).diagonal();
        expect_true(sbtest::relative_difference(sparsebayes::sandwich_diagonal(C, Linv), expected) <= 1e-11);
      }
    }
  }

  test_that("invert_lower and lower_gram_in_place against Eigen's triangular solve") {
    for (Eigen::Index size : {3, 64, 150}) {
      const Eigen::MatrixXd A = sbtest::random_spd(size, rng);
      const Eigen::MatrixXd L = A.llt().matrixL();
      const Eigen::MatrixXd Linv = L.triangularView<Eigen::Lower>().solve(Eigen::MatrixXd::Identity(size, size));
      Eigen::MatrixXd F = L;
      F.triangularView<Eigen::StrictlyUpper>().setConstant(5.0);
      sparsebayes::invert_lower(F);
      const Eigen::MatrixXd Fl = F.triangularView<Eigen::Lower>();
      expect_true(sbtest::relative_difference(Fl, Linv) <= 1e-12);
      expect_true(sbtest::relative_difference(Fl * L, Eigen::MatrixXd::Identity(size, size)) <= 1e-12);
      // L^-T L^-1 = A^-1
      sparsebayes::lower_gram_in_place(F);
      const Eigen::MatrixXd G = F.selfadjointView<Eigen::Lower>();
      expect_true(sbtest::relative_difference(G, A.inverse()) <= 1e-10);
    }
  }

  test_that("with_jitter counts every failed try and returns the jitter that worked") {
    int events = 0;
    double used = -1.0;
    std::vector<double> tried;
    const bool ok = sparsebayes::with_jitter(0.0, 10, events, used, [&](double j) {
      tried.push_back(j);
      return j >= 1e-7;
    });
    expect_true(ok);
    expect_true(events == 4);  // 0, 1e-10, 1e-9, 1e-8 failed
    expect_true(tried.size() == 5u);
    expect_true(tried[0] == 0.0);
    expect_true(sbtest::near(tried[1], 1e-10, 1e-12));
    expect_true(sbtest::near(used, 1e-7, 1e-12));
    events = 0;
    expect_false(sparsebayes::with_jitter(0.0, 3, events, used, [](double) { return false; }));
    expect_true(events == 3);
  }

  test_that("robust_cholesky adds jitter (and counts it) for a singular PSD matrix") {
    const Eigen::MatrixXd S = singular_psd();
    int events = 0;
    const Eigen::LLT<Eigen::MatrixXd> llt = sparsebayes::robust_cholesky(S, events);
    expect_true(events >= 1);
    expect_true(llt.info() == Eigen::Success);
    const Eigen::MatrixXd L = llt.matrixL();
    const Eigen::MatrixXd D = L * L.transpose() - S;
    // what was added is a small multiple of the identity, on the diagonal only
    const double scale = S.diagonal().mean();
    const double added = D(0, 0);
    expect_true(added > 0.0);
    expect_true(added <= 1e-2 * scale * (1.0 + 1e-9));
    expect_true((D.diagonal().array() - added).abs().maxCoeff() <= 1e-9 * scale);
    Eigen::MatrixXd off = D;
    off.diagonal().setZero();
    expect_true(off.cwiseAbs().maxCoeff() <= 1e-9 * scale);
    // an SPD matrix needs none
    events = 0;
    sparsebayes::robust_cholesky(sbtest::random_spd(6, rng), events);
    expect_true(events == 0);
    // and a matrix with a negative eigenvalue beyond the largest jitter is refused
    Eigen::MatrixXd N = Eigen::MatrixXd::Identity(3, 3);
    N(2, 2) = -1.0;
    expect_error(sparsebayes::robust_cholesky(N, events));
  }

  test_that("jittered_cholesky into a reused buffer adds d and the jitter to the diagonal") {
    const Eigen::MatrixXd M = singular_psd();
    const Eigen::VectorXd d = Eigen::VectorXd::Zero(6);
    Eigen::MatrixXd factor;
    int events = 0;
    double used = 0.0;
    expect_true(sparsebayes::jittered_cholesky(M, d, 0.0, 1.0, 10, factor, events, used));
    expect_true(events >= 1);
    expect_true(used > 0.0);
    Eigen::MatrixXd target = M;
    target.diagonal().array() += used;
    expect_true(sbtest::relative_difference(product_of_lower(factor), target) <= 1e-10);
    const Eigen::VectorXd d2 = Eigen::VectorXd::LinSpaced(6, 1.0, 2.0);
    events = 0;
    expect_true(sparsebayes::jittered_cholesky(M, d2, 0.0, 1.0, 10, factor, events, used));
    expect_true(events == 0);
    expect_true(used == 0.0);
    target = M;
    target.diagonal() += d2;
    expect_true(sbtest::relative_difference(product_of_lower(factor), target) <= 1e-12);
  }

  test_that("log_evidence is log N(t | 0, lambda I + Phi A^-1 Phi')") {
    const Eigen::Index n = 25, m = 4;
    const Eigen::MatrixXd Phi = sbtest::normal_matrix(n, m, rng);
    const Eigen::VectorXd t = sbtest::normal_matrix(n, 1, rng).col(0);
    const Eigen::VectorXd alpha = (Eigen::VectorXd(m) << 0.3, 2.0, 5.0, 0.8).finished();
    for (double lambda : {0.5, 1e-3}) {
      int events = 0;
      const sparsebayes::Posterior p =
          sparsebayes::weight_posterior(Phi.transpose() * Phi, Phi.transpose() * t, alpha, 1.0 / lambda, events);
      const Eigen::VectorXd r = t - Phi * p.mu;
      const double value = sparsebayes::log_evidence(p.log_det_H, alpha, p.mu, n * std::log(lambda),
                                                     r.squaredNorm() / lambda, n);
      Eigen::MatrixXd C = Phi * alpha.cwiseInverse().asDiagonal() * Phi.transpose();
      C.diagonal().array() += lambda;
      const Eigen::LLT<Eigen::MatrixXd> llt(C);
      const double logdet = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
      const double direct = -0.5 * (n * std::log(2.0 * M_PI) + logdet + t.dot(llt.solve(t)));
      expect_true(sbtest::near(value, direct, 1e-10));
    }
  }

  test_that("median_in_place and robust_residual_variance") {
    std::vector<double> odd = {5.0, 1.0, 3.0}, even = {4.0, 1.0, 3.0, 2.0};
    expect_true(sparsebayes::median_in_place(odd) == 3.0);
    expect_true(sparsebayes::median_in_place(even) == 2.5);
    const Eigen::VectorXd r = (Eigen::VectorXd(5) << -2.0, -1.0, 0.0, 1.0, 100.0).finished();
    // MAD = 1: (1.4826)^2, unmoved by the outlier
    expect_true(sbtest::near(sparsebayes::robust_residual_variance(r), 1.482602218505602 * 1.482602218505602, 1e-14));
    const Eigen::VectorXd mostly_zero = (Eigen::VectorXd(4) << 0.0, 0.0, 0.0, 2.0).finished();
    expect_true(sbtest::near(sparsebayes::robust_residual_variance(mostly_zero), 1.0, 1e-14));
  }
}
