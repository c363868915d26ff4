#include <sonicsim/calibration/perf_analyzer.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/csv.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/sha256.hpp>
#include <sonicsim/util/text.hpp>

namespace sonicsim::calibration {

namespace {

using scenario::InputError;
using scenario::Problem;
using util::parse_number;

// perf_analyzer's cells and lines may carry Windows line ends.
std::string trim(std::string_view s) {
  return std::string(util::trim(s, " \t\r\n"));
}

std::vector<std::string> split_csv(const std::string& line) {
  return util::split_csv_trimmed(line, " \t\r\n");
}

// perf_analyzer's per-GPU metric cells: `GPU-uuid:0.81;GPU-uuid2:0.90;` -> mean over GPUs.
std::optional<double> parse_gpu_metric(const std::string& text) {
  if (text.find(':') == std::string::npos) return std::nullopt;
  double sum = 0.0;
  int n = 0;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ';')) {
    item = trim(item);
    if (item.empty()) continue;
    const auto colon = item.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    const auto v = parse_number(trim(item.substr(colon + 1)));
    if (!v) return std::nullopt;
    sum += *v;
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

struct Column {
  const char* name;
  double PerfAnalyzerRow::*field;
  double hi;
  const char* expected;
};

// The scenario's own ranges (scenario/limits.hpp), in the file's units: a time is at most
// Limits::max_time_s, a throughput at most Limits::max_arrival_rate requests of the largest
// batch Triton takes (a generous 1e6 items).
constexpr double kMaxUs = scenario::Limits::max_time_s * 1e6;
constexpr double kMaxItemsPerS = scenario::Limits::max_arrival_rate * 1e6;
constexpr const char* kTimeUs = "a time in microseconds from 0 to 1e15";

const Column kRequired[] = {
    {"Inferences/Second", &PerfAnalyzerRow::inferences_per_s, kMaxItemsPerS,
     "a throughput in items/s from 0 to 1e15"},
    {"Client Send", &PerfAnalyzerRow::client_send_us, kMaxUs, kTimeUs},
    {"Network+Server Send/Recv", &PerfAnalyzerRow::network_server_us, kMaxUs, kTimeUs},
    {"Server Queue", &PerfAnalyzerRow::server_queue_us, kMaxUs, kTimeUs},
    {"Server Compute Input", &PerfAnalyzerRow::compute_input_us, kMaxUs, kTimeUs},
    {"Server Compute Infer", &PerfAnalyzerRow::compute_infer_us, kMaxUs, kTimeUs},
    {"Server Compute Output", &PerfAnalyzerRow::compute_output_us, kMaxUs, kTimeUs},
    {"Client Recv", &PerfAnalyzerRow::client_recv_us, kMaxUs, kTimeUs},
    {"p50 latency", &PerfAnalyzerRow::p50_us, kMaxUs, kTimeUs},
    {"p90 latency", &PerfAnalyzerRow::p90_us, kMaxUs, kTimeUs},
    {"p95 latency", &PerfAnalyzerRow::p95_us, kMaxUs, kTimeUs},
    {"p99 latency", &PerfAnalyzerRow::p99_us, kMaxUs, kTimeUs},
};

// The load of one row: a concurrency is a count of threads (the emulation runs that many),
// a request rate an arrival rate; both within the scenario's limits.
std::optional<double> parse_load(LoadMode mode, const std::string& cell) {
  if (mode == LoadMode::Concurrency) {
    const auto n = util::parse_whole_number(cell, 1, scenario::Limits::max_threads);
    return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
  }
  const auto v = parse_number(cell);
  if (!v || !(*v > 0.0) || *v > scenario::Limits::max_arrival_rate) return std::nullopt;
  return v;
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::optional<int> batch_size_from_name(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  static const std::regex pattern(R"((?:^|[_\-.])(?:batch|bs|b)[_\-]?(\d+)(?=$|[_\-.]))",
                                  std::regex::icase);
  std::smatch m;
  if (std::regex_search(name, m, pattern)) {
    if (const auto v = util::parse_whole_number(m[1].str(), 1, 1'000'000))
      return static_cast<int>(*v);
  }
  return std::nullopt;
}

std::vector<std::string> perf_analyzer_header(LoadMode mode) {
  std::vector<std::string> h{mode == LoadMode::Concurrency ? "Concurrency" : "Request Rate"};
  for (const Column& c : kRequired) h.emplace_back(c.name);
  return h;
}

PerfAnalyzerScan read_perf_analyzer_csv(const std::string& path, std::optional<int> batch_size) {
  std::string error;
  const std::string text = read_text(path, error);
  if (!error.empty()) throw InputError(path, {{"", "cannot read the file: " + error}});

  PerfAnalyzerScan scan;
  scan.file = path;
  scan.sha256 = sha256_hex(text);
  if (batch_size) {
    scan.batch_size = *batch_size;
    scan.batch_source = "flag";
  } else if (auto b = batch_size_from_name(path)) {
    scan.batch_size = *b;
    scan.batch_source = "file name";
  } else {
    throw InputError(path, {{"", "found no batch size in the file name `" +
                                     std::filesystem::path(path).filename().string() +
                                     "`, expected a name like `model_batch16.csv` or the flag "
                                     "-b/--batch-size"}});
  }

  std::vector<std::string> lines;
  {
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) lines.push_back(line);
  }
  std::size_t header_at = 0;
  while (header_at < lines.size() && trim(lines[header_at]).empty()) ++header_at;
  if (header_at == lines.size())
    throw InputError(path, {{"",
                             "found an empty file, expected a perf_analyzer CSV with a header "
                             "line starting `Concurrency,Inferences/Second,...`"}});
  const std::string header_line = trim(lines[header_at]);
  const std::string at_header = "line " + std::to_string(header_at + 1);
  if (header_line.find(',') == std::string::npos) {
    const char* delim = header_line.find(';') != std::string::npos    ? "semicolons"
                        : header_line.find('\t') != std::string::npos ? "tabs"
                                                                      : nullptr;
    throw InputError(path,
                     {{at_header, delim ? std::string("found columns separated by ") + delim +
                                              ", expected commas (perf_analyzer's CSV)"
                                        : "found " + quoted(header_line.substr(0, 60)) +
                                              ", expected a perf_analyzer CSV header such as "
                                              "`Concurrency,Inferences/Second,Client Send,...`"}});
  }
  scan.columns = split_csv(header_line);

  std::map<std::string, std::size_t> index;
  std::vector<Problem> problems;
  for (std::size_t i = 0; i < scan.columns.size(); ++i) {
    const auto [first, fresh] = index.emplace(scan.columns[i], i);
    // Which of two `Client Send` columns holds the measurement? Neither can be trusted.
    if (!fresh && !scan.columns[i].empty())
      problems.push_back({util::cell_place(header_at + 1, i + 1, scan.columns[i]),
                          "found the column a second time (first in column " +
                              std::to_string(first->second + 1) + "), expected each once"});
  }
  std::size_t load_col;
  if (index.count("Concurrency")) {
    scan.mode = LoadMode::Concurrency;
    load_col = index["Concurrency"];
  } else if (index.count("Request Rate")) {
    scan.mode = LoadMode::RequestRate;
    load_col = index["Request Rate"];
  } else {
    problems.push_back({at_header,
                        "found no `Concurrency` or `Request Rate` column, expected one "
                        "of them (perf_analyzer's load column)"});
    load_col = 0;
  }
  for (const Column& c : kRequired) {
    if (index.count(c.name)) continue;
    std::string hint;
    for (const auto& have : scan.columns)
      if (lower(have) == lower(c.name)) hint = " (found `" + have + "`: names are case-sensitive)";
    problems.push_back({at_header, std::string("missing column `") + c.name +
                                       "`, expected perf_analyzer's native columns" + hint});
  }
  if (!problems.empty()) throw InputError(path, std::move(problems));

  for (std::size_t li = header_at + 1; li < lines.size(); ++li) {
    const std::string line = trim(lines[li]);
    // perf_analyzer may append further sections after a blank line (server-side statistics of
    // composing models); the measurement table ends there.
    if (line.empty()) break;
    const auto cells = split_csv(line);
    const std::string where = util::cell_place(li + 1);
    const auto place = [&](std::size_t col) {
      return util::cell_place(li + 1, col + 1, scan.columns[col]);
    };
    if (cells.size() < scan.columns.size() &&
        !(cells.size() + 1 == scan.columns.size() && scan.columns.back().empty())) {
      problems.push_back({where, "found " + std::to_string(cells.size()) + " cells, expected " +
                                     std::to_string(scan.columns.size()) +
                                     " (one per header column)"});
      continue;
    }
    PerfAnalyzerRow row;
    row.line = static_cast<int>(li + 1);
    const auto refuse = [&](std::size_t col, const std::string& expected) {
      problems.push_back({place(col), "found " + quoted(cells[col]) + ", expected " + expected});
    };
    if (auto v = parse_load(scan.mode, cells[load_col]))
      row.load = *v;
    else
      refuse(load_col, scan.mode == LoadMode::Concurrency
                           ? "a whole number of concurrent requests from 1 to " +
                                 std::to_string(scenario::Limits::max_threads)
                           : std::string("a request rate in requests/s, > 0 and at most 1e9"));
    for (const Column& c : kRequired) {
      const std::size_t col = index[c.name];
      const auto v = parse_number(cells[col]);
      if (v && *v >= 0.0 && *v <= c.hi)
        row.*c.field = *v;
      else
        refuse(col, c.expected);
    }
    for (std::size_t col = 0; col < scan.columns.size() && col < cells.size(); ++col) {
      const std::string& name = scan.columns[col];
      if (name.empty() || col == load_col) continue;
      if (std::any_of(std::begin(kRequired), std::end(kRequired),
                      [&](const Column& c) { return name == c.name; }))
        continue;
      if (cells[col].empty()) continue;
      auto v = parse_number(cells[col]);
      if (!v) v = parse_gpu_metric(cells[col]);
      if (!v) {
        refuse(col, "a number or per-GPU values `uuid:value;...`");
        continue;
      }
      if (name == "Avg latency")
        row.avg_latency_us = *v;
      else
        row.extra[name] = *v;
    }
    scan.rows.push_back(std::move(row));
  }
  if (!problems.empty()) throw InputError(path, std::move(problems));
  if (scan.rows.empty())
    throw InputError(path, {{at_header,
                             "found a header and no measurement row, expected at "
                             "least one row"}});
  std::sort(scan.rows.begin(), scan.rows.end(),
            [](const auto& a, const auto& b) { return a.load < b.load; });
  return scan;
}

std::string write_perf_analyzer_csv(LoadMode mode, std::vector<PerfAnalyzerRow> rows,
                                    bool with_avg_latency) {
  // perf_analyzer sorts its summary by throughput before writing it.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.inferences_per_s < b.inferences_per_s;
  });
  std::ostringstream out;
  const auto header = perf_analyzer_header(mode);
  for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
  if (with_avg_latency) out << ",Avg latency";
  out << "\n";
  auto us = [](double v) { return static_cast<long long>(std::llround(v)); };
  for (const auto& r : rows) {
    char load[64], ips[64];
    if (mode == LoadMode::Concurrency)
      std::snprintf(load, sizeof load, "%lld", us(r.load));
    else
      std::snprintf(load, sizeof load, "%g", r.load);
    std::snprintf(ips, sizeof ips, "%g", std::round(r.inferences_per_s * 1000.0) / 1000.0);
    out << load << "," << ips << "," << us(r.client_send_us) << "," << us(r.network_server_us)
        << "," << us(r.server_queue_us) << "," << us(r.compute_input_us) << ","
        << us(r.compute_infer_us) << "," << us(r.compute_output_us) << "," << us(r.client_recv_us)
        << "," << us(r.p50_us) << "," << us(r.p90_us) << "," << us(r.p95_us) << "," << us(r.p99_us);
    if (with_avg_latency) out << "," << us(r.mean_latency_us());
    out << "\n";
  }
  return out.str();
}

}  // namespace sonicsim::calibration
