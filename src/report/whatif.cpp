#include <sonicsim/report/whatif.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::report {

namespace {

using json = nlohmann::json;
using scenario::InputError;

// Reads `path` (a JSON pointer such as /events/throughput_per_s) as a number, or records why
// not; `optional` ones absent are 0 (results of older versions, runs without links).
class Reader {
 public:
  Reader(const std::string& file, const json& doc) : file_(file), doc_(doc) {}
  double number(const std::string& pointer, bool optional = false) {
    const json::json_pointer p(pointer);
    if (!doc_.contains(p)) {
      if (!optional) problems_.push_back({pointer, "missing, expected a number"});
      return 0.0;
    }
    const json& v = doc_.at(p);
    if (!v.is_number()) {
      problems_.push_back({pointer, "found " + v.dump() + ", expected a number"});
      return 0.0;
    }
    return v.get<double>();
  }
  // An array of numbers of `size` elements (the time series' windows).
  std::vector<double> numbers(const std::string& pointer, std::size_t size) {
    std::vector<double> out;
    const json::json_pointer p(pointer);
    if (!doc_.contains(p) || !doc_.at(p).is_array() || doc_.at(p).size() != size) {
      problems_.push_back(
          {pointer, std::string(doc_.contains(p) ? "found " + brief(doc_.at(p)) : "missing") +
                        ", expected an array of " + std::to_string(size) + " numbers"});
      return out;
    }
    for (const json& v : doc_.at(p)) {
      if (!v.is_number()) {
        problems_.push_back({pointer, "found " + brief(v) + ", expected numbers"});
        return {};
      }
      out.push_back(v.get<double>());
    }
    return out;
  }
  const json* object(const std::string& pointer) {
    const json::json_pointer p(pointer);
    if (doc_.contains(p) && (doc_.at(p).is_object() || doc_.at(p).is_array())) return &doc_.at(p);
    problems_.push_back({pointer, "missing, expected an object or array"});
    return nullptr;
  }
  void finish() const {
    if (!problems_.empty())
      throw InputError(file_ + " (a sonicsim results file: sonicsim run -o FILE)", problems_);
  }

 private:
  static std::string brief(const json& v) {
    const std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 37) + "..." : text;
  }
  std::string file_;
  const json& doc_;
  std::vector<scenario::Problem> problems_;
};

// A JSON pointer reference token (RFC 6901): ~ and / escaped.
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// The `timeseries` block: every series as long as t_s.
RunFigures::Timeseries read_timeseries(Reader& r, const json& doc) {
  RunFigures::Timeseries ts;
  const json& block = doc.at("timeseries");
  const std::size_t n = block.contains("t_s") && block["t_s"].is_array() ? block["t_s"].size() : 0;
  ts.t_s = r.numbers("/timeseries/t_s", n);
  ts.events_per_s = r.numbers("/timeseries/events_per_s", n);
  if (const json* devices = r.object("/timeseries/devices"))
    for (std::size_t i = 0; i < devices->size(); ++i) {
      const std::string at = "/timeseries/devices/" + std::to_string(i);
      RunFigures::Timeseries::Device d;
      d.pool = (*devices)[i].value("pool", std::string("?"));
      d.index = r.number(at + "/index");
      d.utilization = r.numbers(at + "/utilization", n);
      d.queue_length = r.numbers(at + "/queue_length", n);
      ts.devices.push_back(std::move(d));
    }
  if (const json* models = r.object("/timeseries/models"))
    for (const auto& [name, m] : models->items()) {
      const std::string at = "/timeseries/models/" + pointer_token(name);
      ts.models[name] = {r.numbers(at + "/inferences_per_s", n),
                         r.numbers(at + "/mean_batch_size", n), r.numbers(at + "/latency_p50_s", n),
                         r.numbers(at + "/latency_p99_s", n)};
    }
  if (const json* links = r.object("/timeseries/links"))
    for (std::size_t i = 0; i < links->size(); ++i) {
      const std::string at = "/timeseries/links/" + std::to_string(i);
      ts.links.push_back({(*links)[i].value("name", "link " + std::to_string(i)),
                          r.numbers(at + "/utilization", n),
                          r.numbers(at + "/bytes_per_s_to_servers", n),
                          r.numbers(at + "/bytes_per_s_to_clients", n)});
    }
  if (block.contains("running_jobs")) ts.running_jobs = r.numbers("/timeseries/running_jobs", n);
  if (block.contains("workloads"))
    if (const json* workloads = r.object("/timeseries/workloads"))
      for (const auto& [name, w] : workloads->items()) {
        const std::string at = "/timeseries/workloads/" + pointer_token(name);
        ts.workloads.push_back({name, r.numbers(at + "/events_per_s", n),
                                r.numbers(at + "/latency_p50_s", n),
                                r.numbers(at + "/latency_p99_s", n)});
      }
  if (block.contains("pools"))
    if (const json* pools = r.object("/timeseries/pools"))
      for (std::size_t i = 0; i < pools->size(); ++i) {
        const std::string at = "/timeseries/pools/" + std::to_string(i);
        ts.pools.push_back({(*pools)[i].value("pool", "pool " + std::to_string(i)),
                            r.numbers(at + "/replicas", n), r.numbers(at + "/ready", n)});
      }
  return ts;
}

}  // namespace

// Three significant digits, no exponent for everyday magnitudes.
std::string num(double v) {
  if (std::isnan(v)) return "–";
  const double a = std::abs(v);
  if (a == 0.0) return "0";
  if (v == std::floor(v) && a < 1e15) return fmt("%.0f", v);  // counts
  if (a >= 1000.0) return fmt("%.0f", v);
  if (a >= 100.0) return fmt("%.1f", v);
  if (a >= 10.0) return fmt("%.2f", v);
  return fmt("%.3g", v);
}

std::string time_text(double s) {
  if (std::isnan(s)) return "–";
  if (s == 0.0) return "0 s";
  if (std::abs(s) < 1e-3) return num(s * 1e6) + " us";
  if (std::abs(s) < 1.0) return num(s * 1e3) + " ms";
  return num(s) + " s";
}

std::string pct(double fraction) {
  return fmt("%.0f%%", 100.0 * fraction);
}

std::string signed_pct(double change) {
  return fmt("%+.1f%%", 100.0 * change);
}

bool unchanged(double a, double b) {
  return std::abs(b - a) <= 0.01 * std::max(std::abs(a), std::abs(b));
}

// Utilizations are read in whole percent: a change below one point is no change.
bool same_share(double a, double b) {
  return std::abs(b - a) < 0.01;
}

RunFigures read_results(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, {{"", "cannot read the file, expected a sonicsim results file"}});
  std::stringstream text;
  text << in.rdbuf();
  const json doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    throw InputError(path, {{"",
                             "not a JSON object, expected a sonicsim results file "
                             "(sonicsim run -o FILE)"}});
  Reader r(path, doc);
  RunFigures f;
  f.file = path;
  f.scenario = doc.value("scenario", std::string());
  f.threads = r.number("/analytic/n_cpu");
  f.devices = r.number("/analytic/n_gpu");
  f.events_per_s = r.number("/events/throughput_per_s");
  f.time_per_event_s = r.number("/events/thread_time_per_event_s");
  f.time_per_event_p99_s = r.number("/events/time_per_event_s/p99");
  f.t_ideal_s = r.number("/analytic/t_ideal_s");
  f.t_sonic_s = r.number("/analytic/t_sonic_s");
  f.knee_threads = r.number("/analytic/saturation_n_cpu_per_gpu") * f.devices;
  f.requests_sent = r.number("/requests/sent");
  f.requests_failed = r.number("/requests/failed");
  f.requests_fallback = r.number("/requests/fallback");
  if (const json* servers = r.object("/servers")) {
    double busy = 0.0, count = 0.0;
    for (std::size_t i = 0; i < servers->size(); ++i) {
      const std::string at = "/servers/" + std::to_string(i);
      const double n = r.number(at + "/count");
      busy += n * r.number(at + "/utilization");
      count += n;
    }
    f.device_utilization = count > 0.0 ? busy / count : 0.0;
  }
  f.warmup_s = r.number("/warmup_s", true);
  f.mode = doc.value(json::json_pointer("/analytic/mode"), std::string("sync"));
  f.t_cpu_s = r.number("/analytic/t_cpu_s", true);
  f.p = r.number("/analytic/p", true);
  f.t_gpu_s = r.number("/analytic/t_gpu_s", true);
  f.t_latency_s = r.number("/analytic/t_latency_s", true);
  using Percentile = std::pair<double, const char*>;
  for (const auto& [fraction, key] : std::initializer_list<Percentile>{
           {0.5, "p50"}, {0.9, "p90"}, {0.95, "p95"}, {0.99, "p99"}, {1.0, "max"}})
    if (doc.contains(json::json_pointer(std::string("/requests/latency_s/") + key)))
      f.latency_percentiles.push_back(
          {fraction, r.number(std::string("/requests/latency_s/") + key)});
  // Results written before the histogram existed have none: the report draws the percentiles.
  const std::string histogram = "/requests/latency_s/histogram";
  if (doc.contains(json::json_pointer(histogram))) {
    const json::json_pointer counts(histogram + "/counts");
    const std::size_t bins =
        doc.contains(counts) && doc.at(counts).is_array() ? doc.at(counts).size() : 0;
    f.latency_counts = r.numbers(histogram + "/counts", bins);
    f.latency_edges_s = r.numbers(histogram + "/edges_s", bins + 1);
  }
  if (const json* models = r.object("/models"))
    for (const auto& [name, m] : models->items()) {
      const std::string at = "/models/" + pointer_token(name);
      RunFigures::Model& fm = f.models[name];
      fm.latency_p50_s = r.number(at + "/latency_s/p50");
      fm.latency_p99_s = r.number(at + "/latency_s/p99");
      fm.mean_batch_size = r.number(at + "/mean_batch_size");
      fm.latency_mean_s = r.number(at + "/latency_s/mean", true);
      fm.queue_mean_s = r.number(at + "/queue_time_s/mean", true);
      fm.compute_mean_s = r.number(at + "/compute_time_s/mean", true);
      fm.requests_per_event =
          r.number("/analytic/per_model/" + pointer_token(name) + "/requests_per_event", true);
    }
  if (const json* links = r.object("/links"))
    for (std::size_t i = 0; i < links->size(); ++i) {
      const std::string at = "/links/" + std::to_string(i);
      const json& l = (*links)[i];
      f.link_peak_utilization[l.value("name", "link " + std::to_string(i))] =
          r.number(at + "/peak_utilization");
    }
  if (doc.contains("timeseries")) f.timeseries = read_timeseries(r, doc);
  if (const json* workloads = doc.contains("workloads") ? r.object("/workloads") : nullptr) {
    f.threads = 0.0;
    for (std::size_t i = 0; i < workloads->size(); ++i) {
      const std::string at = "/workloads/" + std::to_string(i);
      RunFigures::Workload w;
      w.name = (*workloads)[i].value("name", "workload " + std::to_string(i));
      w.threads = r.number(at + "/threads");
      w.events_per_s = r.number(at + "/events/throughput_per_s");
      w.time_per_event_s = r.number(at + "/events/time_per_event_s/mean");
      w.latency_p99_s = r.number(at + "/requests/latency_s/p99");
      f.threads += w.threads;
      f.workloads.push_back(std::move(w));
    }
    f.t_ideal_s = f.t_sonic_s = f.knee_threads = kNoValue;
    f.t_cpu_s = f.p = f.t_gpu_s = f.t_latency_s = kNoValue;
  }
  r.finish();
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
  return t;
}

std::vector<std::string> changes(const RunFigures& base, const RunFigures& r) {
  std::vector<std::string> said;
  devices_change(base.devices, r.devices, said);
  if (!unchanged(base.threads, r.threads))
    said.push_back("N_CPU " + num(base.threads) + " -> " + num(r.threads));
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
  if (!unchanged(base.requests_failed, r.requests_failed))
    said.push_back("failed requests " + num(base.requests_failed) + " -> " +
                   num(r.requests_failed));
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
