#include <sonicsim/runner/runner.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <sonicsim/flows/fluid_network.hpp>
#include <sonicsim/platform/flow_network.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/util/format.hpp>

#include "site_contention.hpp"

namespace sonicsim::runner {

const char* flow_solver_name(FlowSolver s) {
  return s == FlowSolver::SimGrid ? "simgrid" : "max-min";
}

long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024L;
}

RunOutput simulate(const scenario::Scenario& s, const TransportChoice& transport,
                   const engine::TraceSettings& trace, const engine::Watch& watch,
                   const std::vector<MemoryPart>& outputs) {
  // Before the engine allocates anything: a count the user did not mean is refused in
  // milliseconds, not found by the kernel's out-of-memory killer.
  const MemoryEstimate estimate = estimate_memory(s, trace, outputs);
  check_memory_budget(s, estimate);
  const WorkEstimate work = estimate_work(s);
  check_time_budget(s, work);
  RunOutput out;
  out.estimated_peak_rss_bytes = estimate.bytes;
  out.estimated_events = work.events;
  out.transport = transport;
  const auto t0 = std::chrono::steady_clock::now();
  engine::Simulation sim(s);
  sim.set_trace(trace);
  sim.set_watch(watch);
  // Flows: the network drives the loop (it knows when the next transfer event is).
  const auto drive = [&](auto& network) {
    sim.set_transport(&network, transport.flow_to_servers, transport.flow_to_clients);
    network.drive(s.duration);
  };
  if (!transport.any_flow()) {
    sim.run();
  } else if (transport.solver == FlowSolver::MaxMin) {
    flows::FluidNetwork network(s, sim, sim);
    drive(network);
    out.flow_solver = network.counters();
  } else {
    platform::FlowNetwork network(s, sim, sim);
    drive(network);
  }
  out.events_processed = sim.events_processed();
  out.metrics = sim.finish();
  out.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.peak_rss_bytes = peak_rss_bytes();
  return out;
}

RunOutput run_checked(const scenario::Scenario& s, const analytic::Prediction& p,
                      const engine::TraceSettings& trace, const engine::Watch& watch,
                      const std::vector<MemoryPart>& outputs) {
  TransportChoice choice = choose_transport(s, p);
  double wall = 0.0;
  for (int attempt = 0;; ++attempt) {
    RunOutput out = simulate(s, choice, trace, watch, outputs);
    wall += out.wall_time_s;
    TransportCheck check = check_transport(s, p, out.transport, out.metrics);
    out.transport.observed_link_utilization = check.observed_utilization;
    if (!check.rerun) {
      out.wall_time_s = wall;
      return out;
    }
    choice = std::move(*check.rerun);
    // The second rerun leaves nothing to the analytic path: no third judgement is needed.
    if (attempt == 1) choice.flow_to_servers = choice.flow_to_clients = true;
  }
}

}  // namespace sonicsim::runner
