// Reading a Triton model configuration (config.pbtxt, protobuf text format) into plain data.
//
// This part only reads: it parses the text with libprotobuf's TextFormat parser against a subset
// of Triton's inference.ModelConfig (src/triton/model_config.proto) and copies out what sonicsim
// can use. Refusing what sonicsim cannot simulate (ensembles, sequence batching) and reading the
// instance groups is config_file.hpp's job; putting the values into a scenario's model is the
// scenario loader's (src/scenario/load_triton.cpp), which knows the JSON paths. No protobuf type
// appears here, so users of this header do not depend on the generated code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonicsim::triton {

// Positions are 1-based, as editors show them; 0 when unknown.
struct Position {
  int line = 0;
  int column = 0;
};

struct Tensor {
  std::string name;
  std::string data_type;           // Triton's enum name: "TYPE_FP32", "TYPE_STRING", ...
  std::vector<std::int64_t> dims;  // -1: variable, set by the client
  Position position;
};

struct QueuePolicy {
  bool delay = false;                              // timeout_action: REJECT (false) or DELAY (true)
  std::uint64_t default_timeout_microseconds = 0;  // 0: no timeout
  bool allow_timeout_override = false;
  std::uint32_t max_queue_size = 0;  // 0: unlimited
};

struct DynamicBatching {
  std::vector<std::int32_t> preferred_batch_size;  // as written
  std::uint64_t max_queue_delay_microseconds = 0;
  bool preserve_ordering = false;
  std::uint64_t priority_levels = 0;
  std::uint64_t default_priority_level = 0;
  QueuePolicy default_queue_policy;  // Triton's defaults when the block is absent
  std::map<std::uint64_t, QueuePolicy> priority_queue_policy;
  Position position;
};

struct InstanceGroup {
  std::string name;
  std::string kind = "KIND_AUTO";  // KIND_AUTO, KIND_GPU, KIND_CPU, KIND_MODEL
  std::int32_t count = 0;          // as written; Triton reads 0 (absent) as 1
  std::vector<std::int32_t> gpus;  // empty: every GPU
  bool passive = false;
  Position position;
};

struct EnsembleStep {
  std::string model_name;
  std::int64_t model_version = -1;
};

// A field the parser skipped because the subset does not have it, in a message whose fields
// sonicsim reads: the loader tells a typo of a known field from a field it does not model.
struct SkippedField {
  std::string message;  // "dynamic_batching", "input", ... (the field holding the message)
  std::string field;
  std::vector<std::string> known;  // the fields that message has
  Position position;
};

struct ModelConfig {
  std::string name, platform, backend;
  std::int32_t max_batch_size = 0;  // Triton's: 0 = no batch dimension
  std::vector<Tensor> inputs, outputs;
  std::optional<DynamicBatching> dynamic_batching;
  std::optional<Position> sequence_batching;    // where, if the config has it
  std::optional<Position> ensemble_scheduling;  // likewise
  std::vector<EnsembleStep> ensemble_steps;
  std::vector<InstanceGroup> instance_groups;
  std::vector<SkippedField> skipped;
};

struct ParseError {
  Position position;
  std::string message;
};

struct ParseResult {
  std::optional<ModelConfig> config;  // set when the text parsed
  std::vector<ParseError> errors;     // the parser's messages, in order
};

// Never throws on bad input: a text that is not a ModelConfig gives errors with positions.
ParseResult parse_model_config(const std::string& text);

}  // namespace sonicsim::triton
