#include <sonicsim/triton/config_file.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <sonicsim/util/files.hpp>
#include <sonicsim/util/sha256.hpp>

namespace sonicsim::triton {
namespace {

// The refusals of a parsed config: what sonicsim cannot simulate, and near misses of the fields
// it reads. Every one is reported, not only the first.
void refuse(const ModelConfig& c, const std::string& in, const std::string& path,
            const Advice& advice, int max_items, std::vector<Problem>& problems) {
  const auto add = [&](std::string message) { problems.push_back({path, std::move(message)}); };
  if (c.platform == "ensemble" || c.ensemble_scheduling) {
    std::string steps;
    for (std::size_t i = 0; i < c.ensemble_steps.size(); ++i)
      steps += (i ? ", `" : "`") + c.ensemble_steps[i].model_name + "`";
    add(in + at_position(c.ensemble_scheduling.value_or(Position{})) + "model `" + c.name +
        "` is an ensemble" + (steps.empty() ? std::string() : " of the steps " + steps) +
        ", which sonicsim cannot simulate as one model: " + advice.ensemble);
  }
  if (c.sequence_batching) {
    add(in + at_position(*c.sequence_batching) +
        "the model uses sequence_batching (stateful sequences pinned to one instance), which "
        "sonicsim does not simulate; " +
        advice.sequence);
  }
  for (const auto& skipped : c.skipped) {
    // Fields Triton has but sonicsim does not read are fine; a near miss of one it reads is not.
    const std::string hint = did_you_mean(skipped.field, skipped.known);
    if (!hint.empty())
      add(in + at_position(skipped.position) + "unknown field `" + skipped.field + "` in " +
          skipped.message + "; " + hint + " (Triton refuses unknown fields too)");
  }
  if (c.max_batch_size < 0 || c.max_batch_size > max_items) {
    add(in + "found max_batch_size " + std::to_string(c.max_batch_size) +
        ", expected an integer in [0, " + std::to_string(max_items) + "] (0: no batch dimension)");
  }
}

// Triton reads a count of 0 (the proto3 default, i.e. absent) as 1.
std::int64_t group_instances(const InstanceGroup& g) {
  return std::max(1, g.count);
}

// Instances per GPU of groups on GPUs: the same on every GPU, or a problem (through `fail`).
template <class Fail>
std::optional<std::int64_t> per_gpu_count(const std::vector<const InstanceGroup*>& active,
                                          const Fail& fail) {
  std::map<std::int32_t, std::int64_t> on_gpu;  // instances per GPU named in a `gpus` list
  std::int64_t everywhere = 0;                  // from groups without a list
  const InstanceGroup *listed = nullptr, *unlisted = nullptr;
  for (const auto* g : active) {
    if (g->gpus.empty()) {
      everywhere += group_instances(*g);
      unlisted = g;
      continue;
    }
    listed = g;
    std::set<std::int32_t> ids(g->gpus.begin(), g->gpus.end());
    for (std::int32_t id : ids) on_gpu[id] += group_instances(*g);
  }
  if (listed && unlisted)
    return fail(listed->position,
                "has instance groups for listed GPUs and groups for every GPU, so GPUs get "
                "different numbers of instances depending on how many the server has");
  if (!listed) return everywhere;
  for (const auto& [id, k] : on_gpu) {
    if (k == on_gpu.begin()->second) continue;
    return fail(listed->position, "gives " + std::to_string(on_gpu.begin()->second) +
                                      " instances to GPU " + std::to_string(on_gpu.begin()->first) +
                                      " but " + std::to_string(k) + " to GPU " +
                                      std::to_string(id) +
                                      ", while the devices of a sonicsim pool are identical");
  }
  return on_gpu.begin()->second;
}

bool on_gpus(const InstanceGroup& g) {
  return g.kind == "KIND_GPU" || g.kind == "KIND_AUTO";
}

std::vector<const InstanceGroup*> active_groups(const ModelConfig& c) {
  std::vector<const InstanceGroup*> active;
  for (const auto& g : c.instance_groups)
    if (!g.passive) active.push_back(&g);  // passive instances take no requests from the scheduler
  return active;
}

}  // namespace

std::optional<ConfigFile> read_config(const std::string& given, const std::string& file,
                                      const std::string& path, const Advice& advice, int max_items,
                                      std::vector<Problem>& problems) {
  const auto add = [&](std::string message) { problems.push_back({path, std::move(message)}); };
  const std::filesystem::path resolved(file);
  std::error_code ec;
  if (std::filesystem::is_directory(resolved, ec)) {
    // Triton's model repository has one folder per model, holding config.pbtxt.
    const bool inside = std::filesystem::exists(resolved / "config.pbtxt", ec);
    add("found the folder `" + file + "`, expected a config.pbtxt file" +
        (inside
             ? "; did you mean `" + (std::filesystem::path(given) / "config.pbtxt").string() + "`?"
             : std::string()));
    return std::nullopt;
  }
  std::string error, text;
  try {
    // Real configs are a few kB; anything huge (or /dev/zero) is the wrong file, not worth reading.
    text = read_text(file, error);
  } catch (const InputError& e) {
    error = e.problems().front().message;
  }
  if (!error.empty()) {
    add("cannot read Triton config `" + file + "`: " + error);
    return std::nullopt;
  }
  ConfigFile src{{}, file, {}};
  auto parsed = parse_model_config(text);
  const std::string in = "in " + src.in() + ": ";
  if (!parsed.config) {
    for (const auto& e : parsed.errors)
      add(in + at_position(e.position) + e.message +
          " (expected Triton's model configuration in protobuf text format)");
    return std::nullopt;
  }
  const std::size_t before = problems.size();
  refuse(*parsed.config, in, path, advice, max_items, problems);
  if (problems.size() != before) return std::nullopt;
  src.config = std::move(*parsed.config);
  src.sha256 = sha256_hex(text);
  return src;
}

// Triton creates `count` instances per listed GPU for KIND_GPU (and KIND_AUTO, which is a GPU
// group on a server with GPUs), and `count` instances per server for KIND_CPU and KIND_MODEL.
// sonicsim's `instances` is per device of a pool of identical devices, so the groups must give
// every device the same number.
std::optional<int> instances_per_device(const ConfigFile& src, const std::string& path,
                                        const Advice& advice, int max_instances,
                                        std::vector<Problem>& problems) {
  const auto& groups = src.config.instance_groups;
  const auto fail = [&](const Position& where,
                        const std::string& what) -> std::optional<std::int64_t> {
    problems.push_back(
        {path, src.in() + " " +
                   (where.line > 0 ? "(line " + std::to_string(where.line) + ") " : "") + what +
                   "; " + advice.instances});
    return std::nullopt;
  };
  const auto active = active_groups(src.config);
  if (active.empty()) {
    fail(groups.front().position, "has only passive instance groups");
    return std::nullopt;
  }
  for (const auto* g : active) {
    if (g->kind.empty() || g->count < 0) {
      fail(g->position,
           "has an instance group with " + (g->kind.empty() ? std::string("an unknown kind")
                                                            : "count " + std::to_string(g->count)));
      return std::nullopt;
    }
    if (on_gpus(*g) != on_gpus(*active.front())) {
      fail(g->position,
           "mixes instance groups on GPUs (KIND_GPU/KIND_AUTO, counted per GPU) with groups on "
           "the host (KIND_CPU/KIND_MODEL, counted per server), which one pool of identical "
           "devices cannot represent (model the CPU instances as their own pool)");
      return std::nullopt;
    }
  }
  std::optional<std::int64_t> n = 0;
  if (!on_gpus(*active.front())) {
    for (const auto* g : active) *n += group_instances(*g);
  } else {
    n = per_gpu_count(active, fail);
    if (!n) return std::nullopt;
  }
  if (*n > max_instances) {
    fail(active.front()->position, "gives " + std::to_string(*n) +
                                       " instances per device, more than the limit of " +
                                       std::to_string(max_instances));
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

std::string instance_kinds(const ModelConfig& c) {
  std::vector<std::string> kinds;
  for (const auto* g : active_groups(c))
    if (std::find(kinds.begin(), kinds.end(), g->kind) == kinds.end()) kinds.push_back(g->kind);
  std::sort(kinds.begin(), kinds.end());
  std::string out;
  for (std::size_t i = 0; i < kinds.size(); ++i) out += (i ? "+" : "") + kinds[i];
  return out;
}

int batch_limit_of(const ModelConfig& c) {
  return c.max_batch_size > 0 ? c.max_batch_size : 1;
}

std::string at_position(const Position& p) {
  if (p.line <= 0) return {};
  return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": ";
}

std::string dims_text(const std::vector<std::int64_t>& dims, bool placeholder) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") +
           (placeholder && dims[i] == -1 ? std::string("N") : std::to_string(dims[i]));
  return out + "]";
}

std::string protocol_dtype(const std::string& data_type) {
  return data_type.rfind("TYPE_", 0) == 0 ? data_type.substr(5) : data_type;
}

}  // namespace sonicsim::triton
