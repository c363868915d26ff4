// Site operations: the KEDA/HPA autoscaler against timelines computed by hand, crashes that
// lose queued work, client timeouts, retries and the fallback to local CPU inference, and the
// conservation identity under random combinations of all of them.
#include <sonicsim/engine/autoscaler.hpp>
#include <sonicsim/util/rng.hpp>

#include "support.hpp"

using namespace test;
namespace sc = sonicsim::scenario;
using Scaler = sonicsim::engine::Autoscaler;

namespace {

// 200 single-thread jobs of 230 events each, all starting at once: t_CPU = 100 ms with half of
// it a 10 ms remote call. The servers are saturated throughout the burst (200 threads against at
// most 4 x 100 requests/s), so the queue time per execution is far above 20 ms until the last
// job exits, and exactly 0 after: the autoscaler's decisions follow from its settings alone.
json burst() {
  auto doc = deterministic(200, 4, 0.1, 0.5, 0.010);
  doc["duration"] = 600.0;
  doc["warmup"] = 0.0;
  doc["workload"]["flow"] = {{"events_per_job", 230}};
  doc["servers"][0]["startup_delay"] = "45s";
  doc["servers"][0]["autoscaler"] = {
      {"metric", "queue_time"},
      {"threshold", "20ms"},
      {"polling_interval", "30s"},
      {"window", "30s"},
      {"min_replicas", 1},
      {"max_replicas", 4},
      {"scale_up", {{"stabilization_window", "0s"}, {"step", 1}, {"period", "30s"}}},
      {"scale_down", {{"stabilization_window", "120s"}, {"step", 1}, {"period", "60s"}}}};
  doc["timeseries"] = {{"interval", "15s"}};
  return doc;
}

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

sc::Autoscaler scaler(double threshold) {
  sc::Autoscaler a;
  a.threshold = threshold;
  a.min_replicas = 1;
  a.max_replicas = 10;
  a.scale_up = {0.0, 4, 15.0};
  a.scale_down = {0.0, 10, 15.0};
  return a;
}

// Every replica asked for is ready unless `ready` says otherwise.
Scaler::Poll poll(double t, double metric, int current, bool active = true, int ready = -1) {
  Scaler::Poll p;
  p.time = sonicsim::Time::from_seconds(t);
  p.metric = metric;
  p.current = current;
  p.ready = ready < 0 ? current : ready;
  p.active = active;
  return p;
}

}  // namespace

TEST_CASE("autoscaler: a burst's replica timeline matches the one computed by hand",
          "[engine][operations][autoscaler]") {
  const auto m = run(burst());
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
  auto doc = burst();
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

TEST_CASE("autoscaler: HPA arithmetic, tolerance, stabilization and policies",
          "[operations][autoscaler]") {
  SECTION("Value target: ceil(current x metric / threshold), within tolerance: unchanged") {
    Scaler a(scaler(0.020));
    CHECK(a.decide(poll(30, 0.021, 2)).replicas == 2);  // ratio 1.05, within 10%
    CHECK(a.decide(poll(60, 0.025, 2)).replicas == 3);  // ceil(2 x 1.25) = 3
    CHECK(a.decide(poll(90, 0.100, 3)).replicas == 7);  // ceil(15) = 15, at most +4 per 15 s
    CHECK(a.decide(poll(120, 0.0, 7)).replicas == 1);   // no stabilization: straight to min
  }
  SECTION("AverageValue target: ceil(metric / threshold)") {
    auto cfg = scaler(10.0);
    cfg.target = sc::Autoscaler::Target::AverageValue;
    Scaler a(cfg);
    CHECK(a.decide(poll(30, 35.0, 2)).replicas == 4);
    CHECK(a.decide(poll(60, 41.0, 4)).replicas == 4);  // 41 / (10 x 4) = 1.025: within tolerance
    CHECK(a.decide(poll(90, 55.0, 4)).replicas == 6);  // ceil(55 / 10)
  }
  SECTION("replica_calculator.go getUsageRatioReplicaCount: a Value target scales ready pods") {
    // Kubernetes: ceil(usageRatio x readyPodCount); 4 asked for, 2 of them still starting.
    Scaler a(scaler(0.020));
    const auto d = a.decide(poll(30, 0.030, 4, true, 2));
    CHECK(d.raw == 3);  // ceil(1.5 x 2), not ceil(1.5 x 4) = 6
    CHECK(d.replicas == 3);
    // The tolerance still compares the ratio alone: within 10%, the replicas asked for stay.
    Scaler b(scaler(0.020));
    CHECK(b.decide(poll(30, 0.021, 4, true, 1)).replicas == 4);
    // An AverageValue target ignores readiness: ceil(metric / target per pod).
    auto cfg = scaler(10.0);
    cfg.target = sc::Autoscaler::Target::AverageValue;
    Scaler c(cfg);
    CHECK(c.decide(poll(30, 35.0, 2, true, 0)).replicas == 4);
  }
  SECTION("scale-up stabilization takes the least recommendation of its window") {
    auto cfg = scaler(1.0);
    cfg.scale_up.stabilization_window = 60.0;
    Scaler a(cfg);
    CHECK(a.decide(poll(30, 3.0, 1)).replicas == 3);   // first poll: nothing older
    CHECK(a.decide(poll(60, 1.0, 3)).replicas == 3);   // within tolerance: raw 3
    CHECK(a.decide(poll(90, 3.0, 3)).replicas == 3);   // raw 9, but 3 at 60 s is in the window
    CHECK(a.decide(poll(120, 3.0, 3)).replicas == 7);  // window (60, 120]: 9, 9; +4 policy
  }
  SECTION("scale-to-zero after the cooldown, activation on a refused request") {
    auto cfg = scaler(1.0);
    cfg.min_replicas = 0;
    cfg.cooldown = 60.0;
    Scaler a(cfg);
    CHECK(a.decide(poll(30, 0.0, 1, true)).replicas == 1);
    CHECK(a.decide(poll(60, 0.0, 1, false)).replicas == 1);  // idle 30 s
    CHECK(a.decide(poll(90, 0.0, 1, false)).replicas == 0);  // idle 60 s
    CHECK(a.decide(poll(120, 0.0, 0, false)).replicas == 0);
    auto p = poll(150, 0.0, 0, false);
    p.refused = true;
    CHECK(a.decide(p).replicas == 1);
  }
  // SuperSONIC values.yaml:223-226 (0.3.1): with the metric read from the Triton servers, "scaling
  // from 0 to 1 will never happen": no server, no metric, no active trigger.
  SECTION("values.yaml:223-226: a metric from the servers never wakes a pool at zero") {
    auto cfg = scaler(1.0);
    cfg.min_replicas = 0;
    cfg.cooldown = 60.0;
    cfg.wake_from_zero = false;
    Scaler a(cfg);
    CHECK(a.decide(poll(30, 0.0, 1, true)).replicas == 1);
    CHECK(a.decide(poll(90, 0.0, 1, false)).replicas == 0);  // idle 60 s: to zero as before
    auto p = poll(120, 0.0, 0, true);
    p.refused = true;
    const auto d = a.decide(p);
    CHECK(d.replicas == 0);
    CHECK(d.why.find("no value without one") != std::string::npos);
  }
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

TEST_CASE("fallback: with every server down, jobs run at the CPU-only speed",
          "[engine][operations][fallback]") {
  // No network (no latency): a request that finds no server is refused at once and runs on the
  // CPU, so an event takes exactly t_CPU, as without any offloading.
  auto doc = deterministic(40, 2, 0.1, 0.3, 0.010);
  doc.erase("network");
  doc["warmup"] = 0.0;  // every try of every request counted
  doc["workload"]["client"] = {{"allowed_tries", 3}, {"fallback", "cpu"}};
  doc["faults"] = json::array({{{"kind", "crash"}, {"pool", "gpu"}, {"at", 0}}});
  const auto m = run(doc);
  check_conservation(m);
  CHECK(throughput(m) == Approx(40 / 0.1).epsilon(1e-3));
  CHECK(m.time_per_event.quantile(0.5) == Approx(0.1).epsilon(1e-9));
  CHECK(m.completed == 0);
  CHECK(m.fallback == m.sent - m.in_flight_at_end);
  // Three refused tries per request, those still computing locally at the end included.
  CHECK(m.resilience.no_server == 3 * (m.resilience.fallback_after_failure + m.in_flight_at_end));
  CHECK(m.pools[0].mean_utilization() == 0.0);

  SECTION("with a network, each refused try costs a round trip to the load balancer") {
    auto net = deterministic(40, 2, 0.1, 0.3, 0.010);
    net["workload"]["client"] = doc["workload"]["client"];
    net["faults"] = doc["faults"];
    const auto n = run(net);
    const double rtt = 2 * (100e-6 + 400e-6 + 100e-6);
    CHECK(n.time_per_event.quantile(0.5) == Approx(0.1 + 3 * rtt).epsilon(1e-9));
  }
  SECTION("without fallback the requests fail and the events go on without them") {
    doc["workload"]["client"]["fallback"] = "none";
    const auto f = run(doc);
    check_conservation(f);
    CHECK(f.fallback == 0);
    CHECK(f.failed == f.sent - f.in_flight_at_end);
    // The offloaded share is not computed anywhere: 70% of t_CPU per event.
    CHECK(f.time_per_event.quantile(0.5) == Approx(0.07).epsilon(1e-9));
  }
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

TEST_CASE("client timeout: abandoned tries still load the server, then fall back",
          "[engine][operations][fallback]") {
  // A 2 s model behind a 0.5 s client timeout: no try ever answers in time.
  auto doc = deterministic(4, 1, 1.0, 0.5, 2.0);
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"timeout", "500ms"}, {"allowed_tries", 2}, {"fallback", "cpu"}};
  const auto m = run(doc);
  check_conservation(m);
  CHECK(m.completed == 0);
  CHECK(m.failed == 0);
  // Two timed-out tries per request; those still out at the end have had one or none.
  CHECK(m.resilience.client_timeout >= 2 * m.resilience.fallback_after_failure);
  CHECK(m.resilience.client_timeout <=
        2 * (m.resilience.fallback_after_failure + m.in_flight_at_end));
  CHECK(m.resilience.abandoned == m.resilience.client_timeout);
  // An event: 0.5 s of CPU, two 0.5 s tries, 0.5 s of local inference.
  CHECK(m.time_per_event.quantile(0.5) == Approx(2.0).epsilon(1e-6));
  // The server kept working for clients that had gone: busy all the time.
  CHECK(m.pools[0].mean_utilization() > 0.99);
}

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

namespace {

// The only link is out from 100 to 130 s: no event completes while it lasts.
void check_outage(bool flows) {
  auto doc = deterministic(20, 2, 0.1, 0.1, 0.010);
  doc["warmup"] = 0.0;
  doc["duration"] = 300.0;
  doc["network"] = {{"site_uplink", {{"bandwidth", "1Gbps"}, {"latency", "1ms"}}}};
  doc["faults"] =
      json::array({{{"kind", "link"}, {"link", "site_uplink"}, {"at", 100}, {"duration", 30}}});
  doc["timeseries"] = {{"interval", "10s"}};
  const auto m = run(doc, flows);
  check_conservation(m);
  REQUIRE(m.timeseries);
  const auto& rate = m.timeseries->events_per_s;
  CHECK(rate[9] > 150.0);  // 90-100 s
  CHECK(rate[10] == 0.0);  // 100-130 s: every thread waits on a stalled transfer
  CHECK(rate[11] == 0.0);
  CHECK(rate[12] == 0.0);
  CHECK(rate[13] > 150.0);  // resumed
}

}  // namespace

// One SimGrid run per test case: SimGrid allows one engine per process.
TEST_CASE("link outage: transfers stall and resume (analytic)", "[engine][operations][faults]") {
  check_outage(false);
}

TEST_CASE("link outage: transfers stall and resume (flows)", "[engine][operations][faults][flow]") {
  check_outage(true);
}

TEST_CASE("link degradation slows a bandwidth-bound service by its factor (flows)",
          "[engine][operations][faults][flow]") {
  auto slow = deterministic(50, 4, 0.01, 0.1, 0.001);
  slow["warmup"] = 0.0;
  slow["duration"] = 60.0;
  slow["models"]["m"]["input_bytes_per_item"] = "1MB";
  slow["network"] = {{"site_uplink", {{"bandwidth", "1Gbps"}, {"latency", "1ms"}}}};
  slow["faults"] = json::array({{{"kind", "link"},
                                 {"link", "site_uplink"},
                                 {"at", 20},
                                 {"duration", 20},
                                 {"bandwidth_factor", 0.25}}});
  slow["timeseries"] = {{"interval", "10s"}};
  const auto m = run(slow, true);
  check_conservation(m);
  const auto& rate = m.timeseries->events_per_s;
  // 125 MB/s carries 125 events/s of 1 MB, then a quarter of that.
  CHECK(rate[1] == Approx(125.0).epsilon(0.02));
  CHECK(rate[3] == Approx(125.0 / 4).epsilon(0.02));
  CHECK(rate[5] == Approx(125.0).epsilon(0.02));
}

TEST_CASE("admission: a token bucket on new connections admits its burst, then its rate",
          "[engine][operations][admission]") {
  // 100 jobs all want to connect within their first 0.2 s. The bucket holds 10 and refills at
  // 0.1/s: 10 connect at once, the 90 others run on their CPUs and try again 100 s later, when
  // the bucket is full again: 10 more each round, until all are in after 9 rounds.
  auto doc = deterministic(100, 2, 0.1, 0.2, 0.0005);
  doc["duration"] = 1000.0;
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  doc["load_balancer"] = {{"admission", {{"rate", 0.1}, {"burst", 10}, {"retry_after", "100s"}}}};
  doc["timeseries"] = {{"interval", "100s"}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->connections == 100);
  CHECK(m.admission->refused == 90 + 80 + 70 + 60 + 50 + 40 + 30 + 20 + 10);
  CHECK(m.failed == 0);
  CHECK(m.fallback == m.admission->requests);  // the refused jobs' requests ran on their CPUs
  CHECK(m.resilience.tries == m.completed + m.in_flight_at_end);  // no try for those
  // While refused, a job's event takes t_CPU (its inference local); connected, t_CPU minus the
  // offloaded 20% plus a short remote call: the event rate grows round after round.
  REQUIRE(m.timeseries);
  const auto& rate = m.timeseries->events_per_s;
  for (std::size_t k = 1; k < 9; ++k) CHECK(rate[k] > rate[k - 1]);
}

TEST_CASE("admission: new connections are refused while the pool is above its threshold",
          "[engine][operations][admission]") {
  // Waves of jobs on an autoscaled pool that starts slowly: with refusal above the threshold,
  // jobs that arrive while the pool is saturated run on their CPUs instead of queueing.
  auto doc = burst();
  doc["workload"]["flow"] = {{"events_per_job", 230}, {"waves", {{"size", 50}, {"every", "60s"}}}};
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  const auto open_door = run(doc);
  doc["load_balancer"] = {
      {"admission", {{"refuse_above_threshold", true}, {"retry_after", "30s"}}}};
  const auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->refused > 0);
  CHECK(m.admission->requests > 0);
  CHECK(m.fallback == m.admission->requests);
  // The connected jobs see a shorter queue than when everyone got in.
  CHECK(m.latency.quantile(0.99) < open_door.latency.quantile(0.99));
}

TEST_CASE("admission: Envoy 1.30's listener bucket refills tokens_per_fill every fill_interval",
          "[engine][operations][admission]") {
  // Envoy's timer-driven LocalRateLimiterImpl (v1.30, the chart's envoyproxy/envoy:v1.30.9):
  // the bucket starts full and gains tokens_per_fill at every multiple of fill_interval, in one
  // lump. 100 jobs connect within 0.2 s; refused ones try again 10 s later (rounds at about 0,
  // 10, ..., 90 s, each less than a second late). Fills at 24, 48, 72 and 96 s: 5 jobs get in at
  // the rounds of 30, 50 and 80 s, none in between.
  auto doc = deterministic(100, 2, 0.1, 0.2, 0.0005);
  doc["duration"] = 100.0;
  doc["warmup"] = 0.0;
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  doc["load_balancer"] = {
      {"admission",
       {{"fill_interval", "24s"}, {"tokens_per_fill", 5}, {"burst", 10}, {"retry_after", "10s"}}}};
  auto m = run(doc);
  check_conservation(m);
  REQUIRE(m.admission);
  CHECK(m.admission->connections == 10 + 5 + 5 + 5);
  CHECK(m.admission->refused == 90 * 3 + 85 * 2 + 80 * 3 + 75 * 2);
  CHECK(m.fallback == m.admission->requests);
  // The same mean rate refilled continuously lets 2 in at 10 s already: another bucket.
  doc["load_balancer"]["admission"] = {{"rate", 5.0 / 24.0}, {"burst", 10}, {"retry_after", "10s"}};
  const auto continuous = run(doc);
  CHECK(continuous.admission->refused != m.admission->refused);

  SECTION("reconnect false: a refused job never asks again (CMSSW's TritonService asks once)") {
    doc["load_balancer"]["admission"] = {
        {"fill_interval", "24s"}, {"tokens_per_fill", 5}, {"burst", 10}, {"reconnect", false}};
    m = run(doc);
    check_conservation(m);
    CHECK(m.admission->connections == 10);
    CHECK(m.admission->refused == 90);
    // Every request of the 90 ran on its CPU, but for the one each may still be running at
    // the end.
    CHECK(m.fallback <= m.admission->requests);
    CHECK(m.admission->requests - m.fallback <= 90);
  }
}

TEST_CASE("admission: SuperSONIC's Lua filter asks Prometheus when the job connects",
          "[engine][operations][admission]") {
  // cfg/envoy-filter.lua: the load query's value, from the samples Prometheus scraped in the
  // last window, above serverLoadThreshold refuses; no value refuses too.
  auto doc = burst();
  doc["workload"]["flow"] = {{"events_per_job", 230}, {"waves", {{"size", 50}, {"every", "60s"}}}};
  doc["workload"]["client"] = {{"fallback", "cpu"}};
  const auto open_door = run(doc);
  SECTION("a saturated pool refuses newcomers; the connected jobs queue less") {
    doc["load_balancer"] = {
        {"admission", {{"refuse_above", {{"threshold", "20ms"}}}, {"retry_after", "30s"}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.admission);
    CHECK(m.admission->refused > 0);
    CHECK(m.admission->connections > 0);
    CHECK(m.fallback == m.admission->requests);
    CHECK(m.latency.quantile(0.99) < open_door.latency.quantile(0.99));
    // No KEDA needed: the same gate in front of a fixed pool.
    auto fixed = doc;
    fixed["servers"][0].erase("autoscaler");
    fixed["servers"][0]["count"] = 1;
    const auto f = run(fixed);
    check_conservation(f);
    CHECK(f.admission->refused > 0);
  }
  SECTION("a threshold nobody reaches admits every job at once") {
    doc["load_balancer"] = {{"admission", {{"refuse_above", {{"threshold", "1000s"}}}}}};
    const auto m = run(doc);
    CHECK(m.admission->refused == 0);
    CHECK(m.admission->connections == m.jobs->started);
  }
  SECTION("scrapes further apart than the window: rate() has no two samples, all refused") {
    doc["load_balancer"] = {
        {"admission",
         {{"refuse_above", {{"threshold", "1000s"}, {"window", "30s"}, {"scrape_interval", "60s"}}},
          {"reconnect", false}}}};
    const auto m = run(doc);
    CHECK(m.admission->connections == 0);
    CHECK(m.admission->refused == m.jobs->started);
  }
}

TEST_CASE("load balancer capacity: its workers or its NIC can cap the service",
          "[engine][operations][balancer]") {
  // 200 threads want about 2200 requests/s from 8 fast GPUs; every request and response also
  // passes the balancer.
  auto doc = deterministic(200, 8, 0.1, 0.1, 0.001);
  SECTION("one worker at 0.5 ms per message: 2000 messages/s, 1000 events/s") {
    doc["load_balancer"] = {{"capacity", {{"per_message", "0.5ms"}, {"workers", 1}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.balancer);
    CHECK(throughput(m) == Approx(1000.0).epsilon(0.01));
    CHECK(m.balancer->cpu_utilization == Approx(1.0).epsilon(0.01));
    CHECK(m.balancer->wait.mean() > 0.01);  // the queue is in front of the balancer
  }
  SECTION("four workers: no longer the bottleneck") {
    doc["load_balancer"] = {{"capacity", {{"per_message", "0.5ms"}, {"workers", 4}}}};
    const auto m = run(doc);
    REQUIRE(m.balancer);
    CHECK(throughput(m) > 2000.0);
    CHECK(m.balancer->cpu_utilization < 0.6);
  }
  SECTION("a 100 Mbps NIC carries 12.5 MB/s: 10100 bytes per event, 1238 events/s") {
    doc["load_balancer"] = {{"capacity", {{"bandwidth", "100Mbps"}}}};
    const auto m = run(doc);
    check_conservation(m);
    REQUIRE(m.balancer);
    CHECK(throughput(m) == Approx(12.5e6 / 10100.0).epsilon(0.01));
    CHECK(m.balancer->nic_utilization == Approx(1.0).epsilon(0.01));
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
    {
      std::uint64_t sent = 0, completed = 0, failed = 0, fallback = 0, in_flight = 0, events = 0;
      for (const auto& w : m.workloads) {
        sent += w.sent;
        completed += w.completed;
        failed += w.failed;
        fallback += w.fallback;
        in_flight += w.in_flight_at_end;
        events += w.events_completed;
        CHECK(w.sent >= w.completed + w.failed + w.fallback);
      }
      CHECK(sent == m.sent);
      CHECK(completed == m.completed);
      CHECK(failed == m.failed);
      CHECK(fallback == m.fallback);
      CHECK(in_flight == m.in_flight_at_end);
      CHECK(events == m.events_completed);
      if (m.workloads.size() > 1) ++shared;
    }
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
