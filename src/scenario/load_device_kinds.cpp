// How a device executes (docs/servers.md): `devices.D.kind` and that kind's own keys, a model's
// timing on a kind that is not timed by a batch curve (`models.M.service_time.D`), and the checks
// that tie them together once every section is read. Each kind's keys, readers and limits are
// its header's (include/sonicsim/device_kinds/); this file walks the table.
#include <algorithm>

#include "device_kind_reader.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

using Kinds = device_kinds::List;

template <class K>
bool owns(std::string_view key) {
  return std::any_of(K::keys.begin(), K::keys.end(),
                     [&](const device_kinds::KeyDoc& k) { return k.name == key; });
}

// The kind whose own timing keys `v` holds, by name; empty for a batch curve.
std::string_view timing_kind(const json& v) {
  std::string_view out;
  if (!v.is_object()) return out;
  Kinds::each([&]<class K>() {
    if constexpr (K::timing != device_kinds::Timing::BatchCurve)
      for (std::string_view key : K::timing_keys)
        if (out.empty() && v.contains(std::string(key))) out = K::name;
  });
  return out;
}

}  // namespace

std::vector<std::string_view> Loader::device_kind_keys() {
  return Kinds::key_names();
}

// `devices.D.kind` and the chosen kind's keys; another kind's key is refused by name.
void Loader::device_kind(const json& v, const std::string& path, DeviceSpec& d) {
  if (const json* x = get(v, "kind")) {
    const auto names = device_kinds::names();
    if (auto k = choice(*x, key_path(path, "kind"), names))
      d.kind = *device_kinds::settings_named(*k);
  }
  DeviceKindReader reader(*this);
  Kinds::with(d.kind, [&]<class K>(const typename K::Settings&) {
    typename K::Settings settings;
    K::read(reader, v, path, settings);
    d.kind = settings;
    for (std::string_view key : Kinds::key_names()) {
      const json* x = get(v, key);
      if (!x || x->is_null() || owns<K>(key)) continue;
      std::string why = "it does not apply to a " + std::string(K::name) + " device";
      if constexpr (requires { K::foreign_key_reason; }) why = K::foreign_key_reason;
      add(key_path(path, key), "found `" + std::string(key) + "` on a " + std::string(K::name) +
                                   " device, expected none: " + why);
    }
  });
}

// `models.M.service_time.D` when it is a kind's own timing ({latency, interval} of a pipeline):
// read, and also recorded as the device's curve (a request of n items: latency + (n - 1) x
// interval on an empty pipeline). False when `v` is a batch curve.
bool Loader::kind_timing(const json& v, const std::string& path, const std::string& device,
                         Model& m) {
  const std::string_view kind = timing_kind(v);
  if (kind.empty()) return false;
  DeviceKindReader reader(*this);
  Kinds::each([&]<class K>() {
    if constexpr (K::timing == device_kinds::Timing::Pipeline) {
      if (K::name != kind) return;
      if (auto p = K::read_timing(reader, v, path)) {
        m.pipeline_time[device] = *p;
        ServiceCurve c;
        c.batch = {1.0, 2.0};
        c.seconds = {p->latency, p->latency + p->interval};
        c.source = "pipeline";
        m.service_time[device] = std::move(c);
      }
    }
  });
  return true;
}

bool Loader::is_kind_timing(const json& v) {
  return !timing_kind(v).empty();
}

// A kind's own timing only for a device of that kind, batch curves never for such a device,
// every model on such a pool timed for it, and each kind's limits on its pools.
void Loader::device_kind_checks(Scenario& s) {
  const auto own_timing = [&](const std::string& device) -> const DeviceSpec* {
    const DeviceSpec* d = s.find_device(device);
    return d && device_kinds::timing_of(d->kind) != device_kinds::Timing::BatchCurve ? d : nullptr;
  };
  const char* const example = device_kinds::Pipeline::kExample;
  for (const Model& m : s.models) {
    const std::string spath = key_path(key_path("models", m.name), "service_time");
    for (const auto& [device, curve] : m.service_time) {
      const bool timed = m.pipeline_time.count(device) > 0;
      if (timed && !own_timing(device))
        add(key_path(spath, device),
            "found a pipeline timing {latency, interval} for device `" + device +
                "`, which is not a pipeline, expected a batch curve {\"batch\": [...], "
                "\"seconds\": [...]} (or \"kind\": \"pipeline\" in `devices." +
                device + "`)");
      else if (const DeviceSpec* d = own_timing(device); !timed && device != "*" && d)
        add(key_path(spath, device),
            "found a batch curve for " + std::string(device_kinds::name_of(d->kind)) + " device `" +
                device + "` (devices." + device + ".kind is \"" +
                std::string(device_kinds::name_of(d->kind)) + "\"), expected " + example);
    }
  }
  DeviceKindReader reader(*this);
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const ServerPool& pool = s.servers[i];
    const DeviceSpec* d = s.find_device(pool.device);
    if (!d) continue;
    const device_kinds::PoolShape shape{index_path("servers", i), pool.device, pool.models.size(),
                                        pool.host ? pool.host->devices : 1};
    Kinds::with(d->kind,
                [&]<class K>(const typename K::Settings& k) { K::check_pool(reader, k, shape); });
    if (!own_timing(pool.device)) continue;
    for (std::size_t k = 0; k < pool.models.size(); ++k) {
      const Model* m = s.find_model(pool.models[k]);
      if (!m || m->pipeline_time.count(pool.device) || !m->service_time.count("*")) continue;
      add(index_path(key_path(index_path("servers", i), "models"), k),
          "model `" + m->name + "` has only a \"*\" batch curve, and device `" + pool.device +
              "` is a " + std::string(device_kinds::name_of(d->kind)) + ": expected `models." +
              m->name + ".service_time." + pool.device + "` = " + example);
    }
  }
}

}  // namespace sonicsim::scenario::detail
