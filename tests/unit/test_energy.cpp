// Power, energy and cost per event (docs/servers.md, "Power, energy and cost"): the energy a run
// reports is power x time summed over its devices, hosts and client cores, reproduced by hand
// on a deterministic scenario; a run whose requests never reach a device draws the devices'
// idle power only; cost per event is the hand computation; sweeps get the columns. How power
// and prices are read is scenario/test_load_power.cpp.
#include <algorithm>
#include <cmath>

#include "results_support.hpp"
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/energy.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/sweep/sweep.hpp>

using namespace test;
using namespace sonicsim;

namespace {

constexpr double kIdleW = 36.0, kBusyW = 70.0;  // a T4: idle, busy (its TDP)
constexpr double kHostIdleW = 100.0, kHostBusyW = 300.0;
constexpr double kCoreIdleW = 4.0, kCoreBusyW = 10.0;

}  // namespace

TEST_CASE("energy: power x time over the components is the reported energy", "[energy]") {
  const auto s = scenario_of(powered());
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto& m = out.metrics;
  const double T = m.span();
  const double events = static_cast<double>(m.events_completed);
  REQUIRE(events > 0);
  REQUIRE(m.pools.size() == 1);
  const double u = m.pools[0].utilization[0];
  // Each event is one 10 ms execution on the one device.
  CHECK(u * T == Approx(events * 0.01).epsilon(2e-3));
  // Each event is 50 ms of CPU work on its thread's core; the cores of the 2 threads.
  const double core_busy = m.workloads[0].cpu_busy_seconds;
  CHECK(core_busy == Approx(events * 0.05).epsilon(2e-3));
  CHECK(core_busy <= 2 * T);

  // By hand: P_idle all the time, plus (P_busy - P_idle) while busy.
  const double devices_j = T * (kIdleW + (kBusyW - kIdleW) * u);
  const double hosts_j = T * kHostIdleW;  // the host stage is not modelled: idle
  const double cores_j = 2 * T * kCoreIdleW + (kCoreBusyW - kCoreIdleW) * core_busy;
  const double total = devices_j + hosts_j + cores_j;

  const auto j = test::results_of(s, out);
  namespace k = results::keys;
  REQUIRE(j.contains(k::top::energy));
  const auto& e = j[k::top::energy];
  CHECK(e[k::energy::components][k::energy_component::devices].get<double>() ==
        Approx(devices_j).epsilon(1e-12));
  CHECK(e[k::energy::components][k::energy_component::hosts].get<double>() ==
        Approx(hosts_j).epsilon(1e-12));
  CHECK(e[k::energy::components][k::energy_component::client_cores].get<double>() ==
        Approx(cores_j).epsilon(1e-12));
  CHECK(e[k::energy::joules].get<double>() == Approx(total).epsilon(1e-12));
  CHECK(e[k::energy::per_event_j].get<double>() == Approx(total / events).epsilon(1e-12));
  CHECK(e[k::energy::mean_power_w].get<double>() == Approx(total / T).epsilon(1e-12));
  // The components are the whole: nothing counted twice, nothing left out.
  const auto& c = e[k::energy::components];
  CHECK(c[k::energy_component::devices].get<double>() +
            c[k::energy_component::hosts].get<double>() +
            c[k::energy_component::client_cores].get<double>() ==
        Approx(e[k::energy::joules].get<double>()).epsilon(1e-15));

  // The reader gives the same figures.
  const json plain = json::parse(j.dump());
  const results::Document doc(plain);
  REQUIRE(doc.has_energy());
  CHECK(doc.energy().joules() == Approx(total).epsilon(1e-12));
  CHECK(*doc.energy().per_event_j() == Approx(total / events).epsilon(1e-12));
  CHECK(doc.energy().devices_j() + doc.energy().hosts_j() + doc.energy().client_cores_j() ==
        Approx(total).epsilon(1e-12));
}

TEST_CASE("energy: cost per event is the hand computation", "[energy]") {
  const auto s = scenario_of(powered());
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto& m = out.metrics;
  const double T = m.span();
  const double events = static_cast<double>(m.events_completed);
  const auto j = test::results_of(s, out);
  namespace k = results::keys;
  const double joules = j[k::top::energy][k::energy::joules].get<double>();
  // One T4 at $0.35/h, its host at $0.10/h, 2 cores at $0.02/h, energy at $0.25/kWh.
  const double machines = T / 3600.0 * (0.35 + 0.10 + 2 * 0.02);
  const double energy = joules / 3.6e6 * 0.25;
  const double cost = machines + energy;
  REQUIRE(j.contains(k::top::cost));
  const auto& c = j[k::top::cost];
  CHECK(c[k::cost::per_event].get<double>() == Approx(cost / events).epsilon(1e-12));
  CHECK(c[k::cost::per_million_events].get<double>() == Approx(cost / events * 1e6).epsilon(1e-12));
  CHECK(c[k::cost::hourly].get<double>() == Approx(cost * 3600.0 / T).epsilon(1e-12));
  const auto& parts = c[k::cost::components];
  CHECK(parts[k::cost_component::devices].get<double>() == Approx(0.35));
  CHECK(parts[k::cost_component::hosts].get<double>() == Approx(0.10));
  CHECK(parts[k::cost_component::client_cores].get<double>() == Approx(0.04));
  CHECK(parts[k::cost_component::energy].get<double>() ==
        Approx(energy * 3600.0 / T).epsilon(1e-12));
  CHECK(parts[k::cost_component::egress].get<double>() == 0.0);
  double sum = 0.0;
  for (const auto& item : parts.items()) sum += item.value().get<double>();
  CHECK(sum == Approx(c[k::cost::hourly].get<double>()).epsilon(1e-12));
}

TEST_CASE("energy: a run whose requests reach no device draws idle power there", "[energy]") {
  // The pool hosts a model nobody asks for: every request falls back to the client's CPU.
  json doc = powered();
  doc["models"]["unused"] = doc["models"]["m"];
  doc["servers"][0]["models"] = {"unused"};
  const auto s = scenario_of(doc);
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto& m = out.metrics;
  const double T = m.span();
  CHECK(m.pools[0].utilization[0] == 0.0);
  const auto a = results::run_account(s, m);
  CHECK(a.joules[0] == Approx(T * kIdleW).epsilon(1e-12));
  CHECK(a.joules[1] == Approx(T * kHostIdleW).epsilon(1e-12));
  // A sync thread without a server does its whole event on its core: busy all the time.
  CHECK(m.workloads[0].cpu_busy_seconds == Approx(2 * T).epsilon(1e-9));
  CHECK(a.joules[2] == Approx(2 * T * kCoreBusyW).epsilon(1e-9));
}

TEST_CASE("energy: without power or prices the results have neither block", "[energy]") {
  // The T4 opts out of the device catalogue, which would give it power (docs/devices.md).
  json doc = deterministic(2, 1);
  doc["devices"] = {{"T4", {{"catalogue", false}}}};
  const auto s = scenario_of(doc);
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto j = test::results_of(s, out);
  CHECK_FALSE(j.contains(results::keys::top::energy));
  CHECK_FALSE(j.contains(results::keys::top::cost));
}

TEST_CASE("energy: a sweep has the energy and cost columns", "[energy][sweep]") {
  const auto s = scenario_of(powered());
  const auto out = runner::simulate(s, runner::TransportChoice{});
  const auto metrics = sweep::flatten_metrics(test::results_of(s, out));
  namespace k = results::keys;
  const auto has = [&](const std::string& name) {
    return std::any_of(metrics.begin(), metrics.end(),
                       [&](const auto& m) { return m.first == name; });
  };
  CHECK(has(results::column({k::top::energy, k::energy::per_event_j})));
  CHECK(has(
      results::column({k::top::energy, k::energy::components, k::energy_component::client_cores})));
  CHECK(has(results::column({k::top::cost, k::cost::per_event})));
  CHECK(has(results::column({k::top::cost, k::cost::components, k::cost_component::energy})));
}
