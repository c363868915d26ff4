// The accounting (src/engine/accounting.cpp): every request counted once, under the warm-up rule
// that keeps sent = completed + failed + fallback + in flight, per workload and in total.
#include <cmath>
#include <vector>

#include "support.hpp"

using namespace test;

TEST_CASE("conservation holds at every cut: warm-up, end, failures", "[engine]") {
  auto doc = deterministic(50, 2);
  doc["workload"]["requests"][0]["items"] = {{"dist", "empirical"}, {"values", {1, 2, 3}}};
  doc["models"]["m"]["max_batch_size"] = 8;
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {4}},
                                            {"max_queue_delay", "1ms"}};
  for (double duration : {3.0, 7.77, 50.0}) {
    doc["duration"] = duration;
    doc["warmup"] = duration / 3;
    const auto m = run(doc);
    INFO("duration " << duration);
    check_conservation(m);
    CHECK(m.in_flight_at_end > 0);
  }
}

TEST_CASE("accounting: each workload's books balance and add up to the run's",
          "[engine][accounting]") {
  // Two named workloads on one pool, one of them offloading every event, the other a third of
  // the time to a model no server serves (so its requests fall back to the CPU).
  json doc = deterministic(1, 2, 0.1, 0.3, 0.01);
  doc["warmup"] = 37.0;  // cuts events and requests in flight
  doc["models"]["cpu_only"] = doc["models"]["m"];
  json reco = doc["workload"];
  reco["name"] = "reco";
  reco["jobs"] = 12;
  json ana = reco;
  ana["name"] = "ana";
  ana["jobs"] = 5;
  ana["requests"] = json::array({{{"model", "m"}, {"offload_fraction", 0.2}},
                                 {{"model", "cpu_only"}, {"offload_fraction", 0.1}}});
  doc.erase("workload");
  doc["workloads"] = {reco, ana};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.workloads.size() == 2);
  for (const auto& w : m.workloads) {
    INFO("workload " << w.name);
    CHECK(w.sent == w.completed + w.failed + w.fallback + w.in_flight_at_end);
    CHECK(w.sent > 0);
  }
  check_workloads_add_up(m);
  // Only "ana" asks for the model no server serves: its fallbacks, none for "reco".
  CHECK(m.workloads[0].fallback == 0);
  CHECK(m.workloads[1].fallback > 0);
  CHECK(m.workloads[0].failed == 0);
}

TEST_CASE("accounting: a request finished before the warm-up is taken back from sent",
          "[engine][accounting]") {
  // Sync, one request per event: after the warm-up, requests and events are counted alike, and
  // differ at most by those in progress at the two cuts (one per thread at each).
  const int threads = 3;
  json doc = deterministic(threads, 1, 0.1, 0.5, 0.01);
  doc["duration"] = 100.0;
  std::vector<double> rates;
  for (double warmup : {0.0, 10.0, 50.0}) {
    INFO("warm-up " << warmup);
    doc["warmup"] = warmup;
    const auto m = run(doc);
    check_conservation(m);
    CHECK(m.failed == 0);
    CHECK(m.fallback == 0);
    const auto diff = static_cast<double>(m.sent) - static_cast<double>(m.events_completed);
    CHECK(std::abs(diff) <= 2.0 * threads);
    rates.push_back(static_cast<double>(m.sent) / (100.0 - warmup));
  }
  // Counted over the measured span only: the same rate whatever the warm-up.
  CHECK(rates[1] == Approx(rates[0]).epsilon(0.01));
  CHECK(rates[2] == Approx(rates[0]).epsilon(0.01));
}
