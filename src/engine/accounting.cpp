#include "accounting.hpp"

namespace sonicsim::engine {

void Accounting::build() {
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  metrics.workloads.resize(sc.workloads.size());
  for (std::size_t i = 0; i < sc.workloads.size(); ++i)
    metrics.workloads[i].name = sc.workloads[i].name;
  several_ = sc.workloads.size() > 1;
  for (const auto& w : sc.workloads) client_cpu_ = client_cpu_ || w.core_power.has_value();
  metrics.models.resize(sc.models.size());
  for (std::size_t i = 0; i < sc.models.size(); ++i) metrics.models[i].name = sc.models[i].name;
  if (!sc.sites.empty()) keep_sites(sc.sites.size());
}

void Accounting::keep_sites(std::size_t sites) {
  sites_ = sites;
  by_site_.assign(ctx_.metrics.workloads.size() * sites, RunMetrics::Workload{});
  several_ = true;  // each record keeps its own histograms
  ctx_.metrics.sites.resize(sites);
  for (std::size_t s = 0; s < sites; ++s) ctx_.metrics.sites[s].name = ctx_.sc.sites[s].name;
}

namespace {

void add_into(RunMetrics::Workload& to, const RunMetrics::Workload& from) {
  to.events_completed += from.events_completed;
  to.time_per_event.merge(from.time_per_event);
  to.sent += from.sent;
  to.completed += from.completed;
  to.failed += from.failed;
  to.fallback += from.fallback;
  to.latency.merge(from.latency);
  to.fallback_cpu_seconds += from.fallback_cpu_seconds;
}

}  // namespace

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

void Accounting::requests_preempted(Tally t, std::uint64_t n) {
  RunMetrics::Workload& w = *t.w_;
  if (ctx_.counts(ctx_.now)) {
    w.failed += n;
    ctx_.metrics.resilience.preempted += n;
  } else {
    w.sent -= n;
  }
}

void Accounting::finish(std::uint64_t in_flight) {
  auto& metrics = ctx_.metrics;
  metrics.in_flight_at_end = in_flight;
  for (std::size_t w = 0; w < by_site_.size() / std::max<std::size_t>(sites_, 1); ++w)
    for (std::size_t s = 0; s < sites_; ++s) {
      add_into(metrics.workloads[w], by_site_[w * sites_ + s]);
      add_into(metrics.sites[s], by_site_[w * sites_ + s]);
    }
  for (auto& site : metrics.sites)
    site.in_flight_at_end = site.sent - site.completed - site.failed - site.fallback;
  // Each workload's requests still in flight are what its counts leave (the engine never tracks
  // them apart).
  for (auto& w : metrics.workloads) {
    metrics.sent += w.sent;
    metrics.completed += w.completed;
    metrics.failed += w.failed;
    metrics.fallback += w.fallback;
    w.in_flight_at_end = w.sent - w.completed - w.failed - w.fallback;
  }
  if (!several_ && metrics.workloads.size() == 1) {
    metrics.workloads[0].time_per_event = metrics.time_per_event;
    metrics.workloads[0].latency = metrics.latency;
  }
}

}  // namespace sonicsim::engine
