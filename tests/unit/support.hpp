// Helpers shared by the engine tests: scenarios from inline JSON, runs, and checks.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sonicsim/engine/simulation.hpp>
#include <sonicsim/runner/runner.hpp>
#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"

namespace test {

// A scratch folder for the files a test hands to a reader that takes paths (scenarios,
// calibrations, figures files), removed with everything in it when the test ends. Its name
// carries `what` and the process id: ctest runs test cases in parallel processes.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& what)
      : path(std::filesystem::temp_directory_path() /
             ("sonicsim-" + what + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  // Writes `doc` as `name` in the folder; its path.
  std::string write(const std::string& name, const nlohmann::json& doc) const {
    const auto file = (path / name).string();
    std::ofstream(file) << doc.dump(2);
    return file;
  }
};

using nlohmann::json;

inline sonicsim::scenario::Scenario scenario_of(const json& doc) {
  return sonicsim::scenario::load_json(doc, "<test>");
}

// The problems the loader reports for a scenario it refuses; empty when it accepts it.
inline std::vector<sonicsim::scenario::Problem> problems_of(const json& doc) {
  try {
    scenario_of(doc);
  } catch (const sonicsim::scenario::InputError& e) {
    return e.problems();
  }
  return {};
}

// The loader's message for a scenario it refuses; empty when it accepts it.
inline std::string load_error(const json& doc) {
  return refusal_of([&] { scenario_of(doc); });
}

// One simulation with the transport forced (flow: every payload a flow of sonicsim's max-min
// solver).
inline sonicsim::engine::RunMetrics run(const json& doc, bool flow = false) {
  const auto s = scenario_of(doc);
  const auto choice =
      flow ? sonicsim::runner::TransportChoice::all_flows() : sonicsim::runner::TransportChoice{};
  return sonicsim::runner::simulate(s, choice).metrics;
}

inline double throughput(const sonicsim::engine::RunMetrics& m) {
  return static_cast<double>(m.events_completed) / (m.duration - m.warmup);
}

inline void check_conservation(const sonicsim::engine::RunMetrics& m) {
  CHECK(m.sent == m.completed + m.failed + m.fallback + m.in_flight_at_end);
}

// Each workload's books add up to the run's: sent, completed, failed, fallback, in flight at the
// end and events completed.
inline void check_workloads_add_up(const sonicsim::engine::RunMetrics& m) {
  std::uint64_t sent = 0, completed = 0, failed = 0, fallback = 0, in_flight = 0, events = 0;
  for (const auto& w : m.workloads) {
    sent += w.sent;
    completed += w.completed;
    failed += w.failed;
    fallback += w.fallback;
    in_flight += w.in_flight_at_end;
    events += w.events_completed;
  }
  CHECK(sent == m.sent);
  CHECK(completed == m.completed);
  CHECK(failed == m.failed);
  CHECK(fallback == m.fallback);
  CHECK(in_flight == m.in_flight_at_end);
  CHECK(events == m.events_completed);
}

// One model, constant times, no batching: the regime where the SONIC formula is exact.
inline json deterministic(int threads, int gpus, double t_cpu = 0.1, double p = 0.1,
                          double t_gpu = 0.01) {
  return json{
      {"name", "deterministic"},
      {"duration", 400.0},
      {"warmup", 40.0},
      {"workload",
       {{"jobs", threads},
        {"threads_per_job", 1},
        {"jobs_per_node", 1},
        {"cpu_time_per_event", t_cpu},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", p}}})}}},
      {"models",
       {{"m",
         {{"input_bytes_per_item", 10000},
          {"output_bytes_per_item", 100},
          {"service_time", {{"batch", {1}}, {"seconds", {t_gpu}}}}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", gpus}, {"device", "T4"}, {"models", {"m"}}}})},
      {"network",
       {{"client_nic", {{"bandwidth", "10Gbps"}, {"latency", "100us"}}},
        {"site_uplink", {{"bandwidth", "100Gbps"}, {"latency", "400us"}}},
        {"server_nic", {{"bandwidth", "25Gbps"}, {"latency", "100us"}}}}}};
}

// A job flow of `jobs` jobs of `events` events each, started as `start` says. Deterministic:
// t_CPU = 1 s with p = 0.1 offloaded to a 10 ms model; an event takes 0.9 s + 10 ms + the
// network's round trip when nothing queues.
inline json job_flow(int jobs, const json& start, int events = 100) {
  auto doc = deterministic(jobs, 4, 1.0, 0.1, 0.01);
  doc["duration"] = 7200.0;
  doc["warmup"] = 0.0;
  doc["workload"]["flow"] = {{"events_per_job", events}};
  for (const auto& [key, value] : start.items()) doc["workload"]["flow"][key] = value;
  return doc;
}

// A measured client load: jobs running from each time on (workload.flow.running).
inline json running_profile(const json& t, const json& jobs) {
  auto doc = deterministic(1, 4, 1.0, 0.1, 0.01);
  doc["duration"] = 7200.0;
  doc["warmup"] = 0.0;
  doc["workload"].erase("jobs");
  doc["workload"]["flow"] = {{"running", {{"t", t}, {"jobs", jobs}}}};
  doc["timeseries"] = {{"interval", "1min"}};
  return doc;
}

// One device serving model "m" with a constant 1 ms per request and no batching, reached with no
// network and no overheads: an M/D/1 (Poisson) or D/D/1 (constant) queue at `rate`.
inline json open_loop(double rate, const std::string& distribution, double duration = 200.0) {
  return json{
      {"name", "open-loop"},
      {"duration", duration},
      {"warmup", duration / 10},
      {"workload",
       {{"arrivals", {{"rate", rate}, {"distribution", distribution}}},
        {"requests", json::array({{{"model", "m"}}})}}},
      {"models", {{"m", {{"service_time", {{"batch", {1}}, {"seconds", {0.001}}}}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})}};
}

// One model "m" behind one T4 with a constant `service` time, taking `batching` as its
// dynamic_batching, and `threads` single-thread jobs that wait on it.
inline json queued_run(int threads, double service, const json& batching, double duration) {
  return json{
      {"duration", duration},
      {"workload",
       {{"jobs", threads},
        {"threads_per_job", 1},
        {"cpu_time_per_event", 1.0},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.0}}})}}},
      {"models",
       {{"m",
         {{"service_time", {{"batch", {1}}, {"seconds", {service}}}},
          {"max_batch_size", 1},
          {"dynamic_batching", batching}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})}};
}

// 200 single-thread jobs of 230 events each, all starting at once: t_CPU = 100 ms with half of
// it a 10 ms remote call. The servers are saturated throughout the burst (200 threads against at
// most 4 x 100 requests/s), so the queue time per execution is far above 20 ms until the last
// job exits, and exactly 0 after: the autoscaler's decisions follow from its settings alone.
inline json autoscaled_burst() {
  auto doc = deterministic(200, 4, 0.1, 0.5, 0.010);
  doc["duration"] = 600.0;
  doc["warmup"] = 0.0;
  doc["workload"]["flow"] = {{"events_per_job", 230}};
  doc["servers"][0]["startup_delay"] = "45s";
  doc["servers"][0]["autoscaler"] = {
      {"metric", "queue_time"},
      {"threshold", "20ms"},
      {"polling_interval", "30s"},
      {"window", "30s"},
      {"min_replicas", 1},
      {"max_replicas", 4},
      {"scale_up", {{"stabilization_window", "0s"}, {"step", 1}, {"period", "30s"}}},
      {"scale_down", {{"stabilization_window", "120s"}, {"step", 1}, {"period", "60s"}}}};
  doc["timeseries"] = {{"interval", "15s"}};
  return doc;
}

// Two threads, one T4, constant times below the knee: each event is 50 ms of CPU work, then one
// 10 ms execution. Powers on every component, and prices.
inline json powered(int threads = 2) {
  json doc = deterministic(threads, 1, 0.1, 0.5, 0.01);
  doc["duration"] = 60.0;
  doc["warmup"] = 10.0;
  doc["devices"] = {{"T4", {{"power", {{"idle", "36W"}, {"busy", "70W"}}}}}};
  doc["servers"][0]["host"] = {{"devices", 1}, {"power", {{"idle", 100}, {"busy", "0.3kW"}}}};
  doc["workload"]["core_power"] = {{"idle", "4W"}, {"busy", "10W"}};
  doc["prices"] = {
      {"device_hour", {{"T4", 0.35}}}, {"host_hour", 0.1}, {"core_hour", 0.02}, {"kwh", 0.25}};
  return doc;
}

// `deterministic` with threads on one device, each event sending 1 MB over a site uplink of
// `uplink` (the transport choice and the links' counting near and past saturation).
inline json one_megabyte_per_event(int threads, const char* uplink, double duration) {
  auto doc = deterministic(threads, 1, 0.1, 0.1, 0.01);
  doc["models"]["m"]["input_bytes_per_item"] = "1MB";
  doc["network"]["site_uplink"]["bandwidth"] = uplink;
  doc["duration"] = duration;
  doc["warmup"] = duration / 10.0;
  return doc;
}

}  // namespace test
