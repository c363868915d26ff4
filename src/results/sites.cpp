// The results of a scenario with several sites: `sites` and `egress` (docs/sites.md#results).
#include <algorithm>

#include "blocks.hpp"

namespace sonicsim::results::detail {

namespace {

// Threads (and jobs) whose node is at each site: jobs fill their workload's nodes in order,
// jobs_per_node each, and the nodes go to the sites as apportioned.
struct Population {
  std::int64_t jobs = 0, threads = 0, nodes = 0;
};

std::vector<Population> populations(const scenario::Scenario& s) {
  std::vector<Population> out(s.sites.size());
  for (const auto& w : s.workloads) {
    const auto counts = scenario::apportion_nodes(w.n_nodes(), w.sites);
    std::int64_t first = 0;  // the first node of the share
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const std::int64_t last = first + counts[k];
      const std::int64_t jobs =
          std::min(last * w.jobs_per_node, w.jobs) - std::min(first * w.jobs_per_node, w.jobs);
      Population& p = out[w.sites[k].site];
      p.nodes += counts[k];
      p.jobs += jobs;
      p.threads += jobs * w.threads_per_job;
      first = last;
    }
  }
  return out;
}

ojson price(const std::optional<double>& per_gb, double bytes) {
  return per_gb ? ojson(*per_gb * bytes / 1e9) : ojson(nullptr);
}

}  // namespace

ojson sites_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace st = k::site;
  const auto pop = populations(s);
  std::vector<std::int64_t> devices(s.sites.size(), 0);
  for (const auto& p : s.servers) devices[p.site] += p.count;
  ojson all = ojson::array();
  for (std::size_t i = 0; i < s.sites.size(); ++i) {
    const auto& site = m.sites[i];
    const double x = static_cast<double>(site.events_completed) / m.span();
    double out = 0.0, in = 0.0;
    for (std::size_t j = 0; j < s.sites.size(); ++j) {
      out += m.egress_bytes[i][j];
      in += m.egress_bytes[j][i];
    }
    ojson j;
    j[st::name] = s.sites[i].name;
    j[st::client_nodes] = pop[i].nodes;
    j[st::threads] = pop[i].threads;
    j[st::devices] = devices[i];
    // Thread time per event as for a population: the site's threads over its throughput.
    const auto threads = static_cast<double>(pop[i].threads);
    j[st::events] = events_json(site, x, std::max(static_cast<double>(pop[i].jobs), 1.0),
                                x > 0.0 ? threads / x : 0.0);
    j[st::requests] = requests_json(site);
    j[st::bytes_out] = out;
    j[st::bytes_in] = in;
    j[st::egress_cost] = price(s.sites[i].egress_price_per_gb, out);
    all.push_back(std::move(j));
  }
  return all;
}

ojson egress_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace eg = k::egress;
  ojson all = ojson::array();
  for (std::size_t a = 0; a < s.sites.size(); ++a)
    for (std::size_t b = 0; b < s.sites.size(); ++b) {
      if (a == b || m.egress_bytes[a][b] <= 0.0) continue;
      ojson j;
      j[eg::from] = s.sites[a].name;
      j[eg::to] = s.sites[b].name;
      j[eg::bytes] = m.egress_bytes[a][b];
      j[eg::cost] = price(s.sites[a].egress_price_per_gb, m.egress_bytes[a][b]);
      all.push_back(std::move(j));
    }
  return all;
}

}  // namespace sonicsim::results::detail
