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

// Writes through a temporary file in the same folder and renames it, so a reader never sees a
// half-written file and a failed run leaves no file behind. Throws std::runtime_error.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace sonicsim::results
