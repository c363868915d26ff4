// Preemption (src/engine/preemption.cpp): which jobs the batch system preempts and when; what a
// preempted job loses is counted, redone, and every request stays accounted for.
#include "support.hpp"

using namespace test;

TEST_CASE("preemption: events in progress are lost, counted and redone",
          "[engine][operations][faults]") {
  // 10 single-thread jobs, t_CPU = 1 s; 4 of them preempted at 100 s, back 60 s later.
  auto doc = deterministic(10, 2, 1.0, 0.1, 0.010);
  const auto base = run(doc);
  doc["faults"] =
      json::array({{{"kind", "preemption"}, {"at", 100}, {"jobs", 4}, {"restart_after", 60}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.preemptions.jobs == 4);
  CHECK(m.preemptions.events_lost == 4);  // one event in progress per job
  // Each preempted job was away for 60 s and lost the part of its event already done.
  const double event = base.time_per_event.mean();
  const double missing = static_cast<double>(base.events_completed - m.events_completed);
  CHECK(missing >= 4 * 60 / event - 1);
  CHECK(missing <= 4 * (60 / event + 1) + 1);

  SECTION("a job flow still processes every job's whole budget") {
    auto flow = deterministic(10, 2, 1.0, 0.1, 0.010);
    flow["warmup"] = 0.0;
    flow["workload"]["flow"] = {{"events_per_job", 100}};
    flow["faults"] =
        json::array({{{"kind", "preemption"}, {"at", 30}, {"jobs", 3}},
                     {{"kind", "random_preemption"}, {"mtbf", "60s"}, {"restart_after", "5s"}}});
    const auto f = run(flow);
    check_conservation(f);
    CHECK(f.preemptions.jobs > 3);
    CHECK(f.preemptions.events_lost == f.preemptions.jobs);  // sync: one event per job
    REQUIRE(f.jobs);
    CHECK(f.jobs->finished == 10);
    CHECK(f.events_completed == 10 * 100);
  }
}
