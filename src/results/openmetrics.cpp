#include <sonicsim/results/openmetrics.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <sonicsim/scenario/sites.hpp>

#include "exposition.hpp"

namespace sonicsim::results {

namespace {

using exposition::label;
using exposition::number;
using TimeSeries = engine::RunMetrics::TimeSeries;

class TimelineWriter {
 public:
  TimelineWriter(const TimeSeries& ts, double start) {
    stamps_.reserve(ts.t.size());
    char buf[48];
    // Prometheus keeps milliseconds; three decimals keep every window's stamp distinct.
    for (double t : ts.t) {
      std::snprintf(buf, sizeof buf, " %.3f\n", start + t);
      stamps_.emplace_back(buf);
    }
  }
  void family(const char* name, const char* type, const char* help) {
    out_ += std::string("# TYPE ") + name + " " + type + "\n";
    out_ += std::string("# HELP ") + name + " " + help + "\n";
  }
  void sample(const std::string& prefix, double value, std::size_t window) {
    out_ += prefix;
    out_ += number(value);
    out_ += stamps_[window];
  }
  std::string take() {
    out_ += "# EOF\n";
    return std::move(out_);
  }

 private:
  std::vector<std::string> stamps_;
  std::string out_;
};

struct DeploymentLabels {
  std::string common;  // app, release, namespace
  std::string release;
  std::string pod(const std::string& pool, std::int32_t replica) const {
    return release + "-" + pool + "-" + std::to_string(replica);
  }
  // With sites, each device's site (as a scrape config per site would label its servers).
  std::vector<std::string> site_of_device;
  std::string replica(const std::string& pool, std::int32_t replica, std::size_t device) const {
    std::string out = common + ",pool=\"" + label(pool) + "\",replica=\"" +
                      std::to_string(replica) + "\",pod=\"" + label(pod(pool, replica)) + "\"";
    if (!site_of_device.empty()) out += ",site=\"" + label(site_of_device.at(device)) + "\"";
    return out;
  }
  // Triton labels its GPU gauges with the GPU's UUID alone; the scrape adds the pod's labels.
  std::string gpu(const std::string& pool, std::int32_t index, std::size_t device) const {
    return replica(pool, index, device) + ",gpu_uuid=\"GPU-" + label(pod(pool, index)) + "\"";
  }
};

// The device numbers of each pool's replicas: devices are numbered pool after pool.
std::vector<std::size_t> first_device_of_pools(const scenario::Scenario& s) {
  std::vector<std::size_t> first;
  std::size_t next = 0;
  for (const auto& p : s.servers) {
    first.push_back(next);
    next += static_cast<std::size_t>(p.count);
  }
  return first;
}

// A replica's counter over the windows it serves: cumulative, from 0 at each (re)start.
template <class Increment>
void replica_counter(TimelineWriter& w, const std::string& prefix,
                     const std::vector<std::uint8_t>& serving, std::size_t windows,
                     Increment increment) {
  double total = 0.0;
  for (std::size_t k = 0; k < windows; ++k) {
    if (!serving[k]) continue;
    if (k == 0 || !serving[k - 1]) total = 0.0;
    total += increment(k);
    w.sample(prefix, total, k);
  }
}

void triton(TimelineWriter& w, const scenario::Scenario& s, const engine::RunMetrics& m,
            const DeploymentLabels& l) {
  const TimeSeries& ts = *m.timeseries;
  const auto first = first_device_of_pools(s);
  const std::size_t windows = ts.t.size();
  using C = TimeSeries::Counters;
  double (*const increment[exposition::kTritonCounters])(const C&, std::size_t) = {
      [](const C& c, std::size_t k) { return c.requests[k]; },
      [](const C& c, std::size_t k) { return c.failures[k]; },
      [](const C& c, std::size_t k) { return c.inferences[k]; },
      [](const C& c, std::size_t k) { return c.executions[k]; },
      [](const C& c, std::size_t k) { return (c.queue_s[k] + c.compute_s[k]) * 1e6; },
      [](const C& c, std::size_t k) { return c.queue_s[k] * 1e6; },
      [](const C&, std::size_t) { return 0.0; },
      [](const C& c, std::size_t k) { return c.compute_s[k] * 1e6; },
      [](const C&, std::size_t) { return 0.0; },
  };
  for (int f = 0; f < exposition::kTritonCounters; ++f) {
    const auto& family = exposition::kTriton[f];
    w.family(family.name, family.type, family.help);
    for (const C& c : ts.replicas) {
      const std::string& pool = m.pools.at(c.pool).name;
      const std::size_t device = first.at(c.pool) + static_cast<std::size_t>(c.replica);
      const auto& serving = ts.devices.at(device).serving;
      const std::string prefix = std::string(family.name) + "{" +
                                 l.replica(pool, c.replica, device) + ",model=\"" +
                                 label(m.models.at(c.model).name) + "\",version=\"1\"} ";
      replica_counter(w, prefix, serving, windows,
                      [&](std::size_t k) { return increment[f](c, k); });
    }
  }
  w.family(service_metrics::kGpuUtilization, "gauge",
           "GPU utilization rate [0.0 - 1.0), mean over the window (sonicsim: busy fraction)");
  for (std::size_t device = 0; device < ts.devices.size(); ++device) {
    const auto& d = ts.devices[device];
    const std::string& pool = m.pools.at(d.pool).name;
    const auto replica = static_cast<std::int32_t>(d.index);
    const std::string prefix =
        std::string(service_metrics::kGpuUtilization) + "{" + l.gpu(pool, replica, device) + "} ";
    for (std::size_t k = 0; k < windows; ++k)
      if (d.serving[k]) w.sample(prefix, d.utilization[k], k);
  }
}

// Triton's memory and power gauges, for the devices whose memory or power the scenario gives
// (devices.D.memory, devices.D.power, or the device catalogue's datasheet figures for a device
// it knows, docs/devices.md): without them sonicsim knows neither, and a dashboard panel left
// empty says so better than one drawn from invented figures. Power is the window's mean,
// the power model of the energy figures at the window's utilization (DCGM samples it instead);
// the limit is the device at full utilization, so that the dashboard's usage / limit reads 1 on
// a device busy all the time.
void gpu_gauges(TimelineWriter& w, const scenario::Scenario& s, const engine::RunMetrics& m,
                const DeploymentLabels& l) {
  using Spec = scenario::DeviceSpec;
  using Device = TimeSeries::Device;
  const TimeSeries& ts = *m.timeseries;
  std::vector<const Spec*> spec;
  for (const auto& d : ts.devices) spec.push_back(s.find_device(s.servers.at(d.pool).device));
  auto gauge = [&](const char* name, const char* help, bool (*has)(const Spec&),
                   double (*value)(const Spec&, const Device&, std::size_t)) {
    if (std::none_of(spec.begin(), spec.end(), [&](const Spec* p) { return p && has(*p); })) return;
    w.family(name, "gauge", help);
    for (std::size_t device = 0; device < ts.devices.size(); ++device) {
      if (!spec[device] || !has(*spec[device])) continue;
      const Device& d = ts.devices[device];
      const std::string prefix =
          std::string(name) + "{" +
          l.gpu(m.pools.at(d.pool).name, static_cast<std::int32_t>(d.index), device) + "} ";
      for (std::size_t k = 0; k < ts.t.size(); ++k)
        if (d.serving[k]) w.sample(prefix, value(*spec[device], d, k), k);
    }
  };
  const auto memory = [](const Spec& p) { return p.memory.has_value(); };
  const auto power = [](const Spec& p) { return p.power.has_value(); };
  gauge(service_metrics::kGpuMemoryTotal, "GPU total memory, in bytes (sonicsim: devices.D.memory)",
        memory, [](const Spec& p, const Device&, std::size_t) { return *p.memory; });
  gauge(service_metrics::kGpuMemoryUsed,
        "GPU used memory, in bytes (sonicsim: the models loaded or loading at the window's end)",
        memory, [](const Spec&, const Device& d, std::size_t k) { return d.memory_used.at(k); });
  gauge(
      service_metrics::kGpuPowerUsage,
      "GPU power usage in watts (sonicsim: devices.D.power at the window's utilization)", power,
      [](const Spec& p, const Device& d, std::size_t k) { return p.power->at(d.utilization[k]); });
  gauge(service_metrics::kGpuPowerLimit,
        "GPU power management limit in watts (sonicsim: devices.D.power at full utilization)",
        power, [](const Spec& p, const Device&, std::size_t) { return p.power->busy(); });
}

// Envoy in front of the servers: the requests it saw complete, their time through it (the
// clients' latency: sonicsim's clients sit next to the proxy), and the connected clients (each
// job holds one gRPC connection).
void envoy(TimelineWriter& w, const scenario::Scenario& s, const engine::RunMetrics& m,
           const DeploymentLabels& l) {
  const TimeSeries& ts = *m.timeseries;
  const std::size_t windows = ts.t.size();
  const std::string proxy = l.common + ",pod=\"" + label(l.release) +
                            "-envoy-0\",envoy_http_conn_manager_prefix=\"ingress_grpc\"";
  const std::string labels = "{" + proxy + "} ";
  w.family(service_metrics::kEnvoyRequests, "counter",
           "Total requests (sonicsim: completed requests)");
  const std::string requests = service_metrics::kEnvoyRequests + labels;
  double completed = 0.0;
  for (std::size_t k = 0; k < windows; ++k) {
    for (const auto& sm : ts.models) completed += sm.completed[k];
    w.sample(requests, completed, k);
  }
  // Envoy's histogram, with the +Inf bucket alone: the windows keep each request's latency only
  // in their sum and quantiles, not in Envoy's buckets, and a bucket made up from a quantile
  // would mislead histogram_quantile more than an absent one.
  w.family(service_metrics::kEnvoyTime, "histogram",
           "Request time in milliseconds (sonicsim: the clients' latency)");
  const std::string bucket =
      std::string(service_metrics::kEnvoyTime) + "_bucket{" + proxy + ",le=\"+Inf\"} ";
  const std::string sum = service_metrics::kEnvoyTimeSum + labels;
  const std::string count = service_metrics::kEnvoyTimeCount + labels;
  double timed = 0.0, milliseconds = 0.0;
  for (std::size_t k = 0; k < windows; ++k) {
    for (const auto& sm : ts.models) {
      timed += sm.completed[k];
      milliseconds += sm.latency_sum_s[k] * 1e3;
    }
    w.sample(bucket, timed, k);
    w.sample(sum, milliseconds, k);
    w.sample(count, timed, k);
  }
  // Job flows count the jobs running; fixed populations run all their jobs throughout; an open
  // loop has no clients that stay connected.
  double population = 0.0;
  for (const auto& wl : s.workloads)
    if (!wl.open_loop()) population += static_cast<double>(wl.jobs);
  if (m.jobs || population > 0.0) {
    w.family(service_metrics::kEnvoyConnections, "gauge",
             "Active connections (sonicsim: client jobs running)");
    const std::string prefix = service_metrics::kEnvoyConnections + labels;
    for (std::size_t k = 0; k < windows; ++k)
      w.sample(prefix, m.jobs ? ts.running_jobs.at(k) : population, k);
  }
}

// The Triton Deployment's replicas as kube-state-metrics reports them: asked for (KEDA's and
// the HorizontalPodAutoscaler's decision) and ready.
void deployments(TimelineWriter& w, const scenario::Scenario& s, const engine::RunMetrics& m,
                 const DeploymentLabels& l) {
  const TimeSeries& ts = *m.timeseries;
  const std::size_t windows = ts.t.size();
  auto each_pool = [&](const char* name, const char* help, bool ready) {
    w.family(name, "gauge", help);
    for (std::size_t p = 0; p < m.pools.size(); ++p) {
      const std::string prefix = std::string(name) + "{" + l.common + ",deployment=\"" +
                                 label(l.release + "-" + m.pools[p].name) + "\"} ";
      const auto& pool = ts.pools.at(p);
      const auto& series = ready ? pool.ready : pool.replicas;
      for (std::size_t k = 0; k < windows; ++k)
        w.sample(prefix, series.empty() ? s.servers[p].count : series[k], k);
    }
  };
  each_pool("kube_deployment_spec_replicas", "Replicas asked for (the autoscaler's decision)",
            false);
  each_pool("kube_deployment_status_replicas_ready", "Replicas up and serving", true);
}

}  // namespace

double openmetrics_samples(const scenario::Scenario& s) {
  if (s.timeseries_interval <= 0.0) return 0.0;
  const double windows = std::floor(s.duration / s.timeseries_interval);
  double devices = 0.0, device_models = 0.0, gauges = 0.0;
  for (const auto& p : s.servers) {
    devices += p.count;
    device_models += static_cast<double>(p.count) * static_cast<double>(p.models.size());
    if (const scenario::DeviceSpec* d = s.find_device(p.device))
      gauges += p.count * ((d->power ? 2.0 : 0.0) + (d->memory ? 2.0 : 0.0));
  }
  const double pools = static_cast<double>(s.servers.size());
  return windows * (static_cast<double>(exposition::kTritonCounters) * device_models + devices +
                    gauges + 2.0 * pools + 5.0);
}

std::string to_openmetrics(const scenario::Scenario& s, const runner::RunOutput& run,
                           const OpenMetricsSettings& settings) {
  const auto& m = run.metrics;
  if (!m.timeseries ||
      (m.timeseries->replicas.empty() && !m.pools.empty() && !m.timeseries->servers.empty()))
    throw std::logic_error("to_openmetrics: the run has no time series per replica");
  DeploymentLabels l;
  l.release = settings.release;
  l.common = "app=\"supersonic\",release=\"" + label(settings.release) + "\",namespace=\"" +
             label(settings.namespace_name) + "\"";
  if (!s.sites.empty())
    for (const auto site : scenario::device_sites(s))
      l.site_of_device.push_back(s.sites[site].name);
  TimelineWriter w(*m.timeseries, settings.start_unix);
  triton(w, s, m, l);
  gpu_gauges(w, s, m, l);
  envoy(w, s, m, l);
  deployments(w, s, m, l);
  return w.take();
}

}  // namespace sonicsim::results
