// What `calibrate nodes` writes (the scenario fragment and the fit, as JSON) and prints.
#include <cmath>
#include <filesystem>
#include <sstream>

#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::calibration {

namespace {

using ojson = nlohmann::ordered_json;

// A summary lists this many occupancies and the JSON this many rows; a file may hold far more,
// and their residuals are summed in the rms all the same.
constexpr std::size_t kListedOccupancies = 40, kListedRows = 10'000;

ojson parameter_json(const NodeParameter& p) {
  ojson j = {{"value", p.value}};
  // A missing interval (no degrees of freedom) is null; an unbounded end is null too, which
  // nlohmann writes for an infinity.
  j["ci95"] = std::isnan(p.low) ? ojson(nullptr) : ojson::array({p.low, p.high});
  return j;
}

ojson fragment_json(const NodeFit& fit) {
  ojson speed = ojson::object();
  if (fit.hyperthread.fitted) speed["hyperthread"] = fit.node.hyperthread;
  if (fit.memory_bandwidth_threads.fitted)
    speed["memory_bandwidth_threads"] = *fit.node.memory_bandwidth_threads;
  ojson node = {{"cores", fit.node.cores}, {"threads_per_core", fit.node.threads_per_core}};
  if (!speed.empty()) node["speed"] = speed;
  return {{"cpu_time_per_event", fit.cpu_time_per_event.value}, {"node", node}};
}

ojson parameters_json(const NodeFit& fit) {
  ojson params = {{"cpu_time_per_event", parameter_json(fit.cpu_time_per_event)}};
  if (fit.hyperthread.fitted) {
    params["hyperthread"] = parameter_json(fit.hyperthread);
    params["hyperthread"]["at_bound"] = fit.hyperthread.at_bound;
  }
  if (fit.memory_bandwidth_threads.fitted) {
    params["memory_bandwidth_threads"] = parameter_json(fit.memory_bandwidth_threads);
    params["memory_bandwidth_threads"]["identified"] = true;
  } else if (fit.memory_bandwidth_asked) {
    params["memory_bandwidth_threads"] = {{"identified", false},
                                          {"at_least", fit.memory_bandwidth_at_least},
                                          {"why", fit.memory_bandwidth_why}};
  }
  return params;
}

std::string interval_text(const NodeParameter& p, bool time) {
  const auto value = [time](double x) {
    return !std::isfinite(x) ? std::string("inf")
           : time            ? util::format_time(x)
                             : util::formatted("%.4g", x);
  };
  if (std::isnan(p.low)) return "-";
  // Appended rather than `"[" + ...`, which GCC 12 misreads as an overlapping copy (-Wrestrict).
  std::string text = "[";
  text.append(value(p.low)).append(", ").append(value(p.high)).append("]");
  return text;
}

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

}  // namespace

nlohmann::ordered_json to_json(const NodeFit& fit, const NodeMeasurements& m,
                               const std::string& command_line) {
  ojson f;
  f["created_by"] = std::string("sonicsim ") + SONICSIM_VERSION;
  if (!command_line.empty()) f["command"] = command_line;
  f["sources"] = ojson::array({{{"file", std::filesystem::path(m.file).filename().string()},
                                {"path", m.file},
                                {"sha256", m.sha256},
                                {"kind", "node measurements (calibrate nodes)"},
                                {"rows", m.rows.size()}}});
  f["model"] =
      "throughput_per_job = threads_per_job x s(jobs_per_node x threads_per_job) / "
      "cpu_time_per_event, s the node's per-thread speed relative to a thread alone "
      "(docs/nodes.md)";
  f["parameters"] = parameters_json(fit);
  f["dof"] = fit.dof;
  if (!fit.no_interval.empty()) f["no_interval"] = fit.no_interval;
  f["rms_residual"] = fit.rms_residual;
  f["residual"] = "fitted / measured - 1";
  ojson occ = ojson::array();
  for (const auto& o : fit.occupancies)
    occ.push_back({{"busy_threads", o.busy_threads},
                   {"rows", o.rows},
                   {"measured_speed", o.measured_speed},
                   {"fitted_speed", o.fitted_speed},
                   {"capped", o.capped}});
  f["occupancies"] = occ;
  ojson rows = ojson::array();
  for (std::size_t i = 0; i < m.rows.size() && i < kListedRows; ++i) {
    const NodeRow& r = m.rows[i];
    rows.push_back({{"line", r.line},
                    {"jobs_per_node", r.jobs_per_node},
                    {"threads_per_job", r.threads_per_job},
                    {"throughput_per_job", r.throughput_per_job},
                    {"fitted", fit.residuals[i].fitted},
                    {"residual", fit.residuals[i].residual}});
  }
  f["rows"] = rows;
  if (m.rows.size() > kListedRows)
    f["rows_listed"] =
        "the first " + std::to_string(kListedRows) + " of " + std::to_string(m.rows.size());
  f["notes"] = fit.notes;
  return {{"workload", fragment_json(fit)}, {"fit", f}};
}

std::string to_text(const NodeFit& fit, const NodeMeasurements& m) {
  std::ostringstream out;
  out << "node of " << fit.node.cores << " cores x " << fit.node.threads_per_core
      << " threads per core, from " << fit.rows << " rows at " << fit.occupancies.size()
      << " occupancies (" << m.file << ")\n";
  out << "  parameter                 fitted       95% interval\n";
  out << "  cpu_time_per_event        "
      << padded(util::format_time(fit.cpu_time_per_event.value), 12) << " "
      << interval_text(fit.cpu_time_per_event, true) << "  (a thread alone on the node)\n";
  if (fit.hyperthread.fitted)
    out << "  hyperthread               "
        << padded(util::formatted("%.4g", fit.hyperthread.value), 12) << " "
        << interval_text(fit.hyperthread, false)
        << (fit.hyperthread.at_bound ? "  (at its bound)" : "") << "\n";
  if (fit.memory_bandwidth_threads.fitted)
    out << "  memory_bandwidth_threads  "
        << padded(util::formatted("%.4g", fit.memory_bandwidth_threads.value), 12) << " "
        << interval_text(fit.memory_bandwidth_threads, false) << "\n";
  else if (fit.memory_bandwidth_asked)
    out << "  memory_bandwidth_threads  not identified, at least "
        << util::formatted("%.4g", fit.memory_bandwidth_at_least) << ": "
        << fit.memory_bandwidth_why << "\n";
  out << "  " << fit.dof << (fit.dof == 1 ? " degree" : " degrees") << " of freedom, rms residual "
      << util::percent(fit.rms_residual, "%.2f")
      << (fit.no_interval.empty() ? "" : "; no intervals: " + fit.no_interval) << "\n\n";
  out << "  busy threads  rows  measured speed  fitted speed\n";
  for (std::size_t i = 0; i < fit.occupancies.size() && i < kListedOccupancies; ++i) {
    const auto& o = fit.occupancies[i];
    out << util::formatted("  %12g", o.busy_threads)
        << util::formatted("  %4.0f", static_cast<double>(o.rows))
        << util::formatted("  %13.4f", o.measured_speed)
        << util::formatted("  %12.4f", o.fitted_speed) << (o.capped ? "  (capped)" : "") << "\n";
  }
  if (fit.occupancies.size() > kListedOccupancies)
    out << "  ... " << fit.occupancies.size() - kListedOccupancies << " more\n";
  out << "workload: " << fragment_json(fit).dump() << "\n";
  for (const auto& n : fit.notes) out << "note: " << n << "\n";
  return out.str();
}

}  // namespace sonicsim::calibration
