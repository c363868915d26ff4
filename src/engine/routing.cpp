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

// What a load-balancing policy may ask of the engine (balancing/policy.hpp, Env): inlined into
// each policy's pick, no virtual dispatch.
class RequestPath::RoutingEnv {
 public:
  explicit RoutingEnv(RequestPath& p) : p_(p) {}
  Rng& rng() { return p_.routing_rng_; }
  std::uint32_t models() const { return static_cast<std::uint32_t>(p_.ctx_.sc.models.size()); }
  std::uint32_t sites() const { return p_.parts_.sites.count(); }
  const std::vector<std::uint32_t>& hosting(std::uint32_t model) const {
    return p_.parts_.servers.hosts(model);
  }
  std::uint32_t active(std::uint32_t d) const { return p_.active_[d]; }
  bool serves(std::uint32_t d, std::uint32_t site) const {
    return p_.parts_.servers.device(d).state == ServerPools::State::Up &&
           p_.parts_.sites.of_device(d) == site;
  }
  std::uint64_t ring_point(std::uint32_t d, std::uint64_t k) const {
    return derive_seed(p_.ctx_.sc.seed, kRingStream, (std::uint64_t{d} << 24) | k);
  }
  // The client is the job (open loop: each arrival is a client of its own).
  std::uint64_t client_hash(std::uint32_t thread) {
    const std::uint64_t client =
        p_.open_ ? p_.arrivals_routed_++ : p_.parts_.clients.job_of(thread);
    return derive_seed(p_.ctx_.sc.seed, kClientHashStream, client);
  }

 private:
  RequestPath& p_;
};

void RequestPath::build_policy() {
  RoutingEnv env(*this);
  policy_state_ = balancing::List::with(
      ctx_.sc.load_balancer.policy,
      [&]<class P>(const typename P::Settings& settings) -> balancing::List::State {
        return P::build(settings, env);
      });
}

// The device a try goes to, or kNoDevice when no server is up for the model.
std::uint32_t RequestPath::route(std::uint32_t model, std::uint32_t thread) {
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
  RoutingEnv env(*this);
  return balancing::List::with(
      ctx_.sc.load_balancer.policy, [&]<class P>(const typename P::Settings& settings) {
        return P::pick(settings, std::get<typename P::State>(policy_state_), env, hosts, model,
                       site, thread);
      });
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
