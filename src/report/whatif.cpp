#include <sonicsim/report/whatif.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <sonicsim/report/client_report.hpp>
#include <sonicsim/report/energy_report.hpp>
#include <sonicsim/report/server_report.hpp>
#include <sonicsim/report/site_panels.hpp>
#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/report/trouble.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::report {

namespace {

using results::Presence;
using results::Quantile;
using results::zero_if_missing;

using util::formatted;

void read_analytic(const results::Analytic& a, RunFigures& f) {
  f.t_ideal_s = a.t_ideal_s();
  f.t_sonic_s = a.t_sonic_s();
  f.knee_threads = a.saturation_n_cpu_per_gpu() * f.devices;
}

void read_requests(const results::Requests& rq, RunFigures& f) {
  f.requests_sent = rq.sent();
  f.requests_failed = rq.failed();
  f.requests_fallback = rq.fallback();
}

// Device-weighted over the pools.
double device_utilization(const results::Document& doc) {
  double busy = 0.0, count = 0.0;
  for (const auto& pool : doc.servers()) {
    const double n = pool.count();
    busy += n * pool.utilization();
    count += n;
  }
  return count > 0.0 ? busy / count : 0.0;
}

// The formula's inputs (t_CPU, p, t_GPU, t_latency) came after the first results files, which
// read as 0 here.
void read_formula_inputs(const results::Analytic& a, RunFigures& f) {
  f.mode = a.mode().value_or("sync");
  f.t_cpu_s = zero_if_missing(a.t_cpu_s(Presence::Optional));
  f.p = zero_if_missing(a.p(Presence::Optional));
  f.t_gpu_s = zero_if_missing(a.t_gpu_s(Presence::Optional));
  f.t_latency_s = zero_if_missing(a.t_latency_s(Presence::Optional));
}

// Request latency at the stored percentiles, and the histogram where the results have one
// (results written before it existed have none: the report draws the percentiles).
void read_latency(const results::Requests& rq, RunFigures& f) {
  const auto latency = rq.latency_s();
  for (const auto& [fraction, q] :
       std::initializer_list<std::pair<double, Quantile>>{{0.5, Quantile::P50},
                                                          {0.9, Quantile::P90},
                                                          {0.95, Quantile::P95},
                                                          {0.99, Quantile::P99},
                                                          {1.0, Quantile::Max}})
    if (latency.has(q)) f.latency_percentiles.push_back({fraction, latency.at(q)});
  if (const auto histogram = rq.latency_histogram()) {
    f.latency_counts = histogram->counts;
    f.latency_edges_s = histogram->edges_s;
  }
}

void read_models(const results::Document& doc, const results::Analytic& a, RunFigures& f) {
  for (const auto& m : doc.models()) {
    RunFigures::Model& fm = f.models[m.name()];
    fm.latency_p50_s = m.latency_s().at(Quantile::P50);
    fm.latency_p99_s = m.latency_s().at(Quantile::P99);
    fm.mean_batch_size = m.mean_batch_size();
    fm.latency_mean_s = zero_if_missing(m.latency_s().at(Quantile::Mean, Presence::Optional));
    fm.queue_mean_s = zero_if_missing(m.queue_time_s().at(Quantile::Mean, Presence::Optional));
    fm.compute_mean_s = zero_if_missing(m.compute_time_s().at(Quantile::Mean, Presence::Optional));
    fm.requests_per_event = zero_if_missing(a.requests_per_event(m.name(), Presence::Optional));
  }
}

void read_links(const results::Document& doc, RunFigures& f) {
  const auto links = doc.links();
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string name = links[i].name().value_or("link " + std::to_string(i));
    f.link_peak_utilization[name] = links[i].peak_utilization();
  }
}

// Several workloads: each one's figures; the formula's describe one workload, so none.
void read_workloads(const results::Document& doc, RunFigures& f) {
  const auto workloads = doc.workloads();
  f.threads = 0.0;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const auto& in = workloads[i];
    RunFigures::Workload w;
    w.name = in.name().value_or("workload " + std::to_string(i));
    w.threads = in.threads();
    w.events_per_s = in.events().throughput_per_s();
    w.time_per_event_s = in.events().time_per_event_s().at(Quantile::Mean);
    w.latency_p99_s = in.requests().latency_s().at(Quantile::P99);
    f.threads += w.threads;
    f.workloads.push_back(std::move(w));
  }
  f.t_ideal_s = f.t_sonic_s = f.knee_threads = kNoValue;
  f.t_cpu_s = f.p = f.t_gpu_s = f.t_latency_s = kNoValue;
}

}  // namespace

// Three significant digits, no exponent for everyday magnitudes.
std::string num(double v) {
  if (std::isnan(v)) return "–";
  const double a = std::abs(v);
  if (a == 0.0) return "0";
  if (v == std::floor(v) && a < 1e15) return formatted("%.0f", v);  // counts
  if (a >= 1000.0) return formatted("%.0f", v);
  if (a >= 100.0) return formatted("%.1f", v);
  if (a >= 10.0) return formatted("%.2f", v);
  return formatted("%.3g", v);
}

std::string time_text(double s) {
  if (std::isnan(s)) return "–";
  if (s == 0.0) return "0 s";
  if (std::abs(s) < 1e-3) return num(s * 1e6) + " us";
  if (std::abs(s) < 1.0) return num(s * 1e3) + " ms";
  return num(s) + " s";
}

std::string pct(double fraction) {
  return util::percent(fraction, "%.0f");
}

std::string signed_pct(double change) {
  return util::percent(change, "%+.1f");
}

bool unchanged(double a, double b) {
  return std::abs(b - a) <= 0.01 * std::max(std::abs(a), std::abs(b));
}

// Utilizations are read in whole percent: a change below one point is no change.
bool same_share(double a, double b) {
  return std::abs(b - a) < 0.01;
}

RunFigures read_results(const std::string& path) {
  const auto doc = results::Document::read(path);
  const auto analytic = doc.analytic();
  const auto events = doc.events();
  RunFigures f;
  f.file = path;
  f.scenario = doc.scenario();
  f.threads = analytic.n_cpu();
  f.devices = analytic.n_gpu();
  f.events_per_s = events.throughput_per_s();
  f.time_per_event_s = events.thread_time_per_event_s();
  f.time_per_event_p99_s = events.time_per_event_s().at(Quantile::P99);
  read_analytic(analytic, f);
  read_requests(doc.requests(), f);
  f.device_utilization = device_utilization(doc);
  f.warmup_s = zero_if_missing(doc.warmup_s(Presence::Optional));
  read_formula_inputs(analytic, f);
  read_latency(doc.requests(), f);
  read_models(doc, analytic, f);
  read_links(doc, f);
  if (doc.has_timeseries()) f.timeseries = doc.timeseries();
  if (doc.has_workloads()) read_workloads(doc, f);
  read_sites(doc, f);
  read_energy(doc, f);
  read_servers(doc, f);
  read_trouble(doc, f);
  read_clients(doc, f);
  doc.check();
  return f;
}

Table figures_table(const std::vector<RunFigures>& runs) {
  Table t;
  t.headers.push_back("figure");
  for (std::size_t i = 0; i < runs.size(); ++i)
    t.headers.push_back(runs.size() == 1 ? runs[i].file
                                         : (i == 0 ? "baseline: " : "") + runs[i].file);
  auto row = [&](const std::string& name, auto value) {
    t.add(name, runs.size(), [&](std::size_t i) { return value(runs[i]); });
  };
  row("scenario", [](const RunFigures& r) { return r.scenario; });
  row("threads (N_CPU)", [](const RunFigures& r) { return num(r.threads); });
  row("devices (N_GPU)", [](const RunFigures& r) { return num(r.devices); });
  row("events/s", [](const RunFigures& r) { return num(r.events_per_s); });
  row("time per event (N_CPU / throughput)",
      [](const RunFigures& r) { return time_text(r.time_per_event_s); });
  row("  t_ideal / t_SONIC (formula)",
      [](const RunFigures& r) { return time_text(r.t_ideal_s) + " / " + time_text(r.t_sonic_s); });
  row("time per event p99", [](const RunFigures& r) { return time_text(r.time_per_event_p99_s); });
  row("knee (formula), threads", [](const RunFigures& r) { return num(r.knee_threads); });
  row("device utilization", [](const RunFigures& r) { return pct(r.device_utilization); });
  row("requests failed / fallback", [](const RunFigures& r) {
    return num(r.requests_failed) + " / " + num(r.requests_fallback);
  });
  add_trouble_rows(t, runs);
  std::vector<std::string> workload_names;
  for (const auto& r : runs)
    for (const auto& w : r.workloads)
      if (std::find(workload_names.begin(), workload_names.end(), w.name) == workload_names.end())
        workload_names.push_back(w.name);
  for (const auto& name : workload_names)
    row("workload " + name + ": events/s, time per event, latency p99",
        [&](const RunFigures& r) -> std::string {
          for (const auto& w : r.workloads)
            if (w.name == name)
              return num(w.events_per_s) + ", " + time_text(w.time_per_event_s) + ", " +
                     time_text(w.latency_p99_s);
          return "–";
        });
  std::vector<std::string> model_names, link_names;
  for (const auto& r : runs) {
    for (const auto& [name, m] : r.models)
      if (std::find(model_names.begin(), model_names.end(), name) == model_names.end())
        model_names.push_back(name);
    for (const auto& [name, u] : r.link_peak_utilization)
      if (std::find(link_names.begin(), link_names.end(), name) == link_names.end())
        link_names.push_back(name);
  }
  for (const auto& name : model_names)
    row(name + " latency p50 / p99, batch", [&](const RunFigures& r) -> std::string {
      const auto it = r.models.find(name);
      if (it == r.models.end()) return "-";
      return time_text(it->second.latency_p50_s) + " / " + time_text(it->second.latency_p99_s) +
             ", " + num(it->second.mean_batch_size);
    });
  for (const auto& name : link_names)
    row(name + " peak utilization", [&](const RunFigures& r) -> std::string {
      const auto it = r.link_peak_utilization.find(name);
      return it == r.link_peak_utilization.end() ? "-" : pct(it->second);
    });
  add_site_rows(t, runs);
  add_energy_rows(t, runs);
  add_server_rows(t, runs);
  add_client_rows(t, runs);
  return t;
}

std::vector<std::string> changes(const RunFigures& base, const RunFigures& r) {
  std::vector<std::string> said;
  devices_change(base.devices, r.devices, said);
  if (!unchanged(base.threads, r.threads))
    said.push_back("N_CPU " + num(base.threads) + " -> " + num(r.threads));
  // What went wrong comes before what it did to the throughput and the latencies.
  trouble_changes(base, r, said);
  if (!unchanged(base.knee_threads, r.knee_threads))
    said.push_back("moves the knee from " + num(base.knee_threads) + " to " + num(r.knee_threads) +
                   " threads");
  throughput_change("throughput", base.events_per_s, r.events_per_s, said);
  if (!unchanged(base.time_per_event_s, r.time_per_event_s))
    said.push_back("the time per event by " +
                   signed_pct(r.time_per_event_s / base.time_per_event_s - 1.0) + " (" +
                   time_text(base.time_per_event_s) + " -> " + time_text(r.time_per_event_s) + ")");
  if (!same_share(base.device_utilization, r.device_utilization))
    said.push_back("device utilization " + pct(base.device_utilization) + " -> " +
                   pct(r.device_utilization));
  for (const auto& [name, m] : r.models) {
    const auto it = base.models.find(name);
    if (it != base.models.end() && !unchanged(it->second.latency_p99_s, m.latency_p99_s))
      said.push_back(name + " p99 latency " + time_text(it->second.latency_p99_s) + " -> " +
                     time_text(m.latency_p99_s));
  }
  link_peak_changes(base.link_peak_utilization, r.link_peak_utilization, said);
  site_changes(base, r, said);
  return said;
}

std::string join_clauses(const std::vector<std::string>& clauses) {
  std::string text;
  for (std::size_t k = 0; k < clauses.size(); ++k)
    text += (k == 0 ? "" : k + 1 == clauses.size() ? "; and " : "; ") + clauses[k];
  return text;
}

std::string comparison_paragraph(const std::string& file, const std::string& base_file,
                                 const std::vector<std::string>& clauses, Format format) {
  const bool md = format == Format::Markdown;
  return (md ? "\n**" + file + "** against **" + base_file + "**: "
             : "\n" + file + " against " + base_file + ": ") +
         join_clauses(clauses) + ".\n";
}

void devices_change(double base, double now, std::vector<std::string>& said) {
  if (unchanged(base, now)) return;
  const double n = std::abs(now - base);
  said.push_back((now > base ? "adding " : "removing ") + num(n) +
                 (n == 1 ? " device" : " devices") + " (" + num(base) + " -> " + num(now) + ")");
}

void throughput_change(const std::string& what, double base, double now,
                       std::vector<std::string>& said) {
  if (unchanged(base, now))
    said.push_back("leaves the " + what + " unchanged (" + num(now) + " events/s)");
  else
    said.push_back("changes the " + what + " by " + signed_pct(now / base - 1.0) + " (" +
                   num(base) + " -> " + num(now) + " events/s)");
}

void link_peak_changes(const std::map<std::string, double>& base,
                       const std::map<std::string, double>& now, std::vector<std::string>& said) {
  for (const auto& [name, u] : now) {
    const auto it = base.find(name);
    if (it == base.end() || !same_share(it->second, u))
      said.push_back("the " + name + " peaks at " + pct(u) +
                     (it == base.end() ? "" : " (was " + pct(it->second) + ")"));
  }
}

std::string whatif(const std::vector<RunFigures>& runs, Format format) {
  if (runs.empty()) return "";
  const bool md = format == Format::Markdown;
  const Table table = figures_table(runs);
  std::string out = md ? to_markdown(table) : to_text(table);
  const RunFigures& base = runs.front();
  for (std::size_t i = 1; i < runs.size(); ++i)
    out += comparison_paragraph(runs[i].file, base.file, changes(base, runs[i]), format);
  return out;
}

}  // namespace sonicsim::report
