// What differs between the Gaussian paths of the fast solver, behind one
// interface: how the posterior, S and Q come from the rows (B = beta I or
// B = diag(1 / lambda_i)), the noise update, and how a chosen action is
// carried out. FastSolver picks a path once, at construction, and runs the
// one add/re-estimate/delete loop.
#pragma once

#include <cmath>

#include "fast_state.hpp"

namespace sparsebayes {

class FastPath {
 public:
  explicit FastPath(FastState& st) : st_(st) {}
  virtual ~FastPath() = default;
  FastPath(const FastPath&) = delete;
  FastPath& operator=(const FastPath&) = delete;

  // The first column and the exact statistics of the one-column model.
  virtual void start() = 0;
  // Carries out the chosen action; returns the action taken (kRejected if undone).
  virtual int step(const FastChoice& ch) = 0;
  // After the step of iteration `it`: the noise re-estimated on its schedule;
  // returns the action to report (kNoiseOnly if the noise alone moved).
  virtual int noise_step(int /*it*/, int action) { return action; }
  // The noise variance of the trace (mean(lambda) per sample; NaN without noise).
  virtual double noise() const { return std::nan(""); }
  // The exact posterior, log evidence and S, Q of every column.
  virtual void statistics() = 0;
  // The log priors the solver climbs besides the evidence: the smoothness prior.
  virtual double log_prior() const {
    return log_smoothness_prior(st_.alpha, st_.beta, st_.problem.smoothness, st_.fast.noise_shape, st_.fast.noise_scale);
  }
  // The noise and the evidence into the result.
  virtual void report(FitResult& res) const { res.log_evidence = st_.log_ml; }

  void full_statistics() {
    statistics();
    st_.log_posterior = st_.log_ml + log_prior();
  }

 protected:
  FastState& st_;
};

}  // namespace sparsebayes
