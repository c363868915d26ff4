// The client machines' section (src/scenario/load_node.cpp): `workload.start`, when the jobs
// begin, read as a name or an object with its time, and every bad input refused with the JSON
// path, what was found and what is expected.
#include "problems.hpp"
#include "support.hpp"

using namespace test;
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
