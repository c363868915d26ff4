// least_request: `choice_count` servers drawn at random, the one with the fewest active requests
// wins (Envoy's LEAST_REQUEST: power of two choices by default).
#pragma once

#include <array>

#include <sonicsim/balancing/policy.hpp>

namespace sonicsim::balancing {

struct LeastRequest {
  static constexpr std::string_view name = "least_request";
  struct Settings {
    int choice_count = 2;
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 1> keys{
      {{"choice_count", &Settings::choice_count, 2, 100, "hosts",
        "devices drawn at random (with replacement), the one with the fewest active requests "
        "wins"}}};
  static constexpr std::array<EnvoyName, 1> envoy{{{"LEAST_REQUEST", ""}}};

  struct State {};
  template <class Env>
  static State build(const Settings&, Env&) {
    return {};
  }
  // Envoy draws the candidates independently (one may come twice); the first of the least
  // loaded wins.
  template <class Env>
  static std::uint32_t pick(const Settings& s, State&, Env& env, const Hosts& hosts, std::uint32_t,
                            std::uint32_t, std::uint32_t) {
    std::uint32_t best = hosts[env.rng().below(hosts.size())];
    for (int c = 1; c < s.choice_count; ++c) {
      const std::uint32_t d = hosts[env.rng().below(hosts.size())];
      if (env.active(d) < env.active(best)) best = d;
    }
    return best;
  }
};

}  // namespace sonicsim::balancing
