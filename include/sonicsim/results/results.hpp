// The results file (SPEC section 6) and the human summary of a run.
#pragma once

#include <stdexcept>
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

// An output file that cannot be written: the user's input (exit code 2), not a bug.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Fails fast, before a long simulation, when `path` could not be written (missing folder, no
// permission). Throws OutputError.
void check_writable(const std::string& path);

// Writes through a temporary file in the same folder and renames it, so a reader never sees a
// half-written file and a failed run leaves no file behind. Throws OutputError.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace sonicsim::results
