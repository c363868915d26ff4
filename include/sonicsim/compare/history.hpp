// `sonicsim compare SCENARIO MEASUREMENTS.json`: the twin held against a measured day. The
// scenario is simulated over the measured span, window for window (its time series on the
// measurements' grid), and each measured series (per pool and model: request rate, batch size,
// queue and compute time per request; per pool: replicas, GPU utilization, the autoscaler's
// metric; the connected clients) is held against the simulated one with the statistics of
// `compare` (MAPE, worst window, Spearman) plus the day's means, and a verdict.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/compare/compare.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/telemetry/measurements.hpp>

namespace sonicsim::compare {

// Whether `path` is a measurements file (`import prometheus`), by its "format" key; false for a
// CSV or anything unreadable (the caller's own reader then says what is wrong).
bool is_history_file(const std::string& path);

struct HistoryRequest {
  scenario::Source scenario;
  std::string measurements;
  // MEASURED=SIMULATED pool names; needed only when the names differ and either side has
  // several pools.
  std::vector<std::string> pool_map;
  double from_s = -1.0;  // compare windows ending after this; < 0: after the scenario's warm-up
  points::Simulator simulate;  // the day's simulation, in this process (pipeline::simulator())
};

// One measured series against its simulated twin, window by window (only windows where both
// have a value; relative errors only where the measurement is not 0).
struct HistorySeries {
  std::string pool, model;  // model "": a pool's series; pool "": the clients'
  std::string metric, unit;
  double scale = 1.0;  // for printing: value x scale in `unit`
  std::vector<double> t, measured, simulated;
  std::size_t zero_windows = 0;  // measured 0: no relative error
  Errors errors;
  double measured_mean = 0.0, simulated_mean = 0.0;  // over the compared windows
  bool flat = false;  // the measurement varies by less than 5%: no trend to rank
  std::string verdict;
};

struct HistoryReport {
  std::string scenario_file, measurements_file;
  double start = 0.0, step_s = 0.0, from_s = 0.0;
  std::vector<std::pair<std::string, std::string>> pools;  // measured, simulated
  std::vector<HistorySeries> series;
  std::vector<std::string> notes;
  std::string verdict;  // the headline: request rate, queue and compute time
};

// Simulates the scenario over the measured span (in this process) and holds it against the day.
// Throws scenario::InputError on bad input (the files, an unmatched pool, a grid too fine).
HistoryReport compare_history(const HistoryRequest& request);

// The statistics alone, from a measured day and a run's time series on the same grid.
HistoryReport hold_history(const telemetry::Measurements& measured,
                           const results::Timeseries& simulated,
                           const std::vector<std::pair<std::string, std::string>>& pools,
                           double from_s);

nlohmann::ordered_json to_json(const HistoryReport& r);
std::string to_csv(const HistoryReport& r);  // one row per series and window
std::string to_text(const HistoryReport& r);

}  // namespace sonicsim::compare
