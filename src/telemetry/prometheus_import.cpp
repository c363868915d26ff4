// From the exports' series to the measurements: the grid of windows, counters' increases under
// Prometheus' reset rule, gauges' means, the ratios and the autoscaler's metric.
#include <sonicsim/telemetry/prometheus_import.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <set>

#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/service_metrics.hpp>

#include "prometheus_series.hpp"

namespace sonicsim::telemetry {

namespace {

namespace svc = service_metrics;

using prom::Sample;
using prom::StoredSeries;

// A counter's increase per window, and whether any series spoke for the window at all.
struct CounterAcc {
  std::vector<double> inc;
  std::vector<char> covered;
  void init(std::size_t n) {
    inc.assign(n, 0.0);
    covered.assign(n, 0);
  }
};

// A gauge's window means, summed over series, and how many series had a sample.
struct GaugeAcc {
  std::vector<double> sum;
  std::vector<int> count;
  void init(std::size_t n) {
    sum.assign(n, 0.0);
    count.assign(n, 0);
  }
};

struct Grid {
  double start = 0.0, step = 1.0;
  std::size_t n = 0;

  // The window holding time t (windows are (start + k step, start + (k+1) step]).
  std::optional<std::size_t> window_of(double t) const {
    const double r = std::ceil((t - start) / step - 1e-9) - 1.0;
    if (r < 0.0 || r >= static_cast<double>(n)) return std::nullopt;
    return static_cast<std::size_t>(r);
  }

  // The windows spread() visits for a gap (a, b]: lo..hi, empty when lo > hi.
  std::pair<double, double> touched(double a, double b) const {
    const double end = start + step * static_cast<double>(n);
    if (b <= start || a >= end || b <= a) return {1.0, 0.0};
    return {std::max(0.0, std::floor((a - start) / step)),
            std::min(static_cast<double>(n) - 1.0, std::ceil((b - start) / step) - 1.0)};
  }

  // `amount` spread evenly over (a, b]: with samples on the windows' edges each window gets
  // exactly its own increase; between misaligned samples the counter is read as linear.
  void spread(double a, double b, double amount, CounterAcc& acc) const {
    const auto [lo, hi] = touched(a, b);
    if (lo > hi) return;
    for (auto k = static_cast<std::size_t>(lo); k <= static_cast<std::size_t>(hi); ++k) {
      const double ws = start + step * static_cast<double>(k), we = ws + step;
      const double overlap = std::min(b, we) - std::max(a, ws);
      if (overlap <= 1e-9 * step) continue;
      acc.inc[k] += amount * overlap / (b - a);
      acc.covered[k] = 1;
    }
  }

  // Prometheus' rule: a value below the one before means the counter restarted from 0. A
  // series' first sample is its baseline: what it counted before is not in the span.
  void add_counter(const std::vector<Sample>& s, CounterAcc& acc) const {
    for (std::size_t i = 1; i < s.size(); ++i) {
      const double inc = s[i].v >= s[i - 1].v ? s[i].v - s[i - 1].v : s[i].v;
      spread(s[i - 1].t, s[i].t, inc, acc);
    }
  }

  // The mean of the series' samples in each window, added to the pool's sums.
  void add_gauge(const std::vector<Sample>& s, GaugeAcc& acc) const {
    std::map<std::size_t, std::pair<double, int>> in;
    for (const auto& x : s)
      if (const auto k = window_of(x.t)) {
        in[*k].first += x.v;
        ++in[*k].second;
      }
    for (const auto& [k, sc] : in) {
      acc.sum[k] += sc.first / sc.second;
      ++acc.count[k];
    }
  }
};

struct ModelAcc {
  std::array<CounterAcc, svc::kTritonCounters> c;
  std::array<bool, svc::kTritonCounters> present{};
};

struct PoolAcc {
  std::map<std::pair<std::string, std::string>, ModelAcc> models;
  // replica -> the windows it has a sample in (repeats allowed): proportional to the samples,
  // where a row of every window per replica made pods x windows (3,000 pods over 2 million
  // windows: 6 GB).
  std::map<std::string, std::vector<std::size_t>> up;
  GaugeAcc gpu;
};

// A quantity too large for a double (counters near 1e308 added up) is not a measurement.
std::optional<double> finite(double x) {
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

std::optional<double> rate(const CounterAcc& a, std::size_t k, double step) {
  if (a.covered.empty() || !a.covered[k]) return std::nullopt;
  return finite(a.inc[k] / step);
}

std::optional<double> ratio(const CounterAcc& num, const CounterAcc& den, std::size_t k,
                            double scale) {
  if (num.covered.empty() || den.covered.empty() || !num.covered[k] || !den.covered[k] ||
      den.inc[k] <= 0.0)
    return std::nullopt;
  return finite(num.inc[k] / den.inc[k] * scale);
}

[[noreturn]] void no_windows(const std::vector<std::string>& files, const std::string& why) {
  throw InputError(files.size() == 1 ? files.front() : "the exports", {Problem{"", why}});
}

// What the windows' rows multiply by: pools (every pool of Triton's or GPU series has its
// replicas, GPU use and autoscaler rows, even with no model) and pool/model pairs (ten rows each).
struct Shape {
  std::size_t pools = 0, pairs = 0;
};

bool is_envoy(const std::string& metric) {
  return metric.rfind("envoy_", 0) == 0;
}

bool is_gauge(const std::string& metric) {
  return metric == svc::kGpuUtilization || metric == svc::kEnvoyConnections;
}

Shape shape_of(const prom::ReadState& s) {
  std::set<std::string> pools;
  std::set<std::pair<std::string, std::pair<std::string, std::string>>> pairs;
  for (const auto& [key, st] : s.series) {
    if (is_envoy(st.metric)) continue;
    pools.insert(st.pool);
    if (st.metric != svc::kGpuUtilization) pairs.insert({st.pool, {st.model, st.version}});
  }
  return {pools.size(), pairs.size()};
}

std::string plural(double n, const char* one, const char* many) {
  return util::format_count(n) + " " + (n == 1.0 ? one : many);
}

Grid grid_of(const prom::ReadState& s, const ImportOptions& o,
             const std::vector<std::string>& files, const Shape& shape) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double spacing = std::numeric_limits<double>::infinity();
  for (const auto& [key, st] : s.series) {
    if (st.samples.empty()) continue;
    lo = std::min(lo, st.samples.front().t);
    hi = std::max(hi, st.samples.back().t);
    for (std::size_t i = 1; i < st.samples.size(); ++i)
      spacing = std::min(spacing, st.samples[i].t - st.samples[i - 1].t);
  }
  if (!std::isfinite(lo))
    no_windows(files, "found no sample of a metric sonicsim uses, expected series of " +
                          std::string(svc::kTritonCounterNames[svc::kRequestSuccess]) +
                          " and the other Triton or Envoy metrics (docs/deployment.md)");
  Grid g;
  if (o.step_s) {
    g.step = *o.step_s;
  } else {
    if (!std::isfinite(spacing))
      no_windows(files,
                 "found no series with two samples, expected a history: give --step, "
                 "or export a longer span");
    g.step = std::max(0.001, std::round(spacing * 1000.0) / 1000.0);
  }
  g.start = o.start.value_or(lo);
  const double end = o.end.value_or(hi);
  if (end <= g.start)
    throw InputError("--start/--end",
                     {Problem{"", "found a span from " + util::exact_number(g.start) + " to " +
                                      util::exact_number(end) +
                                      " (unix seconds), expected an end after the start"}});
  const double windows = std::ceil((end - g.start) / g.step - 1e-9);
  if (!std::isfinite(g.step) || !(windows >= 1.0))
    throw InputError("--step",
                     {Problem{"", "found windows of " + util::exact_number(g.step) +
                                      " s over a span of " + util::exact_number(end - g.start) +
                                      " s, expected at least one finite window"}});
  // Every row of the measurements file holds a value per window: ten per pool/model pair, three
  // per pool, three for the clients.
  const double rows = static_cast<double>(shape.pairs + shape.pools + 1);
  const double cells = windows * rows;
  const std::size_t max_cells = std::min(o.max_cells, PrometheusLimits::max_cells);
  if (cells > static_cast<double>(max_cells))
    throw InputError(
        "--step",
        {Problem{
            "",
            "found " + util::format_count(windows) + " windows of " + util::exact_number(g.step) +
                " s x (" +
                plural(static_cast<double>(shape.pairs), "pool/model pair", "pool/model pairs") +
                " + " + plural(static_cast<double>(shape.pools), "pool", "pools") +
                " + the clients) = " + util::format_count(cells) + " cells, expected at most " +
                util::format_count(static_cast<double>(max_cells)) +
                ": give a larger --step or a shorter --start/--end"}});
  g.n = static_cast<std::size_t>(windows);
  return g;
}

// Refused before any window is allocated: the steps spreading counters' increases over the
// windows between their samples (series x windows between samples far apart), then the memory.
void check_costs(const prom::ReadState& s, const Grid& g, const Shape& shape,
                 const ImportOptions& o) {
  double steps = 0.0, samples = 0.0;
  for (const auto& [key, st] : s.series) {
    samples += static_cast<double>(st.samples.size());
    if (is_gauge(st.metric)) continue;
    for (std::size_t i = 1; i < st.samples.size(); ++i) {
      const auto [lo, hi] = g.touched(st.samples[i - 1].t, st.samples[i].t);
      if (lo <= hi) steps += hi - lo + 1.0;
    }
  }
  const double n = static_cast<double>(g.n);
  const double max_steps = std::min(o.max_spread_steps, PrometheusLimits::max_spread_steps);
  if (steps > max_steps)
    throw InputError(
        "--step",
        {Problem{"", "found counters whose increases spread over " + util::format_count(steps) +
                         " windows in all (each gap between two samples over the windows it "
                         "spans; " +
                         util::format_count(n) + " windows of " + util::exact_number(g.step) +
                         " s), expected at most " + util::format_count(max_steps) +
                         ": give a larger --step or a shorter --start/--end"}});

  const prom::ImportCosts& c = prom::kImportCosts;
  std::vector<std::pair<std::string, double>> parts = {
      {plural(samples, "sample", "samples"), samples * c.sample},
      {plural(static_cast<double>(s.series.size()), "series", "series"),
       static_cast<double>(s.series.size()) * c.series},
      {util::format_count(n) + " windows x " +
           plural(static_cast<double>(shape.pairs), "pool/model pair", "pool/model pairs"),
       n * static_cast<double>(shape.pairs) * c.pair_window},
      {util::format_count(n) + " windows x " +
           plural(static_cast<double>(shape.pools), "pool", "pools"),
       n * static_cast<double>(shape.pools) * c.pool_window},
      {plural(n, "window", "windows"), n * c.window}};
  std::sort(parts.begin(), parts.end(),
            [](const auto& x, const auto& y) { return x.second > y.second; });
  double bytes = c.fixed;
  for (const auto& [what, b] : parts) bytes += b;
  if (bytes <= o.memory_budget) return;
  std::string largest;
  for (std::size_t i = 0; i < 3 && parts[i].second > 0.0; ++i)
    largest += (i ? ", " : "") + parts[i].first + " ~ " + util::format_bytes(parts[i].second);
  prom::over_budget(bytes, o.memory_budget, largest);
}

}  // namespace

const std::vector<std::string>& recognized_metrics() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v(std::begin(svc::kTritonCounterNames),
                               std::end(svc::kTritonCounterNames));
    for (const char* x : {svc::kGpuUtilization, svc::kEnvoyRequests, svc::kEnvoyTimeSum,
                          svc::kEnvoyTimeCount, svc::kEnvoyConnections})
      v.emplace_back(x);
    return v;
  }();
  return names;
}

ImportResult import_prometheus(const std::vector<std::string>& files, const ImportOptions& o) {
  prom::ReadState s;
  for (const auto& f : files) prom::read_export(f, o, s);
  prom::merge_repeated_series(s);

  const Shape shape = shape_of(s);
  const Grid g = grid_of(s, o, files, shape);
  check_costs(s, g, shape, o);

  std::map<std::string, PoolAcc> pools;
  CounterAcc rq, time_sum, time_count;
  GaugeAcc connected;
  connected.init(g.n);
  std::set<std::string> found;
  std::map<std::string, std::size_t> outside;  // metric -> series with no sample in the span
  for (const auto& [key, st] : s.series) {
    found.insert(st.metric);
    const double end = g.start + g.step * static_cast<double>(g.n);
    if (st.samples.empty() || st.samples.back().t <= g.start || st.samples.front().t > end)
      ++outside[st.metric];
    if (st.metric == svc::kEnvoyConnections) {
      g.add_gauge(st.samples, connected);
      continue;
    }
    if (is_envoy(st.metric)) {
      CounterAcc& a = st.metric == svc::kEnvoyRequests  ? rq
                      : st.metric == svc::kEnvoyTimeSum ? time_sum
                                                        : time_count;
      if (a.inc.empty()) a.init(g.n);
      g.add_counter(st.samples, a);
      continue;
    }
    PoolAcc& p = pools[st.pool];
    if (p.gpu.sum.empty()) p.gpu.init(g.n);
    auto& up = p.up[st.replica];
    for (const auto& x : st.samples)
      if (const auto k = g.window_of(x.t)) up.push_back(*k);
    if (st.metric == svc::kGpuUtilization) {
      g.add_gauge(st.samples, p.gpu);
      continue;
    }
    const auto which =
        static_cast<std::size_t>(std::find(std::begin(svc::kTritonCounterNames),
                                           std::end(svc::kTritonCounterNames), st.metric) -
                                 std::begin(svc::kTritonCounterNames));
    ModelAcc& m = p.models[{st.model, st.version}];
    if (!m.present[which]) {
      m.c[which].init(g.n);
      m.present[which] = true;
    }
    g.add_counter(st.samples, m.c[which]);
  }

  ImportResult r;
  Measurements& out = r.measurements;
  out.source.files = s.files;
  out.source.pool_label = o.pool_label;
  out.source.replica_label = o.replica_label;
  out.start = g.start;
  out.step_s = g.step;
  for (std::size_t k = 0; k < g.n; ++k) out.t.push_back(g.step * static_cast<double>(k + 1));
  const double us = 1e-6;
  for (auto& [name, p] : pools) {
    PoolSeries ps;
    ps.name = name;
    CounterAcc queue_all, exec_all;
    queue_all.init(g.n);
    exec_all.init(g.n);
    for (auto& [id, m] : p.models) {
      ModelSeries ms;
      ms.name = id.first;
      ms.version = id.second;
      for (auto& c : m.c)
        if (c.inc.empty()) c.init(g.n);  // absent: never covered, every value null
      for (std::size_t k = 0; k < g.n; ++k) {
        const auto& c = m.c;
        ms.requests_per_s.push_back(rate(c[svc::kRequestSuccess], k, g.step));
        ms.failures_per_s.push_back(rate(c[svc::kRequestFailure], k, g.step));
        ms.inferences_per_s.push_back(rate(c[svc::kInferenceCount], k, g.step));
        ms.executions_per_s.push_back(rate(c[svc::kExecCount], k, g.step));
        ms.batch_size.push_back(ratio(c[svc::kInferenceCount], c[svc::kExecCount], k, 1.0));
        ms.queue_time_s.push_back(ratio(c[svc::kQueueDuration], c[svc::kRequestSuccess], k, us));
        ms.compute_input_time_s.push_back(
            ratio(c[svc::kComputeInput], c[svc::kRequestSuccess], k, us));
        ms.compute_infer_time_s.push_back(
            ratio(c[svc::kComputeInfer], c[svc::kRequestSuccess], k, us));
        ms.compute_output_time_s.push_back(
            ratio(c[svc::kComputeOutput], c[svc::kRequestSuccess], k, us));
        ms.request_time_s.push_back(
            ratio(c[svc::kRequestDuration], c[svc::kRequestSuccess], k, us));
        if (c[svc::kQueueDuration].covered[k] && c[svc::kExecCount].covered[k]) {
          queue_all.inc[k] += c[svc::kQueueDuration].inc[k];
          exec_all.inc[k] += c[svc::kExecCount].inc[k];
          queue_all.covered[k] = exec_all.covered[k] = 1;
        }
      }
      ps.models.push_back(std::move(ms));
    }
    std::vector<double> replicas(g.n, 0.0);
    for (auto& [replica, w] : p.up) {
      std::sort(w.begin(), w.end());
      w.erase(std::unique(w.begin(), w.end()), w.end());
      for (const std::size_t k : w) replicas[k] += 1.0;
    }
    for (std::size_t k = 0; k < g.n; ++k) {
      ps.replicas.push_back(replicas[k]);
      ps.gpu_utilization.push_back(p.gpu.count[k] ? finite(p.gpu.sum[k] / p.gpu.count[k])
                                                  : std::nullopt);
      // SuperSONIC's KEDA query: queue microseconds per execution, in ms (without its +0.001,
      // which only keeps an idle pool's ratio finite).
      ps.autoscaler_metric_ms.push_back(ratio(queue_all, exec_all, k, 1e-3));
    }
    out.pools.push_back(std::move(ps));
  }
  for (CounterAcc* a : {&rq, &time_sum, &time_count})
    if (a->inc.empty()) a->init(g.n);
  for (std::size_t k = 0; k < g.n; ++k) {
    out.clients.connected.push_back(connected.count[k] ? finite(connected.sum[k]) : std::nullopt);
    out.clients.requests_per_s.push_back(rate(rq, k, g.step));
    out.clients.request_time_s.push_back(ratio(time_sum, time_count, k, 1e-3));
  }

  ImportReport& rep = r.report;
  rep = s.report;
  for (const auto& name : recognized_metrics())
    (found.count(name) ? rep.found : rep.missing).push_back(name);
  for (const auto& [id, n] : s.unused) rep.ignored.push_back({id.first, n, id.second});
  for (const auto& [metric, n] : outside)
    rep.ignored.push_back({metric, n, "no finite sample within the windows (--start/--end)"});
  return r;
}

}  // namespace sonicsim::telemetry
