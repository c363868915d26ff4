// The client's policy (src/engine/client_policy.cpp): what a client does with each try as it comes
// back: a model no server serves runs on the CPU, a timeout abandons the try, and with every
// server down the jobs run at the CPU-only speed.
#include "support.hpp"

#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/reader.hpp>

using namespace test;

TEST_CASE("an unserved model falls back to the CPU and costs p_i t_CPU there", "[engine]") {
  auto doc = deterministic(4, 1);
  doc["models"]["other"] = doc["models"]["m"];
  doc["workload"]["requests"].push_back({{"model", "other"}, {"offload_fraction", 0.2}});
  // Only "m" is served: the event costs (1 - 0.1) t_CPU on the CPU plus the remote call.
  const auto m = run(doc);
  const double ideal = 0.9 * 0.1 + 0.01 + 2 * 600e-6 + 10100.0 / 1.25e9;
  CHECK(m.time_per_event.mean() == Approx(ideal).epsilon(0.005));
  CHECK(m.fallback == m.completed);  // one fallback and one remote request per event
  check_conservation(m);
}

TEST_CASE("fallback: with every server down, jobs run at the CPU-only speed",
          "[engine][operations][fallback]") {
  // No network (no latency): a request that finds no server is refused at once and runs on the
  // CPU, so an event takes exactly t_CPU, as without any offloading.
  auto doc = deterministic(40, 2, 0.1, 0.3, 0.010);
  doc.erase("network");
  doc["warmup"] = 0.0;  // every try of every request counted
  doc["workload"]["client"] = {{"allowed_tries", 3}, {"fallback", "cpu"}};
  doc["faults"] = json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 0}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(throughput(m) == Approx(40 / 0.1).epsilon(1e-3));
  CHECK(m.time_per_event.quantile(0.5) == Approx(0.1).epsilon(1e-9));
  CHECK(m.completed == 0);
  CHECK(m.fallback == m.sent - m.in_flight_at_end);
  // Three refused tries per request, those still computing locally at the end included.
  CHECK(m.resilience.no_server == 3 * (m.resilience.fallback_after_failure + m.in_flight_at_end));
  CHECK(m.pools[0].mean_utilization() == 0.0);

  SECTION("with a network, each refused try costs a round trip to the load balancer") {
    auto net = deterministic(40, 2, 0.1, 0.3, 0.010);
    net["workload"]["client"] = doc["workload"]["client"];
    net["faults"] = doc["faults"];
    const auto n = run(net);
    const double rtt = 2 * (100e-6 + 400e-6 + 100e-6);
    CHECK(n.time_per_event.quantile(0.5) == Approx(0.1 + 3 * rtt).epsilon(1e-9));
  }
  SECTION("without fallback the requests fail and the events go on without them") {
    doc["workload"]["client"]["fallback"] = "none";
    const auto f = run(doc);
    check_conservation(f);
    CHECK(f.fallback == 0);
    CHECK(f.failed == f.sent - f.in_flight_at_end);
    // The offloaded share is not computed anywhere: 70% of t_CPU per event.
    CHECK(f.time_per_event.quantile(0.5) == Approx(0.07).epsilon(1e-9));
  }
}

TEST_CASE("client timeout: abandoned tries still load the server, then fall back",
          "[engine][operations][fallback]") {
  // A 2 s model behind a 0.5 s client timeout: no try ever answers in time.
  auto doc = deterministic(4, 1, 1.0, 0.5, 2.0);
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"timeout", "500ms"}, {"allowed_tries", 2}, {"fallback", "cpu"}};
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.completed == 0);
  CHECK(m.failed == 0);
  // Two timed-out tries per request; those still out at the end have had one or none.
  CHECK(m.resilience.client_timeout >= 2 * m.resilience.fallback_after_failure);
  CHECK(m.resilience.client_timeout <=
        2 * (m.resilience.fallback_after_failure + m.in_flight_at_end));
  CHECK(m.resilience.abandoned == m.resilience.client_timeout);
  // An event: 0.5 s of CPU, two 0.5 s tries, 0.5 s of local inference.
  CHECK(m.time_per_event.quantile(0.5) == Approx(2.0).epsilon(1e-6));
  // The server kept working for clients that had gone: busy all the time.
  CHECK(m.pools[0].mean_utilization() > 0.99);
}

// Module time (Clients::module_request_done): per event, the time it waited for each request
// kind's requests, from the first one's send to the last one's end.
namespace {
const sonicsim::engine::RunMetrics::Module& module_of(const sonicsim::engine::RunMetrics& m,
                                                      std::size_t kind) {
  REQUIRE(m.modules.size() > kind);
  return m.modules[kind];
}
}  // namespace

TEST_CASE("module time: one request per event waits its own latency", "[engine][modules]") {
  const auto m = run(deterministic(8, 2));
  const auto& mod = module_of(m, 0);
  CHECK(mod.workload == 0);
  CHECK(mod.request == 0);
  CHECK(mod.wait.count() == m.completed);  // every request completed, one per event
  CHECK(mod.wait.mean() == Approx(m.latency.mean()).epsilon(1e-12));
  CHECK(mod.wait.max() == Approx(m.latency.max()).epsilon(1e-12));
}

TEST_CASE("module time: a sync thread waits for its kind's requests one after another",
          "[engine][modules]") {
  // One thread, nothing queues: each of the three requests takes the idle latency, and the
  // module waits for all three in a row.
  auto doc = deterministic(1, 1);
  doc["workload"]["requests"][0]["per_event"] = 3;
  const auto m = run(doc);
  const auto& mod = module_of(m, 0);
  CHECK(mod.wait.count() == m.events_completed);
  CHECK(mod.wait.mean() == Approx(3 * m.latency.mean()).epsilon(1e-9));
  CHECK(mod.wait.max() - mod.wait.quantile(0.0) < 1e-9);
}

TEST_CASE("module time: an async event waits for the last of its kind's requests sent at once",
          "[engine][modules]") {
  // Three requests leave together towards one device serving one at a time: they end one
  // service time apart, and the event waits for the third.
  auto doc = deterministic(1, 1, 1.0, 0.1, 0.01);
  doc["workload"]["mode"] = "async";
  doc["workload"]["requests"][0]["per_event"] = 3;
  doc["models"]["m"]["max_batch_size"] = 1;
  const auto m = run(doc);
  const auto& mod = module_of(m, 0);
  CHECK(mod.wait.count() == m.events_completed);
  CHECK(mod.wait.mean() == Approx(m.latency.max()).epsilon(1e-9));
  CHECK(mod.wait.mean() - m.latency.quantile(0.0) == Approx(2 * 0.01).epsilon(1e-6));
}

TEST_CASE("module time: the results add each module's declared CPU time to its wait",
          "[engine][modules][results]") {
  auto doc = deterministic(4, 1);
  doc["workload"]["requests"][0]["module_cpu_time"] = "40ms";
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, {});
  const nlohmann::json written = sonicsim::results::to_json(s, out, nlohmann::json());
  const sonicsim::results::Document d(written);
  const auto modules = d.modules();
  REQUIRE(modules.size() == 1);
  const auto& wait = out.metrics.modules[0].wait;
  CHECK(modules[0].model() == "m");
  CHECK(modules[0].served());
  CHECK(modules[0].module_cpu_time_s() == Approx(0.04));
  using sonicsim::results::Quantile;
  CHECK(modules[0].wait_s().at(Quantile::Mean) == Approx(wait.mean()));
  CHECK(modules[0].module_time_s().at(Quantile::Mean) == Approx(wait.mean() + 0.04));
  CHECK(modules[0].module_time_s().at(Quantile::P99) == Approx(wait.quantile(0.99) + 0.04));
  d.check();
}
