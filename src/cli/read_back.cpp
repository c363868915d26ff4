#include "read_back.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include <sonicsim/calibration/perf_analyzer.hpp>
#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/telemetry/measurements.hpp>
#include <sonicsim/util/json_text.hpp>

namespace sonicsim::cli {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// The staged file's JSON object, read as the other readers would read it.
json read_object(const std::string& staged) {
  std::string error;
  const std::string text = read_text(staged, error);
  if (!error.empty()) throw std::runtime_error(staged + ": cannot read: " + error);
  const auto doc = parse_json(text, staged);
  if (!doc || !doc->is_object()) throw std::runtime_error(staged + ": not a JSON object");
  return *doc;
}

// The smallest scenario a written file can be tried in: one model on one pool of `device`, a
// client that calls it. Its own figures are plain and far inside every range, so a refusal is
// the file's.
json host_scenario(const std::string& device) {
  return {{"name", "read-back"},
          {"duration", "1min"},
          {"workload",
           {{"jobs", 1},
            {"threads_per_job", 1},
            {"cpu_time_per_event", "1s"},
            {"requests", json::array({{{"model", "m"}, {"offload_fraction", 1}}})}}},
          {"models", {{"m", {{"service_time", {{"batch", {1}}, {"seconds", {"1ms"}}}}}}}},
          {"servers",
           json::array({{{"name", "pool"}, {"count", 1}, {"device", device}, {"models", {"m"}}}})}};
}

std::string device_of(const json& doc, const char* fallback) {
  const auto it = doc.find("device");
  return it != doc.end() && it->is_string() && !it->get<std::string>().empty()
             ? it->get<std::string>()
             : fallback;
}

void load(const json& scenario, const std::string& staged) {
  const std::string folder = fs::absolute(staged).parent_path().string();
  scenario::load_json(scenario, staged, folder);
}

}  // namespace

ReadBack scenario_read_back() {
  return [](const std::string& staged, const std::string&) { scenario::load_file(staged); };
}

ReadBack calibration_read_back() {
  return [](const std::string& staged, const std::string&) {
    const json doc = read_object(staged);
    json s = host_scenario(device_of(doc, "GPU"));
    const std::string file = fs::absolute(staged).string();
    json& model = s["models"]["m"];
    model["service_time"] = {{"calibration", file}};
    if (doc.contains("request_overhead")) model["request_overhead"] = {{"calibration", file}};
    if (doc.contains("host_cost")) model["host_cost"] = {{"calibration", file}};
    load(s, staged);
  };
}

ReadBack overlap_read_back() {
  return [](const std::string& staged, const std::string&) {
    const json doc = read_object(staged);
    const std::string device = device_of(doc, "GPU");
    json s = host_scenario(device);
    s["devices"] = {{device, {{"overlap", doc.value("overlap", json())}}}};
    load(s, staged);
  };
}

ReadBack node_read_back() {
  return [](const std::string& staged, const std::string&) {
    const json doc = read_object(staged);
    json s = host_scenario("GPU");
    s["workload"].merge_patch(doc.value("workload", json::object()));
    load(s, staged);
  };
}

ReadBack measurements_read_back() {
  return
      [](const std::string& staged, const std::string&) { telemetry::read_measurements(staged); };
}

ReadBack flow_overlay_read_back() {
  return [](const std::string& staged, const std::string&) {
    const json overlay = read_object(staged);
    json s = host_scenario("GPU");
    // The profile's last change must fall within the run, as the day it came from does.
    double last = 0.0;
    if (const json::json_pointer t("/workload/flow/running/t");
        overlay.contains(t) && overlay.at(t).is_array())
      for (const json& x : overlay.at(t))
        if (x.is_number()) last = std::max(last, x.get<double>());
    s["duration"] = last + 60.0;
    s.merge_patch(overlay);
    load(s, staged);
  };
}

ReadBack perf_analyzer_csv_read_back(int batch_size) {
  return [batch_size](const std::string& staged, const std::string&) {
    calibration::read_perf_analyzer_csv(staged, batch_size);
  };
}

}  // namespace sonicsim::cli
