// The fast solver ends a crawl (issue 59, item 2): 21 rows of sin(x1)
// cos(x2 / 2) + N(0, 0.1^2) on a narrow Gaussian basis with a bias column,
// where the interpolating model moved its noise and a precision towards
// zero for 10000 iterations (these four seeds and widths ran to the cap
// before the stall rule; 2304-5564 iterations with it).
#include <testthat.h>

#include <random>

#include <sparsebayes/fit.hpp>

#include "test-helpers.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using sbtest::Problem;

// Inputs and targets standardised, as rvm() gives them to the core.
Problem interpolating_problem(unsigned seed, double width) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::normal_distribution<double> e(0.0, 0.1);
  const Index n = 21;
  MatrixXd X(n, 2);
  for (Index i = 0; i < n; ++i) {
    X(i, 0) = u(rng);
    X(i, 1) = u(rng);
  }
  VectorXd y(n);
  for (Index i = 0; i < n; ++i) y(i) = std::sin(X(i, 0)) * std::cos(X(i, 1) / 2) + e(rng);
  for (Index j = 0; j < 2; ++j) {
    const VectorXd x = X.col(j);
    X.col(j) = (x.array() - x.mean()) / std::sqrt(sparsebayes::sample_variance(x));
  }
  Problem p;
  p.Phi.resize(n, n + 1);
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < n; ++k) p.Phi(i, k) = std::exp(-(X.row(i) - X.row(k)).squaredNorm() / (width * width));
  p.Phi.col(n).setOnes();
  p.t = (y.array() - y.mean()) / std::sqrt(sparsebayes::sample_variance(y));
  return p;
}

}  // namespace

context("fast solver: crawls end before the iteration cap") {
  struct Case {
    unsigned seed;
    double width;
  };
  const Case cases[] = {{20, 0.1}, {53, 0.05}, {154, 0.05}, {191, 0.05}};
  test_that("interpolating fits on 21 rows converge below the cap, their last 500 iterations gaining under 1e-4") {
    for (const Case& c : cases) {
      const Problem p = interpolating_problem(c.seed, c.width);
      const sparsebayes::SolverOptions o = sbtest::default_options("fast");
      const sparsebayes::FitResult f = sparsebayes::fit_model(p.Phi, p.t, "gaussian", o);
      expect_true(f.converged);
      expect_true(f.iterations < o.loop.max_iterations);
      const std::size_t n = f.trace.size();
      expect_true(n > 500);
      if (n > 500) {
        const double gain = f.trace[n - 1].log_posterior - f.trace[n - 501].log_posterior;
        expect_true(gain < 1e-4);
      }
    }
  }
}

context("fast solver: kept products shared by fits of one basis") {
  test_that("fits sharing ColumnProducts equal fits keeping their own, and another basis clears it") {
    const Problem a = interpolating_problem(20, 0.5), b = interpolating_problem(53, 0.7);
    sparsebayes::SolverOptions o = sbtest::default_options("fast");
    auto shared = std::make_shared<sparsebayes::ColumnProducts>();
    for (double init : {0.01, 0.5}) {  // two noise starts, as rvm()'s candidate fits
      o.noise.init_lambda = init;
      for (const Problem* p : {&a, &b, &a}) {  // a basis after another: the products of the first are not used
        const sparsebayes::FitResult own = sparsebayes::fit_model(p->Phi, p->t, "gaussian", o);
        const sparsebayes::FitResult kept = sparsebayes::fit_model(p->Phi, p->t, "gaussian", o, nullptr, shared);
        expect_true(kept.relevant == own.relevant);
        expect_true(kept.mu == own.mu);  // bit for bit
        expect_true(kept.log_evidence == own.log_evidence);
      }
    }
  }
}
