// The formula on worker nodes (docs/nodes.md, "The formula and the node"): t_SONIC with the CPU
// time a thread takes at the occupancy that offloading leaves on its node.
#include <algorithm>
#include <cmath>

#include <sonicsim/analytic/analytic.hpp>

namespace sonicsim::analytic {

namespace {
constexpr int kMostIterations = 200;
}  // namespace

void add_node_term(Prediction& pr, const scenario::Workload& w) {
  if (!w.node || w.open_loop() || w.flow || pr.mode != scenario::Mode::Sync) return;
  const scenario::NodeSpec& node = *w.node;
  NodeTerm t;
  t.threads_per_node =
      static_cast<double>(std::min<std::int64_t>(w.jobs, w.jobs_per_node) * w.threads_per_job);
  const double n = t.threads_per_node;
  t.cpu_only_speed_factor = node.speed_factor(n);
  t.cpu_only_time_per_event_s = pr.t_cpu_s / t.cpu_only_speed_factor;
  // Remote time at light load, and the binding pool's saturated time per event: the formula
  // is max(t_ideal, N_CPU x demand per device of the binding pool).
  const double cpu = (1.0 - pr.p) * pr.t_cpu_s;
  const double remote = pr.t_ideal_s - cpu;
  double saturated = 0.0;
  for (const PoolTerm& pool : pr.pools)
    if (pool.in_use)
      saturated = std::max(saturated, static_cast<double>(pr.n_cpu) * pool.demand_per_device_s);
  double f = t.cpu_only_speed_factor, busy = n, t_event = 0.0;
  for (int i = 0; i < kMostIterations; ++i) {
    t_event = std::max(cpu / f + remote, saturated);
    busy = t_event > 0.0 ? n * (cpu / f) / t_event : n;
    const double next = node.speed_factor(busy);
    const bool settled = std::abs(next - f) <= 1e-12 * f;
    f = next;
    if (settled) break;
  }
  t_event = std::max(cpu / f + remote, saturated);
  t.mean_busy_threads = busy;
  t.speed_factor = f;
  t.t_cpu_eff_s = pr.t_cpu_s / f;
  t.t_sonic_s = t_event;
  t.speedup_vs_cpu_only = t_event > 0.0 ? t.cpu_only_time_per_event_s / t_event : 0.0;
  pr.node = t;
}

}  // namespace sonicsim::analytic
