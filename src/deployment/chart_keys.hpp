// What SuperSONIC chart 0.3.1 knows (private to src/deployment): the defaults of the keys
// sonicsim maps, and every documented key family with what sonicsim does with it.
#pragma once

#include <string>
#include <vector>

#include "values.hpp"

namespace sonicsim::deployment {

// The name every chart default carries as its `file` in the merged tree and in the report.
std::string chart_defaults_name();

// Chart 0.3.1's values.yaml, reduced to the keys sonicsim maps (the rest cannot change the
// scenario, so their defaults do not matter here).
ValueNode chart_defaults();

enum class KeyClass { mapped, not_mapped, not_relevant, unknown };

struct Classified {
  KeyClass kind = KeyClass::unknown;
  std::string family;  // the documented key (or family, "grafana") it belongs to
  std::string reason;  // not mapped / not relevant: why; unknown: the did-you-mean hint
};

// One key path of a values file (segments as written). `is_map`: the key holds a map, so a key
// family that lists keys below it classifies those instead (the caller descends).
Classified classify(const std::vector<std::string>& segments);

// True when keys below `segments` are listed one by one (the caller walks into the map).
bool has_listed_children(const std::vector<std::string>& segments);

}  // namespace sonicsim::deployment
