// A pool's `attached` and `spill_over` keys (src/scenario/load_attached.cpp): GPUs inside the
// client nodes, one per node of the workload named, with the spill-over thresholds read with
// their units; keys an attached pool cannot take are refused with the JSON path, what was found
// and what is expected.
#include <functional>

#include "support.hpp"

using namespace test;

namespace {

// 8 nodes of `per_node` one-thread jobs; each node holds a device that serves m in 20 ms.
json la_scenario(int per_node) {
  json doc = deterministic(8 * per_node, 1, 0.1, 0.5, 0.02);
  doc["workload"]["jobs_per_node"] = per_node;
  doc["servers"] =
      json::array({{{"name", "local"}, {"attached", true}, {"device", "T4"}, {"models", {"m"}}}});
  return doc;
}

}  // namespace

TEST_CASE("attached: a pool holds one device per client node, its spill-over read with units",
          "[attached][loader]") {
  json doc = la_scenario(3);  // 24 jobs, 3 a node: 8 nodes
  doc["servers"][0]["spill_over"] = {{"queue_time", "15ms"}, {"in_flight", 4}};
  doc["servers"].push_back({{"name", "remote"}, {"count", 2}, {"device", "T4"}, {"models", {"m"}}});
  const auto s = scenario_of(doc);
  REQUIRE(s.servers.size() == 2);
  const auto& local = s.servers[0];
  CHECK(local.attached == std::optional<std::size_t>(0));
  CHECK(local.count == 8);  // the workload's nodes, not a key of the pool
  REQUIRE(local.spill_queue_time);
  CHECK(*local.spill_queue_time == Approx(0.015));
  REQUIRE(local.spill_in_flight);
  CHECK(*local.spill_in_flight == 4.0);
  // A remote pool beside it is not attached and keeps its count.
  CHECK_FALSE(s.servers[1].attached);
  CHECK(s.servers[1].count == 2);
  CHECK_FALSE(s.servers[1].spill_queue_time);

  // Without spill_over an attached pool never spills: no thresholds.
  const auto plain = scenario_of(la_scenario(2));
  CHECK(plain.servers[0].count == 8);
  CHECK_FALSE(plain.servers[0].spill_queue_time);
  CHECK_FALSE(plain.servers[0].spill_in_flight);
}

TEST_CASE("attached: an open loop or an unknown workload is refused with the path",
          "[attached][loader]") {
  json open = la_scenario(1);
  auto& w = open["workload"];
  w.erase("jobs");
  w.erase("threads_per_job");
  w.erase("jobs_per_node");
  w.erase("cpu_time_per_event");
  w["arrivals"] = {{"rate", "100/s"}};
  CHECK_THAT(load_error(open),
             Catch::Contains("servers[0].attached: found an open-loop workload (`arrivals`), "
                             "expected one with client nodes"));

  json named = la_scenario(1);
  named["workload"]["name"] = "reco";
  named["servers"][0]["attached"] = "analysis";
  CHECK_THAT(load_error(named), Catch::Contains("servers[0].attached: found \"analysis\", "
                                                "expected the name of a workload: reco"));
  named["servers"][0]["attached"] = "reco";
  CHECK(load_error(named).empty());
}

TEST_CASE("bad attached pools are refused with their paths", "[attached][loader]") {
  const auto error_of = [](const std::function<void(json&)>& edit) {
    json doc = la_scenario(2);
    edit(doc);
    return load_error(doc);
  };
  CHECK(error_of([](json&) {}).empty());
  CHECK(error_of([](json& d) { d["servers"][0]["count"] = 4; })
            .find("servers[0].count: found `count` on an attached pool, expected none: an "
                  "attached pool has one device per client node of its workload (8 nodes)") !=
        std::string::npos);
  CHECK(error_of([](json& d) { d["servers"][0]["attached"] = "reco"; })
            .find("servers[0].attached: found \"reco\", expected true (the scenario's one "
                  "workload)") != std::string::npos);
  CHECK(error_of([](json& d) {
          d["servers"][0]["attached"] = 3;
        }).find("servers[0].attached: found 3, expected true") != std::string::npos);
  CHECK(error_of([](json& d) {
          d["servers"][0].erase("attached");
          d["servers"][0]["spill_over"] = {{"in_flight", 1}};
        }).find("servers[0].spill_over: found `spill_over` on a pool that is not `attached`") !=
        std::string::npos);
  CHECK(error_of([](json& d) {
          d["servers"][0]["spill_over"] = {{"in_flight", -1}};
        }).find("servers[0].spill_over.in_flight") != std::string::npos);
  CHECK(error_of([](json& d) {
          d["servers"][0]["autoscaler"] = {{"min_replicas", 1}, {"max_replicas", 2}};
        }).find("servers[0].autoscaler: found `autoscaler` on an attached pool") !=
        std::string::npos);
  SECTION("several workloads: by name") {
    json doc = la_scenario(2);
    json w = doc["workload"];
    doc.erase("workload");
    json a = w, b = w;
    a["name"] = "reco";
    b["name"] = "ana";
    doc["workloads"] = {a, b};
    CHECK(load_error(doc).find("servers[0].attached: found true with 2 workloads, expected the "
                               "name of the workload whose nodes hold the devices") !=
          std::string::npos);
    doc["servers"][0]["attached"] = "ana";
    CHECK(load_error(doc).empty());
    const auto s = scenario_of(doc);
    CHECK(s.servers[0].attached == std::optional<std::size_t>(1));
    CHECK(s.servers[0].count == 8);
    // The other workload has no device to use: its requests of m run on its CPUs.
    const auto m = run(doc);
    CHECK(m.workloads[0].fallback > 0);
    CHECK(m.workloads[0].completed == 0);
    CHECK(m.workloads[0].failed == 0);
    CHECK(m.workloads[1].fallback == 0);
    check_conservation(m);
  }
}
