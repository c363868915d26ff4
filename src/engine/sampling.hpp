// What a run shows over time: the time series (the run in windows of `timeseries` seconds, warm-up
// included, for plots) and the request trace (every n-th request followed through the system).
// The windows keep their own counters, so that the measured figures stay exactly what they are
// without a time series; the other parts report to them through the small hooks below.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include <sonicsim/metrics/histogram.hpp>

#include "context.hpp"

namespace sonicsim::engine {

class Clients;
class ServerPools;
class ModelMemory;
class SiteOperations;

class Sampling {
 public:
  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Clients& clients;
    ServerPools& servers;
    ModelMemory& memory;
    SiteOperations& operations;
  };

  Sampling(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}

  // After every other part is built (the windows follow their devices, models and links).
  void start();
  // EventKind::Sample: the window ends now.
  void on_sample();

  // Whether a time series is kept: without one, the hooks below do nothing.
  bool on() const { return on_; }
  // Hooks for the windows; cheap when there is no time series.
  void event_completed(std::size_t workload) {
    ++window_events_;
    if (on_) ++workload_window_[workload].events;
  }
  void request_completed(std::uint32_t model, std::size_t workload, double latency) {
    if (!on_) return;
    model_window_[model].latency.add(latency);
    workload_window_[workload].latency.add(latency);
  }
  // An execution of `requests` requests and `items` items ends on device `device`; their queue
  // times sum to `queue_s`, the execution took `compute_s`.
  void execution_done(std::uint32_t device, std::uint32_t model, int items, std::size_t requests,
                      double queue_s, double compute_s) {
    if (!on_) return;
    auto& w = model_window_[model];
    w.items += static_cast<std::uint64_t>(items);
    ++w.executions;
    const double n = static_cast<double>(requests);
    auto add = [&](Counts& c) {
      c.requests += n;
      c.inferences += items;
      c.executions += 1.0;
      c.queue_s += queue_s;
      c.compute_s += n * compute_s;
    };
    add(pool_counts_[pair_of(device, model)]);
    if (!replica_counts_.empty()) add(replica_counts_[replica_of(device, model)]);
  }
  // Triton refused a request for `model` on `device` (queue full, queue timeout, too large).
  void request_refused(std::uint32_t device, std::uint32_t model) {
    if (!on_) return;
    pool_counts_[pair_of(device, model)].failures += 1.0;
    if (!replica_counts_.empty()) replica_counts_[replica_of(device, model)].failures += 1.0;
  }
  // Bytes that passed link `link` (RunMetrics::links) in direction dir (0: to the servers)
  // evenly from `from` to `to`: counted in the windows they passed in, which a flow reports
  // after they have closed (the link series are filled in at finish()).
  void bytes_carried(std::size_t link, int dir, double from, double to, double bytes);
  // The end of the run: the link series from the bytes they carried.
  void finish();

  // Before the run: which requests to trace.
  void set_trace(const TraceSettings& t);
  // A request issued now: its index in RunMetrics::trace, or kUntraced.
  std::uint32_t trace(std::uint32_t model, std::uint32_t thread, int items) {
    const Time now = ctx_.now;
    auto& trace = ctx_.metrics.trace;
    if (tracing_.every > 0 && now >= ctx_.warmup && traceable_++ % tracing_.every == 0 &&
        trace.size() < tracing_.max) {
      constexpr double nan = std::numeric_limits<double>::quiet_NaN();
      trace.push_back({model, thread, 0, items, 0, now.seconds(), nan, nan, nan, nan, false});
      return static_cast<std::uint32_t>(trace.size() - 1);
    }
    return kUntraced;
  }

 private:
  void start_counters(RunMetrics::TimeSeries& ts);

  Context& ctx_;
  Uses parts_;
  bool on_ = false;
  std::vector<double> busy_before_;  // per device, at the previous sample
  std::uint64_t window_events_ = 0;
  struct WorkloadWindow {
    std::uint64_t events = 0;
    metrics::Histogram latency;
  };
  std::vector<WorkloadWindow> workload_window_;
  struct ModelWindow {
    std::uint64_t items = 0, executions = 0;
    metrics::Histogram latency;
  };
  std::vector<ModelWindow> model_window_;
  struct Counts {
    double requests = 0.0, failures = 0.0, inferences = 0.0, executions = 0.0;
    double queue_s = 0.0, compute_s = 0.0;
  };
  // Index of TimeSeries::servers (replicas) by pool (device) and model; only pairs where the
  // pool hosts the model are ever looked up.
  std::vector<std::uint32_t> pair_index_, replica_index_;
  std::vector<Counts> pool_counts_, replica_counts_;
  std::uint32_t pair_of(std::uint32_t device, std::uint32_t model) const {
    return pair_index_[device_pool_[device] * models_ + model];
  }
  std::uint32_t replica_of(std::uint32_t device, std::uint32_t model) const {
    return replica_index_[device * models_ + model];
  }
  std::vector<std::uint32_t> device_pool_;
  std::uint32_t models_ = 0;
  std::uint64_t samples_ = 0;

  TraceSettings tracing_;
  std::uint64_t traceable_ = 0;  // requests issued after the warm-up
};

}  // namespace sonicsim::engine
