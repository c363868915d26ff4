#include <sonicsim/uncertainty/stats.hpp>

#include <algorithm>
#include <cmath>

namespace sonicsim::uncertainty {

double quantile_of(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  // The smallest index k (1-based) with k >= q n; a tiny slack keeps 0.95 x 20 = 19 at 19.
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n - 1e-9)));
  return values[std::min(k, values.size()) - 1];
}

std::pair<double, double> wilson95(int k, int n) {
  constexpr double z = 1.959963984540054;
  const double p = static_cast<double>(k) / n, nn = static_cast<double>(n);
  const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half = z / (1 + z * z / nn) * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn));
  return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

}  // namespace sonicsim::uncertainty
