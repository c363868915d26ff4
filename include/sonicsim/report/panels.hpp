// The report's charts, built from the figures of runs and sweeps: each panel is a titled SVG
// or, when the inputs lack its data, a one-line note naming the keys that were missing.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/report/whatif.hpp>

namespace sonicsim::report {

struct Panel {
  std::string title;
  std::string svg;      // empty when skipped
  std::string skipped;  // why, when skipped
};

// One run: its time series (per-device utilization and queue length, inferences/s, batch size,
// latency p50/p99, link utilization, events/s), the request latency at its stored percentiles
// and where an event's time goes, simulated against the formula.
std::vector<Panel> run_panels(const RunFigures& run);

// Several runs side by side as grouped bars, and where the time goes in each.
std::vector<Panel> comparison_panels(const std::vector<RunFigures>& runs);

// Sweeps overlaid on the same axes: throughput and time per event against the formula and MVA
// with the knee marked, device utilization, request latency, batch size, link utilization.
std::vector<Panel> sweep_panels(const std::vector<SweepData>& sweeps);

// Panels as the HTML page shows them: the charts in a grid, then a line per skipped one.
std::string panels_html(const std::vector<Panel>& panels);

}  // namespace sonicsim::report
