// A pipeline that crashes loses what it held, queued or inside, and every request is still
// accounted for: sent = completed + failed + fallback + in flight.
#include "support.hpp"

using namespace test;

TEST_CASE("pipeline: a crash keeps every request accounted for", "[engine][devices][pipeline]") {
  json doc = deterministic(48, 2, 0.02, 0.1, 0.002);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  doc["devices"] = {{"T4", {{"kind", "pipeline"}}}};
  doc["models"]["m"]["service_time"] = {{"T4", {{"latency", "5ms"}, {"interval", "1ms"}}}};
  doc["workload"]["requests"][0]["items"] = 3;
  doc["servers"][0]["startup_delay"] = "5s";
  doc["workload"]["client"] = {{"allowed_tries", 3}};
  doc["faults"] =
      json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"device", 1}, {"at", 20}, {"for", 10}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.pools[0].crashes == 1);
  CHECK(m.resilience.server_lost >= 1);  // what it held when it went
  CHECK(m.failed == 0);                  // each lost try succeeded on the other pipeline
  // A request of 3 items alone: latency + 2 intervals; never less, whatever the crash did.
  CHECK(m.models[0].compute_time.mean() == Approx(0.007).epsilon(1e-9));
  CHECK(m.pools[0].utilization[1] < m.pools[0].utilization[0]);
}
