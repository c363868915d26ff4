// What the machines of a scenario draw and cost (docs/servers.md, "Power, energy and cost"): the
// power of a device (`devices.D.power`), of a server host (`servers[i].host.power`) and of a
// client core (`workload.core_power`) as a function of how busy it is, and the prices of a
// device, host and core hour, of a kWh (`prices`). A scenario without them has no energy and no
// cost in its results; the run itself does not change with them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonicsim::scenario {

// Watts drawn at a utilisation (busy fraction over the measured period): linear between the
// points, which start at utilisation 0 (idle) and end at 1 (busy all the time). {"idle",
// "busy"} is the two-point curve.
struct PowerSpec {
  std::vector<double> utilization{0.0, 1.0};  // strictly increasing from 0 to 1
  std::vector<double> watts{0.0, 0.0};        // >= 0, same length
  double idle() const { return watts.front(); }
  double busy() const { return watts.back(); }
  // A straight line from idle to busy: energy over a period is then exact from the mean
  // utilisation alone (E = T (P_idle + (P_busy - P_idle) u)).
  bool linear() const;
  double at(double u) const;  // u clamped into [0, 1]
  bool operator==(const PowerSpec&) const = default;
};

// `prices`: currency per device hour (one price for every device, or one per device name), per
// host hour, per client core hour and per kWh. Egress is priced per site
// (`sites[].egress_price_per_gb`). Absent prices are 0.
struct Prices {
  double device_hour = 0.0;                             // every device without its own price
  std::map<std::string, double> device_hour_by_device;  // by the name pools give in `device`
  double host_hour = 0.0, core_hour = 0.0, kwh = 0.0;
  double device_hour_of(const std::string& device) const {
    const auto it = device_hour_by_device.find(device);
    return it == device_hour_by_device.end() ? device_hour : it->second;
  }
  bool operator==(const Prices&) const = default;
};

}  // namespace sonicsim::scenario
