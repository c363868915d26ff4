#include "site_contention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <sonicsim/scenario/sites.hpp>

namespace sonicsim::runner::detail {

namespace {

using scenario::LinkClass;
using scenario::SiteRouting;

// One link: its bandwidth, worst degradation, and what crosses it.
struct LinkUse {
  std::string name;
  double bandwidth = 0.0, factor = 1.0;
  bool per_node = false;  // a client NIC: each carries its own node's events alone
  std::array<std::string, 2> directions = {"to servers", "to clients"};  // physical, as named
  // (workload, payload direction, physical direction, fraction of the workload's events through
  // one such link, fraction of its events through a link of this kind)
  struct Use {
    std::size_t workload;
    int payload, physical;
    double through_one, crossing;
  };
  std::vector<Use> uses;
};

double worst_factor(const std::vector<std::pair<double, double>>& steps) {
  double factor = 1.0;
  for (const auto& step : steps) factor = std::min(factor, step.second);
  return factor;
}

}  // namespace

Contention site_contention(const scenario::Scenario& s, const std::vector<Load>& loads) {
  const std::size_t n = s.sites.size();
  // flows[w][a][b]: the fraction of workload w's events sent from site a to site b.
  std::vector<std::vector<std::vector<double>>> flows(
      s.workloads.size(), std::vector<std::vector<double>>(n, std::vector<double>(n, 0.0)));
  std::vector<std::vector<double>> node_share(s.workloads.size(), std::vector<double>(n, 0.0));
  for (std::size_t w = 0; w < s.workloads.size(); ++w) {
    const auto& wl = s.workloads[w];
    const auto counts = scenario::apportion_nodes(wl.n_nodes(), wl.sites);
    const SiteRouting& r = wl.routing ? *wl.routing : s.routing;
    for (std::size_t k = 0; k < wl.sites.size(); ++k) {
      const std::size_t a = wl.sites[k].site;
      const double at = static_cast<double>(counts[k]) / static_cast<double>(wl.n_nodes());
      node_share[w][a] += at;
      for (const auto& q : wl.requests) {
        const auto to = scenario::light_load_shares(s, r, a, q.model);
        for (std::size_t b = 0; b < n; ++b)
          flows[w][a][b] += at * to[b] / static_cast<double>(wl.requests.size());
      }
    }
  }
  std::vector<double> servers_at(n, 0.0);
  for (const auto& pool : s.servers) servers_at[pool.site] += pool.servers();

  std::vector<LinkUse> links;
  std::vector<int> uplink(n, -1);
  for (std::size_t a = 0; a < n; ++a) {
    const auto& site = s.sites[a];
    const int ia = static_cast<int>(a);
    if (const auto& nic = site.client_nic) {
      LinkUse l{site.name + "/client_nic",
                nic->bandwidth,
                worst_factor(s.faults.site_link_factors(ia, LinkClass::ClientNic)),
                true,
                {"to servers", "to clients"},
                {}};
      for (std::size_t w = 0; w < loads.size(); ++w)
        if (node_share[w][a] > 0.0)
          for (int d = 0; d < 2; ++d)
            l.uses.push_back({w, d, d, 1.0 / loads[w].nodes, node_share[w][a]});
      links.push_back(std::move(l));
    }
    if (const auto& nic = site.server_nic; nic && servers_at[a] > 0.0) {
      LinkUse l{site.name + "/server_nic",
                nic->bandwidth,
                worst_factor(s.faults.site_link_factors(ia, LinkClass::ServerNic)),
                false,
                {"to servers", "to clients"},
                {}};
      for (std::size_t w = 0; w < loads.size(); ++w) {
        double in = 0.0;
        for (std::size_t b = 0; b < n; ++b) in += flows[w][b][a];
        if (in > 0.0)
          for (int d = 0; d < 2; ++d) l.uses.push_back({w, d, d, in / servers_at[a], in});
      }
      links.push_back(std::move(l));
    }
    if (const auto& up = site.site_uplink) {
      uplink[a] = static_cast<int>(links.size());
      links.push_back({site.name + "/site_uplink",
                       up->bandwidth,
                       worst_factor(s.faults.site_link_factors(ia, LinkClass::SiteUplink)),
                       false,
                       {"out of the site", "into the site"},
                       {}});
    }
  }
  const std::size_t first_wan = links.size();
  const auto point = [&s](std::size_t p) {
    return p < s.sites.size() ? s.sites[p].name : s.wan.routers[p - s.sites.size()];
  };
  for (std::size_t l = 0; l < s.wan.links.size(); ++l) {
    const auto& link = s.wan.links[l];
    links.push_back(
        {"wan/" + link.name,
         link.spec.bandwidth,
         worst_factor(s.faults.wan_link_factors(static_cast<int>(l))),
         false,
         {point(link.a) + " to " + point(link.b), point(link.b) + " to " + point(link.a)},
         {}});
  }
  // Between sites: out of a's uplink (forward), the WAN links as walked, into b's (backward);
  // the answers the same way back, each link in its other direction.
  for (std::size_t w = 0; w < loads.size(); ++w)
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b) {
        const double f = flows[w][a][b];
        if (a == b || f <= 0.0) continue;
        auto cross = [&](std::size_t link, int forward) {
          for (int d = 0; d < 2; ++d)
            links[link].uses.push_back({w, d, d == 0 ? forward : 1 - forward, f, f});
        };
        if (uplink[a] >= 0) cross(static_cast<std::size_t>(uplink[a]), 0);
        for (const auto& h : s.routes[a][b].hops) cross(first_wan + h.link, h.forward ? 0 : 1);
        if (uplink[b] >= 0) cross(static_cast<std::size_t>(uplink[b]), 1);
      }

  Contention c;
  c.excess.assign(loads.size(), {0.0, 0.0});
  for (const LinkUse& l : links) {
    if (l.factor <= 0.0 && c.outage.empty()) c.outage = l.name;
    const double capacity = l.factor > 0.0 ? l.bandwidth * l.factor : l.bandwidth;
    double shared[2] = {0.0, 0.0};  // bytes per second, each physical direction
    for (const auto& u : l.uses)
      shared[u.physical] +=
          loads[u.workload].events_per_s * u.through_one * loads[u.workload].bytes[u.payload];
    for (const auto& u : l.uses) {
      const Load& load = loads[u.workload];
      const double rho = l.per_node
                             ? load.events_per_s * u.through_one * load.bytes[u.payload] / capacity
                             : shared[u.physical] / capacity;
      if (rho > c.worst_utilization) {
        c.worst_utilization = rho;
        c.worst = l.name + " (" + l.directions[u.physical] + ")";
      }
      c.excess[u.workload][u.payload] +=
          rho >= 1.0 || l.factor <= 0.0
              ? std::numeric_limits<double>::infinity()
              : u.crossing * load.bytes[u.payload] / l.bandwidth * rho / (1.0 - rho);
    }
  }
  return c;
}

}  // namespace sonicsim::runner::detail
