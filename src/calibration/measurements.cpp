#include <sonicsim/calibration/measurements.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::calibration {

namespace {

using scenario::InputError;
using scenario::Problem;
using util::parse_number;

// A file of garbage should not print a thousand lines: the first problems say enough.
constexpr std::size_t kMaxProblems = 20;
// The range of a measured metric or its standard deviation, and of an x value (a scenario
// parameter: Limits keeps those far smaller).
constexpr double kMinMeasured = 1e-12, kMaxMeasured = 1e12, kMaxX = 1e15;

// Spreadsheets quote header names; a quoted number is still a number.
std::vector<std::string> split_cells(const std::string& line) {
  return util::split_csv_trimmed(line, " \t\r");
}

std::string where(int line, int column = 0, const std::string& name = {}) {
  return util::cell_place(static_cast<std::size_t>(line), static_cast<std::size_t>(column), name);
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", `" : "`") + names[i] + "`";
  return out;
}

std::vector<std::string> metric_names() {
  std::vector<std::string> names;
  for (Metric m : all_metrics()) names.push_back(metric_name(m));
  return names;
}

std::string expected_columns(const std::string& x) {
  return "expected the x column `" + x + "`, metric columns " + quoted_list(metric_names()) +
         " and optional `<metric>_stddev` columns";
}

}  // namespace

const std::vector<Metric>& all_metrics() {
  static const std::vector<Metric> all = {Metric::PerJobThroughput, Metric::Throughput,
                                          Metric::TimePerEvent, Metric::ThreadTimePerEvent};
  return all;
}

// The results keys of `events`: a measurements file names its columns like the results.
const char* metric_name(Metric m) {
  namespace ev = results::keys::events;
  switch (m) {
    case Metric::PerJobThroughput:
      return ev::per_job_throughput_per_s;
    case Metric::Throughput:
      return ev::throughput_per_s;
    case Metric::TimePerEvent:
      return ev::time_per_event_s;
    case Metric::ThreadTimePerEvent:
      return ev::thread_time_per_event_s;
  }
  return "?";
}

const char* metric_description(Metric m) {
  switch (m) {
    case Metric::PerJobThroughput:
      return "events per second per job";
    case Metric::Throughput:
      return "events per second, all jobs";
    case Metric::TimePerEvent:
      return "mean time per event per thread";
    case Metric::ThreadTimePerEvent:
      return "thread time per event, threads / throughput";
  }
  return "?";
}

std::optional<Metric> metric_from_name(std::string_view name) {
  for (Metric m : all_metrics())
    if (name == metric_name(m)) return m;
  return std::nullopt;
}

bool is_time(Metric m) {
  return m == Metric::TimePerEvent || m == Metric::ThreadTimePerEvent;
}

double metric_of_results(const nlohmann::json& run, Metric m) {
  const results::Document doc(run);
  const auto events = doc.events();
  switch (m) {
    case Metric::PerJobThroughput:
      return events.per_job_throughput_per_s();
    case Metric::Throughput:
      return events.throughput_per_s();
    case Metric::TimePerEvent:
      return events.time_per_event_s().at(results::Quantile::Mean);
    case Metric::ThreadTimePerEvent:
      return events.thread_time_per_event_s();
  }
  return kNaN;
}

double metric_of_throughput(Metric m, double throughput, double threads, double jobs) {
  switch (m) {
    case Metric::PerJobThroughput:
      return throughput / jobs;
    case Metric::Throughput:
      return throughput;
    case Metric::TimePerEvent:
    case Metric::ThreadTimePerEvent:
      return threads / throughput;
  }
  return kNaN;
}

std::string format_x(double x) {
  return util::exact_number(x);
}

std::string default_x_column(const std::string& vary) {
  const std::size_t dot = vary.rfind('.');
  return dot == std::string::npos ? vary : vary.substr(dot + 1);
}

Measurements read_measurements(const std::string& path, const MeasurementOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, {{"", "found a directory, expected a measurements CSV file"}});
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the measurements file: " + error}});
  return parse_measurements(text, path, options);
}

namespace {

// One measurements file being read: what is known so far and every problem found (the first
// kMaxProblems of them).
struct MeasurementsParse {
  const std::string& file;
  const MeasurementOptions& options;
  Measurements out;
  std::vector<Problem> problems;
  int header_line = 0;
  std::vector<std::string> header;
  int stddev_index = 0;

  void add(std::string path, std::string message) {
    if (problems.size() < kMaxProblems) problems.push_back({std::move(path), std::move(message)});
  }
  void throw_problems() {
    if (!problems.empty()) throw InputError(file, std::move(problems));
  }
  std::string example() const {
    const std::string x =
        options.x_column.empty() ? default_x_column(options.vary) : options.x_column;
    return "e.g. `" + (x.empty() ? std::string("jobs") : x) + "," +
           metric_name(Metric::PerJobThroughput) + "`";
  }
  int column_of(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i) + 1;
    return 0;
  }
};

void read_header(MeasurementsParse& p, const std::pair<int, std::string>& first) {
  p.header_line = first.first;
  p.header = split_cells(first.second);
  bool all_numbers = true;
  for (const auto& c : p.header) all_numbers = all_numbers && parse_number(c).has_value();
  if (all_numbers) {
    throw InputError(p.file, {{where(p.header_line),
                               "found a row of numbers, expected a header "
                               "row naming the columns (" +
                                   p.example() + ")"}});
  }
  for (std::size_t i = 0; i < p.header.size(); ++i) {
    if (p.header[i].empty())
      p.add(where(p.header_line, static_cast<int>(i) + 1), "found an empty column name");
    for (std::size_t k = 0; k < i; ++k)
      if (!p.header[i].empty() && p.header[i] == p.header[k])
        p.add(where(p.header_line, static_cast<int>(i) + 1, p.header[i]),
              "found the column a second time (first in column " + std::to_string(k + 1) + ")");
  }
}

void find_x_column(MeasurementsParse& p) {
  const MeasurementOptions& options = p.options;
  std::string x_name = options.x_column;
  if (x_name.empty()) {
    x_name = p.column_of(options.vary) ? options.vary : default_x_column(options.vary);
  }
  p.out.x_column = x_name;
  p.out.x_index = p.column_of(x_name);
  if (p.out.x_index == 0) {
    // A misspelt x column also gets its own "unknown column; did you mean" below.
    const std::string how = options.x_column.empty()
                                ? "the x column is named like the last part of --vary " +
                                      options.vary + " (`" + default_x_column(options.vary) +
                                      "`) or exactly `" + options.vary +
                                      "`; name it so, or pass --x COLUMN"
                                : "--x names the column that holds the --vary values";
    p.add(where(p.header_line),
          "no column `" + x_name + "` among " + quoted_list(p.header) + "; " + how);
  }
}

// Metric and stddev columns; anything else is a typo until proven otherwise. Returns the
// metric columns (1-based).
std::vector<int> metric_columns(MeasurementsParse& p) {
  const std::string& x_name = p.out.x_column;
  std::vector<std::string> known = metric_names();
  for (const auto& n : metric_names()) known.push_back(n + "_stddev");
  std::vector<int> columns;
  for (std::size_t i = 0; i < p.header.size(); ++i) {
    const std::string& name = p.header[i];
    const int col = static_cast<int>(i) + 1;
    if (name.empty() || col == p.out.x_index) continue;
    if (metric_from_name(name)) {
      columns.push_back(col);
      continue;
    }
    const std::string suffix = "_stddev";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      const std::string base = name.substr(0, name.size() - suffix.size());
      if (metric_from_name(base)) {
        if (!p.column_of(base))
          p.add(where(p.header_line, col, name),
                "found a standard deviation without its metric column `" + base + "`");
        continue;
      }
    }
    std::vector<std::string> candidates = known;
    if (p.out.x_index == 0) candidates.push_back(x_name);
    const std::string hint = did_you_mean(name, candidates);
    p.add(where(p.header_line, col, name), "unknown column" + (hint.empty() ? "" : "; " + hint) +
                                               " (" + expected_columns(x_name) + ")");
  }
  return columns;
}

// Which metric: --metric, else the one metric column there is.
void choose_metric(MeasurementsParse& p, const std::vector<int>& metric_columns) {
  const MeasurementOptions& options = p.options;
  if (!options.metric.empty()) {
    const auto m = metric_from_name(options.metric);
    if (!m) {
      const std::string hint = did_you_mean(options.metric, metric_names());
      throw InputError("--metric",
                       {{"", "found `" + options.metric + "`, expected one of " +
                                 quoted_list(metric_names()) + (hint.empty() ? "" : "; " + hint)}});
    }
    p.out.metric = *m;
    p.out.metric_index = p.column_of(options.metric);
    if (p.out.metric_index == 0)
      p.add(where(p.header_line), "no column `" + options.metric + "` for --metric " +
                                      options.metric + " among " + quoted_list(p.header));
  } else if (metric_columns.empty()) {
    p.add(where(p.header_line), "no metric column among " + quoted_list(p.header) +
                                    ", expected one of " + quoted_list(metric_names()));
  } else if (metric_columns.size() > 1) {
    std::vector<std::string> names;
    for (int c : metric_columns) names.push_back(p.header[c - 1]);
    p.add(where(p.header_line), "found several metric columns (" + quoted_list(names) +
                                    "), expected one, or pick one with --metric");
  } else {
    p.out.metric_index = metric_columns[0];
    p.out.metric = *metric_from_name(p.header[p.out.metric_index - 1]);
  }
  p.stddev_index =
      p.out.metric_index ? p.column_of(std::string(metric_name(p.out.metric)) + "_stddev") : 0;
  p.out.has_stddev = p.stddev_index > 0;
}

// One data row; false (with its problems added) when a cell the fit needs is not usable.
bool read_row(MeasurementsParse& p, int line, const std::vector<std::string>& cells,
              Measurement& row) {
  const Measurements& out = p.out;
  row.line = line;
  bool ok = true;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int col = static_cast<int>(i) + 1;
    const bool needed = col == out.x_index || col == out.metric_index || col == p.stddev_index;
    // Other metrics may have gaps; what is there must still be a number.
    if (!needed && cells[i].empty()) continue;
    const auto v = parse_number(cells[i]);
    if (!v) {
      p.add(where(line, col, p.header[i]),
            cells[i].empty()
                ? "found an empty cell, expected a number"
                : "found `" + cells[i] + "`, expected a number" +
                      (is_time(out.metric) && col == out.metric_index ? " in seconds (no unit)"
                                                                      : ""));
      ok = ok && !needed;
      continue;
    }
    // A fit squares and inverts these (weights 1/stddev^2): outside [1e-12, 1e12] it would
    // overflow, and no measured time in seconds or rate per second lies there.
    const auto measured = [&](const char* expected) {
      if (*v >= kMinMeasured && *v <= kMaxMeasured) return true;
      p.add(where(line, col, p.header[i]), "found " + cells[i] + ", expected " + expected);
      return false;
    };
    if (col == out.x_index) {
      if (std::fabs(*v) > kMaxX) {
        p.add(where(line, col, p.header[i]),
              "found " + cells[i] + ", expected a value from -1e15 to 1e15");
        ok = false;
      }
      row.x = *v;
    }
    if (col == out.metric_index) {
      ok = measured(is_time(out.metric)
                        ? "a positive time in seconds from 1e-12 to 1e12"
                        : "a positive rate in events per second from 1e-12 to 1e12") &&
           ok;
      row.value = *v;
    }
    if (col == p.stddev_index) {
      ok = measured(
               "a positive standard deviation from 1e-12 to 1e12 (it weights the point by "
               "1/stddev^2)") &&
           ok;
      row.stddev = *v;
    }
  }
  return ok;
}

}  // namespace

Measurements parse_measurements(const std::string& text, const std::string& file,
                                const MeasurementOptions& options) {
  MeasurementsParse p{file, options, {}, {}, 0, {}, 0};
  p.out.file = file;
  const auto lines = util::csv_data_lines(text);
  if (text.find('\0') != std::string::npos)
    throw InputError(file, {{"", "found binary data, expected a CSV text file"}});
  if (lines.empty()) {
    throw InputError(file, {{"", "the file has no header and no data, expected a header row (" +
                                     p.example() + ") and one row per measured point"}});
  }
  read_header(p, lines[0]);
  find_x_column(p);
  choose_metric(p, metric_columns(p));
  p.throw_problems();

  for (std::size_t k = 1; k < lines.size(); ++k) {
    const int line = lines[k].first;
    const std::vector<std::string> cells = split_cells(lines[k].second);
    if (cells.size() != p.header.size()) {
      p.add(where(line), "found " + std::to_string(cells.size()) +
                             (cells.size() == 1 ? " cell" : " cells") + ", expected " +
                             std::to_string(p.header.size()) + " like the header (" +
                             quoted_list(p.header) + ")");
      continue;
    }
    Measurement row;
    if (read_row(p, line, cells, row)) p.out.rows.push_back(row);
  }
  if (p.problems.empty() && p.out.rows.size() < options.min_rows) {
    p.add("", "found " + std::to_string(p.out.rows.size()) +
                  (p.out.rows.size() == 1 ? " data row" : " data rows") + ", expected at least " +
                  std::to_string(options.min_rows) +
                  (options.min_rows_reason.empty() ? "" : " (" + options.min_rows_reason + ")"));
  }
  p.throw_problems();
  return p.out;
}

}  // namespace sonicsim::calibration
