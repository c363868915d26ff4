// Model loading in the engine (docs/servers.md, "Device memory and model loading"): a server that
// restarts serves after startup_delay plus its models' load times; explicit model control loads
// on demand and swaps the least recently used model out, counting each load, unload and second
// spent loading; every request stays accounted for, and the same seed gives the same bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include <sonicsim/results/openmetrics.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/format.hpp>

#include "results_support.hpp"
#include "support.hpp"

using namespace test;

namespace {

// One sync thread whose every event asks model a, then model b (1 ms each on the device), on
// one device that holds either but not both: each request finds the other model loaded.
json alternating_models(double load_a, double load_b) {
  json doc = deterministic(1, 1, 0.01, 0.1, 0.001);
  doc["duration"] = 305.0;
  doc["warmup"] = 0.0;
  doc["models"]["a"] = doc["models"]["m"];
  doc["models"]["b"] = doc["models"]["m"];
  doc["models"].erase("m");
  doc["models"]["a"]["memory"] = {{"weights", "600B"}};
  doc["models"]["a"]["load_time"] = load_a;
  doc["models"]["b"]["memory"] = {{"weights", "400B"}};
  doc["models"]["b"]["load_time"] = load_b;
  doc["workload"]["requests"] = json::array(
      {{{"model", "a"}, {"offload_fraction", 0.1}}, {{"model", "b"}, {"offload_fraction", 0.1}}});
  doc["devices"] = {{"T4", {{"memory", "999B"}}}};
  doc["servers"][0]["models"] = {"a", "b"};
  doc["servers"][0]["model_control"] = "explicit";
  return doc;
}

}  // namespace

TEST_CASE("model loading: a restarted server serves after startup_delay + its models' load times",
          "[engine][memory][faults]") {
  // 4 devices at about 90% load; one crashes at 100 s for 60 s, then takes 30 s to start and
  // 12 + 8 s to load its two models: it serves again at 210 s.
  auto doc = deterministic(36, 4, 0.1, 0.1, 0.010);
  doc["servers"][0]["startup_delay"] = "30s";
  doc["models"]["m"]["load_time"] = "12s";
  doc["models"]["m2"] = doc["models"]["m"];
  doc["models"]["m2"]["load_time"] = "8s";
  doc["servers"][0]["models"] = {"m", "m2"};
  doc["workload"]["client"] = {{"allowed_tries", 3}};
  doc["faults"] =
      json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"device", 1}, {"at", 100}, {"for", 60}}});
  const auto m = run(doc);
  check_conservation(m);
  const auto& pool = m.pools[0];
  // Not serving from 100 to 210 s out of the 360 s measured (40 to 400 s).
  CHECK(pool.mean_replicas_up == Approx(4.0 - 110.0 / 360.0).epsilon(1e-9));
  // The restart loaded both models; the servers up at the start had them loaded already.
  CHECK(pool.memory_tracked);
  CHECK(pool.model_loads == 2);
  CHECK(pool.load_time_s == Approx(20.0));
  CHECK(pool.model_unloads == 0);
  CHECK(pool.memory_used_bytes == 0.0);  // no model gives its memory
}

TEST_CASE(
    "explicit model control: two models alternating on a device that holds one swap at "
    "every request, each swap counted with its load time",
    "[engine][memory]") {
  // Each event: a (waits 10 s for its load, b unloads), then b (20 s, a unloads): about 30 s.
  // Ten events end by 305 s; the eleventh has unloaded b and begun loading a, which ends past the
  // run. Loads: 10 of a, 10 of b; unloads: every load but the first made room, and so did the
  // eleventh event's.
  const auto m = run(alternating_models(10.0, 20.0));
  check_conservation(m);
  CHECK(m.events_completed == 10);
  const auto& pool = m.pools[0];
  CHECK(pool.model_loads == 20);
  CHECK(pool.model_unloads == 20);
  CHECK(pool.load_time_s == Approx(10 * 10.0 + 10 * 20.0));
  CHECK(pool.memory_used_bytes == 600.0);  // one model at a time, the larger a
  // A request's queue time includes its model's load.
  REQUIRE(m.models[0].name == "a");
  CHECK(m.models[0].queue_time.mean() == Approx(10.0).epsilon(1e-3));
  CHECK(m.models[1].queue_time.mean() == Approx(20.0).epsilon(1e-3));
}

TEST_CASE(
    "explicit model control: each window's memory in use is the model loaded or loading, as "
    "Triton's nv_gpu_memory_used_bytes shows it",
    "[engine][memory][results]") {
  auto doc = alternating_models(10.0, 20.0);
  doc["timeseries"] = {{"interval", "5s"}, {"replicas", true}};
  doc["devices"]["T4"]["power"] = {{"idle", "10W"}, {"busy", "30W"}};
  const auto s = scenario_of(doc);
  const auto out = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto& device = out.metrics.timeseries->devices.at(0);
  REQUIRE(device.memory_used.size() == 61);
  // a (600 B) loads for 10 s, b (400 B) for 20 s: the windows see one or the other.
  std::set<double> seen(device.memory_used.begin(), device.memory_used.end());
  CHECK(seen == std::set<double>{400.0, 600.0});
  const std::string om = sonicsim::results::to_openmetrics(s, out, {0.0, "rel", "ns"});
  const std::string labels =
      "{app=\"supersonic\",release=\"rel\",namespace=\"ns\",pool=\"gpu\",replica=\"0\","
      "pod=\"rel-gpu-0\",gpu_uuid=\"GPU-rel-gpu-0\"} ";
  CHECK(om.find("nv_gpu_memory_total_bytes" + labels + "999 5.000\n") != std::string::npos);
  for (std::size_t k = 0; k < 61; ++k) {
    const std::string stamp = sonicsim::util::formatted("%.3f\n", 5.0 * static_cast<double>(k + 1));
    CHECK(om.find("nv_gpu_memory_used_bytes" + labels +
                  sonicsim::util::exact_number(device.memory_used[k]) + " " + stamp) !=
          std::string::npos);
    CHECK(om.find("nv_gpu_power_usage" + labels +
                  sonicsim::util::exact_number(10.0 + 20.0 * std::min(1.0, device.utilization[k])) +
                  " " + stamp) != std::string::npos);
  }
  CHECK(om.find("nv_gpu_power_limit" + labels + "30 305.000\n") != std::string::npos);
}

TEST_CASE("explicit model control: with room for both, each model loads once and stays",
          "[engine][memory]") {
  auto doc = alternating_models(10.0, 20.0);
  doc["devices"]["T4"]["memory"] = "1000B";
  const auto m = run(doc);
  check_conservation(m);
  const auto& pool = m.pools[0];
  CHECK(pool.model_loads == 2);
  CHECK(pool.model_unloads == 0);
  CHECK(pool.load_time_s == Approx(30.0));
  CHECK(pool.memory_used_bytes == 1000.0);
  // The first event waited 30 s for the loads; the others took about 12 ms.
  CHECK(m.events_completed > 20000);
}

TEST_CASE("explicit model control: a busy model cannot starve another of the device",
          "[engine][memory]") {
  // Model a's 50 threads offer five times what the device can do (its queue never empties); b's
  // one thread asks once a second. They share a device that holds one: b's load waits for a to
  // serve what it held when b asked, not for a's queue to empty, so b is served too.
  const auto workload = [](const char* name, int jobs, double cpu, const char* model) {
    return json{{"name", name},
                {"jobs", jobs},
                {"threads_per_job", 1},
                {"cpu_time_per_event", cpu},
                {"requests", json::array({{{"model", model}, {"offload_fraction", 0.0}}})}};
  };
  json doc = {
      {"name", "starvation"},
      {"duration", 120.0},
      {"warmup", 10.0},
      {"workloads", json::array({workload("busy", 50, 0.01, "a"), workload("rare", 1, 1.0, "b")})},
      {"models",
       {{"a",
         {{"service_time", {{"batch", {1}}, {"seconds", {0.001}}}},
          {"memory", {{"weights", "10GB"}}},
          {"load_time", "1s"}}},
        {"b",
         {{"service_time", {{"batch", {1}}, {"seconds", {0.001}}}},
          {"memory", {{"weights", "10GB"}}},
          {"load_time", "1s"}}}}},
      {"devices", {{"T4", {{"memory", "16GB"}}}}},
      {"servers", json::array({{{"name", "gpu"},
                                {"count", 1},
                                {"device", "T4"},
                                {"models", {"a", "b"}},
                                {"model_control", "explicit"}}})}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.models[1].name == "b");
  CHECK(m.models[1].executed_requests > 20);
  CHECK(m.models[0].executed_requests > 1000);
  CHECK(m.pools[0].model_loads > 20);
  CHECK(m.pools[0].memory_used_bytes == 10e9);
}

TEST_CASE(
    "explicit model control: every request accounted for under crashes, timeouts and "
    "retries; same seed, same bytes",
    "[engine][memory][faults]") {
  // Three models on two devices that hold two of them at once, random crashes, queue timeouts
  // and client retries.
  auto doc = deterministic(8, 2, 0.1, 0.3, 0.004);
  doc["duration"] = 300.0;
  doc["workload"]["threads_per_job"] = 2;
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  doc["workload"]["requests"] = json::array({{{"model", "a"}, {"offload_fraction", 0.1}},
                                             {{"model", "b"}, {"offload_fraction", 0.1}},
                                             {{"model", "c"}, {"offload_fraction", 0.1}}});
  doc["workload"]["client"] = {{"allowed_tries", 2}, {"timeout", "5s"}};
  for (const char* name : {"a", "b", "c"}) {
    doc["models"][name] = doc["models"]["m"];
    doc["models"][name]["max_batch_size"] = 4;
    doc["models"][name]["dynamic_batching"] = {{"max_queue_delay", "2ms"},
                                               {"default_timeout", "3s"}};
    doc["models"][name]["memory"] = {{"weights", "4GB"}, {"per_item", "100MB"}};
    doc["models"][name]["load_time"] = "2s";
  }
  doc["models"].erase("m");
  doc["devices"] = {{"T4", {{"memory", "9GB"}}}};
  doc["servers"][0]["models"] = {"a", "b", "c"};
  doc["servers"][0]["model_control"] = "explicit";
  doc["servers"][0]["startup_delay"] = "5s";
  doc["faults"] = json::array(
      {{{"kind", "random_crashes"}, {"pool", "gpu"}, {"mtbf", "60s"}, {"mttr", "10s"}}});
  const auto m = run(doc);
  check_conservation(m);
  const auto& pool = m.pools[0];
  CHECK(pool.model_loads > 0);
  CHECK(pool.model_unloads > 0);
  CHECK(pool.crashes > 0);
  CHECK(pool.memory_used_bytes <= 9e9);
  CHECK(pool.memory_used_bytes == 8.8e9);  // two models of 4.4 GB at once, never three

  const auto results = [&] { return results_without_perf(scenario_of(doc)); };
  const std::string first = results();
  CHECK(results() == first);
  CHECK(first.find("\"model_unloads\"") != std::string::npos);
}
