// The load-balancing policies: the one table. A new policy is a header in this folder (policy.hpp
// says what it holds) and an entry in `List` below; the loader, the schema test, the SuperSONIC
// mapping and the engine all go through this table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

#include <sonicsim/balancing/least_request.hpp>
#include <sonicsim/balancing/random.hpp>
#include <sonicsim/balancing/ring_hash.hpp>
#include <sonicsim/balancing/round_robin.hpp>
#include <sonicsim/util/type_table.hpp>

namespace sonicsim::balancing {

// A table of policies (util/type_table.hpp: each, with) with each policy's per-run state.
template <class... P>
struct PolicyList : util::TypeTable<P...> {
  using State = std::variant<typename P::State...>;
};

// The first is the default (`load_balancer.policy` absent).
using List = PolicyList<RoundRobin, Random, LeastRequest, RingHash>;
// What a scenario keeps: the chosen policy's settings.
using Settings = List::Settings;

// The policies' names, in the table's order.
inline std::vector<std::string_view> names() {
  return List::names();
}
inline std::string_view name_of(const Settings& s) {
  return List::name_of(s);
}
// The named entry with its defaults; nullopt for a name not in the table.
inline std::optional<Settings> settings_named(std::string_view name) {
  return List::named(name);
}
// The policy an Envoy lbPolicy maps to, with the mapping's note when it is a stand-in.
struct EnvoyMatch {
  std::string_view policy, note;
};
inline std::optional<EnvoyMatch> for_envoy(std::string_view lb_policy) {
  std::optional<EnvoyMatch> out;
  List::each([&]<class P>() {
    for (const EnvoyName& e : P::envoy)
      if (e.lb_policy == lb_policy) out = EnvoyMatch{P::name, e.note};
  });
  return out;
}
// Every Envoy lbPolicy some policy stands for, in the table's order.
inline std::vector<std::string_view> envoy_names() {
  std::vector<std::string_view> out;
  List::each([&]<class P>() {
    for (const EnvoyName& e : P::envoy) out.push_back(e.lb_policy);
  });
  return out;
}

}  // namespace sonicsim::balancing
