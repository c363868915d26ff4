#include <sonicsim/report/sweep_summary.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/sweep/sweep.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::report {

namespace column {
namespace k = results::keys;
using results::column;
const std::string n_cpu = column({k::top::analytic, k::analytic::n_cpu});
const std::string n_gpu = column({k::top::analytic, k::analytic::n_gpu});
const std::string t_ideal_s = column({k::top::analytic, k::analytic::t_ideal_s});
const std::string t_sonic_s = column({k::top::analytic, k::analytic::t_sonic_s});
const std::string knee_per_device =
    column({k::top::analytic, k::analytic::saturation_n_cpu_per_gpu});
const std::string formula_throughput = column({k::top::analytic, k::analytic::throughput_per_s});
const std::string mva_throughput =
    column({k::top::analytic, k::analytic::mva, k::mva::throughput_per_s});
const std::string mva_time_per_event =
    column({k::top::analytic, k::analytic::mva, k::mva::time_per_event_s});
const std::string throughput = column({k::top::events, k::events::throughput_per_s});
const std::string thread_time_per_event =
    column({k::top::events, k::events::thread_time_per_event_s});
const std::string latency_p50 =
    column({k::top::requests, k::requests::latency_s, k::quantile::p50});
const std::string latency_p99 =
    column({k::top::requests, k::requests::latency_s, k::quantile::p99});
const std::string servers = column({k::top::servers, ""});
const std::string pool_utilization = column({"", k::server::utilization});
const std::string links = column({k::top::links, ""});
const std::string link_peak_utilization = column({"", k::link::peak_utilization});
const std::string link_mean_utilization = column({"", k::link::mean_utilization});
const std::string models = column({k::top::models, ""});
const std::string model_mean_batch_size = column({"", k::model::mean_batch_size});
const std::string sites = column({k::top::sites, ""});
const std::string site_throughput = column({"", k::site::events, k::events::throughput_per_s});
const std::string site_bytes_out = column({"", k::site::bytes_out});
}  // namespace column

namespace {

using scenario::InputError;

const std::string kWhat = " (a sweep CSV: sonicsim sweep -o FILE.csv)";

std::optional<double> plain_number(const std::string& cell) {
  return util::parse_number(cell);
}

// A parameter cell as a number on an axis: plain, or a quantity with a unit ("250us",
// "10Gbps") in SI; the unit kind decides how the axis is labelled.
std::optional<std::pair<double, chart::Unit>> axis_value(const std::string& cell) {
  if (auto v = plain_number(cell)) return std::pair{*v, chart::Unit::Plain};
  using scenario::Quantity;
  for (const auto& [kind, unit] : std::initializer_list<std::pair<Quantity, chart::Unit>>{
           {Quantity::Time, chart::Unit::Seconds},
           {Quantity::Bandwidth, chart::Unit::BytesPerSecond},
           {Quantity::Size, chart::Unit::Plain},
           {Quantity::Rate, chart::Unit::Plain}}) {
    std::string error;
    if (auto v = scenario::parse_quantity(nlohmann::json(cell), kind, error))
      return std::pair{*v, unit};
  }
  return std::nullopt;
}

// Link and pool names from the first run in the JSONL beside the CSV; nothing when absent.
void read_names(SweepData& s) {
  if (s.file.size() < 4 || s.file.substr(s.file.size() - 4) != ".csv") return;
  std::string error;
  const std::string jsonl =
      read_text(s.file.substr(0, s.file.size() - 4) + ".jsonl", error, InputLimits::max_data_bytes);
  const std::string line = jsonl.substr(0, jsonl.find('\n'));
  const auto doc = parse_json_value(line);
  if (!doc || !doc->is_object() || !doc->contains("results") || !(*doc)["results"].is_object())
    return;
  const results::Document results((*doc)["results"]);
  const auto names = [](const auto& parts, std::map<std::string, std::string>& out) {
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (const auto name = parts[i].name()) out[std::to_string(i)] = *name;
  };
  names(results.links(), s.link_names);
  names(results.servers(), s.pool_names);
  if (results.has_sites()) names(results.sites(), s.site_names);
}

double max_of(const SweepData& s, const std::string& metric, double* at_x = nullptr) {
  double best = kNoValue;
  for (const auto& p : s.points) {
    const double v = p.mean(metric);
    if (std::isfinite(v) && !(v <= best)) {
      best = v;
      if (at_x) *at_x = p.x;
    }
  }
  return best;
}

double min_of(const SweepData& s, const std::string& metric) {
  double best = kNoValue;
  for (const auto& p : s.points)
    if (const double v = p.mean(metric); std::isfinite(v) && !(v >= best)) best = v;
  return best;
}

// The same value (within a relative 1e-9) at every point, or NaN.
double constant(const std::vector<double>& values) {
  if (values.empty() || !std::isfinite(values.front())) return kNoValue;
  for (double v : values)
    if (!std::isfinite(v) || std::abs(v - values.front()) > 1e-9 * std::abs(values.front()))
      return kNoValue;
  return values.front();
}

// A value of x with its unit ("100 µs"), and in words ("116.0 jobs", "PATH = 100 µs").
std::string x_value(const SweepFigures& f, double x) {
  return f.x_unit == chart::Unit::Plain ? num(x) : chart::format_value(x, f.x_unit);
}

std::string x_text(const SweepFigures& f, double x) {
  if (!std::isfinite(x)) return "-";
  if (f.x_noun == "jobs") return num(x) + " jobs";
  return f.x_param + " = " + x_value(f, x);
}

}  // namespace

double SweepPoint::mean(const std::string& metric) const {
  const auto it = metrics.find(metric);
  return it == metrics.end() ? kNoValue : it->second.first;
}

double SweepPoint::ci95(const std::string& metric) const {
  const auto it = metrics.find(metric);
  return it == metrics.end() ? kNoValue : it->second.second;
}

std::string SweepData::link_name(const std::string& key) const {
  const auto it = link_names.find(key);
  return it == link_names.end() ? "link " + key : it->second;
}

std::string SweepData::site_name(const std::string& key) const {
  const auto it = site_names.find(key);
  return it == site_names.end() ? "site " + key : it->second;
}

std::string SweepData::pool_name(const std::string& key) const {
  const auto it = pool_names.find(key);
  return it == pool_names.end() ? "pool " + key : it->second;
}

bool SweepData::has(const std::string& metric) const {
  return std::any_of(points.begin(), points.end(),
                     [&](const SweepPoint& p) { return p.metrics.count(metric) > 0; });
}

std::vector<std::string> SweepData::keys(const std::string& prefix,
                                         const std::string& suffix) const {
  std::set<std::string> out;
  for (const auto& p : points)
    for (const auto& [name, v] : p.metrics)
      if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        out.insert(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
  std::vector<std::string> sorted(out.begin(), out.end());
  // Indices sort as numbers (servers.10 after servers.9), names alphabetically.
  std::stable_sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) {
    const auto na = plain_number(a), nb = plain_number(b);
    return na && nb ? *na < *nb : a < b;
  });
  return sorted;
}

SweepData read_sweep(const std::string& file) {
  const sweep::Table table = sweep::read_table(file);
  SweepData s;
  s.file = file;
  std::vector<std::size_t> param_columns;
  std::size_t status_column = 0, replications_column = 0;
  for (std::size_t i = 0; i < table.fixed.size(); ++i) {
    const std::string& h = table.fixed[i];
    if (h.rfind(sweep::kParamColumnPrefix, 0) == 0) {
      s.params.push_back(h.substr(std::string_view(sweep::kParamColumnPrefix).size()));
      param_columns.push_back(i);
    } else if (h == sweep::kStatusColumn) {
      status_column = i;
    } else if (h == sweep::kReplicationsColumn) {
      replications_column = i;
    }
  }
  for (const auto& row : table.rows) {
    s.n_points =
        std::max<std::size_t>(s.n_points, std::strtoull(row.fixed[2].c_str(), nullptr, 10));
    if (status_column == 0 || row.fixed[status_column] != sweep::kStatusOk) {
      ++s.failed;
      continue;
    }
    SweepPoint p;
    p.index = row.point;
    for (std::size_t c : param_columns) p.params.push_back(row.fixed[c]);
    for (const auto& [name, cells] : row.metrics) {
      const auto mean = plain_number(cells.first);
      if (mean) p.metrics[name] = {*mean, plain_number(cells.second).value_or(kNoValue)};
    }
    if (replications_column)
      s.replications = std::max<std::size_t>(
          s.replications, std::strtoull(row.fixed[replications_column].c_str(), nullptr, 10));
    s.points.push_back(std::move(p));
  }
  if (s.points.empty())
    throw InputError(file + kWhat,
                     {{"", "found " + std::to_string(table.rows.size()) +
                               " rows and no successful point, expected at least one row "
                               "with status ok"}});

  // The x axis: the numeric parameter with the most distinct values.
  std::size_t best = s.params.size(), best_count = 0;
  for (std::size_t k = 0; k < s.params.size(); ++k) {
    std::set<double> distinct;
    std::optional<chart::Unit> unit;
    bool numeric = true;
    for (const auto& p : s.points) {
      const auto v = axis_value(p.params[k]);
      if (!v || (unit && *unit != v->second)) {
        numeric = false;
        break;
      }
      unit = v->second;
      distinct.insert(v->first);
    }
    if (numeric && distinct.size() > best_count) {
      best = k;
      best_count = distinct.size();
      s.x_unit = *unit;
    }
  }
  s.x_param = best < s.params.size() ? s.params[best] : "point";
  std::map<std::string, std::size_t> group_of;
  for (auto& p : s.points) {
    p.x = best < s.params.size() ? axis_value(p.params[best])->first : static_cast<double>(p.index);
    std::string label;
    for (std::size_t k = 0; k < s.params.size(); ++k)
      if (k != best) label += (label.empty() ? "" : ", ") + s.params[k] + "=" + p.params[k];
    const auto [it, added] = group_of.try_emplace(label, s.groups.size());
    if (added) s.groups.push_back(label);
    p.group = it->second;
  }
  // Parameters zipped with x move with it: every "line" would be one point. Then there is one
  // line, and the x axis says what moves with it.
  s.x_label = s.x_param;
  if (s.groups.size() > 1 && s.groups.size() == s.points.size()) {
    std::string others;
    for (std::size_t k = 0; k < s.params.size(); ++k)
      if (k != best) others += (others.empty() ? "" : ", ") + s.params[k];
    s.x_label += " (with " + others + ")";
    s.groups = {""};
    for (auto& p : s.points) p.group = 0;
  }
  const auto [lo, hi] =
      std::minmax_element(s.points.begin(), s.points.end(),
                          [](const SweepPoint& a, const SweepPoint& b) { return a.x < b.x; });
  s.x_log = lo->x > 0 && hi->x >= 100 * lo->x;
  std::stable_sort(s.points.begin(), s.points.end(), [](const SweepPoint& a, const SweepPoint& b) {
    return a.group != b.group ? a.group < b.group : a.x < b.x;
  });
  read_names(s);
  return s;
}

double knee_x(const SweepData& s, std::size_t group) {
  std::vector<double> x, threads, knee, ratio;
  for (const auto& p : s.points) {
    if (p.group != group) continue;
    const double n = p.mean(column::n_cpu);
    const double k = p.mean(column::knee_per_device) * p.mean(column::n_gpu);
    if (!std::isfinite(n) || !std::isfinite(k) || !std::isfinite(p.x) || k <= 0) continue;
    x.push_back(p.x);
    threads.push_back(n);
    knee.push_back(k);
    ratio.push_back(p.x != 0 ? n / p.x : kNoValue);
  }
  if (x.empty()) return kNoValue;
  // x proportional to N_CPU at a fixed knee: the knee in x units is exact, even beyond the range.
  const double per_x = constant(ratio), fixed_knee = constant(knee);
  if (std::isfinite(per_x) && per_x > 0 && std::isfinite(fixed_knee)) return fixed_knee / per_x;
  for (std::size_t i = 0; i + 1 < x.size(); ++i) {
    const double a = threads[i] / knee[i] - 1.0, b = threads[i + 1] / knee[i + 1] - 1.0;
    if (a == 0.0) return x[i];
    if ((a < 0) != (b < 0)) return x[i] + (x[i + 1] - x[i]) * a / (a - b);
  }
  return kNoValue;
}

double threads_per_device_factor(const SweepData& s) {
  std::vector<double> factor;
  for (const auto& p : s.points)
    factor.push_back(p.x > 0 ? p.mean(column::n_cpu) / p.x / p.mean(column::n_gpu) : kNoValue);
  const double f = constant(factor);
  return std::isfinite(f) && f > 0 ? f : 0.0;
}

SweepFigures sweep_figures(const SweepData& s) {
  SweepFigures f;
  f.file = s.file;
  f.x_param = s.x_param;
  f.x_noun = s.x_param == "workload.jobs" ? "jobs" : s.x_param;
  f.x_unit = s.x_unit;
  f.points = s.points.size();
  f.n_points = s.n_points;
  f.failed = s.failed;
  f.replications = s.replications;
  f.groups = s.groups;
  std::vector<double> devices;
  for (const auto& p : s.points) devices.push_back(p.mean(column::n_gpu));
  f.devices = constant(devices);
  for (std::size_t g = 0; g < s.groups.size(); ++g) f.knee_x.push_back(knee_x(s, g));
  f.peak_throughput = max_of(s, column::throughput, &f.peak_throughput_x);
  f.t_ideal_s = min_of(s, column::t_ideal_s);
  f.best_time_per_event_s = min_of(s, column::thread_time_per_event);
  for (const auto& k : s.keys(column::servers, column::pool_utilization)) {
    const double u = max_of(s, column::servers + k + column::pool_utilization);
    if (std::isfinite(u) && !(u <= f.peak_device_utilization)) f.peak_device_utilization = u;
  }
  f.peak_latency_p99_s = max_of(s, column::latency_p99);
  for (const auto& k : s.keys(column::links, column::link_peak_utilization))
    f.link_peak_utilization[s.link_name(k)] =
        max_of(s, column::links + k + column::link_peak_utilization);
  return f;
}

Table sweeps_table(const std::vector<SweepFigures>& sweeps) {
  Table t;
  t.headers.push_back("figure");
  for (std::size_t i = 0; i < sweeps.size(); ++i)
    t.headers.push_back((sweeps.size() > 1 && i == 0 ? "baseline: " : "") + sweeps[i].file);
  auto row = [&](const std::string& name, auto value) {
    t.add(name, sweeps.size(), [&](std::size_t i) { return value(sweeps[i]); });
  };
  auto or_dash = [](double v, auto text) { return std::isfinite(v) ? text(v) : std::string("-"); };
  row("swept (x axis)", [](const SweepFigures& f) { return f.x_param; });
  row("points ok / total (failed)", [](const SweepFigures& f) {
    return std::to_string(f.points) + " / " + std::to_string(f.n_points) + " (" +
           std::to_string(f.failed) + ")";
  });
  row("replications", [](const SweepFigures& f) { return std::to_string(f.replications); });
  row("devices (N_GPU)", [&](const SweepFigures& f) { return or_dash(f.devices, num); });
  row("knee (formula)", [](const SweepFigures& f) {
    std::string cell;
    for (std::size_t g = 0; g < f.knee_x.size(); ++g)
      cell += (g ? "; " : "") + x_text(f, f.knee_x[g]) +
              (f.groups[g].empty() ? "" : " at " + f.groups[g]);
    return cell;
  });
  row("peak events/s", [&](const SweepFigures& f) {
    return or_dash(f.peak_throughput, num) + " at " + x_text(f, f.peak_throughput_x);
  });
  row("best time per event / t_ideal", [&](const SweepFigures& f) {
    return or_dash(f.best_time_per_event_s, time_text) + " / " + or_dash(f.t_ideal_s, time_text);
  });
  row("peak device utilization",
      [&](const SweepFigures& f) { return or_dash(f.peak_device_utilization, pct); });
  row("peak request latency p99",
      [&](const SweepFigures& f) { return or_dash(f.peak_latency_p99_s, time_text); });
  std::set<std::string> links;
  for (const auto& f : sweeps)
    for (const auto& [name, u] : f.link_peak_utilization) links.insert(name);
  for (const auto& name : links)
    row(name + " peak utilization", [&](const SweepFigures& f) {
      const auto it = f.link_peak_utilization.find(name);
      return it == f.link_peak_utilization.end() ? std::string("-") : pct(it->second);
    });
  return t;
}

std::vector<std::string> sweep_changes(const SweepFigures& base, const SweepFigures& r) {
  std::vector<std::string> said;
  if (std::isfinite(base.devices) && std::isfinite(r.devices))
    devices_change(base.devices, r.devices, said);
  const double k0 = base.knee_x.empty() ? kNoValue : base.knee_x.front();
  const double k1 = r.knee_x.empty() ? kNoValue : r.knee_x.front();
  if (base.x_param != r.x_param)
    said.push_back("sweeps " + r.x_param + " instead of " + base.x_param);
  else if (std::isfinite(k0) && std::isfinite(k1) && !unchanged(k0, k1))
    said.push_back("moves the knee (formula) from " +
                   (r.x_noun == "jobs" ? num(k0) + " to " + num(k1) + " jobs"
                                       : x_text(base, k0) + " to " + x_value(r, k1)));
  if (std::isfinite(base.peak_throughput) && std::isfinite(r.peak_throughput))
    throughput_change("peak throughput", base.peak_throughput, r.peak_throughput, said);
  if (std::isfinite(base.peak_device_utilization) && std::isfinite(r.peak_device_utilization) &&
      !same_share(base.peak_device_utilization, r.peak_device_utilization))
    said.push_back("peak device utilization " + pct(base.peak_device_utilization) + " -> " +
                   pct(r.peak_device_utilization));
  if (std::isfinite(base.peak_latency_p99_s) && std::isfinite(r.peak_latency_p99_s) &&
      !unchanged(base.peak_latency_p99_s, r.peak_latency_p99_s))
    said.push_back("peak request p99 latency " + time_text(base.peak_latency_p99_s) + " -> " +
                   time_text(r.peak_latency_p99_s));
  link_peak_changes(base.link_peak_utilization, r.link_peak_utilization, said);
  return said;
}

std::string sweep_summary(const std::vector<SweepFigures>& sweeps, Format format) {
  if (sweeps.empty()) return "";
  const Table table = sweeps_table(sweeps);
  std::string out = format == Format::Markdown ? to_markdown(table) : to_text(table);
  for (std::size_t i = 1; i < sweeps.size(); ++i)
    out += comparison_paragraph(sweeps[i].file, sweeps[0].file, sweep_changes(sweeps[0], sweeps[i]),
                                format);
  return out;
}

}  // namespace sonicsim::report
