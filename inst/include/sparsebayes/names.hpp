// Lists of names for messages, from the core's tables: "a", "a or b", "a, b or c".
// Pure C++17: no R headers.
#pragma once

#include <string>
#include <vector>

namespace sparsebayes {

inline std::string or_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace sparsebayes
