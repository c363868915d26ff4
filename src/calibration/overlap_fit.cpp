#include <sonicsim/calibration/overlap_fit.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::calibration {

namespace {

using util::format_time;

// How far X x Server Compute Infer may exceed the concurrency before a row counts as
// contradicting itself rather than as noise of its two averages.
constexpr double kLittleSlack = 1.1;

// Shortest text that reads back as the same number ("1.6", "2").
std::string format_number(double x) {
  return util::exact_number(x);
}

// The pairs (mean executions, relative throughput) of every row, t from concurrency 1.
OverlapFit measured_points(const std::vector<PerfAnalyzerScan>& scans) {
  if (scans.empty())
    throw InputError("", {{"", "found no perf_analyzer file, expected one or more"}});
  OverlapFit fit;
  fit.batch_size = scans.front().batch_size;
  double alone_sum = 0.0;
  int alone_rows = 0;
  std::vector<double> concurrencies;
  for (const auto& scan : scans) {
    if (scan.mode != LoadMode::Concurrency)
      throw InputError(scan.file, {{"",
                                    "found a request-rate scan, expected a concurrency scan "
                                    "(perf_analyzer --concurrency-range 1:N)"}});
    if (scan.batch_size != fit.batch_size)
      throw InputError(scan.file,
                       {{"", "found batch size " + std::to_string(scan.batch_size) + " after " +
                                 std::to_string(fit.batch_size) +
                                 ", expected every file at one batch size (the curve is the "
                                 "device's at that batch size)"}});
    for (const auto& row : scan.rows) {
      OverlapMeasured m;
      m.file = scan.file;
      m.line = row.line;
      m.concurrency = row.load;
      m.requests_per_s = row.inferences_per_s / fit.batch_size;
      m.compute_infer_s = row.compute_infer_us * 1e-6;
      fit.measured.push_back(m);
      concurrencies.push_back(row.load);
      if (row.load == 1.0) {
        alone_sum += m.compute_infer_s;
        ++alone_rows;
      }
    }
  }
  const std::string& file = scans.front().file;
  if (alone_rows == 0) {
    std::ostringstream seen;
    for (std::size_t i = 0; i < concurrencies.size(); ++i)
      seen << (i ? ", " : "") << format_number(concurrencies[i]);
    throw InputError(file, {{"", "found no row at concurrency 1 (concurrencies: " + seen.str() +
                                     "), expected a scan from concurrency 1 (perf_analyzer "
                                     "--concurrency-range 1:N): the curve is relative to one "
                                     "execution alone"}});
  }
  fit.alone_s = alone_sum / alone_rows;
  if (!(fit.alone_s > 0.0))
    throw InputError(file, {{"",
                             "found Server Compute Infer 0 at concurrency 1, expected the "
                             "execution's time on the device"}});
  for (auto& m : fit.measured) {
    m.executions = m.requests_per_s * m.compute_infer_s;
    m.throughput = m.requests_per_s * fit.alone_s;
  }
  std::stable_sort(fit.measured.begin(), fit.measured.end(),
                   [](const OverlapMeasured& a, const OverlapMeasured& b) {
                     return a.concurrency < b.concurrency;
                   });
  return fit;
}

// The measured relation read at n executions: through (1, 1) and the rows above one execution.
double throughput_at(const std::vector<std::pair<double, double>>& points, double n) {
  for (std::size_t i = 1; i < points.size(); ++i)
    if (n <= points[i].first) {
      const auto& [n0, w0] = points[i - 1];
      const auto& [n1, w1] = points[i];
      return n1 > n0 ? w0 + (n - n0) / (n1 - n0) * (w1 - w0) : w1;
    }
  return points.back().second;
}

}  // namespace

OverlapFit fit_overlap(const std::vector<PerfAnalyzerScan>& scans) {
  OverlapFit fit = measured_points(scans);
  // At concurrency C at most C requests are outstanding, so the device holds at most C
  // executions (Little's law bounds X x Server Compute Infer by it). A little above is the noise
  // of two averages taken over the same window; far above, the row's figures contradict each
  // other, and the curve they would draw (up to the executions the row claims, millions) says
  // nothing true: refused by row.
  for (auto& m : fit.measured) {
    if (m.executions <= m.concurrency) continue;
    if (m.executions > kLittleSlack * m.concurrency)
      throw InputError(
          m.file, {{"line " + std::to_string(m.line),
                    "found " + format_number(m.executions) +
                        " executions on the device on average (X x Server Compute "
                        "Infer = " +
                        format_number(m.requests_per_s) + "/s x " + format_time(m.compute_infer_s) +
                        ") at concurrency " + format_number(m.concurrency) +
                        ", expected at most the concurrency: at most that many "
                        "requests are outstanding (are Server Compute Infer in us "
                        "and the batch size right?)"}});
    fit.notes.push_back("at concurrency " + format_number(m.concurrency) + " X x Server Compute " +
                        "Infer gives " + format_number(m.executions) + " executions: read as " +
                        format_number(m.concurrency) + " (no more requests were outstanding)");
    m.executions = m.concurrency;  // X, hence the throughput X t, stays as measured
  }
  std::vector<std::pair<double, double>> points = {{1.0, 1.0}};
  double most = 0.0;
  const OverlapMeasured* fullest = nullptr;
  for (const auto& m : fit.measured) {
    if (m.executions > 1.0) points.emplace_back(m.executions, m.throughput);
    if (!fullest || m.executions > most) {
      most = m.executions;
      fullest = &m;
    }
  }
  std::sort(points.begin() + 1, points.end());
  // A scenario's curve stops at scenario::Limits::max_instances executions; beyond its last
  // point the curve is flat, which is all a longer measurement could add there.
  const int top = static_cast<int>(
      std::min(std::floor(most + 1e-9), static_cast<double>(scenario::Limits::max_instances)));
  if (most + 1e-9 >= scenario::Limits::max_instances + 1.0)
    fit.notes.push_back("the device held " + format_number(most) +
                        " executions on average at most; the curve stops at " +
                        std::to_string(scenario::Limits::max_instances) +
                        ", the most a scenario's overlap curve holds (flat beyond)");
  if (top < 2)
    throw InputError(scans.front().file,
                     {{"", "found at most " + format_number(most) +
                               " executions on the device on average (X x Server Compute Infer, "
                               "at concurrency " +
                               format_number(fullest->concurrency) +
                               "), expected at least 2: measure higher concurrencies against a "
                               "model with an instance_group count of 2 or more"}});
  for (int k = 1; k <= top; ++k) {
    double w = k == 1 ? 1.0 : std::round(throughput_at(points, k) * 1e4) / 1e4;
    if (k > 1) {
      const double before = fit.throughput.back();
      const double linear = before * k / (k - 1);
      if (w < before) {
        fit.notes.push_back("throughput " + format_number(w) + " at " + std::to_string(k) +
                            " executions is below " + format_number(before) + " at " +
                            std::to_string(k - 1) + ": held at " + format_number(before) +
                            " (measurement noise, or a device that slows down when crowded)");
        w = before;
      } else if (w > linear) {
        fit.notes.push_back("throughput " + format_number(w) + " at " + std::to_string(k) +
                            " executions is superlinear (" + format_number(before) + " at " +
                            std::to_string(k - 1) + "): capped at " + format_number(linear) +
                            " (executions alone ran slower at concurrency 1: warm-up?)");
        w = linear;
      }
    }
    fit.executions.push_back(k);
    fit.throughput.push_back(w);
  }
  const double last = fit.throughput.back();
  if (last > 0.95 * top)
    fit.notes.push_back("the throughput grew almost linearly up to " + std::to_string(top) +
                        " executions: the device was not full there; measure higher "
                        "concurrencies to see where it saturates (the curve is flat beyond "
                        "its last point)");
  if (fullest->executions < 0.5 * fullest->concurrency)
    fit.notes.push_back("at concurrency " + format_number(fullest->concurrency) +
                        " the device held only " + format_number(fullest->executions) +
                        " executions on average: the client, the network or too few instances "
                        "limited the load");
  return fit;
}

nlohmann::ordered_json to_json(const OverlapFit& fit, const std::string& device,
                               const std::vector<PerfAnalyzerScan>& scans) {
  nlohmann::ordered_json doc;
  doc["device"] = device;
  doc["overlap"] = {{"executions", fit.executions}, {"throughput", fit.throughput}};
  doc["batch_size"] = fit.batch_size;
  doc["alone_s"] = fit.alone_s;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& m : fit.measured)
    rows.push_back({{"file", m.file},
                    {"line", m.line},
                    {"concurrency", m.concurrency},
                    {"requests_per_s", m.requests_per_s},
                    {"compute_infer_s", m.compute_infer_s},
                    {"executions", m.executions},
                    {"throughput", m.throughput}});
  doc["measured"] = rows;
  doc["notes"] = fit.notes;
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const auto& s : scans) files.push_back({{"path", s.file}, {"sha256", s.sha256}});
  doc["files"] = files;
  return doc;
}

std::string to_text(const OverlapFit& fit, const std::string& device) {
  std::ostringstream out;
  out << "overlap of device " << device << " at batch " << fit.batch_size
      << " (one execution alone: " << format_time(fit.alone_s) << ")\n";
  out << "  concurrency  requests/s  compute infer  executions  throughput\n";
  for (const auto& m : fit.measured)
    out << util::formatted("  %11g", m.concurrency) << util::formatted("  %10.1f", m.requests_per_s)
        << "  "
        << std::string(13 - std::min<std::size_t>(13, format_time(m.compute_infer_s).size()), ' ')
        << format_time(m.compute_infer_s) << util::formatted("  %10.3f", m.executions)
        << util::formatted("  %10.3f\n", m.throughput);
  out << "devices." << device << ".overlap = {\"executions\": [";
  for (std::size_t i = 0; i < fit.executions.size(); ++i)
    out << (i ? ", " : "") << format_number(fit.executions[i]);
  out << "], \"throughput\": [";
  for (std::size_t i = 0; i < fit.throughput.size(); ++i)
    out << (i ? ", " : "") << format_number(fit.throughput[i]);
  out << "]}\n";
  for (const auto& n : fit.notes) out << "note: " << n << "\n";
  return out.str();
}

}  // namespace sonicsim::calibration
