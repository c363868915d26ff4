#include <sonicsim/report/client_report.hpp>

#include <algorithm>

namespace sonicsim::report {

using results::Quantile;

void read_clients(const results::Document& doc, RunFigures& f) {
  for (const auto& m : doc.modules()) {
    if (!m.served()) continue;  // nothing waited for: its inference is CPU work
    const std::string workload = m.workload().value_or("");
    RunFigures::Module mod;
    mod.name = (workload.empty() ? "" : workload + "/") + m.model().value_or("?");
    mod.wait_mean_s = m.wait_s().at(Quantile::Mean);
    mod.wait_p99_s = m.wait_s().at(Quantile::P99);
    mod.cpu_s = m.module_cpu_time_s();
    f.modules.push_back(std::move(mod));
  }
  for (const auto& n : doc.nodes())
    f.nodes.push_back({n.workload().value_or(""), n.mean_occupancy(), n.mean_speed_factor(),
                       n.cpu_only_speed_factor(), n.speedup_vs_cpu_only()});
}

namespace {
template <class Item>
std::vector<std::string> names_of(const std::vector<RunFigures>& runs,
                                  std::vector<Item> RunFigures::*items, std::string Item::*name) {
  std::vector<std::string> out;
  for (const auto& r : runs)
    for (const auto& it : r.*items)
      if (std::find(out.begin(), out.end(), it.*name) == out.end()) out.push_back(it.*name);
  return out;
}
}  // namespace

void add_client_rows(Table& t, const std::vector<RunFigures>& runs) {
  auto row = [&](const std::string& name, auto value) {
    t.add(name, runs.size(), [&](std::size_t i) { return value(runs[i]); });
  };
  for (const auto& name : names_of(runs, &RunFigures::modules, &RunFigures::Module::name))
    row("module " + name + ": wait mean / p99 (+ its CPU)",
        [&](const RunFigures& r) -> std::string {
          for (const auto& m : r.modules) {
            if (m.name != name) continue;
            std::string text = time_text(m.wait_mean_s) + " / " + time_text(m.wait_p99_s);
            if (m.cpu_s > 0.0) text += " (module time " + time_text(m.wait_mean_s + m.cpu_s) + ")";
            return text;
          }
          return "–";
        });
  for (const auto& name : names_of(runs, &RunFigures::nodes, &RunFigures::Nodes::workload))
    row("nodes" + (name.empty() ? std::string() : " " + name) +
            ": occupancy, speed (CPU-only), speed-up",
        [&](const RunFigures& r) -> std::string {
          for (const auto& n : r.nodes) {
            if (n.workload != name) continue;
            return pct(n.occupancy) + ", " + num(n.speed_factor) + " (" +
                   num(n.cpu_only_speed_factor) + "), " +
                   (n.speedup_vs_cpu_only ? num(*n.speedup_vs_cpu_only) : std::string("–"));
          }
          return "–";
        });
}

}  // namespace sonicsim::report
