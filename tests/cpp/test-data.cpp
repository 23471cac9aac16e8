// The data layer (data.hpp): one interface through which every solver reads
// its rows. The rows in memory answer every request from their rows; the
// sums of rows answer only what sums can; a source read by passes gives the
// fit of the rows in memory, because the solvers ask the same questions of
// both.
#include <testthat.h>

#include <random>
#include <stdexcept>
#include <vector>

#include <sparsebayes/laplace_passes.hpp>

#include "test-helpers.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// Rows in memory seen as a chunk source: the same answers, but no rows to
// read in place (as R's chunk sources, which read the rows at each pass).
struct ReadByPasses : sparsebayes::Data {
  sparsebayes::RowsInMemory& rows_;
  sparsebayes::GaussianStatistics sums_;
  int passes = 0;
  explicit ReadByPasses(sparsebayes::RowsInMemory& rows) : rows_(rows), sums_(rows.weighted(VectorXd::Ones(rows.rows()))) {}
  Index rows() const override { return rows_.rows(); }
  Index cols() const override { return rows_.cols(); }
  bool has_targets() const override { return true; }
  const VectorXd& targets() const override { return rows_.targets(); }
  const sparsebayes::GaussianStatistics& sums() const override { return sums_; }
  bool reads_passes() const override { return true; }
  sparsebayes::GaussianStatistics weighted(const VectorXd& w) override {
    ++passes;
    return rows_.weighted(w);
  }
  void residual_rows(const Columns& cols, const VectorXd& coef, const MatrixXd& R, VectorXd& resid, VectorXd& q) override {
    ++passes;
    rows_.residual_rows(cols, coef, R, resid, q);
  }
};

// A basis of 30 Gaussian bumps and a bias on n rows of one input, targets
// with a few gross outliers (in standard units, as R gives them).
sbtest::Problem outlier_problem(Index n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::normal_distribution<double> z(0.0, 0.2);
  VectorXd x(n), t(n);
  for (Index i = 0; i < n; ++i) {
    x(i) = u(rng);
    t(i) = std::sin(2.0 * x(i)) + z(rng) + (i % 17 == 0 ? 4.0 : 0.0);
  }
  const Index M = 31;
  MatrixXd Phi(n, M);
  Phi.col(0).setOnes();
  for (Index m = 1; m < M; ++m)
    for (Index i = 0; i < n; ++i) Phi(i, m) = std::exp(-0.5 * std::pow(x(i) - x((m * 7) % n), 2) / 0.25);
  t = (t.array() - t.mean()) / std::sqrt((t.array() - t.mean()).square().sum() / (n - 1.0));
  return {Phi, t};
}

}  // namespace

context("The data layer: rows in memory, their sums, and passes over them") {
  test_that("the rows in memory answer every request from their rows") {
    std::mt19937 rng(3);
    const MatrixXd Phi = sbtest::normal_matrix(50, 4, rng);
    const VectorXd t = sbtest::normal_matrix(50, 1, rng).col(0);
    sparsebayes::RowsInMemory rows(Phi, t);
    expect_true(rows.in_memory());
    expect_true((rows.rows() == 50 && rows.cols() == 4));
    VectorXd w = VectorXd::LinSpaced(50, 0.5, 2.0);
    const sparsebayes::GaussianStatistics s = rows.weighted(w);
    expect_true(sbtest::relative_difference(s.gram, Phi.transpose() * w.asDiagonal() * Phi) < 1e-12);
    expect_true(sbtest::relative_difference(s.cross, Phi.transpose() * w.cwiseProduct(t)) < 1e-12);
    expect_true(sbtest::near(s.tt, t.dot(w.cwiseProduct(t)), 1e-12));
    const VectorXd coef = VectorXd::Constant(2, 0.5);
    const MatrixXd R = MatrixXd::Identity(2, 2) * 2.0;
    VectorXd resid, q;
    rows.residual_rows({1, 3}, coef, R, resid, q);
    expect_true(sbtest::relative_difference(resid, t - 0.5 * (Phi.col(1) + Phi.col(3))) < 1e-12);
    expect_true(sbtest::relative_difference(q, 4.0 * (Phi.col(1).cwiseAbs2() + Phi.col(3).cwiseAbs2())) < 1e-12);
  }

  test_that("a source asked for what it does not hold says so") {
    sparsebayes::GaussianStatistics s;
    std::mt19937 rng(4);
    s.add_rows(sbtest::normal_matrix(20, 3, rng), VectorXd::Ones(20));
    sparsebayes::SumsOfRows sums(s);
    expect_true((!sums.in_memory() && !sums.reads_passes() && !sums.has_targets()));
    expect_true((sums.rows() == 20 && sums.cols() == 3));
    expect_error_as(sums.basis(), std::logic_error);
    expect_error_as(sums.targets(), std::logic_error);
    expect_error_as(sums.weighted(VectorXd::Ones(20)), std::logic_error);
    expect_error_as(sums.laplace_pass(sparsebayes::Likelihood::from_name("binomial"), {}, VectorXd(), 1),
                    std::logic_error);
    // a fit from passes refuses a source it cannot read again
    sparsebayes::SolverOptions o = sbtest::default_options("em");
    o.problem.per_sample = true;
    expect_error_as(sparsebayes::fit_passes(sums, o), std::invalid_argument);
  }

  test_that("per-sample noise from passes over the rows is the fit from the rows in memory") {
    for (unsigned seed : {1u, 2u}) {
      const sbtest::Problem p = outlier_problem(120, seed);
      for (const char* method : {"em", "mackay"}) {
        sparsebayes::SolverOptions o = sbtest::default_options(method);
        o.problem.per_sample = true;
        o.problem.student = true;
        o.batch.start = "plain";
        const sparsebayes::FitResult a = sparsebayes::fit_model(p.Phi, p.t, "gaussian", o);
        sparsebayes::RowsInMemory rows(p.Phi, p.t);
        ReadByPasses chunks(rows);
        const sparsebayes::FitResult b = sparsebayes::fit_passes(chunks, o);
        expect_true(chunks.passes > 0);
        expect_true(a.relevant == b.relevant);
        expect_true(sbtest::relative_difference(b.mu, a.mu) < 1e-7);
        expect_true(sbtest::relative_difference(b.lambda, a.lambda) < 1e-7);
        expect_true(sbtest::near(b.log_evidence, a.log_evidence, 1e-8));
      }
    }
  }

  test_that("Laplace passes over the rows in memory are those over the rows in blocks") {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const Index n = 300;
    const MatrixXd X = sbtest::normal_matrix(n, 2, rng);
    VectorXd t(n);
    for (Index i = 0; i < n; ++i) t(i) = u(rng) < 1.0 / (1.0 + std::exp(-2.0 * std::sin(2.0 * X(i, 0)) - X(i, 1)));
    MatrixXd Phi(n, 21);
    Phi.col(0).setOnes();
    for (Index m = 1; m < 21; ++m)
      for (Index i = 0; i < n; ++i) Phi(i, m) = std::exp(-0.5 * (X.row(i) - X.row(m * 13)).squaredNorm());
    sparsebayes::RowsInMemory rows(Phi, t);
    const sparsebayes::PassesResult r =
        sparsebayes::LaplacePassesFit(rows, "binomial", 100, sbtest::default_options("fast")).run();
    expect_true(r.passes_converged);
    // the pass at the fit's weights: the sums of the rows' own laplace_pass_sums()
    const sparsebayes::Likelihood lik = sparsebayes::Likelihood::from_name("binomial");
    const sparsebayes::PassSums whole = rows.laplace_pass(lik, r.fit.relevant, r.fit.mu, 2);
    const sparsebayes::PassSums first = sparsebayes::laplace_pass_sums(
        lik, Phi.topRows(100), t.head(100), VectorXd::Ones(100), VectorXd::Zero(100), r.fit.relevant, r.fit.mu, false);
    const sparsebayes::PassSums rest = sparsebayes::laplace_pass_sums(
        lik, Phi.bottomRows(200), t.tail(200), VectorXd::Ones(200), VectorXd::Zero(200), r.fit.relevant, r.fit.mu, false);
    // (the rows in memory keep the weighted rows: their sums on demand)
    expect_true(whole.has_rows());
    std::vector<Index> all(Phi.cols());
    for (Index j = 0; j < Phi.cols(); ++j) all[j] = j;
    expect_true(sbtest::relative_difference(whole.gram(all, all), first.statistics.gram + rest.statistics.gram) < 1e-12);
    expect_true(sbtest::relative_difference(whole.cross(all), first.statistics.cross + rest.statistics.cross) < 1e-12);
    expect_true(sbtest::near(whole.log_lik, first.log_lik + rest.log_lik, 1e-12));
    expect_true(whole.kept == 300.0);
  }
}
