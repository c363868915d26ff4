// The node measurements CSV of `calibrate nodes` (node_fit.hpp): read, checked, every problem
// named by file, line and column.
#include <algorithm>
#include <cmath>
#include <set>

#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/sha256.hpp>

namespace sonicsim::calibration {

namespace {

using Limits = NodeMeasurementLimits;

// A file of garbage should not print a thousand lines: the first problems say enough.
constexpr std::size_t kMaxNodeProblems = 20;
// A rate the fit divides by and squares: outside this range no events per second are real.
constexpr double kMinRate = 1e-12, kMaxRate = 1e12;

constexpr const char* kJobs = "jobs_per_node";
constexpr const char* kThreads = "threads_per_job";
constexpr const char* kThroughput = "throughput_per_job";

std::string node_cell(int line, std::size_t column = 0, const std::string& name = {}) {
  return util::cell_place(static_cast<std::size_t>(line), column, name);
}

struct NodeParse {
  const std::string& file;
  std::vector<Problem> problems;
  std::vector<std::string> header;
  std::size_t jobs = 0, threads = 0, throughput = 0;  // 1-based columns, 0 when missing

  void add(std::string path, std::string message) {
    if (problems.size() < kMaxNodeProblems)
      problems.push_back({std::move(path), std::move(message)});
  }
  void throw_problems() {
    if (!problems.empty()) throw InputError(file, std::move(problems));
  }
};

void read_node_header(NodeParse& p, int line, const std::string& text) {
  p.header = util::split_csv_trimmed(text, " \t\r");
  if (std::all_of(p.header.begin(), p.header.end(),
                  [](const std::string& c) { return util::parse_number(c).has_value(); }))
    throw InputError(p.file, {{node_cell(line),
                               "found a row of numbers, expected a header row naming "
                               "the columns (jobs_per_node,threads_per_job,"
                               "throughput_per_job)"}});
  const std::vector<std::string> names = {kJobs, kThreads, kThroughput};
  std::size_t* columns[] = {&p.jobs, &p.threads, &p.throughput};
  for (std::size_t i = 0; i < p.header.size(); ++i)
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (p.header[i] != names[k]) continue;
      if (*columns[k])
        p.add(node_cell(line, i + 1, names[k]), "found the column a second time (first in column " +
                                                    std::to_string(*columns[k]) +
                                                    "), expected it once");
      else
        *columns[k] = i + 1;
    }
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (*columns[k]) continue;
    std::string hint;
    for (std::size_t i = 0; i < p.header.size() && hint.empty(); ++i)
      if (const auto h = did_you_mean(p.header[i], {names[k]}); !h.empty())
        hint = "; column " + std::to_string(i + 1) + " is `" + p.header[i] + "`: " + h;
    p.add(node_cell(line), "no column `" + names[k] +
                               "`, expected the columns jobs_per_node, threads_per_job and "
                               "throughput_per_job (events per second per job)" +
                               hint);
  }
  p.throw_problems();
}

// One data row into `row`; false, with its problems added, when a cell is not usable.
bool read_node_row(NodeParse& p, int line, const std::vector<std::string>& cells, NodeRow& row) {
  row.line = line;
  bool ok = true;
  const auto count = [&](std::size_t col, std::int64_t hi, const char* what) -> std::int64_t {
    const std::string& cell = cells[col - 1];
    if (const auto v = util::parse_whole_number(cell, 1, hi)) return *v;
    p.add(node_cell(line, col, p.header[col - 1]),
          "found " + (cell.empty() ? std::string("an empty cell") : "`" + cell + "`") +
              ", expected a whole number from 1 to " + util::format_count(static_cast<double>(hi)) +
              " (" + what + ")");
    ok = false;
    return 0;
  };
  row.jobs_per_node = count(p.jobs, Limits::max_jobs_per_node, "copies of the job on the node");
  row.threads_per_job = count(p.threads, Limits::max_threads_per_job, "threads of each job");
  const std::string& cell = cells[p.throughput - 1];
  const auto v = util::parse_number(cell);
  if (!v || *v < kMinRate || *v > kMaxRate) {
    p.add(node_cell(line, p.throughput, kThroughput),
          "found " + (cell.empty() ? std::string("an empty cell") : "`" + cell + "`") +
              ", expected events per second per job, a number from 1e-12 to 1e12");
    return false;
  }
  row.throughput_per_job = *v;
  return ok;
}

}  // namespace

NodeMeasurements read_node_measurements(const std::string& path) {
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the node measurements: " + error}});
  return parse_node_measurements(text, path);
}

NodeMeasurements parse_node_measurements(const std::string& text, const std::string& file) {
  NodeMeasurements out;
  out.file = file;
  out.sha256 = sha256_hex(text);
  if (text.find('\0') != std::string::npos)
    throw InputError(file, {{"", "found binary data, expected a CSV text file"}});
  const auto lines = util::csv_data_lines(text);
  if (lines.empty())
    throw InputError(file, {{"",
                             "found no header and no data, expected a header row "
                             "(jobs_per_node,threads_per_job,throughput_per_job) and one "
                             "row per measured job"}});
  NodeParse p{file, {}, {}, 0, 0, 0};
  read_node_header(p, lines[0].first, lines[0].second);
  std::set<double> occupancies;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const int line = lines[k].first;
    if (out.rows.size() == Limits::max_rows) {
      p.add(node_cell(line), "found more than " + util::format_count(Limits::max_rows) +
                                 " data rows, expected at most that many (a few repeats of a few "
                                 "occupancies are enough)");
      break;
    }
    const auto cells = util::split_csv_trimmed(lines[k].second, " \t\r");
    if (cells.size() != p.header.size()) {
      p.add(node_cell(line), "found " + std::to_string(cells.size()) +
                                 (cells.size() == 1 ? " cell" : " cells") + ", expected " +
                                 std::to_string(p.header.size()) + " like the header");
      continue;
    }
    NodeRow row;
    if (!read_node_row(p, line, cells, row)) continue;
    out.rows.push_back(row);
    occupancies.insert(row.busy_threads());
  }
  p.throw_problems();
  if (occupancies.size() < 2)
    p.add("", "found " + std::to_string(out.rows.size()) +
                  (out.rows.size() == 1 ? " row" : " rows") + " at " +
                  std::to_string(occupancies.size()) +
                  " occupancy (busy threads = jobs_per_node x threads_per_job" +
                  (occupancies.empty() ? "" : ": " + util::exact_number(*occupancies.begin())) +
                  "), expected at least 2 distinct occupancies: the node's speed shows only in "
                  "how throughput changes as the node fills");
  if (occupancies.size() > Limits::max_occupancies)
    p.add("", "found " + std::to_string(occupancies.size()) +
                  " distinct occupancies (jobs_per_node x threads_per_job), expected at most " +
                  std::to_string(Limits::max_occupancies));
  p.throw_problems();
  return out;
}

}  // namespace sonicsim::calibration
