// The formula on worker nodes (src/analytic/nodes.cpp, analytic.node): the time per event at the
// occupancy offloading leaves, against the simulation of the same nodes, and exact where the
// node stays full (CPU-only).
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>

using namespace test;

namespace {

// 16 four-thread jobs per node of 16 cores x 2 hyper-threads at h = 0.6, t_CPU 200 ms (alone),
// half of it offloaded to remote devices 20 ms away that never saturate.
json node_site(double p) {
  json doc = deterministic(64, 16, 0.2, p, 0.004);
  doc["duration"] = 300.0;
  doc["warmup"] = 20.0;
  doc["workload"]["threads_per_job"] = 4;
  doc["workload"]["jobs"] = 16;
  doc["workload"]["jobs_per_node"] = 8;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.2}, {"cv", 0.3}};
  doc["workload"]["node"] = {
      {"cores", 16}, {"threads_per_core", 2}, {"speed", {{"hyperthread", 0.6}}}};
  doc["network"]["site_uplink"]["latency"] = "20ms";
  if (p == 0.0) doc["workload"]["requests"] = json::array();
  return doc;
}

}  // namespace

TEST_CASE("analytic.node: the node-aware formula agrees with the simulated nodes",
          "[analytic][nodes]") {
  const auto s = scenario_of(node_site(0.5));
  const auto pr = sonicsim::analytic::predict(s);
  REQUIRE(pr.node);
  const auto& n = *pr.node;
  CHECK(n.threads_per_node == 32);
  CHECK(n.cpu_only_speed_factor == Approx(0.6));
  CHECK(n.cpu_only_time_per_event_s == Approx(0.2 / 0.6));
  // Offloading leaves threads waiting: fewer busy, each faster than on the full node.
  CHECK(n.mean_busy_threads < 32);
  CHECK(n.speed_factor > 0.6);
  const auto m = run(node_site(0.5));
  const auto& sim = *m.workloads[0].nodes;
  const double span = m.duration - m.warmup;
  const double simulated = throughput(m);
  CHECK(n.speedup_vs_cpu_only == Approx(simulated / sim.cpu_only_events_per_s).epsilon(0.02));
  CHECK(n.mean_busy_threads == Approx(sim.busy_seconds / span / 2).epsilon(0.02));  // 2 nodes
  CHECK(n.speed_factor == Approx(sim.work_seconds / sim.busy_seconds).epsilon(0.02));
  // And beats the formula's own speed-up, which assumes the idle node's t_CPU throughout.
  CHECK(n.speedup_vs_cpu_only > 1.2 * (pr.t_cpu_s / pr.t_sonic_s));
}

TEST_CASE("analytic.node: exact on a node kept full, absent where it does not apply",
          "[analytic][nodes]") {
  // CPU-only: every thread busy all the time, so the node runs at f(n) and gains nothing.
  const auto full = sonicsim::analytic::predict(scenario_of(node_site(0.0)));
  REQUIRE(full.node);
  CHECK(full.node->mean_busy_threads == Approx(32));
  CHECK(full.node->t_sonic_s == Approx(0.2 / 0.6));
  CHECK(full.node->speedup_vs_cpu_only == Approx(1.0));
  // No node, or async mode (the formula is sync's): no term.
  auto plain = node_site(0.5);
  plain["workload"].erase("node");
  CHECK_FALSE(sonicsim::analytic::predict(scenario_of(plain)).node);
  auto async = node_site(0.5);
  async["workload"]["mode"] = "async";
  CHECK_FALSE(sonicsim::analytic::predict(scenario_of(async)).node);
}
