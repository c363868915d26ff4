// The Triton fixtures' helpers (tests/data/triton/), shared by the parser's tests
// (test_triton_config.cpp) and the loader's (scenario/test_load_triton.cpp): a scenario whose one
// model reads a config, the model it loads, and the problems of one it refuses.
#pragma once

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

namespace test::triton_fixtures {

using nlohmann::json;
using sonicsim::scenario::InputError;
using sonicsim::scenario::load_json;
using sonicsim::scenario::Model;
using sonicsim::scenario::Problem;
using sonicsim::scenario::Scenario;

inline const std::string kTriton = std::string(SONICSIM_TEST_DATA_DIR) + "/triton";

// One served model `m` reading `config` (relative to tests/data/triton); `model` adds keys.
inline json scenario_with(const json& config, const json& model = json::object()) {
  json m = {{"triton_config", config}, {"service_time", {{"batch", {1}}, {"seconds", {0.001}}}}};
  m.update(model);
  return json{
      {"duration", "10s"},
      {"workload",
       {{"jobs", 2},
        {"threads_per_job", 1},
        {"cpu_time_per_event", "100ms"},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.1}}})}}},
      {"models", {{"m", m}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})}};
}

inline Model load_model(const json& doc) {
  const Scenario s = load_json(doc, "<test>", kTriton);
  REQUIRE(s.models.size() == 1);
  return s.models[0];
}

// The problems of a document that must not load.
inline std::vector<Problem> loader_problems(const json& doc) {
  try {
    load_json(doc, "<test>", kTriton);
  } catch (const InputError& e) {
    return e.problems();
  }
  FAIL("the scenario loaded although it should not");
  return {};
}

// The single problem at `path`, whose message must contain every piece of `texts`.
inline void expect_problem(const json& doc, const std::string& path,
                           const std::vector<std::string>& texts) {
  const auto problems = loader_problems(doc);
  std::string all;
  for (const auto& p : problems) all += p.path + ": " + p.message + "\n";
  INFO(all);
  const auto it = std::find_if(problems.begin(), problems.end(),
                               [&](const Problem& p) { return p.path == path; });
  REQUIRE(it != problems.end());
  for (const auto& t : texts) CHECK(it->message.find(t) != std::string::npos);
}

inline std::string fixture_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace test::triton_fixtures
