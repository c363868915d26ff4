// The faults section's one table of kinds (src/scenario/load_faults.cpp): the schema editors use
// lists the same kinds and keys, and a key of another kind is refused by name.
#include <fstream>

#include <sonicsim/scenario/fault_kinds.hpp>

#include "support.hpp"

using namespace test;

TEST_CASE("faults: the schema lists every fault kind of the loader's table, with its keys",
          "[loader][faults]") {
  std::ifstream in(std::string(SONICSIM_SOURCE_DIR) + "/docs/scenario.schema.json");
  REQUIRE(in);
  const json schema = json::parse(in);
  // The fault object: the definition whose `kind` enum holds "crash".
  const json* fault = nullptr;
  for (const auto& [name, def] : schema["$defs"].items())
    if (def.contains("properties") && def["properties"].contains("kind") &&
        def["properties"]["kind"].contains("enum") &&
        def["properties"]["kind"]["enum"].front() == "crash")
      fault = &def;
  REQUIRE(fault != nullptr);
  std::vector<std::string> names, keys{"kind"};
  for (const auto& k : sonicsim::scenario::fault_kinds()) {
    names.emplace_back(k.name);
    for (std::string_view key : k.keys)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.emplace_back(key);
  }
  CHECK((*fault)["properties"]["kind"]["enum"].get<std::vector<std::string>>() == names);
  std::vector<std::string> in_schema;
  for (const auto& [key, value] : (*fault)["properties"].items()) in_schema.push_back(key);
  std::sort(in_schema.begin(), in_schema.end());
  std::sort(keys.begin(), keys.end());
  CHECK(in_schema == keys);
}

TEST_CASE("faults: a key of another kind is refused by name, with the kind's own keys",
          "[loader][faults]") {
  auto doc = deterministic(4, 1);
  doc["faults"] = json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 1.0}, {"mtbf", 5.0}}});
  CHECK_THAT(load_error(doc), Catch::Contains("faults[0].mtbf") &&
                                  Catch::Contains("does not apply to a crash fault") &&
                                  Catch::Contains("(keys: kind, pool, device, at, for)"));
  doc["faults"] = json::array({{{"pool", "gpu"}}});
  CHECK_THAT(load_error(doc),
             Catch::Contains("faults[0].kind") && Catch::Contains("\"random_preemption\""));
}
