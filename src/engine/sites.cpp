#include "sites.hpp"

#include <algorithm>

#include "request_path.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

Sites::Sites(Context& ctx, const Uses& uses)
    : ctx_(ctx), parts_(uses), rng_(derive_seed(ctx.sc.seed, kSiteStream, 0)) {}

void Sites::build() {
  const auto& sc = ctx_.sc;
  several_ = !sc.sites.empty();
  if (!several_) return;
  count_ = static_cast<std::uint32_t>(sc.sites.size());
  nodes_at_.assign(count_, 0);
  devices_at_.assign(count_, 0);
  node_site_ = scenario::client_node_sites(sc);
  for (std::uint32_t site : node_site_) ++nodes_at_[site];
  const auto& servers = parts_.servers;
  device_site_ = scenario::device_sites(sc);
  for (std::uint32_t site : device_site_) ++devices_at_[site];
  servers_at_.assign(count_, 0);
  for (const auto& pool : sc.servers)
    if (!pool.attached) servers_at_[pool.site] += static_cast<std::uint32_t>(pool.servers());
  hosts_.assign(sc.models.size(), std::vector<std::vector<std::uint32_t>>(count_));
  for (std::uint32_t m = 0; m < sc.models.size(); ++m)
    for (std::uint32_t d : servers.hosts(m)) hosts_[m][device_site_[d]].push_back(d);
  up_hosts_ = hosts_;
  rebuild_up_hosts();
  // Client NIC, the uplinks and WAN when the sites differ, server NIC: both ways.
  rtt_.assign(count_, std::vector<double>(count_, 0.0));
  for (std::uint32_t a = 0; a < count_; ++a)
    for (std::uint32_t b = 0; b < count_; ++b)
      rtt_[a][b] = 2.0 * scenario::path_between(sc, a, b).latency;
}

void Sites::rebuild_up_hosts() {
  if (!several_) return;
  const auto& servers = parts_.servers;
  for (std::size_t m = 0; m < hosts_.size(); ++m)
    for (std::uint32_t s = 0; s < count_; ++s) {
      auto& up = up_hosts_[m][s];
      up.clear();
      for (std::uint32_t d : hosts_[m][s])
        if (servers.device(d).state == ServerPools::State::Up) up.push_back(d);
    }
}

void Sites::set_up(std::uint32_t d, bool up) {
  if (!several_) return;
  for (std::uint32_t m = 0; m < hosts_.size(); ++m) {
    const auto& at = hosts_[m][device_site_[d]];
    if (std::binary_search(at.begin(), at.end(), d))
      set_in_device_order(up_hosts_[m][device_site_[d]], d, up);
  }
}

double Sites::expected_queue_time(std::uint32_t model, std::uint32_t site) const {
  const auto& up = up_hosts_[model][site];
  if (up.empty()) return kInf;
  // The mean over the servers up: the balancer there spreads the requests over all of them.
  double sum = 0.0;
  for (std::uint32_t d : up) sum += parts_.servers.expected_wait(d, model);
  return sum / static_cast<double>(up.size());
}

double Sites::in_flight_per_device(std::uint32_t model, std::uint32_t site) const {
  const auto& up = up_hosts_[model][site];
  if (up.empty()) return kInf;
  double held = 0.0;
  for (std::uint32_t d : up) held += parts_.path.active(d);
  return held / static_cast<double>(up.size());
}

bool Sites::too_busy(std::uint32_t model, std::uint32_t site,
                     const scenario::SiteRouting& r) const {
  if (r.spill_in_flight && in_flight_per_device(model, site) > *r.spill_in_flight) return true;
  return r.spill_queue_time && expected_queue_time(model, site) > *r.spill_queue_time;
}

// The site with servers of the model up whose round trip (plus, `with_queue`, expected queue
// time) from `from` is least; ties go to the site listed first.
std::uint32_t Sites::least_latency(std::uint32_t model, std::uint32_t from,
                                   const scenario::SiteRouting& r, bool with_queue) const {
  std::uint32_t best = kNoSite;
  double best_cost = kInf;
  for (std::uint32_t s = 0; s < count_; ++s) {
    if (up_hosts_[model][s].empty() || !ctx_.sc.routes[from][s].exists) continue;
    if (r.policy == scenario::SiteRouting::Policy::LocalFirst && s == from) continue;
    const double cost = rtt_[from][s] + (with_queue ? expected_queue_time(model, s) : 0.0);
    if (cost < best_cost) {
      best_cost = cost;
      best = s;
    }
  }
  return best;
}

std::uint32_t Sites::weighted(std::uint32_t model, std::uint32_t from,
                              const scenario::SiteRouting& r) {
  // Sites with a weight whose servers are down share their part among the others.
  double total = 0.0;
  for (std::uint32_t s = 0; s < count_; ++s)
    if (!up_hosts_[model][s].empty() && ctx_.sc.routes[from][s].exists) total += r.weights[s];
  if (!(total > 0.0)) return kNoSite;
  double x = rng_.uniform01() * total;
  std::uint32_t last = kNoSite;
  for (std::uint32_t s = 0; s < count_; ++s) {
    if (up_hosts_[model][s].empty() || !ctx_.sc.routes[from][s].exists || r.weights[s] <= 0.0)
      continue;
    last = s;
    if (x < r.weights[s]) return s;
    x -= r.weights[s];
  }
  return last;
}

std::uint32_t Sites::choose(std::uint32_t model, const scenario::Workload& w, std::uint32_t node) {
  using Policy = scenario::SiteRouting::Policy;
  const scenario::SiteRouting& r = w.routing ? *w.routing : ctx_.sc.routing;
  const std::uint32_t from = of_node(node);
  switch (r.policy) {
    case Policy::Pinned: {
      const auto s = static_cast<std::uint32_t>(r.pinned);
      return up_hosts_[model][s].empty() ? kNoSite : s;
    }
    case Policy::Weighted:
      return weighted(model, from, r);
    case Policy::LeastLatency:
      return least_latency(model, from, r, true);
    case Policy::LocalFirst:
      break;
  }
  const bool local_up = !up_hosts_[model][from].empty();
  if (local_up && !too_busy(model, from, r)) return from;
  // Spill over (or no local server): the nearest other site with a server up, else stay.
  const std::uint32_t other = least_latency(model, from, r, false);
  return other != kNoSite ? other : (local_up ? from : kNoSite);
}

}  // namespace sonicsim::engine
