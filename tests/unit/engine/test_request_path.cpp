// The request path (src/engine/request_path.cpp): admission (token buckets on new connections,
// refusal above a pool's threshold, SuperSONIC's Prometheus gate) and the load balancer as a
// server of its own, whose workers or NIC can cap the service.
#include "support.hpp"

using namespace test;

TEST_CASE("admission: a token bucket on new connections admits its burst, then its rate",
          "[engine][operations][admission]") {
  // 100 jobs all want to connect within their first 0.2 s. The bucket holds 10 and refills at
  // 0.1/s: 10 connect at once, the 90 others run on their CPUs and try again 100 s later, when
  // the bucket is full again: 10 more each round, until all are in after 9 rounds.
  auto doc = deterministic(100, 2, 0.1, 0.2, 0.0005);
  doc["duration"] = 1000.0;
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  doc["load_balancer"] = {{"admission", {{"rate", 0.1}, {"burst", 10}, {"retry_after", "100s"}}}};
  doc["timeseries"] = {{"interval", "100s"}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->connections == 100);
  CHECK(m.admission->refused == 90 + 80 + 70 + 60 + 50 + 40 + 30 + 20 + 10);
  CHECK(m.failed == 0);
  CHECK(m.fallback == m.admission->requests);  // the refused jobs' requests ran on their CPUs
  CHECK(m.resilience.tries == m.completed + m.in_flight_at_end);  // no try for those
  // While refused, a job's event takes t_CPU (its inference local); connected, t_CPU minus the
  // offloaded 20% plus a short remote call: the event rate grows round after round.
  REQUIRE(m.timeseries);
  const auto& rate = m.timeseries->events_per_s;
  for (std::size_t k = 1; k < 9; ++k) CHECK(rate[k] > rate[k - 1]);
}

TEST_CASE("admission: new connections are refused while the pool is above its threshold",
          "[engine][operations][admission]") {
  // Waves of jobs on an autoscaled pool that starts slowly: with refusal above the threshold,
  // jobs that arrive while the pool is saturated run on their CPUs instead of queueing.
  auto doc = autoscaled_burst();
  doc["workload"]["flow"] = {{"events_per_job", 230}, {"waves", {{"size", 50}, {"every", "60s"}}}};
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  const auto open_door = run(doc);
  doc["load_balancer"] = {
      {"admission", {{"refuse_above_threshold", true}, {"retry_after", "30s"}}}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->refused > 0);
  CHECK(m.admission->requests > 0);
  CHECK(m.fallback == m.admission->requests);
  // The connected jobs see a shorter queue than when everyone got in.
  CHECK(m.latency.quantile(0.99) < open_door.latency.quantile(0.99));
}

TEST_CASE("admission: Envoy 1.30's listener bucket refills tokens_per_fill every fill_interval",
          "[engine][operations][admission]") {
  // Envoy's timer-driven LocalRateLimiterImpl (v1.30, the chart's envoyproxy/envoy:v1.30.9):
  // the bucket starts full and gains tokens_per_fill at every multiple of fill_interval, in one
  // lump. 100 jobs connect within 0.2 s; refused ones try again 10 s later (rounds at about 0,
  // 10, ..., 90 s, each less than a second late). Fills at 24, 48, 72 and 96 s: 5 jobs get in at
  // the rounds of 30, 50 and 80 s, none in between.
  auto doc = deterministic(100, 2, 0.1, 0.2, 0.0005);
  doc["duration"] = 100.0;
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  doc["load_balancer"] = {
      {"admission",
       {{"fill_interval", "24s"}, {"tokens_per_fill", 5}, {"burst", 10}, {"retry_after", "10s"}}}};
  auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->connections == 10 + 5 + 5 + 5);
  CHECK(m.admission->refused == 90 * 3 + 85 * 2 + 80 * 3 + 75 * 2);
  CHECK(m.fallback == m.admission->requests);
  // The same mean rate refilled continuously lets 2 in at 10 s already: another bucket.
  doc["load_balancer"]["admission"] = {{"rate", 5.0 / 24.0}, {"burst", 10}, {"retry_after", "10s"}};
  const auto continuous = run(doc);
  CHECK(continuous.admission->refused != m.admission->refused);

  SECTION("reconnect false: a refused job never asks again (CMSSW's TritonService asks once)") {
    doc["load_balancer"]["admission"] = {
        {"fill_interval", "24s"}, {"tokens_per_fill", 5}, {"burst", 10}, {"reconnect", false}};
    m = run(doc);
    check_conservation(m);
    CHECK(m.admission->connections == 10);
    CHECK(m.admission->refused == 90);
    // Every request of the 90 ran on its CPU, but for the one each may still be running at
    // the end.
    CHECK(m.fallback <= m.admission->requests);
    CHECK(m.admission->requests - m.fallback <= 90);
  }
}

TEST_CASE("admission: SuperSONIC's Lua filter asks Prometheus when the job connects",
          "[engine][operations][admission]") {
  // cfg/envoy-filter.lua: the load query's value, from the samples Prometheus scraped in the
  // last window, above serverLoadThreshold refuses; no value refuses too.
  auto doc = autoscaled_burst();
  doc["workload"]["flow"] = {{"events_per_job", 230}, {"waves", {{"size", 50}, {"every", "60s"}}}};
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  const auto open_door = run(doc);
  SECTION("a saturated pool refuses newcomers; the connected jobs queue less") {
    doc["load_balancer"] = {
        {"admission", {{"refuse_above", {{"threshold", "20ms"}}}, {"retry_after", "30s"}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.admission);
    CHECK(m.admission->refused > 0);
    CHECK(m.admission->connections > 0);
    CHECK(m.fallback == m.admission->requests);
    CHECK(m.latency.quantile(0.99) < open_door.latency.quantile(0.99));
    // No KEDA needed: the same gate in front of a fixed pool.
    auto fixed = doc;
    fixed["servers"][0].erase("autoscaler");
    fixed["servers"][0]["count"] = 1;
    const auto f = run(fixed);
    check_conservation(f);
    CHECK(f.admission->refused > 0);
  }
  SECTION("a threshold nobody reaches admits every job at once") {
    doc["load_balancer"] = {{"admission", {{"refuse_above", {{"threshold", "1000s"}}}}}};
    const auto m = run(doc);
    CHECK(m.admission->refused == 0);
    CHECK(m.admission->connections == m.jobs->started);
  }
  SECTION("scrapes further apart than the window: rate() has no two samples, all refused") {
    doc["load_balancer"] = {
        {"admission",
         {{"refuse_above", {{"threshold", "1000s"}, {"window", "30s"}, {"scrape_interval", "60s"}}},
          {"reconnect", false}}}};
    const auto m = run(doc);
    CHECK(m.admission->connections == 0);
    CHECK(m.admission->refused == m.jobs->started);
  }
}

TEST_CASE("load balancer capacity: its workers or its NIC can cap the service",
          "[engine][operations][balancer]") {
  // 200 threads want about 2200 requests/s from 8 fast GPUs; every request and response also
  // passes the balancer.
  auto doc = deterministic(200, 8, 0.1, 0.1, 0.001);
  SECTION("one worker at 0.5 ms per message: 2000 messages/s, 1000 events/s") {
    doc["load_balancer"] = {{"capacity", {{"per_message", "0.5ms"}, {"workers", 1}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.balancer);
    CHECK(throughput(m) == Approx(1000.0).epsilon(0.01));
    CHECK(m.balancer->cpu_utilization == Approx(1.0).epsilon(0.01));
    CHECK(m.balancer->wait.mean() > 0.01);  // the queue is in front of the balancer
  }
  SECTION("four workers: no longer the bottleneck") {
    doc["load_balancer"] = {{"capacity", {{"per_message", "0.5ms"}, {"workers", 4}}}};
    const auto m = run(doc);
    REQUIRE(m.balancer);
    CHECK(throughput(m) > 2000.0);
    CHECK(m.balancer->cpu_utilization < 0.6);
  }
  SECTION("a 100 Mbps NIC carries 12.5 MB/s: 10100 bytes per event, 1238 events/s") {
    doc["load_balancer"] = {{"capacity", {{"bandwidth", "100Mbps"}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.balancer);
    CHECK(throughput(m) == Approx(12.5e6 / 10100.0).epsilon(0.01));
    CHECK(m.balancer->nic_utilization == Approx(1.0).epsilon(0.01));
  }
}
