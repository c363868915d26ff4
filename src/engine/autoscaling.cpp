// The autoscaler's side of site operations: the readings its metric takes over each poll's
// window, the polls, and the replicas started or drained to follow its decisions. The decisions
// themselves are plain arithmetic in autoscaler.cpp.
#include "site_operations.hpp"

#include <algorithm>

#include "model_memory.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

SiteOperations::PoolOps::Mark SiteOperations::pool_counters(std::uint32_t p) const {
  const PoolOps& po = pools_[p];
  double busy = 0.0;
  for (std::uint32_t d : po.devices) busy += parts_.servers.busy_seconds_whole_run(d);
  const auto& c = parts_.servers.counters(p);
  return {c.queue_seconds, c.executions, busy};
}

// The window of poll k (at k x interval) starts at k x interval - window, or at 0.
void SiteOperations::schedule_mark(std::uint32_t p) {
  PoolOps& po = pools_[p];
  const auto& a = *ctx_.sc.servers[p].autoscaler;
  const Time at = Time::from_seconds(
      std::max(0.0, static_cast<double>(po.marks_taken + 1) * a.polling_interval - a.window));
  if (at <= ctx_.end)
    ctx_.queue.push(std::max(at, ctx_.now), EventKind::Operation, p, op_stamp(kPollMark, 0));
}

void SiteOperations::take_mark(std::uint32_t p) {
  PoolOps& po = pools_[p];
  po.marks.push_back(ctx_.now <= Time::zero() ? PoolOps::Mark{0.0, 0.0, 0.0} : pool_counters(p));
  ++po.marks_taken;
  // The marks a window reaches back before the run are all zero: taken here at once, not as an
  // event each (a window of 25 days polled every 30 s was 72,651 events at t = 0).
  if (ctx_.now <= Time::zero()) {
    const auto& a = *ctx_.sc.servers[p].autoscaler;
    while (static_cast<double>(po.marks_taken + 1) * a.polling_interval - a.window <= 0.0) {
      po.marks.push_back(PoolOps::Mark{0.0, 0.0, 0.0});
      ++po.marks_taken;
    }
  }
  schedule_mark(p);
}

double SiteOperations::read_metric(std::uint32_t p) {
  PoolOps& po = pools_[p];
  const auto& a = *ctx_.sc.servers[p].autoscaler;
  const PoolOps::Mark from = po.marks.front();
  po.marks.pop_front();
  const PoolOps::Mark to = pool_counters(p);
  switch (a.metric) {
    case scenario::Autoscaler::Metric::QueueTime: {
      const double execs = to.executions - from.executions;
      return execs > 0.0 ? (to.queue_seconds - from.queue_seconds) / execs : 0.0;
    }
    case scenario::Autoscaler::Metric::Utilization: {
      const double span = std::min(a.window, ctx_.now - Time::zero());
      return span > 0.0 ? (to.busy_seconds - from.busy_seconds) / (span * std::max(po.up, 1)) : 0.0;
    }
    case scenario::Autoscaler::Metric::QueueLength: {
      std::size_t queued = 0;
      for (std::uint32_t d : po.devices) queued += parts_.servers.queued_on(d);
      return static_cast<double>(queued);
    }
  }
  return 0.0;
}

void SiteOperations::poll(std::uint32_t p) {
  const Time now = ctx_.now;
  PoolOps& po = pools_[p];
  const auto& a = *ctx_.sc.servers[p].autoscaler;
  Autoscaler::Poll in;
  in.time = now;
  in.metric = po.last_metric = read_metric(p);
  in.current = po.asked;
  in.ready = po.up;
  in.active = po.active;
  in.refused = po.refused;
  po.active = po.refused = false;
  const Autoscaler::Decision d = po.scaler->decide(in);
  if (d.replicas != po.asked) {
    ctx_.metrics.pools[p].scaling.push_back(
        {now.seconds(), po.asked, d.replicas, d.raw, in.metric, d.why});
    scale_to(p, d.replicas);
  }
  const Time next = Time::from_seconds(static_cast<double>(++po.polls + 1) * a.polling_interval);
  if (next <= ctx_.end) ctx_.queue.push(next, EventKind::Operation, p, op_stamp(kPoll, 0));
}

void SiteOperations::scale_to(std::uint32_t p, int target) {
  PoolOps& po = pools_[p];
  const auto& servers = parts_.servers;
  auto replicas = [&](State s) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t d : po.devices)
      if (servers.device(d).state == s) out.push_back(d);
    return out;
  };
  // Up: the first devices that are off, in pool order.
  for (std::uint32_t d : replicas(State::Off)) {
    if (po.asked >= target) break;
    start_server(d);
    ++po.asked;
  }
  // Down: as a ReplicaSet picks pods to delete: crashed ones first, then those not ready, then
  // the newest.
  for (State s : {State::Down, State::Starting, State::Up}) {
    auto victims = replicas(s);
    std::stable_sort(victims.begin(), victims.end(), [&](std::uint32_t x, std::uint32_t y) {
      return servers.device(x).started_at > servers.device(y).started_at;
    });
    for (std::uint32_t d : victims) {
      if (po.asked <= target) break;
      drain_server(d);
      --po.asked;
    }
  }
  auto& pm = ctx_.metrics.pools[p];
  pm.peak_replicas = std::max(pm.peak_replicas, po.asked);
}

}  // namespace sonicsim::engine
