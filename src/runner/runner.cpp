#include <sonicsim/runner/runner.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <sonicsim/platform/flow_network.hpp>

namespace sonicsim::runner {

namespace {

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * x);
  return buf;
}

}  // namespace

TransportChoice choose_transport(const scenario::Scenario& s, double events_per_s,
                                 double time_per_event_s) {
  TransportChoice c;
  const auto& net = s.network;
  if (s.servers.empty() || (!net.client_nic && !net.site_uplink && !net.wan && !net.server_nic)) {
    c.reason = "no network traffic to share";
    return c;
  }
  if (net.flow_model == scenario::FlowModel::Flow) {
    c.flow = true;
    c.reason = "network.flow_model = flow";
  } else if (net.flow_model == scenario::FlowModel::Analytic) {
    c.reason = "network.flow_model = analytic";
  }

  // Bytes per event in each direction, over the served requests.
  double up = 0.0, down = 0.0;
  for (const auto& r : s.workload.requests) {
    if (s.devices_hosting(r.model) == 0) continue;
    const auto* m = s.find_model(r.model);
    const double items = std::max(1.0, r.items.expected());
    up += r.per_event * items * m->input_bytes_per_item;
    down += r.per_event * items * m->output_bytes_per_item;
  }
  const double threads = static_cast<double>(s.workload.n_threads());
  const double per_node = threads / static_cast<double>(s.workload.n_nodes());
  int devices = 0;
  for (const auto& p : s.servers) devices += p.count;

  // A transfer of S bytes over a link at utilization rho takes S/B/(1-rho) under processor
  // sharing instead of S/B: that excess is what the analytic path leaves out.
  double excess = 0.0;
  std::string worst;
  auto consider = [&](const std::optional<scenario::LinkSpec>& spec, const char* name,
                      double share) {
    if (!spec) return;
    const double rate = events_per_s * share;  // events per second crossing one such link
    const double rho = std::max(rate * up, rate * down) / spec->bandwidth;
    if (rho > c.worst_link_utilization) {
      c.worst_link_utilization = rho;
      worst = name;
    }
    if (rho >= 1.0) {
      excess = std::numeric_limits<double>::infinity();
      return;
    }
    const double per_event = (up + down) / spec->bandwidth;
    excess += per_event * rho / (1.0 - rho);
  };
  consider(net.client_nic, "client_nic", per_node / threads);
  consider(net.site_uplink, "site_uplink", 1.0);
  consider(net.wan, "wan", 1.0);
  consider(net.server_nic, "server_nic", devices > 0 ? 1.0 / devices : 0.0);
  c.predicted_error = time_per_event_s > 0.0 ? excess / time_per_event_s : 0.0;

  if (net.flow_model != scenario::FlowModel::Auto) return c;
  if (c.predicted_error > net.auto_tolerance) {
    c.flow = true;
    c.reason = "contention on " + worst + " (predicted utilization " +
               percent(c.worst_link_utilization) + ") would change the time per event by " +
               (std::isfinite(c.predicted_error) ? percent(c.predicted_error) : "more than 100%") +
               ", above network.auto_tolerance";
  } else {
    c.reason = "links lightly loaded (busiest: " + (worst.empty() ? std::string("none") : worst) +
               " at " + percent(c.worst_link_utilization) +
               "); contention would change the time per event by " + percent(c.predicted_error);
  }
  return c;
}

long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024L;
}

RunOutput simulate(const scenario::Scenario& s, const TransportChoice& transport) {
  RunOutput out;
  out.transport = transport;
  const auto t0 = std::chrono::steady_clock::now();
  engine::Simulation sim(s);
  if (transport.flow) {
    platform::FlowNetwork network(s, sim, sim);
    sim.set_transport(&network, "flow");
    network.drive(s.duration);
    out.metrics = sim.finish();
  } else {
    sim.run();
    out.metrics = sim.finish();
  }
  out.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.peak_rss_bytes = peak_rss_bytes();
  return out;
}

}  // namespace sonicsim::runner
