// Plausibility of a valid scenario's quantities: values that are legal but most likely a unit
// slip (a bare 100 for a bandwidth is 100 B/s; a bare 993.3 for a CPU time is 993 s). They become
// warnings with a did-you-mean, never problems: the scenario still loads. Private to
// src/scenario; docs/scenario.md#plausibility-warnings lists every rule.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/errors.hpp>

#include "checker.hpp"

namespace sonicsim::scenario::detail {

// The thresholds (SI): a bandwidth under 1 Mbps, a CPU time per event over 10 min, a service time
// over 10 s, a link latency over 1 s; neighbours more than 1000x apart.
inline constexpr double kLeastBandwidth = 1e6 / 8;
inline constexpr double kMostCpuTime = 600.0;
inline constexpr double kMostServiceTime = 10.0;
inline constexpr double kMostLatency = 1.0;
inline constexpr double kNeighbourRatio = 1000.0;

// At most one warning per reading, in the order they were read. `workload_paths[i]` is the JSON
// path of s.workloads[i] (`workload` or `workloads[i]`).
std::vector<Problem> plausibility_warnings(const std::vector<Reading>& readings, const Scenario& s,
                                           const std::vector<std::string>& workload_paths);

}  // namespace sonicsim::scenario::detail
