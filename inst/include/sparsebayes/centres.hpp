// Candidate centres for kernel bases on large data: k-means++ seeding
// (Arthur and Vassilvitskii 2007) refined by Lloyd iterations, so that an
// RVM's basis is n x m instead of n x n. Pure C++17 + Eigen: no R headers.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "interrupt.hpp"

namespace sparsebayes {

namespace detail {

// A Lloyd step, or a seeding step's distances to the newest centre, is
// shared among threads only beyond this many row-centre-input products
// (about half a millisecond): below it a thread's start and spin-wait cost
// more than its share of the work, and on a busy machine far more (the
// seeding of 1000 centres opened 1000 regions of 50 microseconds each, and
// each waited for a descheduled thread: 6.4 s against 0.8 s on one thread).
constexpr Eigen::Index lloyd_parallel_work = Eigen::Index(1) << 20;

// A uniform number in [0, 1) from the 53 top bits: unlike
// std::uniform_real_distribution, the same on every standard library.
inline double unit_uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1.0p-53; }

inline double squared_distance(const Eigen::Ref<const Eigen::MatrixXd>& a, Eigen::Index i,
                               const Eigen::Ref<const Eigen::MatrixXd>& b, Eigen::Index j) {
  double s = 0.0;
  for (Eigen::Index k = 0; k < a.cols(); ++k) {
    const double d = a(i, k) - b(j, k);
    s += d * d;
  }
  return s;
}

// Index of the centre nearest to row i of x, and its squared distance.
inline std::pair<Eigen::Index, double> nearest_centre(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index i,
                                                      const Eigen::MatrixXd& centres) {
  Eigen::Index best = 0;
  double best_d2 = std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < centres.rows(); ++j) {
    const double d2 = squared_distance(x, i, centres, j);
    if (d2 < best_d2) {
      best_d2 = d2;
      best = j;
    }
  }
  return {best, best_d2};
}

}  // namespace detail

// m centres for the rows of x: k-means++ seeding on at most `sample_size`
// rows (a random subset when n is larger: cluster centres need far fewer
// points than there are rows), then up to `iterations` Lloyd steps on those
// rows, stopping when no assignment changes. Fewer than m rows are returned
// when the data have fewer distinct points. Deterministic for a seed, and
// identical for any number of threads (threads only split the per-row
// distance loops; every sum runs in a fixed order).
inline Eigen::MatrixXd kmeans_centres(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Index m, std::uint64_t seed,
                                      int iterations = 10, Eigen::Index sample_size = -1, int threads = 1) {
  const Eigen::Index n = x.rows(), d = x.cols();
  if (m < 1) throw std::invalid_argument("the number of centres must be at least 1");
  if (n < 1 || d < 1) throw std::invalid_argument("centres need at least one row and one column of inputs");
  if (!x.allFinite()) throw std::invalid_argument("inputs for centres must be finite");
  std::mt19937_64 rng(seed);
  threads = std::max(1, threads);

  // The rows the centres are computed from: all, or a random subset
  // (partial Fisher-Yates), in their original order.
  std::vector<Eigen::Index> rows(n);
  for (Eigen::Index i = 0; i < n; ++i) rows[i] = i;
  if (sample_size > 0 && sample_size < n) {
    for (Eigen::Index i = 0; i < sample_size; ++i) {
      const Eigen::Index j = i + Eigen::Index(detail::unit_uniform(rng) * double(n - i));
      std::swap(rows[i], rows[std::min(j, n - 1)]);
    }
    rows.resize(sample_size);
    std::sort(rows.begin(), rows.end());
  }
  const Eigen::Index ns = Eigen::Index(rows.size());
  Eigen::MatrixXd xs(ns, d);
  for (Eigen::Index i = 0; i < ns; ++i) xs.row(i) = x.row(rows[i]);
  m = std::min(m, ns);

  // k-means++: each new centre is a row drawn with probability proportional
  // to its squared distance from the nearest centre so far.
  Eigen::MatrixXd centres(m, d);
  Eigen::VectorXd d2 = Eigen::VectorXd::Constant(ns, std::numeric_limits<double>::infinity());
  Eigen::Index chosen = Eigen::Index(detail::unit_uniform(rng) * double(ns));
  Eigen::Index k = 0;
  while (true) {
    centres.row(k) = xs.row(std::min(chosen, ns - 1));
    ++k;
    check_interrupt();
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && ns * d > detail::lloyd_parallel_work)
#endif
    for (Eigen::Index i = 0; i < ns; ++i) d2[i] = std::min(d2[i], detail::squared_distance(xs, i, centres, k - 1));
    if (k == m) break;
    const double total = d2.sum();
    if (!(total > 0.0)) break;  // every row is a centre already
    const double target = detail::unit_uniform(rng) * total;
    double cum = 0.0;
    chosen = ns - 1;
    for (Eigen::Index i = 0; i < ns; ++i) {
      cum += d2[i];
      if (cum > target && d2[i] > 0.0) {
        chosen = i;
        break;
      }
    }
    if (!(d2[chosen] > 0.0)) break;
  }
  centres.conservativeResize(k, Eigen::NoChange);

  // Lloyd: assign every row to its nearest centre, move each centre to the
  // mean of its rows (a centre that loses all its rows stays).
  std::vector<Eigen::Index> assignment(ns, -1);
  for (int it = 0; it < iterations; ++it) {
    check_interrupt();
    Eigen::Index changed = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : changed) if (threads > 1 && ns * k * d > detail::lloyd_parallel_work)
#endif
    for (Eigen::Index i = 0; i < ns; ++i) {
      const Eigen::Index a = detail::nearest_centre(xs, i, centres).first;
      if (a != assignment[i]) ++changed;
      assignment[i] = a;
    }
    if (changed == 0) break;
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(k, d);
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(k);
    for (Eigen::Index i = 0; i < ns; ++i) {
      sums.row(assignment[i]) += xs.row(i);
      counts[assignment[i]] += 1.0;
    }
    for (Eigen::Index j = 0; j < k; ++j)
      if (counts[j] > 0.0) centres.row(j) = sums.row(j) / counts[j];
  }
  return centres;
}

}  // namespace sparsebayes
