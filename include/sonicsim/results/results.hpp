// The results file (SPEC section 6) and the human summary of a run.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

// Keys in SPEC order. Everything but `perf` depends only on the scenario and its seed.
nlohmann::ordered_json to_json(const scenario::Scenario& s, const runner::RunOutput& run,
                               const nlohmann::json& analytic);

std::string summary(const scenario::Scenario& s, const runner::RunOutput& run,
                    const nlohmann::json& analytic);

// One line per link that carried more than its bandwidth on average (possible only where the
// analytic transport timed its transfers): the summary prints them, and `run --json` on stderr,
// so that an impossible load cannot pass unseen. The advice depends on who chose the analytic
// path (network.flow_model).
std::vector<std::string> overload_warnings(const scenario::Scenario& s,
                                           const runner::RunOutput& run);

}  // namespace sonicsim::results
