// A table of types, each an entry of an extension point (a load-balancing policy, a device kind):
// the scenario keeps the chosen entry's Settings in a variant, and code that acts on it asks the
// table for the entry those settings belong to, at compile time, with no virtual dispatch.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

namespace sonicsim::util {

template <class... E>
class TypeTable {
  template <class S, class First, class... Rest>
  static auto pick() {
    if constexpr (std::is_same_v<S, typename First::Settings>)
      return std::type_identity<First>{};
    else
      return pick<S, Rest...>();
  }

 public:
  using Settings = std::variant<typename E::Settings...>;

  // f.template operator()<Entry>() for each entry, in the table's order.
  template <class F>
  static void each(F&& f) {
    (f.template operator()<E>(), ...);
  }

  // f.template operator()<Entry>(settings) for the entry whose settings `s` holds.
  template <class F>
  static decltype(auto) with(const Settings& s, F&& f) {
    return std::visit(
        [&]<class S>(const S& settings) -> decltype(auto) {
          return f.template operator()<entry_of<S>>(settings);
        },
        s);
  }

  // The entry whose Settings type is S.
  template <class S>
  using entry_of = typename decltype(pick<S, E...>())::type;

};

}  // namespace sonicsim::util
