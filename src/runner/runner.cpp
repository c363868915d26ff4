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

TransportChoice choose_transport(const scenario::Scenario& s, const analytic::Prediction& pr) {
  TransportChoice c;
  const auto& net = s.network;
  if (s.servers.empty() || (!net.client_nic && !net.site_uplink && !net.wan && !net.server_nic)) {
    c.reason = "no network traffic to share";
    return c;
  }
  const double events_per_s = pr.mva ? pr.mva->throughput_per_s : pr.throughput_per_s;
  // An open loop past saturation has no finite time per event; its links still see the rate
  // the pools carry, judged against the unloaded event time.
  const double time_per_event_s = pr.mva                        ? pr.mva->time_per_event_s
                                  : std::isfinite(pr.t_sonic_s) ? pr.t_sonic_s
                                                                : pr.t_ideal_s;
  const double bytes[2] = {pr.bytes_in_per_event, pr.bytes_out_per_event};
  const double threads = static_cast<double>(s.workload.n_threads());
  const double per_node = threads / static_cast<double>(s.workload.n_nodes());
  int devices = 0;
  for (const auto& p : s.servers) devices += p.count;

  // A transfer of S bytes over a link at utilization rho takes S/B/(1-rho) under processor
  // sharing instead of S/B: that excess, per direction, is what the analytic path leaves out.
  double excess[2] = {0.0, 0.0};
  std::string worst, outage;
  auto consider = [&](const std::optional<scenario::LinkSpec>& spec, const char* name,
                      double share) {
    if (!spec) return;
    const double rate = events_per_s * share;  // events per second crossing one such link
    // Judged at the link's worst degradation: contention there is what the flows must capture
    // (after an outage, the transfers it held all resume at once).
    double factor = 1.0;
    for (const auto& step : s.faults.link_factors(name)) factor = std::min(factor, step.second);
    if (factor <= 0.0) outage = name;
    for (int d = 0; d < 2; ++d) {
      const double rho = factor > 0.0 ? rate * bytes[d] / (spec->bandwidth * factor)
                                      : rate * bytes[d] / spec->bandwidth;
      if (rho > c.worst_link_utilization) {
        c.worst_link_utilization = rho;
        worst = std::string(name) + (d == 0 ? " (to servers)" : " (to clients)");
      }
      excess[d] += rho >= 1.0 || factor <= 0.0 ? std::numeric_limits<double>::infinity()
                                               : bytes[d] / spec->bandwidth * rho / (1.0 - rho);
    }
  };
  consider(net.client_nic, "client_nic", per_node / threads);
  consider(net.site_uplink, "site_uplink", 1.0);
  consider(net.wan, "wan", 1.0);
  consider(net.server_nic, "server_nic", devices > 0 ? 1.0 / devices : 0.0);
  const double cpu = (1.0 - pr.p) * pr.t_cpu_s;
  double remote = time_per_event_s - cpu;
  if (!(remote > 0.0)) remote = time_per_event_s > 0.0 ? time_per_event_s : 1.0;
  const double error[2] = {excess[0] / remote, excess[1] / remote};
  c.predicted_error = error[0] + error[1];

  if (net.flow_model == scenario::FlowModel::Flow) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.reason = "network.flow_model = flow: every payload a flow";
    return c;
  }
  if (net.flow_model == scenario::FlowModel::Analytic) {
    c.reason = "network.flow_model = analytic";
    return c;
  }
  const std::string load = "busiest link " + (worst.empty() ? std::string("none") : worst) +
                           " at " + percent(c.worst_link_utilization) + " predicted utilization";
  const double tol = net.auto_tolerance;
  if (c.predicted_error <= tol) {
    c.reason = "links lightly loaded (" + load +
               "); contention would change the remote time per event by " +
               percent(c.predicted_error);
    return c;
  }
  // Model the direction that matters most with flows; the other too if it alone is too much.
  const int major = error[0] >= error[1] ? 0 : 1;
  const bool both = error[1 - major] > tol;
  c.flow_to_servers = major == 0 || both;
  c.flow_to_clients = major == 1 || both;
  auto pct = [](double x) { return std::isfinite(x) ? percent(x) : std::string("over 100%"); };
  if (!outage.empty()) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.reason = "an outage of " + outage + " (faults): the transfers it holds resume together";
    return c;
  }
  c.reason = "contention (" + load + ") would change the remote time per event by " +
             pct(c.predicted_error) + ", above network.auto_tolerance; analytic error left: " +
             (both ? std::string("none") : pct(error[1 - major]));
  return c;
}

long peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss * 1024L;
}

RunOutput simulate(const scenario::Scenario& s, const TransportChoice& transport,
                   const engine::TraceSettings& trace) {
  RunOutput out;
  out.transport = transport;
  const auto t0 = std::chrono::steady_clock::now();
  engine::Simulation sim(s);
  sim.set_trace(trace);
  if (transport.any_flow()) {
    platform::FlowNetwork network(s, sim, sim);
    sim.set_transport(&network, transport.flow_to_servers, transport.flow_to_clients);
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
