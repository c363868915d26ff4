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

// The loader's message for a scenario it refuses; empty when it accepts it.
inline std::string load_error(const json& doc) {
  try {
    scenario_of(doc);
  } catch (const sonicsim::scenario::InputError& e) {
    return e.what();
  }
  return "";
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
