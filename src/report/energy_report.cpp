#include <sonicsim/report/energy_report.hpp>

#include <algorithm>
#include <cmath>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/results_format/keys.hpp>

namespace sonicsim::report {

namespace column {
const std::string energy_per_event =
    results::column({results::keys::top::energy, results::keys::energy::per_event_j});
const std::string cost_per_event =
    results::column({results::keys::top::cost, results::keys::cost::per_event});
}  // namespace column

namespace {

std::string optional_num(const std::optional<double>& v, const std::string& unit) {
  return v ? num(*v) + unit : "–";
}

std::string mean_cell(const SweepPoint& p, const std::string& metric, const std::string& unit) {
  const double v = p.mean(metric);
  return std::isfinite(v) ? num(v) + unit : "–";
}

}  // namespace

void read_energy(const results::Document& doc, RunFigures& f) {
  if (doc.has_energy()) {
    const auto e = doc.energy();
    f.energy_per_event_j = e.per_event_j();
    f.mean_power_w = e.mean_power_w();
    f.energy_devices_j = e.devices_j();
    f.energy_hosts_j = e.hosts_j();
    f.energy_client_cores_j = e.client_cores_j();
  }
  if (doc.has_cost()) f.cost_per_event = doc.cost().per_event();
}

void add_energy_rows(Table& t, const std::vector<RunFigures>& runs) {
  const bool energy = std::any_of(runs.begin(), runs.end(),
                                  [](const RunFigures& r) { return r.mean_power_w.has_value(); });
  const bool cost = std::any_of(runs.begin(), runs.end(),
                                [](const RunFigures& r) { return r.cost_per_event.has_value(); });
  if (energy) {
    t.add("energy per event", runs.size(),
          [&](std::size_t i) { return optional_num(runs[i].energy_per_event_j, " J"); });
    t.add("mean power", runs.size(),
          [&](std::size_t i) { return optional_num(runs[i].mean_power_w, " W"); });
  }
  if (cost)
    t.add("cost per event", runs.size(),
          [&](std::size_t i) { return optional_num(runs[i].cost_per_event, ""); });
}

std::vector<Panel> energy_panels(const RunFigures& run) {
  if (!run.energy_per_event_j || !run.mean_power_w) return {};
  const double total = run.energy_devices_j + run.energy_hosts_j + run.energy_client_cores_j;
  const double scale = total > 0.0 ? *run.energy_per_event_j / total : 0.0;
  chart::BarChart c;
  c.title = "Energy per event by component";
  c.note = "energy.components over the events completed after warm-up (docs/servers.md)";
  c.y = {"joules per event", chart::Unit::Plain, true};
  c.categories = {"devices", "hosts", "client cores"};
  c.series = {"energy per event"};
  c.values = {{run.energy_devices_j * scale, run.energy_hosts_j * scale,
               run.energy_client_cores_j * scale}};
  return {{c.title, chart::render(c), ""}};
}

bool has_energy(const SweepData& sweep) {
  return sweep.has(column::energy_per_event) || sweep.has(column::cost_per_event);
}

Table energy_table(const SweepData& sweep) {
  Table t;
  t.headers = {sweep.x_label, "devices (N_GPU)", "events/s", "energy per event", "cost per event"};
  for (const auto& p : sweep.points) {
    const std::string group = sweep.groups[p.group].empty() ? "" : sweep.groups[p.group] + ", ";
    t.rows.push_back({group + chart::format_value(p.x, sweep.x_unit),
                      mean_cell(p, column::n_gpu, ""), mean_cell(p, column::throughput, ""),
                      mean_cell(p, column::energy_per_event, " J"),
                      mean_cell(p, column::cost_per_event, "")});
  }
  return t;
}

std::string energy_tables(const std::vector<SweepData>& sweeps, Format format) {
  std::string out;
  for (const auto& s : sweeps) {
    if (!has_energy(s)) continue;
    const Table t = energy_table(s);
    if (format == Format::Markdown)
      out += "\n### Energy and cost per event: " + s.file + "\n\n" + to_markdown(t);
    else
      out += "\nenergy and cost per event: " + s.file + "\n" + to_text(t);
  }
  return out;
}

}  // namespace sonicsim::report
