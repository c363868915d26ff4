// Which figures a run's energy and memory rest on (docs/devices.md): for each device the pools
// name, its memory and its idle and busy power, and whether each came from the scenario or from
// the device catalogue, whose idle powers are estimates. A planner reading an energy per event
// needs to know that it rests on a datasheet's power limit and an estimated idle power.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

// The `devices` block (keys::device), null when no pool's device is in the catalogue: a scenario
// whose devices the catalogue does not know keeps its results' bytes.
nlohmann::ordered_json device_figures_json(const scenario::Scenario& s);

// The summary's `device` lines, one per device the catalogue knows.
std::vector<std::string> device_figures_summary(const scenario::Scenario& s);

}  // namespace sonicsim::results
