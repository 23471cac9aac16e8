// Periodic orthonormal discrete wavelet transforms (Haar, Symmlet 8) on
// N = 2^J points and the synthesis basis they define. Coefficients are
// ordered coarse to fine: [scaling, detail level 0 (1), level 1 (2), ...,
// finest level (N/2)].
#pragma once

#include <Eigen/Dense>
#include <stdexcept>
#include <string>
#include <vector>

namespace sparsebayes {

// Low-pass (scaling) filter of an orthonormal wavelet family.
inline std::vector<double> wavelet_filter(const std::string& family) {
  if (family == "haar") return {0.70710678118654752440, 0.70710678118654752440};
  if (family == "symmlet8")  // least-asymmetric Daubechies, 8 vanishing moments
    return {-0.0033824159510061256, -0.0005421323317911481, 0.03169508781149298,  0.007607487324917605,
            -0.1432942383508097,    -0.061273359067658524,  0.4813596512583722,   0.7771857517005235,
            0.3644418948353314,     -0.05194583810770904,   -0.027219029917056003, 0.049137179673607506,
            0.003808752013890615,   -0.01495225833704823,   -0.0003029205147213668, 0.0018899503327594609};
  throw std::invalid_argument("unknown wavelet family '" + family + "'");
}

inline int wavelet_levels(Eigen::Index n) {
  int J = 0;
  while ((Eigen::Index(1) << J) < n) ++J;
  if (n < 2 || (Eigen::Index(1) << J) != n)
    throw std::invalid_argument("a wavelet basis needs a number of points that is a power of two (>= 2)");
  return J;
}

namespace detail {

// One analysis step of the periodic transform: the n / 2 scaling (approx)
// and wavelet (detail) coefficients of a, n = a.size().
inline void analysis_step(const Eigen::VectorXd& a, const std::vector<double>& h, Eigen::VectorXd& approx,
                          Eigen::VectorXd& detail) {
  const Eigen::Index L = h.size(), n = a.size();
  approx = Eigen::VectorXd::Zero(n / 2);
  detail = Eigen::VectorXd::Zero(n / 2);
  for (Eigen::Index i = 0; i < n / 2; ++i)
    for (Eigen::Index k = 0; k < L; ++k) {
      const double v = a((2 * i + k) % n);
      approx(i) += h[k] * v;
      detail(i) += ((k % 2) ? -1.0 : 1.0) * h[L - 1 - k] * v;
    }
}

// Its inverse (and transpose): the n = 2 approx.size() values.
inline Eigen::VectorXd synthesis_step(const Eigen::VectorXd& approx, const Eigen::VectorXd& detail,
                                      const std::vector<double>& h) {
  const Eigen::Index L = h.size(), n = 2 * approx.size();
  Eigen::VectorXd next = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n / 2; ++i)
    for (Eigen::Index k = 0; k < L; ++k)
      next((2 * i + k) % n) += h[k] * approx(i) + ((k % 2) ? -1.0 : 1.0) * h[L - 1 - k] * detail(i);
  return next;
}

// The mean of cyclic shifts of a (length n): the recursion of cycle_spin().
template <typename Rule>
Eigen::VectorXd spin(const Eigen::VectorXd& a, const std::vector<double>& h, const Rule& rule) {
  const Eigen::Index n = a.size();
  if (n == 1) return Eigen::VectorXd::Constant(1, rule(a(0), -1));
  int level = -1;
  for (Eigen::Index m = n; m > 1; m /= 2) ++level;  // the details of this step: log2(n) - 1
  Eigen::VectorXd out = Eigen::VectorXd::Zero(n), shifted(n), approx, detail;
  for (Eigen::Index phase = 0; phase < 2; ++phase) {
    for (Eigen::Index i = 0; i < n; ++i) shifted(i) = a((i + phase) % n);
    analysis_step(shifted, h, approx, detail);
    for (Eigen::Index i = 0; i < detail.size(); ++i) detail(i) = rule(detail(i), level);
    const Eigen::VectorXd rec = synthesis_step(spin(approx, h, rule), detail, h);
    for (Eigen::Index i = 0; i < n; ++i) out((i + phase) % n) += 0.5 * rec(i);
  }
  return out;
}

}  // namespace detail

// Forward transform: the coefficients z = W t of a signal t.
inline Eigen::VectorXd dwt(const Eigen::VectorXd& t, const std::string& family) {
  const std::vector<double> h = wavelet_filter(family);
  const Eigen::Index N = t.size();
  wavelet_levels(N);
  Eigen::VectorXd out(N), a = t, approx, detail;
  for (Eigen::Index n = N; n >= 2; n /= 2) {
    detail::analysis_step(a, h, approx, detail);
    out.segment(n / 2, n / 2) = detail;
    a = approx;
  }
  out(0) = a(0);
  return out;
}

// Inverse transform (the transpose of dwt): the signal W' z.
inline Eigen::VectorXd idwt(const Eigen::VectorXd& z, const std::string& family) {
  const std::vector<double> h = wavelet_filter(family);
  const Eigen::Index N = z.size();
  wavelet_levels(N);
  Eigen::VectorXd a = z.head(1);
  for (Eigen::Index n = 2; n <= N; n *= 2) a = detail::synthesis_step(a, z.segment(n / 2, n / 2), h);
  return a;
}

// Translation-invariant denoising (Coifman & Donoho, 1995): the mean over
// all N cyclic shifts s of S^-s W' r(W S^s t), where r maps each coefficient
// by its level alone (rule(z, level): level -1 for the scaling coefficient,
// 0 the coarsest details ... J - 1 the finest). Shifts by 2s' and 2s' + 1
// share their first-step details up to a shift, so the recursion over the
// two phases of each step costs O(N L log N) instead of O(N^2 L).
template <typename Rule>
Eigen::VectorXd cycle_spin(const Eigen::VectorXd& t, const std::string& family, const Rule& rule) {
  wavelet_levels(t.size());
  return detail::spin(t, wavelet_filter(family), rule);
}

// Pointwise variance sum_m v_m psi_m(x_i)^2 of W' w for independent
// coefficients w with variances v (in dwt's order). The functions of detail
// level l are translates of one another by N / 2^l points, so one synthesis
// per level serves them all, each over its support only.
inline Eigen::VectorXd synthesis_variance(const Eigen::VectorXd& v, const std::string& family) {
  const Eigen::Index N = v.size();
  const int J = wavelet_levels(N);
  Eigen::VectorXd out = Eigen::VectorXd::Constant(N, v(0) / static_cast<double>(N));  // the constant 1 / sqrt(N)
  Eigen::VectorXd e = Eigen::VectorXd::Zero(N);
  for (int l = 0; l < J; ++l) {
    const Eigen::Index first = Eigen::Index(1) << l, step = N / first;
    if (!(v.segment(first, first).array() > 0.0).any()) continue;
    e(first) = 1.0;
    const Eigen::VectorXd psi = idwt(e, family);
    e(first) = 0.0;
    std::vector<Eigen::Index> support;
    for (Eigen::Index i = 0; i < N; ++i)
      if (psi(i) != 0.0) support.push_back(i);
    for (Eigen::Index k = 0; k < first; ++k) {
      const double vk = v(first + k);
      if (vk <= 0.0) continue;
      for (Eigen::Index i : support) out((i + k * step) % N) += vk * psi(i) * psi(i);
    }
  }
  return out;
}

// Columns `index` of the synthesis basis W' (N x |index|): each is the
// inverse transform of a unit coefficient vector, O(N log N) apiece.
inline Eigen::MatrixXd wavelet_columns(Eigen::Index N, const std::string& family, const std::vector<Eigen::Index>& index) {
  Eigen::MatrixXd B(N, index.size());
  Eigen::VectorXd e = Eigen::VectorXd::Zero(N);
  for (std::size_t j = 0; j < index.size(); ++j) {
    if (index[j] < 0 || index[j] >= N) throw std::invalid_argument("wavelet column index out of range");
    e(index[j]) = 1.0;
    B.col(j) = idwt(e, family);
    e(index[j]) = 0.0;
  }
  return B;
}

}  // namespace sparsebayes
