// Kernels (sparsebayes/kernels.hpp) against hand formulas.
#include <testthat.h>

#include <sparsebayes/kernels.hpp>
#include <sparsebayes/methods.hpp>

#include "test-helpers.h"

using sparsebayes::Kernel;
using sparsebayes::KernelType;

namespace {

double squared_distance(const Eigen::MatrixXd& x, Eigen::Index i, const Eigen::MatrixXd& z, Eigen::Index j) {
  return (x.row(i) - z.row(j)).squaredNorm();
}

Kernel make_kernel(KernelType type, double width) {
  Kernel k;
  k.type = type;
  k.width = width;
  return k;
}

}  // namespace

context("kernels") {
  std::mt19937 rng(20240601);
  const Eigen::MatrixXd x = sbtest::normal_matrix(7, 3, rng), z = sbtest::normal_matrix(5, 3, rng);
  const KernelType all[] = {KernelType::gaussian, KernelType::laplace, KernelType::cauchy, KernelType::polynomial,
                            KernelType::linear, KernelType::lspline, KernelType::tpspline};

  test_that("every kernel matrix of x with itself is symmetric") {
    for (KernelType type : all) {
      const Eigen::MatrixXd K = sparsebayes::kernel_matrix(make_kernel(type, 1.3), x, x);
      expect_true(K.rows() == 7);
      expect_true(K.cols() == 7);
      expect_true((K - K.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + K.cwiseAbs().maxCoeff()));
    }
  }

  test_that("k(x, z) is k(z, x) transposed") {
    for (KernelType type : all) {
      const Kernel k = make_kernel(type, 0.8);
      const Eigen::MatrixXd A = sparsebayes::kernel_matrix(k, x, z), B = sparsebayes::kernel_matrix(k, z, x);
      expect_true(sbtest::relative_difference(A, B.transpose()) <= 1e-12);
    }
  }

  test_that("the gaussian kernel is 1 at k(x, x) and exp(-d^2 / r^2) elsewhere") {
    const double r = 1.7;
    const Eigen::MatrixXd K = sparsebayes::kernel_matrix(make_kernel(KernelType::gaussian, r), x, z);
    const Eigen::MatrixXd Kxx = sparsebayes::kernel_matrix(make_kernel(KernelType::gaussian, r), x, x);
    expect_true((Kxx.diagonal().array() - 1.0).abs().maxCoeff() <= 1e-15);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < z.rows(); ++j)
        worst = std::max(worst, std::abs(K(i, j) - std::exp(-squared_distance(x, i, z, j) / (r * r))));
    expect_true(worst <= 1e-14);
    expect_true((K.array() > 0.0).all());
    expect_true((K.array() <= 1.0).all());
  }

  test_that("laplace, cauchy, polynomial, linear and tpspline kernels match their formulas") {
    const double r = 0.9;
    const Eigen::MatrixXd La = sparsebayes::kernel_matrix(make_kernel(KernelType::laplace, r), x, z);
    const Eigen::MatrixXd Ca = sparsebayes::kernel_matrix(make_kernel(KernelType::cauchy, r), x, z);
    const Eigen::MatrixXd Li = sparsebayes::kernel_matrix(make_kernel(KernelType::linear, r), x, z);
    const Eigen::MatrixXd Tp = sparsebayes::kernel_matrix(make_kernel(KernelType::tpspline, r), x, z);
    Kernel poly = make_kernel(KernelType::polynomial, r);
    poly.degree = 3.0;
    poly.offset = 0.5;
    const Eigen::MatrixXd Po = sparsebayes::kernel_matrix(poly, x, z);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < z.rows(); ++j) {
        const double d2 = squared_distance(x, i, z, j), dot = x.row(i).dot(z.row(j)), u = d2 / (r * r);
        worst = std::max(worst, std::abs(La(i, j) - std::exp(-std::sqrt(d2) / r)));
        worst = std::max(worst, std::abs(Ca(i, j) - 1.0 / (1.0 + d2 / (r * r))));
        worst = std::max(worst, std::abs(Li(i, j) - dot));
        worst = std::max(worst, std::abs(Po(i, j) - std::pow(dot + 0.5, 3.0)) / (1.0 + std::abs(Po(i, j))));
        worst = std::max(worst, std::abs(Tp(i, j) - 0.5 * u * std::log(u)));
      }
    expect_true(worst <= 1e-12);
  }

  test_that("the linear spline kernel is the product of its one-dimensional formula over inputs") {
    const double r = 2.0;
    const Eigen::MatrixXd K = sparsebayes::kernel_matrix(make_kernel(KernelType::lspline, r), x, z);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < z.rows(); ++j) {
        double prod = 1.0;
        for (Eigen::Index c = 0; c < x.cols(); ++c) {
          const double a = x(i, c), b = z(j, c), m = std::min(a, b);
          prod *= 1.0 + a * b / (r * r) + a * b * m / (r * r * r) - 0.5 * (a + b) * m * m / (r * r * r) +
                  m * m * m / (3.0 * r * r * r);
        }
        worst = std::max(worst, std::abs(K(i, j) - prod) / (1.0 + std::abs(prod)));
      }
    expect_true(worst <= 1e-12);
  }

  test_that("per-input widths all equal to r reproduce the scalar width r") {
    for (KernelType type : {KernelType::gaussian, KernelType::laplace, KernelType::cauchy, KernelType::lspline,
                            KernelType::tpspline}) {
      const Kernel scalar = make_kernel(type, 1.4);
      Kernel per_input = make_kernel(type, 1.0);
      per_input.input_widths = Eigen::VectorXd::Constant(3, 1.4);
      const Eigen::MatrixXd A = sparsebayes::kernel_matrix(scalar, x, z), B = sparsebayes::kernel_matrix(per_input, x, z);
      expect_true(sbtest::relative_difference(B, A) <= 1e-12);
    }
  }

  test_that("per-input widths divide each input column by its width") {
    Kernel k = make_kernel(KernelType::gaussian, 1.0);
    k.input_widths = (Eigen::VectorXd(3) << 0.5, 2.0, 3.0).finished();
    const Eigen::MatrixXd K = sparsebayes::kernel_matrix(k, x, z);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index j = 0; j < z.rows(); ++j) {
        double d2 = 0.0;
        for (Eigen::Index c = 0; c < 3; ++c) d2 += std::pow((x(i, c) - z(j, c)) / k.input_widths(c), 2.0);
        worst = std::max(worst, std::abs(K(i, j) - std::exp(-d2)));
      }
    expect_true(worst <= 1e-14);
  }

  test_that("the variance multiplies the kernel, and many inputs give the same distances") {
    Kernel k = make_kernel(KernelType::gaussian, 3.0);
    const Eigen::MatrixXd K1 = sparsebayes::kernel_matrix(k, x, z);
    k.variance = 2.5;
    expect_true(sbtest::relative_difference(sparsebayes::kernel_matrix(k, x, z), 2.5 * K1) <= 1e-14);
    // d > 8 takes the Gram-matrix route for the distances
    const Eigen::MatrixXd xw = sbtest::normal_matrix(6, 12, rng), zw = sbtest::normal_matrix(4, 12, rng);
    const Eigen::MatrixXd K = sparsebayes::kernel_matrix(make_kernel(KernelType::gaussian, 3.0), xw, zw);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < 6; ++i)
      for (Eigen::Index j = 0; j < 4; ++j)
        worst = std::max(worst, std::abs(K(i, j) - std::exp(-squared_distance(xw, i, zw, j) / 9.0)));
    expect_true(worst <= 1e-12);
  }

  test_that("the matrix is the same for any thread count and an offset leaves the first columns") {
    const Eigen::MatrixXd big_x = sbtest::normal_matrix(300, 2, rng), big_z = sbtest::normal_matrix(200, 2, rng);
    const Kernel k = make_kernel(KernelType::cauchy, 0.7);
    Eigen::MatrixXd one = Eigen::MatrixXd::Constant(300, 201, -7.0), four = one;
    sparsebayes::fill_kernel_matrix(k, big_x, big_z, one, 1, 1);
    sparsebayes::fill_kernel_matrix(k, big_x, big_z, four, 1, 4);
    expect_true(one == four);
    expect_true((one.col(0).array() == -7.0).all());
    expect_true(one.rightCols(200) == sparsebayes::kernel_matrix(k, big_x, big_z));
  }

  test_that("bad widths and shapes are refused") {
    expect_error(sparsebayes::kernel_matrix(make_kernel(KernelType::gaussian, 0.0), x, z));
    Kernel k = make_kernel(KernelType::gaussian, 1.0);
    k.input_widths = Eigen::VectorXd::Ones(2);
    expect_error(sparsebayes::kernel_matrix(k, x, z));
    expect_error(sparsebayes::kernel_matrix(make_kernel(KernelType::gaussian, 1.0), x, sbtest::normal_matrix(2, 4, rng)));
    expect_error(sparsebayes::kernel_type_from_name("spline"));
    expect_true(sparsebayes::kernel_type_from_name("tpspline") == KernelType::tpspline);
  }
}

context("the tables of methods and kernels") {
  test_that("every method and kernel of the tables is found by its name, and an unknown name is refused") {
    for (const sparsebayes::Method& m : sparsebayes::kMethods)
      expect_true(sparsebayes::method_named(m.name).rule == m.rule);
    expect_error(sparsebayes::method_named("nope"));
    for (const sparsebayes::KernelInfo& k : sparsebayes::kKernels) {
      expect_true(sparsebayes::kernel_type_from_name(k.name) == k.type);
      expect_true(sparsebayes::has_width(k.type) == k.width);
    }
    expect_error(sparsebayes::kernel_type_from_name("nope"));
  }
  test_that("messages name the methods with a capability from the table") {
    expect_true(sparsebayes::methods_supporting(&sparsebayes::Method::non_gaussian) == "fast, em, mackay or irls2");
    expect_true(sparsebayes::methods_supporting(&sparsebayes::Method::smoothness) == "fast");
    expect_true(sparsebayes::methods_supporting(&sparsebayes::Method::studentized) == "em, mackay or irls2");
  }
}
