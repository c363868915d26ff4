// Triton config parsing (src/triton/): config.pbtxt as a plain struct with positions, and every
// reference CMS config. How a scenario model takes a config is scenario/test_load_triton.cpp.
// Fixtures are hand-made in tests/data/triton/; the real CMS configs are read from
// $SONICSIM_SOURCE_DIR/../shared/reference/triton-configs when that folder exists.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/triton/model_config.hpp>

#include "triton_support.hpp"

using nlohmann::json;
using namespace sonicsim::scenario;
namespace triton = sonicsim::triton;
using namespace test::triton_fixtures;

namespace {

namespace fs = std::filesystem;

}  // namespace

TEST_CASE("the parser gives a plain struct with positions", "[triton]") {
  const auto r = triton::parse_model_config(fixture_text(kTriton + "/queue_policy.pbtxt"));
  REQUIRE(r.config);
  CHECK(r.errors.empty());
  const auto& c = *r.config;
  CHECK(c.name == "guarded");
  CHECK(c.max_batch_size == 32);
  REQUIRE(c.dynamic_batching);
  CHECK(c.dynamic_batching->position.line == 6);
  CHECK(c.dynamic_batching->default_queue_policy.max_queue_size == 64);
  CHECK_FALSE(c.dynamic_batching->default_queue_policy.delay);
  CHECK(c.dynamic_batching->priority_queue_policy.at(2).delay);
  REQUIRE(c.inputs.size() == 1);
  CHECK(c.inputs[0].data_type == "TYPE_INT8");
  CHECK(c.inputs[0].position.line == 4);

  const auto bad = triton::parse_model_config("max_batch_size: 99999999999\n");
  CHECK_FALSE(bad.config);
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0].position.line == 1);
  // A `,` or `;` may follow any field, also one the parser skips (libprotobuf 3.21 alone would
  // fail there); commas inside lists stay what they are.
  const auto separated = triton::parse_model_config(
      "optimization { execution_accelerators { gpu_execution_accelerator: [ { name: \"tensorrt\", "
      "parameters { key: \"precision_mode\", value: \"FP16\" }; } ] } },\n"
      "max_batch_size: 4; version_policy: { specific { versions: [1, 2], } }\n"
      "input [ { name: \"a,b\", data_type: TYPE_FP32, dims: [ 2, 3 ], }, { name: 'c' } ]\n");
  REQUIRE(separated.config);
  CHECK(separated.config->max_batch_size == 4);
  REQUIRE(separated.config->inputs.size() == 2);
  CHECK(separated.config->inputs[0].name == "a,b");
  CHECK(separated.config->inputs[0].dims == std::vector<std::int64_t>{2, 3});
  CHECK(separated.config->inputs[1].position.line == 3);
  // Both scheduling choices at once is what Triton's schema forbids (a oneof).
  CHECK_FALSE(triton::parse_model_config("dynamic_batching {}\nsequence_batching {}\n").config);
}

TEST_CASE("every reference CMS config parses; ensembles are refused", "[triton][reference]") {
  const char* source = std::getenv("SONICSIM_SOURCE_DIR");
  const fs::path folder = fs::path(source ? source : SONICSIM_SOURCE_DIR) / ".." / "shared" /
                          "reference" / "triton-configs";
  if (!fs::is_directory(folder)) {
    WARN("no reference configs at " << folder.string() << ": skipped");
    return;
  }
  int parsed = 0, ensembles = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const fs::path file = entry.path() / "config.pbtxt";
    if (!fs::exists(file)) continue;
    INFO(file.string());
    const auto r = triton::parse_model_config(fixture_text(file.string()));
    REQUIRE(r.config);
    ++parsed;
    // Every problem of a real config is one a scenario can fix (variable dims, bytes), except
    // an ensemble: with payloads given as bytes, only ensembles are left.
    auto doc =
        scenario_with(file.string(), {{"input_bytes_per_item", 100}, {"output_bytes_per_item", 4}});
    if (r.config->platform == "ensemble") {
      ++ensembles;
      std::vector<std::string> texts = {"ensemble", "each step as its own model"};
      for (const auto& step : r.config->ensemble_steps)
        texts.push_back("`" + step.model_name + "`");
      expect_problem(doc, "models.m.triton_config", texts);
      continue;
    }
    const Model m = load_model(doc);
    CHECK(m.max_batch_size == std::max(1, r.config->max_batch_size));
    CHECK(m.dynamic_batching.has_value() == r.config->dynamic_batching.has_value());
  }
  CHECK(parsed >= 10);
  CHECK(ensembles >= 1);

  // ParticleNet AK4 with 100 particles and 10 secondary vertices: the 9760 B per jet of the
  // paper's inputs (pf 2+20+1 x 100, sv 2+11+1 x 10, FP32).
  const fs::path ak4 = folder / "particlenet_AK4" / "config.pbtxt";
  if (fs::exists(ak4)) {
    const json shapes = {{{"name", "pf_points"}, {"shape", {2, 100}}},
                         {{"name", "pf_features"}, {"shape", {20, 100}}},
                         {{"name", "pf_mask"}, {"shape", {1, 100}}},
                         {{"name", "sv_points"}, {"shape", {2, 10}}},
                         {{"name", "sv_features"}, {"shape", {11, 10}}},
                         {{"name", "sv_mask"}, {"shape", {1, 10}}}};
    const Model m = load_model(scenario_with(ak4.string(), {{"inputs", shapes}}));
    CHECK(m.input_bytes_per_item == 9760);
    CHECK(m.output_bytes_per_item == 8 * 4);
    CHECK(m.max_batch_size == 500);
    CHECK(m.dynamic_batching->preferred_batch_size == std::vector<int>{200});
  }
}
