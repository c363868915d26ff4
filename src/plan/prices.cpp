// The cost question's flags as scenario keys: `plan cost` prices a point through the results'
// `cost` (energy/account.hpp), so flags and the scenario's own prices meet in the scenario, and
// one formula prices runs and plans alike.
#include <sonicsim/plan/plan.hpp>

#include <algorithm>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/writer.hpp>

namespace sonicsim::plan {

namespace {

scenario::PowerSpec constant_power(double watts) {
  scenario::PowerSpec p;
  p.watts = {watts, watts};
  return p;
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
  if (!flags.any()) return {};

  // The flags as typed fields of the scenario; the writer turns them into overrides.
  scenario::Scenario priced = s;
  scenario::Prices& prices = priced.prices.emplace(s.prices.value_or(scenario::Prices{}));
  if (flags.gpu_hour) {
    prices.device_hour = *flags.gpu_hour;
    prices.device_hour_by_device.clear();
  }
  if (flags.core_hour) prices.core_hour = *flags.core_hour;
  if (flags.kwh) prices.kwh = *flags.kwh;
  if (flags.gpu_watts) {
    for (const auto& pool : s.servers) {
      auto device = std::find_if(priced.devices.begin(), priced.devices.end(),
                                 [&](const auto& d) { return d.name == pool.device; });
      if (device == priced.devices.end()) {
        priced.devices.push_back({});
        priced.devices.back().name = pool.device;
        device = priced.devices.end() - 1;
      }
      device->power = constant_power(*flags.gpu_watts);
    }
  }
  if (flags.core_watts) priced.workload().core_power = constant_power(*flags.core_watts);
  return scenario::write_overrides(s, priced);
}

}  // namespace sonicsim::plan
