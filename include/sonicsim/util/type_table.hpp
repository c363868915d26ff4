// A table of types, each an entry of an extension point (a load-balancing policy, a device kind):
// the scenario keeps the chosen entry's Settings in a variant, and code that acts on it asks the
// table for the entry those settings belong to, at compile time, with no virtual dispatch.
#pragma once

#include <algorithm>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace sonicsim::util {

// An integer key of an entry (`<section>.<name>`), in [lo, hi], `unit` naming what it counts:
// the loader reads it, the writer writes it and a schema test holds the schema to it.
template <class Settings>
struct IntKey {
  std::string_view name;
  int Settings::*field;
  int lo, hi;
  std::string_view unit;
  std::string_view meaning;
};

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

  // The entries' names (each has a static `name`), in the table's order.
  static std::vector<std::string_view> names() {
    std::vector<std::string_view> out;
    each([&]<class K>() { out.push_back(K::name); });
    return out;
  }
  static std::string_view name_of(const Settings& s) {
    return with(s, []<class K>(const typename K::Settings&) { return K::name; });
  }
  // The names of the entries' own keys (each entry has a static `keys`, each with a `name`),
  // each once, in the table's order.
  static std::vector<std::string_view> key_names() {
    std::vector<std::string_view> out;
    each([&]<class K>() {
      for (const auto& k : K::keys)
        if (std::find(out.begin(), out.end(), k.name) == out.end()) out.push_back(k.name);
    });
    return out;
  }
  // The named entry with its defaults; nullopt for a name not in the table.
  static std::optional<Settings> named(std::string_view name) {
    std::optional<Settings> out;
    each([&]<class K>() {
      if (K::name == name) out = typename K::Settings{};
    });
    return out;
  }

  // The entry whose Settings type is S.
  template <class S>
  using entry_of = typename decltype(pick<S, E...>())::type;
};

}  // namespace sonicsim::util
