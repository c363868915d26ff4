// Device memory and model loading (docs/servers.md): `devices.D.memory`, `models.M.memory` and
// `models.M.load_time`, `servers[i].model_control`, and the placement check that refuses a pool
// whose models do not fit on its device.
#include <sonicsim/util/format.hpp>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

// "17.2 GB (17200000000 B)": people read the first, the exact sum is in the second (a placement
// one byte over must say so).
std::string memory_text(double bytes) {
  return util::format_bytes(bytes) + " (" + format_number(bytes) + " B)";
}

// "deepmet 2 x (400 MB + 2 MB x 100) = 1.2 GB": how a model's footprint was counted.
std::string footprint_text(const Model& m) {
  if (!m.memory) return m.name + " 0 B (no memory given)";
  const MemoryFootprint f = *m.memory;
  std::string text =
      m.name + " " + std::to_string(m.instances) + " x (" + util::format_bytes(f.weights);
  if (f.per_item > 0.0)
    text += " + " + util::format_bytes(f.per_item) + " x " + std::to_string(m.max_batch_size);
  return text + ") = " + memory_text(m.memory_bytes());
}

}  // namespace

// `devices.D.memory`: "16GB".
void Loader::device_memory(const json& v, const std::string& path, DeviceSpec& d) {
  if (const json* x = get(v, "memory"); x && !x->is_null())
    if (auto b = quantity(*x, key_path(path, "memory"), Quantity::Size, Range::positive()))
      d.memory = *b;
}

// `models.M.memory` {"weights", "per_item"} and `models.M.load_time`; after max_batch_size,
// which bounds the working memory.
void Loader::model_memory(const json& v, const std::string& path, Model& m) {
  if (const json* x = get(v, "load_time"))
    if (auto t = quantity(*x, key_path(path, "load_time"), Quantity::Time, Range::at_least(0)))
      m.load_time = *t;
  const json* x = get(v, "memory");
  if (!x || x->is_null()) return;
  const std::string mpath = key_path(path, "memory");
  if (!expect_object(*x, mpath,
                     "an object {\"weights\": \"400MB\", \"per_item\": \"2MB\"} (per instance, "
                     "and per item of the largest batch), or null"))
    return;
  check_keys(*x, mpath, {"weights", "per_item"});
  MemoryFootprint f;
  const bool ok =
      optional_quantity(*x, mpath, "weights", Quantity::Size, Range::at_least(0), f.weights) &&
      optional_quantity(*x, mpath, "per_item", Quantity::Size, Range::at_least(0), f.per_item);
  if (!ok) return;
  if (f.per_item > 0.0 && m.max_batch_size == 0) {
    add(key_path(mpath, "per_item"),
        "found " + util::format_bytes(f.per_item) +
            " of working memory per item on a model without max_batch_size (0: no limit), "
            "expected a max_batch_size: the largest batch an execution holds sizes its working "
            "memory");
    return;
  }
  m.memory = f;
}

// `servers[i].model_control`: "none" (default) or "explicit".
void Loader::model_control(const json& p, const std::string& ppath, ServerPool& pool) {
  const json* x = get(p, "model_control");
  if (!x || x->is_null()) return;
  const std::string path = key_path(ppath, "model_control");
  const auto c = choice(*x, path, {"none", "explicit"});
  if (!c) return;
  pool.model_control = *c == "explicit" ? ModelControl::Explicit : ModelControl::None;
  if (pool.model_control == ModelControl::Explicit && pool.host && pool.host->devices > 1)
    add(path, "found \"explicit\" on a pool of " + std::to_string(pool.host->devices) +
                  " devices per host, expected host.devices 1 with explicit model control "
                  "(loading models on demand across a host's devices is not modelled yet)");
}

// A pool's models on its device's memory: all of them at once without model control, each one
// alone with explicit control (it then swaps them). On a scenario whose pools and models are
// valid.
void Loader::memory_checks(const Scenario& s) {
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const ServerPool& pool = s.servers[i];
    const DeviceSpec* device = s.find_device(pool.device);
    if (!device || !device->memory) continue;
    std::vector<const Model*> models;
    for (const std::string& name : pool.models)
      if (const Model* m = s.find_model(name); m && defined_models_.count(name))
        models.push_back(m);
    // A model missing or broken has its own problem reported already.
    if (models.size() != pool.models.size()) continue;
    const double memory = *device->memory;
    const std::string mpath = key_path(index_path("servers", i), "models");
    const std::string on_device = "on a " + pool.device + " of " + memory_text(memory);
    if (pool.model_control == ModelControl::Explicit) {
      for (std::size_t k = 0; k < models.size(); ++k)
        if (models[k]->memory_bytes() > memory)
          add(index_path(mpath, k),
              "pool \"" + pool.name + "\" loads model " + footprint_text(*models[k]) + " " +
                  on_device +
                  ", expected at most the device's memory (even alone it does not "
                  "fit: fewer instances, a smaller max_batch_size, or a device with more "
                  "memory)");
      continue;
    }
    double sum = 0.0;
    std::string each;
    for (const Model* m : models) {
      sum += m->memory_bytes();
      each += (each.empty() ? "" : ", ") + footprint_text(*m);
    }
    if (sum > memory)
      add(mpath, "pool \"" + pool.name + "\" holds all its models at once " + on_device + ": " +
                     each + "; sum " + memory_text(sum) +
                     ", expected at most the device's memory (load fewer models or instances, "
                     "lower max_batch_size, a device with more memory, or model_control "
                     "\"explicit\" to load them on demand)");
  }
}

}  // namespace sonicsim::scenario::detail
