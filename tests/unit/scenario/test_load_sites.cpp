// The sites section (src/scenario/load_sites.cpp): sites, the WAN between them, routing across
// sites and placements, read with their units, and every refusal with its path. Routes and the
// apportioning of nodes (src/scenario/sites.cpp) are test_sites.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>
#include <sonicsim/scenario/sites.hpp>

#include "problems.hpp"

using nlohmann::json;
using test::dump;
using test::has_problem;
using namespace sonicsim::scenario;

namespace {

// Two grid sites and a GPU site, joined through a backbone router, plus a direct link.
json three_sites() {
  return json::parse(R"({
    "duration": "10min",
    "workloads": [
      {"name": "reco", "jobs": 10, "threads_per_job": 4, "cpu_time_per_event": "1s",
       "sites": {"purdue": 3, "mit": 1},
       "requests": [{"model": "pn", "offload_fraction": 0.1}]},
      {"name": "ana", "jobs": 2, "threads_per_job": 1, "cpu_time_per_event": "1s", "site": "fnal",
       "requests": [{"model": "pn", "offload_fraction": 0.5}]}
    ],
    "models": {"pn": {"input_bytes_per_item": "10kB", "output_bytes_per_item": "1kB",
                      "service_time": {"batch": [1], "seconds": [0.01]}}},
    "servers": [{"name": "gpus", "count": 4, "device": "T4", "models": ["pn"], "site": "fnal"}],
    "sites": [
      {"name": "purdue", "network": {"client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
                                     "site_uplink": {"bandwidth": "100Gbps", "latency": "1ms"}}},
      {"name": "mit", "network": {"site_uplink": {"bandwidth": "40Gbps"}},
       "egress_price_per_gb": 0.05},
      {"name": "fnal", "network": {"server_nic": {"bandwidth": "25Gbps", "latency": "50us"}}}
    ],
    "wan": {
      "routers": ["esnet"],
      "links": [
        {"between": ["purdue", "esnet"], "bandwidth": "100Gbps", "latency": "5ms"},
        {"between": ["mit", "esnet"], "bandwidth": "100Gbps", "latency": "8ms"},
        {"between": ["esnet", "fnal"], "bandwidth": "400Gbps", "latency": "2ms"},
        {"name": "direct", "between": ["mit", "fnal"], "bandwidth": "10Gbps", "latency": "25ms"}
      ]
    },
    "routing": {"policy": "local_first", "spill_over": {"queue_time": "20ms"}}
  })");
}

std::vector<Problem> site_problems(const json& doc) {
  try {
    load_json(doc, "sites.json");
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}

}  // namespace

TEST_CASE("a scenario with sites loads its sites, WAN, routing and placements", "[sites]") {
  const Scenario s = load_json(three_sites());
  REQUIRE(s.sites.size() == 3);
  CHECK(s.sites[0].name == "purdue");
  REQUIRE(s.sites[0].client_nic);
  CHECK(s.sites[0].client_nic->bandwidth == Approx(10e9 / 8));
  CHECK_FALSE(s.sites[0].server_nic);
  CHECK(s.sites[1].egress_price_per_gb == 0.05);
  CHECK_FALSE(s.sites[0].egress_price_per_gb);
  REQUIRE(s.wan.links.size() == 4);
  CHECK(s.wan.routers == std::vector<std::string>{"esnet"});
  CHECK(s.wan.links[0].name == "purdue-esnet");  // the default name: its two ends
  CHECK(s.wan.links[0].a == 0);
  CHECK(s.wan.links[0].b == 3);  // routers after the sites
  CHECK(s.wan.links[3].name == "direct");
  // purdue -> fnal through the backbone (7 ms); mit -> fnal too (10 ms beats 25 ms direct).
  CHECK(s.routes[0][2].links() == std::vector<std::size_t>{0, 2});
  CHECK(s.routes[1][2].links() == std::vector<std::size_t>{1, 2});
  CHECK(s.routes[1][2].latency == Approx(10e-3));
  CHECK(s.routing.policy == SiteRouting::Policy::LocalFirst);
  CHECK(s.routing.spill_queue_time == Approx(0.02));
  CHECK_FALSE(s.routing.spill_in_flight);
  // Shares are relative and listed in site order.
  REQUIRE(s.workloads[0].sites.size() == 2);
  CHECK(s.workloads[0].sites[0].site == 0);
  CHECK(s.workloads[0].sites[0].share == Approx(0.75));
  CHECK(s.workloads[0].sites[1].site == 1);
  CHECK(s.workloads[1].sites.size() == 1);
  CHECK(s.workloads[1].sites[0].site == 2);
  CHECK(s.servers[0].site == 2);
}

TEST_CASE("a scenario without sites is unchanged", "[sites]") {
  json doc = three_sites();
  for (const char* key : {"sites", "wan", "routing"}) doc.erase(key);
  doc["workloads"][0].erase("sites");
  doc["workloads"][1].erase("site");
  doc["servers"][0].erase("site");
  const Scenario s = load_json(doc);
  CHECK(s.sites.empty());
  CHECK(s.routes.empty());
  CHECK(s.workloads[0].sites.empty());
  CHECK(s.servers[0].site == 0);
}

TEST_CASE("routing policies and their keys", "[sites]") {
  json doc = three_sites();
  doc["routing"] = "least_latency";
  CHECK(load_json(doc).routing.policy == SiteRouting::Policy::LeastLatency);
  doc["routing"] = {{"policy", "weighted"}, {"weights", {{"fnal", 2}, {"mit", 0}}}};
  auto s = load_json(doc);
  CHECK(s.routing.weights == std::vector<double>{0, 0, 2});
  doc["routing"] = {{"policy", "pinned"}, {"site", "fnal"}};
  CHECK(load_json(doc).routing.pinned == 2);
  doc["workloads"][1]["routing"] = {{"policy", "local_first"}, {"spill_over", {{"in_flight", 8}}}};
  s = load_json(doc);
  REQUIRE(s.workloads[1].routing);
  CHECK(s.workloads[1].routing->spill_in_flight == 8);
  CHECK_FALSE(s.workloads[0].routing);
}

// clang-format off
TEST_CASE("bad sites are refused with their paths", "[sites][bad]") {
  struct Case {
    const char* name;
    std::function<void(json&)> edit;
    std::string path;
    std::vector<std::string> fragments;
  };
  const std::vector<Case> cases = {
      {"unknown site of a workload", [](json& d) { d["workloads"][1]["site"] = "fnl"; },
       "workloads[1].site", {"found \"fnl\"", "expected the name of a site", "did you mean `fnal`?"}},
      {"unknown site in shares", [](json& d) { d["workloads"][0]["sites"] = {{"purdu", 1}}; },
       "workloads[0].sites.purdu", {"did you mean `purdue`?"}},
      {"share of zero", [](json& d) { d["workloads"][0]["sites"]["mit"] = 0; },
       "workloads[0].sites.mit", {"found 0", "a share > 0"}},
      {"site and sites", [](json& d) { d["workloads"][0]["site"] = "mit"; },
       "workloads[0].sites", {"both `site` and `sites`"}},
      {"a workload without a site", [](json& d) { d["workloads"][1].erase("site"); },
       "workloads[1].site", {"missing", "purdue, mit, fnal"}},
      {"a pool without a site", [](json& d) { d["servers"][0].erase("site"); },
       "servers[0].site", {"missing"}},
      {"unknown site of a pool", [](json& d) { d["servers"][0]["site"] = "cern"; },
       "servers[0].site", {"found \"cern\""}},
      {"duplicate site", [](json& d) { d["sites"][1]["name"] = "purdue"; },
       "sites[1].name", {"found \"purdue\" again", "sites[0]"}},
      {"site without a name", [](json& d) { d["sites"][1].erase("name"); },
       "sites[1].name", {"missing"}},
      {"wan inside a site", [](json& d) { d["sites"][0]["network"]["wan"] = {{"bandwidth", "1Gbps"}}; },
       "sites[0].network.wan", {"top-level `wan`"}},
      {"link to an unknown point", [](json& d) { d["wan"]["links"][0]["between"][1] = "esnett"; },
       "wan.links[0].between[1]", {"expected a site or a router", "did you mean `esnet`?"}},
      {"link to itself", [](json& d) { d["wan"]["links"][0]["between"] = {"mit", "mit"}; },
       "wan.links[0].between", {"at both ends"}},
      {"link with one end", [](json& d) { d["wan"]["links"][0]["between"] = {"mit"}; },
       "wan.links[0].between", {"expected the two sites or routers"}},
      {"link without bandwidth", [](json& d) { d["wan"]["links"][0].erase("bandwidth"); },
       "wan.links[0].bandwidth", {"missing"}},
      {"two links of one name", [](json& d) { d["wan"]["links"][1]["name"] = "direct"; },
       "wan.links[3].name", {"second WAN link named \"direct\""}},
      {"router named like a site", [](json& d) { d["wan"]["routers"] = {"mit"}; },
       "wan.routers[0]", {"found \"mit\" again"}},
      {"a disconnected WAN", [](json& d) { d["wan"]["links"] = json::array({d["wan"]["links"][3]}); },
       "wan", {"no route from site \"purdue\"", "connect every site"}},
      {"wan without sites", [](json& d) { d.erase("sites"); },
       "wan", {"without top-level `sites`"}},
      {"site of a workload without sites", [](json& d) { d.erase("sites"); d.erase("wan"); d.erase("routing"); d["workloads"][0].erase("sites"); d["servers"][0].erase("site"); },
       "workloads[1].site", {"without top-level `sites`"}},
      {"links in network with sites", [](json& d) { d["network"] = {{"wan", {{"bandwidth", "1Gbps"}}}}; },
       "network.wan", {"sites[i].network", "`wan`"}},
      {"unknown policy", [](json& d) { d["routing"] = "nearest"; },
       "routing", {"found \"nearest\"", "local_first"}},
      {"spill_over with another policy", [](json& d) { d["routing"] = {{"policy", "least_latency"}, {"spill_over", {{"in_flight", 3}}}}; },
       "routing.spill_over", {"only with \"local_first\""}},
      {"weights all zero", [](json& d) { d["routing"] = {{"policy", "weighted"}, {"weights", {{"fnal", 0}}}}; },
       "routing.weights", {"all 0"}},
      {"pinned without a site", [](json& d) { d["routing"] = {{"policy", "pinned"}}; },
       "routing.site", {"missing"}},
      {"pinned to a site without the model", [](json& d) { d["routing"] = {{"policy", "pinned"}, {"site", "mit"}}; },
       "workloads[0].requests[0].model", {"hosted at fnal", "never chooses"}},
      {"weights that leave out every host", [](json& d) { d["workloads"][1]["routing"] = {{"policy", "weighted"}, {"weights", {{"mit", 1}}}}; },
       "workloads[1].requests[0].model", {"workloads[1].routing", "never chooses"}},
  };
  for (const Case& c : cases) {
    json doc = three_sites();
    c.edit(doc);
    const auto problems = site_problems(doc);
    INFO("case: " << c.name << "\nproblems:\n" << dump(problems));
    CHECK(has_problem(problems, c.path, c.fragments));
  }
}
// clang-format on

TEST_CASE("a site without a valid name is never named by a placeholder in a message",
          "[sites][bad]") {
  // Issue 35: the loader keeps a placeholder name ("\x01" + index) for a site whose name was
  // refused, and it leaked into the lists and routes the other messages print.
  json doc = three_sites();
  doc["sites"][1]["name"] = 7;  // MIT's name refused: the WAN link to "mit" then names nothing
  const auto problems = site_problems(doc);
  INFO(dump(problems));
  CHECK(has_problem(problems, "sites[1].name", {"found 7"}));
  CHECK(has_problem(problems, "wan.links[1].between[0]",
                    {"found \"mit\", expected a site or a router (purdue, fnal, esnet)"}));
  CHECK(has_problem(problems, "workloads[0].sites.mit",
                    {"expected the name of a site in `sites` (purdue, fnal)"}));
  for (const auto& p : problems)
    for (char c : p.path + p.message) CHECK(static_cast<unsigned char>(c) >= 0x20);
}

TEST_CASE("overrides (--set) reach the keys of sites, the WAN and the routing",
          "[sites][override]") {
  const auto file = std::filesystem::temp_directory_path() /
                    ("sonicsim-sites-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << three_sites().dump();
  const Scenario s = load_file(
      file.string(),
      {parse_override("sites.0.network.site_uplink.bandwidth=\"1Gbps\""),
       parse_override("wan.links.3.latency=\"1ms\""), parse_override("routing=\"least_latency\""),
       parse_override("servers.0.site=\"mit\""), parse_override("workloads.1.site=\"mit\"")});
  std::filesystem::remove(file);
  CHECK(s.sites[0].site_uplink->bandwidth == Approx(1e9 / 8));
  CHECK(s.wan.links[3].spec.latency == Approx(1e-3));
  // The direct link is now the shorter way from mit to fnal.
  CHECK(s.routes[1][2].links() == std::vector<std::size_t>{3});
  CHECK(s.routing.policy == SiteRouting::Policy::LeastLatency);
  CHECK(s.servers[0].site == 1);
  CHECK(s.workloads[1].sites[0].site == 1);
}
