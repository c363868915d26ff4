// A workload's client machines (src/scenario/load_node.cpp): `workload.node`, the worker node its
// jobs share and its speed model, read into NodeSpec whose speeds follow the documented model;
// `workload.start`, when the jobs begin, read as a name or an object with its time. Every bad
// input is refused with the JSON path, what was found and what is expected.
#include "../problems.hpp"
#include "support.hpp"

using namespace test;

namespace {
json with_node(const json& node) {
  auto doc = deterministic(64, 1);
  doc["workload"]["jobs_per_node"] = 16;
  doc["workload"]["node"] = node;
  return doc;
}
}  // namespace

TEST_CASE("node: cores, hyper-threads and the speed model are read", "[loader][nodes]") {
  const auto s =
      scenario_of(with_node({{"cores", 8},
                             {"threads_per_core", 2},
                             {"speed", {{"hyperthread", 0.6}, {"memory_bandwidth_threads", 9}}}}));
  REQUIRE(s.workload().node);
  const auto& n = *s.workload().node;
  CHECK(n.cores == 8);
  CHECK(n.hardware_threads() == 16);
  CHECK(n.hyperthread == 0.6);
  CHECK(n.memory_bandwidth_threads == 9.0);
  // One thread per core up to the cores, then pairs at 0.6 each: X(12) = 4 + 2 x 0.6 x 4 = 8.8;
  // X(16) = 8 x 1.2 = 9.6, capped at 9.
  CHECK(n.throughput(8) == Approx(8.0));
  CHECK(n.throughput(12) == Approx(8.8));
  CHECK(n.throughput(16) == Approx(9.0));
  CHECK(n.per_thread_speed(16) == Approx(9.0 / 16));
  // More busy threads than hardware threads time-slice: the node does no more work.
  CHECK(n.throughput(32) == Approx(9.0));
  CHECK(n.speed_factor(1) == 1.0);
}

TEST_CASE("node: a measured table, and cpu_time_measured_at", "[loader][nodes]") {
  auto doc = with_node({{"cores", 8},
                        {"threads_per_core", 2},
                        {"speed", {{"busy_threads", {1, 8, 16}}, {"per_thread", {1.0, 0.9, 0.6}}}},
                        {"cpu_time_measured_at", "full"}});
  const auto s = scenario_of(doc);
  const auto& n = *s.workload().node;
  CHECK(n.per_thread_speed(4.5) == Approx(0.95));  // halfway between 1 and 8
  CHECK(n.per_thread_speed(40) == Approx(0.6));    // flat beyond the last point
  CHECK(n.measured_at == 16.0);                    // 16 jobs x 1 thread on a node
  CHECK(n.speed_factor(16) == Approx(1.0));
  CHECK(n.speed_factor(8) == Approx(0.9 / 0.6));
  doc["workload"]["node"]["cpu_time_measured_at"] = 4;
  CHECK(scenario_of(doc).workload().node->measured_at == 4.0);
}

TEST_CASE("node: bad values are refused with their path", "[loader][nodes]") {
  const std::string node = "workload.node";
  CHECK(has_problem(problems_of(with_node({{"threads_per_core", 2}})), node + ".cores",
                    {"physical cores"}));
  CHECK(has_problem(problems_of(with_node({{"cores", 0}})), node + ".cores", {"found 0"}));
  CHECK(has_problem(problems_of(with_node({{"cores", 4}, {"threads_per_core", 9}})),
                    node + ".threads_per_core", {"found 9"}));
  CHECK(has_problem(problems_of(with_node({{"cores", 4}, {"speed", {{"hyperthread", 0.6}}}})),
                    node + ".speed.hyperthread", {"threads_per_core >= 2"}));
  CHECK(has_problem(problems_of(with_node(
                        {{"cores", 4}, {"threads_per_core", 2}, {"speed", {{"hyperthread", 0}}}})),
                    node + ".speed.hyperthread", {"found 0"}));
  CHECK(has_problem(problems_of(with_node({{"cores", 4},
                                           {"speed",
                                            {{"busy_threads", {1, 2}},
                                             {"per_thread", {1.0, 0.9}},
                                             {"memory_bandwidth_threads", 3}}}})),
                    node + ".speed.memory_bandwidth_threads", {"measured table"}));
  CHECK(has_problem(
      problems_of(
          with_node({{"cores", 4}, {"speed", {{"busy_threads", {1, 2}}, {"per_thread", {1}}}}})),
      node + ".speed", {"same length"}));
  CHECK(has_problem(
      problems_of(with_node(
          {{"cores", 4}, {"speed", {{"busy_threads", {1, 4, 3}}, {"per_thread", {1, 0.9, 0.8}}}}})),
      node + ".speed.busy_threads[2]", {"strictly increasing"}));
  CHECK(has_problem(problems_of(with_node({{"cores", 4}, {"cpu_time_measured_at", "half"}})),
                    node + ".cpu_time_measured_at", {"\"full\""}));
  CHECK(has_problem(problems_of(with_node({{"cores", 4}, {"smt", 2}})), node + ".smt",
                    {"unknown key"}));
  // An open loop has no client threads to place on a node.
  auto open = open_loop(100, "poisson");
  open["workload"]["node"] = {{"cores", 4}};
  CHECK(has_problem(problems_of(open), node, {"open loop"}));
}

using sonicsim::scenario::StartPattern;

namespace {

// A closed loop of 4 jobs of 2 threads whose `start` is `start`.
json with_start(const json& start) {
  json doc = deterministic(4, 1);
  doc["workload"]["threads_per_job"] = 2;
  doc["workload"]["start"] = start;
  return doc;
}

// The one problem `doc` gets must be at `path` and say every fragment: a refusal reported twice,
// or beside a follow-on problem, would be a confusing message.
void check_refused(const json& doc, const std::string& path,
                   const std::vector<std::string>& fragments) {
  const auto problems = problems_of(doc);
  INFO("problems:\n" << dump(problems));
  CHECK(problems.size() == 1);
  CHECK(has_problem(problems, path, fragments));
}

}  // namespace

TEST_CASE("workload.start: each pattern, as a name or an object, with its time", "[loader]") {
  CHECK(scenario_of(deterministic(4, 1)).workload().start == StartPattern{});
  CHECK(scenario_of(with_start("spread")).workload().start.kind == StartPattern::Kind::Spread);
  CHECK(scenario_of(with_start("together")).workload().start.kind == StartPattern::Kind::Together);
  CHECK(scenario_of(with_start({{"pattern", "together"}})).workload().start.kind ==
        StartPattern::Kind::Together);
  // A null start is no start: the default.
  CHECK(scenario_of(with_start(nullptr)).workload().start == StartPattern{});

  const StartPattern staggered =
      scenario_of(with_start({{"pattern", "staggered"}, {"interval", "2min"}})).workload().start;
  CHECK(staggered.kind == StartPattern::Kind::Staggered);
  CHECK(staggered.interval == 120.0);
  CHECK(staggered.window == 0.0);

  const StartPattern random =
      scenario_of(with_start({{"pattern", "random"}, {"window", 30}})).workload().start;
  CHECK(random.kind == StartPattern::Kind::Random);
  CHECK(random.window == 30.0);
  CHECK(random.interval == 0.0);

  // Each workload of several has its own.
  json two = deterministic(4, 1);
  json a = two["workload"], b = two["workload"];
  two.erase("workload");
  a["name"] = "a";
  b["name"] = "b";
  b["start"] = "together";
  two["workloads"] = {a, b};
  const auto s = scenario_of(two);
  CHECK(s.workloads[0].start.kind == StartPattern::Kind::Spread);
  CHECK(s.workloads[1].start.kind == StartPattern::Kind::Together);
}

TEST_CASE("workload.start: a pattern that needs a time without it", "[loader][bad]") {
  check_refused(with_start({{"pattern", "staggered"}}), "workload.start.interval",
                {"missing", "a time > 0", "`interval`", "\"staggered\""});
  check_refused(with_start({{"pattern", "random"}}), "workload.start.window",
                {"missing", "a time > 0", "`window`", "\"random\""});
  // As a bare name the object it needs is missing: the message points at `start` itself.
  check_refused(with_start("staggered"), "workload.start",
                {"missing", "`interval`", "\"staggered\""});
  check_refused(with_start("random"), "workload.start", {"missing", "`window`", "\"random\""});
}

TEST_CASE("workload.start: the other pattern's time", "[loader][bad]") {
  check_refused(with_start({{"pattern", "staggered"}, {"interval", "2s"}, {"window", "1min"}}),
                "workload.start.window",
                {"found `window` with pattern \"staggered\"", "only with \"random\""});
  check_refused(with_start({{"pattern", "random"}, {"window", "1min"}, {"interval", "2s"}}),
                "workload.start.interval",
                {"found `interval` with pattern \"random\"", "only with \"staggered\""});
  check_refused(with_start({{"pattern", "together"}, {"interval", "2s"}}),
                "workload.start.interval",
                {"found `interval` with pattern \"together\"", "only with \"staggered\""});
  check_refused(with_start({{"pattern", "spread"}, {"window", "2s"}}), "workload.start.window",
                {"found `window` with pattern \"spread\"", "only with \"random\""});
}

TEST_CASE("workload.start: next to a job flow or an open loop", "[loader][bad]") {
  json flow = with_start("together");
  flow["workload"]["flow"] = {{"events_per_job", 100}};
  check_refused(flow, "workload.start",
                {"found `start` next to a job flow", "`flow.start` says when"});

  json open = open_loop(100.0, "poisson");
  open["workload"]["start"] = "together";
  check_refused(open, "workload.start",
                {"found `start` next to `arrivals`", "an open loop has no client jobs"});
  // In a list of workloads the path names the one at fault.
  json two = deterministic(4, 1);
  json a = two["workload"], b = two["workload"];
  two.erase("workload");
  a["name"] = "a";
  b["name"] = "b";
  b["flow"] = {{"events_per_job", 10}};
  b["start"] = {{"pattern", "random"}, {"window", "1min"}};
  two["workloads"] = {a, b};
  check_refused(two, "workloads[1].start", {"found `start` next to a job flow"});
}

TEST_CASE("workload.start: a name that is no pattern, and other bad values", "[loader][bad]") {
  check_refused(with_start("burst"), "workload.start",
                {"found \"burst\"",
                 "expected one of \"spread\", \"together\", \"staggered\", "
                 "\"random\""});
  check_refused(with_start({{"pattern", "togther"}}), "workload.start.pattern",
                {"found \"togther\"", "expected one of", "did you mean `together`"});
  check_refused(with_start({{"interval", "2s"}}), "workload.start.pattern",
                {"missing", "one of \"spread\", \"together\", \"staggered\", \"random\""});
  check_refused(with_start(3), "workload.start",
                {"found 3", "expected \"spread\", \"together\", or an object"});
  check_refused(with_start({{"pattern", "staggered"}, {"interval", "0s"}}),
                "workload.start.interval", {"found \"0s\"", "expected a time in (0, "});
  check_refused(with_start({{"pattern", "random"}, {"window", "-1min"}}), "workload.start.window",
                {"found \"-1min\"", "expected a non-negative time"});
  check_refused(with_start({{"pattern", "staggered"}, {"interval", "2s"}, {"every", "2s"}}),
                "workload.start.every", {"unknown key `every`"});
}
