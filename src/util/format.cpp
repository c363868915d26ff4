#include <sonicsim/util/format.hpp>

#include <cmath>
#include <cstdio>

namespace sonicsim::util {

std::string exact_number(double v) {
  char buf[64];
  if (v == std::floor(v) && std::abs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace sonicsim::util
