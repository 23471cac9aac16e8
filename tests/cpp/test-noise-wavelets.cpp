// Student-t noise (sparsebayes/student_noise.hpp) and the wavelet
// transforms (sparsebayes/wavelets.hpp).
#include <testthat.h>

#include <sparsebayes/student_noise.hpp>
#include <sparsebayes/wavelets.hpp>

#include "test-helpers.h"

context("Student-t noise") {
  test_that("digamma matches known values") {
    // the asymptotic series from x >= 8 on is accurate to about 1e-11
    using sparsebayes::student_detail::digamma;
    expect_true(std::abs(digamma(1.0) - -0.5772156649015329) <= 1e-11);
    expect_true(std::abs(digamma(0.5) - -1.9635100260214235) <= 1e-11);
    expect_true(std::abs(digamma(2.0) - (1.0 - 0.5772156649015329)) <= 1e-11);
    expect_true(std::abs(digamma(10.0) - 2.251752589066721) <= 1e-11);
    expect_true(std::abs(digamma(100.5) - 4.6051743525818454) <= 1e-12);
    // the recurrence digamma(x + 1) = digamma(x) + 1 / x
    for (double x : {0.1, 0.7, 3.3, 12.0}) expect_true(std::abs(digamma(x + 1.0) - digamma(x) - 1.0 / x) <= 1e-12);
    // log(x) - digamma(x) ~ 1 / (2x) for large x, without cancellation
    const double big = 1e8;
    expect_true(std::abs(sparsebayes::student_detail::log_minus_digamma(big) * 2.0 * big - 1.0) <= 1e-7);
  }

  test_that("with nu held, the scale is the fixed point s2 = mean((nu + 1) e / (nu + e / s2))") {
    std::mt19937 rng(11);
    std::student_t_distribution<double> tdist(4.0);
    Eigen::VectorXd E(200);
    for (Eigen::Index i = 0; i < E.size(); ++i) E(i) = std::pow(0.7 * tdist(rng), 2.0);
    for (double nu : {1.0, 4.0, 50.0}) {
      sparsebayes::StudentNoise noise(nu);
      const Eigen::VectorXd lambda = noise.targets(E);
      expect_true(noise.df() == nu);
      const double s2 = noise.scale();
      const double again = ((nu + 1.0) * E.array() / (nu + E.array() / s2)).mean();
      expect_true(std::abs(again - s2) <= 1e-8 * s2);
      // and the targets are (nu s2 + E) / (nu + 1), never below nu s2 / (nu + 1)
      expect_true(sbtest::relative_difference(lambda, ((nu * s2 + E.array()) / (nu + 1.0)).matrix()) <= 1e-14);
      expect_true(lambda.minCoeff() >= nu * s2 / (nu + 1.0));
    }
  }

  test_that("with nu estimated, the profile likelihood is maximal at the estimate") {
    std::mt19937 rng(3);
    std::student_t_distribution<double> tdist(3.0);
    Eigen::VectorXd E(2000);
    for (Eigen::Index i = 0; i < E.size(); ++i) E(i) = std::pow(tdist(rng), 2.0);
    sparsebayes::StudentNoise noise(-1.0);
    noise.targets(E);
    const double nu = noise.df(), s2 = noise.scale();
    expect_true(nu > 1.5);
    expect_true(nu < 6.0);
    auto loglik = [&](double df, double scale) {
      return E.size() * (std::lgamma(0.5 * (df + 1.0)) - std::lgamma(0.5 * df) - 0.5 * std::log(df * scale)) -
             0.5 * (df + 1.0) * (E.array() / (df * scale)).log1p().sum();
    };
    const double best = loglik(nu, s2);
    for (double f : {0.8, 0.95, 1.05, 1.25}) {
      expect_true(loglik(nu * f, s2) <= best + 1e-9);
      expect_true(loglik(nu, s2 * f) <= best + 1e-9);
    }
  }

  test_that("tied targets cannot shrink the t scale below half the residuals' robust scale") {
    // 160 targets tied at 0 and fitted exactly (E_i = 0), 40 normal: the t
    // likelihood grows without bound as s2 -> 0; the floor counts the tie once.
    std::mt19937 rng(3);
    std::normal_distribution<double> gauss(0.0, 1.0);
    const Eigen::Index n = 200, tied = 160;
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n), E = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = tied; i < n; ++i) {
      y(i) = gauss(rng);
      E(i) = y(i) * y(i);
    }
    sparsebayes::StudentNoise noise(-1.0, 2.0 * (y.maxCoeff() - y.minCoeff()), y);
    for (int k = 0; k < 20; ++k) noise.targets(E);
    std::vector<double> distinct(E.data() + tied - 1, E.data() + n);  // one tied row and the 40 others
    std::nth_element(distinct.begin(), distinct.begin() + distinct.size() / 2, distinct.end());
    const double robust = distinct[distinct.size() / 2] / 0.45493642311957;
    expect_true(noise.scale() >= 0.25 * robust * (1.0 - 1e-12));
    expect_true(noise.scale() > 1e-3);
    expect_true(noise.outlier_share() < 0.5);
  }

  test_that("the outlier class takes the far rows, and the targets are lambda_i / (1 - pi_i)") {
    std::mt19937 rng(7);
    std::normal_distribution<double> gauss(0.0, 1.0);
    const Eigen::Index n = 300, far = 30;
    Eigen::VectorXd E(n);
    for (Eigen::Index i = 0; i < n; ++i) E(i) = std::pow(gauss(rng) + (i < far ? 25.0 : 0.0), 2.0);
    sparsebayes::StudentNoise plain(-1.0), mixed(-1.0, 60.0);
    Eigen::VectorXd lambda;
    for (int k = 0; k < 50; ++k) lambda = mixed.targets(E);
    const Eigen::VectorXd p = mixed.outlier_probability();
    expect_true(p.head(far).minCoeff() > 0.99);
    expect_true(p.tail(n - far).maxCoeff() < 0.5);
    expect_true(std::abs(mixed.outlier_share() - p.mean()) <= 1e-12);
    const double nu = mixed.df(), s2 = mixed.scale();
    const Eigen::ArrayXd t_class = (nu * s2 + E.array()) / (nu + 1.0);
    // (1 - pi_i is stored, pi_i = 1 - it loses digits where pi_i -> 1)
    expect_true(sbtest::relative_difference((lambda.array() * (1.0 - p.array())).matrix(), t_class.matrix()) <= 1e-6);
    // the class leaves the t to the inliers: a lighter tail than the plain t fitted to all rows
    plain.targets(E);
    expect_true(nu > plain.df());
    expect_false(plain.has_outlier_class());
    expect_true(mixed.has_outlier_class());
  }
}

context("wavelets") {
  std::mt19937 rng(5);

  test_that("dwt and idwt are inverse and the transform is orthonormal") {
    for (const char* family : {"haar", "symmlet8"}) {
      for (Eigen::Index N : {2, 16, 64}) {
        const Eigen::VectorXd t = sbtest::normal_matrix(N, 1, rng).col(0);
        const Eigen::VectorXd z = sparsebayes::dwt(t, family);
        expect_true(sbtest::relative_difference(sparsebayes::idwt(z, family), t) <= 1e-12);
        expect_true(std::abs(z.squaredNorm() - t.squaredNorm()) <= 1e-12 * t.squaredNorm());
        // the synthesis basis W' has orthonormal columns
        std::vector<Eigen::Index> all(N);
        for (Eigen::Index i = 0; i < N; ++i) all[i] = i;
        const Eigen::MatrixXd W = sparsebayes::wavelet_columns(N, family, all);
        expect_true(sbtest::relative_difference(W.transpose() * W, Eigen::MatrixXd::Identity(N, N)) <= 1e-12);
        expect_true(sbtest::relative_difference(W * z, t) <= 1e-12);
      }
    }
  }

  test_that("the Haar coefficients of a constant are its scaled mean and no detail") {
    const Eigen::VectorXd t = Eigen::VectorXd::Constant(8, 2.0);
    const Eigen::VectorXd z = sparsebayes::dwt(t, "haar");
    expect_true(std::abs(z(0) - 2.0 * std::sqrt(8.0)) <= 1e-12);
    expect_true(z.tail(7).cwiseAbs().maxCoeff() <= 1e-12);
  }

  test_that("cycle spinning with the identity rule returns the signal; synthesis_variance is diag(W' V W)") {
    const Eigen::VectorXd t = sbtest::normal_matrix(32, 1, rng).col(0);
    const Eigen::VectorXd same = sparsebayes::cycle_spin(t, "symmlet8", [](double z, int) { return z; });
    expect_true(sbtest::relative_difference(same, t) <= 1e-12);
    Eigen::VectorXd v = sbtest::normal_matrix(32, 1, rng).col(0).cwiseAbs();
    v(5) = 0.0;
    std::vector<Eigen::Index> all(32);
    for (Eigen::Index i = 0; i < 32; ++i) all[i] = i;
    const Eigen::MatrixXd W = sparsebayes::wavelet_columns(32, "symmlet8", all);
    const Eigen::VectorXd direct = (W * v.asDiagonal() * W.transpose()).diagonal();
    expect_true(sbtest::relative_difference(sparsebayes::synthesis_variance(v, "symmlet8"), direct) <= 1e-12);
  }

  test_that("sizes that are not a power of two and unknown families are refused") {
    expect_error(sparsebayes::dwt(Eigen::VectorXd::Ones(12), "haar"));
    expect_error(sparsebayes::dwt(Eigen::VectorXd::Ones(8), "db4"));
    expect_true(sparsebayes::wavelet_levels(1024) == 10);
  }
}
