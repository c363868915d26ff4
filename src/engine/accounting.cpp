#include "accounting.hpp"

namespace sonicsim::engine {

void Accounting::build() {
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  metrics.workloads.resize(sc.workloads.size());
  for (std::size_t i = 0; i < sc.workloads.size(); ++i)
    metrics.workloads[i].name = sc.workloads[i].name;
  several_ = sc.workloads.size() > 1;
  metrics.models.resize(sc.models.size());
  for (std::size_t i = 0; i < sc.models.size(); ++i) metrics.models[i].name = sc.models[i].name;
}

void Accounting::try_failed(Rejection why, std::uint32_t model) {
  if (!ctx_.counts(ctx_.now)) return;
  auto& res = ctx_.metrics.resilience;
  auto& mm = ctx_.metrics.models[model];
  switch (why) {
    case Rejection::QueueFull:
      ++mm.rejected_queue_full;
      ++res.refused;
      break;
    case Rejection::Timeout:
      ++mm.rejected_timeout;
      ++res.refused;
      break;
    case Rejection::TooLarge:
      ++mm.rejected_too_large;
      ++res.refused;
      break;
    case Rejection::NoServer:
      ++res.no_server;
      break;
    case Rejection::Lost:
      ++res.server_lost;
      break;
    case Rejection::ClientTimeout:
      ++res.client_timeout;
      break;
  }
}

void Accounting::request_finished(RunMetrics::Workload& w, std::uint32_t model, Outcome outcome,
                                  double latency, bool retried, double fallback_cpu) {
  auto& metrics = ctx_.metrics;
  if (ctx_.counts(ctx_.now)) {
    switch (outcome) {
      case Outcome::Completed: {
        ++w.completed;
        metrics.latency.add(latency);
        if (several_) w.latency.add(latency);
        auto& mm = metrics.models[model];
        ++mm.requests;
        mm.latency.add(latency);
        if (retried) ++metrics.resilience.completed_after_retry;
        break;
      }
      case Outcome::Failed:
        ++w.failed;
        break;
      case Outcome::Fallback:
        ++w.fallback;
        ++metrics.resilience.fallback_after_failure;
        metrics.resilience.fallback_cpu_seconds += fallback_cpu;
        w.fallback_cpu_seconds += fallback_cpu;
        break;
    }
  } else {
    --w.sent;
  }
  if (outcome == Outcome::Completed) ++metrics.requests_simulated;
}

void Accounting::requests_preempted(RunMetrics::Workload& w, std::uint64_t n) {
  if (ctx_.counts(ctx_.now)) {
    w.failed += n;
    ctx_.metrics.resilience.preempted += n;
  } else {
    w.sent -= n;
  }
}

void Accounting::batch_started(std::uint32_t model, const std::vector<Batcher::Queued>& batch) {
  const double now = ctx_.now;
  if (ctx_.counts(now))
    for (const auto& q : batch) ctx_.metrics.models[model].queue_time.add(now - q.enqueued);
}

void Accounting::execution_done(std::uint32_t model, std::uint32_t pool, int items,
                                std::size_t requests, double start) {
  const double now = ctx_.now;
  if (!ctx_.counts(now)) return;
  auto& mm = ctx_.metrics.models[model];
  ++mm.executions;
  mm.items += static_cast<std::uint64_t>(items);
  mm.compute_time.add(now - start);
  ++ctx_.metrics.pools[pool].executions;
  const auto n = static_cast<double>(requests);
  mm.executed_requests += requests;
  mm.executed_request_seconds += n * (now - start);
  mm.executed_request_items += n * items;
}

void Accounting::finish(std::uint64_t in_flight) {
  auto& metrics = ctx_.metrics;
  metrics.in_flight_at_end = in_flight;
  // Each workload's requests still in flight are what its counts leave (the engine never tracks
  // them apart).
  for (auto& w : metrics.workloads) {
    metrics.sent += w.sent;
    metrics.completed += w.completed;
    metrics.failed += w.failed;
    metrics.fallback += w.fallback;
    w.in_flight_at_end = w.sent - w.completed - w.failed - w.fallback;
  }
  if (!several_) {
    metrics.workloads[0].time_per_event = metrics.time_per_event;
    metrics.workloads[0].latency = metrics.latency;
  }
}

}  // namespace sonicsim::engine
