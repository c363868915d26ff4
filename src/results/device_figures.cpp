#include <sonicsim/results/device_figures.hpp>

#include <set>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::results {

namespace {

using ojson = nlohmann::ordered_json;

// Device names the pools use, sorted, each once.
std::set<std::string> pool_devices(const scenario::Scenario& s) {
  std::set<std::string> names;
  for (const auto& pool : s.servers) names.insert(pool.device);
  return names;
}

bool any_catalogued(const scenario::Scenario& s) {
  for (const std::string& name : pool_devices(s))
    if (const auto* d = s.find_device(name); d && !d->catalogue.empty()) return true;
  return false;
}

const char* source(bool from_catalogue, bool estimate = false) {
  namespace fs = keys::figure_source;
  if (!from_catalogue) return fs::scenario;
  return estimate ? fs::catalogue_estimate : fs::catalogue;
}

std::string source_text(bool from_catalogue, bool estimate = false) {
  if (!from_catalogue) return "scenario";
  return estimate ? "catalogue estimate" : "catalogue";
}

}  // namespace

ojson device_figures_json(const scenario::Scenario& s) {
  if (!any_catalogued(s)) return nullptr;
  namespace dk = keys::device;
  ojson out = ojson::object();
  for (const std::string& name : pool_devices(s)) {
    const scenario::DeviceSpec* d = s.find_device(name);
    ojson o;
    o[dk::catalogue] = d && !d->catalogue.empty() ? ojson(d->catalogue) : ojson(nullptr);
    const bool memory = d && d->memory;
    o[dk::memory_bytes] = memory ? ojson(*d->memory) : ojson(nullptr);
    o[dk::memory_from] = memory ? ojson(source(d->from_catalogue.memory)) : ojson(nullptr);
    const bool power = d && d->power;
    const auto& from = d ? d->from_catalogue : scenario::FromCatalogue{};
    o[dk::power_idle_w] = power ? ojson(d->power->idle()) : ojson(nullptr);
    o[dk::power_idle_from] =
        power ? ojson(source(from.power_idle, from.idle_estimate)) : ojson(nullptr);
    o[dk::power_busy_w] = power ? ojson(d->power->busy()) : ojson(nullptr);
    o[dk::power_busy_from] = power ? ojson(source(from.power_busy)) : ojson(nullptr);
    out[name] = std::move(o);
  }
  return out;
}

std::vector<std::string> device_figures_summary(const scenario::Scenario& s) {
  std::vector<std::string> lines;
  for (const std::string& name : pool_devices(s)) {
    const scenario::DeviceSpec* d = s.find_device(name);
    if (!d || d->catalogue.empty()) continue;
    // The summary's columns: a 20-character name, as the pools' lines have it.
    std::string line = "device     " + name +
                       std::string(name.size() < 20 ? 20 - name.size() : 0, ' ') + " catalogue " +
                       d->catalogue + ": ";
    const auto& from = d->from_catalogue;
    line += d->memory ? "memory " + util::format_binary_bytes(*d->memory) + " (" +
                            source_text(from.memory) + ")"
                      : std::string("no memory figure");
    if (d->power)
      line += ", power " + util::formatted("%.4g W", d->power->idle()) + " idle (" +
              source_text(from.power_idle, from.idle_estimate) + ") to " +
              util::formatted("%.4g W", d->power->busy()) + " busy (" +
              source_text(from.power_busy) + ")";
    else
      line += ", no power figure";
    lines.push_back(line);
  }
  return lines;
}

}  // namespace sonicsim::results
