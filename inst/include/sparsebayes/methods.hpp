// The one table of fitting methods: each method's update rule and what it
// supports. check_problem() (fit.hpp) and R's checks (through
// .sb_methods()) read it, and nothing else in the core compares method
// names. Every method fits the Gaussian likelihood with shared, per-sample
// and Student-t noise.
//   fast      the sequential marginal-likelihood solver (fast_solver.hpp)
//   em ...    the batch rules of JointArd (joint_ard.hpp, ard_rules.hpp)
// To add a batch rule: a row here, its class in ard_rules.hpp and its case in make_ard_rule().
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "names.hpp"

namespace sparsebayes {

enum class Rule { fast, em, mackay, irls2, irls1, gradient };

struct Method {
  const char* name;
  Rule rule;
  bool non_gaussian;  // Bernoulli and Poisson likelihoods (a Laplace posterior step)
  bool smoothness;    // the smoothness prior
  bool studentized;   // the studentized per-sample noise update
  bool statistics;    // shared noise from the sums over rows alone (fit_statistics(): data_chunks())
  bool passes;        // per-sample noise reading the rows only at noise steps (fit_passes(): data_chunks())
};

// The rules that need only the posterior mean and variances of the weights
// run on a Laplace posterior as on a Gaussian one; irls1 (an ADMM on the
// Gaussian evidence) and gradient (its analytic gradient) do not. irls1
// reads every row's x_i' Sigma x_i at every step, so it needs the rows;
// gradient steps per-sample noise by every row's residual at every step,
// and its primal form reads the sample space (fit_statistics() refuses
// that form whatever the table says).
inline constexpr Method kMethods[] = {
    {"fast", Rule::fast, true, true, false, true, false},     {"em", Rule::em, true, false, true, true, true},
    {"mackay", Rule::mackay, true, false, true, true, true},  {"irls2", Rule::irls2, true, false, true, true, true},
    {"irls1", Rule::irls1, false, false, false, false, false}, {"gradient", Rule::gradient, false, false, false, true, false},
};

// The methods with a capability, for messages: "a", "a or b", "a, b or c".
inline std::string methods_supporting(bool Method::*capability) {
  std::vector<std::string> names;
  for (const Method& m : kMethods)
    if (m.*capability) names.push_back(m.name);
  return or_list(names);
}

inline const Method& method_named(const std::string& name) {
  for (const Method& m : kMethods)
    if (name == m.name) return m;
  throw std::invalid_argument("unknown method '" + name + "'");
}

}  // namespace sparsebayes
