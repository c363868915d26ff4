// The transport choice of `network.flow_model: auto`, before the run and after it.
//
// Before: each link direction's utilization from a bound on the load the run can carry (the
// formula's and MVA's asymptotic throughput, never below MVA's own), not from MVA's estimate:
// near the knee MVA's exponential queues understate a near-deterministic system's throughput,
// and a link it puts at 93% then carries 113%. After: the same judgement at the event rates the
// run really had; a direction the run kept analytic and its own loads now condemn is run again
// with flows (runner.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <sonicsim/runner/runner.hpp>
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

std::string pct(double x) {
  return std::isfinite(x) ? util::percent(x, "%.3g") : std::string("over 100%");
}

bool any_link(const scenario::Scenario& s) {
  const auto& net = s.network;
  bool any = net.client_nic || net.site_uplink || net.wan || net.server_nic;
  for (const auto& site : s.sites)
    any = any || site.client_nic || site.site_uplink || site.server_nic;
  return any || !s.wan.links.empty();
}

// One workload's load by the analytic models, bounded towards more traffic: the largest
// throughput any of them allows and the shortest time per event.
Load bounded_load(const scenario::Scenario& one, const analytic::Prediction& p) {
  double events_per_s = p.throughput_per_s;
  double time_per_event_s = std::isfinite(p.t_sonic_s) ? p.t_sonic_s : p.t_ideal_s;
  if (p.mva) {
    events_per_s =
        std::max({events_per_s, p.mva->throughput_per_s, p.mva->bounds.asymptotic_upper});
    time_per_event_s = std::min(time_per_event_s, p.mva->time_per_event_s);
    if (p.n_cpu > 0 && events_per_s > 0.0)
      time_per_event_s = std::min(time_per_event_s, static_cast<double>(p.n_cpu) / events_per_s);
  }
  double remote = time_per_event_s - (1.0 - p.p) * p.t_cpu_s;
  if (!(remote > 0.0)) remote = time_per_event_s > 0.0 ? time_per_event_s : 1.0;
  return Load{events_per_s,
              remote,
              static_cast<double>(one.workload().n_nodes()),
              {p.bytes_in_per_event, p.bytes_out_per_event}};
}

// The judgement of one set of loads: per payload direction, the time the analytic path leaves
// out of the remote part of an event, for the workload it would serve worst.
struct Judgement {
  double error[2] = {0.0, 0.0};
  double total = 0.0;
  double worst_utilization = 0.0;
  std::string worst, outage;
};

Judgement judge(const scenario::Scenario& s, const std::vector<Load>& loads) {
  Judgement j;
  const auto& net = s.network;
  int servers = 0;  // Triton servers, one server NIC each
  for (const auto& p : s.servers) servers += p.servers();

  // A transfer of S bytes over a link at utilization rho takes S/B/(1-rho) under processor
  // sharing instead of S/B: that excess, per workload and direction, is what the analytic path
  // leaves out.
  std::vector<std::array<double, 2>> excess(loads.size(), {0.0, 0.0});
  // `per_node`: a NIC of one client node carries only its own workload's events.
  auto consider = [&](scenario::LinkClass link, bool per_node, double share) {
    const auto& spec = net.link(link);
    if (!spec) return;
    const char* name = scenario::link_class_name(link);
    // Judged at the link's worst degradation: contention there is what the flows must capture
    // (after an outage, the transfers it held all resume at once).
    double factor = 1.0;
    for (const auto& step : s.faults.link_factors(link)) factor = std::min(factor, step.second);
    if (factor <= 0.0) j.outage = name;
    const double capacity = factor > 0.0 ? spec->bandwidth * factor : spec->bandwidth;
    for (int d = 0; d < 2; ++d) {
      double shared = 0.0;  // bytes per second over one such link, all workloads
      for (const Load& l : loads) shared += l.events_per_s * share * l.bytes[d];
      for (std::size_t i = 0; i < loads.size(); ++i) {
        const Load& l = loads[i];
        const double rho =
            per_node ? l.events_per_s / l.nodes * l.bytes[d] / capacity : shared / capacity;
        if (rho > j.worst_utilization) {
          j.worst_utilization = rho;
          j.worst = std::string(name) + (d == 0 ? " (to servers)" : " (to clients)");
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
    j.worst_utilization = sites.worst_utilization;
    j.worst = std::move(sites.worst);
    j.outage = std::move(sites.outage);
  }
  // The workload the analytic path would serve worst decides.
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const double e[2] = {excess[i][0] / loads[i].remote_s, excess[i][1] / loads[i].remote_s};
    if (i == 0 || e[0] + e[1] > j.total) {
      j.total = e[0] + e[1];
      j.error[0] = e[0];
      j.error[1] = e[1];
    }
  }
  return j;
}

std::string busiest(const Judgement& j, const char* how) {
  return "busiest link " + (j.worst.empty() ? std::string("none") : j.worst) + " at " +
         util::percent(j.worst_utilization, "%.3g") + " " + how + " utilization";
}

std::vector<Load> predicted_loads(const scenario::Scenario& s, const analytic::Prediction& pr) {
  std::vector<Load> loads;
  if (s.single_workload()) {
    loads.push_back(bounded_load(s, pr));
    return loads;
  }
  // Several workloads are predicted each alone, as if the servers were theirs: that overstates
  // their rates, erring towards flows.
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
    loads.push_back(bounded_load(one, analytic::predict(one)));
  }
  return loads;
}

}  // namespace

TransportChoice choose_transport(const scenario::Scenario& s, const analytic::Prediction& pr) {
  TransportChoice c;
  const auto& net = s.network;
  if (s.servers.empty() || !any_link(s)) {
    c.reason = "no network traffic to share";
    return c;
  }
  const Judgement j = judge(s, predicted_loads(s, pr));
  c.worst_link_utilization = j.worst_utilization;
  c.predicted_error = j.total;

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
  const double tol = net.auto_tolerance;
  const std::string load = busiest(j, "predicted");
  if (j.total <= tol) {
    c.reason = "links lightly loaded (" + load +
               ", at the most traffic the devices allow); contention would change the remote "
               "time per event by at most " +
               util::percent(j.total, "%.3g");
    return c;
  }
  if (!j.outage.empty()) {
    c.flow_to_servers = c.flow_to_clients = true;
    c.reason = "an outage of " + j.outage + " (faults): the transfers it holds resume together; " +
               kMaxMinWhy;
    return c;
  }
  // Model the direction that matters most with flows; the other too if it alone is too much.
  const int major = j.error[0] >= j.error[1] ? 0 : 1;
  const bool both = j.error[1 - major] > tol;
  c.flow_to_servers = major == 0 || both;
  c.flow_to_clients = major == 1 || both;
  c.reason = "contention (" + load + ") would change the remote time per event by up to " +
             pct(j.total) + ", above network.auto_tolerance; analytic error left: " +
             (both ? std::string("none") : pct(j.error[1 - major])) + "; " + kMaxMinWhy;
  return c;
}

TransportCheck check_transport(const scenario::Scenario& s, const analytic::Prediction& pr,
                               const TransportChoice& used, const engine::RunMetrics& m) {
  TransportCheck check;
  if (s.network.flow_model != scenario::FlowModel::Auto) return check;
  if (s.servers.empty() || !any_link(s) || !(m.span() > 0.0)) return check;
  // The predicted loads at the event rates the run had: the bytes per event and the remote time
  // stay the bounds above (the shortest remote time, erring towards flows).
  std::vector<Load> loads = predicted_loads(s, pr);
  for (std::size_t w = 0; w < loads.size() && w < m.workloads.size(); ++w)
    loads[w].events_per_s = static_cast<double>(m.workloads[w].events_completed) / m.span();
  const Judgement j = judge(s, loads);
  check.observed_utilization = j.worst_utilization;
  const double tol = s.network.auto_tolerance;
  const bool to_servers = !used.flow_to_servers && j.error[0] > tol;
  const bool to_clients = !used.flow_to_clients && j.error[1] > tol;
  if (!to_servers && !to_clients) return check;
  TransportChoice c = used;
  c.flow_to_servers = used.flow_to_servers || to_servers;
  c.flow_to_clients = used.flow_to_clients || to_clients;
  c.solver = FlowSolver::MaxMin;
  const char* which = to_servers && to_clients ? "both directions"
                      : to_servers             ? "the direction to the servers"
                                               : "the direction to the clients";
  const double error = std::max(to_servers ? j.error[0] : 0.0, to_clients ? j.error[1] : 0.0);
  c.reason = used.reason + "; then checked against the run, which carried " +
             busiest(j, "observed") + ": contention would change the remote time per event by " +
             pct(error) + " in " + which + ", so that run was discarded and run again with " +
             (c.any_flow() && !used.any_flow() ? std::string(kMaxMinWhy) : "flows there too");
  ++c.runs;
  check.rerun = std::move(c);
  return check;
}

}  // namespace sonicsim::runner
