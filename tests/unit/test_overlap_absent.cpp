// Without an overlap curve a device runs its executions under processor sharing exactly as before
// devices.D.overlap existed: instances add no throughput, and a `devices` entry without the key
// changes nothing, to the last bit.
#include "support.hpp"

using namespace test;

TEST_CASE("overlap: without a curve, instances share the device and results do not move",
          "[engine][devices][overlap]") {
  json doc = deterministic(64, 1, 0.001, 0.5, 0.010);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  doc["models"]["m"]["instances"] = 4;
  doc["models"]["m"]["service_time"]["dist"] = "lognormal";
  doc["models"]["m"]["service_time"]["cv"] = 0.3;
  const auto plain = run(doc);
  check_conservation(plain);
  // Processor sharing: four instances finish one execution's work per second between them.
  const double per_s = static_cast<double>(plain.models[0].executions) / 55.0;
  CHECK(per_s == Approx(100.0).epsilon(0.02));
  CHECK(plain.pools[0].mean_executions.empty());

  doc["devices"] = {{"T4", json::object()}};
  const auto entry = run(doc);
  CHECK(entry.events_completed == plain.events_completed);
  CHECK(entry.models[0].executions == plain.models[0].executions);
  CHECK(entry.models[0].latency.mean() == plain.models[0].latency.mean());
  CHECK(entry.pools[0].utilization == plain.pools[0].utilization);
  CHECK(entry.pools[0].mean_executions.empty());
}
