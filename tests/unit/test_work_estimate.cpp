// The work estimate behind the time budget (runner/work_estimate.hpp): its terms against what the
// engine processes, the budget's flag, and the random crashes of devices that do not serve.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/util/errors.hpp>

#include "support.hpp"

namespace {

using test::json;
namespace runner = sonicsim::runner;

double work_term(const runner::WorkEstimate& e, const std::string& prefix) {
  for (const auto& t : e.terms)
    if (t.what.rfind(prefix, 0) == 0) return t.events;
  return 0.0;
}

// A KEDA-like pool of 8 devices of which the autoscaler keeps 1 serving (the load never asks
// for more), each device failing at random.
json work_idle_autoscaled_pool(double mtbf, double mttr) {
  json doc = test::deterministic(4, 8, 1.0, 0.1, 0.001);
  doc["duration"] = 200.0;
  doc["warmup"] = 0.0;
  doc["servers"][0]["autoscaler"] = {{"metric", "queue_time"}, {"threshold", 1.0},
                                     {"min_replicas", 1},      {"max_replicas", 8},
                                     {"initial_replicas", 1},  {"polling_interval", 10.0},
                                     {"window", 10.0}};
  doc["faults"] =
      json::array({{{"kind", "random_crashes"}, {"pool", "gpu"}, {"mtbf", mtbf}, {"mttr", mttr}}});
  return doc;
}

}  // namespace

TEST_CASE("work estimate: a thread's events are duration / mean plus Lorden's spread term",
          "[work]") {
  // 10 threads, a request per event (4 engine events each, beside the event's own): 5 a event.
  json doc = test::deterministic(10, 1, 0.1, 0.0, 0.01);
  doc["duration"] = 100.0;
  doc["warmup"] = 0.0;
  const double t_event =
      0.1 + test::scenario_of(doc).fastest_event_without_cpu(test::scenario_of(doc).workloads[0]);
  // Constant times: one more event per thread than duration / the fastest event, the one each
  // begins at the start.
  auto e = runner::estimate_work(test::scenario_of(doc));
  const double constant = work_term(e, "the workload's client events");
  CHECK(constant == Approx(10.0 * (1.0 + 100.0 / t_event) * 5.0));
  // A lognormal CPU time of CV 3 and the same mean: 1 + CV^2 = 10 a thread instead of 1.
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 3.0}};
  e = runner::estimate_work(test::scenario_of(doc));
  CHECK(work_term(e, "the workload's client events") - constant == Approx(10.0 * 9.0 * 5.0));
  CHECK(e.terms.front().what.find("10 (1 + CV^2 of t_CPU)") != std::string::npos);
  // A run much shorter than one event still begins one per thread.
  doc["duration"] = 1e-6;
  doc["workload"]["cpu_time_per_event"] = 1000.0;
  e = runner::estimate_work(test::scenario_of(doc));
  CHECK(work_term(e, "the workload's client events") == Approx(10.0 * 5.0).epsilon(1e-6));
}

TEST_CASE("work estimate: spread CPU times in a short run stay within the estimate", "[work]") {
  // The property test's find: a lognormal of CV 27 processed 4x its estimate when it counted
  // duration / mean alone.
  for (const double cv : {0.0, 1.0, 5.0, 27.0}) {
    json doc = test::deterministic(20, 2, 1.0, 0.1, 0.002);
    doc["duration"] = 30.0;
    doc["warmup"] = 0.0;
    if (cv > 0.0)
      doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 1.0}, {"cv", cv}};
    const auto s = test::scenario_of(doc);
    const auto out = runner::simulate(s, runner::TransportChoice{});
    INFO("cv " << cv << ": " << out.events_processed << " events, estimated "
               << out.estimated_events);
    CHECK(out.events_processed <= out.estimated_events);
    CHECK(out.estimated_events == runner::estimate_work(s).events);
  }
}

TEST_CASE("random crashes: a device the autoscaler keeps off draws no failures", "[work][faults]") {
  // An MTBF of 1 us on 7 devices kept off was 1.4e9 no-op events over 200 s, each drawing the
  // next; the device serving crashes and comes back about 200 times (1 s to repair).
  const auto s = test::scenario_of(work_idle_autoscaled_pool(1e-6, 1.0));
  const auto out = runner::simulate(s, runner::TransportChoice{});
  INFO(out.events_processed << " events, estimated " << out.estimated_events);
  CHECK(out.events_processed < 10000.0);
  CHECK(out.events_processed <= out.estimated_events);
  // The one serving device fails at once each time it is back: about 200 s / 1 s crashes.
  const auto crashes = static_cast<double>(out.metrics.pools[0].crashes);
  CHECK(crashes > 150.0);
  CHECK(crashes < 250.0);
}

TEST_CASE("random crashes: failures come at 1 / MTBF of the time a device serves",
          "[work][faults]") {
  // An autoscaled pool whose replicas come and go: the crashes counted over the device-hours
  // served match 1 / MTBF (the clock of a device runs while it serves, so starting, draining
  // and off times neither add failures nor lose them).
  json doc = test::deterministic(400, 8, 0.05, 0.5, 0.02);
  doc["duration"] = 20000.0;
  doc["warmup"] = 0.0;
  doc["servers"][0]["autoscaler"] = {{"metric", "queue_length"},
                                     {"threshold", 2.0},
                                     {"min_replicas", 2},
                                     {"max_replicas", 8},
                                     {"initial_replicas", 2},
                                     {"polling_interval", 30.0},
                                     {"window", 30.0}};
  doc["faults"] =
      json::array({{{"kind", "random_crashes"}, {"pool", "gpu"}, {"mtbf", 600.0}, {"mttr", 30.0}}});
  const auto out = runner::simulate(test::scenario_of(doc), runner::TransportChoice{});
  const auto& pool = out.metrics.pools[0];
  const double served_s = pool.replica_seconds_up;
  const double expected = served_s / 600.0;
  INFO(pool.crashes << " crashes over " << served_s / 3600.0 << " device-hours, expected "
                    << expected);
  CHECK(expected > 100.0);
  // Poisson: within 4 standard deviations.
  CHECK(std::abs(static_cast<double>(pool.crashes) - expected) < 4.0 * std::sqrt(expected));
}

TEST_CASE("time budget: its flag's values, and a refusal that names the largest term", "[work]") {
  auto& budget = runner::time_budget();
  double v = 0.0;
  std::string error;
  CHECK(budget.parse("30min", v, error));
  CHECK(v == 1800.0);
  CHECK(budget.parse("7200", v, error));
  CHECK(v == 7200.0);
  CHECK(budget.parse("unlimited", v, error));
  CHECK(std::isinf(v));
  for (const char* bad : {"0", "0.5s", "-1h", "soon", "nan", "1e999s"}) {
    INFO(bad);
    CHECK_FALSE(budget.parse(bad, v, error));
    CHECK(error.find("expected a wall time of at least 1s") != std::string::npos);
  }
  CHECK(std::string(budget.flag()) == "--time-budget");

  const auto s = test::scenario_of(work_idle_autoscaled_pool(1e-6, 1e-6));
  const double saved = budget.value();
  budget.set(60.0);
  try {
    runner::check_time_budget(s, runner::estimate_work(s));
    FAIL("expected the time budget to refuse the run");
  } catch (const sonicsim::InputError& e) {
    const std::string m = e.what();
    INFO(m);
    CHECK(m.find("above the time budget of 1.00 min; the largest terms: random crashes of pool "
                 "`gpu`: 8 devices x (1 + 2 x 3.33 min / (mtbf + mttr = 2.00 us))") !=
          std::string::npos);
    CHECK(m.find("--time-budget DURATION") != std::string::npos);
  }
  budget.set(saved);
  CHECK(budget.argument() == "3600");
}
