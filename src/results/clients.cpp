// The client side's blocks of the results: `modules` (the time each event waited for each request
// kind, docs/results.md) and `nodes` (each workload's worker nodes, docs/nodes.md), and their
// lines in the summary.
#include <cstdio>
#include <string>
#include <vector>

#include <sonicsim/util/format.hpp>

#include "blocks.hpp"

namespace sonicsim::results::detail {

namespace {
struct NodeFigures {
  double mean_busy = 0.0, occupancy = 0.0, speed = 0.0, throughput = 0.0;
};
NodeFigures figures_of(const engine::RunMetrics& m, const engine::RunMetrics::Workload& mw) {
  const auto& n = *mw.nodes;
  NodeFigures f;
  const double node_seconds = static_cast<double>(n.count) * m.span();
  f.mean_busy = node_seconds > 0.0 ? n.busy_seconds / node_seconds : 0.0;
  f.occupancy = n.hardware_threads > 0 ? f.mean_busy / n.hardware_threads : 0.0;
  // No busy time: nothing ran, and the speed it would have had is the idle node's, 1.
  f.speed = n.busy_seconds > 0.0 ? n.work_seconds / n.busy_seconds : 1.0;
  f.throughput = static_cast<double>(mw.events_completed) / m.span();
  return f;
}
}  // namespace

ojson modules_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace md = k::module;
  ojson all = ojson::array();
  for (const auto& mod : m.modules) {
    const auto& w = s.workloads[mod.workload];
    const auto& r = w.requests[mod.request];
    ojson j;
    j[md::workload] = w.name;
    j[md::request] = mod.request;
    j[md::model] = r.model;
    j[md::served] = s.devices_hosting(r.model, mod.workload) > 0;
    j[md::requests_per_event] = r.per_event;
    j[md::wait_s] = quantiles(mod.wait, true);
    j[md::module_cpu_time_s] = r.module_cpu_time;
    // The module's own CPU time is a constant per event: every quantile moves by it.
    ojson total = quantiles(mod.wait, true);
    for (auto& [key, value] : total.items()) value = value.get<double>() + r.module_cpu_time;
    j[md::module_time_s] = std::move(total);
    all.push_back(std::move(j));
  }
  return all;
}

std::vector<std::string> modules_summary(const scenario::Scenario& s, const engine::RunMetrics& m) {
  std::vector<std::string> lines;
  // A line per module is worth its space only for a few of them; the file has them all.
  constexpr std::size_t kMostLines = 8;
  char line[512];
  for (std::size_t i = 0; i < m.modules.size() && i < kMostLines; ++i) {
    const auto& mod = m.modules[i];
    const auto& w = s.workloads[mod.workload];
    const auto& r = w.requests[mod.request];
    if (s.devices_hosting(r.model, mod.workload) == 0 || mod.wait.count() == 0) continue;
    const std::string who = (w.name.empty() ? "" : w.name + " ") + r.model;
    std::snprintf(line, sizeof line, "module     %-20s waits mean %s  p50 %s  p99 %s per event",
                  who.c_str(), util::format_time(mod.wait.mean()).c_str(),
                  util::format_time(mod.wait.quantile(0.5)).c_str(),
                  util::format_time(mod.wait.quantile(0.99)).c_str());
    std::string text = line;
    if (r.module_cpu_time > 0.0) {
      std::snprintf(line, sizeof line, "; with its %s of CPU: module time mean %s  p99 %s",
                    util::format_time(r.module_cpu_time).c_str(),
                    util::format_time(mod.wait.mean() + r.module_cpu_time).c_str(),
                    util::format_time(mod.wait.quantile(0.99) + r.module_cpu_time).c_str());
      text += line;
    }
    lines.push_back(std::move(text));
  }
  if (m.modules.size() > kMostLines)
    lines.push_back("           ... and " + std::to_string(m.modules.size() - kMostLines) +
                    " more modules in the results file (`modules`)");
  return lines;
}

ojson nodes_json(const scenario::Scenario& s, const engine::RunMetrics& m) {
  namespace nd = k::nodes;
  ojson all = ojson::array();
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& mw = m.workloads[i];
    if (!mw.nodes) continue;
    const auto& n = *mw.nodes;
    const NodeFigures f = figures_of(m, mw);
    ojson j;
    j[nd::workload] = s.workloads[i].name;
    j[nd::count] = n.count;
    j[nd::hardware_threads] = n.hardware_threads;
    j[nd::mean_busy_threads] = f.mean_busy;
    j[nd::mean_occupancy] = f.occupancy;
    j[nd::mean_speed_factor] = f.speed;
    j[nd::cpu_only_speed_factor] = n.cpu_only_speed_factor;
    j[nd::cpu_only_throughput_per_s] = n.cpu_only_events_per_s;
    // Jobs that come and go have no steady CPU-only baseline to compare with.
    j[nd::speedup_vs_cpu_only] = s.workloads[i].flow || n.cpu_only_events_per_s <= 0.0
                                     ? ojson(nullptr)
                                     : ojson(f.throughput / n.cpu_only_events_per_s);
    all.push_back(std::move(j));
  }
  return all;
}

std::vector<std::string> nodes_summary(const scenario::Scenario& s, const engine::RunMetrics& m) {
  std::vector<std::string> lines;
  char line[512];
  const auto out = [&](const char* format, auto... args) {
    std::snprintf(line, sizeof line, format, args...);
    lines.emplace_back(line);
  };
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const auto& mw = m.workloads[i];
    if (!mw.nodes) continue;
    const auto& n = *mw.nodes;
    const NodeFigures f = figures_of(m, mw);
    const std::string who = s.single_workload() ? "" : " (" + s.workloads[i].name + ")";
    out("nodes%s      %llu x %d hardware threads: %.1f busy on average (%.0f%%), speed factor %.3f "
        "(CPU-only on the same nodes %.3f)",
        who.c_str(), static_cast<unsigned long long>(n.count), n.hardware_threads, f.mean_busy,
        100.0 * f.occupancy, f.speed, n.cpu_only_speed_factor);
    if (!s.workloads[i].flow && n.cpu_only_events_per_s > 0.0)
      out("           %.4g events/s against %.4g /s CPU-only on the same nodes: speed-up %.3f",
          f.throughput, n.cpu_only_events_per_s, f.throughput / n.cpu_only_events_per_s);
  }
  return lines;
}

}  // namespace sonicsim::results::detail
