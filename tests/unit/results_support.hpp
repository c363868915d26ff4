// A run's results file as `sonicsim run` writes it, for the tests that read its keys back.
#pragma once

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

}  // namespace test
