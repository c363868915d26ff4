#include <sonicsim/results/energy.hpp>

#include <algorithm>

#include <sonicsim/results/keys.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::results {

namespace {

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

// A pool's devices and hosts. A pool that never changes holds `count` devices all the time, each
// at its own utilisation; an operated pool (autoscaler, crashes) holds what it had up, at the
// pool's busy time over that up time.
void pool_machines(const scenario::Scenario& s, const scenario::ServerPool& sp,
                   const engine::RunMetrics::Pool& mp, double span, std::vector<Machines>& out) {
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

}  // namespace

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

std::vector<Machines> measured_machines(const scenario::Scenario& s, const engine::RunMetrics& m) {
  std::vector<Machines> out;
  const double span = m.span();
  for (std::size_t i = 0; i < s.servers.size() && i < m.pools.size(); ++i)
    pool_machines(s, s.servers[i], m.pools[i], span, out);
  for (std::size_t i = 0; i < s.workloads.size() && i < m.workloads.size(); ++i)
    core_machines(s, s.workloads[i], static_cast<double>(s.workloads[i].n_threads()),
                  m.workloads[i].cpu_busy_seconds, span, out);
  return out;
}

Account run_account(const scenario::Scenario& s, const engine::RunMetrics& m) {
  double egress = 0.0;
  for (std::size_t a = 0; a < m.egress_bytes.size() && a < s.sites.size(); ++a)
    if (const auto& per_gb = s.sites[a].egress_price_per_gb)
      for (double bytes : m.egress_bytes[a]) egress += *per_gb * bytes / 1e9;
  return account(measured_machines(s, m), m.span(), static_cast<double>(m.events_completed), s,
                 egress);
}

Account predicted_account(const scenario::Scenario& s, const analytic::Prediction& p) {
  constexpr double kHour = 3600.0;
  std::vector<Machines> out;
  for (std::size_t i = 0; i < s.servers.size() && i < p.pools.size(); ++i) {
    engine::RunMetrics::Pool mp;
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

void add_energy_and_cost(const scenario::Scenario& s, const engine::RunMetrics& m, ojson& results) {
  const Account a = run_account(s, m);
  if (a.powered) results[keys::top::energy] = energy_json(a);
  if (a.priced) results[keys::top::cost] = cost_json(a);
}

std::vector<std::string> energy_summary(const scenario::Scenario& s, const engine::RunMetrics& m) {
  const Account a = run_account(s, m);
  std::vector<std::string> lines;
  const auto per_event = [&](double x, const char* format) {
    const auto v = a.per_event(x);
    return v ? util::formatted(format, *v) : std::string("n/a (no event)");
  };
  if (a.powered) {
    const double total = a.total_joules();
    const auto share = [&](std::size_t c) {
      return util::percent(total > 0.0 ? a.joules[c] / total : 0.0, "%.0f");
    };
    lines.push_back("energy     " + per_event(total, "%.4g J/event") + ", mean " +
                    util::formatted("%.4g W", a.mean_power_w()) + " (devices " + share(0) +
                    ", hosts " + share(1) + ", client cores " + share(2) + ")");
  }
  if (a.priced)
    lines.push_back("cost       " + per_event(a.total_cost() * 1e6, "%.4g per million events") +
                    ", " + util::formatted("%.4g per hour", a.hourly_cost()));
  return lines;
}

}  // namespace sonicsim::results
