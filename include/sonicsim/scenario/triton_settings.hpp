// A Triton config.pbtxt read exactly as a model's `triton_config` is (docs/scenario.md), for tools
// that take a measured server's settings from its config without a scenario (`calibrate
// perf-analyzer --triton-config`): the same refusals (ensembles, sequence batching, near-miss
// field names, ...), the same reading of instance_group and dynamic_batching.
#pragma once

#include <optional>
#include <string>

#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/triton/config_file.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::scenario {

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
using TritonAdvice = triton::Advice;

// Throws InputError with `source` (the flag that named the file) as its file and every problem,
// each naming the config file. With instances_given the instance groups are not interpreted (the
// caller has its own count), so groups a pool could not represent are no error.
TritonSettings read_triton_config(const std::string& file, const std::string& source,
                                  bool instances_given, const TritonAdvice& advice = {});

}  // namespace sonicsim::scenario
