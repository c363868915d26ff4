// The client policies (the last resort of `workload.client`): the one table. A new policy is a
// header in this folder (policy.hpp says what it holds) and an entry in `List` below; the loader,
// the writer, the work estimate, the schema test and the engine all go through this table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <sonicsim/client_policies/cpu.hpp>
#include <sonicsim/client_policies/none.hpp>
#include <sonicsim/util/type_table.hpp>

namespace sonicsim::client_policies {

// The first is the default (`workload.client.fallback` absent).
using List = util::TypeTable<None, Cpu>;
// What a scenario keeps: the chosen policy's settings.
using Settings = List::Settings;

inline std::vector<std::string_view> names() {
  return List::names();
}
// The names of the policies an open loop (`workload.arrivals`) may use, in the table's order.
inline std::vector<std::string_view> open_loop_names() {
  std::vector<std::string_view> out;
  List::each([&]<class P>() {
    if (P::open_loop) out.push_back(P::name);
  });
  return out;
}
inline std::string_view name_of(const Settings& s) {
  return List::name_of(s);
}
// Why an open loop may not use the policy `s` holds; empty when it may.
inline std::string_view open_loop_refusal(const Settings& s) {
  return List::with(s, []<class P>(const typename P::Settings&) {
    return P::open_loop ? std::string_view() : P::open_loop_refusal;
  });
}
// The named policy with its defaults; nullopt for a name not in the table.
inline std::optional<Settings> settings_named(std::string_view name) {
  return List::named(name);
}
// The client CPU time the last resort of `s` takes for a request whose share of its event's CPU
// time is `share`.
inline double cpu_seconds(const Settings& s, double share) {
  return List::with(s, [&]<class P>(const typename P::Settings& settings) {
    return P::cpu_seconds(settings, share);
  });
}
// The engine's hook: the last resort of `s` for `request` (policy.hpp says what Env offers).
template <class Env>
void give_up(const Settings& s, Env& env, std::uint32_t request) {
  List::with(s, [&]<class P>(const typename P::Settings& settings) {
    P::give_up(settings, env, request);
  });
}

}  // namespace sonicsim::client_policies
