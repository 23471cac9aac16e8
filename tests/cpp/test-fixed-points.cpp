// The solvers through their one entry, fit_model() (sparsebayes/fit.hpp):
// at the returned fit each update rule's own fixed point holds, the
// posterior and the log evidence are those of the returned precisions and
// noise (recomputed here from scratch), and the non-Gaussian fits return a
// stationary point of the log posterior of the weights, with the Bernoulli
// and Poisson log-likelihoods and their derivatives written out here
// (independent of likelihood.hpp, checked by finite differences).
#include <testthat.h>

#include <sparsebayes/fit.hpp>
#include <sparsebayes/multinomial.hpp>

#include "test-helpers.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using sbtest::Problem;

// n = 60, d = 8 with columns of unequal scale (so that the units of mu,
// Sigma and alpha matter: fit_model maps them back to the columns as
// given), 3 true weights and noise sd 0.3; targets in standard units.
Problem gaussian_problem() {
  std::mt19937 rng(42);
  const Index n = 60, d = 8;
  Problem p;
  p.Phi = sbtest::normal_matrix(n, d, rng);
  for (Index j = 0; j < d; ++j) p.Phi.col(j) *= 0.5 + static_cast<double>(j);
  VectorXd w = VectorXd::Zero(d);
  w(0) = 1.5 / 0.5;
  w(3) = -2.0 / 3.5;
  w(5) = 1.0 / 5.5;
  p.t = p.Phi * w + 0.3 * sbtest::normal_matrix(n, 1, rng).col(0);
  p.t = (p.t.array() - p.t.mean()) / std::sqrt(sparsebayes::sample_variance(p.t));
  return p;
}

// The relevant columns and their precisions.
struct Kept {
  MatrixXd Phi;
  VectorXd alpha;
};

Kept kept_columns(const MatrixXd& Phi, const sparsebayes::FitResult& f) {
  const Index k = static_cast<Index>(f.relevant.size());
  Kept out{MatrixXd(Phi.rows(), k), VectorXd(k)};
  for (Index j = 0; j < k; ++j) {
    out.Phi.col(j) = Phi.col(f.relevant[j]);
    out.alpha(j) = f.alpha(f.relevant[j]);
  }
  return out;
}

// |log(a / b)|: the relative error of a precision against its fixed point.
double log_ratio(double a, double b) { return std::abs(std::log(a / b)); }

// The log-likelihood of a Bernoulli (logistic link) or Poisson (log link)
// response at the linear predictor eta; its gradient in eta is t - mean and
// minus its Hessian diag(w).
double log_likelihood(const std::string& lik, const VectorXd& t, const VectorXd& eta) {
  double L = 0.0;
  for (Index i = 0; i < t.size(); ++i)
    L += lik == "binomial" ? t(i) * eta(i) - std::log1p(std::exp(eta(i)))
                            : t(i) * eta(i) - std::exp(eta(i)) - std::lgamma(t(i) + 1.0);
  return L;
}

VectorXd mean_of(const std::string& lik, const VectorXd& eta) {
  return lik == "binomial" ? VectorXd((1.0 + (-eta.array()).exp()).inverse()) : VectorXd(eta.array().exp());
}

VectorXd weights_of(const std::string& lik, const VectorXd& eta) {
  const VectorXd m = mean_of(lik, eta);
  return lik == "binomial" ? VectorXd(m.array() * (1.0 - m.array())) : m;
}

// A seeded GLM problem: intercept and 8 normal columns, 2 true slopes.
Problem glm_problem(const std::string& lik) {
  std::mt19937 rng(9);
  const Index n = 60, d = 8;
  const MatrixXd X = sbtest::normal_matrix(n, d, rng);
  Problem p;
  p.Phi.resize(n, d + 1);
  p.Phi << VectorXd::Ones(n), X;
  const VectorXd eta = 0.8 * X.col(0) - 0.6 * X.col(2) + VectorXd::Constant(n, 0.3);
  p.t.resize(n);
  for (Index i = 0; i < n; ++i) {
    if (lik == "binomial") p.t(i) = std::bernoulli_distribution(1.0 / (1.0 + std::exp(-eta(i))))(rng) ? 1.0 : 0.0;
    else p.t(i) = std::poisson_distribution<int>(std::exp(eta(i)))(rng);
  }
  return p;
}

}  // namespace

context("solver fixed points (Gaussian, shared noise)") {
  const Problem p = gaussian_problem();
  const Index n = p.Phi.rows(), d = p.Phi.cols();

  // For each method: the tolerance of the kept precisions' fixed point
  // (|log alpha - log alpha*|), of the noise's, and the largest q_j^2 / s_j
  // allowed for a pruned column (1: none could enter; irls1 and gradient
  // stop on a looser criterion).
  struct Case {
    const char* method;
    double alpha_tol, noise_tol, pruned_max;
  };
  const Case cases[] = {{"fast", 1e-2, 1e-3, 1.0 + 1e-3}, {"em", 5e-3, 1e-3, 1.0 + 1e-3},
                        {"mackay", 5e-3, 1e-3, 1.0 + 1e-3}, {"irls2", 5e-3, 1e-3, 1.0 + 1e-3},
                        {"irls1", 5e-2, 1e-2, 1.5},         {"gradient", 5e-2, 2e-2, 1.0 + 1e-3}};

  for (const Case& c : cases) {
    const std::string method = c.method;
    test_that(("method " + method + ": posterior, evidence and fixed points at the returned fit").c_str()) {
      const sparsebayes::FitResult f = sparsebayes::fit_model(p.Phi, p.t, "gaussian", sbtest::default_options(method));
      expect_true(f.converged);
      const Kept u = kept_columns(p.Phi, f);
      const Index k = u.alpha.size();
      // the three true weights (columns 0, 3, 5) are kept
      int found = 0;
      for (Index j : f.relevant) found += j == 0 || j == 3 || j == 5;
      expect_true(found == 3);
      expect_true(f.lambda.size() == 1);
      const double lambda = f.lambda(0);
      expect_true(lambda > 0.0);
      // alpha is +inf exactly on the pruned columns
      for (Index j = 0; j < d; ++j)
        expect_true(std::isfinite(f.alpha(j)) ==
                    (std::find(f.relevant.begin(), f.relevant.end(), j) != f.relevant.end()));

      // the posterior of the returned alpha and noise, in the units of Phi as given
      MatrixXd H = u.Phi.transpose() * u.Phi / lambda;
      H.diagonal() += u.alpha;
      const MatrixXd Sigma = H.inverse();
      const VectorXd mu = Sigma * u.Phi.transpose() * p.t / lambda;
      expect_true(sbtest::relative_difference(f.mu, mu) <= 1e-9);
      expect_true(sbtest::relative_difference(f.Sigma, Sigma) <= 1e-9);
      expect_true(sbtest::relative_difference(f.fitted, u.Phi * mu) <= 1e-9);

      // the log evidence log N(t | 0, C), C = lambda I + Phi_u A^-1 Phi_u'
      MatrixXd C = u.Phi * u.alpha.cwiseInverse().asDiagonal() * u.Phi.transpose();
      C.diagonal().array() += lambda;
      const Eigen::LLT<MatrixXd> llt(C);
      const double log_det_C = 2.0 * MatrixXd(llt.matrixL()).diagonal().array().log().sum();
      const double direct = -0.5 * (n * std::log(2.0 * M_PI) + log_det_C + p.t.dot(llt.solve(p.t)));
      expect_true(sbtest::near(f.log_evidence, direct, 1e-8));
      expect_true(sbtest::near(f.log_posterior, f.log_evidence, 1e-12));  // no prior on the precisions

      // each rule's own fixed point for the kept weights
      double worst = 0.0;
      for (Index j = 0; j < k; ++j) {
        const double a = u.alpha(j), m2 = mu(j) * mu(j), S = Sigma(j, j);
        double target;
        if (method == "mackay") target = (1.0 - a * S) / m2;          // gamma_j / mu_j^2
        else if (method == "fast") {                                  // s^2 / (q^2 - s), from Sigma_y
          const VectorXd phi = u.Phi.col(j);
          const double Sj = phi.dot(llt.solve(phi)), Qj = phi.dot(llt.solve(p.t));
          const double s = a * Sj / (a - Sj), q = a * Qj / (a - Sj);
          target = s * s / (q * q - s);
        } else target = 1.0 / (m2 + S);                               // EM (irls2, and the others' optimum)
        worst = std::max(worst, log_ratio(a, target));
      }
      expect_true(worst <= c.alpha_tol);

      // no pruned column could enter: q_j^2 <= s_j (s, q from Sigma_y over the kept columns)
      double pruned = 0.0;
      for (Index j = 0; j < d; ++j) {
        if (std::isfinite(f.alpha(j))) continue;
        const VectorXd phi = p.Phi.col(j);
        const double s = phi.dot(llt.solve(phi)), q = phi.dot(llt.solve(p.t));
        pruned = std::max(pruned, q * q / s);
      }
      expect_true(pruned <= c.pruned_max);

      // the noise's fixed point, lambda = |t - Phi mu|^2 / (n - sum gamma)
      const double gamma = (1.0 - u.alpha.array() * Sigma.diagonal().array()).sum();
      expect_true(log_ratio(lambda, (p.t - u.Phi * mu).squaredNorm() / (n - gamma)) <= c.noise_tol);
    }
  }

  test_that("a fit that is not at its fixed point fails the check: the rules above can fail") {
    sparsebayes::SolverOptions o = sbtest::default_options("em");
    o.loop.max_iterations = 3;
    o.noise.warm_start = 0;
    o.batch.noise_every = 1;
    const sparsebayes::FitResult f = sparsebayes::fit_model(p.Phi, p.t, "gaussian", o);
    expect_false(f.converged);
    const Kept u = kept_columns(p.Phi, f);
    MatrixXd H = u.Phi.transpose() * u.Phi / f.lambda(0);
    H.diagonal() += u.alpha;
    const MatrixXd Sigma = H.inverse();
    const VectorXd mu = Sigma * u.Phi.transpose() * p.t / f.lambda(0);
    double worst = 0.0;
    for (Index j = 0; j < u.alpha.size(); ++j)
      worst = std::max(worst, log_ratio(u.alpha(j), 1.0 / (mu(j) * mu(j) + Sigma(j, j))));
    expect_true(worst > 5e-2);
  }

  test_that("the three rules agree on one optimum: fast, EM and MacKay keep the same columns and evidence") {
    const sparsebayes::FitResult fast = sparsebayes::fit_model(p.Phi, p.t, "gaussian", sbtest::default_options("fast"));
    for (const char* m : {"em", "mackay"}) {
      const sparsebayes::FitResult f = sparsebayes::fit_model(p.Phi, p.t, "gaussian", sbtest::default_options(m));
      std::vector<Index> a = fast.relevant, b = f.relevant;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      expect_true(a == b);
      expect_true(std::abs(fast.log_evidence - f.log_evidence) <= 1e-4);
    }
  }

  test_that("bad input is refused with an exception") {
    expect_error(sparsebayes::fit_model(p.Phi, p.t.head(10), "gaussian", sbtest::default_options("fast")));
    expect_error(sparsebayes::fit_model(p.Phi, p.t, "student", sbtest::default_options("fast")));
    expect_error(sparsebayes::fit_model(p.Phi, p.t, "poisson", sbtest::default_options("irls1")));
    expect_error(sparsebayes::fit_model(p.Phi, VectorXd::Ones(p.t.size()), "gaussian", sbtest::default_options("em")));
  }
}

context("likelihood derivatives and the non-Gaussian modes") {
  test_that("the Bernoulli and Poisson log-likelihoods' gradient and Hessian match finite differences") {
    for (const std::string lik : {"binomial", "poisson"}) {
      const Problem p = glm_problem(lik);
      const MatrixXd X = p.Phi.leftCols(4);
      const VectorXd w = (VectorXd(4) << 0.2, -0.4, 0.3, 0.1).finished();
      const VectorXd eta = X * w;
      const VectorXd grad = X.transpose() * (p.t - mean_of(lik, eta));
      const MatrixXd hess = -X.transpose() * weights_of(lik, eta).asDiagonal() * X;
      const double h = 1e-5;
      double g_err = 0.0, h_err = 0.0;
      for (Index j = 0; j < 4; ++j) {
        VectorXd up = w, down = w;
        up(j) += h;
        down(j) -= h;
        const double fd = (log_likelihood(lik, p.t, X * up) - log_likelihood(lik, p.t, X * down)) / (2.0 * h);
        g_err = std::max(g_err, std::abs(fd - grad(j)) / (1.0 + std::abs(grad(j))));
        const VectorXd g_up = X.transpose() * (p.t - mean_of(lik, X * up));
        const VectorXd g_down = X.transpose() * (p.t - mean_of(lik, X * down));
        h_err = std::max(h_err, sbtest::relative_difference((g_up - g_down) / (2.0 * h), hess.col(j)));
      }
      expect_true(g_err <= 1e-7);
      expect_true(h_err <= 1e-7);
    }
  }

  for (const std::string lik : {"binomial", "poisson"}) {
    for (const std::string method : {"fast", "em", "mackay", "irls2"}) {
      test_that((lik + ", method " + method + ": the returned mu is the posterior mode and Sigma its Laplace covariance").c_str()) {
        const Problem p = glm_problem(lik);
        const sparsebayes::FitResult f = sparsebayes::fit_model(p.Phi, p.t, lik, sbtest::default_options(method));
        expect_true(f.converged);
        expect_true(f.mode_converged);
        const Kept u = kept_columns(p.Phi, f);
        const Index k = u.alpha.size();
        expect_true(k >= 2);
        const VectorXd eta = u.Phi * f.mu;
        expect_true(sbtest::relative_difference(f.fitted, eta) <= 1e-12);
        // the score of the log posterior, Phi_u' (t - mean) - alpha_u mu, is zero
        const VectorXd data_term = u.Phi.transpose() * (p.t - mean_of(lik, eta));
        const VectorXd score = data_term - u.alpha.cwiseProduct(f.mu);
        expect_true(score.cwiseAbs().maxCoeff() <= 1e-4 * (1.0 + data_term.cwiseAbs().maxCoeff()));
        // and the mode is a maximum: every small step lowers the log posterior
        auto log_post = [&](const VectorXd& w) {
          return log_likelihood(lik, p.t, u.Phi * w) - 0.5 * (u.alpha.array() * w.array().square()).sum();
        };
        const double top = log_post(f.mu);
        bool highest = true;
        for (Index j = 0; j < k; ++j)
          for (double step : {-1e-2, 1e-2}) {
            VectorXd w = f.mu;
            w(j) += step;
            highest = highest && log_post(w) < top;
          }
        expect_true(highest);
        // Sigma = (Phi_u' W Phi_u + A)^-1, W the likelihood's curvature at the mode
        MatrixXd H = u.Phi.transpose() * weights_of(lik, eta).asDiagonal() * u.Phi;
        H.diagonal() += u.alpha;
        expect_true(sbtest::relative_difference(f.Sigma, MatrixXd(H.inverse())) <= 1e-8);
        // the Laplace log evidence
        const double laplace = top + 0.5 * u.alpha.array().log().sum() - 0.5 * std::log(H.determinant());
        expect_true(sbtest::near(f.log_evidence, laplace, 1e-6));
        // the kept precisions sit at the stationary point of that evidence
        // (W held): alpha_j = (1 - alpha_j Sigma_jj) / mu_j^2
        const MatrixXd Sigma = H.inverse();
        double worst = 0.0;
        for (Index j = 0; j < k; ++j)
          worst = std::max(worst, log_ratio(u.alpha(j), (1.0 - u.alpha(j) * Sigma(j, j)) / (f.mu(j) * f.mu(j))));
        expect_true(worst <= 1e-2);
      }
    }
  }
}

context("the multinomial (softmax) fit") {
  // 3 classes in 2-D: a Gaussian kernel basis on 20 of 90 points plus a bias
  // column; the classes overlap, so the mode is finite.
  std::mt19937 rng(7);
  const Index n = 90, K = 3, M = 21;
  const MatrixXd x = sbtest::normal_matrix(n, 2, rng);
  MatrixXd T = MatrixXd::Zero(n, K);
  for (Index i = 0; i < n; ++i) {
    const double f0 = x(i, 0) + 0.4 * x(i, 1), f1 = -x(i, 0) + 0.4 * x(i, 1);
    const Index c = f0 > 0.3 ? 0 : (f1 > 0.3 ? 1 : 2);
    T(i, (i % 7 == 0) ? (c + 1) % K : c) = 1.0;  // some labels flipped
  }
  MatrixXd Phi(n, M);
  Phi.col(0).setOnes();
  for (Index j = 1; j < M; ++j)
    for (Index i = 0; i < n; ++i) Phi(i, j) = std::exp(-0.5 * (x.row(i) - x.row(4 * j)).squaredNorm());
  const sparsebayes::SolverOptions o = sbtest::default_options("fast");

  for (bool shared : {true, false}) {
    test_that((std::string(shared ? "shared" : "per-class") +
               " precisions: the returned weights are the joint mode, Sigma its inverse Hessian, and the log "
               "evidence its Laplace value").c_str()) {
      // a latent offset per class (as R may give the log class shares)
      const MatrixXd O = Eigen::RowVector3d(0.3, -0.2, 0.0).replicate(n, 1);
      const auto f = sparsebayes::fit_multinomial(Phi, T, VectorXd(), O, shared, o.loop, o.fast);
      expect_true(f.converged);
      const Index S = f.relevant.size();
      expect_true(S >= 2);
      MatrixXd PhiU(n, S);
      for (Index j = 0; j < S; ++j) PhiU.col(j) = Phi.col(f.relevant[j]);
      // the weights in the model (class blocks), and their precisions
      std::vector<Index> in;
      std::vector<double> a;
      for (Index k = 0; k < K; ++k)
        for (Index j = 0; j < S; ++j)
          if (std::isfinite(f.alpha(f.relevant[j], k))) {
            in.push_back(k * S + j);
            a.push_back(f.alpha(f.relevant[j], k));
          } else {
            expect_true(f.W(j, k) == 0.0);
          }
      if (shared) expect_true(static_cast<Index>(in.size()) == S * K);
      const Index N = in.size();
      // probabilities written out here, row by row
      const MatrixXd F = PhiU * f.W + O;
      expect_true(sbtest::relative_difference(f.fitted, F) <= 1e-12);
      MatrixXd P(n, K);
      for (Index i = 0; i < n; ++i) {
        const Eigen::RowVectorXd e = (F.row(i).array() - F.row(i).maxCoeff()).exp().matrix();
        P.row(i) = e / e.sum();
      }
      // the score of every weight in the model, phi_j' (t_k - p_k) - alpha w, is zero
      const MatrixXd data_term = PhiU.transpose() * (T - P);
      double worst = 0.0;
      for (Index r = 0; r < N; ++r) {
        const Index j = in[r] % S, k = in[r] / S;
        worst = std::max(worst, std::abs(data_term(j, k) - a[r] * f.W(j, k)));
      }
      expect_true(worst <= 1e-4 * (1.0 + data_term.cwiseAbs().maxCoeff()));
      // the Hessian of those weights: a sum over rows of (diag(p) - p p') (x) phi phi', plus A
      MatrixXd H = MatrixXd::Zero(N, N);
      for (Index i = 0; i < n; ++i) {
        const VectorXd p = P.row(i).transpose();
        for (Index r = 0; r < N; ++r)
          for (Index c = 0; c < N; ++c) {
            const Index k = in[r] / S, l = in[c] / S;
            H(r, c) += ((k == l ? p(k) : 0.0) - p(k) * p(l)) * PhiU(i, in[r] % S) * PhiU(i, in[c] % S);
          }
      }
      for (Index r = 0; r < N; ++r) H(r, r) += a[r];
      const MatrixXd Sigma_in = H.inverse();
      MatrixXd Sigma_got(N, N);
      for (Index r = 0; r < N; ++r)
        for (Index c = 0; c < N; ++c) Sigma_got(r, c) = f.Sigma(in[r], in[c]);
      expect_true(sbtest::relative_difference(Sigma_got, Sigma_in) <= 1e-8);
      std::vector<char> kept(S * K, 0);
      for (Index r : in) kept[r] = 1;
      bool zeros = true;  // a weight not in the model has no covariance
      for (Index r = 0; r < S * K; ++r)
        for (Index c = 0; c < S * K; ++c)
          if (!kept[r] || !kept[c]) zeros = zeros && f.Sigma(r, c) == 0.0;
      expect_true(zeros);
      double ll = 0.0, penalty = 0.0, log_a = 0.0;
      for (Index i = 0; i < n; ++i) ll += T.row(i).dot(P.row(i).array().log().matrix());
      for (Index r = 0; r < N; ++r) {
        penalty += a[r] * f.W(in[r] % S, in[r] / S) * f.W(in[r] % S, in[r] / S);
        log_a += std::log(a[r]);
      }
      const double laplace = ll - 0.5 * penalty + 0.5 * log_a - 0.5 * std::log(H.determinant());
      expect_true(sbtest::near(f.log_evidence, laplace, 1e-6));
    }
  }

  test_that("integer case weights give the fit of replicated rows") {
    VectorXd w(n);
    for (Index i = 0; i < n; ++i) w(i) = static_cast<double>(1 + i % 3);
    const Index N = static_cast<Index>(w.sum());
    MatrixXd Phi_r(N, M), T_r(N, K);
    Index r = 0;
    for (Index i = 0; i < n; ++i)
      for (int c = 0; c < w(i); ++c, ++r) {
        Phi_r.row(r) = Phi.row(i);
        T_r.row(r) = T.row(i);
      }
    for (bool shared : {true, false}) {
      const auto a = sparsebayes::fit_multinomial(Phi, T, w, MatrixXd(), shared, o.loop, o.fast);
      const auto b = sparsebayes::fit_multinomial(Phi_r, T_r, VectorXd(), MatrixXd(), shared, o.loop, o.fast);
      expect_true(a.relevant == b.relevant);
      expect_true(sbtest::relative_difference(a.W, b.W) <= 1e-6);
      expect_true(sbtest::near(a.log_evidence, b.log_evidence, 1e-6));
    }
  }

  test_that("bad input is refused with an exception") {
    expect_error_as(sparsebayes::fit_multinomial(Phi, T.leftCols(1), VectorXd(), MatrixXd(), true, o.loop, o.fast), std::invalid_argument);
    expect_error_as(sparsebayes::fit_multinomial(Phi, T, VectorXd::Constant(n, -1.0), MatrixXd(), true, o.loop, o.fast),
                    std::invalid_argument);
    MatrixXd bad = T;
    bad(0, 0) = 2.0;
    expect_error_as(sparsebayes::fit_multinomial(Phi, bad, VectorXd(), MatrixXd(), true, o.loop, o.fast), std::invalid_argument);
  }
}

context("the method table's data-access columns") {
  test_that("a method fits from statistics or passes exactly when its rule reads no row statistics") {
    for (const sparsebayes::Method& m : sparsebayes::kMethods) {
      if (m.rule == sparsebayes::Rule::fast) {
        expect_true(m.statistics);
        expect_false(m.passes);  // the fast solver's per-sample noise reads rows at every step
        continue;
      }
      sparsebayes::ProblemSpec spec{};
      spec.method = m.name;
      const bool row_stats = sparsebayes::make_ard_rule(spec, sparsebayes::BatchControl{})->needs() &
                             sparsebayes::ArdPosterior::kRowStats;
      expect_true(m.statistics == !row_stats);
      // gradient steps per-sample noise by every row's residual at every step
      const bool passes = !row_stats && m.rule != sparsebayes::Rule::gradient;
      expect_true(m.passes == passes);
    }
  }
}
