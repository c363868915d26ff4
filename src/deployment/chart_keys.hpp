// What SuperSONIC chart 0.3.1's keys are to sonicsim (private to src/deployment): every
// documented key family with what sonicsim does with it. Older releases' files are read under
// these names (chart_versions.hpp).
#pragma once

#include <string>
#include <vector>

#include "values.hpp"

namespace sonicsim::deployment {

// The name every chart default carries as its `file` in the merged tree: not a values file.
std::string chart_defaults_name();

enum class KeyClass { mapped, not_mapped, not_relevant, unknown };

struct Classified {
  KeyClass kind = KeyClass::unknown;
  std::string family;  // the documented key (or family, "grafana") it belongs to
  std::string reason;  // not mapped / not relevant: why; unknown: the did-you-mean hint
};

// One key path of a values file (segments as written). `is_map`: the key holds a map, so a key
// family that lists keys below it classifies those instead (the caller descends).
// `version`: the release the file was written for, for the hint of an unknown key.
Classified classify(const std::vector<std::string>& segments, const std::string& version);

// True when keys below `segments` are listed one by one (the caller walks into the map).
bool has_listed_children(const std::vector<std::string>& segments);

}  // namespace sonicsim::deployment
