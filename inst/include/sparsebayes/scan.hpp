// Input scans that make no copies. Pure C++17: no R headers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "interrupt.hpp"

namespace sparsebayes {

// True when none of the n values is NaN or +-Inf; a pass over the memory
// with no allocation (an R-level any(!is.finite(x)) would make an n-long
// logical copy), in chunks with an interrupt check between them.
inline bool all_finite(const double* x, std::size_t n) {
  constexpr std::size_t chunk = std::size_t(1) << 22;
  for (std::size_t start = 0; start < n; start += chunk) {
    check_interrupt();
    const std::size_t end = std::min(n, start + chunk);
    bool ok = true;
    for (std::size_t i = start; i < end; ++i) ok &= std::isfinite(x[i]);
    if (!ok) return false;
  }
  return true;
}

}  // namespace sparsebayes
