// GPUs inside the client nodes (a pool's `attached`, engine/attached_devices.cpp): a node's
// threads share its one device without the network, which is the SONIC formula with N_CPU/N_GPU
// the threads per node and no t_latency; past the spill-over thresholds, or while the device is
// down, requests go to the remote pools, and every request is accounted for.
#include "support.hpp"

#include <functional>

#include <sonicsim/analytic/analytic.hpp>

using namespace test;

namespace {

// 8 nodes of `per_node` one-thread jobs; each node holds a device that serves m in 20 ms.
json ad_scenario(int per_node, double p = 0.5) {
  json doc = deterministic(8 * per_node, 1, 0.1, p, 0.02);
  doc["workload"]["jobs_per_node"] = per_node;
  doc["servers"] =
      json::array({{{"name", "local"}, {"attached", true}, {"device", "T4"}, {"models", {"m"}}}});
  return doc;
}

json ad_remote_pool(int count) {
  return {{"name", "remote"}, {"count", count}, {"device", "T4"}, {"models", {"m"}}};
}

double ad_bytes(const sonicsim::engine::RunMetrics& m) {
  double bytes = 0.0;
  for (const auto& l : m.links) bytes += l.bytes[0] + l.bytes[1];
  return bytes;
}

}  // namespace

TEST_CASE("attached devices: the formula with N_CPU/N_GPU the threads per node, no latency",
          "[attached]") {
  // t_ideal = (1 - p) t_CPU + t_GPU = 0.05 + 0.02; the knee at t_ideal / t_GPU = 3.5 threads.
  for (int per_node : {2, 3, 5, 8}) {
    CAPTURE(per_node);
    const json doc = ad_scenario(per_node);
    const auto m = run(doc);
    const auto pr = sonicsim::analytic::predict(scenario_of(doc));
    const double formula = 0.05 + 0.02 * (1.0 + std::max(0.0, per_node - 3.5));
    CHECK(pr.n_gpu == 8);
    CHECK(pr.t_latency_s == 0.0);
    CHECK(pr.t_sonic_s == Approx(formula).epsilon(1e-12));
    CHECK(m.time_per_event.mean() == Approx(formula).epsilon(2e-3));
    CHECK(ad_bytes(m) == 0.0);  // nothing crossed a link
    check_conservation(m);
  }
}

TEST_CASE("attached devices spill over to remote servers only past their threshold", "[attached]") {
  // 8 threads per node on one 20 ms device: each holds up to 8 requests. With a threshold of 2
  // in flight, the rest go to the remote pool over the network.
  json doc = ad_scenario(8);
  doc["servers"].push_back(ad_remote_pool(4));
  SECTION("no thresholds: never while the device is up") {
    const auto m = run(doc);
    CHECK(ad_bytes(m) == 0.0);
    CHECK(m.pools[1].executions == 0);
    check_conservation(m);
  }
  SECTION("past two requests in flight") {
    doc["servers"][0]["spill_over"] = {{"in_flight", 2}};
    const auto m = run(doc);
    CHECK(m.pools[1].executions > 0);
    CHECK(ad_bytes(m) > 0.0);
    check_conservation(m);
    // The remote pool takes what the local devices cannot: events come faster than alone.
    const auto alone = run(ad_scenario(8));
    CHECK(throughput(m) > 1.2 * throughput(alone));
  }
  SECTION("past a queue time") {
    doc["servers"][0]["spill_over"] = {{"queue_time", "30ms"}};
    const auto m = run(doc);
    CHECK(m.pools[1].executions > 0);
    check_conservation(m);
  }
}

TEST_CASE("a crashed attached device sends its node's requests to the remote pool",
          "[attached][faults]") {
  json doc = ad_scenario(2);
  doc["servers"].push_back(ad_remote_pool(1));
  doc["faults"] = json::array(
      {{{"kind", "crash"}, {"pool", "local"}, {"device", 0}, {"at", 100.0}, {"for", 100.0}}});
  const auto m = run(doc);
  CHECK(m.pools[1].executions > 0);
  check_conservation(m);
  const auto healthy = run(ad_scenario(2));
  CHECK(m.events_completed == Approx(healthy.events_completed).epsilon(0.05));
}
