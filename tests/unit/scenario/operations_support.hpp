// Helpers for the loader tests of the operations keys (servers, autoscalers, workload.client,
// faults, load_balancer, several workloads): a valid scenario to edit, and a catalogue of bad
// inputs checked for the JSON path and the message's wording. Shared by
// test_load_servers.cpp's neighbours (test_load_workload.cpp, test_load_faults.cpp,
// test_load_operations.cpp), which took their cases from it.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"

namespace test {

using nlohmann::json;

// A valid closed loop with two pools and two links; the cases are edits of it.
inline json ops_base() {
  return json::parse(R"({
    "name": "ops",
    "duration": "1h",
    "workload": {
      "jobs": 10,
      "threads_per_job": 2,
      "cpu_time_per_event": "1s",
      "requests": [{"model": "m", "offload_fraction": 0.1}]
    },
    "models": {"m": {"service_time": {"batch": [1], "seconds": ["10ms"]}}},
    "servers": [
      {"name": "gpu", "count": 4, "device": "T4", "models": ["m"]},
      {"name": "spare", "count": 2, "device": "T4", "models": ["m"]}
    ],
    "network": {
      "client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
      "site_uplink": {"bandwidth": "100Gbps", "latency": "1ms"}
    }
  })");
}

// ops_base() as an open loop.
inline json ops_open_loop() {
  json d = ops_base();
  json& w = d["workload"];
  w.erase("jobs");
  w.erase("threads_per_job");
  w.erase("cpu_time_per_event");
  w["arrivals"] = {{"rate", "100/s"}};
  return d;
}

inline std::vector<sonicsim::scenario::Problem> ops_problems_of(
    const json& doc, const std::vector<std::string>& sets = {}) {
  std::vector<sonicsim::scenario::Override> overrides;
  for (const auto& s : sets) overrides.push_back(sonicsim::scenario::parse_override(s));
  // load_json takes no overrides: go through a scenario file as the CLI does.
  try {
    if (sets.empty()) {
      sonicsim::scenario::load_json(doc, "<test>");
    } else {
      const std::string file = "/tmp/sonicsim-ops-" + std::to_string(::getpid()) + ".json";
      std::ofstream(file) << doc.dump();
      const auto problems = sonicsim::scenario::validate_file(file, overrides);
      std::remove(file.c_str());
      return problems;
    }
  } catch (const sonicsim::scenario::InputError& e) {
    return e.problems();
  }
  return {};
}

inline sonicsim::scenario::Scenario ops_load(const json& doc) {
  return sonicsim::scenario::load_json(doc, "<test>");
}

struct OpsBadCase {
  const char* name;
  std::function<json()> doc;
  std::string path;
  std::vector<std::string> fragments;
  std::vector<std::string> sets = {};
};

inline void ops_run_catalogue(const std::vector<OpsBadCase>& cases) {
  for (const OpsBadCase& c : cases) {
    const auto problems = ops_problems_of(c.doc(), c.sets);
    INFO("case: " << c.name << "\nproblems:\n" << dump(problems));
    CHECK(has_problem(problems, c.path, c.fragments));
  }
}

// ops_base() with `edit` applied.
inline std::function<json()> ops_edited(std::function<void(json&)> edit,
                                        std::function<json()> from = ops_base) {
  return [=] {
    json d = from();
    edit(d);
    return d;
  };
}

inline std::function<json()> ops_with_autoscaler(json a) {
  return ops_edited([a](json& d) { d["servers"][0]["autoscaler"] = a; });
}

inline std::function<json()> ops_with_faults(json f) {
  return ops_edited([f](json& d) { d["faults"] = f; });
}

// ops_base() with its workload as two named ones, "reco" and "analysis".
inline json ops_two_workloads() {
  json d = ops_base();
  json reco = d["workload"];
  reco["name"] = "reco";
  json analysis = reco;
  analysis["name"] = "analysis";
  analysis["jobs"] = 3;
  d.erase("workload");
  d["workloads"] = {reco, analysis};
  return d;
}

}  // namespace test
