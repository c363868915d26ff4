// The SONIC formula with several sites (docs/sites.md#the-formula): t_latency per site.
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::analytic {

namespace {

// The share of a request kind sent from `from` to each site at light load (all queues empty).
std::vector<double> light_load_shares(const scenario::Scenario& sc, const scenario::SiteRouting& r,
                                      std::size_t from, const std::string& model) {
  using Policy = scenario::SiteRouting::Policy;
  const std::size_t n = sc.sites.size();
  std::vector<bool> hosts(n, false);
  for (const auto& pool : sc.servers)
    if (!pool.attached &&
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
    return share;
  }
  if (r.policy == Policy::LocalFirst && hosts[from]) {
    share[from] = 1.0;
    return share;
  }
  // The nearest site hosting the model; ties go to the site listed first (as the engine).
  std::size_t best = n;
  double best_rtt = kInf;
  for (std::size_t s = 0; s < n; ++s) {
    if (!hosts[s] || (r.policy == Policy::LocalFirst && s == from)) continue;
    const double rtt = 2.0 * scenario::path_between(sc, from, s).latency;
    if (rtt < best_rtt) {
      best_rtt = rtt;
      best = s;
    }
  }
  if (best < n) share[best] = 1.0;
  return share;
}

bool is_local(const scenario::Scenario& sc, const std::string& model) {
  for (const auto& pool : sc.servers)
    if (pool.attached == std::optional<std::size_t>(0) &&
        std::find(pool.models.begin(), pool.models.end(), model) != pool.models.end())
      return true;
  return false;
}

}  // namespace

void add_site_latencies(Prediction& pr, const scenario::Scenario& sc) {
  const scenario::Workload& w = sc.workload();
  const scenario::SiteRouting& routing = w.routing ? *w.routing : sc.routing;
  const auto nodes = scenario::apportion_nodes(w.n_nodes(), w.sites);
  // Without `sites` in the top-level network, each request's network_time_s holds only its
  // overheads; the path of each site comes on top.
  std::int64_t first = 0;
  double weighted = 0.0;
  std::int64_t threads_all = 0;
  std::vector<double> kind_latency(pr.requests.size(), 0.0);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const std::size_t from = w.sites[k].site;
    const std::int64_t last = first + nodes[k];
    const std::int64_t jobs =
        std::min(last * w.jobs_per_node, w.jobs) - std::min(first * w.jobs_per_node, w.jobs);
    first = last;
    SiteTerm term;
    term.name = sc.sites[from].name;
    term.threads = w.open_loop() ? 1 : jobs * w.threads_per_job;
    for (std::size_t q = 0; q < pr.requests.size(); ++q) {
      const RequestTerm& t = pr.requests[q];
      // Served in the node (an attached pool): no path at all.
      if (!t.served || is_local(sc, t.model)) continue;
      const auto share = light_load_shares(sc, routing, from, t.model);
      double network = t.network_time_s;
      for (std::size_t to = 0; to < share.size(); ++to) {
        if (share[to] <= 0.0) continue;
        const scenario::PathFigures path = scenario::path_between(sc, from, to);
        const double transfer =
            std::isinf(path.bandwidth) ? 0.0 : (t.bytes_in + t.bytes_out) / path.bandwidth;
        network += share[to] * (2.0 * path.latency + transfer);
      }
      term.t_latency_s += t.per_event * network;
      kind_latency[q] += static_cast<double>(term.threads) * network;
    }
    weighted += static_cast<double>(term.threads) * term.t_latency_s;
    threads_all += term.threads;
    pr.sites.push_back(std::move(term));
  }
  if (threads_all <= 0) return;
  // The run's terms are the threads' means, so that the formula and MVA see one client.
  const auto n = static_cast<double>(threads_all);
  pr.t_latency_s = weighted / n;
  for (std::size_t q = 0; q < pr.requests.size(); ++q) {
    RequestTerm& t = pr.requests[q];
    if (!t.served) continue;
    t.network_time_s = kind_latency[q] / n;
    t.t_latency_s = t.per_event * t.network_time_s;
  }
  for (ModelTerm& m : pr.models) {
    m.t_latency_s = 0.0;
    for (const RequestTerm& t : pr.requests)
      if (t.served && t.model == m.name) m.t_latency_s += t.t_latency_s;
  }
  pr.notes.push_back(
      "several sites: each site's t_latency is its path to where the routing sends requests at "
      "light load; the run's t_latency is the threads' mean. Past the knee the queue sets the "
      "pace, and the split of t_SONIC between sites is an estimate (docs/sites.md#the-formula)");
}

void finish_sites(Prediction& pr) {
  // Below the knee each site's events take its own latency; past it every thread waits for
  // the same saturated pool, and the queue absorbs the difference.
  for (SiteTerm& s : pr.sites)
    s.t_sonic_s = pr.saturated ? pr.t_sonic_s : pr.t_sonic_s + (s.t_latency_s - pr.t_latency_s);
}

}  // namespace sonicsim::analytic
