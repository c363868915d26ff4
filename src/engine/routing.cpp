// The load-balancing policies of the request path: which server a try goes to.
#include "request_path.hpp"

#include <algorithm>

#include "accounting.hpp"
#include "attached_devices.hpp"
#include "clients.hpp"
#include "network_path.hpp"
#include "server_hosts.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

void RequestPath::build_rings() {
  const auto& sc = ctx_.sc;
  rings_.assign(sc.models.size(), {});
  for (std::size_t mi = 0; mi < sc.models.size(); ++mi) {
    const auto& hosts = parts_.servers.hosts(static_cast<std::uint32_t>(mi));
    if (hosts.empty()) continue;
    const auto per_host = static_cast<std::size_t>(sc.load_balancer.ring_entries_per_host);
    auto& ring = rings_[mi];
    ring.reserve(per_host * hosts.size());
    // A device's points depend on the seed and the device alone, not on the model or the other
    // hosts: the same device holds the same arcs of every model's ring.
    for (std::uint32_t d : hosts)
      for (std::size_t k = 0; k < per_host; ++k)
        ring.push_back({derive_seed(sc.seed, kRingStream, (std::uint64_t{d} << 24) | k), d});
    std::sort(ring.begin(), ring.end());
  }
}

// The device a try goes to, or kNoDevice when no server is up for the model.
std::uint32_t RequestPath::route(std::uint32_t model, std::uint32_t thread) {
  const auto& sc = ctx_.sc;
  // With several sites the site comes first (sites.cpp), then the policy picks a server there.
  std::uint32_t site = 0;
  if (parts_.sites.several()) {
    site = parts_.sites.choose(model, parts_.clients.workload_of(thread),
                               parts_.clients.node_of(thread));
    if (site == Sites::kNoSite) return kNoDevice;
  }
  const auto& hosts =
      parts_.sites.several() ? parts_.sites.up_hosts(model, site) : parts_.servers.up_hosts(model);
  if (hosts.empty()) return kNoDevice;
  switch (sc.load_balancer.policy) {
    case scenario::BalancePolicy::RoundRobin:
      break;
    case scenario::BalancePolicy::Random:
      return hosts[routing_rng_.below(hosts.size())];
    case scenario::BalancePolicy::LeastRequest: {
      // Envoy draws the candidates independently (one may come twice); the first of the least
      // loaded wins.
      std::uint32_t best = hosts[routing_rng_.below(hosts.size())];
      for (int c = 1; c < sc.load_balancer.choice_count; ++c) {
        const std::uint32_t d = hosts[routing_rng_.below(hosts.size())];
        if (active_[d] < active_[best]) best = d;
      }
      return best;
    }
    case scenario::BalancePolicy::RingHash: {
      // The client is the job (open loop: each arrival is a client of its own). A device that is
      // not up is skipped: its clients move to the next point on the ring, no one else.
      const std::uint64_t client = open_ ? arrivals_routed_++ : parts_.clients.job_of(thread);
      const std::uint64_t key = derive_seed(sc.seed, kClientHashStream, client);
      const auto& ring = rings_[model];
      auto it = std::lower_bound(ring.begin(), ring.end(), std::make_pair(key, std::uint32_t{0}));
      for (std::size_t k = 0; k < ring.size(); ++k, ++it) {
        if (it == ring.end()) it = ring.begin();
        if (parts_.servers.device(it->second).state == ServerPools::State::Up &&
            parts_.sites.of_device(it->second) == site)
          return it->second;
      }
      return kNoDevice;
    }
  }
  return hosts[rr_next_[model * parts_.sites.count() + site]++ % hosts.size()];
}

// A retry goes to the server of the failed try if it still serves (the first retry), else to
// another server that is up when there is one.
std::uint32_t RequestPath::route_retry(const Request& rq, std::uint32_t model) {
  const std::uint32_t last = rq.routed ? rq.device : kNoDevice;
  const bool last_up =
      last != kNoDevice && parts_.servers.device(last).state == ServerPools::State::Up;
  if (rq.tries == 1 && last_up) return last;
  // Another server at the same site; the site is chosen anew when the last one was not routed.
  if (parts_.sites.several() && last == kNoDevice) return route(model, rq.thread);
  const auto& hosts = parts_.sites.several()
                          ? parts_.sites.up_hosts(model, parts_.sites.of_device(last))
                          : parts_.servers.up_hosts(model);
  if (!last_up || hosts.size() < 2) return route(model, rq.thread);
  std::uint32_t pick = hosts[retry_rng_.below(hosts.size() - 1)];
  if (pick == last) pick = hosts.back();
  return pick;
}

}  // namespace sonicsim::engine
