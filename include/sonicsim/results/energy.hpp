// A run's power, energy and cost (docs/servers.md, "Power, energy and cost"): the machines it
// measured, priced by the one formula (energy/account.hpp).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/energy/account.hpp>
#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

// The machines of a run, from what it measured after warm-up: each device at its utilisation
// (an operated pool's devices while up), each host at its host utilisation (idle when the host
// stage is not modelled), each workload's client cores (one per thread) at their CPU busy time.
std::vector<energy::Machines> measured_machines(const scenario::Scenario& s,
                                                const engine::RunMetrics& m);
// A run's energy and cost (egress from the bytes each site sent over the WAN at its price).
energy::Account run_account(const scenario::Scenario& s, const engine::RunMetrics& m);
// A run's `energy` and `cost` into its results (neither without power or prices, so that a
// scenario without them keeps its results' bytes), and the summary's lines for them.
void add_energy_and_cost(const scenario::Scenario& s, const engine::RunMetrics& m,
                         nlohmann::ordered_json& results);
std::vector<std::string> energy_summary(const scenario::Scenario& s, const engine::RunMetrics& m);

}  // namespace sonicsim::results
