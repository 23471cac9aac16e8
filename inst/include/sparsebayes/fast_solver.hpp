// The fast sequential marginal-likelihood solver (Tipping & Faul 2003,
// SparseBayes v2): one basis function is added, re-estimated or deleted per
// iteration, chosen by the largest increase of the log posterior. The loop is
// written once; the state and the updates are in fast_state.hpp, and what
// differs between shared and per-sample noise in the path chosen at
// construction (fast_gaussian.hpp). Gaussian targets only: binomial and
// Poisson fits run it on each pass's weighted rows or sums
// (laplace_passes.hpp), as do multinomial ones per class (multinomial.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "fast_gaussian.hpp"

namespace sparsebayes {

class FastSolver {
 public:
  FastSolver(const Data& data, const Eigen::VectorXd& inv_scale, const ProblemSpec& problem, const LoopControl& loop,
             const NoiseControl& noise, const FastControl& fast, std::shared_ptr<ColumnProducts> products = nullptr)
      : st_(data, inv_scale, problem, loop, noise, fast, std::move(products)), path_(make_path(st_)) {}
  // The path holds a reference to st_.
  FastSolver(const FastSolver&) = delete;
  FastSolver& operator=(const FastSolver&) = delete;

  FitResult run(const Progress& progress) {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    path_->start();
    FitResult res;
    int it = 0;
    bool converged = false;
    while (it < st_.loop.max_iterations) {
      check_interrupt();
      ++it;
      const int action = path_->noise_step(it, path_->step(st_.select()));
      const TraceRow row{it, st_.log_posterior, static_cast<int>(st_.used.size()), path_->noise(), action};
      res.trace.push_back(row);
      if (progress) progress(row);
      if (it == st_.problem.join_at && joins(res)) {  // the rest of the path is the other fit's
        res.joined = true;
        converged = true;
        break;
      }
      if (action == kTerminate || stalled(res.trace)) {
        converged = true;
        break;
      }
      if (std::chrono::duration<double>(clock::now() - start).count() > st_.loop.time_limit) break;
    }
    path_->full_statistics();  // exact posterior and evidence at the end
    res.relevant = st_.used;
    res.mu = st_.mu;
    res.Sigma = st_.Sigma;
    res.alpha = Eigen::VectorXd::Constant(st_.M, kInf);
    for (std::size_t k = 0; k < st_.used.size(); ++k) res.alpha(st_.used[k]) = st_.alpha(k);
    path_->report(res);
    res.log_posterior = st_.log_posterior;
    if (st_.in_memory()) res.fitted = st_.fitted();  // none from the sums
    res.iterations = it;
    res.converged = converged;
    res.jitter_events = st_.jitter_events;
    return res;
  }

 private:
  FastState st_;
  std::unique_ptr<FastPath> path_;

  // A crawl along a flat ridge of the evidence: the log posterior rose by
  // less than kStallGain nats over the last kStallWindow iterations. An
  // interpolating model (21 rows, 22 narrow functions) moves its noise and a
  // precision towards zero by 0.1% a step, each step above the tolerances on
  // log alpha and log beta, for 10000 iterations that gain 4e-4 nats in all.
  // Nats, not a fraction of the log posterior: its offset is arbitrary. The
  // rise is counted from the window's lowest point, so that a drop (summed
  // gains replaced by exact statistics) followed by
  // progress is not a stall.
  static constexpr std::size_t kStallWindow = 500;
  static constexpr double kStallGain = 1e-4;
  static bool stalled(const std::vector<TraceRow>& trace) {
    const std::size_t n = trace.size();
    if (n <= kStallWindow) return false;
    double low = trace[n - 1].log_posterior;
    for (std::size_t i = n - 1 - kStallWindow; i < n - 1; ++i) low = std::min(low, trace[i].log_posterior);
    return trace[n - 1].log_posterior - low < kStallGain;
  }

  // The state at iteration problem.join_at, kept in res (every column's
  // precision, Inf out of the model, and the noise variance); true when the
  // problem carries another fit's state there and this one has reached it,
  // to join_tolerance in log alpha and log noise. From one state the solver
  // takes the same steps, so two starts of the noise that meet there end at
  // one optimum (rvm()'s candidate fits, R/learn_widths.R).
  bool joins(FitResult& res) const {
    const ProblemSpec& p = st_.problem;
    res.checkpoint_alpha = Eigen::VectorXd::Constant(st_.M, kInf);
    for (std::size_t k = 0; k < st_.used.size(); ++k) res.checkpoint_alpha(st_.used[k]) = st_.alpha(k);
    res.checkpoint_noise = path_->noise();
    if (p.join_alpha.size() != st_.M || !(p.join_noise > 0.0) || !(res.checkpoint_noise > 0.0)) return false;
    const auto close = [&](double a, double b) { return std::abs(std::log(a / b)) <= p.join_tolerance; };
    if (!close(res.checkpoint_noise, p.join_noise)) return false;
    for (Eigen::Index m = 0; m < st_.M; ++m) {
      const double a = res.checkpoint_alpha(m), b = p.join_alpha(m);
      if (std::isfinite(a) != std::isfinite(b) || (std::isfinite(a) && !close(a, b))) return false;
    }
    return true;
  }

  static std::unique_ptr<FastPath> make_path(FastState& st) {
    if (st.problem.per_sample) return std::make_unique<SampleNoisePath>(st);
    return std::make_unique<SharedNoisePath>(st);
  }
};

}  // namespace sparsebayes
