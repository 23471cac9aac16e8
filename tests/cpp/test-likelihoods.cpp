// Every non-Gaussian row of the likelihood table (kLikelihoods,
// likelihood.hpp), by its own definitions, so that a new row is tested
// without a test of its own here: the score is the derivative of the
// log-likelihood (finite differences, into the tails), the IRLS weights are
// Fisher's information (the expected squared score; with a canonical link
// also the curvature), the mean is the expected target, a row's IRLS
// quantities are the same numbers and stay finite far in the tails, and the
// predicted response under N(eta, v) is the mean's expectation there.
#include <testthat.h>

#include <string>
#include <vector>

#include <sparsebayes/likelihood.hpp>

#include "test-helpers.h"

namespace {

using Eigen::VectorXd;
using sparsebayes::Likelihood;

double ll1(const Likelihood& lik, double t, double f) {
  return lik.log_likelihood(VectorXd::Constant(1, t), VectorXd::Constant(1, f));
}

double mean1(const Likelihood& lik, double f) { return lik.mean(VectorXd::Constant(1, f))(0); }

void row(const Likelihood& lik, double t, double f, double& score, double& weight) {
  const VectorXd tv = VectorXd::Constant(1, t), fv = VectorXd::Constant(1, f);
  VectorXd s, b;
  lik.derivatives(tv, fv, lik.mean(fv), s, b);
  score = s(0);
  weight = b(0);
}

// The targets a likelihood gives: 0/1 for classes, counts to 200 otherwise.
std::vector<double> support(const Likelihood& lik) {
  std::vector<double> t;
  for (int k = 0; k <= (lik.classes() ? 1 : 200); ++k) t.push_back(k);
  return t;
}

// E[mean(f)] for f ~ N(eta, v), by the trapezoid rule over eta +- 12 sd.
double expected_mean(const Likelihood& lik, double eta, double v) {
  const int n = 4001;
  const double sd = std::sqrt(v), h = 24.0 * sd / (n - 1);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const double z = -12.0 + 24.0 * i / (n - 1);
    const double density = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI) / sd;
    sum += (i == 0 || i == n - 1 ? 0.5 : 1.0) * density * mean1(lik, eta + sd * z) * h;
  }
  return sum;
}

}  // namespace

context("the likelihood table, row by row") {
  test_that("every row is found by its name, and no other name") {
    for (const sparsebayes::LikelihoodInfo& info : sparsebayes::kLikelihoods)
      expect_true(Likelihood::from_name(info.name).gaussian() == info.noise);
    expect_error(Likelihood::from_name("student"));
  }
  for (const sparsebayes::LikelihoodInfo& info : sparsebayes::kLikelihoods) {
    if (info.noise) continue;
    const std::string name = info.name;
    const Likelihood lik = Likelihood::from_name(name);
    test_that((name + ": the score is d log p / df, the weight the expected squared score, the mean E[t]").c_str()) {
      double worst_score = 0.0, worst_weight = 0.0, worst_mean = 0.0;
      for (double f : {-3.0, -1.2, -0.3, 0.0, 0.4, 1.1, 2.5}) {
        double expected_sq = 0.0, expected_t = 0.0, weight = 0.0;
        for (double t : support(lik)) {
          double score = 0.0;
          row(lik, t, f, score, weight);
          const double p = std::exp(ll1(lik, t, f));
          expected_sq += p * score * score;
          expected_t += p * t;
        }
        worst_weight = std::max(worst_weight, std::abs(expected_sq - weight) / weight);
        worst_mean = std::max(worst_mean, std::abs(expected_t - mean1(lik, f)) / (1.0 + expected_t));
      }
      for (double f : {-40.0, -30.5, -29.5, -8.0, -3.0, -1.2, -0.3, 0.0, 0.4, 1.1, 2.5, 9.0, 29.5, 30.5, 40.0}) {
        for (double t : {0.0, 1.0, 0.25, 3.0}) {
          if (lik.classes() ? t > 1.0 : t != std::round(t)) continue;
          double score = 0.0, weight = 0.0;
          row(lik, t, f, score, weight);
          const double h = 1e-5;
          const double fd = (ll1(lik, t, f + h) - ll1(lik, t, f - h)) / (2.0 * h);
          worst_score = std::max(worst_score, std::abs(fd - score) / (1.0 + std::abs(score)));
        }
      }
      expect_true(worst_score <= 1e-6);
      expect_true(worst_weight <= 1e-9);
      expect_true(worst_mean <= 1e-12);
    }
    test_that((name + ": a row's IRLS quantities are its score and weight, finite in the tails").c_str()) {
      bool finite = true;
      double worst = 0.0;
      for (double f : {-1e3, -40.0, -30.5, -29.5, -8.0, -0.5, 0.0, 0.7, 9.0, 29.5, 30.5, 40.0, 1e3}) {
        for (double t : {0.0, 1.0, 0.25}) {
          if (t == 0.25 && !lik.classes()) continue;
          double score = 0.0, weight = 0.0, root = 0.0, resid = 0.0;
          row(lik, t, f, score, weight);
          lik.irls_row(f, t, root, resid);
          finite = finite && std::isfinite(score) && std::isfinite(weight) && weight >= 0.0 &&
                   std::isfinite(ll1(lik, t, f)) && std::isfinite(root) && std::isfinite(resid);
          if (std::abs(f) <= 9.0) {  // beyond, the logit's 1 - m in derivatives() cancels (irls_row()'s does not)
            worst = std::max(worst, std::abs(root * root - weight) / weight);
            worst = std::max(worst, std::abs(root * resid - score) / (1.0 + std::abs(score)));
          }
        }
      }
      expect_true(finite);
      expect_true(worst <= 1e-10);
    }
    test_that((name + ": the predicted response under N(eta, v) is the mean's expectation").c_str()) {
      double worst = 0.0;
      for (double eta : {-2.0, -0.5, 0.0, 1.0, 2.5}) {
        expect_true(lik.predictive_mean(eta, 0.0) == mean1(lik, eta));
        for (double v : {0.25, 1.0, 4.0}) {
          const double exact = expected_mean(lik, eta, v);
          worst = std::max(worst, std::abs(lik.predictive_mean(eta, v) - exact) / (1.0 + exact));
        }
      }
      // the logit's moderated output is MacKay's approximation, within 0.02 of the expectation
      expect_true(worst <= (info.canonical && lik.classes() ? 0.02 : 1e-7));
    }
  }
}
