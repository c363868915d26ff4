#include <sonicsim/compare/history.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/wall_time.hpp>

namespace sonicsim::compare {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using telemetry::Series;

// What a metric is called in the report, its unit and its scale for printing.
struct MetricInfo {
  const char* name;
  const char* unit;
  double scale;
};
constexpr MetricInfo kRequests{"requests_per_s", "/s", 1.0};
constexpr MetricInfo kBatch{"batch_size", "", 1.0};
constexpr MetricInfo kQueue{"queue_time_s", "ms", 1e3};
constexpr MetricInfo kCompute{"compute_time_s", "ms", 1e3};
constexpr MetricInfo kReplicas{"replicas", "", 1.0};
constexpr MetricInfo kGpu{"gpu_utilization", "%", 100.0};
constexpr MetricInfo kAutoscaler{"autoscaler_metric_ms", "ms", 1.0};
constexpr MetricInfo kClients{"connected_clients", "", 1.0};

// Simulated window j for each measured window (-1: none): the grids agree to a microsecond.
std::vector<long> window_map(const std::vector<double>& measured_t,
                             const std::vector<double>& sim_t, double step) {
  std::vector<long> map(measured_t.size(), -1);
  for (std::size_t i = 0; i < measured_t.size(); ++i) {
    const long j = std::lround(measured_t[i] / step) - 1;
    if (j >= 0 && static_cast<std::size_t>(j) < sim_t.size() &&
        std::abs(sim_t[static_cast<std::size_t>(j)] - measured_t[i]) <= 1e-6 * step)
      map[i] = j;
  }
  return map;
}

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return v.empty() ? kNaN : s / static_cast<double>(v.size());
}

std::string series_verdict(const HistorySeries& s) {
  if (s.t.size() < 2) return "cannot judge: fewer than 2 windows to compare";
  const double bias = (s.simulated_mean / s.measured_mean - 1.0) * 100.0;
  const bool trend = !s.flat && std::isfinite(s.errors.spearman);
  const double rho = trend ? s.errors.spearman : 1.0;
  if (!std::isfinite(bias)) return "cannot judge: the measured mean is 0";
  if (std::abs(bias) <= 5.0 && s.errors.mape_percent <= 15.0 && rho >= 0.7) return "TRUST";
  if (std::abs(bias) <= 15.0 && rho >= 0.5) return "USE WITH CARE";
  return "DO NOT TRUST";
}

class Holder {
 public:
  Holder(const telemetry::Measurements& m, const results::Timeseries& sim, double from_s)
      : m_(m), from_s_(from_s), map_(window_map(m.t, sim.t_s, m.step_s)) {}

  // Adds the series if any window has both values; `sim_at(j)` is the simulated value of
  // simulated window j (NaN: none).
  template <class Sim>
  void add(HistoryReport& r, const std::string& pool, const std::string& model,
           const MetricInfo& info, const Series& measured, Sim sim_at) {
    HistorySeries s;
    s.pool = pool;
    s.model = model;
    s.metric = info.name;
    s.unit = info.unit;
    s.scale = info.scale;
    for (std::size_t i = 0; i < m_.t.size() && i < measured.size(); ++i) {
      if (map_[i] < 0 || m_.t[i] <= from_s_ || !measured[i]) continue;
      const double sv = sim_at(static_cast<std::size_t>(map_[i]));
      if (!std::isfinite(sv)) continue;
      s.t.push_back(m_.t[i]);
      s.measured.push_back(*measured[i]);
      s.simulated.push_back(sv);
    }
    if (s.t.empty()) return;
    // Relative errors where the measurement is not 0.
    std::vector<double> x, p, mv;
    for (std::size_t k = 0; k < s.t.size(); ++k) {
      if (s.measured[k] == 0.0) {
        ++s.zero_windows;
        continue;
      }
      x.push_back(s.t[k]);
      p.push_back(s.simulated[k]);
      mv.push_back(s.measured[k]);
    }
    s.errors = errors_of(x, p, mv);
    s.measured_mean = mean(s.measured);
    s.simulated_mean = mean(s.simulated);
    double lo = s.measured.front(), hi = lo;
    for (double v : s.measured) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    s.flat = !(hi - lo > 0.05 * std::abs(s.measured_mean));
    if (s.flat) s.errors.spearman = kNaN;
    s.verdict = series_verdict(s);
    r.series.push_back(std::move(s));
  }

 private:
  const telemetry::Measurements& m_;
  double from_s_;
  std::vector<long> map_;
};

// The measured compute time per request: input + infer + output where exported, infer alone
// where they are not (Triton's three phases; sonicsim puts all of it in infer).
Series compute_of(const telemetry::ModelSeries& mo) {
  Series out(mo.compute_infer_time_s.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!mo.compute_infer_time_s[i]) continue;
    double v = *mo.compute_infer_time_s[i];
    if (i < mo.compute_input_time_s.size() && mo.compute_input_time_s[i])
      v += *mo.compute_input_time_s[i];
    if (i < mo.compute_output_time_s.size() && mo.compute_output_time_s[i])
      v += *mo.compute_output_time_s[i];
    out[i] = v;
  }
  return out;
}

std::string wall(const HistoryReport& r, double t) {
  return util::format_wall_time(r.start + t);
}

// Left- (negative width) or right-aligned text in a column.
std::string cell(const std::string& text, int width) {
  const auto w = static_cast<std::size_t>(width < 0 ? -width : width);
  if (text.size() >= w) return text + (width < 0 ? " " : "");
  const std::string pad(w - text.size(), ' ');
  return width < 0 ? text + pad : pad + text;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "-";
  return util::formatted("%.4g", v);
}

}  // namespace

bool is_history_file(const std::string& path) {
  std::string error;
  std::string text;
  try {
    text = read_text(path, error);
  } catch (const InputError&) {
    return false;
  }
  if (text.empty()) return false;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.contains("format") && j["format"] == telemetry::kMeasurementsFormat;
}

HistoryReport hold_history(const telemetry::Measurements& m, const results::Timeseries& sim,
                           const std::vector<std::pair<std::string, std::string>>& pools,
                           double from_s) {
  HistoryReport r;
  r.start = m.start;
  r.step_s = m.step_s;
  r.from_s = from_s;
  r.pools = pools;
  Holder h(m, sim, from_s);
  const std::size_t n = sim.t_s.size();
  for (const auto& pair : pools) {
    const std::string& measured_name = pair.first;  // not a structured binding: lambdas use them
    const std::string& sim_name = pair.second;
    const telemetry::PoolSeries* mp = m.pool(measured_name);
    if (!mp) continue;
    // The simulated pool's devices, and its replicas serving per window.
    std::vector<const results::Timeseries::Device*> devices;
    for (const auto& d : sim.devices)
      if (d.pool == sim_name) devices.push_back(&d);
    std::vector<const results::Timeseries::Server*> servers;  // its models' counters
    for (const auto& s : sim.servers)
      if (s.pool == sim_name) servers.push_back(&s);
    const results::Timeseries::Pool* operated = nullptr;
    for (const auto& p : sim.pools)
      if (p.name == sim_name) operated = &p;
    auto replicas_at = [&](std::size_t j) {
      return operated ? operated->ready.at(j) : static_cast<double>(devices.size());
    };
    for (const auto& mo : mp->models) {
      const results::Timeseries::Server* ss = nullptr;
      for (const auto* s : servers)
        if (s->model == mo.name) ss = s;
      if (!ss) {
        r.notes.push_back("model " + mo.name + " of pool " + measured_name +
                          " is not served by simulated pool " + sim_name + ": not compared");
        continue;
      }
      auto per_request = [ss](const std::vector<double>& v) {
        return [ss, &v](std::size_t j) { return ss->requests_per_s[j] > 0.0 ? v[j] : kNaN; };
      };
      h.add(r, measured_name, mo.name, kRequests, mo.requests_per_s,
            [ss](std::size_t j) { return ss->requests_per_s[j]; });
      h.add(r, measured_name, mo.name, kBatch, mo.batch_size, [ss](std::size_t j) {
        return ss->executions_per_s[j] > 0.0 ? ss->inferences_per_s[j] / ss->executions_per_s[j]
                                             : kNaN;
      });
      h.add(r, measured_name, mo.name, kQueue, mo.queue_time_s, per_request(ss->queue_time_s));
      h.add(r, measured_name, mo.name, kCompute, compute_of(mo), per_request(ss->compute_time_s));
    }
    h.add(r, measured_name, "", kReplicas, mp->replicas, replicas_at);
    h.add(r, measured_name, "", kGpu, mp->gpu_utilization, [&](std::size_t j) {
      double busy = 0.0;
      for (const auto* d : devices) busy += d->utilization.at(j);
      const double up = replicas_at(j);
      return up > 0.0 ? busy / up : kNaN;
    });
    h.add(r, measured_name, "", kAutoscaler, mp->autoscaler_metric_ms, [&](std::size_t j) {
      double queued = 0.0, executions = 0.0;
      for (const auto* s : servers) {
        queued += s->queue_time_s[j] * s->requests_per_s[j];
        executions += s->executions_per_s[j];
      }
      return executions > 0.0 ? queued / executions * 1e3 : kNaN;
    });
  }
  if (!sim.running_jobs.empty())
    h.add(r, "", "", kClients, m.clients.connected,
          [&](std::size_t j) { return j < n ? sim.running_jobs[j] : kNaN; });
  else if (!m.clients.connected.empty())
    r.notes.push_back(
        "connected clients measured, but the scenario has no job flow to compare them with "
        "(workload.flow.running replays them: import prometheus --flow-overlay)");

  // The headline: the load the twin replays and the two times the service is made of.
  int worst = -1;
  const char* names[] = {"TRUST", "USE WITH CARE", "DO NOT TRUST"};
  std::string why;
  for (const auto& s : r.series) {
    if (s.metric != kRequests.name && s.metric != kQueue.name && s.metric != kCompute.name)
      continue;
    for (int k = 0; k < 3; ++k)
      if (s.verdict == names[k] && k > worst) {
        worst = k;
        why = s.pool + " " + s.model + " " + s.metric;
      }
  }
  if (worst < 0)
    r.verdict = "cannot judge: no request rate, queue or compute time to compare";
  else if (worst == 0)
    r.verdict =
        "TRUST the twin for what-ifs over this day: request rate, queue and compute time "
        "agree with the measurements";
  else if (worst == 1)
    r.verdict = std::string("USE WITH CARE: ") + why +
                " is off (see above); calibrate the service curve (sonicsim calibrate "
                "prometheus) or check the replayed load before relying on absolute numbers";
  else
    r.verdict = std::string("DO NOT TRUST as is: ") + why +
                " disagrees with the measurements; check the scenario's load, devices and "
                "batching, then calibrate (sonicsim calibrate prometheus)";
  return r;
}

HistoryReport compare_history(const HistoryRequest& q) {
  const telemetry::Measurements m = telemetry::read_measurements(q.measurements);
  if (m.t.empty())
    throw InputError(q.measurements, {{"t", "found no window, expected a measured history"}});
  auto s = scenario::load(q.scenario);
  // The day's span on the day's grid.
  s.duration = m.t.back();
  s.timeseries_interval = m.step_s;
  if (s.warmup >= s.duration) s.warmup = 0.0;
  if (s.duration / s.timeseries_interval > scenario::Limits::max_timeseries_windows)
    throw InputError(q.measurements,
                     {{"step_s", "found " + util::format_time(m.step_s) + " windows over " +
                                     util::format_time(s.duration) +
                                     ", expected at most 1,000,000 windows: import with a "
                                     "longer --step"}});
  // Pools: by name, one to one when each side has one, else --pool MEASURED=SIMULATED.
  std::map<std::string, std::string> given;
  for (const auto& p : q.pool_map) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == p.size())
      throw InputError("--pool", {{"", "found '" + p + "', expected MEASURED=SIMULATED"}});
    given[p.substr(0, eq)] = p.substr(eq + 1);
  }
  std::vector<std::pair<std::string, std::string>> pools;
  std::vector<Problem> problems;
  for (const auto& mp : m.pools) {
    std::string sim;
    if (auto it = given.find(mp.name); it != given.end())
      sim = it->second;
    else if (std::any_of(s.servers.begin(), s.servers.end(),
                         [&](const auto& p) { return p.name == mp.name; }))
      sim = mp.name;
    else if (m.pools.size() == 1 && s.servers.size() == 1)
      sim = s.servers[0].name;
    if (sim.empty() || std::none_of(s.servers.begin(), s.servers.end(),
                                    [&](const auto& p) { return p.name == sim; })) {
      std::string names;
      for (const auto& p : s.servers) names += (names.empty() ? "" : ", ") + p.name;
      problems.push_back({"pools", "measured pool '" + mp.name + "' has no simulated pool" +
                                       (sim.empty() ? "" : " (--pool gave '" + sim + "')") +
                                       ", expected one of " + names + ": name it with --pool " +
                                       mp.name + "=POOL"});
      continue;
    }
    pools.emplace_back(mp.name, sim);
  }
  if (!problems.empty()) throw InputError(q.measurements, problems);
  const double from = q.from_s >= 0.0 ? q.from_s : s.warmup;
  bool replays = false;
  for (const auto& w : s.workloads)
    replays = replays || (w.flow && w.flow->start == scenario::JobFlow::Start::Running);
  const nlohmann::json doc = nlohmann::json::parse(q.simulate(std::move(s)));
  const results::Document results(doc);
  HistoryReport r = hold_history(m, results.timeseries(), pools, from);
  r.scenario_file = q.scenario.scenario_path;
  r.measurements_file = q.measurements;
  if (!replays)
    r.notes.push_back(
        "the scenario does not replay the measured client load (workload.flow.running): its "
        "own workload runs instead");
  return r;
}

nlohmann::ordered_json to_json(const HistoryReport& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario_file;
  j["measurements"] = r.measurements_file;
  j["start"] = util::format_wall_time(r.start);
  j["step_s"] = r.step_s;
  j["compared_from_s"] = r.from_s;
  auto& pools = j["pools"] = nlohmann::ordered_json::array();
  for (const auto& [m, s] : r.pools) pools.push_back({{"measured", m}, {"simulated", s}});
  auto& series = j["series"] = nlohmann::ordered_json::array();
  auto finite = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr; };
  for (const auto& s : r.series) {
    nlohmann::ordered_json o;
    o["pool"] = s.pool;
    o["model"] = s.model;
    o["metric"] = s.metric;
    o["windows"] = s.t.size();
    o["zero_windows"] = s.zero_windows;
    o["measured_mean"] = finite(s.measured_mean);
    o["simulated_mean"] = finite(s.simulated_mean);
    o["bias_percent"] = finite((s.simulated_mean / s.measured_mean - 1.0) * 100.0);
    o["mape_percent"] = finite(s.errors.mape_percent);
    o["max_abs_error_percent"] = finite(s.errors.max_abs_error_percent);
    o["worst_at_s"] = finite(s.errors.max_at_x);
    o["spearman"] = finite(s.errors.spearman);
    o["flat"] = s.flat;
    o["verdict"] = s.verdict;
    o["t_s"] = s.t;
    o["measured"] = s.measured;
    o["simulated"] = s.simulated;
    series.push_back(std::move(o));
  }
  j["notes"] = r.notes;
  j["verdict"] = r.verdict;
  return j;
}

std::string to_csv(const HistoryReport& r) {
  std::string out = "time,t_s,pool,model,metric,measured,simulated\n";
  for (const auto& s : r.series)
    for (std::size_t k = 0; k < s.t.size(); ++k)
      out += wall(r, s.t[k]) + "," + util::exact_number(s.t[k]) + "," + s.pool + "," + s.model +
             "," + s.metric + "," + util::exact_number(s.measured[k]) + "," +
             util::exact_number(s.simulated[k]) + "\n";
  return out;
}

std::string to_text(const HistoryReport& r) {
  std::string out = "compare " + r.scenario_file + " against " + r.measurements_file + "\n";
  std::size_t windows = 0;
  for (const auto& s : r.series) windows = std::max(windows, s.t.size());
  out += "day        from " + wall(r, 0.0) + ", windows of " + util::format_time(r.step_s) +
         ", compared after " + util::format_time(r.from_s) + "\n";
  for (const auto& [m, s] : r.pools)
    out += "pool       " + m + " (measured) = " + s + " (simulated)\n";
  out += std::string("\n") + cell("pool", -12) + cell("model", -16) + cell("metric", -22) +
         cell("measured", 12) + cell("simulated", 12) + cell("bias", 9) + cell("MAPE", 9) +
         cell("worst", 9) + cell("Spearman", 10) + "  verdict\n";
  for (const auto& s : r.series) {
    const double bias = (s.simulated_mean / s.measured_mean - 1.0) * 100.0;
    const std::string metric = s.metric + (s.unit[0] ? " [" + s.unit + "]" : std::string());
    out += cell(s.pool.empty() ? std::string("clients") : s.pool, -12);
    out += cell(s.model, -16) + cell(metric, -22);
    out += cell(number(s.measured_mean * s.scale), 12);
    out += cell(number(s.simulated_mean * s.scale), 12);
    out += std::isfinite(bias) ? util::formatted("%+8.1f%%", bias) : std::string("        -");
    out += std::isfinite(s.errors.mape_percent) ? util::formatted("%8.1f%%", s.errors.mape_percent)
                                                : std::string("        -");
    out += std::isfinite(s.errors.max_abs_error_percent)
               ? util::formatted("%8.0f%%", s.errors.max_abs_error_percent)
               : std::string("        -");
    out += s.flat ? std::string("      flat") : cell(number(s.errors.spearman), 10);
    out += "  " + s.verdict + "\n";
  }
  out += "\nmeans over the " + std::to_string(windows) +
         " windows compared; bias: simulated mean over measured; MAPE and worst: per window, "
         "where the measurement is not 0; flat: the measurement varies by less than 5%\n";
  for (const auto& n : r.notes) out += "note       " + n + "\n";
  out += "verdict    " + r.verdict + "\n";
  return out;
}

}  // namespace sonicsim::compare
