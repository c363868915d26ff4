// round_robin: each server of the model in turn (Envoy's ROUND_ROBIN), one turn per model and
// site.
#pragma once

#include <array>
#include <vector>

#include <sonicsim/balancing/policy.hpp>

namespace sonicsim::balancing {

struct RoundRobin {
  static constexpr std::string_view name = "round_robin";
  struct Settings {
    bool operator==(const Settings&) const = default;
  };
  static constexpr std::array<IntKey<Settings>, 0> keys{};
  static constexpr std::array<EnvoyName, 1> envoy{{{"ROUND_ROBIN", ""}}};

  struct State {
    std::vector<std::uint64_t> next;  // [model * sites + site]
  };
  template <class Env>
  static State build(const Settings&, Env& env) {
    return {std::vector<std::uint64_t>(std::size_t{env.models()} * env.sites(), 0)};
  }
  template <class Env>
  static std::uint32_t pick(const Settings&, State& st, Env& env, const Hosts& hosts,
                            std::uint32_t model, std::uint32_t site, std::uint32_t) {
    return hosts[st.next[std::size_t{model} * env.sites() + site]++ % hosts.size()];
  }
};

}  // namespace sonicsim::balancing
