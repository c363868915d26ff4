// The series of the exports as the import works on them: read and checked file by file
// (prometheus_read.cpp for Prometheus' query_range, prometheus_grafana.cpp for Grafana's data
// frames), then laid on the windows (prometheus_import.cpp). Private to src/telemetry.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/telemetry/prometheus_import.hpp>

namespace sonicsim::telemetry::prom {

struct Sample {
  double t = 0.0, v = 0.0;
};

// One series: its metric name, the labels the import uses and its samples, time-ordered, NaN
// and infinities already skipped.
struct StoredSeries {
  std::string metric, pool, model, version, replica;
  bool has_model = false;
  // Time-ordered once merge_repeated_series() ran; until then, the runs of every result entry
  // and file that held the series, one after another in the order read.
  std::vector<Sample> samples;
  bool repeated = false;  // more than one run: merge_repeated_series() sorts it
};

// Bytes per item of `import prometheus`'s peak, measured as the slope of its peak RSS while one
// count varied (Release, x86-64; docs/limits.md#imports-of-measured-metrics): a pool/model pair's
// window holds nine counter accumulators, ten values, their JSON and their text; a pool's window
// three; a window the clients' three and its end. A file's JSON tree is parsed whole, about ten
// times its text (a sample [1700000000,"3"] of 22 bytes takes 200 in the tree).
struct ImportCosts {
  double fixed = 42e6;  // the process with nothing read
  double json_tree_per_byte = 10.0;
  double sample = 40.0;  // kept, its window for the replica count, the merge's buffer
  double series = 600.0;
  double pair_window = 730.0;
  double pool_window = 220.0;
  double window = 140.0;
};
inline constexpr ImportCosts kImportCosts;

// Throws InputError (flag --memory-budget) saying the estimate, the budget and its largest parts.
[[noreturn]] void over_budget(double bytes, double budget, const std::string& largest);

struct ReadState {
  // Keyed by the whole label set, so that the same series exported twice (overlapping files)
  // is merged rather than counted twice.
  std::map<std::string, StoredSeries> series;
  // Series read but not used, by (metric name, why): how many.
  std::map<std::pair<std::string, std::string>, std::size_t> unused;
  ImportReport report;
  std::vector<SourceFile> files;  // read, with their SHA-256
};

// Reads one file (a query_range response or an array of them, or one of Grafana's exports) into
// `state`; throws InputError naming the file and the JSON path.
void read_export(const std::string& path, const ImportOptions& o, ReadState& state);

// The series given in several result entries or files (overlapping exports) as one history,
// each instant once, the first run read that holds an instant giving its value. Each such series
// is sorted once, after every file is read: merging at every repeat re-sorted the whole history
// each time, quadratic in the repeats (a 9 MB file of one series in 9,000 entries took 46 s).
void merge_repeated_series(ReadState& state);

// A JSON value as a message shows it: "null", "an object", "the string \"x\"", ...
std::string shown(const nlohmann::json& v);

// Where every format's series enter the state, so that the caps, the checks of values and
// times, the labels the import uses and the merging of a series exported twice are the same
// whatever the file's format.
class SeriesIntake {
 public:
  SeriesIntake(const std::string& file, const ImportOptions& o, ReadState& s)
      : file_(file), o_(o), s_(s) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const;

  // One more series or sample read at `path`; refused past the caps.
  void count_series(const std::string& path);
  void count_sample(const std::string& path);
  void count_non_finite() { ++s_.report.non_finite_samples; }

  // Refuses a negative value of a metric sonicsim uses (`found` is how the file wrote it), and
  // a time not after the series' previous one.
  void check_value(double v, const std::string& metric, const std::string& path,
                   const std::string& found) const;
  void check_order(double t, double& last_t, const std::string& path) const;

  // The message for a series without __name__ (an expression's result), naming its labels.
  static std::string no_name_message(const nlohmann::json& labels);

  // A checked series with its labels (an object of strings); kept when it is a metric sonicsim
  // uses with the labels it needs, counted as unused otherwise.
  void store(const nlohmann::json& labels, const std::string& metric, std::vector<Sample> samples);

 private:
  std::string label(const nlohmann::json& labels, const std::string& name) const;

  const std::string& file_;
  const ImportOptions& o_;
  ReadState& s_;
};

// Grafana's exports (prometheus_grafana.cpp): whether `doc` has the shape of one (a
// /api/ds/query response, the query inspector's copy of it, "DataFrame JSON (from Query)",
// "Panel data", a frame), and reading it.
bool is_grafana_export(const nlohmann::json& doc);
void read_grafana(const nlohmann::json& doc, SeriesIntake& in);

}  // namespace sonicsim::telemetry::prom
