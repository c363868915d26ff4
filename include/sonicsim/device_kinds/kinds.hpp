// The device kinds: the one table. A new kind is a header in this folder (kind.hpp says what it
// holds) and an entry in `List` below; the loader, the schema test, the engine and the formulas
// all go through this table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include <sonicsim/device_kinds/gpu.hpp>
#include <sonicsim/device_kinds/pipeline.hpp>
#include <sonicsim/util/type_table.hpp>

namespace sonicsim::device_kinds {

// The first is the default (`devices.D.kind` absent).
using List = util::TypeTable<Gpu, Pipeline>;
// What a scenario keeps of a device's kind: its settings.
using Settings = List::Settings;

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
inline Timing timing_of(const Settings& s) {
  return List::with(s, []<class K>(const typename K::Settings&) { return K::timing; });
}
inline bool sliceable(const Settings& s) {
  return List::with(s, []<class K>(const typename K::Settings&) { return K::sliceable; });
}
inline Execution::Model executes(const Settings& s) {
  return List::with(s, []<class K>(const typename K::Settings&) { return K::executes; });
}
inline Execution execution(const Settings& s, const PoolFacts& pool) {
  return List::with(s,
                    [&]<class K>(const typename K::Settings& k) { return K::execution(k, pool); });
}
inline std::string note(const Settings& s, const std::string& pool, const std::string& device,
                        const PoolFacts& facts) {
  return List::with(
      s, [&]<class K>(const typename K::Settings& k) { return K::note(k, pool, device, facts); });
}

}  // namespace sonicsim::device_kinds
