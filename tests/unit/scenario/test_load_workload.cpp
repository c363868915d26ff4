// The workload section (src/scenario/load_workload.cpp): one workload or several named ones, their
// priorities and totals, the client policy (workload.client), job flows (workload.flow) and
// open-loop arrivals (workload.arrivals), each read with its units and defaults, and bad input
// refused with the JSON path, what was found and what is expected.
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "operations_support.hpp"
#include "support.hpp"

using namespace test;
using namespace sonicsim::scenario;

namespace {

// The problems a bad workload gets, as "PATH: MESSAGE" lines.
std::string lw_problem_text(const json& doc) {
  try {
    scenario_of(doc);
  } catch (const InputError& e) {
    std::string out;
    for (const auto& p : e.problems()) out += p.path + ": " + p.message + "\n";
    return out;
  }
  return "no problem";
}

}  // namespace

TEST_CASE("workload.client: defaults and explicit values", "[loader]") {
  json d = ops_base();
  d["workload"]["client"] = json::object();
  CHECK(ops_load(d).workload().client.allowed_tries == 1);
  d["workload"]["client"] = {
      {"timeout", "2s"}, {"allowed_tries", 3}, {"retry_delay", "100ms"}, {"fallback", "cpu"}};
  const ClientPolicy c = ops_load(d).workload().client;
  CHECK(c.timeout == 2.0);
  CHECK(c.allowed_tries == 3);
  CHECK(c.retry_delay == Approx(0.1));
  CHECK(std::holds_alternative<sonicsim::client_policies::Cpu::Settings>(c.fallback));

  // An open loop takes timeouts and retries, with no fallback.
  json o = ops_open_loop();
  o["workload"]["client"] = {{"timeout", "500ms"}, {"allowed_tries", 2}, {"fallback", "none"}};
  const Scenario s = ops_load(o);
  CHECK(s.workload().open_loop());
  CHECK(s.workload().client.timeout == 0.5);
  CHECK(s.workload().client.allowed_tries == 2);
  CHECK(std::holds_alternative<sonicsim::client_policies::None::Settings>(
      s.workload().client.fallback));
}

// clang-format off
TEST_CASE("bad operations input: workload.client", "[loader][bad]") {
  ops_run_catalogue({
      {"client not an object", ops_edited([](json& d) { d["workload"]["client"] = 3; }),
       "workload.client", {"found 3", "expected an object"}},
      {"allowed_tries 0", ops_edited([](json& d) { d["workload"]["client"] = {{"allowed_tries", 0}}; }),
       "workload.client.allowed_tries", {"found 0", "expected an integer in [1, 100]"}},
      {"allowed_tries 101", ops_edited([](json& d) { d["workload"]["client"] = {{"allowed_tries", 101}}; }),
       "workload.client.allowed_tries", {"found 101", "in [1, 100]"}},
      {"negative timeout", ops_edited([](json& d) { d["workload"]["client"] = {{"timeout", "-1s"}}; }),
       "workload.client.timeout", {"found \"-1s\"", "non-negative time"}},
      {"retry_delay with a size unit", ops_edited([](json& d) { d["workload"]["client"] = {{"retry_delay", "1MB"}}; }),
       "workload.client.retry_delay", {"found \"1MB\"", "expected a time"}},
      {"unknown fallback", ops_edited([](json& d) { d["workload"]["client"] = {{"fallback", "gpu"}}; }),
       "workload.client.fallback", {"found \"gpu\"", "\"none\", \"cpu\""}},
      {"cpu fallback in an open loop", ops_edited([](json& d) { d["workload"]["client"] = {{"fallback", "cpu"}}; }, ops_open_loop),
       "workload.client.fallback", {"found \"cpu\"", "expected \"none\"", "no client CPU to fall back on"}},
      {"unknown client key", ops_edited([](json& d) { d["workload"]["client"] = {{"retries", 3}}; }),
       "workload.client.retries", {"unknown key `retries`"}},
      {"client at the top level", ops_edited([](json& d) { d["client"] = json::object(); }),
       "client", {"belongs inside `workload`"}},
  });
}
// clang-format on

TEST_CASE("workloads: several named ones, their priorities and totals", "[loader][workloads]") {
  json d = ops_two_workloads();
  d["workloads"][0]["priority"] = 1;
  d["models"]["m"]["dynamic_batching"] = {
      {"priority_levels", 2},
      {"default_priority_level", 2},
      {"max_queue_size", 100},
      {"priority_queue_policy",
       {{"1", {{"default_timeout", "50ms"}, {"timeout_action", "DELAY"}}}}}};
  const Scenario s = ops_load(d);
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
  json one = ops_base();
  one["workload"]["priority"] = 3;
  CHECK(ops_load(one).workload().priority == 3);
}

TEST_CASE("bad workloads and priority input is refused with its path", "[loader][workloads]") {
  ops_run_catalogue({
      {"both workload and workloads",
       [] {
         json d = ops_two_workloads();
         d["workload"] = d["workloads"][0];
         return d;
       },
       "workloads",
       {"found both `workload` and `workloads`"}},
      {"workloads not an array",
       [] {
         json d = ops_two_workloads();
         d["workloads"] = json::object();
         return d;
       },
       "workloads",
       {"expected an array of at least one workload object"}},
      {"workloads empty",
       [] {
         json d = ops_two_workloads();
         d["workloads"] = json::array();
         return d;
       },
       "workloads",
       {"expected an array of at least one workload object"}},
      {"neither",
       [] {
         json d = ops_base();
         d.erase("workload");
         return d;
       },
       "workload",
       {"missing", "or `workloads`"}},
      {"a workload without a name",
       [] {
         json d = ops_two_workloads();
         d["workloads"][1].erase("name");
         return d;
       },
       "workloads[1].name",
       {"missing", "unique"}},
      {"a name twice",
       [] {
         json d = ops_two_workloads();
         d["workloads"][1]["name"] = "reco";
         return d;
       },
       "workloads[1].name",
       {"found \"reco\" again", "workloads[0]"}},
      {"an open loop among several",
       [] {
         json d = ops_two_workloads();
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
         json d = ops_two_workloads();
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
         json d = ops_two_workloads();
         d["workloads"][0]["jobs"] = 3000000;
         d["workloads"][1]["jobs"] = 3000000;
         return d;
       },
       "workloads",
       {"12000000 client threads in all", "at most 10000000"}},
      {"too many requests",
       [] {
         json d = ops_base();
         d["workload"]["requests"] = json::array({{{"model", "m"}, {"offload_fraction", 0.0}}});
         for (int i = 0; i < 1000; ++i)
           d["workload"]["requests"].push_back(d["workload"]["requests"][0]);
         return d;
       },
       "workload.requests",
       {"found 1001 requests", "at most 1000"}},
  });
}

TEST_CASE("bad priorities and per-workload keys are refused with their path",
          "[loader][workloads]") {
  ops_run_catalogue({
      {"priority zero",
       [] {
         json d = ops_two_workloads();
         d["workloads"][0]["priority"] = 0;
         return d;
       },
       "workloads[0].priority",
       {"found 0", "1 the highest"}},
      {"bad key inside a workload",
       [] {
         json d = ops_two_workloads();
         d["workloads"][1]["jbos"] = 3;
         return d;
       },
       "workloads[1].jbos",
       {"did you mean `jobs`"}},
      {"requests checked per workload",
       [] {
         json d = ops_two_workloads();
         d["workloads"][1]["requests"][0]["model"] = "nope";
         return d;
       },
       "workloads[1].requests[0].model",
       {"found \"nope\"", "defined: m"}},
      {"preemption beyond all workloads' jobs",
       [] {
         json d = ops_two_workloads();
         d["faults"] = json::parse(R"([{"kind": "preemption", "at": 1, "jobs": 14}])");
         return d;
       },
       "faults[0].jobs",
       {"found 14", "in [1, 13]"}},
      {"default level outside the levels",
       [] {
         json d = ops_base();
         d["models"]["m"]["dynamic_batching"] = {{"priority_levels", 2},
                                                 {"default_priority_level", 3}};
         return d;
       },
       "models.m.dynamic_batching.default_priority_level",
       {"found 3", "[1, priority_levels 2]"}},
      {"levels without a default level",
       [] {
         json d = ops_base();
         d["models"]["m"]["dynamic_batching"] = {{"priority_levels", 2}};
         return d;
       },
       "models.m.dynamic_batching.default_priority_level",
       {"found 0", "[1, priority_levels 2]"}},
      {"a policy for a level that does not exist",
       [] {
         json d = ops_base();
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
         json d = ops_base();
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
         json d = ops_base();
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

TEST_CASE("job flow: bad settings name the key, what was found and what is expected",
          "[loader][jobflow]") {
  auto doc = job_flow(4, {{"waves", {{"size", 2}, {"every", "1min"}}}, {"ramp", {{"over", "1h"}}}});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow") &&
                                  Catch::Contains("more than one of waves, ramp and start_times"));
  doc = job_flow(4, {{"start_times", {"0s", "1s"}}});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.start_times") &&
                                  Catch::Contains("found 2 start times for 4 jobs"));
  doc = job_flow(4, {{"waves", {{"every", "1min"}}}});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.waves.size"));
  doc = job_flow(4, json::object());
  doc["workload"]["flow"].erase("events_per_job");
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.events_per_job"));
  doc = job_flow(4, json::object());
  doc["workload"]["flow"]["events_per_job"] = 0;
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.events_per_job"));
}

TEST_CASE("job flow: a bad running profile names the key, what was found and what is expected",
          "[loader][jobflow]") {
  auto doc = running_profile({"0s", "10min"}, {5});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.running") &&
                                  Catch::Contains("two arrays of the same length"));
  doc = running_profile({"10min", "5min"}, {5, 6});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.running.t[1]") &&
                                  Catch::Contains("strictly increasing"));
  doc = running_profile({"0s"}, {-1});
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.running.jobs[0]"));
  doc = running_profile({"0s", "1h"}, {5, 7});
  doc["workload"]["jobs"] = 5;
  CHECK_THAT(load_error(doc),
             Catch::Contains("workload.jobs") && Catch::Contains("flow.running starts 7 jobs"));
  doc = running_profile({"0s"}, {5});
  doc["workload"]["flow"]["events_per_job"] = 10;
  CHECK_THAT(load_error(doc), Catch::Contains("workload.flow.events_per_job") &&
                                  Catch::Contains("next to `running`"));
  doc = running_profile({"0s"}, {5});
  doc["workload"]["flow"]["running"]["jobs"] = json::array();
  doc["workload"]["flow"]["running"]["t"] = json::array();
  CHECK_THAT(load_error(doc), Catch::Contains("at least one point"));
  doc = running_profile({"0s"}, {3'000'000});
  doc["workload"]["threads_per_job"] = 4;
  CHECK_THAT(load_error(doc), Catch::Contains("client threads"));
}

TEST_CASE("workload.arrivals in a scenario: rates with units, and clear errors",
          "[loader][open_loop]") {
  auto doc = open_loop(1, "constant");
  for (const auto& [text, rate] : std::vector<std::pair<json, double>>{
           {"500/s", 500}, {"30/min", 0.5}, {"2kHz", 2000}, {100.5, 100.5}, {"3600/h", 1}}) {
    doc["workload"]["arrivals"]["rate"] = text;
    const auto s = scenario_of(doc);
    INFO(text.dump());
    REQUIRE(s.workload().open_loop());
    CHECK(s.workload().arrivals->rate == Approx(rate));
    CHECK(s.workload().arrivals->max_in_flight == 1000000);
    CHECK(s.workload().n_threads() == 1);
    CHECK(s.workload().cpu_time_per_event.expected() == 0.0);
  }
  doc["workload"].erase("arrivals");
  CHECK_THAT(lw_problem_text(doc), Catch::Contains("workload.jobs: missing"));

  doc = open_loop(1, "constant");
  doc["workload"]["arrivals"]["rate"] = "fast";
  CHECK_THAT(lw_problem_text(doc), Catch::Contains("workload.arrivals.rate: found \"fast\"") &&
                                       Catch::Contains("expected a rate") &&
                                       Catch::Contains("/s, /ms"));
  doc["workload"]["arrivals"]["rate"] = 0;
  CHECK_THAT(
      lw_problem_text(doc),
      Catch::Contains("workload.arrivals.rate: found 0, expected a rate in (0, 1000000000]"));
  doc["workload"]["arrivals"]["rate"] = "5Mbps";
  CHECK_THAT(lw_problem_text(doc), Catch::Contains("unknown unit \"Mbps\""));
  doc["workload"]["arrivals"] = {{"distribution", "uniform"}, {"rat", 5}};
  const std::string several = lw_problem_text(doc);
  CHECK_THAT(several, Catch::Contains("workload.arrivals.rate: missing"));
  CHECK_THAT(several, Catch::Contains("workload.arrivals.distribution: found \"uniform\"") &&
                          Catch::Contains("\"poisson\""));
  CHECK_THAT(several, Catch::Contains("did you mean `rate`"));
  doc["workload"]["arrivals"] = "500/s";
  CHECK_THAT(lw_problem_text(doc),
             Catch::Contains("workload.arrivals: found \"500/s\", expected an "
                             "object {\"rate\""));

  // Closed-loop keys describe threads that do not exist: refused, each named.
  doc = open_loop(1, "constant");
  doc["workload"]["jobs"] = 10;
  doc["workload"]["cpu_time_per_event"] = "1s";
  doc["workload"]["mode"] = nullptr;  // null counts as absent
  const std::string closed = lw_problem_text(doc);
  CHECK_THAT(closed, Catch::Contains("workload.jobs: found 10 next to `arrivals`, expected no "
                                     "`jobs`") &&
                         Catch::Contains("workload.cpu_time_per_event: found \"1s\""));
  CHECK_THAT(closed, !Catch::Contains("workload.mode"));

  doc = open_loop(1, "constant");
  doc["workload"]["requests"] = json::array();
  CHECK_THAT(lw_problem_text(doc), Catch::Contains("workload.requests: found an empty array") &&
                                       Catch::Contains("at least one request"));
  doc["workload"].erase("requests");
  CHECK_THAT(lw_problem_text(doc), Catch::Contains("workload.requests: missing"));
  doc = open_loop(1, "constant");
  doc["workload"]["requests"][0]["per_event"] = 8;
  doc["workload"]["arrivals"]["max_in_flight"] = 4;
  CHECK_THAT(lw_problem_text(doc),
             Catch::Contains("workload.arrivals.max_in_flight: found 4, expected at least the 8"));
}
