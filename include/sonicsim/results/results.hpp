// The results file (SPEC section 6) and the human summary of a run.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

// Keys in SPEC order. Everything but `perf` depends only on the scenario and its seed.
nlohmann::ordered_json to_json(const scenario::Scenario& s, const runner::RunOutput& run,
                               const nlohmann::json& analytic);

std::string summary(const scenario::Scenario& s, const runner::RunOutput& run,
                    const nlohmann::json& analytic);

}  // namespace sonicsim::results
