// Loading a scenario file: JSON -> validated Scenario, with every problem reported at once.
//
// Errors name the file, the JSON path (e.g. `workload.requests[0].offload_fraction`), what was
// found and what is expected. Nothing here prints or exits: the CLI decides (exit code 2).
#pragma once

#include <cstdint>
#include <optional>
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

// A Triton config.pbtxt read exactly as a model's `triton_config` is (docs/scenario.md): the same
// refusals (ensembles, sequence batching, near-miss field names, ...), the same reading of
// instance_group and dynamic_batching. For tools that take a measured server's settings from its
// config without a scenario (`calibrate perf-analyzer --triton-config`).
struct TritonSettings {
  std::string file, sha256;
  std::string name;               // the config's `name`
  int config_max_batch_size = 0;  // as written: Triton's 0 is "no batch dimension"
  int max_batch_size = 0;         // sonicsim's meaning: Triton's 0 becomes 1 item per execution
  std::optional<DynamicBatching> dynamic_batching;  // none without a dynamic_batching block
  int instances = 1;             // per device; 1 without instance_group, or when given
  bool instance_groups = false;  // the config has instance_group
  std::string instance_kind;     // "KIND_GPU", ... ("" without instance_group)
};
// What the messages advise instead of what is refused, in the caller's terms (its flags); an
// empty string keeps the scenario's wording.
struct TritonAdvice {
  std::string ensemble, sequence, instances;
};
// Throws InputError with `source` (the flag that named the file) as its file and every problem,
// each naming the config file. With instances_given the instance groups are not interpreted (the
// caller has its own count), so groups a pool could not represent are no error.
TritonSettings read_triton_config(const std::string& file, const std::string& source,
                                  bool instances_given, const TritonAdvice& advice = {});

// Hard limits that protect against absurd sizes before anything is allocated.
struct Limits {
  static constexpr std::int64_t max_threads = 10'000'000;
  static constexpr std::int64_t max_devices = 1'000'000;
  static constexpr int max_items = 1'000'000;
  static constexpr double max_duration_s = 10.0 * 365 * 24 * 3600;
  static constexpr int max_instances = 1000;                 // model instances per device
  static constexpr int max_events_in_flight = 1000;          // per thread, async mode
  static constexpr std::int64_t max_priority_levels = 1000;  // Triton priority levels
  static constexpr std::size_t max_workloads = 64;
  static constexpr std::size_t max_request_kinds = 1000;      // entries of one workload's requests
  static constexpr double max_arrival_rate = 1e9;             // per second, open loop
  static constexpr std::int64_t max_in_flight = 100'000'000;  // requests, open loop
};

}  // namespace sonicsim::scenario
