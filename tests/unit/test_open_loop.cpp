// Open-loop arrivals (workload.arrivals): what a planner relies on when requests come at a rate
// whatever the responses. Queueing theory gives exact answers here, so the checks are against
// formulas, not against earlier runs of the simulator.
#include "results_support.hpp"
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/results.hpp>

using namespace test;
using sonicsim::scenario::InputError;

namespace {

double span(const sonicsim::engine::RunMetrics& m) {
  return m.duration - m.warmup;
}

}  // namespace

TEST_CASE("open loop: below saturation every arrival is served at the offered rate",
          "[engine][open_loop]") {
  for (const std::string dist : {"constant", "poisson"}) {
    const auto m = run(open_loop(500, dist));
    INFO(dist);
    const double offered = static_cast<double>(m.open_loop->arrivals) / span(m);
    // Constant arrivals: exactly 500/s up to one arrival; Poisson: within its count noise
    // (sqrt(90000) = 300, 0.33%, so 1.5% is over four standard deviations).
    CHECK(offered == Approx(500).epsilon(dist == "constant" ? 1e-4 : 0.015));
    CHECK(m.throughput() == Approx(offered).epsilon(0.002));
    CHECK(static_cast<double>(m.completed) / span(m) == Approx(offered).epsilon(0.002));
    CHECK(m.failed == 0);
    CHECK(m.open_loop->dropped == 0);
    CHECK(std::abs(m.backlog_growth_per_s()) < 0.1);
    CHECK_FALSE(m.backlog_growing());
    CHECK(m.pools.at(0).mean_utilization() == Approx(0.5).epsilon(0.02));
    check_conservation(m);
  }
}

TEST_CASE("open loop: M/D/1 queueing time matches Pollaczek-Khinchine", "[engine][open_loop]") {
  // W_q = rho S / (2 (1 - rho)) for Poisson arrivals and a constant service time S.
  for (double rho : {0.5, 0.8}) {
    const auto m = run(open_loop(rho / 0.001, "poisson", 2000.0));
    const double pk = rho * 0.001 / (2.0 * (1.0 - rho));
    INFO("rho " << rho << ", P-K " << pk << " s, simulated " << m.models[0].queue_time.mean());
    CHECK(m.models[0].queue_time.mean() == Approx(pk).epsilon(0.03));
    CHECK(m.latency.mean() == Approx(pk + 0.001).epsilon(0.03));
    check_conservation(m);
  }
  // Constant arrivals at the same load never queue (D/D/1): the randomness is what P-K measures.
  const auto d = run(open_loop(800, "constant"));
  CHECK(d.models[0].queue_time.mean() < 1e-9);
}

TEST_CASE("open loop: Poisson arrivals have a longer tail than constant ones",
          "[engine][open_loop]") {
  const auto constant = run(open_loop(700, "constant"));
  const auto poisson = run(open_loop(700, "poisson"));
  CHECK(constant.latency.quantile(0.99) == Approx(0.001).epsilon(0.01));
  CHECK(poisson.latency.quantile(0.99) > 3.0 * constant.latency.quantile(0.99));
}

TEST_CASE("open loop past saturation: the backlog grows, or the queue policy rejects",
          "[engine][open_loop]") {
  // 2000 requests/s at 1000/s of capacity.
  auto doc = open_loop(2000, "poisson", 20.0);
  const auto grows = run(doc);
  CHECK(grows.backlog_growing());
  CHECK(grows.backlog_growth_per_s() == Approx(1000).epsilon(0.05));
  CHECK(grows.throughput() == Approx(1000).epsilon(0.01));
  CHECK(grows.in_flight_at_end > 15000);
  CHECK(grows.failed == 0);
  check_conservation(grows);

  // Triton's max_queue_size turns the excess into rejections and keeps the queue short.
  doc["models"]["m"]["max_batch_size"] = 1;
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_size", 10}};
  const auto rejects = run(doc);
  CHECK_FALSE(rejects.backlog_growing());
  CHECK(static_cast<double>(rejects.completed) / span(rejects) == Approx(1000).epsilon(0.01));
  CHECK(static_cast<double>(rejects.failed) / span(rejects) == Approx(1000).epsilon(0.05));
  // One executing and ten queued, plus the few on their way in or back at that instant.
  CHECK(rejects.in_flight_at_end <= 15);
  CHECK(rejects.open_loop->peak_in_flight <= 15);
  check_conservation(rejects);

  // The client's max_in_flight bounds what is outstanding (and the simulator's memory).
  doc = open_loop(2000, "poisson", 20.0);
  doc["workload"]["arrivals"]["max_in_flight"] = 500;
  const auto capped = run(doc);
  CHECK(capped.backlog_growing());
  CHECK(capped.open_loop->peak_in_flight == 500);
  CHECK(capped.in_flight_at_end <= 500);
  CHECK(static_cast<double>(capped.open_loop->dropped) / span(capped) ==
        Approx(1000).epsilon(0.05));
  check_conservation(capped);
}

TEST_CASE("open loop: several requests per arrival, unserved models, and the event time",
          "[engine][open_loop]") {
  auto doc = open_loop(100, "constant");
  doc["models"]["cpu_only"] = doc["models"]["m"];
  doc["workload"]["requests"] =
      json::array({{{"model", "m"}, {"per_event", 3}}, {{"model", "cpu_only"}, {"per_event", 2}}});
  const auto m = run(doc);
  // Three requests sent at once to one device: the event ends with the third, 3 ms later.
  CHECK(m.time_per_event.mean() == Approx(0.003).epsilon(1e-6));
  CHECK(m.latency.mean() == Approx(0.002).epsilon(1e-6));
  CHECK(m.completed == 3 * m.events_completed);
  CHECK(m.fallback == 2 * m.open_loop->arrivals);
  CHECK(m.open_loop->requests_sent == 5 * m.open_loop->arrivals);
  check_conservation(m);
}

TEST_CASE("open loop: the analytic block knows the saturation rate", "[analytic][open_loop]") {
  auto p = sonicsim::analytic::predict(scenario_of(open_loop(500, "constant")));
  REQUIRE(p.arrival_rate_per_s);
  CHECK(p.saturation_rate_per_s == Approx(1000));
  CHECK_FALSE(p.saturated);
  CHECK(p.throughput_per_s == Approx(500));
  CHECK(p.t_sonic_s == Approx(0.001));
  CHECK(p.pools.at(0).utilization == Approx(0.5));
  CHECK_FALSE(p.mva);
  p = sonicsim::analytic::predict(scenario_of(open_loop(1500, "constant")));
  CHECK(p.saturated);
  CHECK(p.throughput_per_s == Approx(1000));
  CHECK(std::isinf(p.t_sonic_s));
}

TEST_CASE("open loop: same seed, same bytes; another seed, other arrivals", "[engine][open_loop]") {
  auto doc = open_loop(700, "poisson", 20.0);
  const auto results = [&] { return results_without_perf(scenario_of(doc)); };
  const std::string first = results();
  CHECK(results() == first);
  CHECK(first.find("\"arrivals\"") != std::string::npos);
  doc["seed"] = 2;
  CHECK(results() != first);
}

TEST_CASE("open loop: conservation holds at every cut, with rejections and fallback",
          "[engine][open_loop]") {
  auto doc = open_loop(1500, "poisson");
  doc["models"]["cpu_only"] = doc["models"]["m"];
  doc["workload"]["requests"].push_back({{"model", "cpu_only"}});
  doc["workload"]["requests"][0]["items"] = {{"dist", "exponential"}, {"mean", 1.5}};
  doc["models"]["m"]["max_batch_size"] = 2;  // requests of three items or more fail
  doc["models"]["m"]["dynamic_batching"] = {{"max_queue_size", 5}};
  for (double duration : {0.5, 3.33, 17.0}) {
    doc["duration"] = duration;
    doc["warmup"] = duration / 3;
    const auto m = run(doc);
    INFO("duration " << duration);
    CHECK(m.failed > 0);
    CHECK(m.fallback > 0);
    CHECK(m.in_flight_at_end > 0);
    check_conservation(m);
  }
}
