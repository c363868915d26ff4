// Power and prices (docs/servers.md, "Power, energy and cost"): `devices.D.power`,
// `servers[i].host.power`, `workload.core_power` and the top-level `prices`.
#include <cmath>
#include <set>

#include "keys.hpp"
#include "loader_impl.hpp"

namespace sonicsim::scenario {

bool PowerSpec::linear() const {
  return watts.size() == 2;
}

double PowerSpec::at(double u) const {
  u = std::min(1.0, std::max(0.0, u));
  std::size_t i = 1;
  while (i + 1 < utilization.size() && utilization[i] < u) ++i;
  const double u0 = utilization[i - 1], u1 = utilization[i];
  return watts[i - 1] + (watts[i] - watts[i - 1]) * (u - u0) / (u1 - u0);
}

namespace detail {

namespace {

// Far more points than any measured curve has; keeps a curve's reading and evaluation small.
constexpr std::size_t kMaxPowerPoints = 1000;
// A price above this per hour or per kWh is a unit mistake, and sums of them stay finite.
constexpr double kMaxPrice = 1e9;

}  // namespace

// {"idle": "36W", "busy": "70W"} or {"utilization": [0, 0.5, 1], "watts": [36, 55, 70]}.
std::optional<PowerSpec> Loader::power(const json& v, const std::string& path,
                                       const PowerSpec* fallback,
                                       const std::string& fallback_from) {
  constexpr const char* kExpected =
      "a power object {\"idle\": \"36W\", \"busy\": \"70W\"} or a curve {\"utilization\": [0, "
      "0.5, 1], \"watts\": [36, 55, 70]}";
  if (!expect_object(v, path, kExpected)) return std::nullopt;
  const bool pair = get(v, keys::kIdle) || get(v, keys::kBusy);
  const bool curve = get(v, keys::kUtilization) || get(v, keys::kWatts);
  if (pair && curve) {
    add(path, "found both idle/busy and a utilization curve, expected one of them");
    return std::nullopt;
  }
  if (!curve) {
    check_keys(v, path, {keys::kIdle, keys::kBusy});
    const json* idle = get(v, keys::kIdle);
    const json* busy = get(v, keys::kBusy);
    // A device the catalogue knows may give one end and keep the catalogue's other.
    const bool completed = fallback && (idle || busy);
    if (!idle && !completed)
      missing(key_path(path, keys::kIdle), "the power drawn idle, e.g. \"36W\"");
    if (!busy && !completed)
      missing(key_path(path, keys::kBusy), "the power drawn busy, e.g. \"70W\"");
    if ((!idle || !busy) && !completed) return std::nullopt;
    const auto read = [&](const json* x, const char* key, double from_catalogue) {
      return x ? quantity(*x, key_path(path, key), Quantity::Power, Range::at_least(0))
               : std::optional<double>(from_catalogue);
    };
    const auto text = [&](const json* x, double from_catalogue) {
      return x ? describe(*x) : format_number(from_catalogue) + " W from " + fallback_from;
    };
    const auto i = read(idle, "idle", fallback ? fallback->idle() : 0.0);
    const auto b = read(busy, "busy", fallback ? fallback->busy() : 0.0);
    if (!i || !b) return std::nullopt;
    if (*b < *i) {
      if (busy)
        add(key_path(path, keys::kBusy), "found " + describe(*busy) + " below idle (" +
                                             text(idle, *i) + "), expected busy >= idle");
      else
        add(key_path(path, keys::kIdle), "found " + describe(*idle) + " above busy (" +
                                             text(busy, *b) + "), expected idle <= busy");
      return std::nullopt;
    }
    PowerSpec p;
    p.watts = {*i, *b};
    return p;
  }
  return power_curve(v, path);
}

std::optional<PowerSpec> Loader::power_curve(const json& v, const std::string& path) {
  check_keys(v, path, {keys::kUtilization, keys::kWatts});
  const json* us = get(v, keys::kUtilization);
  const json* ws = get(v, keys::kWatts);
  const std::string upath = key_path(path, keys::kUtilization),
                    wpath = key_path(path, keys::kWatts);
  const auto array = [&](const json* a, const std::string& p) {
    if (!a) {
      missing(p, "an array of at least 2 points");
      return false;
    }
    if (!a->is_array() || a->size() < 2 || a->size() > kMaxPowerPoints) {
      add(p, "found " + describe(*a) + ", expected an array of 2 to " +
                 std::to_string(kMaxPowerPoints) + " points");
      return false;
    }
    return true;
  };
  const bool u_ok = array(us, upath), w_ok = array(ws, wpath);
  if (!u_ok || !w_ok) return std::nullopt;
  if (us->size() != ws->size()) {
    add(wpath, "found " + std::to_string(ws->size()) + " points for " + std::to_string(us->size()) +
                   " utilizations, expected as many");
    return std::nullopt;
  }
  PowerSpec p;
  p.utilization.clear();
  p.watts.clear();
  bool good = true;
  for (std::size_t i = 0; i < us->size(); ++i) {
    const std::string ui = index_path(upath, i), wi = index_path(wpath, i);
    const auto u = number((*us)[i], ui, Range::closed(0, 1), "a utilization");
    const auto w = quantity((*ws)[i], wi, Quantity::Power, Range::at_least(0));
    if (!u || !w) {
      good = false;
      continue;
    }
    if (!p.utilization.empty() && *u <= p.utilization.back()) {
      add(ui, "found " + describe((*us)[i]) + " after " + format_number(p.utilization.back()) +
                  ", expected utilizations increasing from 0 to 1");
      good = false;
    }
    if (!p.watts.empty() && *w < p.watts.back()) {
      add(wi, "found " + describe((*ws)[i]) + " after " + format_number(p.watts.back()) +
                  " W, expected a power that never falls as utilization rises");
      good = false;
    }
    p.utilization.push_back(*u);
    p.watts.push_back(*w);
  }
  if (!good) return std::nullopt;
  if (p.utilization.front() != 0.0 || p.utilization.back() != 1.0) {
    add(upath, "found a curve from " + format_number(p.utilization.front()) + " to " +
                   format_number(p.utilization.back()) +
                   ", expected utilizations from 0 (idle) to 1 (busy all the time)");
    return std::nullopt;
  }
  return p;
}

// `prices`: {"device_hour": 0.35 or {"T4": 0.35}, "host_hour": 0.1, "core_hour": 0.02,
// "kwh": 0.25}, after the pools (a device's price names a device some pool uses).
void Loader::prices(const json& v, Scenario& s) {
  if (!expect_object(v, "prices",
                     "an object {\"device_hour\": 0.35, \"host_hour\": 0.10, \"core_hour\": "
                     "0.02, \"kwh\": 0.25} (currency per hour, per kWh), or null"))
    return;
  check_keys(v, "prices", {keys::kDeviceHour, keys::kHostHour, keys::kCoreHour, keys::kKwh});
  Prices p;
  const Range range = Range::closed(0, kMaxPrice);
  const auto price = [&](const json& x, const std::string& path, double& out) {
    if (auto n = number(x, path, range, "a price")) out = *n;
  };
  if (const json* x = get(v, keys::kHostHour)) price(*x, "prices.host_hour", p.host_hour);
  if (const json* x = get(v, keys::kCoreHour)) price(*x, "prices.core_hour", p.core_hour);
  if (const json* x = get(v, keys::kKwh)) price(*x, "prices.kwh", p.kwh);
  if (const json* x = get(v, keys::kDeviceHour); x && x->is_object()) {
    std::set<std::string> used;
    for (const auto& pool : s.servers) used.insert(pool.device);
    const std::vector<std::string> names(used.begin(), used.end());
    for (const auto& item : x->items()) {
      const std::string path = key_path("prices.device_hour", item.key());
      if (!used.count(item.key())) {
        const std::string hint = did_you_mean(item.key(), names);
        add(path, "found a price for device \"" + item.key() +
                      "\", which no pool uses, expected one of: " + join(names) +
                      (hint.empty() ? "" : " (" + hint + ")"));
        continue;
      }
      price(item.value(), path, p.device_hour_by_device[item.key()]);
    }
    for (const std::string& device : names)
      if (!x->contains(device))
        add("prices.device_hour",
            "found no price for device \"" + device +
                "\", expected a price for every device pools use (0 for those you do not pay "
                "for)");
  } else if (x) {
    price(*x, "prices.device_hour", p.device_hour);
  }
  s.prices = p;
}

}  // namespace detail
}  // namespace sonicsim::scenario
