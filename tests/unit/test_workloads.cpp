// Several workloads sharing the servers (`workloads`): the split of one workload into several
// changes nothing, each workload's counts add up to the totals, and Triton's priority levels
// serve the higher level first, strictly.
#include "support.hpp"

using namespace test;

namespace {

// `doc`'s single workload as two named ones of `first` and the rest of its jobs.
json split(json doc, int first) {
  json a = doc["workload"];
  json b = a;
  const int jobs = a["jobs"].get<int>();
  a["name"] = "a";
  a["jobs"] = first;
  b["name"] = "b";
  b["jobs"] = jobs - first;
  doc.erase("workload");
  doc["workloads"] = {a, b};
  return doc;
}

// One device serving one request at a time, 1 s each; no network. "analysis": one thread with
// 1.5 s of CPU per event; "bulk": five threads with 1 ms, enough to keep a queue at all times.
json shared_device(int analysis_priority, int bulk_priority) {
  const auto workload = [](const char* name, int priority, int jobs, double t_cpu) {
    return json{{"name", name},
                {"priority", priority},
                {"jobs", jobs},
                {"threads_per_job", 1},
                {"cpu_time_per_event", t_cpu},
                {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.0}}})}};
  };
  return json{
      {"duration", 310.0},
      {"warmup", 10.0},
      {"workloads",
       {workload("analysis", analysis_priority, 1, 1.5),
        workload("bulk", bulk_priority, 5, 0.001)}},
      {"models",
       {{"m",
         {{"service_time", {{"batch", {1}}, {"seconds", {1.0}}}},
          {"max_batch_size", 1},
          {"dynamic_batching", {{"priority_levels", 2}, {"default_priority_level", 2}}}}}}},
      {"servers",
       json::array({{{"name", "gpu"}, {"count", 1}, {"device", "T4"}, {"models", {"m"}}}})}};
}

void check_same(const sonicsim::engine::RunMetrics& one, const sonicsim::engine::RunMetrics& two) {
  CHECK(two.events_completed == one.events_completed);
  CHECK(two.sent == one.sent);
  CHECK(two.completed == one.completed);
  CHECK(two.in_flight_at_end == one.in_flight_at_end);
  CHECK(two.time_per_event.mean() == one.time_per_event.mean());
  CHECK(two.time_per_event.quantile(0.99) == one.time_per_event.quantile(0.99));
  CHECK(two.latency.mean() == one.latency.mean());
  REQUIRE(two.workloads.size() == 2);
  CHECK(two.workloads[0].events_completed + two.workloads[1].events_completed ==
        one.events_completed);
}

}  // namespace

TEST_CASE("workloads: one workload split in two named ones gives the same run",
          "[engine][workloads]") {
  // Threads, jobs and nodes are numbered through the workloads in order, so every random stream
  // stays where it was: the split must not change a single event.
  auto doc = deterministic(20, 2, 0.05, 0.3, 0.02);
  doc["models"]["m"]["service_time"]["dist"] = "exponential";
  doc["models"]["m"]["max_batch_size"] = 8;
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_delay", "2ms"}};
  doc["load_balancer"] = {{"policy", "least_request"}};
  doc["duration"] = 200.0;
  SECTION("sync") {}
  SECTION("async") {
    doc["workload"]["mode"] = "async";
    doc["workload"]["async"] = {{"events_in_flight", 3}, {"independent_work_fraction", 0.5}};
  }
  const auto one = run(doc);
  const auto two = run(split(doc, 12));
  REQUIRE(one.events_completed > 10000);
  check_same(one, two);
  // Same work per thread: the shares follow the threads, within noise.
  const double share = static_cast<double>(two.workloads[0].events_completed) /
                       static_cast<double>(two.events_completed);
  CHECK(share == Approx(12.0 / 20.0).margin(0.02));
}

TEST_CASE("workloads: each one's figures are its own", "[engine][workloads]") {
  // A heavy and a light workload on the same servers: the light one's events take its own CPU
  // time plus the shared remote part.
  auto doc = split(deterministic(10, 1, 0.1, 0.1, 0.001), 5);
  doc["workloads"][1]["cpu_time_per_event"] = 0.4;
  doc["workloads"][1]["flow"] = {{"events_per_job", 500}};
  const auto m = run(doc);
  REQUIRE(m.workloads.size() == 2);
  const auto& a = m.workloads[0];
  const auto& b = m.workloads[1];
  CHECK(a.name == "a");
  CHECK(b.name == "b");
  // t_event = (1 - p) t_CPU + the remote part (round trip, transfers, 1 ms of service), the
  // same for both: far below saturation, the device is 6% busy.
  CHECK(a.time_per_event.mean() == Approx(0.09 + 0.0022).epsilon(0.01));
  CHECK(b.time_per_event.mean() - a.time_per_event.mean() == Approx(0.27).epsilon(0.01));
  // Only "b" is a flow: 5 jobs of 500 events (about 190 s each), all done.
  REQUIRE(m.jobs);
  CHECK(m.jobs->total == 5);
  CHECK(m.jobs->finished == 5);
  CHECK(b.events_completed <= 2500);
  check_conservation(m);
  CHECK(a.sent == a.completed + a.failed + a.fallback + a.in_flight_at_end);
}

TEST_CASE("priority levels: the higher level waits only for the execution in progress",
          "[engine][workloads][priority]") {
  // "analysis" (level 1) sends at k + 1.5 s into a device busy on the grid k, k + 1, ...: it
  // waits 0.5 s for the execution in progress, never behind bulk's queue, and runs 1 s. Its
  // events take exactly 1.5 s of CPU + 1.5 s of request, and bulk gets the rest of the device.
  const auto m = run(shared_device(1, 2));
  REQUIRE(m.workloads.size() == 2);
  const auto& analysis = m.workloads[0];
  const auto& bulk = m.workloads[1];
  CHECK(analysis.events_completed == Approx(100).margin(1));
  CHECK(analysis.time_per_event.mean() == Approx(3.0).epsilon(1e-9));
  CHECK(analysis.time_per_event.max() == Approx(3.0).epsilon(1e-9));
  CHECK(analysis.latency.mean() == Approx(1.5).epsilon(1e-9));
  CHECK(analysis.latency.max() == Approx(1.5).epsilon(1e-9));
  CHECK(static_cast<double>(bulk.events_completed) == Approx(200).margin(2));
  CHECK(m.pools[0].utilization[0] == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("priority levels are strict: a busy higher level starves the lower one",
          "[engine][workloads][priority]") {
  // Swapped: bulk (level 1) always has a request queued, so analysis's first request never
  // runs. Triton's priority queue has no aging; neither does the simulation.
  const auto m = run(shared_device(2, 1));
  const auto& analysis = m.workloads[0];
  const auto& bulk = m.workloads[1];
  CHECK(analysis.events_completed == 0);
  CHECK(analysis.completed == 0);
  CHECK(analysis.in_flight_at_end == 1);
  CHECK(static_cast<double>(bulk.events_completed) == Approx(300).margin(2));
  check_conservation(m);
}

TEST_CASE("priority levels: without them, priorities change nothing", "[engine][workloads]") {
  // A model without priority_levels has one queue: the analysis waits behind bulk's requests.
  auto doc = shared_device(1, 2);
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_delay", 0}};
  const auto m = run(doc);
  const auto& analysis = m.workloads[0];
  // Behind up to five bulk requests: far above the 1.5 s of the strict priority.
  CHECK(analysis.latency.mean() > 4.0);
}
