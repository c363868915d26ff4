// One scenario end to end: load it with the command's overrides, predict it with the analytic
// models, choose how the network is modelled, simulate it and render its results. Every
// simulation a command asks for comes through here (run; the child processes of sweep, plan,
// compare and calibrate scan), so a results file means the same whichever command wrote it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/results/openmetrics.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::pipeline {

// A simulated scenario and what was made of it.
struct ScenarioRun {
  scenario::Scenario scenario;
  nlohmann::json analytic;         // the analytic models' prediction: the results' `analytic`
  runner::RunOutput output;        // metrics, the transport chosen, wall time
  nlohmann::ordered_json results;  // the results file (SPEC section 6)
};

// Predicts, chooses the transport from the prediction, simulates (sampling `trace`) and renders
// the results. Starts SimGrid's engine when flows matter: one such run per process.
// `watch` follows the simulation (status_line.hpp's simulation_watch).
// `outputs`: files to be built from the run beyond its results, for the memory estimate
// (runner::simulate).
ScenarioRun simulate(scenario::Scenario s, const engine::TraceSettings& trace = {},
                     const engine::Watch& watch = {},
                     const std::vector<runner::MemoryPart>& outputs = {});

// simulate() as the layers that choose points take it (points::Simulator): the results' text.
// The commands hand it to plan, compare, calibrate scan and reproduce, which link no engine.
points::Simulator simulator();

// The files `sonicsim run` writes, each only when its path is given.
struct RunFiles {
  std::string results, prometheus, trace, openmetrics;
  engine::TraceSettings trace_sample;  // which requests the trace holds, when it is asked for
  results::OpenMetricsSettings openmetrics_labels;
};

// What `run --openmetrics` needs of a scenario: its time series, per replica. A scenario without
// `timeseries` gets SuperSONIC's Prometheus scrape interval (5 s), so that the dashboards' 30 s
// rates have samples to work on. Refuses (InputError, exit 2) a file that would not fit in memory.
inline constexpr double kScrapeInterval = 5.0;
void prepare_openmetrics(scenario::Scenario& s, const std::string& scenario_file);

// `sonicsim run`: loads the scenario, checks that every file asked for can be written (before a
// long simulation, not after), simulates and writes the files. With `progress`, a terminal's
// stderr follows the simulation (status_line.hpp).
ScenarioRun run(const scenario::Source& source, const RunFiles& files, bool progress = false);

// `sonicsim analytic`: the prediction alone, written as JSON to `output` when given.
struct AnalyticRun {
  analytic::Prediction prediction;
  nlohmann::json json;
};
AnalyticRun predict(const scenario::Source& source, const std::string& output);

}  // namespace sonicsim::pipeline
