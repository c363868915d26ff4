#include <sonicsim/scenario/sites.hpp>

#include <sonicsim/scenario/scenario.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

namespace sonicsim::scenario {

namespace {

// A point's best path so far: latency first, then the number of links, then the number of the
// link it was reached by, so that equal-latency routes come out the same on every machine.
struct Best {
  double latency = std::numeric_limits<double>::infinity();
  std::size_t hops = 0;
  std::size_t via = std::numeric_limits<std::size_t>::max();  // the last link, max: none
  bool operator<(const Best& o) const {
    return std::tie(latency, hops, via) < std::tie(o.latency, o.hops, o.via);
  }
};

// Dijkstra from one site over the WAN graph (sites and routers): O(links log points).
std::vector<Best> shortest_from(std::size_t source, std::size_t points, const Wan& wan,
                                const std::vector<std::vector<std::size_t>>& touching) {
  std::vector<Best> best(points);
  std::vector<bool> done(points, false);
  best[source].latency = 0.0;
  using Entry = std::pair<Best, std::size_t>;
  auto later = [](const Entry& x, const Entry& y) { return y < x; };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> open(later);
  open.push({best[source], source});
  while (!open.empty()) {
    const std::size_t at = open.top().second;
    open.pop();
    if (done[at]) continue;
    done[at] = true;
    for (std::size_t l : touching[at]) {
      const WanLink& link = wan.links[l];
      const std::size_t next = link.a == at ? link.b : link.a;
      if (done[next]) continue;
      const Best candidate{best[at].latency + link.spec.latency, best[at].hops + 1, l};
      if (candidate < best[next]) {
        best[next] = candidate;
        open.push({candidate, next});
      }
    }
  }
  return best;
}

}  // namespace

std::vector<std::vector<Route>> derive_routes(std::size_t sites, const Wan& wan) {
  const std::size_t points = sites + wan.routers.size();
  std::vector<std::vector<std::size_t>> touching(points);
  for (std::size_t l = 0; l < wan.links.size(); ++l) {
    touching[wan.links[l].a].push_back(l);
    touching[wan.links[l].b].push_back(l);
  }
  std::vector<std::vector<Route>> routes(sites, std::vector<Route>(sites));
  for (std::size_t from = 0; from < sites; ++from) {
    const std::vector<Best> best = shortest_from(from, points, wan, touching);
    for (std::size_t to = from; to < sites; ++to) {
      Route& r = routes[from][to];
      if (!std::isfinite(best[to].latency)) continue;
      r.exists = true;
      r.latency = best[to].latency;
      // Walk back from `to` along the links that reached each point: a link entered at its `b`
      // end is crossed forward (from `a`).
      for (std::size_t at = to; at != from;) {
        const WanLink& link = wan.links[best[at].via];
        r.hops.push_back({best[at].via, link.b == at && link.a != at});
        r.bandwidth = std::min(r.bandwidth, link.spec.bandwidth);
        at = link.a == at ? link.b : link.a;
      }
      std::reverse(r.hops.begin(), r.hops.end());
    }
  }
  // The route back is the same links reversed: on a tie the search from the other end could
  // pick another path, and a request must come back the way it went.
  for (std::size_t from = 0; from < sites; ++from)
    for (std::size_t to = from + 1; to < sites; ++to) {
      routes[to][from] = routes[from][to];
      auto& back = routes[to][from].hops;
      std::reverse(back.begin(), back.end());
      for (WanHop& h : back) h.forward = !h.forward;
    }
  return routes;
}

PathFigures path_between(const Scenario& s, std::size_t from, std::size_t to) {
  PathFigures p;
  const auto cross = [&p](const std::optional<LinkSpec>& l) {
    if (!l) return;
    p.latency += l->latency;
    p.bandwidth = std::min(p.bandwidth, l->bandwidth);
  };
  cross(s.sites[from].client_nic);
  cross(s.sites[to].server_nic);
  if (from == to) return p;
  cross(s.sites[from].site_uplink);
  cross(s.sites[to].site_uplink);
  const Route& r = s.routes[from][to];
  p.latency += r.latency;
  p.bandwidth = std::min(p.bandwidth, r.bandwidth);
  return p;
}

std::vector<std::int64_t> apportion_nodes(std::int64_t nodes,
                                          const std::vector<SiteShare>& shares) {
  std::vector<std::int64_t> counts(shares.size(), 0);
  if (shares.empty()) return counts;
  std::vector<std::pair<double, std::size_t>> remainders;
  std::int64_t placed = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    const double exact = static_cast<double>(nodes) * shares[i].share;
    counts[i] = static_cast<std::int64_t>(std::floor(exact));
    placed += counts[i];
    remainders.push_back({exact - static_cast<double>(counts[i]), i});
  }
  // Largest remainder first; equal remainders in the order the sites are listed.
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (std::size_t k = 0; placed < nodes; k = (k + 1) % remainders.size(), ++placed)
    ++counts[remainders[k].second];
  return counts;
}

std::vector<std::uint32_t> client_node_sites(const Scenario& s) {
  std::vector<std::uint32_t> sites;
  for (const auto& w : s.workloads) {
    if (s.sites.empty()) {
      sites.insert(sites.end(), static_cast<std::size_t>(w.n_nodes()), 0);
      continue;
    }
    const auto counts = apportion_nodes(w.n_nodes(), w.sites);
    for (std::size_t k = 0; k < counts.size(); ++k)
      sites.insert(sites.end(), static_cast<std::size_t>(counts[k]),
                   static_cast<std::uint32_t>(w.sites[k].site));
  }
  return sites;
}

std::vector<std::uint32_t> device_sites(const Scenario& s) {
  std::vector<std::uint32_t> sites;
  std::vector<std::uint32_t> nodes;  // of the workloads before the attached pool's
  for (const auto& pool : s.servers) {
    if (!pool.attached) {
      sites.insert(sites.end(), static_cast<std::size_t>(pool.count),
                   static_cast<std::uint32_t>(pool.site));
      continue;
    }
    // An attached pool's devices are its workload's nodes, in node order.
    if (nodes.empty()) nodes = client_node_sites(s);
    const std::size_t first = first_node_of(s, *pool.attached);
    sites.insert(sites.end(), nodes.begin() + static_cast<std::ptrdiff_t>(first),
                 nodes.begin() + static_cast<std::ptrdiff_t>(first + pool.count));
  }
  return sites;
}

std::size_t first_node_of(const Scenario& s, std::size_t workload) {
  std::size_t first = 0;
  for (std::size_t w = 0; w < workload; ++w)
    first += static_cast<std::size_t>(s.workloads[w].n_nodes());
  return first;
}

std::vector<double> light_load_shares(const Scenario& sc, const SiteRouting& r, std::size_t from,
                                      const std::string& model) {
  using Policy = SiteRouting::Policy;
  const std::size_t n = sc.sites.size();
  std::vector<bool> hosts(n, false);
  for (const auto& pool : sc.servers)
    if (!pool.attached && sc.routes[from][pool.site].exists &&
        std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end())
      hosts[pool.site] = true;
  std::vector<double> share(n, 0.0);
  if (r.policy == Policy::Pinned) {
    share[r.pinned] = 1.0;
    return share;
  }
  if (r.policy == Policy::Weighted) {
    double total = 0.0;
    for (std::size_t s = 0; s < n; ++s)
      if (hosts[s]) total += r.weights[s];
    for (std::size_t s = 0; s < n; ++s)
      if (hosts[s] && total > 0.0) share[s] = r.weights[s] / total;
    if (total > 0.0) return share;
  }
  if (r.policy == Policy::LocalFirst && hosts[from]) {
    share[from] = 1.0;
    return share;
  }
  // The nearest site hosting the model; ties go to the site listed first (as the engine).
  std::size_t best = n;
  double best_rtt = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < n; ++s) {
    if (!hosts[s] || (r.policy == Policy::LocalFirst && s == from)) continue;
    const double rtt = 2.0 * path_between(sc, from, s).latency;
    if (rtt < best_rtt) {
      best_rtt = rtt;
      best = s;
    }
  }
  if (best < n) share[best] = 1.0;
  return share;
}

}  // namespace sonicsim::scenario
