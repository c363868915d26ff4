// Measured scans (CSV) that `sonicsim compare` and `sonicsim calibrate scan` hold the model
// against, and the metrics they name.
//
// Format (docs/calibration.md): a header row, then one row per measured point. The x column is
// named like the last segment of --vary (`jobs` for workload.jobs), or exactly the --vary path,
// or given with --x. Metric columns carry results names (per_job_throughput_per_s,
// throughput_per_s, time_per_event_s, thread_time_per_event_s); `<metric>_stddev` columns give
// the measurement's standard deviation. Blank lines and lines starting with `#` are skipped.
// Every problem names the file, the line and the column; all are reported at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::calibration {

enum class Metric { PerJobThroughput, Throughput, TimePerEvent, ThreadTimePerEvent };

const std::vector<Metric>& all_metrics();
// The results name, also the CSV column: "per_job_throughput_per_s", ...
const char* metric_name(Metric m);
std::optional<Metric> metric_from_name(std::string_view name);
// Seconds per event (a time) or events per second (a rate).
bool is_time(Metric m);
// In plain words, for tables: "events per second per job", ...
const char* metric_description(Metric m);

// The metric in a results JSON (SPEC section 6); time_per_event_s is the mean. NaN if absent.
double metric_of_results(const nlohmann::json& results, Metric m);
// The metric of a closed system running `throughput` events per second over `threads` threads
// and `jobs` jobs (synchronous threads: time per event = threads / throughput).
double metric_of_throughput(Metric m, double throughput, double threads, double jobs);

struct Measurement {
  double x = 0.0;
  double value = 0.0;
  double stddev = 0.0;  // 0 when the file has no `<metric>_stddev` column
  int line = 0;         // 1-based line in the file
};

struct Measurements {
  std::string file;
  std::string x_column;
  int x_index = 0;  // 1-based column
  Metric metric = Metric::PerJobThroughput;
  int metric_index = 0;
  bool has_stddev = false;
  std::vector<Measurement> rows;
};

struct MeasurementOptions {
  std::string vary;      // the --vary path (workload.jobs)
  std::string x_column;  // --x, "" to derive it from `vary`
  std::string metric;    // --metric, "" when only one metric column is present
  std::size_t min_rows = 2;
  std::string min_rows_reason;  // why, for the message ("3 free parameters + 1")
};

// Reads and checks a measurements file; throws scenario::InputError naming the file, the line
// and the column of every problem (or "--metric" for an unknown metric name).
Measurements read_measurements(const std::string& path, const MeasurementOptions& options);
// Same from text; `file` names the source in messages.
Measurements parse_measurements(const std::string& text, const std::string& file,
                                const MeasurementOptions& options);

// The --set value for an x: integers without a decimal point (workload.jobs=4, not 4.0).
std::string format_x(double x);

// The column name the --vary path implies: its last dotted segment ("count" for servers.0.count).
std::string default_x_column(const std::string& vary);

}  // namespace sonicsim::calibration
