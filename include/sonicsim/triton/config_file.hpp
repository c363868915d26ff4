// A model's config.pbtxt read from disk the way sonicsim accepts it, and what its Triton-specific
// fields mean for a simulation.
//
// model_config.hpp only parses. This part knows Triton's semantics: a model repository's folder
// layout, what sonicsim cannot simulate (ensembles, sequence batching) or suspects is a typo
// (near-miss field names), that a max_batch_size of 0 means no batch dimension, and how instance
// groups count instances (per GPU, per server, passive ones not at all). Problems are worded for
// the user and filed under the path the caller names (a scenario key, or "" for a tool's flag);
// the caller supplies the advice its refusals give, in its own terms. It knows nothing of
// scenarios: the scenario loader maps what it returns onto a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/triton/model_config.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::triton {

// What a refusal advises instead, in the caller's terms: a scenario and a command line give the
// same settings in different places.
struct Advice {
  std::string ensemble;   // for an ensemble, which is several models
  std::string sequence;   // for sequence batching (stateful sequences)
  std::string instances;  // for instance groups a pool of identical devices cannot represent
};

// A config file that was read, parsed and not refused.
struct ConfigFile {
  ModelConfig config;
  std::string file;    // the path read, as messages name it
  std::string sha256;  // of its text
  std::string in() const { return "Triton config `" + file + "`"; }
};

// Reads the config at `file`; `given` is the path as the user wrote it (the hint for a model's
// folder names the config.pbtxt inside it that way). Every problem goes under `path`, and
// max_batch_size must be at most `max_items`. Empty when any problem was found.
std::optional<ConfigFile> read_config(const std::string& given, const std::string& file,
                                      const std::string& path, const Advice& advice, int max_items,
                                      std::vector<Problem>& problems);

// Instances per device from the instance groups (the config must have some: without them Triton
// runs one instance per device). Empty, with a problem under `path`, when the groups cannot give
// every device of a pool of identical devices the same number, or more than `max_instances`.
std::optional<int> instances_per_device(const ConfigFile& src, const std::string& path,
                                        const Advice& advice, int max_instances,
                                        std::vector<Problem>& problems);

// The kinds of the groups that take requests, sorted and joined by "+" ("KIND_GPU",
// "KIND_CPU+KIND_GPU"); "" without instance groups.
std::string instance_kinds(const ModelConfig& c);

// Triton's max_batch_size 0 is "no batch dimension": one item per execution, unlike sonicsim's 0.
int batch_limit_of(const ModelConfig& c);

// "line 3, column 7: " to put before a message about what is there; "" when unknown.
std::string at_position(const Position& p);

// Dims as written ("[-1, 16]"), or with each variable one as N ("[N, 16]") for the user to set.
std::string dims_text(const std::vector<std::int64_t>& dims, bool placeholder = false);

// The protocol's spelling of a data type, as tensor dtypes use it ("TYPE_FP32" -> "FP32").
std::string protocol_dtype(const std::string& data_type);

}  // namespace sonicsim::triton
