// The SONIC formula beside a run: at the batches the run formed (docs/analytic.md, "At the
// batches a run formed"), and the summary's lines that hold the run against it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

// The formula at the batches the run formed, from its models' executions and items after the
// warm-up (analytic::at_formed_batches, which says when there is none).
std::optional<analytic::FormedBatches> formed_batches(const scenario::Scenario& s,
                                                      const analytic::Prediction& prediction,
                                                      const engine::RunMetrics& m);

// The summary's formula lines, under its `events` line: the run's thread time per event over
// t_SONIC, and over t_SONIC at the batches it formed when `analytic` has them. None for an open
// loop, a job flow or several workloads, where the formula's fixed population is not the run's.
std::vector<std::string> formula_summary(const scenario::Scenario& s, const engine::RunMetrics& m,
                                         const nlohmann::json& analytic);

}  // namespace sonicsim::results
