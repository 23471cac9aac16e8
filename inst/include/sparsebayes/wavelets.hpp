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

// Forward transform: the coefficients z = W t of a signal t.
inline Eigen::VectorXd dwt(const Eigen::VectorXd& t, const std::string& family) {
  const std::vector<double> h = wavelet_filter(family);
  const Eigen::Index L = h.size(), N = t.size();
  wavelet_levels(N);
  Eigen::VectorXd out(N), a = t;
  for (Eigen::Index n = N; n >= 2; n /= 2) {
    Eigen::VectorXd approx = Eigen::VectorXd::Zero(n / 2), detail = Eigen::VectorXd::Zero(n / 2);
    for (Eigen::Index i = 0; i < n / 2; ++i)
      for (Eigen::Index k = 0; k < L; ++k) {
        const double v = a((2 * i + k) % n);
        approx(i) += h[k] * v;
        detail(i) += ((k % 2) ? -1.0 : 1.0) * h[L - 1 - k] * v;
      }
    out.segment(n / 2, n / 2) = detail;
    a = approx;
  }
  out(0) = a(0);
  return out;
}

// Inverse transform (the transpose of dwt): the signal W' z.
inline Eigen::VectorXd idwt(const Eigen::VectorXd& z, const std::string& family) {
  const std::vector<double> h = wavelet_filter(family);
  const Eigen::Index L = h.size(), N = z.size();
  wavelet_levels(N);
  Eigen::VectorXd a = z.head(1);
  for (Eigen::Index n = 2; n <= N; n *= 2) {
    Eigen::VectorXd next = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < n / 2; ++i)
      for (Eigen::Index k = 0; k < L; ++k)
        next((2 * i + k) % n) += h[k] * a(i) + ((k % 2) ? -1.0 : 1.0) * h[L - 1 - k] * z(n / 2 + i);
    a = next;
  }
  return a;
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
