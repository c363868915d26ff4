// A host cost that is part of the measured server overhead (`host_cost.in_server_overhead`, as
// `calibrate perf-analyzer --host-cores` writes it) is counted once: where the host is modelled,
// a request's server overhead is shortened by its host work, so with idle cores a request takes
// exactly as long as with the overhead alone (or as long as the host work, when that is longer);
// without the flag, host work adds to the overhead; without host cores nothing changes.
#include "support.hpp"

using namespace test;

TEST_CASE("host work inside the server overhead is counted once", "[engine][hosts][calibration]") {
  // One thread: nothing queues. 10 kB in, 100 B out per request.
  json doc = deterministic(1, 1, 0.1, 0.1, 0.01);
  doc["models"]["m"]["request_overhead"] = {{"server", "5ms"}};
  const auto bare = run(doc);
  doc["servers"][0]["host"] = {{"cores", 4}};
  // 1 ms + 10 kB x 100 ns + 100 B x 100 ns = 2.01 ms of host work per request.
  const double work = 1e-3 + 10000 * 100e-9 + 100 * 100e-9;
  json cost = {{"per_request", "1ms"},
               {"per_byte_in", "100ns"},
               {"per_byte_out", "100ns"},
               {"in_server_overhead", true}};
  doc["models"]["m"]["host_cost"] = cost;
  const auto inside = run(doc);
  check_conservation(inside);
  CHECK(inside.time_per_event.mean() == Approx(bare.time_per_event.mean()).epsilon(1e-9));
  CHECK(inside.pools[0].host_seconds_per_request == Approx(work).epsilon(1e-9));

  // More host work than the overhead: the request takes the host work, not both.
  doc["models"]["m"]["host_cost"]["per_request"] = "7ms";
  const auto longer = run(doc);
  CHECK(longer.time_per_event.mean() - bare.time_per_event.mean() ==
        Approx(work + 6e-3 - 5e-3).epsilon(1e-6));

  // Not part of the overhead: both count.
  cost["in_server_overhead"] = false;
  doc["models"]["m"]["host_cost"] = cost;
  const auto added = run(doc);
  CHECK(added.time_per_event.mean() - bare.time_per_event.mean() == Approx(work).epsilon(1e-6));

  // No host cores: the host is not modelled and the overhead stays whole.
  cost["in_server_overhead"] = true;
  doc["models"]["m"]["host_cost"] = cost;
  doc["servers"][0].erase("host");
  const auto unmodelled = run(doc);
  CHECK(unmodelled.time_per_event.mean() == bare.time_per_event.mean());
}
