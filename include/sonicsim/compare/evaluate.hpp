// compare's rows: every measured point loaded with the --vary path set to its x, predicted by
// the SONIC formula and exact MVA in this process and simulated in a child process of its own
// (points/points.hpp), then summarized (compare.hpp) into the report `sonicsim compare` prints.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <sonicsim/compare/compare.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/scenario/loader.hpp>

namespace sonicsim::compare {

struct Request {
  scenario::Source scenario;
  std::string measurements;            // the CSV
  std::string vary, metric, x_column;  // metric, x_column: empty to infer from the file
  int workers = 0;                     // simulations at once; <= 0: the cores
  points::Simulator simulate;          // each point's, in its child (pipeline::simulator())
};

// `on_simulating(points, workers)`, when set, is called once the points are loaded and before
// they are simulated (a line for a waiting user). Throws scenario::InputError when the scenario
// or the measurements are bad, or fewer than two points simulate because of the input;
// std::runtime_error when that is because a simulation failed.
Report evaluate(const Request& request,
                const std::function<void(std::size_t points, int workers)>& on_simulating = {});

}  // namespace sonicsim::compare
