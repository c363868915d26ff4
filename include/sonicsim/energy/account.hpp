// Power, energy and cost per event (docs/servers.md, "Power, energy and cost"): arithmetic over
// what a run measured (or what the formulas predict, for `plan cost`), never part of the run.
// Each device, host and client core draws its power at its utilisation over the measured period
// (E = T P(u): exact for the two-point idle/busy line, E = T (P_idle + (P_busy - P_idle) u); a
// planner's approximation for a curve, which is evaluated at the period's mean utilisation), and
// costs its hourly price for as long as it is up; energy is priced per kWh, WAN egress per GB.
// One formula (account) serves the results file (results/energy.hpp, from what a run measured)
// and `plan cost` (from the formulas); this layer stands below the engine, so plan links none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::energy {

enum class Component { Devices, Hosts, ClientCores };

// Machines of one kind that share a power curve and a price: `unit_seconds` of them up (one
// machine for one second is 1), busy `utilization` of that time on average.
struct Machines {
  Component component = Component::Devices;
  double unit_seconds = 0.0;
  double utilization = 0.0;
  const scenario::PowerSpec* power = nullptr;  // nullptr: draws nothing
  double price_per_hour = 0.0;                 // per machine
};

// The energy and cost of a setup over a span of time.
struct Account {
  double span_s = 0.0;
  double events = 0.0;
  bool powered = false;  // some machine has a power: `energy` is written
  bool priced = false;   // the scenario has prices: `cost` is written
  // By Component.
  double joules[3] = {0.0, 0.0, 0.0};
  double machine_cost[3] = {0.0, 0.0, 0.0};  // their hourly prices over the span
  double energy_cost = 0.0;
  double egress_cost = 0.0;

  double total_joules() const { return joules[0] + joules[1] + joules[2]; }
  double total_cost() const {
    return machine_cost[0] + machine_cost[1] + machine_cost[2] + energy_cost + egress_cost;
  }
  double mean_power_w() const { return span_s > 0.0 ? total_joules() / span_s : 0.0; }
  // Per hour of the span: the cost rate of the setup.
  double hourly(double cost) const { return span_s > 0.0 ? cost * 3600.0 / span_s : 0.0; }
  double hourly_cost() const { return hourly(total_cost()); }
  // nullopt when no event completed.
  std::optional<double> per_event(double x) const {
    return events > 0.0 ? std::optional<double>(x / events) : std::nullopt;
  }
};

// The one formula: `machines` over `span_s`, `events` completed in it, egress already priced.
Account account(const std::vector<Machines>& machines, double span_s, double events,
                const scenario::Scenario& s, double egress_cost);

// How a pool's devices were used over `span` seconds, as a run measures it or as the formulas
// predict it. A pool that never changes holds one device per `utilization` all the time; an
// operated pool (autoscaler, crashes) holds what it had up (`replica_seconds_up`).
struct PoolUse {
  std::vector<double> utilization;       // per device
  std::vector<double> host_utilization;  // per host; empty when the host stage is not modelled
  bool operated = false;
  double replica_seconds_up = 0.0;
};
// A pool's devices and hosts, appended to `out`.
void pool_machines(const scenario::Scenario& s, const scenario::ServerPool& sp, const PoolUse& use,
                   double span, std::vector<Machines>& out);
// A workload's client cores (none for an open loop), `busy_seconds` of CPU over `span`.
void core_machines(const scenario::Scenario& s, const scenario::Workload& w, double cores,
                   double busy_seconds, double span, std::vector<Machines>& out);

// The same for an hour at the formula's throughput (plan cost's analytic answers): devices at
// the formula's pool utilisation, hosts idle, client cores busy (1 - p) t_CPU per event.
Account predicted_account(const scenario::Scenario& s, const analytic::Prediction& p);

// The `energy` and `cost` blocks (keys::energy, keys::cost); null when the scenario gives no
// power (energy) or no prices (cost): the caller leaves the key out then.
nlohmann::ordered_json energy_json(const Account& a);
nlohmann::ordered_json cost_json(const Account& a);

}  // namespace sonicsim::energy
