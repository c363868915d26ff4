// Concurrent instances that overlap (devices.D.overlap): a saturated device with k instances
// completes throughput(k) executions' worth of work per second, as the curve says.
#include "support.hpp"

using namespace test;

namespace {

// A closed loop that keeps one device saturated: 64 threads, each event one batch-1 request of
// constant service `t` (no dynamic batching: one request per execution), t_CPU 1 ms all offloaded
// but the CPU part that keeps requests coming. Network negligible.
json saturated_overlap(int instances, double t, const json& overlap) {
  json doc = deterministic(64, 1, 0.001, 0.5, t);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  doc["models"]["m"]["instances"] = instances;
  if (!overlap.is_null()) doc["devices"] = {{"T4", {{"overlap", overlap}}}};
  return doc;
}

}  // namespace

TEST_CASE("overlap: throughput against instances follows the overlap curve",
          "[engine][devices][overlap]") {
  const double t = 0.010;  // 100 executions/s alone
  const json curve = {{"executions", {1, 2, 4}}, {"throughput", {1.0, 1.6, 1.9}}};
  // By hand: throughput(k) / t, linear between the points, flat beyond the last.
  const std::vector<std::pair<int, double>> expected = {
      {1, 100.0}, {2, 160.0}, {3, 175.0}, {4, 190.0}, {6, 190.0}};
  for (const auto& [k, per_s] : expected) {
    const auto m = run(saturated_overlap(k, t, curve));
    INFO("instances " << k);
    check_conservation(m);
    const double measured = static_cast<double>(m.models[0].executions) / (m.duration - m.warmup);
    CHECK(measured == Approx(per_s).epsilon(0.01));
    // Every execution runs at throughput(k)/k of full speed: it takes t k / throughput(k).
    CHECK(m.models[0].compute_time.mean() == Approx(k / per_s).epsilon(0.01));
    // Busy whenever any execution runs; the mean concurrency is the instances, all busy.
    CHECK(m.pools[0].mean_utilization() == Approx(1.0).epsilon(0.01));
    REQUIRE(m.pools[0].mean_executions.size() == 1);
    CHECK(m.pools[0].mean_executions[0] == Approx(k).epsilon(0.01));
  }
}
