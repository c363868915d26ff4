#include <sonicsim/results_format/keys.hpp>

namespace sonicsim::results {

std::string column(std::initializer_list<std::string_view> path) {
  std::string out;
  bool first = true;
  for (std::string_view key : path) {
    if (!first) out += kColumnSeparator;
    out += key;
    first = false;
  }
  return out;
}

}  // namespace sonicsim::results
