// The models section (src/scenario/load_models.cpp): payloads in bytes or as tensors, batching
// limits, instances, dynamic_batching and its queue policy, read with their units; bad models
// refused with the JSON path, what was found and what is expected.
#include <nlohmann/json.hpp>

#include "problems.hpp"
#include "support.hpp"

using namespace test;

TEST_CASE("models: payloads, tensors, batching limits and instances are read with their units",
          "[loader][models]") {
  auto doc = deterministic(2, 1);
  doc["models"]["m"] = {{"input_bytes_per_item", "9.8kB"},
                        {"outputs",
                         {{{"name", "y"}, {"shape", {2, 3}}, {"dtype", "FP16"}},
                          {{"name", "mask"}, {"shape", {5}}, {"dtype", "TYPE_BOOL"}}}},
                        {"service_time", {{"batch", {1, 16}}, {"seconds", {"1ms", "4ms"}}}},
                        {"max_batch_size", 16},
                        {"instances", 2},
                        {"dynamic_batching",
                         {{"preferred_batch_size", {16, 4, 8, 4}}, {"max_queue_delay", "100us"}}}};
  const auto s = scenario_of(doc);
  const auto& m = *s.find_model("m");
  CHECK(m.input_bytes_per_item == 9800.0);          // decimal kilobytes
  CHECK(m.output_bytes_per_item == 2 * 3 * 2 + 5);  // FP16 and BOOL tensors summed per item
  REQUIRE(m.outputs.size() == 2);
  CHECK(m.outputs[0].name == "y");
  CHECK(m.max_batch_size == 16);
  CHECK(m.instances == 2);
  REQUIRE(m.dynamic_batching);
  // Ascending, each once, as the batcher looks them up.
  CHECK(m.dynamic_batching->preferred_batch_size == std::vector<int>{4, 8, 16});
  CHECK(m.dynamic_batching->max_queue_delay == Approx(1e-4));

  // Without the keys: no limit, one instance, no dynamic batching.
  const auto plain = *scenario_of(deterministic(2, 1)).find_model("m");
  CHECK(plain.max_batch_size == 0);
  CHECK(plain.instances == 1);
  CHECK_FALSE(plain.dynamic_batching);
}

TEST_CASE("models: bad payloads, instances and preferred sizes name the key and the range",
          "[loader][models]") {
  auto doc = deterministic(2, 1);
  doc["models"]["m"]["inputs"] = {{{"name", "x"}, {"shape", {4}}, {"dtype", "FP32"}}};
  auto problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "models.m.inputs",
                    {"found both `input_bytes_per_item` and `inputs`, expected only one of them"}));

  doc = deterministic(2, 1);
  doc["models"]["m"]["instances"] = 0;
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(
      has_problem(problems, "models.m.instances",
                  {"found 0, expected an integer in [1, ", "(concurrent executions per device)"}));

  doc = deterministic(2, 1);
  doc["models"]["m"]["max_batch_size"] = 8;
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {4, 16}}};
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "models.m.dynamic_batching.preferred_batch_size[1]",
                    {"found 16, expected a preferred batch size <= max_batch_size 8"}));

  doc = deterministic(2, 1);
  doc["models"]["m"]["input_bytes_per_item"] = "10 parsecs";
  problems = problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "models.m.input_bytes_per_item", {"found \"10 parsecs\""}));
}

TEST_CASE("the scenario's queue policy keys", "[loader][queue]") {
  auto doc = queued_run(1, 1.0,
                        {{"max_queue_size", 100},
                         {"default_timeout_microseconds", 2500},
                         {"timeout_action", "DELAY"}},
                        10.0);
  auto policy = scenario_of(doc).models[0].dynamic_batching->queue_policy;
  CHECK(policy.max_queue_size == 100);
  CHECK(policy.default_timeout == Approx(2.5e-3));
  CHECK(policy.timeout_action == sonicsim::scenario::QueuePolicy::TimeoutAction::Delay);

  doc["models"]["m"]["dynamic_batching"] = json::object();
  policy = scenario_of(doc).models[0].dynamic_batching->queue_policy;
  CHECK(policy.max_queue_size == 0);
  CHECK(policy.default_timeout == 0.0);
  CHECK(policy.timeout_action == sonicsim::scenario::QueuePolicy::TimeoutAction::Reject);

  const auto problem = [&](const json& batching) {
    doc["models"]["m"]["dynamic_batching"] = batching;
    try {
      scenario_of(doc);
    } catch (const sonicsim::scenario::InputError& e) {
      REQUIRE(e.problems().size() == 1);
      return e.problems()[0].path + ": " + e.problems()[0].message;
    }
    return std::string("no problem");
  };
  CHECK_THAT(problem({{"timeout_action", "DROP"}}),
             Catch::Contains("models.m.dynamic_batching.timeout_action") &&
                 Catch::Contains("\"DROP\"") && Catch::Contains("\"DELAY\""));
  CHECK_THAT(problem({{"default_timeout", "1s"}, {"default_timeout_microseconds", 5}}),
             Catch::Contains("models.m.dynamic_batching.default_timeout_microseconds") &&
                 Catch::Contains("both"));
  CHECK_THAT(problem({{"max_queue_size", -1}}),
             Catch::Contains("models.m.dynamic_batching.max_queue_size") && Catch::Contains("-1"));
  CHECK_THAT(
      problem({{"default_timeout", "-2ms"}}),
      Catch::Contains("models.m.dynamic_batching.default_timeout") && Catch::Contains("\"-2ms\""));
  CHECK_THAT(problem({{"max_queue_sise", 3}}), Catch::Contains("did you mean `max_queue_size`"));
}
