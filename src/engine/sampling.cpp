#include "sampling.hpp"

#include <algorithm>

#include "clients.hpp"
#include "link_windows.hpp"
#include "model_memory.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"

namespace sonicsim::engine {

void Sampling::start() {
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  on_ = true;
  auto& ts = metrics.timeseries.emplace(RunMetrics::TimeSeries{});
  ts.interval = sc.timeseries_interval;
  std::vector<std::uint32_t> in_pool(sc.servers.size(), 0);
  const auto& servers = parts_.servers;
  for (std::uint32_t d = 0; d < servers.device_count(); ++d) {
    RunMetrics::TimeSeries::Device sd;
    sd.pool = servers.device(d).pool;
    sd.index = in_pool[sd.pool]++;
    ts.devices.push_back(std::move(sd));
  }
  parts_.servers.track_busy_over_whole_run();
  busy_before_.assign(servers.device_count(), 0.0);
  model_window_.assign(sc.models.size(), {});
  ts.models.assign(sc.models.size(), {});
  // Bytes per window for now, every window of the run (rates at finish()).
  const auto windows =
      static_cast<std::size_t>((ctx_.end - Time::zero()) / ts.interval * (1.0 + 1e-12)) + 1;
  ts.links.assign(metrics.links.size(), {});
  for (auto& l : ts.links)
    for (auto& dir : l.bytes_per_s) dir.assign(windows, 0.0);
  ts.pools.assign(sc.servers.size(), {});
  workload_window_.assign(sc.workloads.size(), {});
  ts.workloads.assign(sc.workloads.size(), {});
  start_counters(ts);
  const Time first = Time::from_seconds(ts.interval);
  if (first <= ctx_.end) ctx_.queue.push(first, EventKind::Sample, 0);
}

// One Counters series per pool and model it hosts (and per device and model with
// `timeseries.replicas`), in the scenario's order.
void Sampling::start_counters(RunMetrics::TimeSeries& ts) {
  const auto& sc = ctx_.sc;
  models_ = static_cast<std::uint32_t>(sc.models.size());
  const auto pools = static_cast<std::uint32_t>(sc.servers.size());
  device_pool_.clear();
  for (const auto& d : ts.devices) device_pool_.push_back(d.pool);
  pair_index_.assign(static_cast<std::size_t>(pools) * models_, 0);
  std::vector<std::vector<std::uint32_t>> hosted(pools);
  for (std::uint32_t p = 0; p < pools; ++p)
    for (const auto& name : sc.servers[p].models) {
      const auto m = static_cast<std::uint32_t>(sc.model_index(name));
      hosted[p].push_back(m);
      pair_index_[p * models_ + m] = static_cast<std::uint32_t>(ts.servers.size());
      ts.servers.push_back({p, m, -1, {}, {}, {}, {}, {}, {}});
    }
  pool_counts_.assign(ts.servers.size(), {});
  if (!sc.timeseries_replicas) return;
  replica_index_.assign(ts.devices.size() * models_, 0);
  for (std::uint32_t d = 0; d < ts.devices.size(); ++d)
    for (std::uint32_t m : hosted[ts.devices[d].pool]) {
      replica_index_[d * models_ + m] = static_cast<std::uint32_t>(ts.replicas.size());
      ts.replicas.push_back({ts.devices[d].pool,
                             m,
                             static_cast<std::int32_t>(ts.devices[d].index),
                             {},
                             {},
                             {},
                             {},
                             {},
                             {}});
    }
  replica_counts_.assign(ts.replicas.size(), {});
}

void Sampling::on_sample() {
  auto& metrics = ctx_.metrics;
  const Time now = ctx_.now;
  auto& ts = *metrics.timeseries;
  const double dt = ts.interval;
  ts.t.push_back(now.seconds());
  ts.events_per_s.push_back(static_cast<double>(window_events_) / dt);
  if (parts_.clients.job_flow())
    ts.running_jobs.push_back(static_cast<double>(parts_.clients.running_jobs()));
  for (std::uint32_t p = 0; p < metrics.pools.size(); ++p)
    if (metrics.pools[p].operated) {
      ts.pools[p].replicas.push_back(parts_.operations.replicas_asked(p));
      ts.pools[p].ready.push_back(parts_.operations.replicas_up(p));
    }
  window_events_ = 0;
  for (std::size_t i = 0; i < workload_window_.size(); ++i) {
    auto& w = workload_window_[i];
    auto& sw = ts.workloads[i];
    sw.events_per_s.push_back(static_cast<double>(w.events) / dt);
    sw.latency_p50_s.push_back(w.latency.quantile(0.50));
    sw.latency_p99_s.push_back(w.latency.quantile(0.99));
    w = WorkloadWindow{};
  }
  const auto& servers = parts_.servers;
  for (std::uint32_t di = 0; di < servers.device_count(); ++di) {
    const double busy = servers.busy_seconds_whole_run(di);
    ts.devices[di].utilization.push_back((busy - busy_before_[di]) / dt);
    busy_before_[di] = busy;
    ts.devices[di].queue_length.push_back(static_cast<double>(servers.queued_on(di)));
    ts.devices[di].serving.push_back(servers.serving(di) ? 1 : 0);
    if (ctx_.sc.timeseries_replicas) ts.devices[di].memory_used.push_back(parts_.memory.used(di));
  }
  auto close = [](std::vector<Counts>& counts, std::vector<RunMetrics::TimeSeries::Counters>& to) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      auto& c = counts[i];
      auto& s = to[i];
      s.requests.push_back(c.requests);
      s.failures.push_back(c.failures);
      s.inferences.push_back(c.inferences);
      s.executions.push_back(c.executions);
      s.queue_s.push_back(c.queue_s);
      s.compute_s.push_back(c.compute_s);
      c = Counts{};
    }
  };
  close(pool_counts_, ts.servers);
  close(replica_counts_, ts.replicas);
  for (std::size_t mi = 0; mi < model_window_.size(); ++mi) {
    auto& w = model_window_[mi];
    auto& sm = ts.models[mi];
    sm.inferences_per_s.push_back(static_cast<double>(w.items) / dt);
    sm.executions_per_s.push_back(static_cast<double>(w.executions) / dt);
    sm.mean_batch_size.push_back(
        w.executions ? static_cast<double>(w.items) / static_cast<double>(w.executions) : 0.0);
    sm.latency_p50_s.push_back(w.latency.quantile(0.50));
    sm.latency_p99_s.push_back(w.latency.quantile(0.99));
    const auto completed = static_cast<double>(w.latency.count());
    sm.completed.push_back(completed);
    sm.latency_sum_s.push_back(w.latency.mean() * completed);
    w = ModelWindow{};
  }
  // The k-th sample at k x interval, not a running sum: no drift over long runs.
  const Time next = Time::from_seconds(static_cast<double>(++samples_ + 1) * dt);
  if (next <= ctx_.end) ctx_.queue.push(next, EventKind::Sample, 0);
}

void Sampling::bytes_carried(std::size_t link, int dir, double from, double to, double bytes) {
  if (!on_) return;
  auto& ts = *ctx_.metrics.timeseries;
  spread_over_windows(ts.links[link].bytes_per_s[dir], 0.0, ts.interval, from, to, bytes);
}

void Sampling::finish() {
  if (!on_) return;
  auto& metrics = ctx_.metrics;
  auto& ts = *metrics.timeseries;
  const double dt = ts.interval;
  for (std::size_t li = 0; li < metrics.links.size(); ++li) {
    auto& sl = ts.links[li];
    const auto& l = metrics.links[li];
    for (auto& dir : sl.bytes_per_s) {
      dir.resize(ts.t.size());
      dir.shrink_to_fit();
    }
    sl.utilization.resize(ts.t.size());
    for (std::size_t k = 0; k < ts.t.size(); ++k) {
      const double busier = std::max(sl.bytes_per_s[0][k], sl.bytes_per_s[1][k]);
      sl.utilization[k] = busier / (dt * l.bandwidth * l.count);
      for (auto& dir : sl.bytes_per_s) dir[k] /= dt;
    }
  }
}

void Sampling::set_trace(const TraceSettings& t) {
  tracing_ = t;
  ctx_.metrics.trace.reserve(std::min<std::size_t>(t.max, 1u << 16));
}

}  // namespace sonicsim::engine
