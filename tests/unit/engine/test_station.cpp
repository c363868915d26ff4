// The k-server first-come-first-served station (src/engine/station.hpp). The header is private to
// the engine library (src/engine/ is not on the tests' include path; only include/sonicsim/ is),
// so it is tested here through the stations the engine builds from it: the load balancer's
// worker threads and its NIC (load_balancer.capacity, request_path.cpp). The server hosts' cores,
// the third user, are test_server_hosts.cpp.
#include <cmath>

#include "support.hpp"

using namespace test;

TEST_CASE("station: a lone customer never waits, and the busy time is the work done",
          "[engine][station]") {
  // One thread: its request and its response never meet another message at the balancer.
  json doc = deterministic(1, 1, 0.1, 0.1, 0.01);
  doc["load_balancer"] = {
      {"capacity", {{"per_message", "2ms"}, {"workers", 3}, {"bandwidth", "100Mbps"}}}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.balancer);
  REQUIRE(m.balancer->messages > 1000);
  CHECK(m.balancer->wait.max() == Approx(0.0).margin(1e-12));
  const double span = m.duration - m.warmup;
  const double messages = static_cast<double>(m.balancer->messages);
  // Busy servers x seconds over servers x seconds: 2 ms per message on one of three workers.
  CHECK(m.balancer->cpu_utilization == Approx(messages * 2e-3 / (3.0 * span)).epsilon(2e-3));
  // The NIC, one server: 10 kB up and 100 B down per request at 12.5 MB/s.
  CHECK(m.balancer->nic_utilization ==
        Approx(messages / 2.0 * 10100.0 / 12.5e6 / span).epsilon(2e-3));
}

TEST_CASE("station: k servers serve k customers at once, so saturated it serves k / cost",
          "[engine][station]") {
  // 400 threads want about 4400 events/s of 8 fast GPUs; each event's request and response pass
  // the balancer's workers at 0.5 ms each: k workers carry 2000 k messages/s, 1000 k events/s.
  for (int k : {1, 2}) {
    INFO(k << " workers");
    json doc = deterministic(400, 8, 0.1, 0.1, 0.001);
    doc["duration"] = 100.0;
    doc["warmup"] = 10.0;
    doc["load_balancer"] = {{"capacity", {{"per_message", "0.5ms"}, {"workers", k}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.balancer);
    CHECK(throughput(m) == Approx(1000.0 * k).epsilon(0.01));
    CHECK(m.balancer->cpu_utilization == Approx(1.0).epsilon(0.01));
    // The rest of each thread's cycle is spent queued in front of the workers, twice per event
    // (Little's law): 400 threads / throughput, less 90 ms of CPU, 1 ms on the GPU, 1.2 ms of
    // latency, 8 us of transfers and the two 0.5 ms services.
    const double cycle = 400.0 / throughput(m);
    CHECK(m.balancer->wait.mean() == Approx((cycle - 0.093208) / 2.0).epsilon(0.02));
  }
}
