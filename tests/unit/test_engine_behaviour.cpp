// What a planner relies on beyond the formula: batching under load, the CPU-only baseline,
// CPU fallback, conservation, async semantics, determinism.
#include "support.hpp"

#include <sonicsim/results/results.hpp>

using namespace test;

TEST_CASE("the CPU-only baseline takes t_CPU per event", "[engine]") {
  auto doc = deterministic(8, 1);
  doc["servers"] = json::array();
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 0.5}};
  const auto m = run(doc);
  CHECK(m.time_per_event.mean() == Approx(0.1).epsilon(0.01));
  CHECK(m.completed == 0);
  CHECK(m.fallback > 0);
  check_conservation(m);
}

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

TEST_CASE("dynamic batching: the mean batch size grows with load", "[engine][batching]") {
  auto doc = deterministic(1, 1);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  doc["workload"]["requests"][0]["items"] = 4;
  doc["models"]["m"]["service_time"] = {{"batch", {1, 256}}, {"seconds", {0.002, 0.05}}};
  doc["models"]["m"]["max_batch_size"] = 256;
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {64}},
                                            {"max_queue_delay", "500us"}};
  double previous = 0.0;
  for (int n : {4, 32, 128, 512}) {
    doc["workload"]["jobs"] = n;
    const auto m = run(doc);
    const auto& mm = m.models.at(0);
    const double batch = static_cast<double>(mm.items) / static_cast<double>(mm.executions);
    INFO("N_CPU " << n << " mean batch " << batch);
    CHECK(batch > previous);
    CHECK(batch <= 256.0);
    previous = batch;
  }
  CHECK(previous > 32.0);
}

TEST_CASE("requests larger than max_batch_size fail, and are counted", "[engine][batching]") {
  auto doc = deterministic(4, 1);
  doc["workload"]["requests"][0]["items"] = {{"dist", "exponential"}, {"mean", 8}};
  doc["models"]["m"]["max_batch_size"] = 16;
  const auto m = run(doc);
  CHECK(m.failed > 0);
  CHECK(m.completed > m.failed);
  check_conservation(m);
}

TEST_CASE("async with no independent work and one event in flight equals sync", "[engine][async]") {
  auto doc = deterministic(6, 1);
  const auto sync = run(doc);
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 1}};
  const auto async = run(doc);
  CHECK(async.time_per_event.mean() == Approx(sync.time_per_event.mean()).epsilon(1e-6));
}

TEST_CASE("async with ample independent work hides the remote call", "[engine][async]") {
  auto doc = deterministic(6, 1);
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 1.0}, {"events_in_flight", 1}};
  const auto m = run(doc);
  // The 90 ms of CPU work covers the ~11 ms round trip: the event costs its CPU work only.
  CHECK(m.time_per_event.mean() == Approx(0.09).epsilon(0.005));
}

TEST_CASE("async with several events in flight keeps the CPU busy", "[engine][async]") {
  auto doc = deterministic(1, 4);
  doc["models"]["m"]["service_time"]["seconds"] = {0.2};  // a slow remote call, 4 devices
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 4}};
  const auto m = run(doc);
  // One CPU, 90 ms of work per event: at most 11.1 events/s; the 0.2 s calls overlap.
  CHECK(throughput(m) == Approx(1.0 / 0.09).epsilon(0.02));
}

TEST_CASE("same scenario and seed give the same results file, except perf",
          "[engine][determinism]") {
  auto doc = deterministic(20, 2);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 0.8}};
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {4}},
                                            {"max_queue_delay", "1ms"}};
  const auto s = scenario_of(doc);
  auto dump = [&] {
    sonicsim::runner::TransportChoice choice;
    auto out = sonicsim::runner::simulate(s, choice);
    auto j = sonicsim::results::to_json(s, out, json::object());
    j.erase("perf");
    return j.dump();
  };
  const std::string a = dump(), b = dump();
  CHECK(a == b);
  auto other = doc;
  other["seed"] = 2;
  const auto s2 = scenario_of(other);
  sonicsim::runner::TransportChoice choice;
  auto out2 = sonicsim::runner::simulate(s2, choice);
  CHECK(out2.metrics.events_completed !=
        sonicsim::runner::simulate(s, choice).metrics.events_completed);
}

TEST_CASE("link byte counters equal the sum of payloads", "[engine][network]") {
  auto doc = deterministic(3, 1);
  doc["warmup"] = 0.0;
  const auto m = run(doc);
  // Every request carries 10 kB up and 100 B down; requests cut by the end sent only theirs.
  const double completed = static_cast<double>(m.completed);
  for (const auto& l : m.links) {
    INFO(l.name);
    CHECK(l.total_bytes() >= completed * 10100.0);
    CHECK(l.total_bytes() <= (completed + static_cast<double>(m.in_flight_at_end)) * 10100.0);
    // Each direction carries its own payloads: 10 kB up, 100 B down per request.
    CHECK(l.bytes[1] * 100.0 == Approx(l.bytes[0]).epsilon(0.01));
  }
}

TEST_CASE("async: every event in flight progresses (Little's law, no starvation)",
          "[engine][async]") {
  auto doc = deterministic(4, 4);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.2}, {"cv", 0.3}};
  doc["network"]["site_uplink"]["latency"] = "15ms";
  doc["workload"]["mode"] = "async";
  doc["workload"]["async"] = {{"independent_work_fraction", 0.8}, {"events_in_flight", 2}};
  const auto two = run(doc);
  doc["workload"]["async"]["events_in_flight"] = 1;
  const auto one = run(doc);
  // Each thread always holds E open events: mean time per event = E x N_CPU / throughput.
  CHECK(two.time_per_event.mean() == Approx(2 * 4 / throughput(two)).epsilon(0.01));
  CHECK(one.time_per_event.mean() == Approx(1 * 4 / throughput(one)).epsilon(0.01));
  // Here one event already hides the round trip: both are CPU-bound at N_CPU / (0.9 t_CPU).
  CHECK(throughput(two) == Approx(4 / 0.18).epsilon(0.01));
  CHECK(throughput(one) == Approx(4 / 0.18).epsilon(0.01));
  // Without independent work, a second event in flight fills the CPU during the round trip.
  doc["workload"]["async"] = {{"independent_work_fraction", 0.0}, {"events_in_flight", 1}};
  const auto blocking = run(doc);
  doc["workload"]["async"]["events_in_flight"] = 2;
  const auto overlapped = run(doc);
  CHECK(throughput(overlapped) > 1.1 * throughput(blocking));
}
