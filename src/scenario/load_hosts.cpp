// Servers as machines (docs/servers.md): the `devices` section, a pool's `host` and a model's
// `host_cost`.
#include <algorithm>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

void Loader::devices(const json& v, Scenario& s) {
  if (!expect_object(v, "devices",
                     "an object of devices by the name pools give them, e.g. {\"T4\": "
                     "{\"memory\": \"16GB\"}}"))
    return;
  for (const auto& item : v.items()) {
    DeviceSpec d;
    d.name = item.key();
    device(item.value(), key_path("devices", item.key()), d);
    s.devices.push_back(std::move(d));
  }
  std::sort(s.devices.begin(), s.devices.end(),
            [](const DeviceSpec& a, const DeviceSpec& b) { return a.name < b.name; });
}

void Loader::device(const json& v, const std::string& path, DeviceSpec& d) {
  if (!expect_object(v, path, "a device object (its memory, power, ...)")) return;
  std::vector<std::string_view> allowed{"kind"};
  for (std::string_view key : device_kind_keys()) allowed.push_back(key);
  allowed.insert(allowed.end(), {keys::kPower, "memory", "slice", "catalogue"});
  check_keys(v, path, allowed);
  const devices::Entry* entry = device_catalogue(v, path, d.name);
  device_kind(v, path, d);
  if (const json* x = get(v, "slice"); x && !x->is_null())
    device_slice(*x, key_path(path, "slice"), d);
  if (const json* x = get(v, keys::kPower); x && !x->is_null()) {
    const std::optional<PowerSpec> fallback =
        entry ? catalogue_power(*entry) : std::optional<PowerSpec>();
    d.power = power(*x, key_path(path, keys::kPower), fallback ? &*fallback : nullptr,
                    entry ? "the catalogue's " + entry->name : "");
    // An {idle, busy} pair that left one out took it from the catalogue.
    if (d.power && fallback && x->is_object() && !get(*x, keys::kUtilization) &&
        !get(*x, keys::kWatts)) {
      d.from_catalogue.power_idle = !get(*x, keys::kIdle);
      d.from_catalogue.power_busy = !get(*x, keys::kBusy);
      d.from_catalogue.idle_estimate = d.from_catalogue.power_idle && entry->idle_power.estimate;
    }
  }
  device_memory(v, path, d);
  if (entry) apply_catalogue(*entry, d);
}

// `servers[i].host`: {"cores": 16, "devices": 4}.
void Loader::server_host(const json& v, const std::string& path, ServerPool& pool) {
  if (!expect_object(v, path,
                     "a host object {\"cores\": 16, \"devices\": 4} (its CPU cores and the "
                     "devices behind one Triton server), or null"))
    return;
  check_keys(v, path, {"cores", keys::kDevices, keys::kPower});
  ServerHost h;
  if (const json* x = get(v, "cores")) {
    if (auto c = integer(*x, key_path(path, "cores"), 1, Limits::max_host_cores,
                         "CPU cores of the server host"))
      h.cores = static_cast<int>(*c);
  }
  if (const json* x = get(v, keys::kDevices)) {
    if (auto d = integer(*x, key_path(path, keys::kDevices), 1, Limits::max_devices_per_host,
                         "devices behind one Triton server"))
      h.devices = static_cast<int>(*d);
  }
  if (h.devices > 1 && pool.count % h.devices != 0)
    add(key_path(path, keys::kDevices),
        "found " + std::to_string(h.devices) + " devices per host in a pool of " +
            std::to_string(pool.count) + ", expected a divisor of the pool's `count`");
  if (const json* x = get(v, keys::kPower); x && !x->is_null())
    h.power = power(*x, key_path(path, keys::kPower));
  pool.host = h;
}

// `models.M.host_cost`: {"per_request": "80us", "per_byte_in": "0.4ns", ...}, or
// {"calibration": "FILE.json"} for the block `calibrate perf-analyzer --host-cores` wrote, which
// is part of the file's server overhead (in_server_overhead).
void Loader::host_cost(const json& v, const std::string& path, Model& m) {
  if (!expect_object(v, path,
                     "an object {\"per_request\": \"80us\", \"per_byte_in\": \"0.4ns\", "
                     "\"per_byte_out\": \"0.4ns\", \"per_execution\": \"1ms\"} of host CPU time, "
                     "{\"calibration\": \"FILE.json\"}, or null"))
    return;
  std::optional<HostCost> c;
  if (const json* file = get(v, keys::kCalibration)) {
    check_keys(v, path, {keys::kCalibration});
    c = host_cost_calibration(*file, key_path(path, keys::kCalibration));
    if (c) c->in_server_overhead = true;
  } else {
    c = host_cost_fields(v, path);
  }
  if (c) m.host_cost = *c;
}

std::optional<HostCost> Loader::host_cost_fields(const json& v, const std::string& path) {
  if (!expect_object(v, path, "an object {\"per_request\": \"80us\", ...} of host CPU time"))
    return std::nullopt;
  check_keys(v, path,
             {keys::kPerRequest, keys::kPerByteIn, keys::kPerByteOut, keys::kPerExecution,
              keys::kInServerOverhead});
  HostCost c;
  bool ok = true;
  const auto time = [&](const char* key, double& out) {
    if (const json* x = get(v, key)) {
      if (auto t = quantity(*x, key_path(path, key), Quantity::Time, Range::at_least(0)))
        out = *t;
      else
        ok = false;
    }
  };
  time(keys::kPerRequest, c.per_request);
  time(keys::kPerByteIn, c.per_byte_in);
  time(keys::kPerByteOut, c.per_byte_out);
  time(keys::kPerExecution, c.per_execution);
  if (const json* x = get(v, keys::kInServerOverhead)) {
    if (!x->is_boolean()) {
      add(key_path(path, keys::kInServerOverhead),
          "found " + describe(*x) +
              ", expected true (the host work is part of request_overhead.server) or false");
      ok = false;
    } else {
      c.in_server_overhead = x->get<bool>();
    }
  }
  if (!ok) return std::nullopt;
  return c;
}

}  // namespace sonicsim::scenario::detail
