#include <sonicsim/util/format.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sonicsim::util {

std::string exact_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::abs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace sonicsim::util
