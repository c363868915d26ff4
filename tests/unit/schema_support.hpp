// The hand-written scenario schema (docs/scenario.schema.json) as the tests that hold it to the
// code's tables read it: the whole document, and the object that describes a given section.
#pragma once

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace test {

inline nlohmann::json scenario_schema() {
  std::ifstream in(std::string(SONICSIM_SOURCE_DIR) + "/docs/scenario.schema.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// The first object (depth first) whose `properties` hold every one of `keys`: the schema of the
// section those keys belong to. nullptr when none does.
inline const nlohmann::json* schema_object_with(const nlohmann::json& node,
                                                const std::vector<std::string>& keys) {
  if (node.is_object()) {
    if (auto p = node.find("properties"); p != node.end() && p->is_object()) {
      bool all = true;
      for (const auto& k : keys) all = all && p->contains(k);
      if (all) return &node;
    }
    for (const auto& [key, child] : node.items())
      if (const auto* found = schema_object_with(child, keys)) return found;
  } else if (node.is_array()) {
    for (const auto& child : node)
      if (const auto* found = schema_object_with(child, keys)) return found;
  }
  return nullptr;
}

// The section's enum of the table's names (`key`, the default first) and each entry's integer
// keys (util::IntKey) with the loader's ranges and defaults, each described from its entry's name.
template <class Table>
void check_table_in_schema(const nlohmann::json& props, const std::string& key) {
  std::vector<std::string> names;
  for (std::string_view n : Table::names()) names.emplace_back(n);
  CHECK(props[key]["enum"].template get<std::vector<std::string>>() == names);
  CHECK(props[key]["default"] == names.front());
  Table::each([&]<class E>() {
    const typename E::Settings defaults{};
    for (const auto& k : E::keys) {
      INFO(E::name << "." << k.name);
      const std::string name(k.name);
      REQUIRE(props.contains(name));
      CHECK(props[name]["type"] == "integer");
      CHECK(props[name]["minimum"] == k.lo);
      CHECK(props[name]["maximum"] == k.hi);
      CHECK(props[name]["default"] == defaults.*k.field);
      CHECK_THAT(props[name]["description"].template get<std::string>(),
                 Catch::StartsWith(std::string(E::name)));
    }
  });
}

}  // namespace test
