// The `models` section: payloads and tensors, batching limits, instances and dynamic_batching.
// (Service times are in load_service_time.cpp, a Triton config in load_triton.cpp.)
#include <algorithm>
#include <string_view>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

// `models`: an object from model name to model.
void Loader::models(const json& v, Scenario& s) {
  if (!v.is_object()) {
    add("models", "found " + describe(v) + ", expected an object from model name to model");
    return;
  }
  for (const auto& item : v.items()) {
    if (item.key().empty()) {
      add("models", "found a model with an empty name, expected a non-empty name");
      continue;
    }
    Model m;
    m.name = item.key();
    model(item.value(), key_path("models", item.key()), m);
    s.models.push_back(std::move(m));
  }
}

void Loader::model(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path, "a model object with service_time, input_bytes_per_item, ..."))
    return;
  check_keys(v, path,
             {keys::kInputBytesPerItem, keys::kOutputBytesPerItem, "inputs", "outputs",
              keys::kServiceTime, keys::kMaxBatchSize, "dynamic_batching", keys::kInstances,
              keys::kRequestOverhead, "triton_config", keys::kHostCost, "memory", "load_time"});
  const std::size_t before = problems.size();
  // The config is read first: every key the scenario sets below overrides what it says.
  const json* config_key = get(v, "triton_config");
  std::optional<triton::ConfigFile> config;
  if (config_key) config = triton_config(*config_key, key_path(path, "triton_config"), m);
  for (const bool input : {true, false}) {
    const char* bytes_key = input ? keys::kInputBytesPerItem : keys::kOutputBytesPerItem;
    const char* tensors_key = input ? "inputs" : "outputs";
    const json* bytes = get(v, bytes_key);
    const json* tensors = get(v, tensors_key);
    double& target = input ? m.input_bytes_per_item : m.output_bytes_per_item;
    if (bytes && tensors) {
      add(key_path(path, tensors_key), std::string("found both `") + bytes_key + "` and `" +
                                           tensors_key + "`, expected only one of them");
    } else if (bytes) {
      if (auto b = quantity(*bytes, key_path(path, bytes_key), Quantity::Size, Range::at_least(0)))
        target = *b;
    } else if (config) {
      target = config_tensor_bytes(*config, input, tensors, path, input ? m.inputs : m.outputs);
    } else if (tensors && !config_key) {
      target = tensor_bytes(*tensors, key_path(path, tensors_key), input ? m.inputs : m.outputs);
    }
  }
  if (const json* x = get(v, keys::kMaxBatchSize)) {
    if (auto b = integer(*x, key_path(path, keys::kMaxBatchSize), 0, Limits::max_items,
                         "0 means no limit"))
      m.max_batch_size = static_cast<int>(*b);
  } else if (config) {
    m.max_batch_size = triton::batch_limit_of(config->config);
  }
  if (const json* x = get(v, keys::kInstances)) {
    if (auto n = integer(*x, key_path(path, keys::kInstances), 1, Limits::max_instances,
                         "concurrent executions per device"))
      m.instances = static_cast<int>(*n);
  }
  if (config)
    config_instances(*config, get(v, keys::kInstances), key_path(path, keys::kInstances), m);
  if (config) config_batching(*config, v, path, m);
  if (const json* x = get(v, "dynamic_batching"))
    dynamic_batching(*x, key_path(path, "dynamic_batching"), m);
  if (const json* x = get(v, keys::kRequestOverhead))
    request_overhead(*x, key_path(path, keys::kRequestOverhead), m);
  if (const json* x = get(v, keys::kHostCost); x && !x->is_null())
    host_cost(*x, key_path(path, keys::kHostCost), m);
  model_memory(v, path, m);
  if (const json* x = get(v, keys::kServiceTime)) {
    const RoleScope role(*this, Role::ServiceTime, m.name);
    service_time(*x, key_path(path, keys::kServiceTime), m);
  } else {
    missing(key_path(path, keys::kServiceTime),
            "a curve {\"batch\": [...], \"seconds\": [...]} or {\"calibration\": \"FILE.json\"}");
  }
  if (problems.size() == before) defined_models_.insert(m.name);
}

double Loader::tensor_bytes(const json& v, const std::string& path,
                            std::vector<TensorSpec>& tensors) {
  if (!v.is_array()) {
    add(path, "found " + describe(v) +
                  ", expected an array of tensors {\"name\": ..., \"shape\": [...], \"dtype\": "
                  "\"FP32\"}");
    return 0.0;
  }
  double total = 0.0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string tpath = index_path(path, i);
    const json& t = v[i];
    if (!expect_object(t, tpath, "a tensor {\"name\": ..., \"shape\": [...], \"dtype\": \"FP32\"}"))
      continue;
    check_keys(t, tpath, {keys::kName, "shape", "dtype"});
    TensorSpec spec;
    bool ok = true;
    if (const json* x = get(t, keys::kName)) {
      if (auto n = string(*x, key_path(tpath, keys::kName), true)) spec.name = *n;
    }
    const std::string spath = key_path(tpath, "shape");
    if (const json* x = get(t, "shape")) {
      if (!x->is_array()) {
        add(spath, "found " + describe(*x) +
                       ", expected an array of dimensions per item (no batch dimension)");
        ok = false;
      } else {
        for (std::size_t k = 0; k < x->size(); ++k) {
          if (auto d = integer((*x)[k], index_path(spath, k), 1, 1'000'000'000,
                               "a fixed dimension; variable (-1) dimensions have no size")) {
            spec.shape.push_back(*d);
          } else {
            ok = false;
          }
        }
      }
    } else {
      missing(spath, "an array of dimensions per item, e.g. [2, 100]");
      ok = false;
    }
    const std::string dpath = key_path(tpath, "dtype");
    if (const json* x = get(t, "dtype")) {
      json name = *x;
      // Triton's model configs spell them TYPE_FP32; the protocol spells them FP32.
      if (name.is_string() && name.get<std::string>().rfind("TYPE_", 0) == 0)
        name = name.get<std::string>().substr(5);
      if (name == "STRING" || name == "BYTES") {
        add(dpath, "found " + describe(*x) +
                       ", expected a fixed-size dtype; give variable-size tensors as "
                       "input_bytes_per_item / output_bytes_per_item instead");
        ok = false;
      } else if (auto d = choice(name, dpath,
                                 {"FP16", "BF16", "FP32", "FP64", "INT8", "INT16", "INT32", "INT64",
                                  "UINT8", "UINT16", "UINT32", "UINT64", "BOOL"})) {
        spec.dtype = *d;
      } else {
        ok = false;
      }
    } else {
      missing(dpath, "a dtype such as \"FP32\"");
      ok = false;
    }
    if (ok) {
      total += spec.bytes();
      tensors.push_back(std::move(spec));
    }
  }
  return total;
}

// Keys set here override those of the model's Triton config one by one (m.dynamic_batching
// holds the config's values, if any); `null` turns dynamic batching off.
void Loader::dynamic_batching(const json& v, const std::string& path, Model& m) {
  if (v.is_null()) {
    m.dynamic_batching.reset();
    return;
  }
  if (!expect_object(v, path,
                     "null (no dynamic batching) or an object with preferred_batch_size, "
                     "max_queue_delay, max_queue_size, default_timeout, timeout_action"))
    return;
  check_keys(v, path,
             {"preferred_batch_size", "max_queue_delay", "max_queue_delay_microseconds",
              "max_queue_size", "default_timeout", "default_timeout_microseconds", "timeout_action",
              "priority_levels", "default_priority_level", "priority_queue_policy"});
  DynamicBatching db = m.dynamic_batching.value_or(DynamicBatching{});
  bool ok = true;
  if (const json* x = get(v, "preferred_batch_size")) {
    const std::string ppath = key_path(path, "preferred_batch_size");
    std::vector<std::pair<json, std::string>> entries;
    if (x->is_array()) {
      for (std::size_t i = 0; i < x->size(); ++i)
        entries.emplace_back((*x)[i], index_path(ppath, i));
    } else {
      entries.emplace_back(*x, ppath);
    }
    db.preferred_batch_size.clear();
    for (const auto& [value, epath] : entries) {
      auto p = integer(value, epath, 1, Limits::max_items);
      if (!p) {
        ok = false;
      } else if (m.max_batch_size > 0 && *p > m.max_batch_size) {
        add(epath, "found " + std::to_string(*p) +
                       ", expected a preferred batch size <= "
                       "max_batch_size " +
                       std::to_string(m.max_batch_size));
        ok = false;
      } else {
        db.preferred_batch_size.push_back(static_cast<int>(*p));
      }
    }
    std::sort(db.preferred_batch_size.begin(), db.preferred_batch_size.end());
    db.preferred_batch_size.erase(
        std::unique(db.preferred_batch_size.begin(), db.preferred_batch_size.end()),
        db.preferred_batch_size.end());
  }
  ok = time_or_microseconds(v, path, "max_queue_delay", db.max_queue_delay) && ok;
  ok = queue_policy(v, path, db.queue_policy) && ok;
  if (const json* x = get(v, "priority_levels")) {
    if (auto n = integer(*x, key_path(path, "priority_levels"), 0, Limits::max_priority_levels,
                         "Triton priority levels; 0 means one queue"))
      db.priority_levels = static_cast<std::uint64_t>(*n);
    else
      ok = false;
  }
  if (const json* x = get(v, "default_priority_level")) {
    if (auto n =
            integer(*x, key_path(path, "default_priority_level"), 0, Limits::max_priority_levels))
      db.default_priority_level = static_cast<std::uint64_t>(*n);
    else
      ok = false;
  }
  if (const json* x = get(v, "priority_queue_policy"); x && !x->is_null()) {
    const std::string ppath = key_path(path, "priority_queue_policy");
    if (!expect_object(*x, ppath,
                       "an object from priority level (\"1\", \"2\", ...) to a queue policy "
                       "{max_queue_size, default_timeout, timeout_action}")) {
      ok = false;
    } else {
      for (const auto& item : x->items()) {
        const std::string lpath = key_path(ppath, item.key());
        const auto& k = item.key();
        const bool digits =
            !k.empty() && k.size() <= 9 &&
            std::all_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; });
        const std::uint64_t level = digits ? std::stoull(k) : 0;
        if (level < 1) {
          add(lpath, "found the key \"" + k + "\", expected a priority level 1, 2, ...");
          ok = false;
          continue;
        }
        if (!expect_object(item.value(), lpath,
                           "a queue policy {max_queue_size, default_timeout, timeout_action}")) {
          ok = false;
          continue;
        }
        check_keys(item.value(), lpath,
                   {"max_queue_size", "default_timeout", "default_timeout_microseconds",
                    "timeout_action"});
        QueuePolicy lp = db.policy_of(level);
        if (queue_policy(item.value(), lpath, lp))
          db.priority_queue_policy[level] = lp;
        else
          ok = false;
      }
    }
  }
  ok = check_priority_levels(db, path) && ok;
  if (ok) m.dynamic_batching = std::move(db);
}

// A time under its own key, or in microseconds under Triton's spelling of it (KEY_microseconds).
bool Loader::time_or_microseconds(const json& v, const std::string& path, const std::string& key,
                                  double& target) {
  const std::string us_key = key + "_microseconds";
  const json* t = get(v, key);
  const json* us = get(v, us_key);
  if (t && us) {
    add(key_path(path, us_key), "found both `" + key + "` and `" + us_key + "`, expected only one");
    return false;
  }
  std::optional<double> d;
  if (t)
    d = quantity(*t, key_path(path, key), Quantity::Time, Range::at_least(0));
  else if (us)
    d = number(*us, key_path(path, us_key), Range::at_least(0));
  else
    return true;
  if (!d) return false;
  target = us ? *d * 1e-6 : *d;
  return true;
}

// The queue policy keys of `v` (dynamic_batching or one level of priority_queue_policy) over `p`.
bool Loader::queue_policy(const json& v, const std::string& path, QueuePolicy& p) {
  bool ok = time_or_microseconds(v, path, "default_timeout", p.default_timeout);
  if (const json* x = get(v, "max_queue_size")) {
    if (auto n = integer(*x, key_path(path, "max_queue_size"), 0, 4294967295LL,
                         "queued requests per device; 0 means no limit"))
      p.max_queue_size = *n;
    else
      ok = false;
  }
  if (const json* x = get(v, "timeout_action")) {
    if (auto a = choice(*x, key_path(path, "timeout_action"), {"REJECT", "DELAY"}))
      p.timeout_action =
          *a == "DELAY" ? QueuePolicy::TimeoutAction::Delay : QueuePolicy::TimeoutAction::Reject;
    else
      ok = false;
  }
  return ok;
}

// Triton refuses a config whose default level or per-level policies name a level it lacks.
// Problems go to `path`'s keys, or (a Triton config, `config_in` naming it) to `path` itself.
bool Loader::check_priority_levels(const DynamicBatching& db, const std::string& path,
                                   const std::string& config_in) {
  const auto report = [&](const std::string& key, const std::string& message) {
    if (config_in.empty())
      add(key_path(path, key), "found " + message);
    else
      add(path, config_in + "found " + key + " " + message);
  };
  bool ok = true;
  // The scenario's own keys were held to this range as they were read; a config.pbtxt's values
  // come here unchecked (protobuf takes any uint64), and each level costs a queue per device.
  for (const auto& [key, value] :
       {std::pair<const char*, std::uint64_t>{"priority_levels", db.priority_levels},
        {"default_priority_level", db.default_priority_level}})
    if (value > static_cast<std::uint64_t>(Limits::max_priority_levels)) {
      report(key, std::to_string(value) + ", expected at most " +
                      std::to_string(Limits::max_priority_levels) + " (Triton priority levels)");
      return false;
    }
  const std::string levels = "priority_levels " + std::to_string(db.priority_levels) + "]";
  if (db.priority_levels > 0 &&
      (db.default_priority_level < 1 || db.default_priority_level > db.priority_levels)) {
    report("default_priority_level",
           std::to_string(db.default_priority_level) + ", expected a level in [1, " + levels);
    ok = false;
  }
  for (const auto& [level, policy] : db.priority_queue_policy)
    if (level > db.priority_levels) {
      report("priority_queue_policy",
             "a policy for level " + std::to_string(level) + ", expected levels in [1, " + levels);
      ok = false;
    }
  return ok;
}

}  // namespace sonicsim::scenario::detail
