// A workload's client machines (src/scenario/load_node.cpp): `workload.node`, the worker node its
// jobs share and its speed model, read into NodeSpec whose speeds follow the documented model;
// every refusal names the JSON path, what was found and what is expected.
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
