// random: a server of the model drawn uniformly per request (Envoy's RANDOM). It also stands for
// Envoy's hashing policies as SuperSONIC's chart configures them: its route sets no hash_policy
// (templates/envoy/configmaps.yaml:58-63 at chart 0.3.1, :57-62 at 0.2.1), and Envoy's hashing
// balancers then hash a random value per request (source/extensions/load_balancing_policies/
// common/thread_aware_lb_impl.cc, chooseHost: "this effectively becomes the random LB").
#pragma once

#include <array>

#include <sonicsim/balancing/policy.hpp>

namespace sonicsim::balancing {

inline constexpr std::string_view kHashedAtRandom =
    " -> random: the chart's route sets no hash_policy, so Envoy hashes a random value for every "
    "request and no client sticks to a server (set load_balancer.policy to ring_hash by hand to "
    "study sticky sessions, which need a hash_policy on the route)";

struct Random {
  static constexpr std::string_view name = "random";
  struct Settings {
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 0> keys{};
  static constexpr std::array<EnvoyName, 3> envoy{
      {{"RANDOM", ""}, {"RING_HASH", kHashedAtRandom}, {"MAGLEV", kHashedAtRandom}}};

  struct State {};
  template <class Env>
  static State build(const Settings&, Env&) {
    return {};
  }
  template <class Env>
  static std::uint32_t pick(const Settings&, State&, Env& env, const Hosts& hosts, std::uint32_t,
                            std::uint32_t, std::uint32_t) {
    return hosts[env.rng().below(hosts.size())];
  }
};

}  // namespace sonicsim::balancing
