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
#include <sonicsim/util/format.hpp>

#include "site_contention.hpp"

namespace sonicsim::runner {

using detail::Load;

namespace {
// Why auto's flows are sonicsim's: the sharing is SimGrid's, checked against it, at a fraction
// of the cost (docs/model.md).
constexpr char kMaxMinWhy[] =
    "flows by sonicsim's max-min solver (CM02 sharing as SimGrid's; network.flow_model = "
    "simgrid runs SimGrid's own)";
}  // namespace

const char* flow_solver_name(FlowSolver s) {
  return s == FlowSolver::SimGrid ? "simgrid" : "max-min";
}

TransportChoice choose_transport(const scenario::Scenario& s, const analytic::Prediction& pr) {
  TransportChoice c;
  const auto& net = s.network;
  bool any_link = net.client_nic || net.site_uplink || net.wan || net.server_nic;
  for (const auto& site : s.sites)
    any_link = any_link || site.client_nic || site.site_uplink || site.server_nic;
  if (s.servers.empty() || (!any_link && s.wan.links.empty())) {
    c.reason = "no network traffic to share";
    return c;
  }
  // What each workload puts on the links, by the formulas. Several workloads are predicted each
  // alone, as if the servers were theirs: that overstates their rates, erring towards flows.
  const auto load_of = [](const scenario::Scenario& one, const analytic::Prediction& p) {
    const double events_per_s = p.mva ? p.mva->throughput_per_s : p.throughput_per_s;
    // An open loop past saturation has no finite time per event; its links still see the rate
    // the pools carry, judged against the unloaded event time.
    const double time_per_event_s = p.mva                        ? p.mva->time_per_event_s
                                    : std::isfinite(p.t_sonic_s) ? p.t_sonic_s
                                                                 : p.t_ideal_s;
    double remote = time_per_event_s - (1.0 - p.p) * p.t_cpu_s;
    if (!(remote > 0.0)) remote = time_per_event_s > 0.0 ? time_per_event_s : 1.0;
    return Load{events_per_s,
                remote,
                static_cast<double>(one.workload().n_nodes()),
                {p.bytes_in_per_event, p.bytes_out_per_event}};
  };
  std::vector<Load> loads;
  if (s.single_workload()) {
    loads.push_back(load_of(s, pr));
  } else {
    for (std::size_t w = 0; w < s.workloads.size(); ++w) {
      scenario::Scenario one = s;
      one.workloads = {s.workloads[w]};
      // The devices in its own nodes stay its own; those in other workloads' nodes are not there.
      for (auto& pool : one.servers)
        if (pool.attached == std::optional<std::size_t>(w)) {
          pool.attached = 0;
        } else if (pool.attached) {
          pool.attached.reset();
          pool.count = 0;
        }
      loads.push_back(load_of(one, analytic::predict(one)));
    }
  }
  int servers = 0;  // Triton servers, one server NIC each
  for (const auto& p : s.servers) servers += p.servers();

  // A transfer of S bytes over a link at utilization rho takes S/B/(1-rho) under processor
  // sharing instead of S/B: that excess, per workload and direction, is what the analytic path
  // leaves out.
  std::vector<std::array<double, 2>> excess(loads.size(), {0.0, 0.0});
  std::string worst, outage;
  // `per_node`: a NIC of one client node carries only its own workload's events.
  auto consider = [&](scenario::LinkClass link, bool per_node, double share) {
    const auto& spec = net.link(link);
    if (!spec) return;
    const char* name = scenario::link_class_name(link);
    // Judged at the link's worst degradation: contention there is what the flows must capture
    // (after an outage, the transfers it held all resume at once).
    double factor = 1.0;
    for (const auto& step : s.faults.link_factors(link)) factor = std::min(factor, step.second);
    if (factor <= 0.0) outage = name;
    const double capacity = factor > 0.0 ? spec->bandwidth * factor : spec->bandwidth;
    for (int d = 0; d < 2; ++d) {
      double shared = 0.0;  // bytes per second over one such link, all workloads
      for (const Load& l : loads) shared += l.events_per_s * share * l.bytes[d];
      for (std::size_t i = 0; i < loads.size(); ++i) {
        const Load& l = loads[i];
        const double rho =
            per_node ? l.events_per_s / l.nodes * l.bytes[d] / capacity : shared / capacity;
        if (rho > c.worst_link_utilization) {
          c.worst_link_utilization = rho;
          worst = std::string(name) + (d == 0 ? " (to servers)" : " (to clients)");
        }
        excess[i][d] += rho >= 1.0 || factor <= 0.0
                            ? std::numeric_limits<double>::infinity()
                            : l.bytes[d] / spec->bandwidth * rho / (1.0 - rho);
      }
    }
  };
  if (s.sites.empty()) {
    using scenario::LinkClass;
    consider(LinkClass::ClientNic, true, 0.0);
    consider(LinkClass::SiteUplink, false, 1.0);
    consider(LinkClass::Wan, false, 1.0);
    consider(LinkClass::ServerNic, false, servers > 0 ? 1.0 / servers : 0.0);
  } else {
    auto sites = detail::site_contention(s, loads);
    excess = std::move(sites.excess);
    c.worst_link_utilization = sites.worst_utilization;
    worst = std::move(sites.worst);
    outage = std::move(sites.outage);
  }
  // The workload the analytic path would serve worst decides.
  double error[2] = {0.0, 0.0};
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const double e[2] = {excess[i][0] / loads[i].remote_s, excess[i][1] / loads[i].remote_s};
    if (i == 0 || e[0] + e[1] > c.predicted_error) {
      c.predicted_error = e[0] + e[1];
      error[0] = e[0];
      error[1] = e[1];
    }
  }

  if (net.flow_model == scenario::FlowModel::Flow) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.reason = "network.flow_model = flow: every payload a flow (sonicsim's max-min solver)";
    return c;
  }
  if (net.flow_model == scenario::FlowModel::SimGrid) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.solver = FlowSolver::SimGrid;
    c.reason = "network.flow_model = simgrid: every payload a SimGrid flow";
    return c;
  }
  if (net.flow_model == scenario::FlowModel::Analytic) {
    c.reason = "network.flow_model = analytic";
    return c;
  }
  const std::string load = "busiest link " + (worst.empty() ? std::string("none") : worst) +
                           " at " + util::percent(c.worst_link_utilization, "%.3g") +
                           " predicted utilization";
  const double tol = net.auto_tolerance;
  if (c.predicted_error <= tol) {
    c.reason = "links lightly loaded (" + load +
               "); contention would change the remote time per event by " +
               util::percent(c.predicted_error, "%.3g");
    return c;
  }
  // Model the direction that matters most with flows; the other too if it alone is too much.
  const int major = error[0] >= error[1] ? 0 : 1;
  const bool both = error[1 - major] > tol;
  c.flow_to_servers = major == 0 || both;
  c.flow_to_clients = major == 1 || both;
  auto pct = [](double x) {
    return std::isfinite(x) ? util::percent(x, "%.3g") : std::string("over 100%");
  };
  if (!outage.empty()) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.reason = "an outage of " + outage + " (faults): the transfers it holds resume together; " +
               kMaxMinWhy;
    return c;
  }
  c.reason = "contention (" + load + ") would change the remote time per event by " +
             pct(c.predicted_error) + ", above network.auto_tolerance; analytic error left: " +
             (both ? std::string("none") : pct(error[1 - major])) + "; " + kMaxMinWhy;
  return c;
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
  RunOutput out;
  out.estimated_peak_rss_bytes = estimate.bytes;
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
  out.metrics = sim.finish();
  out.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.peak_rss_bytes = peak_rss_bytes();
  return out;
}

}  // namespace sonicsim::runner
