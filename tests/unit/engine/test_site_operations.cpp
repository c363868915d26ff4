// Site operations (src/engine/site_operations.cpp, autoscaling.cpp): the KEDA/HPA autoscaler's
// replica timelines against ones computed by hand, crashes that lose queued work, and the
// conservation identity under random combinations of faults and client policies. The decision
// rule alone is test_autoscaler.cpp; timeouts and the CPU fallback test_client_policy.cpp.
#include <sonicsim/util/rng.hpp>

#include "support.hpp"

using namespace test;

namespace {

struct Change {
  double t;
  int from, to;
};

std::vector<Change> changes(const sonicsim::engine::RunMetrics& m, std::size_t pool = 0) {
  std::vector<Change> out;
  for (const auto& s : m.pools.at(pool).scaling) out.push_back({s.time, s.from, s.to});
  return out;
}

void check_timeline(const std::vector<Change>& got, const std::vector<Change>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("change " << i << ": at " << got[i].t << " s, " << got[i].from << " -> " << got[i].to);
    CHECK(got[i].t == Approx(want[i].t));
    CHECK(got[i].from == want[i].from);
    CHECK(got[i].to == want[i].to);
  }
}

}  // namespace

TEST_CASE("autoscaler: a burst's replica timeline matches the one computed by hand",
          "[engine][operations][autoscaler]") {
  const auto m = run(autoscaled_burst());
  // Polls every 30 s. Scale up: one replica per 30 s period, so +1 at each of the first three
  // polls (the metric stays far above 20 ms) until max_replicas. The burst's 460 s of GPU work
  // (200 x 230 x 10 ms) is done at 1 replica until 75 s (30 s + 45 s start-up), 2 until 105 s,
  // 3 until 135 s and 4 after: by about 135 + 235 / 4 = 194 s, between the polls at 180 s and
  // 210 s. The windows of the polls at 240, 270 and 300 s hold no execution (metric 0, HPA
  // recommends 0), but scale-down stabilization keeps the largest recommendation of the last
  // 120 s, which includes the busy poll at 210 s until the poll at 330 s. Then one replica per
  // 60 s period: the poll at 360 s still sees the removal at 330 s inside its period.
  check_timeline(changes(m),
                 {{30, 1, 2}, {60, 2, 3}, {90, 3, 4}, {330, 4, 3}, {390, 3, 2}, {450, 2, 1}});
  REQUIRE(m.jobs);
  CHECK(m.jobs->finished == 200);
  CHECK(m.jobs->last_exit > 185.0);
  CHECK(m.jobs->last_exit < 205.0);
  check_conservation(m);
  CHECK(m.failed == 0);

  // Replicas over time, at the end of each 15 s window (a change at the window's very end shows
  // in the next one): asked for at once, serving 45 s later.
  REQUIRE(m.timeseries);
  REQUIRE(m.timeseries->pools.size() == 1);
  const auto& ts = m.timeseries->pools[0];
  const std::vector<double> asked = {1, 1, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                     4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<double> ready = {1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
                                     4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(ts.replicas == asked);
  CHECK(ts.ready == ready);
  // Device-hours: 1 x 75 + 2 x 30 + 3 x 30 + 4 x 195 + 3 x 60 + 2 x 60 + 1 x 150 seconds.
  const auto& pool = m.pools[0];
  CHECK(pool.replica_seconds_up == Approx(75 + 60 + 90 + 780 + 180 + 120 + 150));
  CHECK(pool.peak_replicas == 4);
}

TEST_CASE("autoscaler: a slower start-up delays capacity, not the decisions",
          "[engine][operations][autoscaler]") {
  auto doc = autoscaled_burst();
  doc["servers"][0]["startup_delay"] = "100s";
  const auto m = run(doc);
  const auto timeline = changes(m);
  REQUIRE(timeline.size() >= 3);
  check_timeline({timeline.begin(), timeline.begin() + 3}, {{30, 1, 2}, {60, 2, 3}, {90, 3, 4}});
  // The same work with replicas serving from 130, 160 and 190 s ends later.
  REQUIRE(m.jobs);
  CHECK(m.jobs->last_exit > 230.0);
  check_conservation(m);
}

TEST_CASE("autoscaler: scale to zero and back with retries and CPU fallback",
          "[engine][operations][autoscaler]") {
  // Two waves of jobs 20 minutes apart; in between, the pool scales to zero, and the second
  // wave's first requests find no server: they retry, fall back to the CPU, and wake the pool.
  auto doc = deterministic(20, 2, 0.1, 0.2, 0.010);
  doc["duration"] = 3600.0;
  doc["warmup"] = 0.0;
  doc["workload"]["flow"] = {{"events_per_job", 1000},
                             {"waves", {{"size", 10}, {"every", "20min"}}}};
  doc["workload"]["client"] = {{"allowed_tries", 2}, {"retry_delay", "1s"}, {"fallback", "cpu"}};
  doc["servers"][0]["startup_delay"] = "60s";
  doc["servers"][0]["autoscaler"] = {
      {"threshold", "20ms"}, {"min_replicas", 0}, {"initial_replicas", 1}, {"cooldown", "5min"}};
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.in_flight_at_end == 0);
  const auto timeline = changes(m);
  bool down = false, up_again = false;
  for (const auto& c : timeline) {
    if (c.to == 0) down = true;
    if (down && c.from == 0 && c.to == 1) up_again = true;
  }
  CHECK(down);
  CHECK(up_again);
  // Every request of the second wave sent while no server was up tried twice, then ran on the
  // CPU; none failed outright.
  CHECK(m.failed == 0);
  CHECK(m.resilience.fallback_after_failure > 0);
  CHECK(m.fallback == m.resilience.fallback_after_failure);
  CHECK(m.resilience.no_server >= 2 * m.resilience.fallback_after_failure);
  CHECK(m.resilience.fallback_cpu_seconds ==
        Approx(0.2 * 0.1 * static_cast<double>(m.resilience.fallback_after_failure)));
  REQUIRE(m.jobs);
  CHECK(m.jobs->finished == 20);
}

TEST_CASE("crash: queued and executing requests fail back and are retried elsewhere",
          "[engine][operations][faults]") {
  // 4 devices at about 90% load; one crashes at 100 s for 60 s (then 30 s to start again).
  auto doc = deterministic(36, 4, 0.1, 0.1, 0.010);
  doc["servers"][0]["startup_delay"] = "30s";
  doc["workload"]["client"] = {{"allowed_tries", 3}};
  doc["faults"] =
      json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"device", 1}, {"at", 100}, {"for", 60}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.pools[0].crashes == 1);
  CHECK(m.resilience.server_lost >= 1);  // what it held when it went
  CHECK(m.failed == 0);                  // every lost try succeeded on another device
  CHECK(m.resilience.completed_after_retry >= m.resilience.server_lost);
  // Down from 100 to 190 s out of 360 s measured: 3 + 270/360 devices up on average.
  CHECK(m.pools[0].mean_replicas_up == Approx(3.0 + 270.0 / 360.0).epsilon(1e-9));
  CHECK(m.pools[0].utilization[1] < m.pools[0].utilization[0]);
}

TEST_CASE("crash during a drain: the server goes for good, as nobody asked for it any more",
          "[engine][operations][faults]") {
  // Two threads keep two devices busy with 20 s executions. The poll at 30 s sees no queueing
  // and scales to one replica: device 0 drains while it executes; it crashes at 31 s "for 10 s".
  // It must not come back: one replica was asked for.
  auto doc = deterministic(2, 2, 1.0, 0.1, 20.0);
  doc["warmup"] = 0.0;
  doc["duration"] = 120.0;
  doc["servers"][0]["drain_timeout"] = "60s";
  doc["servers"][0]["autoscaler"] = {{"threshold", "20ms"},
                                     {"initial_replicas", 2},
                                     {"scale_down", {{"stabilization_window", 0}}}};
  doc["faults"] =
      json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"device", 0}, {"at", 31}, {"for", 10}}});
  doc["workload"]["client"] = {{"allowed_tries", 2}};
  doc["timeseries"] = {{"interval", "1s"}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.pools[0].scaling.size() >= 1);
  CHECK(m.pools[0].scaling[0].time == 30.0);
  CHECK(m.pools[0].scaling[0].to == 1);
  CHECK(m.pools[0].crashes == 1);
  CHECK(m.resilience.server_lost == 1);  // the execution it held
  // Until the next scale-up (the one replica left queues the two threads' requests), one
  // replica asked for and one serving; never more serving than asked for.
  const double next = m.pools[0].scaling.size() > 1 ? m.pools[0].scaling[1].time : 120.0;
  CHECK(next > 41.0);  // after the crashed device's "restart"
  const auto& tp = m.timeseries->pools[0];
  for (std::size_t w = 0; w < tp.ready.size(); ++w) {
    const double t = static_cast<double>(w + 1);
    INFO("window ending at " << t << " s");
    CHECK(tp.ready[w] <= tp.replicas[w]);
    if (t >= 31.0 && t < next) {
      CHECK(tp.replicas[w] == 1.0);
      CHECK(tp.ready[w] == 1.0);
    }
  }
}

TEST_CASE("conservation holds under random combinations of faults and client policies",
          "[engine][operations][conservation]") {
  sonicsim::Rng rng(20261122);
  sonicsim::engine::RunMetrics::Resilience seen;  // what the cases exercised, all together
  std::uint64_t crashes = 0, scalings = 0, preempted = 0, not_admitted = 0, shared = 0;
  for (int k = 0; k < 40; ++k) {
    auto doc =
        deterministic(8 + static_cast<int>(rng.below(40)), 1 + static_cast<int>(rng.below(4)), 0.05,
                      0.3, 0.004 + 0.01 * rng.uniform01());
    doc["seed"] = k + 1;
    doc["duration"] = 120.0;
    doc["warmup"] = rng.below(2) ? 10.0 : 0.0;
    doc["models"]["m"]["service_time"]["dist"] = "exponential";
    if (rng.below(2)) doc["workload"]["mode"] = "async";
    if (rng.below(2))
      doc["models"]["m"]["dynamic_batching"] = {{"max_queue_delay", "1ms"},
                                                {"max_queue_size", 1 + rng.below(8)},
                                                {"timeout_action", "REJECT"},
                                                {"default_timeout", "50ms"}};
    const int count = doc["servers"][0]["count"].get<int>();
    doc["servers"][0]["startup_delay"] = 5.0 * rng.uniform01();
    doc["servers"][0]["drain_timeout"] = 2.0 * rng.uniform01();
    const bool by_queue_time = rng.below(2) == 1;
    if (rng.below(2))
      doc["servers"][0]["autoscaler"] = {
          {"metric", by_queue_time ? "queue_time" : "utilization"},
          {"threshold", by_queue_time ? json("5ms") : json(0.5)},
          {"polling_interval", 5.0 + 10.0 * rng.uniform01()},
          {"window", 10.0},
          {"min_replicas", rng.below(2)},
          {"cooldown", 10.0},
          {"scale_down", {{"stabilization_window", 5.0}, {"period", 5.0}}}};
    json faults = json::array();
    if (rng.below(2))
      faults.push_back({{"kind", "crash"},
                        {"pool", "gpu"},
                        {"device", rng.below(static_cast<std::uint64_t>(count))},
                        {"at", 120.0 * rng.uniform01()},
                        {"for", 30.0 * rng.uniform01() + 0.1}});
    if (rng.below(2))
      faults.push_back(
          {{"kind", "random_crashes"}, {"pool", "gpu"}, {"mtbf", 20.0}, {"mttr", 5.0}});
    if (rng.below(3) == 0)
      faults.push_back({{"kind", "preemption"},
                        {"at", 120.0 * rng.uniform01()},
                        {"jobs", 1 + rng.below(5)},
                        {"restart_after", 10.0 * rng.uniform01()}});
    if (rng.below(3) == 0)
      faults.push_back({{"kind", "random_preemption"}, {"mtbf", 30.0}, {"restart_after", 2.0}});
    if (rng.below(3) == 0)
      faults.push_back({{"kind", "link"},
                        {"link", rng.below(2) ? "site_uplink" : "server_nic"},
                        {"at", 100.0 * rng.uniform01()},
                        {"duration", 10.0 * rng.uniform01() + 0.1},
                        {"bandwidth_factor", rng.below(2) ? 0.0 : 0.3}});
    if (rng.below(4) == 0) doc["workload"]["flow"] = {{"events_per_job", 500 + rng.below(1000)}};
    const bool capped = rng.below(3) == 0;
    if (rng.below(3) == 0)
      doc["load_balancer"] = {{"admission",
                               {{"rate", 0.5},
                                {"burst", 1 + rng.below(10)},
                                {"retry_after", 5.0},
                                {"refuse_above_threshold",
                                 doc["servers"][0].contains("autoscaler") && rng.below(2) == 1}}}};
    if (capped)
      doc["load_balancer"]["capacity"] = {{"per_message", 0.0005 * rng.uniform01()},
                                          {"workers", 1 + rng.below(3)},
                                          {"bandwidth", "1Gbps"}};
    doc["faults"] = faults;
    doc["workload"]["client"] = {{"timeout", rng.below(2) ? 0.0 : 0.02 + 0.2 * rng.uniform01()},
                                 {"allowed_tries", 1 + rng.below(3)},
                                 {"retry_delay", rng.below(2) ? 0.0 : 0.01},
                                 {"fallback", rng.below(2) ? "cpu" : "none"}};
    doc["timeseries"] = {{"interval", "1s"}};
    // A third of the cases share the servers between two workloads at two priority levels (their
    // own random stream, so the cases above stay what they were).
    sonicsim::Rng split(1000 + static_cast<std::uint64_t>(k));
    if (split.below(3) == 0) {
      json a = doc["workload"];
      a["name"] = "a";
      a["priority"] = 1;
      json b = a;
      b["name"] = "b";
      b["priority"] = 2;
      b["jobs"] = 1 + split.below(10);
      b["mode"] = split.below(2) ? "async" : "sync";
      if (split.below(2))
        b["flow"] = {{"start_times", json::array()}, {"events_per_job", 200}};
      else
        b.erase("flow");
      if (b.contains("flow")) {
        for (std::uint64_t j = 0; j < b["jobs"].get<std::uint64_t>(); ++j)
          b["flow"]["start_times"].push_back(100.0 * split.uniform01());
      }
      doc.erase("workload");
      doc["workloads"] = {a, b};
      auto& db = doc["models"]["m"]["dynamic_batching"];
      if (db.is_null()) db = {{"max_queue_delay", "1ms"}};
      db["priority_levels"] = 2;
      db["default_priority_level"] = 2;
    }
    INFO("case " << k << ": " << doc.dump());
    const auto m = run(doc);
    check_conservation(m);
    // The workloads' counts add up to the totals; the requests each leaves in flight add up to
    // those the engine holds.
    for (const auto& w : m.workloads) CHECK(w.sent >= w.completed + w.failed + w.fallback);
    check_workloads_add_up(m);
    if (m.workloads.size() > 1) ++shared;
    // Never more servers serving than asked for, never more asked for than the pool holds.
    if (m.pools[0].operated) {
      REQUIRE(m.timeseries);
      const auto& tp = m.timeseries->pools[0];
      for (std::size_t w = 0; w < tp.ready.size(); ++w) {
        CHECK(tp.ready[w] <= tp.replicas[w]);
        CHECK(tp.replicas[w] <= count);
      }
    }
    CHECK(m.resilience.completed_after_retry <= m.completed);
    CHECK(m.resilience.fallback_after_failure <= m.fallback);
    CHECK(m.resilience.tries >= m.resilience.retries);
    seen.refused += m.resilience.refused;
    seen.no_server += m.resilience.no_server;
    seen.server_lost += m.resilience.server_lost;
    seen.client_timeout += m.resilience.client_timeout;
    seen.fallback_after_failure += m.resilience.fallback_after_failure;
    seen.completed_after_retry += m.resilience.completed_after_retry;
    crashes += m.pools[0].crashes;
    preempted += m.resilience.preempted;
    if (m.admission) not_admitted += m.admission->requests;
    scalings += m.pools[0].scaling.size();
  }
  // The cases did meet every kind of trouble.
  CHECK(seen.refused > 0);
  CHECK(seen.no_server > 0);
  CHECK(seen.server_lost > 0);
  CHECK(seen.client_timeout > 0);
  CHECK(seen.fallback_after_failure > 0);
  CHECK(seen.completed_after_retry > 0);
  CHECK(crashes > 0);
  CHECK(scalings > 0);
  CHECK(preempted > 0);
  CHECK(not_admitted > 0);
  CHECK(shared > 5);
}
