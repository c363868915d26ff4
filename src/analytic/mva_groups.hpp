// Stations of equal demand have equal queues at every population (symmetry), so the MVA
// recursions (single-class in mva.cpp, per-site classes in mva_classes.cpp) carry one
// representative per distinct demand. Internal to the analytic part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include <sonicsim/analytic/mva.hpp>

namespace sonicsim::analytic::detail {

// `slot[i]` maps the network's station group i to its representative.
struct MergedStations {
  std::vector<double> demand;
  std::vector<double> count;
  std::vector<std::size_t> slot;
};

inline MergedStations merge_equal_demands(const ClosedNetwork& network) {
  MergedStations m;
  std::map<double, std::size_t> index;
  m.slot.reserve(network.stations.size());
  for (const StationGroup& g : network.stations) {
    const double d = std::max(g.demand_s, 0.0);
    auto [it, fresh] = index.try_emplace(d, m.demand.size());
    if (fresh) {
      m.demand.push_back(d);
      m.count.push_back(0.0);
    }
    m.count[it->second] += static_cast<double>(std::max<std::int64_t>(g.count, 0));
    m.slot.push_back(it->second);
  }
  return m;
}

}  // namespace sonicsim::analytic::detail
