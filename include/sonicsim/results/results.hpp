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

// What a run's figures cannot be trusted for, one line each: no event completed in the measured
// span (its rates read 0 for want of events), a link that carried more than its bandwidth on
// average (possible only where the analytic transport timed its transfers; the advice depends on
// who chose that path, network.flow_model). The summary prints them, and `run --json` and
// `run --quiet` on stderr, so that none passes unseen.
std::vector<std::string> run_warnings(const scenario::Scenario& s, const runner::RunOutput& run);

}  // namespace sonicsim::results
