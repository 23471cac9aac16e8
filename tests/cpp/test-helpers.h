// Shared by the C++ unit tests (tests/cpp/test-*.cpp): seeded data and the
// solver options with the defaults of R's rvm_control() / ard_control().
// Pure C++ (no R headers), as the core.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <string>

#include <sparsebayes/model.hpp>

namespace sbtest {

// The options R's fit_basis() passes for a fit by `method` with shared noise,
// no smoothness prior and control = NULL: rvm_control() for "fast",
// ard_control() otherwise (R/control.R), the other constructor's defaults
// for the settings it lacks, and the optional settings (fixed_alpha,
// student_df, noise_variance) unset, as core_settings() and
// solver_problem() give them.
inline sparsebayes::SolverOptions default_options(const std::string& method) {
  const bool fast = method == "fast";
  sparsebayes::SolverOptions o;
  // the problem
  o.problem.method = method;
  o.problem.per_sample = false;
  o.problem.student = false;
  o.problem.gradient_form = "auto";
  o.problem.smoothness = 0.0;
  o.problem.noise_variance = -1.0;
  o.problem.n_effective = -1.0;
  o.problem.target_variance = -1.0;
  o.problem.case_weights.resize(0);
  o.problem.offset.resize(0);
  o.problem.init_noise.resize(0);
  // both constructors
  o.loop.max_iterations = 10000;
  o.loop.time_limit = 10000.0;
  o.noise.init_lambda = fast ? 0.01 : 0.1;
  // rvm_control()
  o.fast.min_delta_log_alpha = 1e-3;
  o.fast.min_delta_log_beta = 1e-6;
  o.fast.noise_update_start = 10;
  o.fast.noise_update_frequency = 5;
  o.fast.alignment_test = true;
  o.fast.alignment_max = 1.0 - 1e-3;
  o.fast.priority_deletion = true;
  o.fast.priority_addition = false;
  o.fast.zero_factor = 1e-12;
  o.fast.beta_max_factor = 1e6;
  o.fast.noise_shape = 1e-4;
  o.fast.noise_scale = 1e-4;
  // ard_control()
  o.loop.tolerance = 1e-4;
  o.batch.patience = 5;
  o.batch.damping_alpha = 1.0;
  o.noise.damping_lambda = 1.0;
  o.batch.alpha_min = 1e-6;
  o.batch.alpha_max = 1e6;
  o.noise.lambda_min = 0.05;
  o.noise.lambda_max = 1e20;
  o.noise.warm_start = 50;
  o.batch.noise_every = 5;
  o.batch.init_alpha = 1.0;
  o.batch.fixed_alpha = -1.0;
  o.batch.studentized = false;
  o.batch.studentized_power = 2.0;
  o.batch.learning_rate = 0.2;
  o.batch.admm_iterations = 50;
  o.batch.admm_tolerance = 1e-6;
  o.batch.path_max = 200;
  o.batch.schedule = "converge";
  o.noise.student_df = -1.0;
  o.noise.outlier_class = false;
  o.batch.start = "best";
  o.batch.start_subsets = 500;
  return o;
}

// A fit's data as the core takes it: the basis and the targets.
struct Problem {
  Eigen::MatrixXd Phi;
  Eigen::VectorXd t;
};

// An n x d matrix of independent standard normals from a seeded generator.
inline Eigen::MatrixXd normal_matrix(Eigen::Index n, Eigen::Index d, std::mt19937& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  Eigen::MatrixXd X(n, d);
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index i = 0; i < n; ++i) X(i, j) = z(rng);
  return X;
}

// A random symmetric positive-definite matrix: B B' + size I / 10.
inline Eigen::MatrixXd random_spd(Eigen::Index size, std::mt19937& rng) {
  const Eigen::MatrixXd B = normal_matrix(size, size, rng);
  Eigen::MatrixXd S = B * B.transpose();
  S.diagonal().array() += 0.1 * static_cast<double>(size);
  return S;
}

// |a - b| <= tol (1 + |b|).
inline bool near(double a, double b, double tol) { return std::abs(a - b) <= tol * (1.0 + std::abs(b)); }

// Largest entry of |A - B| relative to 1 + the largest entry of |B|.
inline double relative_difference(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  return (A - B).cwiseAbs().maxCoeff() / (1.0 + B.cwiseAbs().maxCoeff());
}

}  // namespace sbtest
