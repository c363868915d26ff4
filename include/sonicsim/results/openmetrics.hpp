// A run's time series in OpenMetrics text with timestamps, under Triton's, Envoy's and
// Kubernetes' own metric names and labels: what Prometheus would have scraped from a SuperSONIC
// deployment had it run the simulated day. `promtool tsdb create-blocks-from openmetrics` loads
// it into a TSDB, and SuperSONIC's Grafana dashboard (or analysis/grafana/) shows it beside a
// real day (docs/deployment.md, "Export").
//
// One sample per series per time-series window, stamped at the window's end. Each replica is a
// Triton server with its own counters, labelled as SuperSONIC's scrape config labels them (app,
// release, namespace, pod) and with sonicsim's pool and replica (and its site, with sites); a
// replica that is not serving (starting, off, crashed) has no samples, and its counters start again
// from 0 when it comes back, as a new pod's would.
#pragma once

#include <cstdint>
#include <string>

#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

struct OpenMetricsSettings {
  double start_unix = 0.0;  // wall-clock time of simulated time 0, seconds since the epoch
  std::string release = "supersonic";  // Helm release: the `release` label, pod name prefix
  std::string namespace_name = "default";
};

// Samples the file will hold (from the scenario, before the run), to refuse one that would not
// fit: the time-series windows times the series (per replica and model, per replica, the power
// and memory gauges of the devices that have them, per pool, Envoy's).
double openmetrics_samples(const scenario::Scenario& s);
// Bytes per sample, about: labels, value and timestamp on one line.
inline constexpr double kOpenMetricsBytesPerSample = 230.0;
// Peak memory per sample while the text is built (the memory estimate, runner/memory.hpp): the
// text itself; the string's doubled capacity is not resident until written (measured: 163 MB
// for a 156 MB file of 828,000 samples, docs/limits.md#memory).
inline constexpr double kOpenMetricsMemoryPerSample = kOpenMetricsBytesPerSample;

// Needs the run's time series with replicas (timeseries.replicas); ends with "# EOF".
std::string to_openmetrics(const scenario::Scenario& s, const runner::RunOutput& run,
                           const OpenMetricsSettings& settings);

}  // namespace sonicsim::results
