// A model's `triton_config`: the settings of its config.pbtxt (read by triton/config_file), under
// the scenario's own keys, which override them one by one.
#include <algorithm>
#include <filesystem>
#include <map>

#include <sonicsim/scenario/triton_settings.hpp>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

triton::Advice scenario_advice() {
  triton::Advice a;
  a.ensemble =
      "model each step as its own model (its own triton_config, service_time and request), or "
      "calibrate the ensemble as a whole and describe it without triton_config";
  a.sequence =
      "describe the model without triton_config if its requests can be treated as independent";
  a.instances = "set `instances` (concurrent executions on one device) to say what to simulate";
  return a;
}

// The config named at `path`, resolved against the scenario's folder.
std::optional<triton::ConfigFile> Loader::triton_config(const json& v, const std::string& path,
                                                        Model& m) {
  const auto file = string(v, path);
  if (!file) return std::nullopt;
  std::filesystem::path resolved(*file);
  if (resolved.is_relative()) resolved = std::filesystem::path(base_dir_) / resolved;
  auto src =
      triton::read_config(*file, resolved.string(), path, advice, Limits::max_items, problems);
  if (!src) return std::nullopt;
  m.triton_config = *file;
  if (!referenced(*file)) referenced_files.push_back({*file, src->sha256});
  return src;
}

// The instance groups give `instances` unless the scenario sets it; groups that cannot give every
// device of the pool the same number are refused then.
void Loader::config_instances(const triton::ConfigFile& src, bool overridden,
                              const std::string& path, Model& m) {
  m.instance_kind += triton::instance_kinds(src.config);
  // No instance_group: one instance per device.
  if (overridden || src.config.instance_groups.empty()) return;
  if (auto n = triton::instances_per_device(src, path, advice, Limits::max_instances, problems))
    m.instances = *n;
}

// The config's dynamic_batching block, unless the scenario turns batching off; the scenario's
// own dynamic_batching keys are applied over it afterwards.
void Loader::config_batching(const triton::ConfigFile& src, const json& model,
                             const std::string& path, Model& m) {
  const json* own = get(model, "dynamic_batching");
  const auto& c = src.config;
  if ((own && own->is_null()) || !c.dynamic_batching) return;
  const auto& b = *c.dynamic_batching;
  const std::string cpath = key_path(path, "triton_config");
  const std::string in =
      "in " + src.in() + ": " + triton::at_position(b.position) + "dynamic_batching: ";
  DynamicBatching db;
  bool ok = true;
  // Without a batch dimension (max_batch_size 0) Triton never batches: only the queue policy of
  // the block applies.
  if (c.max_batch_size > 0) {
    const bool own_preferred = own && own->is_object() && get(*own, "preferred_batch_size");
    for (std::int32_t p : b.preferred_batch_size) {
      if (p < 1 || p > c.max_batch_size) {
        add(cpath, in + "found preferred_batch_size " + std::to_string(p) +
                       ", expected sizes in [1, max_batch_size " +
                       std::to_string(c.max_batch_size) + "]");
        ok = false;
      } else if (!own_preferred && m.max_batch_size > 0 && p > m.max_batch_size) {
        add(key_path(path, "max_batch_size"),
            "found " + std::to_string(m.max_batch_size) + ", below the preferred_batch_size " +
                std::to_string(p) + " of " + src.in() +
                "; set dynamic_batching.preferred_batch_size too");
        ok = false;
      } else {
        db.preferred_batch_size.push_back(p);
      }
    }
    std::sort(db.preferred_batch_size.begin(), db.preferred_batch_size.end());
    db.preferred_batch_size.erase(
        std::unique(db.preferred_batch_size.begin(), db.preferred_batch_size.end()),
        db.preferred_batch_size.end());
  }
  db.max_queue_delay = static_cast<double>(b.max_queue_delay_microseconds) * 1e-6;
  // A uint64 of microseconds reaches 1.8e13 s: the same range as a time in the scenario.
  const auto time_in_range = [&](double seconds, std::uint64_t us, const std::string& field) {
    std::string error;
    if (parse_quantity(json(seconds), Quantity::Time, error)) return true;
    add(cpath, in + field + ": found " + std::to_string(us) + " microseconds, expected " +
                   error.substr(error.find("expected ") + 9));
    return false;
  };
  ok = time_in_range(db.max_queue_delay, b.max_queue_delay_microseconds,
                     "max_queue_delay_microseconds") &&
       ok;
  db.priority_levels = b.priority_levels;
  db.default_priority_level = b.default_priority_level;
  const auto policy = [](const triton::QueuePolicy& t) {
    QueuePolicy p;
    p.max_queue_size = t.max_queue_size;
    p.default_timeout = static_cast<double>(t.default_timeout_microseconds) * 1e-6;
    p.timeout_action =
        t.delay ? QueuePolicy::TimeoutAction::Delay : QueuePolicy::TimeoutAction::Reject;
    p.allow_timeout_override = t.allow_timeout_override;
    return p;
  };
  db.queue_policy = policy(b.default_queue_policy);
  ok = time_in_range(db.queue_policy.default_timeout,
                     b.default_queue_policy.default_timeout_microseconds,
                     "default_queue_policy.default_timeout_microseconds") &&
       ok;
  for (const auto& [level, p] : b.priority_queue_policy) {
    db.priority_queue_policy[level] = policy(p);
    ok = time_in_range(
             db.priority_queue_policy[level].default_timeout, p.default_timeout_microseconds,
             "priority_queue_policy[" + std::to_string(level) + "].default_timeout_microseconds") &&
         ok;
  }
  ok = check_priority_levels(db, cpath, in) && ok;
  if (ok) m.dynamic_batching = std::move(db);
}

TritonSettings Loader::settings_of(const std::string& file, bool instances_given) {
  TritonSettings out;
  out.file = file;
  Model m;
  const auto src = triton_config(json(file), "", m);
  if (!src) return out;
  const auto& c = src->config;
  out.name = c.name;
  out.config_max_batch_size = c.max_batch_size;
  m.max_batch_size = triton::batch_limit_of(c);
  config_instances(*src, instances_given, "", m);
  config_batching(*src, json::object(), "", m);
  out.max_batch_size = m.max_batch_size;
  out.dynamic_batching = m.dynamic_batching;
  out.instances = m.instances;
  out.instance_kind = m.instance_kind;
  out.instance_groups = !c.instance_groups.empty();
  out.sha256 = src->sha256;
  return out;
}

// Bytes per item of the config's tensors. The scenario's `inputs`/`outputs` entries, matched by
// name, give the shapes of tensors with variable (-1) dimensions; the config gives the rest.
double Loader::config_tensor_bytes(const triton::ConfigFile& src, bool input, const json* given,
                                   const std::string& path, std::vector<TensorSpec>& tensors) {
  const auto& listed = input ? src.config.inputs : src.config.outputs;
  const char* key = input ? "inputs" : "outputs";
  const char* bytes_key = input ? "input_bytes_per_item" : "output_bytes_per_item";
  const char* noun = input ? "input" : "output";
  const std::string tpath = key_path(path, key);
  if (listed.empty()) {
    // Triton can fill the tensors in from the model file; then the scenario must say them.
    if (given) return tensor_bytes(*given, tpath, tensors);
    add(key_path(path, bytes_key), src.in() + " lists no " + noun +
                                       " tensors, expected the payload here or the tensors in `" +
                                       tpath + "`");
    return 0.0;
  }
  const std::map<std::string, GivenShape> shapes = given_shapes(src, input, given, tpath);

  double total = 0.0;
  std::vector<const triton::Tensor*> unset;  // variable dimensions the scenario did not set
  for (const auto& t : listed) {
    const std::string where = src.in() + " (line " + std::to_string(t.position.line) + ")";
    TensorSpec spec{t.name, {}, triton::protocol_dtype(t.data_type)};
    if (t.data_type == "TYPE_STRING" || t.data_type.empty() || t.data_type == "TYPE_INVALID") {
      add(key_path(path, bytes_key),
          std::string(noun) + " `" + t.name + "` of " + where + " has " +
              (t.data_type == "TYPE_STRING" ? "data_type TYPE_STRING, which has no fixed size"
                                            : "no valid data_type") +
              "; expected the payload per item here");
      continue;
    }
    if (const auto it = shapes.find(t.name); it != shapes.end()) {
      spec.shape = it->second.dims;
    } else {
      bool fixed = true, valid = true;
      for (std::int64_t d : t.dims) {
        fixed = fixed && d != -1;
        valid = valid && (d >= 1 || d == -1) && d <= 1'000'000'000;
      }
      if (!valid) {
        add(key_path(path, "triton_config"), "in " + where + ": found dims " +
                                                 triton::dims_text(t.dims) + " for `" + t.name +
                                                 "`, expected dimensions >= 1 or -1 (variable)");
        continue;
      }
      if (!fixed) {
        unset.push_back(&t);
        continue;
      }
      spec.shape = t.dims;
    }
    total += spec.bytes();
    tensors.push_back(std::move(spec));
  }
  if (!unset.empty()) {
    // One message with every such tensor, and the entries to paste.
    std::string which, example;
    for (std::size_t i = 0; i < unset.size(); ++i) {
      const triton::Tensor& t = *unset[i];
      which += (i ? ", `" : "`") + t.name + "` (line " + std::to_string(t.position.line) +
               ", dims " + triton::dims_text(t.dims) + ")";
      example += (i ? ", " : "") + std::string("{\"name\": \"") + t.name +
                 "\", \"shape\": " + triton::dims_text(t.dims, true) + "}";
    }
    add(tpath, src.in() + " has " + noun + (unset.size() > 1 ? "s " : " ") + which +
                   " with variable (-1) dimensions, which the client sets: expected " +
                   (unset.size() > 1 ? "their shapes" : "its shape") + " here, e.g. [" + example +
                   "] with each N set");
  }
  return total;
}

// The scenario's `inputs`/`outputs` entries (at `tpath`) for the tensors of the config: each
// names one of them and gives the shape, which must agree with the config's fixed dimensions.
std::map<std::string, Loader::GivenShape> Loader::given_shapes(const triton::ConfigFile& src,
                                                               bool input, const json* given,
                                                               const std::string& tpath) {
  const auto& listed = input ? src.config.inputs : src.config.outputs;
  const char* noun = input ? "input" : "output";
  std::vector<std::string> names;
  for (const auto& t : listed) names.push_back(t.name);
  std::map<std::string, GivenShape> shapes;
  if (given && !given->is_array()) {
    add(tpath, "found " + describe(*given) +
                   ", expected an array of {\"name\": ..., \"shape\": "
                   "[...]} setting the shapes of the tensors of " +
                   src.in());
    given = nullptr;
  }
  for (std::size_t i = 0; given && i < given->size(); ++i) {
    const json& e = (*given)[i];
    const std::string epath = index_path(tpath, i);
    if (!expect_object(e, epath, "a tensor {\"name\": ..., \"shape\": [...]}")) continue;
    check_keys(e, epath, {"name", "shape", "dtype"});
    const std::string npath = key_path(epath, "name");
    const json* name_value = get(e, "name");
    if (!name_value) {
      missing(npath,
              "the name of an " + std::string(noun) + " of " + src.in() + " (" + join(names) + ")");
      continue;
    }
    const auto name = string(*name_value, npath);
    if (!name) continue;
    const auto it = std::find_if(listed.begin(), listed.end(),
                                 [&](const triton::Tensor& t) { return t.name == *name; });
    if (it == listed.end()) {
      const std::string hint = did_you_mean(*name, names);
      add(npath, "found " + describe(*name_value) + ", expected the name of an " + noun + " of " +
                     src.in() + (hint.empty() ? " (" + join(names) + ")" : "; " + hint));
      continue;
    }
    if (shapes.count(*name)) {
      add(npath, "found " + describe(*name_value) + " again (also at " + shapes[*name].path +
                     "), expected each tensor once");
      continue;
    }
    if (const json* d = get(e, "dtype")) {
      const auto dtype = string(*d, key_path(epath, "dtype"));
      if (dtype && triton::protocol_dtype(*dtype) != triton::protocol_dtype(it->data_type))
        add(key_path(epath, "dtype"), "found " + describe(*d) + ", but " + src.in() + " says " +
                                          it->data_type +
                                          " (leave dtype out to take it from there)");
    }
    const std::string spath = key_path(epath, "shape");
    const json* shape = get(e, "shape");
    if (!shape) {
      missing(spath, "the shape per item of `" + *name + "`, dims " +
                         triton::dims_text(it->dims, true) + " in " + src.in() +
                         " with each N set");
      continue;
    }
    if (!shape->is_array()) {
      add(spath, "found " + describe(*shape) + ", expected an array of dimensions like " +
                     triton::dims_text(it->dims, true) + " with each N set");
      continue;
    }
    if (shape->size() != it->dims.size()) {
      add(spath, "found " + std::to_string(shape->size()) + " dimensions, expected " +
                     std::to_string(it->dims.size()) + " like dims " + triton::dims_text(it->dims) +
                     " of `" + *name + "` in " + src.in());
      continue;
    }
    GivenShape s{{}, epath};
    bool ok = true;
    for (std::size_t k = 0; k < shape->size(); ++k) {
      const auto dim = integer((*shape)[k], index_path(spath, k), 1, 1'000'000'000, "a dimension");
      if (!dim) {
        ok = false;
      } else if (it->dims[k] != -1 && *dim != it->dims[k]) {
        add(index_path(spath, k), "found " + std::to_string(*dim) + ", expected " +
                                      std::to_string(it->dims[k]) + " as in dims " +
                                      triton::dims_text(it->dims) + " of `" + *name + "` in " +
                                      src.in() + " (only its -1 dimensions are free)");
        ok = false;
      }
      if (dim) s.dims.push_back(*dim);
    }
    if (ok) shapes[*name] = std::move(s);
  }
  return shapes;
}

}  // namespace sonicsim::scenario::detail

namespace sonicsim::scenario {

TritonSettings read_triton_config(const std::string& file, const std::string& source,
                                  bool instances_given, const TritonAdvice& advice) {
  detail::Loader loader("");  // a relative path stays as given, in messages too
  if (!advice.ensemble.empty()) loader.advice.ensemble = advice.ensemble;
  if (!advice.sequence.empty()) loader.advice.sequence = advice.sequence;
  if (!advice.instances.empty()) loader.advice.instances = advice.instances;
  TritonSettings out = loader.settings_of(file, instances_given);
  if (!loader.ok()) {
    // Every message names the config file; a JSON path would point into no scenario.
    for (auto& p : loader.problems) p.path.clear();
    throw InputError(source, std::move(loader.problems));
  }
  return out;
}

}  // namespace sonicsim::scenario
