// One scenario simulated at many points, each point an override set run in its own child
// process (children.hpp): how plan, compare and calibrate scan evaluate the points they choose.
// The simulation itself is the caller's (a Simulator): the command binds the runner's
// (pipeline::simulator(), pipeline/scenario_run.hpp), so that the layers choosing points link
// no engine.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/overrides.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::points {

// Simulates a validated scenario in the calling process and returns its results file's text
// (SPEC section 6). Throws InputError for a scenario the simulation refuses (its admission gate).
using Simulator = std::function<std::string(scenario::Scenario)>;

struct PointResult {
  bool ok = false;
  nlohmann::json results;  // the results JSON of the run (SPEC section 6), when ok
  std::string error;       // the child's InputError message, exception or signal otherwise
  bool input_error = false;
};

// What a caller following the points hears, in the parent: the count of points finished as each
// ends, and the clock about four times a second (a progress line's).
struct PointsWatch {
  std::function<void(std::size_t finished)> on_done;
  std::function<void()> on_tick;
};

// One simulation per override set: the child loads scenario_path with common + points[i] and
// simulates it with `simulate`. Results are indexed like `points`; at most `workers` children
// run at once (<= 0: the cores).
std::vector<PointResult> run_points(const Simulator& simulate, const std::string& scenario_path,
                                    const std::vector<scenario::Override>& common,
                                    const std::vector<std::vector<scenario::Override>>& points,
                                    int workers = 0, const PointsWatch& watch = {});

}  // namespace sonicsim::points
