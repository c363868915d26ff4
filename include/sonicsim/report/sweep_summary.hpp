// Sweep CSVs (`sonicsim sweep -o`) as the report reads them: the successful points along the
// swept parameter, the figures a planner quotes (the formula's knee, peak throughput, device
// and link peaks), and what changed from one sweep to another in words.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>

namespace sonicsim::report {

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// The sweep CSV columns the report quotes and draws: flattened results keys (results::column),
// before the sweep's `.mean` / `.ci95`. Per pool, link and model a column is PREFIX K SUFFIX
// (servers.0.utilization).
namespace column {
extern const std::string n_cpu, n_gpu, t_ideal_s, t_sonic_s, knee_per_device;
extern const std::string formula_throughput, mva_throughput, mva_time_per_event;
extern const std::string throughput, thread_time_per_event, latency_p50, latency_p99;
extern const std::string servers, pool_utilization;                            // prefix, suffix
extern const std::string links, link_peak_utilization, link_mean_utilization;  // prefix, suffixes
extern const std::string models, model_mean_batch_size;                        // prefix, suffix
extern const std::string sites, site_throughput, site_bytes_out;               // prefix, suffixes
}  // namespace column

// One successful point: its parameter cells and its metrics as (mean, ci95); ci95 is NaN for
// one replication.
struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::string> params;  // cells, in SweepData::params order
  double x = kNoValue;              // the swept value on the x axis
  std::size_t group = 0;            // index into SweepData::groups
  std::map<std::string, std::pair<double, double>> metrics;
  double mean(const std::string& metric) const;  // NaN when the point lacks it
  double ci95(const std::string& metric) const;
};

struct SweepData {
  std::string file;
  std::vector<std::string> params;  // swept scenario paths (the param.PATH columns)
  // The x axis: the numeric parameter with the most distinct values ("point" when none is
  // numeric); x_label adds the parameters zipped with it.
  std::string x_param, x_label;
  chart::Unit x_unit = chart::Unit::Plain;
  bool x_log = false;  // positive x spanning 100x or more (a log range): drawn on a log axis
  // One line per value of the other parameters: "servers.0.count=4" ("" for a single line).
  std::vector<std::string> groups;
  std::vector<SweepPoint> points;  // by group, then x
  std::size_t n_points = 0, failed = 0, replications = 0;
  // Names the CSV cannot hold (only numbers are columns), from the first line of the JSONL
  // that sweep writes beside the CSV, when it is there; else "link K" / "pool K".
  // Keyed by the index as it appears in the column names ("0" in links.0.peak_utilization).
  std::map<std::string, std::string> link_names, pool_names, site_names;
  std::string link_name(const std::string& key) const;
  std::string pool_name(const std::string& key) const;
  std::string site_name(const std::string& key) const;
  bool has(const std::string& metric) const;  // some point has it
  // The K of every metric named `prefix` K `suffix` (servers.K.utilization), sorted.
  std::vector<std::string> keys(const std::string& prefix, const std::string& suffix) const;
};

// Throws scenario::InputError naming the file, what was found and what is expected (not a
// sweep CSV; no successful point).
SweepData read_sweep(const std::string& file);

// Where the formula's knee, N_CPU = t_ideal/t_GPU per device x devices, lies on the x axis of
// one group: exact when x is proportional to N_CPU (a sweep over jobs or threads), else
// interpolated between the points where N_CPU crosses it; NaN when it cannot be placed.
double knee_x(const SweepData& sweep, std::size_t group);
// N_CPU/N_GPU per unit of x when that is the same at every point (a sweep over jobs at fixed
// devices), else 0: the report then labels the x axis in threads per device as well.
double threads_per_device_factor(const SweepData& sweep);

struct SweepFigures {
  std::string file, x_param, x_noun;  // x_noun: "jobs" for workload.jobs, else the path
  chart::Unit x_unit = chart::Unit::Plain;
  std::size_t points = 0, n_points = 0, failed = 0, replications = 0;
  double devices = kNoValue;   // N_GPU when the same at every point
  std::vector<double> knee_x;  // per group
  std::vector<std::string> groups;
  double peak_throughput = kNoValue, peak_throughput_x = kNoValue;
  double t_ideal_s = kNoValue, best_time_per_event_s = kNoValue;
  double peak_device_utilization = kNoValue, peak_latency_p99_s = kNoValue;
  std::map<std::string, double> link_peak_utilization;  // by link name, max over the points
};
SweepFigures sweep_figures(const SweepData& sweep);

// One column per sweep.
Table sweeps_table(const std::vector<SweepFigures>& sweeps);
// What differs in `other` from `base` ("adding 2 devices (4 -> 6)", "moves the knee (formula)
// from 172 to 258 jobs", "the site_uplink peaks at 38% (was 30%)"); the knee of each sweep's
// first line is compared, and only when both sweep the same parameter.
std::vector<std::string> sweep_changes(const SweepFigures& base, const SweepFigures& other);
// The table and, for several sweeps, the changes from the first: for --format text and md.
std::string sweep_summary(const std::vector<SweepFigures>& sweeps, Format format);

}  // namespace sonicsim::report
