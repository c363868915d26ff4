#include <sonicsim/energy/account.hpp>

#include <algorithm>

#include <sonicsim/results_format/keys.hpp>

namespace sonicsim::energy {

namespace {

namespace keys = results::keys;

using ojson = nlohmann::ordered_json;

constexpr double kJoulesPerKwh = 3.6e6;

std::size_t index_of(Component c) {
  return static_cast<std::size_t>(c);
}

bool any_power(const scenario::Scenario& s) {
  for (const auto& d : s.devices)
    if (d.power) return true;
  for (const auto& p : s.servers)
    if (p.host && p.host->power) return true;
  for (const auto& w : s.workloads)
    if (w.core_power) return true;
  return false;
}

const scenario::PowerSpec* device_power(const scenario::Scenario& s, const std::string& device) {
  const scenario::DeviceSpec* d = s.find_device(device);
  return d && d->power ? &*d->power : nullptr;
}

double busy_fraction(double busy_seconds, double up_seconds) {
  return up_seconds > 0.0 ? std::min(1.0, busy_seconds / up_seconds) : 0.0;
}

}  // namespace

// An operated pool's devices are priced and powered for their up time at the pool's busy time
// over it: which device was up when is not kept.
void pool_machines(const scenario::Scenario& s, const scenario::ServerPool& sp, const PoolUse& mp,
                   double span, std::vector<Machines>& out) {
  const scenario::PowerSpec* dp = device_power(s, sp.device);
  const double device_price = s.prices ? s.prices->device_hour_of(sp.device) : 0.0;
  const int per_host = sp.host ? sp.host->devices : 1;
  const scenario::PowerSpec* hp = sp.host && sp.host->power ? &*sp.host->power : nullptr;
  const double host_price = s.prices ? s.prices->host_hour : 0.0;
  double busy = 0.0;
  for (double u : mp.utilization) busy += u * span;
  const double device_seconds =
      mp.operated ? mp.replica_seconds_up : static_cast<double>(mp.utilization.size()) * span;
  if (mp.operated) {
    out.push_back({Component::Devices, device_seconds, busy_fraction(busy, device_seconds), dp,
                   device_price});
  } else {
    for (double u : mp.utilization)
      out.push_back({Component::Devices, span, std::min(1.0, u), dp, device_price});
  }
  const double host_seconds = device_seconds / per_host;
  if (mp.host_utilization.empty() || mp.operated) {
    double host_busy = 0.0;
    for (double u : mp.host_utilization) host_busy += u * span;
    out.push_back(
        {Component::Hosts, host_seconds, busy_fraction(host_busy, host_seconds), hp, host_price});
  } else {
    for (double u : mp.host_utilization)
      out.push_back({Component::Hosts, span, std::min(1.0, u), hp, host_price});
  }
}

void core_machines(const scenario::Scenario& s, const scenario::Workload& w, double cores,
                   double busy_seconds, double span, std::vector<Machines>& out) {
  if (w.open_loop()) return;  // no client threads
  const double core_seconds = cores * span;
  out.push_back({Component::ClientCores, core_seconds, busy_fraction(busy_seconds, core_seconds),
                 w.core_power ? &*w.core_power : nullptr, s.prices ? s.prices->core_hour : 0.0});
}

Account account(const std::vector<Machines>& machines, double span_s, double events,
                const scenario::Scenario& s, double egress_cost) {
  Account a;
  a.span_s = span_s;
  a.events = events;
  a.powered = any_power(s);
  a.priced = s.prices.has_value();
  for (const Machines& m : machines) {
    const std::size_t c = index_of(m.component);
    if (m.power) a.joules[c] += m.unit_seconds * m.power->at(m.utilization);
    a.machine_cost[c] += m.unit_seconds / 3600.0 * m.price_per_hour;
  }
  a.energy_cost = s.prices ? a.total_joules() / kJoulesPerKwh * s.prices->kwh : 0.0;
  a.egress_cost = egress_cost;
  return a;
}

Account predicted_account(const scenario::Scenario& s, const analytic::Prediction& p) {
  constexpr double kHour = 3600.0;
  std::vector<Machines> out;
  for (std::size_t i = 0; i < s.servers.size() && i < p.pools.size(); ++i) {
    PoolUse mp;
    mp.utilization.assign(static_cast<std::size_t>(s.servers[i].count),
                          std::min(1.0, p.pools[i].utilization));
    pool_machines(s, s.servers[i], mp, kHour, out);
  }
  const double x = p.throughput_per_s;
  if (s.single_workload()) {
    const double cores = static_cast<double>(p.n_cpu);
    const double busy = std::min(cores * kHour, x * kHour * (1.0 - p.p) * p.t_cpu_s);
    core_machines(s, s.workload(), cores, busy, kHour, out);
  }
  return account(out, kHour, x * kHour, s, 0.0);
}

ojson energy_json(const Account& a) {
  if (!a.powered) return nullptr;
  namespace e = keys::energy;
  ojson j;
  j[e::joules] = a.total_joules();
  const auto per_event = a.per_event(a.total_joules());
  j[e::per_event_j] = per_event ? ojson(*per_event) : ojson(nullptr);
  j[e::mean_power_w] = a.mean_power_w();
  namespace ec = keys::energy_component;
  j[e::components] = {
      {ec::devices, a.joules[0]}, {ec::hosts, a.joules[1]}, {ec::client_cores, a.joules[2]}};
  return j;
}

ojson cost_json(const Account& a) {
  if (!a.priced) return nullptr;
  namespace c = keys::cost;
  ojson j;
  const auto per_event = a.per_event(a.total_cost());
  j[c::per_event] = per_event ? ojson(*per_event) : ojson(nullptr);
  j[c::per_million_events] = per_event ? ojson(*per_event * 1e6) : ojson(nullptr);
  j[c::hourly] = a.hourly_cost();
  namespace cc = keys::cost_component;
  j[c::components] = {{cc::devices, a.hourly(a.machine_cost[0])},
                      {cc::hosts, a.hourly(a.machine_cost[1])},
                      {cc::client_cores, a.hourly(a.machine_cost[2])},
                      {cc::energy, a.hourly(a.energy_cost)},
                      {cc::egress, a.hourly(a.egress_cost)}};
  return j;
}

}  // namespace sonicsim::energy
