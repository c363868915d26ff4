// The servers section (src/scenario/load_servers.cpp): a pool's startup_delay, drain_timeout and
// autoscaler, with the operations keys' defaults and --set overrides, and a catalogue of bad
// inputs checked for the JSON path and the message's wording. workload.client, faults and
// load_balancer are in test_load_workload.cpp, test_load_faults.cpp and test_load_operations.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "operations_support.hpp"
#include "problems.hpp"

using nlohmann::json;
using namespace test;
using namespace sonicsim::scenario;

// ---------------------------------------------------------------------------------------------
// Valid scenarios

TEST_CASE("operations keys are absent: documented defaults", "[loader]") {
  const Scenario s = ops_load(ops_base());
  REQUIRE(s.servers.size() == 2);
  CHECK(s.servers[0].startup_delay == 0.0);
  CHECK(s.servers[0].drain_timeout == 30.0);
  CHECK_FALSE(s.servers[0].autoscaler);
  CHECK(s.workload().client.timeout == 0.0);
  CHECK(s.workload().client.allowed_tries == 1);
  CHECK(s.workload().client.retry_delay == 0.0);
  CHECK(std::holds_alternative<sonicsim::client_policies::None::Settings>(
      s.workload().client.fallback));
  CHECK(s.faults.empty());

  json d = ops_base();
  d["servers"][0]["autoscaler"] = nullptr;
  d["workload"]["client"] = nullptr;
  d["faults"] = nullptr;
  const Scenario n = ops_load(d);
  CHECK_FALSE(n.servers[0].autoscaler);
  CHECK(n.workload().client.allowed_tries == 1);
  CHECK(n.faults.empty());
}

TEST_CASE("servers: startup_delay and drain_timeout", "[loader]") {
  json d = ops_base();
  d["servers"][0]["startup_delay"] = "45s";
  d["servers"][0]["drain_timeout"] = "2min";
  d["servers"][1]["drain_timeout"] = 0;
  const Scenario s = ops_load(d);
  CHECK(s.servers[0].startup_delay == 45.0);
  CHECK(s.servers[0].drain_timeout == 120.0);
  CHECK(s.servers[1].startup_delay == 0.0);
  CHECK(s.servers[1].drain_timeout == 0.0);
}

TEST_CASE("autoscaler: defaults with only a threshold", "[loader]") {
  json d = ops_base();
  d["servers"][0]["autoscaler"] = {{"threshold", "20ms"}};
  const Scenario s = ops_load(d);
  REQUIRE(s.servers[0].autoscaler);
  const Autoscaler& a = *s.servers[0].autoscaler;
  CHECK(a.metric == Autoscaler::Metric::QueueTime);
  CHECK(a.threshold == Approx(0.02));
  CHECK(a.target == Autoscaler::Target::Value);
  CHECK(a.window == 30.0);
  CHECK(a.polling_interval == 30.0);
  CHECK(a.cooldown == 300.0);
  CHECK(a.tolerance == 0.1);
  CHECK(a.min_replicas == 1);
  CHECK(a.max_replicas == 4);  // the pool's count
  CHECK(a.initial_replicas == 1);
  CHECK(a.scale_up.stabilization_window == 0.0);
  CHECK(a.scale_up.step == 1);
  CHECK(a.scale_up.period == 15.0);
  CHECK(a.scale_down.stabilization_window == 300.0);
  CHECK(a.scale_down.step == 1);
  CHECK(a.scale_down.period == 15.0);
  CHECK_FALSE(s.servers[1].autoscaler);
}

// plan min-devices relies on it: `--set servers.0.autoscaler.max_replicas=null` lets the
// ceiling follow the count it varies (docs/plan.md, "Autoscaled pools").
TEST_CASE("autoscaler: null replica keys are their defaults", "[loader]") {
  json d = ops_base();
  d["servers"][0]["count"] = 6;
  d["servers"][0]["autoscaler"] = {{"threshold", "20ms"},
                                   {"min_replicas", nullptr},
                                   {"max_replicas", nullptr},
                                   {"initial_replicas", nullptr}};
  const Autoscaler a = *ops_load(d).servers[0].autoscaler;
  CHECK(a.min_replicas == 1);
  CHECK(a.max_replicas == 6);
  CHECK(a.initial_replicas == 1);
  d["servers"][0]["autoscaler"]["min_replicas"] = 7;  // still checked against the count
  CHECK_THROWS_WITH(ops_load(d), Catch::Contains("min_replicas") && Catch::Contains("at most"));
}

TEST_CASE("autoscaler: every key given", "[loader]") {
  json d = ops_base();
  d["servers"][0]["count"] = 10;
  d["servers"][0]["autoscaler"] = json::parse(R"({
    "metric": "utilization", "threshold": 0.75, "target": "average_value",
    "window": "1min", "polling_interval": "10s", "cooldown": 0, "tolerance": 0.2,
    "min_replicas": 2, "max_replicas": 8, "initial_replicas": 5,
    "scale_up": {"stabilization_window": "30s", "step": 4, "period": "1min"},
    "scale_down": {"stabilization_window": 0, "step": 2, "period": "5s"}
  })");
  const Scenario s = ops_load(d);
  REQUIRE(s.servers[0].autoscaler);
  const Autoscaler& a = *s.servers[0].autoscaler;
  CHECK(a.metric == Autoscaler::Metric::Utilization);
  CHECK(a.threshold == 0.75);
  CHECK(a.target == Autoscaler::Target::AverageValue);
  CHECK(a.window == 60.0);
  CHECK(a.polling_interval == 10.0);
  CHECK(a.cooldown == 0.0);
  CHECK(a.tolerance == 0.2);
  CHECK(a.min_replicas == 2);
  CHECK(a.max_replicas == 8);
  CHECK(a.initial_replicas == 5);
  CHECK(a.scale_up.stabilization_window == 30.0);
  CHECK(a.scale_up.step == 4);
  CHECK(a.scale_up.period == 60.0);
  CHECK(a.scale_down.stabilization_window == 0.0);
  CHECK(a.scale_down.step == 2);
  CHECK(a.scale_down.period == 5.0);
}

TEST_CASE("autoscaler: metrics, scale to zero, partial behaviours", "[loader]") {
  json d = ops_base();
  d["servers"][0]["autoscaler"] = {{"metric", "queue_length"},
                                   {"threshold", 12.5},
                                   {"min_replicas", 0},
                                   {"max_replicas", 3},
                                   {"scale_down", {{"step", 3}}}};
  d["servers"][1]["autoscaler"] = {{"metric", "queue_time"}, {"threshold", 0.005}};
  const Scenario s = ops_load(d);
  REQUIRE(s.servers[0].autoscaler);
  const Autoscaler& a = *s.servers[0].autoscaler;
  CHECK(a.metric == Autoscaler::Metric::QueueLength);
  CHECK(a.threshold == 12.5);
  CHECK(a.min_replicas == 0);
  CHECK(a.max_replicas == 3);
  CHECK(a.initial_replicas == 0);  // min_replicas
  CHECK(a.scale_down.step == 3);
  CHECK(a.scale_down.stabilization_window == 300.0);  // the direction's default kept
  CHECK(a.scale_down.period == 15.0);
  CHECK(a.scale_up.stabilization_window == 0.0);
  REQUIRE(s.servers[1].autoscaler);
  CHECK(s.servers[1].autoscaler->threshold == 0.005);
  CHECK(s.servers[1].autoscaler->max_replicas == 2);
}

TEST_CASE("operations keys through --set", "[loader][override]") {
  json d = ops_base();
  d["servers"][0]["autoscaler"] = {{"threshold", "50ms"}};
  const std::string file = "/tmp/sonicsim-ops-set-" + std::to_string(::getpid()) + ".json";
  std::ofstream(file) << d.dump();
  const auto load_with = [&](const std::vector<std::string>& sets) {
    std::vector<Override> o;
    for (const auto& s : sets) o.push_back(parse_override(s));
    return load_file(file, o);
  };
  // A whole object, a nested key (dotted or with brackets as problem paths spell it), an array.
  const Scenario a = load_with(
      {"servers.1.autoscaler={\"threshold\": \"20ms\"}", "servers.0.autoscaler.threshold=10ms",
       "servers[0].autoscaler.max_replicas=2", "servers[1].startup_delay=1min",
       "workload.client={\"allowed_tries\": 2}", "workload.client.fallback=cpu",
       R"(faults=[{"kind": "crash", "pool": "gpu", "at": "5min"}])"});
  REQUIRE(a.servers[0].autoscaler);
  CHECK(a.servers[0].autoscaler->threshold == Approx(0.01));
  CHECK(a.servers[0].autoscaler->max_replicas == 2);
  REQUIRE(a.servers[1].autoscaler);
  CHECK(a.servers[1].autoscaler->threshold == Approx(0.02));
  CHECK(a.servers[1].startup_delay == 60.0);
  CHECK(a.workload().client.allowed_tries == 2);
  CHECK(std::holds_alternative<sonicsim::client_policies::Cpu::Settings>(
      a.workload().client.fallback));
  REQUIRE(a.faults.crashes.size() == 1);
  CHECK(a.faults.crashes[0].at == 300.0);
  // The same scenario whether the override used brackets or dots.
  CHECK(load_with({"servers[0].count=3"}).sha256 == load_with({"servers.0.count=3"}).sha256);
  CHECK_FALSE(load_with({"servers.0.autoscaler=null"}).servers[0].autoscaler);
  std::remove(file.c_str());
}

// ---------------------------------------------------------------------------------------------
// Bad inputs: each must fail with a problem at `path` whose message contains every fragment.

// clang-format off
TEST_CASE("bad operations input: servers and autoscaler", "[loader][bad]") {
  ops_run_catalogue({
      {"negative startup_delay", ops_edited([](json& d) { d["servers"][0]["startup_delay"] = -1; }),
       "servers[0].startup_delay", {"found -1", "non-negative time"}},
      {"drain_timeout of wrong type", ops_edited([](json& d) { d["servers"][1]["drain_timeout"] = true; }),
       "servers[1].drain_timeout", {"found true", "expected a time"}},
      {"unknown server key", ops_edited([](json& d) { d["servers"][0]["startup_dealy"] = 1; }),
       "servers[0].startup_dealy", {"unknown key", "did you mean `startup_delay`?"}},
      {"autoscaler not an object", ops_edited([](json& d) { d["servers"][0]["autoscaler"] = "hpa"; }),
       "servers[0].autoscaler", {"found \"hpa\"", "expected an object", "or null"}},
      {"autoscaler without threshold", ops_with_autoscaler({{"metric", "utilization"}}),
       "servers[0].autoscaler.threshold", {"missing", "busy fraction in (0, 1]", "utilization"}},
      {"queue_time threshold 0", ops_with_autoscaler({{"threshold", 0}}),
       "servers[0].autoscaler.threshold", {"found 0", "a time from 1ns", "metric \"queue_time\""}},
      // Under the clock's resolution the threshold cannot be told from 0 (issue 35).
      {"queue_time threshold under 1 ns", ops_with_autoscaler({{"threshold", 0.999e-9}}),
       "servers[0].autoscaler.threshold", {"found 9.99e-10", "a time from 1ns"}},
      {"queue_time threshold past 1e9 s", ops_with_autoscaler({{"threshold", 1.001e9}}),
       "servers[0].autoscaler.threshold", {"at most 1e9 s", "a time from 1ns to 1e9 s"}},
      {"queue_time threshold with a bad unit", ops_with_autoscaler({{"threshold", "20 parsecs"}}),
       "servers[0].autoscaler.threshold", {"unknown unit \"parsecs\"", "metric \"queue_time\""}},
      {"utilization threshold above 1", ops_with_autoscaler({{"metric", "utilization"}, {"threshold", 80}}),
       "servers[0].autoscaler.threshold", {"found 80", "busy fraction in (0, 1]", "\"utilization\""}},
      {"utilization threshold as a time", ops_with_autoscaler({{"metric", "utilization"}, {"threshold", "20ms"}}),
       "servers[0].autoscaler.threshold", {"found \"20ms\"", "busy fraction"}},
      {"queue_length threshold 0", ops_with_autoscaler({{"metric", "queue_length"}, {"threshold", 0}}),
       "servers[0].autoscaler.threshold", {"found 0", "queued requests from 1e-06 to 1e+09", "\"queue_length\""}},
      {"queue_length threshold past 1e9", ops_with_autoscaler({{"metric", "queue_length"}, {"threshold", 1.001e9}}),
       "servers[0].autoscaler.threshold", {"found 1001000000", "to 1e+09"}},
      {"unknown metric", ops_with_autoscaler({{"metric", "latency"}, {"threshold", 1}}),
       "servers[0].autoscaler.metric", {"found \"latency\"", "\"queue_time\", \"utilization\", \"queue_length\""}},
      {"unknown target", ops_with_autoscaler({{"threshold", 1}, {"target", "average"}}),
       "servers[0].autoscaler.target", {"found \"average\"", "did you mean `average_value`?"}},
      {"zero polling interval", ops_with_autoscaler({{"threshold", 1}, {"polling_interval", 0}}),
       "servers[0].autoscaler.polling_interval", {"found 0", "a time > 0"}},
      {"zero window", ops_with_autoscaler({{"threshold", 1}, {"window", "0s"}}),
       "servers[0].autoscaler.window", {"found \"0s\"", "a time > 0"}},
      {"negative cooldown", ops_with_autoscaler({{"threshold", 1}, {"cooldown", "-1s"}}),
       "servers[0].autoscaler.cooldown", {"found \"-1s\"", "non-negative"}},
      {"tolerance 1", ops_with_autoscaler({{"threshold", 1}, {"tolerance", 1}}),
       "servers[0].autoscaler.tolerance", {"found 1", "in [0, 1)"}},
      {"max_replicas above count", ops_with_autoscaler({{"threshold", 1}, {"max_replicas", 12}}),
       "servers[0].autoscaler.max_replicas", {"found 12", "at most the pool's count 4", "raise count"}},
      {"max_replicas 0", ops_with_autoscaler({{"threshold", 1}, {"max_replicas", 0}}),
       "servers[0].autoscaler.max_replicas", {"found 0", "expected an integer in [1,"}},
      {"min_replicas above count", ops_with_autoscaler({{"threshold", 1}, {"min_replicas", 5}}),
       "servers[0].autoscaler.min_replicas", {"found 5", "at most the pool's count 4"}},
      {"negative min_replicas", ops_with_autoscaler({{"threshold", 1}, {"min_replicas", -1}}),
       "servers[0].autoscaler.min_replicas", {"found -1", "expected an integer in [0,"}},
      {"min_replicas above max_replicas", ops_with_autoscaler({{"threshold", 1}, {"min_replicas", 3}, {"max_replicas", 2}}),
       "servers[0].autoscaler.min_replicas", {"min_replicas 3 above max_replicas 2", "min_replicas <= max_replicas"}},
      {"initial_replicas below min", ops_with_autoscaler({{"threshold", 1}, {"min_replicas", 2}, {"initial_replicas", 1}}),
       "servers[0].autoscaler.initial_replicas", {"found 1", "in [2, 4]", "between min_replicas and max_replicas"}},
      {"initial_replicas below min next to a bad max", ops_with_autoscaler({{"threshold", 1}, {"min_replicas", 2}, {"max_replicas", 9}, {"initial_replicas", 1}}),
       "servers[0].autoscaler.initial_replicas", {"found 1", "expected an integer in [2, "}},
      {"initial_replicas above max", ops_with_autoscaler({{"threshold", 1}, {"max_replicas", 2}, {"initial_replicas", 3}}),
       "servers[0].autoscaler.initial_replicas", {"found 3", "in [1, 2]"}},
      {"scale_up step 0", ops_with_autoscaler({{"threshold", 1}, {"scale_up", {{"step", 0}}}}),
       "servers[0].autoscaler.scale_up.step", {"found 0", "expected an integer in [1,"}},
      {"scale_down period 0", ops_with_autoscaler({{"threshold", 1}, {"scale_down", {{"period", 0}}}}),
       "servers[0].autoscaler.scale_down.period", {"found 0", "a time > 0"}},
      {"scale_down not an object", ops_with_autoscaler({{"threshold", 1}, {"scale_down", 3}}),
       "servers[0].autoscaler.scale_down", {"found 3", "expected an object"}},
      {"unknown behaviour key", ops_with_autoscaler({{"threshold", 1}, {"scale_up", {{"stabilisation_window", 0}}}}),
       "servers[0].autoscaler.scale_up.stabilisation_window", {"unknown key", "did you mean `stabilization_window`?"}},
      {"unknown autoscaler key", ops_with_autoscaler({{"threshold", 1}, {"maxReplicas", 3}}),
       "servers[0].autoscaler.maxReplicas", {"unknown key", "max_replicas"}},
  });
}

// clang-format on

TEST_CASE("one bad autoscaler does not hide the other problems", "[loader][bad]") {
  json d = ops_base();
  d["servers"][0]["autoscaler"] = {{"threshold", -1}, {"max_replicas", 9}};
  d["workload"]["client"] = {{"allowed_tries", 0}};
  d["faults"] = json::parse(R"([{"kind": "crash", "pool": "nope", "at": 1}])");
  const auto problems = ops_problems_of(d);
  INFO(dump(problems));
  CHECK(problems.size() == 4);
  CHECK(has_problem(problems, "servers[0].autoscaler.threshold", {"found -1"}));
  CHECK(has_problem(problems, "servers[0].autoscaler.max_replicas", {"found 9"}));
  CHECK(has_problem(problems, "workload.client.allowed_tries", {"found 0"}));
  CHECK(has_problem(problems, "faults[0].pool", {"found \"nope\""}));
}
