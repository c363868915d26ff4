// What every part of the engine shares: the scenario, the clock and its event queue, the purposes
// of the random streams, the run's metrics and the table of requests in flight. Each part owns
// the rest of its state; keeping the shared part this small is what lets a reader follow one part
// without the others.
#pragma once

#include <algorithm>
#include <cstdint>

#include <sonicsim/engine/event_queue.hpp>
#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/scenario/scenario.hpp>

#include "requests.hpp"

namespace sonicsim::engine {

// Executions and batcher wakes this close to their time are due: the clock's resolution.
inline constexpr double kTimeEps = 1e-9;

// Purposes of the random streams (see derive_seed): one stream per thread, per device, for
// routing and for open-loop arrivals, so adding a thread or a device leaves the others' random
// numbers unchanged.
enum Stream : std::uint64_t {
  kThreadStream = 1,
  kDeviceStream = 2,
  kRoutingStream = 3,
  kArrivalStream = 4,
  kRingStream = 6,        // ring_hash: the points of each device on the ring
  kClientHashStream = 7,  // ring_hash: each client's key
  kJobStream = 8,         // job flow: each job's number of events
  kFaultStream = 9,       // random crashes: each device's times up and down
  kPreemptStream = 10,    // random preemption
  kRetryStream = 11,      // retries: the other server a later try goes to
  kSiteStream = 12,       // sites: the weighted policy's draws
  kStartStream = 13,      // workload.start "random": each job's start in the window
};

// The far queue's bucket width, a fraction of the longest mean event time: 1/1024, so that its
// ring of buckets reaches four mean event times ahead, where nearly all pending CPU work ends;
// but 1/128 from 256k threads on, where even 1/1024 puts hundreds of events in a bucket. Buckets
// that full are radix-sorted at once (bucket_queue.hpp), and fewer, fuller ones keep the tails
// that pushes write to in cache. Measured (issue 39): latency-bound-1m, paired runs, 1/128 +11%
// against 1/1024 (1/64 no better); latency-bound-10k, instructions, 1/1024 1.6% fewer than 1/128.
inline double far_width_of(const scenario::Scenario& s) {
  double longest = 0.0;
  std::int64_t threads = 0;
  for (const scenario::Workload& w : s.workloads)
    if (!w.open_loop()) {
      longest = std::max(longest, w.cpu_time_per_event.expected());
      threads += w.n_threads();
    }
  const double per_mean = threads >= 256 * 1024 ? 128.0 : 1024.0;
  return longest > 0.0 ? longest / per_mean : 1e-3;
}

struct Context {
  explicit Context(const scenario::Scenario& s)
      : sc(s),
        queue(far_width_of(s)),
        end(Time::from_seconds(s.duration)),
        warmup(Time::from_seconds(s.warmup)),
        end_s(end.seconds()),
        warmup_s(warmup.seconds()) {
    metrics.duration = s.duration;
    metrics.warmup = s.warmup;
  }

  const scenario::Scenario& sc;
  EventQueue queue;
  Time now;
  Time limit;  // process_through stops after this time
  const Time end, warmup;
  // The same in seconds, for the statistics binned in seconds (a link's bytes per window).
  const double end_s, warmup_s;
  // Every part counts its own figures here; accounting counts the requests and closes the books.
  RunMetrics metrics;
  RequestTable requests;

  // Whether something that finished at `finished` is measured (after the warm-up).
  bool counts(Time finished) const { return finished >= warmup; }
  RequestTrace* traced(std::uint32_t r) {
    const auto i = requests[r].trace;
    return i == kUntraced ? nullptr : &metrics.trace[i];
  }
};

}  // namespace sonicsim::engine
