// Counting requests, events and executions into the run's metrics, and closing the books at the
// end. The rule that makes the counts add up lives here: a request counts unless it finished
// before the warm-up ended (it is then taken back from `sent`), so that sent = completed + failed
// + fallback + in_flight_at_end holds exactly, per workload and in total. The other parts count
// their own figures (links, pools, the balancer, admission, preemption) where they happen.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <sonicsim/engine/batcher.hpp>

#include "context.hpp"

namespace sonicsim::engine {

// A workload's counts (at one site, with several), as a handle the clients hold: only the
// accounting reads or changes what it points to.
class Tally {
 public:
  Tally() = default;

 private:
  friend class Accounting;
  explicit Tally(RunMetrics::Workload* w) : w_(w) {}
  RunMetrics::Workload* w_ = nullptr;
};

class Accounting {
 public:
  explicit Accounting(Context& ctx) : ctx_(ctx) {}

  // One record per workload and per model, in scenario order.
  void build();
  Tally workload(std::size_t i) { return Tally(&ctx_.metrics.workloads[i]); }
  // With several sites, each workload's figures are kept per site of its client nodes and
  // added up at the end into the workload's and the site's (finish).
  Tally at_site(std::size_t workload, std::size_t site) {
    return Tally(&by_site_[workload * sites_ + site]);
  }

  // Requests a workload's client issues (counted at once, taken back if they end in warm-up).
  void issued(Tally t, std::uint64_t n) { t.w_->sent += n; }
  // n requests served on the client's CPU because no server hosts their model are done.
  void fallbacks_done(Tally t, std::uint64_t n) {
    RunMetrics::Workload& w = *t.w_;
    if (ctx_.counts(ctx_.now))
      w.fallback += n;
    else
      w.sent -= n;
  }
  void event_completed(Tally t, Time started) {
    RunMetrics::Workload& w = *t.w_;
    const Time now = ctx_.now;
    if (ctx_.counts(now)) {
      ++ctx_.metrics.events_completed;
      ctx_.metrics.time_per_event.add(now - started);
      ++w.events_completed;
      if (several_) w.time_per_event.add(now - started);
    }
  }

  void try_sent(bool retry) {
    if (ctx_.counts(ctx_.now)) {
      ++ctx_.metrics.resilience.tries;
      if (retry) ++ctx_.metrics.resilience.retries;
    }
  }
  void try_failed(Rejection why, std::uint32_t model);
  void try_abandoned() {
    if (ctx_.counts(ctx_.now)) ++ctx_.metrics.resilience.abandoned;
  }
  // The request's last word; `fallback_cpu`: what its CPU fallback took (Outcome::Fallback).
  void request_finished(Tally t, std::uint32_t model, Outcome outcome, double latency, bool retried,
                        double fallback_cpu) {
    RunMetrics::Workload& w = *t.w_;
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
  // A client thread of workload `w` starts CPU work now that lasts `seconds` (its event's own
  // work, a piece of it, a CPU fallback): the part inside the measured span counts towards its
  // cores' busy time. Counted when the work starts, so that work still running at the end
  // counts up to the end; `cpu_cancelled` takes back what a preempted job will not do.
  // Only energy reads it: without `core_power` nothing is counted (a hot path of every event).
  void client_cpu(std::size_t w, double seconds) {
    if (client_cpu_) client_cpu_between(w, ctx_.now, ctx_.now + seconds, 1.0);
  }
  void cpu_cancelled(std::size_t w, Time until) {
    if (client_cpu_) client_cpu_between(w, ctx_.now, until, -1.0);
  }
  // n requests of events lost when their job was preempted.
  void requests_preempted(Tally t, std::uint64_t n);

  // A batch starts executing: each request's time in the queue.
  void batch_started(std::uint32_t model, const std::vector<Batcher::Queued>& batch) {
    const Time now = ctx_.now;
    if (ctx_.counts(now))
      for (const auto& q : batch) ctx_.metrics.models[model].queue_time.add(now - q.enqueued);
  }
  void execution_done(std::uint32_t model, std::uint32_t pool, int items, std::size_t requests,
                      Time start) {
    const Time now = ctx_.now;
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

  // The totals are the workloads' sums; `in_flight`: requests not finished at the end.
  void finish(std::uint64_t in_flight);

 private:
  // Several sites: counts per workload and site, each with its own histograms.
  void keep_sites(std::size_t sites);
  void client_cpu_between(std::size_t w, Time from, Time to, double sign) {
    from = std::max(from, ctx_.warmup);
    to = std::min(to, ctx_.end);
    if (to > from) ctx_.metrics.workloads[w].cpu_busy_seconds += sign * (to - from);
  }

  Context& ctx_;
  // Several workloads: each keeps its own histograms too (one has the run's, copied at the end).
  bool several_ = false;
  bool client_cpu_ = false;  // some workload has `core_power`: client CPU busy time counted
  std::size_t sites_ = 0;
  std::vector<RunMetrics::Workload> by_site_;  // [workload * sites + site]
};

}  // namespace sonicsim::engine
