// Device memory and model placement in the loader (docs/servers.md, "Device memory and model
// loading"): a pool's models fit on its device up to the last byte and not one byte more; the
// refusal names the pool, each model's footprint, the sum and the device's memory.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"
#include "support.hpp"

using nlohmann::json;
using test::dump;
using test::has_problem;
using namespace sonicsim::scenario;

namespace {

// Two models on a pool of T4s: "a" 2 instances x (1000 B + 10 B x 8 items), "b" 1 x 500 B.
json memory_scenario(double device_bytes, const char* control = "none") {
  json doc = test::deterministic(2, 1);
  doc["devices"] = {{"T4", {{"memory", device_bytes}}}};
  doc["models"]["a"] = doc["models"]["m"];
  doc["models"]["a"]["instances"] = 2;
  doc["models"]["a"]["max_batch_size"] = 8;
  doc["models"]["a"]["memory"] = {{"weights", "1kB"}, {"per_item", 10}};
  doc["models"]["b"] = doc["models"]["m"];
  doc["models"]["b"]["memory"] = {{"weights", 500}};
  doc["servers"][0]["models"] = {"m", "a", "b"};
  doc["servers"][0]["model_control"] = control;
  return doc;
}

// a: 2 x (1000 + 10 x 8) = 2160 B; b: 500 B; m: none given, so none held.
constexpr double kMemorySum = 2160.0 + 500.0;

}  // namespace

TEST_CASE("memory: a pool whose models fit exactly is accepted, one byte more is refused",
          "[loader][memory]") {
  const auto s = test::scenario_of(memory_scenario(kMemorySum));
  CHECK(*s.find_device("T4")->memory == kMemorySum);
  CHECK(s.find_model("a")->memory_bytes() == 2160.0);
  CHECK(s.find_model("m")->memory_bytes() == 0.0);

  const auto problems = test::problems_of(memory_scenario(kMemorySum - 1.0));
  INFO(dump(problems));
  REQUIRE(problems.size() == 1);
  CHECK(has_problem(
      problems, "servers[0].models",
      {"pool \"gpu\"", "m 0 B (no memory given)", "a 2 x (1.00 kB + 10.0 B x 8) = 2.16 kB (2160 B)",
       "b 1 x (500 B) = 500 B (500 B)", "sum 2.66 kB (2660 B)", "T4 of 2.66 kB (2659 B)",
       "expected at most the device's memory"}));
}

TEST_CASE("memory: explicit control needs each model to fit alone, not all at once",
          "[loader][memory]") {
  // Both together need 2660 B; the larger alone 2160 B.
  CHECK(test::load_error(memory_scenario(2160.0, "explicit")).empty());
  const auto problems = test::problems_of(memory_scenario(2159.0, "explicit"));
  INFO(dump(problems));
  REQUIRE(problems.size() == 1);
  CHECK(has_problem(problems, "servers[0].models[1]",
                    {"pool \"gpu\"", "a 2 x (1.00 kB + 10.0 B x 8) = 2.16 kB (2160 B)",
                     "T4 of 2.16 kB (2159 B)", "even alone it does not fit"}));
}

TEST_CASE("memory: a device or model without memory limits nothing", "[loader][memory]") {
  auto doc = memory_scenario(1.0);
  doc["devices"]["T4"].erase("memory");
  CHECK(test::load_error(doc).empty());
  doc = memory_scenario(1.0);
  doc["servers"][0]["device"] = "A100";  // no entry in `devices`
  doc["models"]["m"]["service_time"] = {{"*", doc["models"]["m"]["service_time"]}};
  doc["models"]["a"]["service_time"] = doc["models"]["m"]["service_time"];
  doc["models"]["b"]["service_time"] = doc["models"]["m"]["service_time"];
  CHECK(test::load_error(doc).empty());
}

TEST_CASE("memory: bad values are refused with their path", "[loader][memory]") {
  auto doc = memory_scenario(kMemorySum);
  doc["models"]["a"].erase("max_batch_size");
  auto problems = test::problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "models.a.memory.per_item",
                    {"10.0 B", "without max_batch_size", "expected a max_batch_size"}));

  doc = memory_scenario(kMemorySum);
  doc["devices"]["T4"]["memory"] = "0GB";
  doc["models"]["b"]["memory"]["weights"] = "-1MB";
  doc["models"]["b"]["load_time"] = "-2s";
  doc["models"]["b"]["memory"]["bias"] = 1;
  doc["servers"][0]["model_control"] = "lazy";
  problems = test::problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "devices.T4.memory", {"found"}));
  CHECK(has_problem(problems, "models.b.memory.weights", {"-1MB"}));
  CHECK(has_problem(problems, "models.b.load_time", {"-2s"}));
  CHECK(has_problem(problems, "models.b.memory.bias", {"unknown key"}));
  CHECK(has_problem(problems, "servers[0].model_control", {"lazy", "\"explicit\""}));

  doc = memory_scenario(kMemorySum, "explicit");
  doc["servers"][0]["count"] = 4;
  doc["servers"][0]["host"] = {{"devices", 2}};
  problems = test::problems_of(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "servers[0].model_control",
                    {"2 devices per host", "expected host.devices 1"}));
}

TEST_CASE("memory: keys read with their units and defaults", "[loader][memory]") {
  auto doc = memory_scenario(kMemorySum);
  doc["devices"]["T4"]["memory"] = "16GB";
  doc["models"]["a"]["load_time"] = "8s";
  doc["servers"][0]["model_control"] = "explicit";
  const auto s = test::scenario_of(doc);
  CHECK(*s.find_device("T4")->memory == 16e9);
  CHECK(s.find_model("a")->load_time == 8.0);
  CHECK(s.find_model("b")->load_time == 0.0);
  CHECK(s.find_model("a")->memory->weights == 1000.0);
  CHECK(s.find_model("a")->memory->per_item == 10.0);
  CHECK(s.servers[0].model_control == ModelControl::Explicit);
  CHECK(test::scenario_of(test::deterministic(2, 1)).servers[0].model_control ==
        ModelControl::None);
}
