// The SONIC formula with several sites (docs/sites.md#the-formula): t_latency per site.
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::analytic {

namespace {

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
      const auto share = scenario::light_load_shares(sc, routing, from, t.model);
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

void add_site_links(Prediction& pr, const scenario::Scenario& sc) {
  using scenario::LinkClass;
  const scenario::Workload& w = sc.workload();
  const scenario::SiteRouting& routing = w.routing ? *w.routing : sc.routing;
  const std::size_t n = sc.sites.size();
  const double events = std::isinf(pr.throughput_per_s) ? 0.0 : pr.throughput_per_s;
  // bytes[a][b]: both ways, per second, of the requests sent from site a to servers at b.
  std::vector<std::vector<double>> bytes(n, std::vector<double>(n, 0.0));
  std::vector<double> from(n, 0.0);  // bytes per second of site a's clients, all destinations
  const auto nodes = scenario::apportion_nodes(w.n_nodes(), w.sites);
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const std::size_t a = w.sites[k].site;
    // Each node carries its share of the events (the engine fills nodes alike).
    const double share =
        w.n_nodes() > 0 ? static_cast<double>(nodes[k]) / static_cast<double>(w.n_nodes()) : 0.0;
    for (const RequestTerm& t : pr.requests) {
      if (!t.served || is_local(sc, t.model)) continue;
      const double per_s = events * share * t.per_event * (t.bytes_in + t.bytes_out);
      const auto to = scenario::light_load_shares(sc, routing, a, t.model);
      for (std::size_t b = 0; b < n; ++b) bytes[a][b] += per_s * to[b];
      from[a] += per_s;
    }
  }
  std::vector<double> devices(n, 0.0);
  for (const auto& pool : sc.servers)
    if (!pool.attached) devices[pool.site] += pool.servers();  // one server NIC each
  std::vector<double> uplink(n, 0.0), wan(sc.wan.links.size(), 0.0), into(n, 0.0);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      into[b] += bytes[a][b];
      if (a == b || bytes[a][b] <= 0.0) continue;
      uplink[a] += bytes[a][b];
      uplink[b] += bytes[a][b];
      for (const auto& h : sc.routes[a][b].hops) wan[h.link] += bytes[a][b];
    }
  auto add = [&pr](LinkClass c, std::string name, const scenario::LinkSpec& spec, double load) {
    LinkTerm l{c, std::move(name), spec.bandwidth, spec.latency, load, 0.0};
    l.utilization = spec.bandwidth > 0.0 ? load / spec.bandwidth : 0.0;
    pr.links.push_back(std::move(l));
  };
  // As the engine lists them: each site's links in path order, then the WAN's.
  for (std::size_t a = 0; a < n; ++a) {
    const auto& site = sc.sites[a];
    if (site.client_nic && from[a] > 0.0) {
      // One node: its threads' share of the site's traffic.
      double site_nodes = 0.0;
      for (std::size_t k = 0; k < nodes.size(); ++k)
        if (w.sites[k].site == a) site_nodes += static_cast<double>(nodes[k]);
      add(LinkClass::ClientNic, site.name + "/client_nic", *site.client_nic,
          site_nodes > 0.0 ? from[a] / site_nodes : 0.0);
    }
    if (site.site_uplink)
      add(LinkClass::SiteUplink, site.name + "/site_uplink", *site.site_uplink, uplink[a]);
    if (site.server_nic && devices[a] > 0.0)
      add(LinkClass::ServerNic, site.name + "/server_nic", *site.server_nic, into[a] / devices[a]);
  }
  for (std::size_t l = 0; l < sc.wan.links.size(); ++l)
    add(LinkClass::Wan, "wan/" + sc.wan.links[l].name, sc.wan.links[l].spec, wan[l]);
}

}  // namespace sonicsim::analytic
