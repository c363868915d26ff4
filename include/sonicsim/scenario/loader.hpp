// Loading a scenario file: JSON -> validated Scenario, with every problem reported at once.
//
// Errors name the file, the JSON path (e.g. `workload.requests[0].offload_fraction`), what was
// found and what is expected. Nothing here prints or exits: the CLI decides (exit code 2).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::scenario {

struct Problem {
  std::string path;     // JSON path, "" for the whole document
  std::string message;  // what was found and what is expected
};

// Thrown when input is bad; carries every problem found. `what()` gives them one per line as
// `FILE: PATH: MESSAGE`.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::vector<Problem> problems);
  const std::string& file() const { return file_; }
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::string file_;
  std::vector<Problem> problems_;
};

// One `--set key.path=value` override; value is JSON (a bare word is taken as a string).
struct Override {
  std::string path;
  std::string value;
};
Override parse_override(const std::string& text);  // throws InputError on `key` without `=`

// Reads the file, applies the overrides in order, validates. Relative paths inside the scenario
// (calibration files) are resolved against the scenario file's folder.
Scenario load_file(const std::string& path, const std::vector<Override>& overrides = {});

// Same from a JSON document; `file` is only used to name the source in messages.
Scenario load_json(const nlohmann::json& doc, const std::string& file = "<inline>",
                   const std::string& base_dir = ".");

// Every problem of a file (for `sonicsim validate`); empty when the scenario is valid.
std::vector<Problem> validate_file(const std::string& path,
                                   const std::vector<Override>& overrides = {});

// Hard limits that protect against absurd sizes before anything is allocated.
struct Limits {
  static constexpr std::int64_t max_threads = 10'000'000;
  static constexpr std::int64_t max_devices = 1'000'000;
  static constexpr int max_items = 1'000'000;
  static constexpr double max_duration_s = 10.0 * 365 * 24 * 3600;
  static constexpr int max_instances = 1000;                  // model instances per device
  static constexpr int max_events_in_flight = 1000;           // per thread, async mode
  static constexpr double max_arrival_rate = 1e9;             // per second, open loop
  static constexpr std::int64_t max_in_flight = 100'000'000;  // requests, open loop
};

}  // namespace sonicsim::scenario
