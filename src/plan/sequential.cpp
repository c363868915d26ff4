// Sequential stopping of replications (sequential.hpp).
#include "sequential.hpp"

#include <algorithm>

namespace sonicsim::plan::detail {

int first_replications(const Options& o) {
  const int most = std::max(1, o.replications);
  if (!o.sequential) return most;
  return std::clamp(o.min_replications, 1, most);
}

std::vector<Replicated> replicate(const Options& o, std::int64_t base_seed,
                                  const std::vector<double>& values, const Simulate& simulate,
                                  const Decided& decided) {
  const int most = std::max(1, o.replications);
  std::vector<Replicated> out(values.size());
  // Each round: `want[i]` more seeds for value i, all of the round's runs in one call.
  std::vector<int> want(values.size(), first_replications(o));
  for (;;) {
    std::vector<std::vector<scenario::Override>> sets;
    std::vector<std::size_t> owner;
    for (std::size_t i = 0; i < values.size(); ++i)
      for (int k = 0; k < want[i]; ++k) {
        const auto seed = base_seed + static_cast<std::int64_t>(out[i].results.size()) + k;
        sets.push_back(point_overrides(o, values[i], seed));
        owner.push_back(i);
      }
    if (sets.empty()) break;
    auto results = simulate(sets);
    for (std::size_t j = 0; j < owner.size(); ++j)
      out[owner[j]].results.push_back(std::move(results.at(j)));
    std::fill(want.begin(), want.end(), 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const int have = static_cast<int>(out[i].results.size());
      if (have >= most) continue;
      if (decided(values[i], out[i].results))
        out[i].stopped = "certain";
      else
        want[i] = 1;
    }
  }
  return out;
}

}  // namespace sonicsim::plan::detail
