#include <sonicsim/report/panels.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <sonicsim/report/chart.hpp>
#include <sonicsim/report/energy_report.hpp>
#include <sonicsim/results_format/keys.hpp>

namespace sonicsim::report {

namespace {

// Named one by one: a using-directive would reach the later files of a unity batch.
using chart::Axis;
using chart::BarChart;
using chart::format_value;
using chart::kBlack;
using chart::kPaletteSize;
using chart::render;
using chart::Series;
using chart::StackedBarChart;
using chart::Style;
using chart::Unit;
using chart::XYChart;
using Timeseries = RunFigures::Timeseries;
namespace k = results::keys;

// Past the palette's eight colours, lines repeat a colour dashed so that they stay apart.
Style cycle_style(std::size_t index) {
  return index < kPaletteSize ? Style::Line : Style::Dashed;
}

Panel skip(const std::string& title, const std::string& why) {
  return {title, "", why};
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ---- runs ----------------------------------------------------------------------------------

// Windows without requests hold 0 for latency and batch size: no value, not a zero.
std::vector<double> zero_as_missing(std::vector<double> v) {
  for (double& x : v)
    if (x == 0.0) x = kNoValue;
  return v;
}

XYChart time_chart(const RunFigures& run, const std::string& title, const Axis& y) {
  XYChart c;
  c.title = title;
  c.x = {"simulated time", Unit::Seconds, true};
  c.y = y;
  if (run.warmup_s > 0) c.markers.push_back({run.warmup_s, "end of warm-up", kBlack});
  return c;
}

// One line per device, like a Grafana per-server panel; with many devices, per pool the mean
// with the lowest and highest device dotted, so the panel stays readable.
std::vector<Series> device_series(const Timeseries& ts,
                                  std::vector<double> Timeseries::Device::*field) {
  std::vector<Series> out;
  if (ts.devices.size() <= 12) {
    for (std::size_t d = 0; d < ts.devices.size(); ++d)
      out.push_back({ts.devices[d].pool + " #" + num(ts.devices[d].index),
                     ts.t_s,
                     ts.devices[d].*field,
                     {},
                     cycle_style(d),
                     d});
    return out;
  }
  std::vector<std::string> pools;
  for (const auto& d : ts.devices)
    if (std::find(pools.begin(), pools.end(), d.pool) == pools.end()) pools.push_back(d.pool);
  for (std::size_t p = 0; p < pools.size(); ++p) {
    std::vector<double> lo(ts.t_s.size(), kNoValue), hi = lo, sum(ts.t_s.size(), 0.0);
    double n = 0;
    for (const auto& d : ts.devices) {
      if (d.pool != pools[p]) continue;
      n += 1;
      for (std::size_t i = 0; i < ts.t_s.size() && i < (d.*field).size(); ++i) {
        const double v = (d.*field)[i];
        sum[i] += v;
        lo[i] = std::isfinite(lo[i]) ? std::min(lo[i], v) : v;
        hi[i] = std::isfinite(hi[i]) ? std::max(hi[i], v) : v;
      }
    }
    for (double& s : sum) s /= n;
    out.push_back({pools[p] + " mean of " + num(n), ts.t_s, sum, {}, Style::Line, p});
    out.push_back({pools[p] + " lowest", ts.t_s, lo, {}, Style::Dotted, p});
    out.push_back({pools[p] + " highest", ts.t_s, hi, {}, Style::Dotted, p});
  }
  return out;
}

void add_model_series(XYChart& c, const Timeseries& ts,
                      std::vector<double> Timeseries::Model::*field, const std::string& suffix,
                      Style style, bool zero_missing) {
  std::size_t colour = 0;
  for (const auto& [name, m] : ts.models) {
    const auto& v = m.*field;
    c.series.push_back({name + suffix,
                        ts.t_s,
                        zero_missing ? zero_as_missing(v) : v,
                        {},
                        colour >= kPaletteSize ? Style::Dotted : style,
                        colour});
    ++colour;
  }
}

// Per event: CPU, network and overheads, queue, compute. Sync clients wait for each request,
// so the request parts add up with the CPU to the time per event, and the CPU share is what
// is left. Async clients overlap them: the CPU share is then the formula's (1 - p) t_CPU.
// Empty when the results lack the per-model figures.
std::vector<double> simulated_split(const RunFigures& run) {
  double requests = 0, queue = 0, compute = 0;
  for (const auto& [name, m] : run.models) {
    requests += m.requests_per_event * m.latency_mean_s;
    queue += m.requests_per_event * m.queue_mean_s;
    compute += m.requests_per_event * m.compute_mean_s;
  }
  if (requests <= 0) return {};
  const double cpu = run.mode == "async" ? (1.0 - run.p) * run.t_cpu_s
                                         : std::max(0.0, run.time_per_event_s - requests);
  return {cpu, std::max(0.0, requests - queue - compute), queue, compute};
}

std::vector<double> formula_split(const RunFigures& run) {
  return {(1.0 - run.p) * run.t_cpu_s, run.t_latency_s, kNoValue, run.t_gpu_s};
}

const std::vector<std::string> kSplitParts{"CPU", "network and overheads", "queue", "compute"};
const std::string kSplitNote =
    "sync: CPU = time per event - requests' latency; network = latency - queue - execution";

Panel run_bars(const std::string& title, const Axis& y, const std::vector<RunFigures>& runs,
               const std::vector<std::string>& categories,
               const std::function<double(const RunFigures&, std::size_t)>& value) {
  BarChart c;
  c.title = title;
  c.y = y;
  c.categories = categories;
  bool drawn = false;
  for (const auto& r : runs) {
    c.series.push_back(base_name(r.file));
    std::vector<double> v;
    for (std::size_t k = 0; k < categories.size(); ++k) {
      v.push_back(value(r, k));
      drawn = drawn || std::isfinite(v.back());
    }
    c.values.push_back(v);
  }
  if (!drawn) return skip(title, "none of the runs has these figures");
  return {title, render(c), ""};
}

// ---- sweeps --------------------------------------------------------------------------------

// One line of a sweep chart: a group of one sweep, its label prefix and its first colour.
struct Line {
  const SweepData* sweep;
  std::size_t group;
  std::string prefix;
};

std::vector<Line> sweep_lines(const std::vector<SweepData>& sweeps) {
  std::vector<Line> out;
  for (const auto& s : sweeps)
    for (std::size_t g = 0; g < s.groups.size(); ++g) {
      std::string prefix = sweeps.size() > 1 ? base_name(s.file) : "";
      if (!s.groups[g].empty()) prefix += (prefix.empty() ? "" : " ") + s.groups[g];
      out.push_back({&s, g, prefix.empty() ? "" : prefix + ": "});
    }
  return out;
}

// What a sweep chart draws per line and key: the metric `prefix KEY suffix`, how and whether
// with its confidence band.
struct LineKind {
  std::string suffix, what;
  Style style = Style::LinePoints;
  bool band = false;
};

Series sweep_series(const Line& line, const std::string& metric, const std::string& label,
                    const LineKind& kind, std::size_t colour) {
  Series s{label, {}, {}, {}, kind.style, colour};
  bool any_band = false;
  for (const auto& p : line.sweep->points) {
    if (p.group != line.group) continue;
    const double y = p.mean(metric);
    if (!std::isfinite(y)) continue;
    s.x.push_back(p.x);
    s.y.push_back(y);
    s.band.push_back(kind.band ? p.ci95(metric) : kNoValue);
    any_band = any_band || std::isfinite(s.band.back());
  }
  if (!any_band) s.band.clear();
  return s;
}

struct SweepChart {
  std::string title, note;
  Axis y;
  // Metrics are `prefix KEY kind.suffix` for every KEY of `prefix`...`kinds[0].suffix` in the
  // sweep; with an empty prefix there is one unnamed key and the suffix is the whole name.
  std::string prefix;
  std::vector<LineKind> kinds;
  std::function<std::string(const SweepData&, const std::string&)> key_name;
  bool knee = false;
};

std::vector<std::string> keys_of(const SweepData& s, const SweepChart& spec) {
  if (spec.prefix.empty()) return {""};
  return s.keys(spec.prefix, spec.kinds.front().suffix);
}

Panel sweep_chart(const std::vector<SweepData>& sweeps, const SweepChart& spec) {
  XYChart c;
  c.title = spec.title;
  c.note = spec.note;
  const bool log =
      std::all_of(sweeps.begin(), sweeps.end(), [](const SweepData& s) { return s.x_log; });
  c.x = {sweeps.front().x_label, sweeps.front().x_unit, false, log};
  c.y = spec.y;
  const double factor = threads_per_device_factor(sweeps.front());
  if (factor > 0 && std::all_of(sweeps.begin(), sweeps.end(), [&](const SweepData& s) {
        return s.x_param == sweeps.front().x_param &&
               std::abs(threads_per_device_factor(s) - factor) <= 1e-9 * factor;
      })) {
    c.x2_label = "N_CPU/N_GPU";
    c.x2_factor = factor;
  }
  std::size_t colour = 0;
  for (const auto& line : sweep_lines(sweeps)) {
    for (const auto& key : keys_of(*line.sweep, spec)) {
      const std::string name =
          key.empty() ? "" : (spec.key_name ? spec.key_name(*line.sweep, key) : key);
      bool drawn = false;
      for (const auto& kind : spec.kinds) {
        const std::string label =
            line.prefix + name + (name.empty() || kind.what.empty() ? "" : " ") + kind.what;
        Series s = sweep_series(line, spec.prefix + key + kind.suffix, label, kind, colour);
        if (s.x.empty()) continue;
        c.series.push_back(std::move(s));
        drawn = true;
      }
      if (spec.knee && drawn) {
        const double k = knee_x(*line.sweep, line.group);
        c.markers.push_back({k, line.prefix + "knee " + format_value(k, c.x.unit), colour});
      }
      colour += drawn ? 1 : 0;
    }
  }
  const std::string first =
      spec.prefix + (spec.prefix.empty() ? "" : "K") + spec.kinds.front().suffix;
  if (c.series.empty())
    return skip(spec.title, "no sweep has the column " + first + ".mean: not drawn");
  return {spec.title, render(c), ""};
}

// One run's time series: a panel per kind of series, or why there is none.
void timeseries_panels(const RunFigures& run, std::vector<Panel>& out) {
  if (!run.timeseries) {
    out.push_back(skip("Time series",
                       "the results hold no timeseries block (run with --set "
                       "timeseries=true to get the per-window panels)"));
  } else {
    const Timeseries& ts = *run.timeseries;
    auto add = [&](XYChart c, const std::string& empty_note) {
      const bool drawn = std::any_of(c.series.begin(), c.series.end(), [](const Series& s) {
        return std::any_of(s.y.begin(), s.y.end(), [](double v) { return std::isfinite(v); });
      });
      if (!drawn)
        out.push_back(skip(c.title, empty_note));
      else
        out.push_back({c.title, render(c), ""});
    };
    XYChart util = time_chart(run, "Device utilization", {"utilization", Unit::Fraction, true});
    util.series = device_series(ts, &Timeseries::Device::utilization);
    add(util, "no windows or no devices in timeseries");
    XYChart queue = time_chart(run, "Queue length (requests queued at each window's end)",
                               {"requests", Unit::Plain, true});
    queue.series = device_series(ts, &Timeseries::Device::queue_length);
    add(queue, "no windows or no devices in timeseries");
    XYChart inf = time_chart(run, "Inferences per second", {"inferences/s", Unit::Plain, true});
    add_model_series(inf, ts, &Timeseries::Model::inferences_per_s, "", Style::Line, false);
    add(inf, "no windows or no models in timeseries");
    XYChart batch = time_chart(run, "Mean batch size", {"items per execution", Unit::Plain, true});
    add_model_series(batch, ts, &Timeseries::Model::mean_batch_size, "", Style::Line, true);
    add(batch, "no windows or no models in timeseries");
    XYChart lat = time_chart(run, "Request latency p50 (solid) and p99 (dashed)",
                             {"latency", Unit::Seconds, true});
    add_model_series(lat, ts, &Timeseries::Model::latency_p50_s, " p50", Style::Line, true);
    add_model_series(lat, ts, &Timeseries::Model::latency_p99_s, " p99", Style::Dashed, true);
    add(lat, "no windows or no models in timeseries");
    XYChart link = time_chart(run, "Link utilization", {"utilization", Unit::Fraction, true});
    for (std::size_t l = 0; l < ts.links.size(); ++l)
      link.series.push_back(
          {ts.links[l].name, ts.t_s, ts.links[l].utilization, {}, Style::Line, l});
    add(link, "no windows or no links in timeseries");
    if (!ts.pools.empty()) {
      XYChart rep = time_chart(run, "Replicas asked for (solid) and ready (dashed)",
                               {"replicas", Unit::Plain, true});
      for (std::size_t p = 0; p < ts.pools.size(); ++p) {
        rep.series.push_back(
            {ts.pools[p].name + " asked", ts.t_s, ts.pools[p].replicas, {}, Style::Line, p});
        rep.series.push_back(
            {ts.pools[p].name + " ready", ts.t_s, ts.pools[p].ready, {}, Style::Dashed, p});
      }
      add(rep, "no windows in timeseries");
    }
    if (!ts.running_jobs.empty()) {
      XYChart jobs = time_chart(run, "Jobs running", {"jobs", Unit::Plain, true});
      jobs.series.push_back({"running jobs", ts.t_s, ts.running_jobs, {}, Style::Line, 0});
      add(jobs, "no windows in timeseries");
    }
    XYChart events = time_chart(run, "Events per second", {"events/s", Unit::Plain, true});
    events.series.push_back({ts.workloads.empty() ? "events/s" : "all workloads",
                             ts.t_s,
                             ts.events_per_s,
                             {},
                             Style::Line,
                             0});
    for (std::size_t w = 0; w < ts.workloads.size(); ++w)
      events.series.push_back(
          {ts.workloads[w].name, ts.t_s, ts.workloads[w].events_per_s, {}, Style::Line, w + 1});
    add(events, "no windows in timeseries");
    if (!ts.workloads.empty()) {
      XYChart lat = time_chart(run, "Request latency per workload, p50 (solid) and p99 (dashed)",
                               {"latency", Unit::Seconds, true});
      for (std::size_t w = 0; w < ts.workloads.size(); ++w) {
        const auto& tw = ts.workloads[w];
        lat.series.push_back(
            {tw.name + " p50", ts.t_s, zero_as_missing(tw.latency_p50_s), {}, Style::Line, w + 1});
        lat.series.push_back({tw.name + " p99",
                              ts.t_s,
                              zero_as_missing(tw.latency_p99_s),
                              {},
                              Style::Dashed,
                              w + 1});
      }
      add(lat, "no windows in timeseries");
    }
  }
}

}  // namespace

std::vector<Panel> run_panels(const RunFigures& run) {
  std::vector<Panel> out;
  timeseries_panels(run, out);

  if (!run.latency_counts.empty()) {
    BarChart c;
    c.title = "Request latency histogram";
    c.note = results::column({k::top::requests, k::requests::latency_s, k::quantile::histogram}) +
             ": 8 bins per decade, labelled by their lower edge";
    c.y = {"requests", Unit::Plain, true};
    c.series = {"all requests"};
    c.values.emplace_back();
    for (std::size_t i = 0; i < run.latency_counts.size(); ++i) {
      c.categories.push_back(format_value(run.latency_edges_s[i], Unit::Seconds));
      c.values.back().push_back(run.latency_counts[i]);
    }
    out.push_back({c.title, render(c), ""});
  } else if (run.latency_percentiles.size() < 2) {
    out.push_back(
        skip("Request latency percentiles",
             "no " + results::column({k::top::requests, k::requests::latency_s}) + " percentiles"));
  } else {
    XYChart c;
    c.title = "Request latency at the stored percentiles";
    c.note = "results without a histogram: p50, p90, p95, p99 and max, joined by lines";
    c.x = {"request latency", Unit::Seconds, true};
    c.y = {"requests at or below", Unit::Fraction, false};
    Series s{"all requests", {}, {}, {}, Style::LinePoints, 0};
    for (const auto& [fraction, seconds] : run.latency_percentiles) {
      s.x.push_back(seconds);
      s.y.push_back(fraction);
    }
    c.series.push_back(s);
    out.push_back({c.title, render(c), ""});
  }

  const auto split = simulated_split(run);
  if (!run.workloads.empty()) {
    out.push_back(skip("Where an event's time goes",
                       "several workloads, each with its own events: see the per-workload rows"));
  } else if (split.empty()) {
    out.push_back(skip(
        "Where an event's time goes",
        "no " + results::column({k::top::models, "*", k::model::latency_s, k::quantile::mean}) +
            " or " +
            results::column({k::top::analytic, k::analytic::per_model, "*",
                             k::analytic_model::requests_per_event})));
  } else {
    StackedBarChart c;
    c.title = "Where an event's time goes";
    c.note = run.mode == "async" ? "async: requests overlap the CPU work, whose share is the "
                                   "formula's (1-p) t_CPU"
                                 : kSplitNote;
    c.x = {"time per event", Unit::Seconds, true};
    c.parts = kSplitParts;
    c.bars = {"simulated", "formula (t_ideal)"};
    c.values = {split, formula_split(run)};
    out.push_back({c.title, render(c), ""});
  }
  return out;
}

std::vector<Panel> comparison_panels(const std::vector<RunFigures>& runs) {
  std::vector<Panel> out;
  if (runs.size() < 2) return out;
  out.push_back(run_bars(
      "Throughput by run", {"events/s", Unit::Plain, true}, runs,
      {"simulated", "formula N_CPU/t_SONIC"}, [](const RunFigures& r, std::size_t k) {
        return k == 0 ? r.events_per_s : (r.t_sonic_s > 0 ? r.threads / r.t_sonic_s : kNoValue);
      }));
  out.push_back(run_bars(
      "Time per event by run", {"time per event", Unit::Seconds, true}, runs,
      {"simulated mean", "simulated p99", "t_ideal (formula)", "t_SONIC (formula)"},
      [](const RunFigures& r, std::size_t k) {
        const double v[] = {r.time_per_event_s, r.time_per_event_p99_s, r.t_ideal_s, r.t_sonic_s};
        return v[k];
      }));
  std::vector<std::string> shares{"devices (mean)"};
  std::set<std::string> models;
  for (const auto& r : runs) {
    for (const auto& [name, u] : r.link_peak_utilization)
      if (std::find(shares.begin(), shares.end(), name + " peak") == shares.end())
        shares.push_back(name + " peak");
    for (const auto& [name, m] : r.models) models.insert(name);
  }
  out.push_back(run_bars("Utilization by run", {"utilization", Unit::Fraction, true}, runs, shares,
                         [&](const RunFigures& r, std::size_t k) {
                           if (k == 0) return r.device_utilization;
                           const std::string link = shares[k].substr(0, shares[k].size() - 5);
                           const auto it = r.link_peak_utilization.find(link);
                           return it == r.link_peak_utilization.end() ? kNoValue : it->second;
                         }));
  const std::vector<std::string> model_names(models.begin(), models.end());
  out.push_back(run_bars("Request latency p99 by model", {"latency p99", Unit::Seconds, true}, runs,
                         model_names, [&](const RunFigures& r, std::size_t k) {
                           const auto it = r.models.find(model_names[k]);
                           return it == r.models.end() ? kNoValue : it->second.latency_p99_s;
                         }));
  StackedBarChart split;
  split.title = "Where an event's time goes, by run";
  split.note = kSplitNote;
  split.x = {"time per event", Unit::Seconds, true};
  split.parts = kSplitParts;
  for (const auto& r : runs) {
    const auto parts = simulated_split(r);
    if (parts.empty() || !r.workloads.empty()) continue;
    split.bars.push_back(base_name(r.file));
    split.values.push_back(parts);
  }
  if (split.bars.empty())
    out.push_back(skip(split.title, "no per-model latency breakdown in the results"));
  else
    out.push_back({split.title, render(split), ""});
  return out;
}

std::vector<Panel> sweep_panels(const std::vector<SweepData>& sweeps) {
  std::vector<Panel> out;
  if (sweeps.empty()) return out;
  const std::string band_note = "shaded: mean \xC2\xB1 95% CI over the replications";
  const std::string formula_note =
      "solid: simulated; dashed: SONIC formula; dotted: exact MVA; vertical: the formula's knee "
      "(t_ideal/t_GPU per device x devices)";
  const auto pool = [](const SweepData& s, const std::string& k) { return s.pool_name(k); };
  const auto link = [](const SweepData& s, const std::string& k) { return s.link_name(k); };
  out.push_back(sweep_chart(
      sweeps, SweepChart{"Throughput",
                         formula_note,
                         Axis{"events/s", Unit::Plain, true},
                         "",
                         {{column::throughput, "simulated", Style::LinePoints, true},
                          {column::formula_throughput, "formula N_CPU/t_SONIC", Style::Dashed},
                          {column::mva_throughput, "MVA", Style::Dotted}},
                         nullptr,
                         true}));
  out.push_back(sweep_chart(
      sweeps, SweepChart{"Time per event",
                         formula_note,
                         Axis{"time per event", Unit::Seconds, true},
                         "",
                         {{column::thread_time_per_event, "simulated", Style::LinePoints, true},
                          {column::t_sonic_s, "formula t_SONIC", Style::Dashed},
                          {column::mva_time_per_event, "MVA", Style::Dotted}},
                         nullptr,
                         true}));
  out.push_back(
      sweep_chart(sweeps, SweepChart{"Device utilization",
                                     band_note,
                                     Axis{"utilization", Unit::Fraction, true},
                                     column::servers,
                                     {{column::pool_utilization, "", Style::LinePoints, true}},
                                     pool,
                                     false}));
  out.push_back(
      sweep_chart(sweeps, SweepChart{"Request latency p50 (solid) and p99 (dashed)",
                                     band_note,
                                     Axis{"latency", Unit::Seconds, true},
                                     "",
                                     {{column::latency_p50, "p50", Style::LinePoints, true},
                                      {column::latency_p99, "p99", Style::Dashed, true}},
                                     nullptr,
                                     false}));
  out.push_back(
      sweep_chart(sweeps, SweepChart{"Mean batch size",
                                     band_note,
                                     Axis{"items per execution", Unit::Plain, true},
                                     column::models,
                                     {{column::model_mean_batch_size, "", Style::LinePoints, true}},
                                     nullptr,
                                     false}));
  out.push_back(sweep_chart(
      sweeps, SweepChart{"Link utilization: peak 1 s window (solid) and mean (dashed)",
                         band_note,
                         Axis{"utilization", Unit::Fraction, true},
                         column::links,
                         {{column::link_peak_utilization, "peak", Style::LinePoints, true},
                          {column::link_mean_utilization, "mean", Style::Dashed}},
                         link,
                         false}));
  // Sweeps of scenarios with power or prices only (docs/servers.md).
  if (std::any_of(sweeps.begin(), sweeps.end(), [](const SweepData& s) { return has_energy(s); })) {
    out.push_back(
        sweep_chart(sweeps, SweepChart{"Energy per event",
                                       band_note,
                                       Axis{"joules per event", Unit::Plain, true},
                                       "",
                                       {{column::energy_per_event, "", Style::LinePoints, true}},
                                       nullptr,
                                       false}));
    out.push_back(
        sweep_chart(sweeps, SweepChart{"Cost per event",
                                       band_note,
                                       Axis{"cost per event", Unit::Plain, true},
                                       "",
                                       {{column::cost_per_event, "", Style::LinePoints, true}},
                                       nullptr,
                                       false}));
  }
  // Sweeps of scenarios with sites only: on one site the report is as before.
  if (std::none_of(sweeps.begin(), sweeps.end(), [](const SweepData& s) {
        return !s.keys(column::sites, column::site_throughput).empty();
      }))
    return out;
  const auto site = [](const SweepData& s, const std::string& k) { return s.site_name(k); };
  out.push_back(
      sweep_chart(sweeps, SweepChart{"Throughput by site (its client nodes' events)",
                                     band_note,
                                     Axis{"events/s", Unit::Plain, true},
                                     column::sites,
                                     {{column::site_throughput, "", Style::LinePoints, true}},
                                     site,
                                     false}));
  out.push_back(
      sweep_chart(sweeps, SweepChart{"Bytes out of each site over the WAN",
                                     band_note,
                                     Axis{"bytes", Unit::Plain, true},
                                     column::sites,
                                     {{column::site_bytes_out, "", Style::LinePoints, true}},
                                     site,
                                     false}));
  return out;
}

}  // namespace sonicsim::report
