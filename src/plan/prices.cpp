// The cost question's flags as scenario keys: `plan cost` prices a point through the results'
// `cost` (energy/account.hpp), so flags and the scenario's own prices meet in the scenario, and
// one formula prices runs and plans alike.
#include <sonicsim/plan/plan.hpp>

#include <algorithm>

#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::plan {

namespace {

nlohmann::json constant_power(double watts) {
  return {{"idle", watts}, {"busy", watts}};
}

}  // namespace

std::vector<scenario::Override> price_overrides(const std::string& scenario_path,
                                                const std::vector<scenario::Override>& common,
                                                const Prices& flags) {
  const scenario::Scenario s = scenario::load_file(scenario_path, common);
  if (!s.prices && !(flags.gpu_hour && flags.core_hour))
    throw scenario::InputError(scenario_path, {{"prices",
                                                "cost needs prices: the scenario's `prices`, or "
                                                "--gpu-hour-price and --core-hour-price"}});
  const bool scenario_power = std::any_of(s.devices.begin(), s.devices.end(),
                                          [](const auto& d) { return d.power.has_value(); }) ||
                              s.workload().core_power.has_value() ||
                              std::any_of(s.servers.begin(), s.servers.end(), [](const auto& p) {
                                return p.host && p.host->power.has_value();
                              });
  const bool kwh = flags.kwh || (s.prices && s.prices->kwh > 0.0);
  if ((flags.gpu_watts || flags.core_watts) && !kwh)
    throw scenario::InputError(scenario_path, {{"prices.kwh",
                                                "a power draw (--gpu-power, --core-power) needs a "
                                                "price per kWh: --kwh-price or prices.kwh"}});
  if (flags.kwh && !(flags.gpu_watts || flags.core_watts || scenario_power))
    throw scenario::InputError(scenario_path,
                               {{"devices",
                                 "--kwh-price needs a power draw: --gpu-power, --core-power, "
                                 "or the scenario's devices.D.power or workload.core_power"}});
  const nlohmann::json doc = nlohmann::json::parse(s.canonical_json);
  std::vector<scenario::Override> out;
  if (!flags.any()) return out;

  nlohmann::json prices = doc.contains("prices") && doc["prices"].is_object()
                              ? doc["prices"]
                              : nlohmann::json::object();
  if (flags.gpu_hour) prices["device_hour"] = *flags.gpu_hour;
  if (flags.core_hour) prices["core_hour"] = *flags.core_hour;
  if (flags.kwh) prices["kwh"] = *flags.kwh;
  out.push_back({"prices", prices.dump()});

  if (flags.gpu_watts) {
    nlohmann::json devices = doc.contains("devices") && doc["devices"].is_object()
                                 ? doc["devices"]
                                 : nlohmann::json::object();
    for (const auto& pool : s.servers)
      devices[pool.device]["power"] = constant_power(*flags.gpu_watts);
    out.push_back({"devices", devices.dump()});
  }
  if (flags.core_watts)
    out.push_back({doc.contains("workload") ? "workload.core_power" : "workloads.0.core_power",
                   constant_power(*flags.core_watts).dump()});
  return out;
}

}  // namespace sonicsim::plan
