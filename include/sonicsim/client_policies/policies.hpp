// The client policies (the last resort of `workload.client`): the one table. A new policy is a
// header in this folder (policy.hpp says what it holds) and an entry in `List` below; the loader,
// the writer, the work estimate, the schema test and the engine all go through this table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include <sonicsim/client_policies/cpu.hpp>
#include <sonicsim/client_policies/none.hpp>

namespace sonicsim::client_policies {

template <class... P>
struct PolicyList {
  using Settings = std::variant<typename P::Settings...>;
  // f.template operator()<Policy>() for each policy, in the table's order.
  template <class F>
  static void each(F&& f) {
    (f.template operator()<P>(), ...);
  }
  // f.template operator()<Policy>(settings) for the policy whose settings `s` holds.
  template <class F>
  static decltype(auto) visit(const Settings& s, F&& f) {
    return std::visit(
        [&]<class S>(const S& settings) -> decltype(auto) {
          return f.template operator()<std::tuple_element_t<index_of<S>(), std::tuple<P...>>>(
              settings);
        },
        s);
  }

 private:
  template <class S>
  static constexpr std::size_t index_of() {
    std::size_t i = 0, found = 0;
    ((std::is_same_v<S, typename P::Settings> ? found = i++ : i++), ...);
    return found;
  }
};

// The first is the default (`workload.client.fallback` absent).
using List = PolicyList<None, Cpu>;
// What a scenario keeps: the chosen policy's settings.
using Settings = List::Settings;

// The policies' names, in the table's order.
inline std::vector<std::string_view> names() {
  std::vector<std::string_view> out;
  List::each([&]<class P>() { out.push_back(P::name); });
  return out;
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
  return List::visit(s, []<class P>(const typename P::Settings&) { return P::name; });
}
// Why an open loop may not use the policy `s` holds; empty when it may.
inline std::string_view open_loop_refusal(const Settings& s) {
  return List::visit(s, []<class P>(const typename P::Settings&) {
    return P::open_loop ? std::string_view() : P::open_loop_refusal;
  });
}
// The named policy with its defaults; nullopt for a name not in the table.
inline std::optional<Settings> settings_named(std::string_view name) {
  std::optional<Settings> out;
  List::each([&]<class P>() {
    if (P::name == name) out = typename P::Settings{};
  });
  return out;
}
// The client CPU time the last resort of `s` takes for a request whose share of its event's CPU
// time is `share`.
inline double cpu_seconds(const Settings& s, double share) {
  return List::visit(s, [&]<class P>(const typename P::Settings& settings) {
    return P::cpu_seconds(settings, share);
  });
}
// The engine's hook: the last resort of `s` for `request` (policy.hpp says what Env offers).
template <class Env>
void give_up(const Settings& s, Env& env, std::uint32_t request) {
  List::visit(s, [&]<class P>(const typename P::Settings& settings) {
    P::give_up(settings, env, request);
  });
}

}  // namespace sonicsim::client_policies
