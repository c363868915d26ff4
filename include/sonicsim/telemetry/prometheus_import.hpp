// `sonicsim import prometheus`: Prometheus query_range exports (the HTTP API's JSON, one file per
// query, or a JSON array of such responses), or Grafana's exports of the same queries (the
// /api/ds/query response, a panel's data frames: docs/deployment.md#from-grafana), of Triton's
// and Envoy's metrics, turned into a measurements file on a regular grid of windows
// (docs/deployment.md#2-import-a-day-of-metrics).
//
// Counters become the increase within each window, series by series (a drop means the counter
// restarted from 0, Prometheus' rule), the increase between two samples spread evenly over the
// time between them, then summed over replicas; gauges the mean of their samples in the window;
// the ratios (batch size, times per request, the autoscaler's metric) are ratios of summed
// increases, null where the window has nothing to divide by.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/telemetry/measurements.hpp>

namespace sonicsim::telemetry {

// What an export may hold before it is refused up front (docs/limits.md): far above a week of
// 5 s scrapes of a large site, far below what would exhaust memory.
struct PrometheusLimits {
  static constexpr std::size_t max_file_bytes = std::size_t{64} << 20;
  static constexpr std::size_t max_series = 100'000;
  static constexpr std::size_t max_samples = 20'000'000;
  // windows x rows (pool/model pairs + pools + 1 for the clients): the cells of the
  // measurements the import builds, each row a value per window. 2 million: a week of 5 s
  // windows for 14 pool/model pairs in one pool, about 2 GB on the way to the file.
  static constexpr std::size_t max_cells = 2'000'000;
  // Windows the counters' increases are spread over, summed over every gap between two samples:
  // with samples far apart, series x windows (3,000 series over 2 million windows: 6e9 steps,
  // minutes). A day of 5 s scrapes spreads about as many steps as it has samples.
  static constexpr double max_spread_steps = 1e9;
};

struct ImportOptions {
  std::string pool_label = "release";
  std::string replica_label = "pod";  // falling back to `instance` on series without it
  std::optional<double> start, end;   // unix seconds; default: the span the data cover
  std::optional<double> step_s;       // default: the smallest sample spacing, to the ms
  std::size_t max_cells = PrometheusLimits::max_cells;  // lower only (the fuzz target's budget)
  double max_spread_steps = PrometheusLimits::max_spread_steps;  // likewise
  // Bytes the import's estimate must fit (the command's --memory-budget, the runs' budget).
  double memory_budget = std::numeric_limits<double>::infinity();
};

// Series the import read but did not use, by metric name, and why.
struct IgnoredMetric {
  std::string metric;
  std::size_t series = 0;
  std::string why;
};

struct ImportReport {
  std::size_t files = 0, series = 0, samples = 0;
  std::size_t non_finite_samples = 0;  // NaN and infinities, skipped
  std::vector<std::string> found;      // metrics sonicsim uses, present
  std::vector<std::string> missing;    // metrics sonicsim uses, absent: their values are null
  std::vector<IgnoredMetric> ignored;
};

struct ImportResult {
  Measurements measurements;
  ImportReport report;
};

// Every metric name the import uses, in the order the summary lists them.
const std::vector<std::string>& recognized_metrics();

// Reads the files and builds the measurements. Bad input throws InputError naming the file and
// the JSON path (a failed query, an instant vector, a series without __name__, a value that is
// not a number, timestamps that do not increase, a cap exceeded; in Grafana's frames also a
// frame without a time field, a field neither time nor number, value arrays of unequal length); a
// --start/--end/--step that leaves no window throws InputError naming the flag.
ImportResult import_prometheus(const std::vector<std::string>& files, const ImportOptions& o);

// (Times on the command line and in summaries: util/wall_time.hpp.)

std::string summary_text(const ImportResult& r);
nlohmann::ordered_json summary_json(const ImportResult& r);

// The measured client load as a partial scenario: {"workload": {"flow": {"running": {"t": [...],
// "jobs": [...]}}}}, Envoy's connections rounded to whole jobs at each window's end (seconds from
// the measurements' start); windows without a sample are left out. InputError (named after
// `flag`) when the measurements hold no connection counts.
nlohmann::ordered_json flow_overlay(const Measurements& m, const std::string& flag);

}  // namespace sonicsim::telemetry
