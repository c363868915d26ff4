// Worker nodes (`workload.node`, docs/nodes.md): the machine a workload's jobs share, and how
// fast one client thread runs as a function of how many of the node's hardware threads are busy.
//
// Real grid jobs share worker nodes: several multi-threaded jobs fill the physical cores and their
// hyper-threads and contend for memory bandwidth, so a thread's speed falls as its neighbours
// work. A thread that waits on a remote call (or is idle between events) leaves its hardware
// thread free; CPU fallback loads it. The engine runs each node's CPU work at the speed of its
// busy count at each moment (src/engine/worker_nodes.hpp); `calibrate nodes` fits the model from
// per-job throughput against jobs per node (src/calibration/node_fit.cpp).
//
// The model, for b busy client threads on a node of C cores with H hardware threads each:
//   - at most C x H run at once: with more busy threads than hardware threads the node time-slices
//     (b_run = min(b, C x H));
//   - the scheduler spreads them over the cores: each core holds floor(b_run / C) or one more;
//   - a thread alone on its core runs at speed 1, and k threads sharing a core run at
//     1 - (1 - hyperthread) (k - 1) / (H - 1) each (with H = 2: `hyperthread` when both are busy);
//   - the node's throughput X(b), the sum over its cores, is capped at `memory_bandwidth_threads`
//     single-thread equivalents (memory-bandwidth saturation), when given;
//   - per-thread speed s(b) = X(b) / b.
// Or a measured table of per-thread speed against busy threads, linear between its points and
// flat beyond them (`per_thread`).
//
// `cpu_time_per_event` is the time at `cpu_time_measured_at` busy hardware threads (1 by default,
// a thread alone on the node): the engine divides by s(b) / s(measured_at).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace sonicsim::scenario {

struct NodeSpec {
  int cores = 1;             // physical cores of one node, >= 1
  int threads_per_core = 1;  // hardware threads per core (SMT), 1..8
  // Per-thread speed of each thread when all H hardware threads of a core are busy, relative to
  // one alone on its core, in (0, 1]. 1: hyper-threads as good as cores; ~0.6 is typical of x86.
  double hyperthread = 1.0;
  // The node's throughput cap, in single-thread equivalents (> 0): memory bandwidth or a shared
  // cache saturates. Unset: no cap.
  std::optional<double> memory_bandwidth_threads;
  // A measured table instead of the parametric model: busy threads (strictly increasing, >= 1)
  // and the per-thread speed there (> 0). Empty: the parametric model.
  std::vector<double> table_busy, table_speed;
  // Busy hardware threads at which `cpu_time_per_event` was measured (>= 1).
  double measured_at = 1.0;

  int hardware_threads() const { return cores * threads_per_core; }

  // Per-thread speed of one of `k` threads sharing a core.
  double sibling_speed(int k) const {
    if (threads_per_core <= 1 || k <= 1) return 1.0;
    return 1.0 - (1.0 - hyperthread) * (k - 1) / (threads_per_core - 1);
  }
  // The node's throughput with `busy` threads working, in single-thread equivalents: X(b).
  double throughput(double busy) const {
    if (busy <= 0.0) return 0.0;
    if (!table_busy.empty()) return busy * table_speed_at(busy);
    const double run = std::min(busy, static_cast<double>(hardware_threads()));
    // A fractional count (a mean occupancy) interpolates between its two integer neighbours.
    const double lo = std::floor(run);
    const double x = spread_throughput(static_cast<int>(lo)) * (1.0 - (run - lo)) +
                     (run > lo ? spread_throughput(static_cast<int>(lo) + 1) * (run - lo) : 0.0);
    return memory_bandwidth_threads ? std::min(x, *memory_bandwidth_threads) : x;
  }
  // Per-thread speed with `busy` threads working, s(b) = X(b) / b (s(0) = s(1)).
  double per_thread_speed(double busy) const {
    const double b = std::max(busy, 1.0);
    return throughput(b) / b;
  }
  // What the engine multiplies a thread's speed by: s(b) relative to the speed at which
  // `cpu_time_per_event` was measured.
  double speed_factor(double busy) const {
    return per_thread_speed(busy) / per_thread_speed(measured_at);
  }
  bool operator==(const NodeSpec&) const = default;

 private:
  double spread_throughput(int run) const {
    const int per_core = run / cores, extra = run % cores;
    return extra * (per_core + 1) * sibling_speed(per_core + 1) +
           (cores - extra) * per_core * sibling_speed(per_core);
  }
  double table_speed_at(double busy) const {
    if (busy <= table_busy.front()) return table_speed.front();
    if (busy >= table_busy.back()) return table_speed.back();
    const auto it = std::upper_bound(table_busy.begin(), table_busy.end(), busy);
    const auto i = static_cast<std::size_t>(it - table_busy.begin());
    const double f = (busy - table_busy[i - 1]) / (table_busy[i] - table_busy[i - 1]);
    return table_speed[i - 1] + f * (table_speed[i] - table_speed[i - 1]);
  }
};

// `workload.start`: when each job begins its first events (closed loops without a job flow,
// whose own `flow.start` says it).
//   spread (default): each thread at its own uniform time within one mean event time of 0, so
//     the closed loop begins in its steady state;
//   together: every thread at 0: the burst of a scan whose jobs start at one moment;
//   staggered: job j's threads at j x interval;
//   random: each job's threads at one uniform time within [0, window).
// A job's threads start together (a framework starts its threads with the job).
struct StartPattern {
  enum class Kind { Spread, Together, Staggered, Random };
  Kind kind = Kind::Spread;
  double interval = 0.0;  // staggered: seconds between consecutive jobs
  double window = 0.0;    // random: seconds
  bool operator==(const StartPattern&) const = default;
};

}  // namespace sonicsim::scenario
