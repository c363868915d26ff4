// A model's Triton config in a scenario (src/scenario/load_triton.cpp): config.pbtxt's batching,
// instances, tensors and queue policy mapped onto the model, keys the scenario sets overriding the
// config, and configs sonicsim cannot model refused with the JSON path and what to do instead.
// Fixtures are hand-made in tests/data/triton/. The parser itself is test_triton_config.cpp.
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

TEST_CASE("a config with dynamic batching sets the model's batching, instances and bytes",
          "[triton]") {
  const Model m = load_model(scenario_with("batching.pbtxt"));
  CHECK(m.triton_config == "batching.pbtxt");
  CHECK(m.max_batch_size == 256);
  REQUIRE(m.dynamic_batching);
  CHECK(m.dynamic_batching->preferred_batch_size == std::vector<int>{64, 128});
  CHECK(m.dynamic_batching->max_queue_delay == Approx(250e-6));
  CHECK(m.dynamic_batching->queue_policy.max_queue_size == 0);
  CHECK(m.dynamic_batching->queue_policy.default_timeout == 0.0);
  CHECK(m.instances == 2);
  CHECK(m.instance_kind == "KIND_GPU");
  // points 2x50 FP32 + mask 50 BOOL + ids 3 INT64; probabilities 6 FP16.
  CHECK(m.input_bytes_per_item == 2 * 50 * 4 + 50 + 3 * 8);
  CHECK(m.output_bytes_per_item == 6 * 2);
  REQUIRE(m.inputs.size() == 3);
  CHECK(m.inputs[1].name == "mask");
  CHECK(m.inputs[1].dtype == "BOOL");
  CHECK(m.outputs.at(0).dtype == "FP16");
}

TEST_CASE("without a dynamic_batching block every request executes alone", "[triton]") {
  const Model m = load_model(scenario_with("no_batching.pbtxt"));
  CHECK(m.max_batch_size == 8);
  CHECK_FALSE(m.dynamic_batching);
  CHECK(m.instances == 1);  // no instance_group: one instance per device
  CHECK(m.instance_kind.empty());
  CHECK(m.input_bytes_per_item == 80);
  CHECK(m.output_bytes_per_item == 4);
}

TEST_CASE("Triton's max_batch_size 0 is one item per execution, not sonicsim's unlimited",
          "[triton]") {
  auto doc = scenario_with("no_batch_dimension.pbtxt",
                              {{"inputs", {{{"name", "taus"}, {"shape", {10, 47}}}}},
                               {"outputs", {{{"name", "scores"}, {"shape", {10, 4}}}}}});
  const Model m = load_model(doc);
  CHECK(m.max_batch_size == 1);
  CHECK_FALSE(m.dynamic_batching);
  // Without a batch dimension the dims are the whole request: 10 taus x 47 FP32 + 11x11 UINT8.
  CHECK(m.input_bytes_per_item == 10 * 47 * 4 + 121);
  CHECK(m.output_bytes_per_item == 10 * 4 * 4);

  // A request of several items cannot run on such a model.
  doc["workload"]["requests"][0]["items"] = 4;
  expect_problem(doc, "workload.requests[0].items", {"max_batch_size 1"});

  // A dynamic_batching block cannot batch there; its queue policy still applies.
  const Model q = load_model(scenario_with("no_batch_dimension_queue.pbtxt"));
  CHECK(q.max_batch_size == 1);
  REQUIRE(q.dynamic_batching);
  CHECK(q.dynamic_batching->preferred_batch_size.empty());
  CHECK(q.dynamic_batching->queue_policy.max_queue_size == 8);
  CHECK(q.input_bytes_per_item == 64);
}

TEST_CASE("variable dimensions come from the scenario's tensors, matched by name", "[triton]") {
  const json shapes = {{{"name", "pf_features"}, {"shape", {20, 100}}},
                       {{"name", "pf_points"}, {"shape", {2, 100}}, {"dtype", "TYPE_FP32"}}};
  const Model m = load_model(scenario_with("variable_dims.pbtxt", {{"inputs", shapes}}));
  // 2x100 FP32 + 20x100 FP16 (dtype from the config) + 1 INT32; in the config's order.
  CHECK(m.input_bytes_per_item == 800 + 4000 + 4);
  REQUIRE(m.inputs.size() == 3);
  CHECK(m.inputs[0].name == "pf_points");
  CHECK(m.inputs[1].shape == std::vector<std::int64_t>{20, 100});
  CHECK(m.inputs[1].dtype == "FP16");
  REQUIRE(m.dynamic_batching);  // `dynamic_batching { }`: batching with Triton's defaults
  CHECK(m.dynamic_batching->preferred_batch_size.empty());
  CHECK(m.dynamic_batching->max_queue_delay == 0.0);

  SECTION("a -1 left unset names the tensor, the file and where to set it") {
    auto doc = scenario_with("variable_dims.pbtxt",
                                {{"inputs", {{{"name", "pf_points"}, {"shape", {2, 100}}}}}});
    expect_problem(doc, "models.m.inputs",
                      {"`pf_features`", "variable_dims.pbtxt", "line 7", "dims [20, -1]",
                       "{\"name\": \"pf_features\", \"shape\": [20, N]}"});
  }
  SECTION("a name the config does not have gets a did-you-mean hint") {
    auto bad = shapes;
    bad[1]["name"] = "pf_point";
    expect_problem(scenario_with("variable_dims.pbtxt", {{"inputs", bad}}),
                      "models.m.inputs[1].name",
                      {"\"pf_point\"", "variable_dims.pbtxt", "did you mean `pf_points`?"});
  }
  SECTION("fixed dimensions must match the config") {
    auto bad = shapes;
    bad[1]["shape"] = {3, 100};
    expect_problem(scenario_with("variable_dims.pbtxt", {{"inputs", bad}}),
                      "models.m.inputs[1].shape[0]", {"found 3, expected 2", "dims [2, -1]"});
    bad[1]["shape"] = {100};
    expect_problem(scenario_with("variable_dims.pbtxt", {{"inputs", bad}}),
                      "models.m.inputs[1].shape", {"found 1 dimensions, expected 2"});
  }
  SECTION("a dtype that contradicts the config is refused") {
    auto bad = shapes;
    bad[0]["dtype"] = "FP32";
    expect_problem(scenario_with("variable_dims.pbtxt", {{"inputs", bad}}),
                      "models.m.inputs[0].dtype", {"\"FP32\"", "TYPE_FP16"});
  }
  SECTION("a tensor named twice is refused") {
    auto bad = shapes;
    bad.push_back({{"name", "pf_points"}, {"shape", {2, 7}}});
    expect_problem(scenario_with("variable_dims.pbtxt", {{"inputs", bad}}),
                      "models.m.inputs[2].name", {"again", "models.m.inputs[1]"});
  }
}

TEST_CASE("keys set in the scenario override the config", "[triton]") {
  SECTION("dynamic_batching keys override one by one, null turns batching off") {
    auto doc =
        scenario_with("batching.pbtxt", {{"dynamic_batching", {{"max_queue_delay", "1ms"}}}});
    Model m = load_model(doc);
    REQUIRE(m.dynamic_batching);
    CHECK(m.dynamic_batching->max_queue_delay == Approx(1e-3));
    CHECK(m.dynamic_batching->preferred_batch_size == std::vector<int>{64, 128});
    doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", 32}};
    m = load_model(doc);
    CHECK(m.dynamic_batching->preferred_batch_size == std::vector<int>{32});
    CHECK(m.dynamic_batching->max_queue_delay == Approx(250e-6));
    doc["models"]["m"]["dynamic_batching"] = nullptr;
    CHECK_FALSE(load_model(doc).dynamic_batching);
  }
  SECTION("max_batch_size, instances and bytes") {
    const Model m =
        load_model(scenario_with("batching.pbtxt", {{"max_batch_size", 512},
                                                          {"instances", 3},
                                                          {"input_bytes_per_item", "1kB"},
                                                          {"output_bytes_per_item", 8}}));
    CHECK(m.max_batch_size == 512);
    CHECK(m.instances == 3);
    CHECK(m.instance_kind == "KIND_GPU");  // still read, for information
    CHECK(m.input_bytes_per_item == 1000);
    CHECK(m.output_bytes_per_item == 8);
  }
  SECTION("a smaller max_batch_size must come with its own preferred sizes") {
    auto doc = scenario_with("batching.pbtxt", {{"max_batch_size", 100}});
    expect_problem(doc, "models.m.max_batch_size",
                      {"128", "batching.pbtxt", "preferred_batch_size"});
    doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {50, 100}}};
    CHECK(load_model(doc).max_batch_size == 100);
  }
  SECTION("--set works on top of a config") {
    const fs::path dir =
        fs::temp_directory_path() / ("sonicsim-triton-" + std::to_string(getpid()));
    fs::create_directories(dir);
    fs::copy_file(kTriton + "/batching.pbtxt", dir / "model.pbtxt",
                  fs::copy_options::overwrite_existing);
    auto doc = scenario_with("model.pbtxt", {{"dynamic_batching", json::object()}});
    std::ofstream(dir / "s.json") << doc.dump();
    const Scenario s = load_file((dir / "s.json").string(),
                                 {parse_override("models.m.dynamic_batching.max_queue_delay=500us"),
                                  parse_override("models.m.instances=4")});
    CHECK(s.models[0].dynamic_batching->max_queue_delay == Approx(500e-6));
    CHECK(s.models[0].dynamic_batching->preferred_batch_size == std::vector<int>{64, 128});
    CHECK(s.models[0].instances == 4);
    fs::remove_all(dir);
  }
}

TEST_CASE("the queue policy and priority levels are read", "[triton]") {
  Model m = load_model(scenario_with("queue_policy.pbtxt"));
  REQUIRE(m.dynamic_batching);
  const auto& db = *m.dynamic_batching;
  CHECK(db.preferred_batch_size == std::vector<int>{16});
  CHECK(db.max_queue_delay == Approx(500e-6));
  CHECK(db.priority_levels == 3);
  CHECK(db.default_priority_level == 2);
  // default_queue_policy, for the levels without their own.
  CHECK(db.queue_policy.timeout_action == QueuePolicy::TimeoutAction::Reject);
  CHECK(db.queue_policy.default_timeout == Approx(0.1));
  CHECK(db.queue_policy.max_queue_size == 64);
  // The default level 2 has its own policy; levels 1 and 3 get the default one.
  REQUIRE(db.priority_queue_policy.size() == 1);
  const QueuePolicy& two = db.policy_of(2);
  CHECK(two.timeout_action == QueuePolicy::TimeoutAction::Delay);
  CHECK(two.default_timeout == Approx(0.02));
  CHECK(two.max_queue_size == 10);
  CHECK(two.allow_timeout_override);
  CHECK(db.policy_of(1).max_queue_size == 64);
  CHECK(db.policy_of(3).max_queue_size == 64);
  // A request without a priority, or with one outside [1, 3], waits at level 2, as in Triton.
  CHECK(db.level_of(0) == 2);
  CHECK(db.level_of(1) == 1);
  CHECK(db.level_of(3) == 3);
  CHECK(db.level_of(4) == 2);

  // The scenario's own keys override the config's default policy, not the levels' own.
  m = load_model(scenario_with(
      "queue_policy.pbtxt",
      {{"dynamic_batching", {{"timeout_action", "DELAY"}, {"max_queue_size", 0}}}}));
  CHECK(m.dynamic_batching->queue_policy.timeout_action == QueuePolicy::TimeoutAction::Delay);
  CHECK(m.dynamic_batching->queue_policy.max_queue_size == 0);
  CHECK(m.dynamic_batching->queue_policy.default_timeout == Approx(0.1));
  CHECK(m.dynamic_batching->policy_of(2).max_queue_size == 10);
}

TEST_CASE("instance groups map to instances per device", "[triton]") {
  Model m = load_model(scenario_with("instance_groups.pbtxt"));
  CHECK(m.instances == 2);  // 2 on GPU 0, 2 on GPU 1; the passive group takes no requests
  CHECK(m.instance_kind == "KIND_GPU");
  m = load_model(scenario_with("instance_groups_cpu.pbtxt"));
  CHECK(m.instances == 4);  // host groups add up; an absent count is 1
  CHECK(m.instance_kind == "KIND_CPU+KIND_MODEL");

  expect_problem(
      scenario_with("instance_groups_uneven.pbtxt"), "models.m.instances",
      {"instance_groups_uneven.pbtxt", "2 instances to GPU 0 but 1 to GPU 1", "set `instances`"});
  expect_problem(scenario_with("instance_groups_mixed.pbtxt"), "models.m.instances",
                    {"instance_groups_mixed.pbtxt", "KIND_CPU", "own pool"});
  // The scenario can say what to simulate instead.
  CHECK(load_model(scenario_with("instance_groups_uneven.pbtxt", {{"instances", 1}}))
            .instances == 1);
}

TEST_CASE("ensembles and sequence batching are refused with what to do instead", "[triton]") {
  expect_problem(scenario_with("ensemble.pbtxt"), "models.m.triton_config",
                    {"ensemble.pbtxt", "ensemble", "`preprocess`, `classifier`",
                     "each step as its own model", "calibrate the ensemble as a whole"});
  expect_problem(scenario_with("sequence.pbtxt"), "models.m.triton_config",
                    {"sequence.pbtxt", "line 5", "sequence_batching"});
}

TEST_CASE("unreadable configs are reported with the parser's line and column", "[triton]") {
  expect_problem(scenario_with("malformed.pbtxt"), "models.m.triton_config",
                    {"malformed.pbtxt", "line 5, column 46", "Expected \",\""});
  expect_problem(scenario_with("typo.pbtxt"), "models.m.triton_config",
                    {"typo.pbtxt", "line 6", "`max_queue_delay_microsecond`",
                     "did you mean `max_queue_delay_microseconds`?"});
  expect_problem(scenario_with("no/such/config.pbtxt"), "models.m.triton_config",
                    {"cannot read Triton config", "no/such/config.pbtxt"});
  expect_problem(scenario_with("."), "models.m.triton_config", {"folder", "config.pbtxt"});
  expect_problem(scenario_with(42), "models.m.triton_config", {"found 42"});
  // A broken config does not pile tensor problems on top.
  const auto problems = loader_problems(
      scenario_with("malformed.pbtxt", {{"inputs", {{{"name", "x"}, {"shape", {4}}}}}}));
  CHECK(problems.size() == 1);
}

TEST_CASE("a TYPE_STRING tensor needs its payload as bytes", "[triton]") {
  expect_problem(scenario_with("string_input.pbtxt"), "models.m.input_bytes_per_item",
                    {"`query`", "TYPE_STRING", "string_input.pbtxt"});
  CHECK(load_model(scenario_with("string_input.pbtxt", {{"input_bytes_per_item", 64}}))
            .input_bytes_per_item == 64);
}

TEST_CASE("the config is part of the scenario's identity", "[triton]") {
  const fs::path dir = fs::temp_directory_path() / ("sonicsim-triton-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string text = fixture_text(kTriton + "/batching.pbtxt");
  std::ofstream(dir / "config.pbtxt") << text;
  const json doc = scenario_with("config.pbtxt");
  const Scenario a = load_json(doc, "<test>", dir.string());
  REQUIRE(a.referenced_files.size() == 1);
  CHECK(a.referenced_files[0].path == "config.pbtxt");
  std::ofstream(dir / "config.pbtxt") << text << "\n# an edit\n";
  const Scenario b = load_json(doc, "<test>", dir.string());
  CHECK(a.canonical_json == b.canonical_json);
  CHECK(a.sha256 != b.sha256);
  fs::remove_all(dir);
}
