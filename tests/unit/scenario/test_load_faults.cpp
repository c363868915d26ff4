// The faults section (src/scenario/load_faults.cpp): every kind read with its defaults and units,
// its one table of kinds (the schema editors use lists the same kinds and keys, a key of another
// kind is refused by name), and a catalogue of bad faults checked for the JSON path and wording.
#include <cmath>
#include <fstream>

#include <sonicsim/scenario/fault_kinds.hpp>

#include "operations_support.hpp"
#include "schema_support.hpp"
#include "support.hpp"

using namespace test;
using namespace sonicsim::scenario;

TEST_CASE("faults: the schema lists every fault kind of the loader's table, with its keys",
          "[loader][faults]") {
  const json schema = scenario_schema();
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

TEST_CASE("faults: every kind with defaults and explicit values", "[loader]") {
  json d = ops_base();
  d["faults"] = json::parse(R"([
    {"kind": "crash", "pool": "spare", "at": "10min"},
    {"kind": "crash", "pool": "gpu", "device": 3, "at": 60, "for": "5min"},
    {"kind": "random_crashes", "pool": "gpu", "mtbf": "2h", "mttr": "10min"},
    {"kind": "link", "link": "site_uplink", "at": "20min", "duration": "1min"},
    {"kind": "link", "link": "client_nic", "at": 0, "duration": 30, "bandwidth_factor": 0.25},
    {"kind": "preemption", "at": "30min", "jobs": 10},
    {"kind": "preemption", "at": "40min", "jobs": 3, "restart_after": "2min"},
    {"kind": "random_preemption", "mtbf": "6h", "restart_after": "1min"}
  ])");
  const Faults f = ops_load(d).faults;
  REQUIRE(f.crashes.size() == 2);
  CHECK(f.crashes[0].pool == 1);
  CHECK(f.crashes[0].device == -1);
  CHECK(f.crashes[0].at == 600.0);
  CHECK(std::isinf(f.crashes[0].down_for));
  CHECK(f.crashes[1].pool == 0);
  CHECK(f.crashes[1].device == 3);
  CHECK(f.crashes[1].at == 60.0);
  CHECK(f.crashes[1].down_for == 300.0);
  REQUIRE(f.random_crashes.size() == 1);
  CHECK(f.random_crashes[0].pool == 0);
  CHECK(f.random_crashes[0].mtbf == 7200.0);
  CHECK(f.random_crashes[0].mttr == 600.0);
  REQUIRE(f.links.size() == 2);
  CHECK(f.links[0].link == sonicsim::scenario::LinkClass::SiteUplink);
  CHECK(f.links[0].at == 1200.0);
  CHECK(f.links[0].duration == 60.0);
  CHECK(f.links[0].bandwidth_factor == 0.0);
  CHECK(f.links[1].link == sonicsim::scenario::LinkClass::ClientNic);
  CHECK(f.links[1].bandwidth_factor == 0.25);
  REQUIRE(f.preemptions.size() == 2);
  CHECK(f.preemptions[0].at == 1800.0);
  CHECK(f.preemptions[0].jobs == 10);
  CHECK(f.preemptions[0].restart_after == 0.0);
  CHECK(f.preemptions[1].jobs == 3);
  CHECK(f.preemptions[1].restart_after == 120.0);
  REQUIRE(f.random_preemption);
  CHECK(f.random_preemption->mtbf == 21600.0);
  CHECK(f.random_preemption->restart_after == 60.0);
  CHECK_FALSE(f.empty());

  json e = ops_base();
  e["faults"] = json::array();
  CHECK(ops_load(e).faults.empty());
}

// clang-format off
TEST_CASE("bad operations input: faults", "[loader][bad]") {
  ops_run_catalogue({
      {"faults not an array", ops_with_faults({{"kind", "crash"}}),
       "faults", {"found an object", "expected an array of faults"}},
      {"fault not an object", ops_with_faults(json::array({"crash"})),
       "faults[0]", {"found \"crash\"", "expected a fault object"}},
      {"fault without kind", ops_with_faults(json::parse(R"([{"pool": "gpu", "at": 1}])")),
       "faults[0].kind", {"missing", "\"crash\", \"random_crashes\", \"link\", \"preemption\", \"random_preemption\""}},
      {"unknown kind", ops_with_faults(json::parse(R"([{"kind": "crahs", "pool": "gpu", "at": 1}])")),
       "faults[0].kind", {"found \"crahs\"", "expected one of \"crash\"", "did you mean `crash`?"}},
      {"crash of an unknown pool", ops_with_faults(json::parse(R"([{"kind": "crash", "pool": "gpus", "at": 1}])")),
       "faults[0].pool", {"found \"gpus\"", "name of a pool in `servers`", "defined: gpu, spare", "did you mean `gpu`?"}},
      {"crash without pool", ops_with_faults(json::parse(R"([{"kind": "crash", "at": 1}])")),
       "faults[0].pool", {"missing", "name of a pool"}},
      {"crash without at", ops_with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu"}])")),
       "faults[0].at", {"missing", "a time >= 0"}},
      {"crash for 0", ops_with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu", "at": 1, "for": 0}])")),
       "faults[0].for", {"found 0", "a time > 0"}},
      {"crash with a key of another kind", ops_with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu", "at": 1, "mtbf": "1h"}])")),
       "faults[0].mtbf", {"does not apply to a crash fault", "keys: kind, pool, device, at, for"}},
      {"random_crashes without mttr", ops_with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": "1h"}])")),
       "faults[0].mttr", {"missing", "mean time to repair"}},
      {"two random_crashes for one pool", ops_with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": "1h", "mttr": 1}, {"kind": "random_crashes", "pool": "gpu", "mtbf": "2h", "mttr": 1}])")),
       "faults[1].pool", {"second \"random_crashes\" for pool `gpu`", "at most one per pool"}},
      {"random_crashes mtbf 0", ops_with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": 0, "mttr": 1}])")),
       "faults[0].mtbf", {"found 0", "a time > 0"}},
      {"link absent from the network", ops_with_faults(json::parse(R"([{"kind": "link", "link": "wan", "at": 1, "duration": 1}])")),
       "faults[0].link", {"found \"wan\"", "network has no `wan` link", "it has: client_nic, site_uplink"}},
      {"unknown link class", ops_with_faults(json::parse(R"([{"kind": "link", "link": "uplink", "at": 1, "duration": 1}])")),
       "faults[0].link", {"found \"uplink\"", "\"client_nic\", \"site_uplink\", \"wan\", \"server_nic\""}},
      {"link without duration", ops_with_faults(json::parse(R"([{"kind": "link", "link": "client_nic", "at": 1}])")),
       "faults[0].duration", {"missing", "a time > 0"}},
      {"bandwidth_factor 1", ops_with_faults(json::parse(R"([{"kind": "link", "link": "client_nic", "at": 1, "duration": 1, "bandwidth_factor": 1}])")),
       "faults[0].bandwidth_factor", {"found 1", "in [0, 1)"}},
      {"preemption of more jobs than exist", ops_with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 11}])")),
       "faults[0].jobs", {"found 11", "in [1, 10]", "at most the scenario's jobs"}},
      {"preemption without jobs", ops_with_faults(json::parse(R"([{"kind": "preemption", "at": 1}])")),
       "faults[0].jobs", {"missing", "an integer >= 1"}},
      {"preemption negative restart_after", ops_with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1, "restart_after": -5}])")),
       "faults[0].restart_after", {"found -5", "non-negative"}},
      {"preemption in an open loop", ops_edited([](json& d) { d["faults"] = json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1}])"); }, ops_open_loop),
       "faults[0].kind", {"found \"preemption\"", "open loop", "no client jobs to preempt"}},
      {"random_preemption in an open loop", ops_edited([](json& d) { d["faults"] = json::parse(R"([{"kind": "random_preemption", "mtbf": "1h"}])"); }, ops_open_loop),
       "faults[0].kind", {"found \"random_preemption\"", "no client jobs to preempt"}},
      {"two random_preemption entries", ops_with_faults(json::parse(R"([{"kind": "random_preemption", "mtbf": "1h"}, {"kind": "random_preemption", "mtbf": "2h"}])")),
       "faults[1].kind", {"second \"random_preemption\"", "the first is faults[0]", "at most one"}},
      {"random_preemption without mtbf", ops_with_faults(json::parse(R"([{"kind": "random_preemption"}])")),
       "faults[0].mtbf", {"missing", "a time > 0"}},
      {"unknown key of a preemption", ops_with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1, "job": 2}])")),
       "faults[0].job", {"unknown key `job`", "did you mean `jobs`?"}},
      {"bad fault from --set", ops_base, "faults[0].pool", {"found \"cpu\"", "(value from --set faults="},
       {R"(faults=[{"kind": "crash", "pool": "cpu", "at": 1}])"}},
      {"bad autoscaler value from --set with brackets", ops_with_autoscaler({{"threshold", 1}}),
       "servers[0].autoscaler.threshold", {"found \"abc\"", "(value from --set servers[0].autoscaler.threshold=abc)"},
       {"servers[0].autoscaler.threshold=abc"}},
      {"--set through an absent autoscaler", ops_base, "servers.0.autoscaler.threshold",
       {"`servers[0].autoscaler` does not exist", "set the whole object instead"},
       {"servers.0.autoscaler.threshold=20ms"}},
  });
}
// clang-format on

TEST_CASE("crash device index names the pool's size", "[loader][bad]") {
  json d = ops_base();
  d["faults"] = json::parse(R"([{"kind": "crash", "pool": "spare", "device": 2, "at": 1}])");
  const auto problems = ops_problems_of(d);
  INFO(dump(problems));
  CHECK(has_problem(problems, "faults[0].device",
                    {"found 2", "expected an integer in [0, 1]", "pool `spare`", "2 devices"}));
  REQUIRE(problems.size() == 1);  // the rest of the fault is fine
}
