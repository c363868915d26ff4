// Routing (src/engine/routing.cpp): Envoy's load-balancing policies in front of the servers.
// least_request keeps the slow devices of a mixed fleet from holding the tail; ring_hash keeps each
// job on one device and moves only the jobs of a device that goes away; every policy accounts for
// every request.
#include <map>
#include <set>

#include "support.hpp"

using namespace test;

namespace {

// Two fast (10 ms) and two slow (30 ms) devices serving one model, constant service times;
// exponential client CPU times.
json mixed_fleet(int jobs, const std::string& policy) {
  auto doc = deterministic(jobs, 1);
  doc["duration"] = 200.0;
  doc["warmup"] = 20.0;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  doc["models"]["m"]["service_time"] = {{"T4", {{"batch", {1}}, {"seconds", {0.010}}}},
                                        {"K80", {{"batch", {1}}, {"seconds", {0.030}}}}};
  doc["servers"] =
      json::array({{{"name", "t4"}, {"count", 2}, {"device", "T4"}, {"models", {"m"}}},
                   {{"name", "k80"}, {"count", 2}, {"device", "K80"}, {"models", {"m"}}}});
  doc["load_balancer"] = {{"policy", policy}};
  return doc;
}

sonicsim::engine::RunMetrics traced_run(const json& doc) {
  sonicsim::engine::TraceSettings trace;
  trace.every = 1;
  trace.max = 1000000;
  return sonicsim::runner::simulate(scenario_of(doc), {}, trace).metrics;
}

// Which device served each job's requests (ring_hash: exactly one per job).
std::map<std::uint32_t, std::set<std::uint32_t>> devices_by_job(
    const sonicsim::engine::RunMetrics& m) {
  std::map<std::uint32_t, std::set<std::uint32_t>> out;
  for (const auto& r : m.trace) out[r.thread].insert(r.device);  // one thread per job here
  return out;
}

}  // namespace

TEST_CASE("least_request beats round_robin on tail latency with slow and fast devices",
          "[engine][balancer]") {
  // 24 jobs want about 190 requests/s. Round robin gives each device a quarter, so the slow
  // devices' 33.3/s caps the fleet at 4 x 33.3 = 133.3/s and their queues hold the jobs; two
  // random choices steer requests to the device with fewer active requests.
  const auto rr = run(mixed_fleet(24, "round_robin"));
  const auto lr = run(mixed_fleet(24, "least_request"));
  const auto rnd = run(mixed_fleet(24, "random"));
  check_conservation(rr);
  check_conservation(lr);
  check_conservation(rnd);
  INFO("p99 round robin " << rr.latency.quantile(0.99) << " s, least request "
                          << lr.latency.quantile(0.99) << " s, random "
                          << rnd.latency.quantile(0.99) << " s");
  CHECK(throughput(rr) == Approx(4 / 0.030).epsilon(0.01));
  CHECK(throughput(lr) > 1.3 * throughput(rr));
  CHECK(lr.latency.quantile(0.99) < 0.7 * rr.latency.quantile(0.99));
  CHECK(lr.latency.quantile(0.99) < 0.5 * rnd.latency.quantile(0.99));
  // Round robin sends each device the same number of requests; least_request gives the fast
  // devices more than three fifths of them.
  const auto fast_share = [](const sonicsim::engine::RunMetrics& m) {
    return static_cast<double>(m.pools[0].executions) /
           static_cast<double>(m.pools[0].executions + m.pools[1].executions);
  };
  CHECK(fast_share(rr) == Approx(0.5).margin(0.01));
  CHECK(fast_share(lr) > 0.6);
}

TEST_CASE("ring_hash keeps each job on one device and moves only a removed device's jobs",
          "[engine][balancer]") {
  auto doc = mixed_fleet(60, "ring_hash");
  doc["duration"] = 20.0;
  doc["warmup"] = 0.0;
  doc["servers"] =
      json::array({{{"name", "t4"}, {"count", 4}, {"device", "T4"}, {"models", {"m"}}}});
  const auto four = traced_run(doc);
  check_conservation(four);
  const auto by_job = devices_by_job(four);
  REQUIRE(by_job.size() == 60);
  std::map<std::uint32_t, int> jobs_per_device;
  for (const auto& [job, devices] : by_job) {
    REQUIRE(devices.size() == 1);
    ++jobs_per_device[*devices.begin()];
  }
  // 256 ring entries per device spread 60 jobs over all four, none with more than half.
  CHECK(jobs_per_device.size() == 4);
  for (const auto& [device, n] : jobs_per_device) CHECK(n < 30);

  doc["servers"][0]["count"] = 3;  // device 3 goes away
  const auto three = traced_run(doc);
  const auto after = devices_by_job(three);
  int moved = 0;
  for (const auto& [job, devices] : by_job) {
    const std::uint32_t before = *devices.begin();
    REQUIRE(after.at(job).size() == 1);
    const std::uint32_t now = *after.at(job).begin();
    if (before != 3)
      CHECK(now == before);
    else
      ++moved;
  }
  CHECK(moved == jobs_per_device[3]);
}

// Every policy of the table loads from its name and serves every request; its keys are refused
// under another policy.
TEST_CASE("load_balancer: every policy of the table routes every request", "[balancer]") {
  for (std::string_view name : sonicsim::balancing::names()) {
    INFO(name);
    auto doc = mixed_fleet(8, std::string(name));
    doc["duration"] = 20.0;
    doc["warmup"] = 2.0;
    const auto m = run(doc);
    CHECK(m.requests_simulated > 0);
    CHECK(m.workloads[0].sent == m.workloads[0].completed + m.workloads[0].failed +
                                     m.workloads[0].fallback + m.workloads[0].in_flight_at_end);
  }
}
