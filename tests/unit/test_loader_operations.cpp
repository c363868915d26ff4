// Scenario loading of the site-operations keys: servers[i].startup_delay, drain_timeout and
// autoscaler, workload.client and the top-level faults. Defaults, explicit values, --set
// overrides, and a catalogue of bad inputs checked for the JSON path and the message's wording.
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

#include "problems.hpp"

using nlohmann::json;
using test::dump;
using test::has_problem;
using namespace sonicsim::scenario;

namespace {

// A valid closed loop with two pools and two links; the cases below are edits of it.
json base() {
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

// base() as an open loop.
json open_loop() {
  json d = base();
  json& w = d["workload"];
  w.erase("jobs");
  w.erase("threads_per_job");
  w.erase("cpu_time_per_event");
  w["arrivals"] = {{"rate", "100/s"}};
  return d;
}

std::vector<Problem> problems_of(const json& doc, const std::vector<std::string>& sets = {}) {
  std::vector<Override> overrides;
  for (const auto& s : sets) overrides.push_back(parse_override(s));
  // load_json takes no overrides: go through a scenario file as the CLI does.
  try {
    if (sets.empty()) {
      load_json(doc, "<test>");
    } else {
      const std::string file = "/tmp/sonicsim-ops-" + std::to_string(::getpid()) + ".json";
      std::ofstream(file) << doc.dump();
      const auto problems = validate_file(file, overrides);
      std::remove(file.c_str());
      return problems;
    }
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}

Scenario load(const json& doc) {
  return load_json(doc, "<test>");
}

struct BadCase {
  const char* name;
  std::function<json()> doc;
  std::string path;
  std::vector<std::string> fragments;
  std::vector<std::string> sets = {};
};

void run_catalogue(const std::vector<BadCase>& cases) {
  for (const BadCase& c : cases) {
    const auto problems = problems_of(c.doc(), c.sets);
    INFO("case: " << c.name << "\nproblems:\n" << dump(problems));
    CHECK(has_problem(problems, c.path, c.fragments));
  }
}

// base() with `edit` applied.
std::function<json()> edited(std::function<void(json&)> edit, std::function<json()> from = base) {
  return [=] {
    json d = from();
    edit(d);
    return d;
  };
}

std::function<json()> with_autoscaler(json a) {
  return edited([a](json& d) { d["servers"][0]["autoscaler"] = a; });
}

std::function<json()> with_faults(json f) {
  return edited([f](json& d) { d["faults"] = f; });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Valid scenarios

TEST_CASE("operations keys are absent: documented defaults", "[loader]") {
  const Scenario s = load(base());
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

  json d = base();
  d["servers"][0]["autoscaler"] = nullptr;
  d["workload"]["client"] = nullptr;
  d["faults"] = nullptr;
  const Scenario n = load(d);
  CHECK_FALSE(n.servers[0].autoscaler);
  CHECK(n.workload().client.allowed_tries == 1);
  CHECK(n.faults.empty());
}

TEST_CASE("servers: startup_delay and drain_timeout", "[loader]") {
  json d = base();
  d["servers"][0]["startup_delay"] = "45s";
  d["servers"][0]["drain_timeout"] = "2min";
  d["servers"][1]["drain_timeout"] = 0;
  const Scenario s = load(d);
  CHECK(s.servers[0].startup_delay == 45.0);
  CHECK(s.servers[0].drain_timeout == 120.0);
  CHECK(s.servers[1].startup_delay == 0.0);
  CHECK(s.servers[1].drain_timeout == 0.0);
}

TEST_CASE("autoscaler: defaults with only a threshold", "[loader]") {
  json d = base();
  d["servers"][0]["autoscaler"] = {{"threshold", "20ms"}};
  const Scenario s = load(d);
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

TEST_CASE("autoscaler: every key given", "[loader]") {
  json d = base();
  d["servers"][0]["count"] = 10;
  d["servers"][0]["autoscaler"] = json::parse(R"({
    "metric": "utilization", "threshold": 0.75, "target": "average_value",
    "window": "1min", "polling_interval": "10s", "cooldown": 0, "tolerance": 0.2,
    "min_replicas": 2, "max_replicas": 8, "initial_replicas": 5,
    "scale_up": {"stabilization_window": "30s", "step": 4, "period": "1min"},
    "scale_down": {"stabilization_window": 0, "step": 2, "period": "5s"}
  })");
  const Scenario s = load(d);
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
  json d = base();
  d["servers"][0]["autoscaler"] = {{"metric", "queue_length"},
                                   {"threshold", 12.5},
                                   {"min_replicas", 0},
                                   {"max_replicas", 3},
                                   {"scale_down", {{"step", 3}}}};
  d["servers"][1]["autoscaler"] = {{"metric", "queue_time"}, {"threshold", 0.005}};
  const Scenario s = load(d);
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

TEST_CASE("workload.client: defaults and explicit values", "[loader]") {
  json d = base();
  d["workload"]["client"] = json::object();
  CHECK(load(d).workload().client.allowed_tries == 1);
  d["workload"]["client"] = {
      {"timeout", "2s"}, {"allowed_tries", 3}, {"retry_delay", "100ms"}, {"fallback", "cpu"}};
  const ClientPolicy c = load(d).workload().client;
  CHECK(c.timeout == 2.0);
  CHECK(c.allowed_tries == 3);
  CHECK(c.retry_delay == Approx(0.1));
  CHECK(std::holds_alternative<sonicsim::client_policies::Cpu::Settings>(c.fallback));

  // An open loop takes timeouts and retries, with no fallback.
  json o = open_loop();
  o["workload"]["client"] = {{"timeout", "500ms"}, {"allowed_tries", 2}, {"fallback", "none"}};
  const Scenario s = load(o);
  CHECK(s.workload().open_loop());
  CHECK(s.workload().client.timeout == 0.5);
  CHECK(s.workload().client.allowed_tries == 2);
  CHECK(std::holds_alternative<sonicsim::client_policies::None::Settings>(
      s.workload().client.fallback));
}

TEST_CASE("faults: every kind with defaults and explicit values", "[loader]") {
  json d = base();
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
  const Faults f = load(d).faults;
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

  json e = base();
  e["faults"] = json::array();
  CHECK(load(e).faults.empty());
}

TEST_CASE("operations keys through --set", "[loader][override]") {
  json d = base();
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
  run_catalogue({
      {"negative startup_delay", edited([](json& d) { d["servers"][0]["startup_delay"] = -1; }),
       "servers[0].startup_delay", {"found -1", "non-negative time"}},
      {"drain_timeout of wrong type", edited([](json& d) { d["servers"][1]["drain_timeout"] = true; }),
       "servers[1].drain_timeout", {"found true", "expected a time"}},
      {"unknown server key", edited([](json& d) { d["servers"][0]["startup_dealy"] = 1; }),
       "servers[0].startup_dealy", {"unknown key", "did you mean `startup_delay`?"}},
      {"autoscaler not an object", edited([](json& d) { d["servers"][0]["autoscaler"] = "hpa"; }),
       "servers[0].autoscaler", {"found \"hpa\"", "expected an object", "or null"}},
      {"autoscaler without threshold", with_autoscaler({{"metric", "utilization"}}),
       "servers[0].autoscaler.threshold", {"missing", "busy fraction in (0, 1]", "utilization"}},
      {"queue_time threshold 0", with_autoscaler({{"threshold", 0}}),
       "servers[0].autoscaler.threshold", {"found 0", "a time from 1ns", "metric \"queue_time\""}},
      // Under the clock's resolution the threshold cannot be told from 0 (issue 35).
      {"queue_time threshold under 1 ns", with_autoscaler({{"threshold", 0.999e-9}}),
       "servers[0].autoscaler.threshold", {"found 9.99e-10", "a time from 1ns"}},
      {"queue_time threshold past 1e9 s", with_autoscaler({{"threshold", 1.001e9}}),
       "servers[0].autoscaler.threshold", {"at most 1e9 s", "a time from 1ns to 1e9 s"}},
      {"queue_time threshold with a bad unit", with_autoscaler({{"threshold", "20 parsecs"}}),
       "servers[0].autoscaler.threshold", {"unknown unit \"parsecs\"", "metric \"queue_time\""}},
      {"utilization threshold above 1", with_autoscaler({{"metric", "utilization"}, {"threshold", 80}}),
       "servers[0].autoscaler.threshold", {"found 80", "busy fraction in (0, 1]", "\"utilization\""}},
      {"utilization threshold as a time", with_autoscaler({{"metric", "utilization"}, {"threshold", "20ms"}}),
       "servers[0].autoscaler.threshold", {"found \"20ms\"", "busy fraction"}},
      {"queue_length threshold 0", with_autoscaler({{"metric", "queue_length"}, {"threshold", 0}}),
       "servers[0].autoscaler.threshold", {"found 0", "queued requests from 1e-06 to 1e+09", "\"queue_length\""}},
      {"queue_length threshold past 1e9", with_autoscaler({{"metric", "queue_length"}, {"threshold", 1.001e9}}),
       "servers[0].autoscaler.threshold", {"found 1001000000", "to 1e+09"}},
      {"unknown metric", with_autoscaler({{"metric", "latency"}, {"threshold", 1}}),
       "servers[0].autoscaler.metric", {"found \"latency\"", "\"queue_time\", \"utilization\", \"queue_length\""}},
      {"unknown target", with_autoscaler({{"threshold", 1}, {"target", "average"}}),
       "servers[0].autoscaler.target", {"found \"average\"", "did you mean `average_value`?"}},
      {"zero polling interval", with_autoscaler({{"threshold", 1}, {"polling_interval", 0}}),
       "servers[0].autoscaler.polling_interval", {"found 0", "a time > 0"}},
      {"zero window", with_autoscaler({{"threshold", 1}, {"window", "0s"}}),
       "servers[0].autoscaler.window", {"found \"0s\"", "a time > 0"}},
      {"negative cooldown", with_autoscaler({{"threshold", 1}, {"cooldown", "-1s"}}),
       "servers[0].autoscaler.cooldown", {"found \"-1s\"", "non-negative"}},
      {"tolerance 1", with_autoscaler({{"threshold", 1}, {"tolerance", 1}}),
       "servers[0].autoscaler.tolerance", {"found 1", "in [0, 1)"}},
      {"max_replicas above count", with_autoscaler({{"threshold", 1}, {"max_replicas", 12}}),
       "servers[0].autoscaler.max_replicas", {"found 12", "at most the pool's count 4", "raise count"}},
      {"max_replicas 0", with_autoscaler({{"threshold", 1}, {"max_replicas", 0}}),
       "servers[0].autoscaler.max_replicas", {"found 0", "expected an integer in [1,"}},
      {"min_replicas above count", with_autoscaler({{"threshold", 1}, {"min_replicas", 5}}),
       "servers[0].autoscaler.min_replicas", {"found 5", "at most the pool's count 4"}},
      {"negative min_replicas", with_autoscaler({{"threshold", 1}, {"min_replicas", -1}}),
       "servers[0].autoscaler.min_replicas", {"found -1", "expected an integer in [0,"}},
      {"min_replicas above max_replicas", with_autoscaler({{"threshold", 1}, {"min_replicas", 3}, {"max_replicas", 2}}),
       "servers[0].autoscaler.min_replicas", {"min_replicas 3 above max_replicas 2", "min_replicas <= max_replicas"}},
      {"initial_replicas below min", with_autoscaler({{"threshold", 1}, {"min_replicas", 2}, {"initial_replicas", 1}}),
       "servers[0].autoscaler.initial_replicas", {"found 1", "in [2, 4]", "between min_replicas and max_replicas"}},
      {"initial_replicas below min next to a bad max", with_autoscaler({{"threshold", 1}, {"min_replicas", 2}, {"max_replicas", 9}, {"initial_replicas", 1}}),
       "servers[0].autoscaler.initial_replicas", {"found 1", "expected an integer in [2, "}},
      {"initial_replicas above max", with_autoscaler({{"threshold", 1}, {"max_replicas", 2}, {"initial_replicas", 3}}),
       "servers[0].autoscaler.initial_replicas", {"found 3", "in [1, 2]"}},
      {"scale_up step 0", with_autoscaler({{"threshold", 1}, {"scale_up", {{"step", 0}}}}),
       "servers[0].autoscaler.scale_up.step", {"found 0", "expected an integer in [1,"}},
      {"scale_down period 0", with_autoscaler({{"threshold", 1}, {"scale_down", {{"period", 0}}}}),
       "servers[0].autoscaler.scale_down.period", {"found 0", "a time > 0"}},
      {"scale_down not an object", with_autoscaler({{"threshold", 1}, {"scale_down", 3}}),
       "servers[0].autoscaler.scale_down", {"found 3", "expected an object"}},
      {"unknown behaviour key", with_autoscaler({{"threshold", 1}, {"scale_up", {{"stabilisation_window", 0}}}}),
       "servers[0].autoscaler.scale_up.stabilisation_window", {"unknown key", "did you mean `stabilization_window`?"}},
      {"unknown autoscaler key", with_autoscaler({{"threshold", 1}, {"maxReplicas", 3}}),
       "servers[0].autoscaler.maxReplicas", {"unknown key", "max_replicas"}},
  });
}

TEST_CASE("bad operations input: workload.client", "[loader][bad]") {
  run_catalogue({
      {"client not an object", edited([](json& d) { d["workload"]["client"] = 3; }),
       "workload.client", {"found 3", "expected an object"}},
      {"allowed_tries 0", edited([](json& d) { d["workload"]["client"] = {{"allowed_tries", 0}}; }),
       "workload.client.allowed_tries", {"found 0", "expected an integer in [1, 100]"}},
      {"allowed_tries 101", edited([](json& d) { d["workload"]["client"] = {{"allowed_tries", 101}}; }),
       "workload.client.allowed_tries", {"found 101", "in [1, 100]"}},
      {"negative timeout", edited([](json& d) { d["workload"]["client"] = {{"timeout", "-1s"}}; }),
       "workload.client.timeout", {"found \"-1s\"", "non-negative time"}},
      {"retry_delay with a size unit", edited([](json& d) { d["workload"]["client"] = {{"retry_delay", "1MB"}}; }),
       "workload.client.retry_delay", {"found \"1MB\"", "expected a time"}},
      {"unknown fallback", edited([](json& d) { d["workload"]["client"] = {{"fallback", "gpu"}}; }),
       "workload.client.fallback", {"found \"gpu\"", "\"none\", \"cpu\""}},
      {"cpu fallback in an open loop", edited([](json& d) { d["workload"]["client"] = {{"fallback", "cpu"}}; }, open_loop),
       "workload.client.fallback", {"found \"cpu\"", "expected \"none\"", "no client CPU to fall back on"}},
      {"unknown client key", edited([](json& d) { d["workload"]["client"] = {{"retries", 3}}; }),
       "workload.client.retries", {"unknown key `retries`"}},
      {"client at the top level", edited([](json& d) { d["client"] = json::object(); }),
       "client", {"belongs inside `workload`"}},
  });
}

TEST_CASE("bad operations input: faults", "[loader][bad]") {
  run_catalogue({
      {"faults not an array", with_faults({{"kind", "crash"}}),
       "faults", {"found an object", "expected an array of faults"}},
      {"fault not an object", with_faults(json::array({"crash"})),
       "faults[0]", {"found \"crash\"", "expected a fault object"}},
      {"fault without kind", with_faults(json::parse(R"([{"pool": "gpu", "at": 1}])")),
       "faults[0].kind", {"missing", "\"crash\", \"random_crashes\", \"link\", \"preemption\", \"random_preemption\""}},
      {"unknown kind", with_faults(json::parse(R"([{"kind": "crahs", "pool": "gpu", "at": 1}])")),
       "faults[0].kind", {"found \"crahs\"", "expected one of \"crash\"", "did you mean `crash`?"}},
      {"crash of an unknown pool", with_faults(json::parse(R"([{"kind": "crash", "pool": "gpus", "at": 1}])")),
       "faults[0].pool", {"found \"gpus\"", "name of a pool in `servers`", "defined: gpu, spare", "did you mean `gpu`?"}},
      {"crash without pool", with_faults(json::parse(R"([{"kind": "crash", "at": 1}])")),
       "faults[0].pool", {"missing", "name of a pool"}},
      {"crash without at", with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu"}])")),
       "faults[0].at", {"missing", "a time >= 0"}},
      {"crash for 0", with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu", "at": 1, "for": 0}])")),
       "faults[0].for", {"found 0", "a time > 0"}},
      {"crash with a key of another kind", with_faults(json::parse(R"([{"kind": "crash", "pool": "gpu", "at": 1, "mtbf": "1h"}])")),
       "faults[0].mtbf", {"does not apply to a crash fault", "keys: kind, pool, device, at, for"}},
      {"random_crashes without mttr", with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": "1h"}])")),
       "faults[0].mttr", {"missing", "mean time to repair"}},
      {"two random_crashes for one pool", with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": "1h", "mttr": 1}, {"kind": "random_crashes", "pool": "gpu", "mtbf": "2h", "mttr": 1}])")),
       "faults[1].pool", {"second \"random_crashes\" for pool `gpu`", "at most one per pool"}},
      {"random_crashes mtbf 0", with_faults(json::parse(R"([{"kind": "random_crashes", "pool": "gpu", "mtbf": 0, "mttr": 1}])")),
       "faults[0].mtbf", {"found 0", "a time > 0"}},
      {"link absent from the network", with_faults(json::parse(R"([{"kind": "link", "link": "wan", "at": 1, "duration": 1}])")),
       "faults[0].link", {"found \"wan\"", "network has no `wan` link", "it has: client_nic, site_uplink"}},
      {"unknown link class", with_faults(json::parse(R"([{"kind": "link", "link": "uplink", "at": 1, "duration": 1}])")),
       "faults[0].link", {"found \"uplink\"", "\"client_nic\", \"site_uplink\", \"wan\", \"server_nic\""}},
      {"link without duration", with_faults(json::parse(R"([{"kind": "link", "link": "client_nic", "at": 1}])")),
       "faults[0].duration", {"missing", "a time > 0"}},
      {"bandwidth_factor 1", with_faults(json::parse(R"([{"kind": "link", "link": "client_nic", "at": 1, "duration": 1, "bandwidth_factor": 1}])")),
       "faults[0].bandwidth_factor", {"found 1", "in [0, 1)"}},
      {"preemption of more jobs than exist", with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 11}])")),
       "faults[0].jobs", {"found 11", "in [1, 10]", "at most the scenario's jobs"}},
      {"preemption without jobs", with_faults(json::parse(R"([{"kind": "preemption", "at": 1}])")),
       "faults[0].jobs", {"missing", "an integer >= 1"}},
      {"preemption negative restart_after", with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1, "restart_after": -5}])")),
       "faults[0].restart_after", {"found -5", "non-negative"}},
      {"preemption in an open loop", edited([](json& d) { d["faults"] = json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1}])"); }, open_loop),
       "faults[0].kind", {"found \"preemption\"", "open loop", "no client jobs to preempt"}},
      {"random_preemption in an open loop", edited([](json& d) { d["faults"] = json::parse(R"([{"kind": "random_preemption", "mtbf": "1h"}])"); }, open_loop),
       "faults[0].kind", {"found \"random_preemption\"", "no client jobs to preempt"}},
      {"two random_preemption entries", with_faults(json::parse(R"([{"kind": "random_preemption", "mtbf": "1h"}, {"kind": "random_preemption", "mtbf": "2h"}])")),
       "faults[1].kind", {"second \"random_preemption\"", "the first is faults[0]", "at most one"}},
      {"random_preemption without mtbf", with_faults(json::parse(R"([{"kind": "random_preemption"}])")),
       "faults[0].mtbf", {"missing", "a time > 0"}},
      {"unknown key of a preemption", with_faults(json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 1, "job": 2}])")),
       "faults[0].job", {"unknown key `job`", "did you mean `jobs`?"}},
      {"bad fault from --set", base, "faults[0].pool", {"found \"cpu\"", "(value from --set faults="},
       {R"(faults=[{"kind": "crash", "pool": "cpu", "at": 1}])"}},
      {"bad autoscaler value from --set with brackets", with_autoscaler({{"threshold", 1}}),
       "servers[0].autoscaler.threshold", {"found \"abc\"", "(value from --set servers[0].autoscaler.threshold=abc)"},
       {"servers[0].autoscaler.threshold=abc"}},
      {"--set through an absent autoscaler", base, "servers.0.autoscaler.threshold",
       {"`servers[0].autoscaler` does not exist", "set the whole object instead"},
       {"servers.0.autoscaler.threshold=20ms"}},
  });
}
// clang-format on

TEST_CASE("crash device index names the pool's size", "[loader][bad]") {
  json d = base();
  d["faults"] = json::parse(R"([{"kind": "crash", "pool": "spare", "device": 2, "at": 1}])");
  const auto problems = problems_of(d);
  INFO(dump(problems));
  CHECK(has_problem(problems, "faults[0].device",
                    {"found 2", "expected an integer in [0, 1]", "pool `spare`", "2 devices"}));
  REQUIRE(problems.size() == 1);  // the rest of the fault is fine
}

TEST_CASE("one bad autoscaler does not hide the other problems", "[loader][bad]") {
  json d = base();
  d["servers"][0]["autoscaler"] = {{"threshold", -1}, {"max_replicas", 9}};
  d["workload"]["client"] = {{"allowed_tries", 0}};
  d["faults"] = json::parse(R"([{"kind": "crash", "pool": "nope", "at": 1}])");
  const auto problems = problems_of(d);
  INFO(dump(problems));
  CHECK(problems.size() == 4);
  CHECK(has_problem(problems, "servers[0].autoscaler.threshold", {"found -1"}));
  CHECK(has_problem(problems, "servers[0].autoscaler.max_replicas", {"found 9"}));
  CHECK(has_problem(problems, "workload.client.allowed_tries", {"found 0"}));
  CHECK(has_problem(problems, "faults[0].pool", {"found \"nope\""}));
}

TEST_CASE("load_balancer.admission is parsed and refused where it cannot apply", "[loader]") {
  json d = with_autoscaler({{"threshold", "20ms"}})();
  d["load_balancer"] = {
      {"admission",
       {{"rate", 2}, {"burst", 10}, {"refuse_above_threshold", true}, {"retry_after", "1min"}}}};
  const auto s = load_json(d, "<test>");
  REQUIRE(s.load_balancer.admission);
  CHECK(s.load_balancer.admission->rate == 2.0);
  CHECK(s.load_balancer.admission->burst == 10.0);
  CHECK(s.load_balancer.admission->above_threshold);
  CHECK(s.load_balancer.admission->retry_after == 60.0);

  json none = base();
  none["load_balancer"] = {{"admission", json::object()}};
  auto problems = problems_of(none);
  CHECK(has_problem(problems, "load_balancer.admission",
                    {"found neither a token bucket", "expected at least one"}));

  json no_scaler = base();
  no_scaler["load_balancer"] = {{"admission", {{"refuse_above_threshold", true}}}};
  problems = problems_of(no_scaler);
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above_threshold",
                    {"found true with no autoscaled pool"}));

  json small = base();
  small["load_balancer"] = {{"admission", {{"rate", 1}, {"burst", 0.5}}}};
  problems = problems_of(small);
  CHECK(has_problem(problems, "load_balancer.admission.burst", {"found 0.5", "a number >= 1"}));

  // Envoy's timer bucket and the Lua filter's query (SuperSONIC's two limiters).
  json timer = base();
  timer["load_balancer"] = {{"admission",
                             {{"fill_interval", "12s"},
                              {"tokens_per_fill", 3},
                              {"burst", 5},
                              {"refuse_above", {{"threshold", "100ms"}}},
                              {"reconnect", false}}}};
  const auto t = load_json(timer, "<test>");
  CHECK(t.load_balancer.admission->fill_interval == 12.0);
  CHECK(t.load_balancer.admission->tokens_per_fill == 3.0);
  CHECK(!t.load_balancer.admission->reconnect);
  REQUIRE(t.load_balancer.admission->refuse_above);
  CHECK(t.load_balancer.admission->refuse_above->threshold == Approx(0.1));
  CHECK(t.load_balancer.admission->refuse_above->window == 30.0);
  CHECK(t.load_balancer.admission->refuse_above->scrape_interval == 5.0);

  json both = base();
  both["load_balancer"] = {{"admission", {{"rate", 1}, {"fill_interval", "12s"}}}};
  CHECK(has_problem(problems_of(both), "load_balancer.admission.fill_interval",
                    {"found both rate and fill_interval"}));
  json lone = base();
  lone["load_balancer"] = {{"admission", {{"rate", 1}, {"tokens_per_fill", 2}}}};
  CHECK(has_problem(problems_of(lone), "load_balancer.admission.tokens_per_fill",
                    {"without fill_interval"}));
  json gate = base();
  gate["load_balancer"] = {
      {"admission", {{"refuse_above", {{"window", "30s"}, {"scrape_interval", "0.1ms"}}}}}};
  problems = problems_of(gate);
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above.threshold", {"missing"}));
  CHECK(has_problem(problems, "load_balancer.admission.refuse_above.scrape_interval",
                    {"found \"0.1ms\""}));

  json typo = base();
  typo["load_balancer"] = {{"admission", {{"rate", 1}, {"retry", "1min"}}}};
  problems = problems_of(typo);
  CHECK(has_problem(problems, "load_balancer.admission.retry", {"unknown key `retry`"}));
}

TEST_CASE("load_balancer.capacity is parsed and needs a cost", "[loader]") {
  json d = base();
  d["load_balancer"] = {
      {"capacity", {{"per_message", "20us"}, {"workers", 4}, {"bandwidth", "25Gbps"}}}};
  const auto s = load_json(d, "<test>");
  REQUIRE(s.load_balancer.capacity);
  CHECK(s.load_balancer.capacity->per_message == Approx(20e-6));
  CHECK(s.load_balancer.capacity->workers == 4);
  CHECK(s.load_balancer.capacity->bandwidth == Approx(25e9 / 8));

  json none = base();
  none["load_balancer"] = {{"capacity", {{"workers", 2}}}};
  auto problems = problems_of(none);
  CHECK(has_problem(problems, "load_balancer.capacity",
                    {"found neither per_message nor bandwidth", "expected at least one"}));

  json zero = base();
  zero["load_balancer"] = {{"capacity", {{"per_message", "1ms"}, {"workers", 0}}}};
  problems = problems_of(zero);
  CHECK(has_problem(problems, "load_balancer.capacity.workers", {"found 0"}));
}

// ---- several workloads and priorities ---------------------------------------------------------

namespace {

// base() with its workload as two named ones, "reco" and "analysis".
json two_workloads() {
  json d = base();
  json reco = d["workload"];
  reco["name"] = "reco";
  json analysis = reco;
  analysis["name"] = "analysis";
  analysis["jobs"] = 3;
  d.erase("workload");
  d["workloads"] = {reco, analysis};
  return d;
}

}  // namespace

TEST_CASE("workloads: several named ones, their priorities and totals", "[loader][workloads]") {
  json d = two_workloads();
  d["workloads"][0]["priority"] = 1;
  d["models"]["m"]["dynamic_batching"] = {
      {"priority_levels", 2},
      {"default_priority_level", 2},
      {"max_queue_size", 100},
      {"priority_queue_policy",
       {{"1", {{"default_timeout", "50ms"}, {"timeout_action", "DELAY"}}}}}};
  const Scenario s = load(d);
  REQUIRE(s.workloads.size() == 2);
  CHECK(s.workloads[0].name == "reco");
  CHECK(s.workloads[0].priority == 1);
  CHECK(s.workloads[1].priority == 0);
  CHECK(s.total_jobs() == 13);
  CHECK(s.total_threads() == 26);
  CHECK(s.client_nodes() == 13);
  CHECK_FALSE(s.single_workload());
  const auto& db = *s.models[0].dynamic_batching;
  CHECK(db.level_of(s.workloads[0].priority) == 1);
  CHECK(db.level_of(s.workloads[1].priority) == 2);
  // Level 1's own policy starts from the default one and changes what it names.
  CHECK(db.policy_of(1).max_queue_size == 100);
  CHECK(db.policy_of(1).default_timeout == Approx(0.05));
  CHECK(db.policy_of(1).timeout_action == QueuePolicy::TimeoutAction::Delay);
  CHECK(db.policy_of(2).default_timeout == 0.0);

  // --set reaches into the array; a single `workload` may have a name and a priority too.
  const auto file = "/tmp/sonicsim-workloads-" + std::to_string(::getpid()) + ".json";
  std::ofstream(file) << d.dump();
  const Scenario set = load_file(file, {parse_override("workloads.1.jobs=7")});
  std::remove(file.c_str());
  CHECK(set.workloads[1].jobs == 7);
  json one = base();
  one["workload"]["priority"] = 3;
  CHECK(load(one).workload().priority == 3);
}

TEST_CASE("bad workloads and priority input is refused with its path", "[loader][workloads]") {
  run_catalogue({
      {"both workload and workloads",
       [] {
         json d = two_workloads();
         d["workload"] = d["workloads"][0];
         return d;
       },
       "workloads",
       {"found both `workload` and `workloads`"}},
      {"workloads not an array",
       [] {
         json d = two_workloads();
         d["workloads"] = json::object();
         return d;
       },
       "workloads",
       {"expected an array of at least one workload object"}},
      {"workloads empty",
       [] {
         json d = two_workloads();
         d["workloads"] = json::array();
         return d;
       },
       "workloads",
       {"expected an array of at least one workload object"}},
      {"neither",
       [] {
         json d = base();
         d.erase("workload");
         return d;
       },
       "workload",
       {"missing", "or `workloads`"}},
      {"a workload without a name",
       [] {
         json d = two_workloads();
         d["workloads"][1].erase("name");
         return d;
       },
       "workloads[1].name",
       {"missing", "unique"}},
      {"a name twice",
       [] {
         json d = two_workloads();
         d["workloads"][1]["name"] = "reco";
         return d;
       },
       "workloads[1].name",
       {"found \"reco\" again", "workloads[0]"}},
      {"an open loop among several",
       [] {
         json d = two_workloads();
         json& w = d["workloads"][1];
         w.erase("jobs");
         w.erase("threads_per_job");
         w.erase("cpu_time_per_event");
         w["arrivals"] = {{"rate", "100/s"}};
         return d;
       },
       "workloads[1].arrivals",
       {"open loop among 2 workloads", "alone"}},
      {"too many workloads",
       [] {
         json d = two_workloads();
         for (int i = 2; i < 65; ++i) {
           json w = d["workloads"][0];
           w["name"] = std::string("w").append(std::to_string(i));
           d["workloads"].push_back(w);
         }
         return d;
       },
       "workloads",
       {"found 65 workloads", "at most 64"}},
      {"too many threads in all",
       [] {
         json d = two_workloads();
         d["workloads"][0]["jobs"] = 3000000;
         d["workloads"][1]["jobs"] = 3000000;
         return d;
       },
       "workloads",
       {"12000000 client threads in all", "at most 10000000"}},
      {"too many requests",
       [] {
         json d = base();
         d["workload"]["requests"] = json::array({{{"model", "m"}, {"offload_fraction", 0.0}}});
         for (int i = 0; i < 1000; ++i)
           d["workload"]["requests"].push_back(d["workload"]["requests"][0]);
         return d;
       },
       "workload.requests",
       {"found 1001 requests", "at most 1000"}},
      {"priority zero",
       [] {
         json d = two_workloads();
         d["workloads"][0]["priority"] = 0;
         return d;
       },
       "workloads[0].priority",
       {"found 0", "1 the highest"}},
      {"bad key inside a workload",
       [] {
         json d = two_workloads();
         d["workloads"][1]["jbos"] = 3;
         return d;
       },
       "workloads[1].jbos",
       {"did you mean `jobs`"}},
      {"requests checked per workload",
       [] {
         json d = two_workloads();
         d["workloads"][1]["requests"][0]["model"] = "nope";
         return d;
       },
       "workloads[1].requests[0].model",
       {"found \"nope\"", "defined: m"}},
      {"preemption beyond all workloads' jobs",
       [] {
         json d = two_workloads();
         d["faults"] = json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 14}])");
         return d;
       },
       "faults[0].jobs",
       {"found 14", "in [1, 13]"}},
      {"default level outside the levels",
       [] {
         json d = base();
         d["models"]["m"]["dynamic_batching"] = {{"priority_levels", 2},
                                                 {"default_priority_level", 3}};
         return d;
       },
       "models.m.dynamic_batching.default_priority_level",
       {"found 3", "[1, priority_levels 2]"}},
      {"levels without a default level",
       [] {
         json d = base();
         d["models"]["m"]["dynamic_batching"] = {{"priority_levels", 2}};
         return d;
       },
       "models.m.dynamic_batching.default_priority_level",
       {"found 0", "[1, priority_levels 2]"}},
      {"a policy for a level that does not exist",
       [] {
         json d = base();
         d["models"]["m"]["dynamic_batching"] = {
             {"priority_levels", 2},
             {"default_priority_level", 1},
             {"priority_queue_policy", {{"3", {{"max_queue_size", 4}}}}}};
         return d;
       },
       "models.m.dynamic_batching.priority_queue_policy",
       {"level 3", "[1, priority_levels 2]"}},
      {"a level that is not a number",
       [] {
         json d = base();
         d["models"]["m"]["dynamic_batching"] = {
             {"priority_levels", 2},
             {"default_priority_level", 1},
             {"priority_queue_policy", {{"high", {{"max_queue_size", 4}}}}}};
         return d;
       },
       "models.m.dynamic_batching.priority_queue_policy.high",
       {"found the key \"high\"", "1, 2, ..."}},
      {"a bad key in a level's policy",
       [] {
         json d = base();
         d["models"]["m"]["dynamic_batching"] = {
             {"priority_levels", 2},
             {"default_priority_level", 1},
             {"priority_queue_policy", {{"2", {{"max_queue_sise", 4}}}}}};
         return d;
       },
       "models.m.dynamic_batching.priority_queue_policy.2.max_queue_sise",
       {"did you mean `max_queue_size`"}},
  });
}
