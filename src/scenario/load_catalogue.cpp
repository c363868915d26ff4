// The device catalogue in a scenario (docs/devices.md): a device a pool names, or a `devices`
// entry, takes the memory and power the catalogue knows for its name wherever the scenario
// leaves them out; `devices.D.catalogue` names another entry or opts out (false).
#include <algorithm>

#include <sonicsim/devices/catalogue.hpp>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

std::string hint_of(const std::string& name) {
  const std::string hint = did_you_mean(name, devices::known_names());
  return hint.empty() ? "" : " (" + hint + ")";
}

}  // namespace

// `devices.D.catalogue`: absent or null, the entry D's name resolves to (if any); true, the same
// but it must exist; false, none; a string, that entry.
const devices::Entry* Loader::device_catalogue(const json& v, const std::string& path,
                                               const std::string& name) {
  const json* x = get(v, "catalogue");
  if (!x || x->is_null()) return devices::find(name);
  const std::string cpath = key_path(path, "catalogue");
  const char* const listed = "(`sonicsim devices` lists them)";
  if (x->is_boolean()) {
    if (!x->get<bool>()) return nullptr;
    if (const devices::Entry* e = devices::find(name)) return e;
    add(cpath, "found true for device \"" + name +
                   "\", which the device catalogue does not know, expected false, or the name of "
                   "a catalogue entry " +
                   listed + hint_of(name));
    return nullptr;
  }
  if (x->is_string()) {
    const std::string wanted = x->get<std::string>();
    if (const devices::Entry* e = devices::find(wanted)) return e;
    add(cpath, "found \"" + wanted + "\", which the device catalogue does not know, expected " +
                   "the name of a catalogue entry " + listed + hint_of(wanted));
    return nullptr;
  }
  add(cpath, "found " + describe(*x) +
                 ", expected true, false (no catalogue figures) or the name of a catalogue entry "
                 "such as \"T4\"");
  return nullptr;
}

// The catalogue's idle-to-limit line, when it has both figures.
std::optional<PowerSpec> Loader::catalogue_power(const devices::Entry& e) {
  if (!e.power_limit.value || !e.idle_power.value) return std::nullopt;
  PowerSpec p;
  p.watts = {*e.idle_power.value, *e.power_limit.value};
  return p;
}

// What the scenario left out, from the entry. The busy end of the power line is the board's
// power limit: a device busy all the time draws at most that.
void Loader::apply_catalogue(const devices::Entry& e, DeviceSpec& d) {
  d.catalogue = e.name;
  if (!d.memory && e.memory.value) {
    d.memory = *e.memory.value;
    d.from_catalogue.memory = true;
  }
  if (!d.power) {
    if (auto p = catalogue_power(e)) {
      d.power = *p;
      d.from_catalogue.power_idle = d.from_catalogue.power_busy = true;
      d.from_catalogue.idle_estimate = e.idle_power.estimate;
    }
  }
}

// Pools whose device has no `devices` entry but a catalogue one get an entry of the catalogue's
// figures (after the pools).
void Loader::catalogue_devices(Scenario& s) {
  bool added = false;
  for (const ServerPool& pool : s.servers) {
    if (s.find_device(pool.device)) continue;
    const devices::Entry* e = devices::find(pool.device);
    if (!e) continue;
    DeviceSpec d;
    d.name = pool.device;
    apply_catalogue(*e, d);
    s.devices.push_back(std::move(d));
    added = true;
  }
  if (added)
    std::sort(s.devices.begin(), s.devices.end(),
              [](const DeviceSpec& a, const DeviceSpec& b) { return a.name < b.name; });
}

}  // namespace sonicsim::scenario::detail
