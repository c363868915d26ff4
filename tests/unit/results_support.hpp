// A run's results file as `sonicsim run` writes it, for the tests that read its keys back.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace test {

inline nlohmann::ordered_json results_of(const sonicsim::scenario::Scenario& s,
                                         const sonicsim::runner::RunOutput& out) {
  namespace analytic = sonicsim::analytic;
  return sonicsim::results::to_json(s, out, analytic::to_json(analytic::predict(s)));
}

// A run's results file without its `perf` block (wall time, memory): the bytes that must be the
// same for the same scenario and seed.
inline std::string results_without_perf(const sonicsim::scenario::Scenario& s) {
  auto j =
      sonicsim::results::to_json(s, sonicsim::runner::simulate(s, {}), nlohmann::json::object());
  j.erase("perf");
  return j.dump();
}

}  // namespace test
