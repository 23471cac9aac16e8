// The Laplace passes (laplace_passes.hpp): the outer loop of a binomial or
// Poisson fit from chunks, run here on rows held in memory and read in
// blocks, as data_chunks() reads chunks. Its fixed point is the in-memory
// Laplace approximation's (laplace_mode() at the fit's alphas); where full
// steps run away, its damped mode searches keep the evidence from falling.
#include <testthat.h>

#include <random>
#include <string>

#include <sparsebayes/laplace_passes.hpp>

#include "test-helpers.h"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using sparsebayes::PassSums;

void add_to(PassSums& a, const PassSums& b) {
  if (a.statistics.gram.size() == 0) {
    a = b;
    return;
  }
  a.statistics.gram += b.statistics.gram;
  a.statistics.cross += b.statistics.cross;
  a.statistics.tt += b.statistics.tt;
  a.statistics.sum_t += b.statistics.sum_t;
  a.statistics.n += b.statistics.n;
  a.log_lik += b.log_lik;
  a.log_sat += b.log_sat;
  a.null_log_lik += b.null_log_lik;
  a.kept += b.kept;
  a.positive += b.positive;
  a.wrong += b.wrong;
}

// Rows in memory, passed in blocks of `block` rows whose sums are added in order.
struct RowsInBlocks : sparsebayes::Data {
  MatrixXd Phi;
  VectorXd t, w, offset;
  std::string likelihood;
  Index block = 100;
  int calls = 0;
  Index rows() const override { return Phi.rows(); }
  Index cols() const override { return Phi.cols(); }
  PassSums laplace_pass(const sparsebayes::Likelihood& lik, const Columns& relevant, const VectorXd& mu,
                        int pass) override {
    ++calls;
    PassSums total;
    for (Index i = 0; i < Phi.rows(); i += block) {
      const Index m = std::min(block, Phi.rows() - i);
      add_to(total, sparsebayes::laplace_pass_sums(lik, Phi.middleRows(i, m), t.segment(i, m), w.segment(i, m),
                                                   offset.segment(i, m), relevant, mu, pass == 1));
    }
    return total;
  }
};

// n rows of two inputs on [-3, 3], a bias column and a Gaussian basis on
// every k-th row; binomial: classes of plogis(2 sin(2 x1) + x2); poisson:
// counts of exp(1 + sin(2 x1) + x2 / 2 + offset), case weights 0 to 3.
RowsInBlocks problem(const std::string& likelihood, Index n, Index every, double width, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0), unit(0.0, 1.0), off(-0.3, 0.3);
  std::uniform_int_distribution<int> weight(0, 3);
  MatrixXd X(n, 2);
  for (Index i = 0; i < n; ++i) X.row(i) << u(rng), u(rng);
  RowsInBlocks p;
  p.likelihood = likelihood;
  const Index M = (n + every - 1) / every + 1;
  p.Phi.resize(n, M);
  p.Phi.col(0).setOnes();
  for (Index i = 0; i < n; ++i)
    for (Index k = 1; k < M; ++k)
      p.Phi(i, k) = std::exp(-(X.row(i) - X.row((k - 1) * every)).squaredNorm() / (2.0 * width * width));
  p.t.resize(n);
  p.w = VectorXd::Ones(n);
  p.offset = VectorXd::Zero(n);
  for (Index i = 0; i < n; ++i) {
    const double x1 = X(i, 0), x2 = X(i, 1);
    if (likelihood == "binomial") {
      const double f = 2.0 * std::sin(2.0 * x1) + x2;
      p.t(i) = unit(rng) < 1.0 / (1.0 + std::exp(-f)) ? 1.0 : 0.0;
    } else {
      p.offset(i) = off(rng);
      p.w(i) = weight(rng);
      std::poisson_distribution<int> count(std::exp(1.0 + std::sin(2.0 * x1) + 0.5 * x2 + p.offset(i)));
      p.t(i) = count(rng);
    }
  }
  return p;
}

// Nearly separable classes (plogis(3 (x1 + x2 / 2)), x normal) on a narrow
// basis centred on every row, as Sonar's 208 centres on 208 rows: full
// Newton steps at newly re-estimated alphas overshoot.
RowsInBlocks separable_problem(Index n, double width, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  MatrixXd X(n, 2);
  for (Index i = 0; i < n; ++i) X.row(i) << z(rng), z(rng);
  RowsInBlocks p;
  p.likelihood = "binomial";
  p.Phi.resize(n, n + 1);
  p.Phi.col(0).setOnes();
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < n; ++k) p.Phi(i, k + 1) = std::exp(-(X.row(i) - X.row(k)).squaredNorm() / (2.0 * width * width));
  p.t.resize(n);
  p.w = VectorXd::Ones(n);
  p.offset = VectorXd::Zero(n);
  for (Index i = 0; i < n; ++i) p.t(i) = unit(rng) < 1.0 / (1.0 + std::exp(-3.0 * (X(i, 0) + 0.5 * X(i, 1))));
  return p;
}

// The options of rvm_control(min_delta_log_alpha = 1e-10, tolerance = 1e-7): the tight fixed point.
sparsebayes::SolverOptions tight_options() {
  sparsebayes::SolverOptions o = sbtest::default_options("fast");
  o.fast.min_delta_log_alpha = 1e-10;
  o.loop.tolerance = 1e-7;
  return o;
}

// The relevant columns of Phi and their precisions.
MatrixXd columns(const MatrixXd& Phi, const std::vector<Index>& relevant) {
  MatrixXd out(Phi.rows(), relevant.size());
  for (std::size_t k = 0; k < relevant.size(); ++k) out.col(k) = Phi.col(relevant[k]);
  return out;
}
VectorXd used_alpha(const sparsebayes::FitResult& f) {
  VectorXd a(f.relevant.size());
  for (std::size_t k = 0; k < f.relevant.size(); ++k) a(k) = f.alpha(f.relevant[k]);
  return a;
}

// The fit is the in-memory Laplace approximation at its alphas: the mode
// search on the rows from its weights does not move them, and the evidence
// is laplace_log_evidence()'s there.
void expect_laplace_fixed_point(const RowsInBlocks& p, const sparsebayes::PassesResult& r, double tol) {
  const MatrixXd PhiU = columns(p.Phi, r.fit.relevant);
  const VectorXd alpha = used_alpha(r.fit);
  int jitter = 0;
  const sparsebayes::LaplacePosterior lp = sparsebayes::laplace_mode(
      sparsebayes::Likelihood::from_name(p.likelihood), PhiU, p.t, alpha, r.fit.mu, jitter, p.w, p.offset);
  expect_true(lp.converged);
  expect_true(sbtest::relative_difference(lp.post.mu, r.fit.mu) < tol);
  expect_true(sbtest::near(r.fit.log_evidence, sparsebayes::laplace_log_evidence(lp, alpha), tol));
}

}  // namespace

context("Laplace passes: the outer loop of a fit from chunks") {
  test_that("a binomial fit converges to the Laplace fixed point, whatever the blocks") {
    RowsInBlocks p = problem("binomial", 400, 10, 1.0, 1);
    const sparsebayes::PassesResult r =
        sparsebayes::LaplacePassesFit(p, "binomial", 100, tight_options()).run();
    expect_true(r.passes_converged);
    expect_true(r.fit.converged);
    expect_true(r.passes == p.calls);
    expect_true(r.fit.trace.size() == static_cast<std::size_t>(r.passes));
    // interleaved steps all through, then the pass at the weights returned
    for (std::size_t i = 0; i + 1 < r.fit.trace.size(); ++i) expect_true(r.fit.trace[i].action == sparsebayes::kReestimate);
    expect_true(r.fit.trace.back().action == sparsebayes::kTerminate);
    expect_laplace_fixed_point(p, r, 1e-5);
    expect_true(r.error >= 0.0);
    expect_true(r.error < 0.5);
    // the same fit, up to rounding, from blocks of 37 rows
    RowsInBlocks q = p;
    q.block = 37;
    const sparsebayes::PassesResult s =
        sparsebayes::LaplacePassesFit(q, "binomial", 100, tight_options()).run();
    expect_true(s.fit.relevant == r.fit.relevant);
    expect_true(std::abs(s.passes - r.passes) <= 1);  // the last pass's change can fall either side of the tolerance
    expect_true(sbtest::relative_difference(s.fit.mu, r.fit.mu) < 1e-6);
    expect_true(sbtest::near(s.fit.log_evidence, r.fit.log_evidence, 1e-9));
  }

  test_that("a Poisson fit with weights and an offset converges to the Laplace fixed point and its deviance") {
    RowsInBlocks p = problem("poisson", 500, 10, 1.0, 2);
    const sparsebayes::PassesResult r =
        sparsebayes::LaplacePassesFit(p, "poisson", 100, tight_options()).run();
    expect_true(r.passes_converged);
    expect_laplace_fixed_point(p, r, 1e-5);
    const VectorXd eta = columns(p.Phi, r.fit.relevant) * r.fit.mu + p.offset;
    double deviance = 0.0;
    for (Index i = 0; i < p.t.size(); ++i) {
      const double m = std::exp(eta(i));
      deviance += 2.0 * p.w(i) * ((p.t(i) > 0 ? p.t(i) * std::log(p.t(i) / m) : 0.0) - (p.t(i) - m));
    }
    expect_true(sbtest::near(r.deviance, deviance, 1e-5));
    expect_true(std::isnan(r.error));
  }

  test_that("where full steps run away, damped mode searches take over and the evidence never falls") {
    RowsInBlocks p = separable_problem(60, 0.5, 1);
    const sparsebayes::PassesResult r =
        sparsebayes::LaplacePassesFit(p, "binomial", 100, sbtest::default_options("fast")).run();
    bool rejected = false, searched = false;
    double last = -sparsebayes::kInf;
    bool monotone = true;
    for (std::size_t k = 0; k < r.fit.trace.size(); ++k) {
      const sparsebayes::TraceRow& row = r.fit.trace[k];
      rejected = rejected || row.action == sparsebayes::kRejected;
      searched = searched || row.action == sparsebayes::kModeSearch;
      // once searching, each re-estimate's evidence (at the mode of its alphas) is at least the last's
      if (searched && row.action == sparsebayes::kReestimate) {
        monotone = monotone && !sparsebayes::evidence_fell(row.log_posterior, last);
        last = row.log_posterior;
      }
    }
    expect_true(rejected);
    expect_true(searched);
    expect_true(monotone);
    expect_true(r.passes_converged);
    expect_true(r.fit.mu.allFinite());
    expect_true(r.fit.mu.cwiseAbs().maxCoeff() < 1e3);
    expect_laplace_fixed_point(p, r, 1e-3);
    expect_true(std::isfinite(r.fit.log_evidence));
  }

  test_that("the passes stop at their cap, not converged, and a first pass that is not finite is an error") {
    RowsInBlocks p = problem("binomial", 200, 10, 1.0, 4);
    const sparsebayes::PassesResult r =
        sparsebayes::LaplacePassesFit(p, "binomial", 2, sbtest::default_options("fast")).run();
    expect_true(r.passes == 2);
    expect_false(r.passes_converged);
    expect_false(r.fit.converged);
    p.Phi(0, 1) = std::nan("");
    bool thrown = false;
    try {
      sparsebayes::LaplacePassesFit(p, "binomial", 100, sbtest::default_options("fast")).run();
    } catch (const std::runtime_error& e) {
      thrown = std::string(e.what()).find("could not make progress at outer pass 1") != std::string::npos;
    }
    expect_true(thrown);
  }
}

context("Laplace passes: a pass's sums and the mode search at fixed alphas") {
  test_that("a block's sums are the curvature-weighted statistics of the linearised targets, without cancellation") {
    RowsInBlocks p = problem("binomial", 50, 5, 1.0, 5);
    const std::vector<Index> relevant = {0, 3};
    const VectorXd mu = (VectorXd(2) << 0.5, -2.0).finished();
    const sparsebayes::Likelihood lik = sparsebayes::Likelihood::from_name("binomial");
    const PassSums s = sparsebayes::laplace_pass_sums(lik, p.Phi, p.t, p.w, p.offset, relevant, mu, true);
    const VectorXd f = columns(p.Phi, relevant) * mu;
    const VectorXd m = lik.mean(f);
    VectorXd score, b;
    lik.derivatives(p.t, f, m, score, b);
    const VectorXd z = f + score.cwiseQuotient(b);
    expect_true(sbtest::relative_difference(s.statistics.gram, p.Phi.transpose() * b.asDiagonal() * p.Phi) < 1e-12);
    expect_true(sbtest::relative_difference(s.statistics.cross, p.Phi.transpose() * b.cwiseProduct(z)) < 1e-12);
    expect_true(sbtest::near(s.log_lik, lik.log_likelihood(p.t, f), 1e-12));
    expect_true(sbtest::near(s.null_log_lik, 50.0 * std::log(0.5), 1e-12));
    // far in a tail: sqrt(p (1 - p)) = exp(-20) and (0 - p) / sqrt(p (1 - p)) = -exp(20), where 1 - p cancels
    double root = 0.0, resid = 0.0;
    lik.irls_row(40.0, 0.0, root, resid);
    expect_true(sbtest::near(root, std::exp(-20.0), 1e-12));
    expect_true(sbtest::near(resid, -std::exp(20.0), 1e-12));
    // Poisson's first pass is at the counts' own linear predictor log(t + 1/2)
    RowsInBlocks q = problem("poisson", 40, 5, 1.0, 6);
    const sparsebayes::Likelihood poisson = sparsebayes::Likelihood::from_name("poisson");
    const PassSums first = sparsebayes::laplace_pass_sums(poisson, q.Phi, q.t, q.w, q.offset, {}, VectorXd(), true);
    const VectorXd start = (q.t.array() + 0.5).log().matrix();
    expect_true(sbtest::near(first.log_lik, poisson.log_likelihood(q.t, start, q.w), 1e-12));
    expect_true(sbtest::near(first.null_log_lik, poisson.log_likelihood(q.t, q.offset, q.w), 1e-12));
  }

  test_that("a mode search where no damped step ascends fails (the passes decide what follows), or stops at the mode at round-off") {
    sparsebayes::ModeSearch s({0}, VectorXd::Ones(1), 1e-4);
    s.has_base = true;
    s.base_mu = VectorXd::Ones(1);
    s.base_log_posterior = 0.0;
    s.step = 1.0 / 256.0;
    s.decrement = 1.0;
    s.target = VectorXd::Constant(1, 3.0);
    s.mu = VectorXd::Constant(1, 1.0 + 2.0 / 256.0);
    PassSums sums;
    sums.statistics.gram = MatrixXd::Ones(1, 1);
    sums.statistics.cross = VectorXd::Ones(1);
    sums.statistics.tt = 1.0;
    sums.statistics.sum_t = 1.0;
    sums.statistics.n = 2;
    sums.log_lik = -100.0;
    sparsebayes::ModeSearch t = s;
    t.pass(sums);
    expect_true(t.failed);
    expect_false(t.at_mode);
    s.decrement = 1e-12;  // at the rounding level of the log posterior: the base is the mode
    sparsebayes::ModeSearch at = s;
    at.pass(sums);
    expect_true(at.at_mode);
    expect_false(at.failed);
    s.step = 0.5;  // sums that are not finite at a trial fail it: the step is halved
    sums.statistics.gram(0, 0) = std::nan("");
    s.pass(sums);
    expect_true(s.step == 0.25);
  }

  test_that("a mode search from a point with a column that leaves starts from its projection, not from a zero") {
    // weights of 1000 and -990 on two nearby columns cancel; setting the leaving one to 0 loses the fit
    MatrixXd G(3, 3);
    G << 4, 3.9, 1, 3.9, 4, 1, 1, 1, 2;
    PassSums sums;
    sums.statistics.gram = G;
    const VectorXd from = (VectorXd(2) << 1000.0, -990.0).finished();
    sparsebayes::ModeSearch s({0, 2}, VectorXd::Constant(2, 1e-3), 1e-4);
    s.start({0, 1}, from, sums, false);
    MatrixXd H(2, 2), C(2, 2);
    H << G(0, 0) + 1e-3, G(0, 2), G(2, 0), G(2, 2) + 1e-3;
    C << G(0, 0), G(0, 1), G(2, 0), G(2, 1);
    expect_true(sbtest::relative_difference(s.mu, H.lu().solve(C * from)) < 1e-12);
    expect_true(std::abs(s.mu(0)) < 100.0);
    expect_false(s.has_base);
  }
}
