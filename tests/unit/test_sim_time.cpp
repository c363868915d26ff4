// The simulated clock keeps its nanosecond to the longest run the scenario allows (issue 35: a
// double of seconds hung past 2^24 s and, at 10 years, rounded every instant to 60 ns).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <sonicsim/engine/simulation.hpp>
#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/sim_time.hpp>

#include "support.hpp"

using sonicsim::Time;
using test::json;

namespace {

constexpr double kTenYears = 10 * 365.25 * 86400;  // 315,576,000 s

// A closed loop of one thread that waits 1e7 s of CPU per event, half of it before a request to
// a pipeline of latency `latency` with no network: the request's round trip is that latency
// exactly, at whatever time of the run it happens.
json late_pipeline_requests(double latency, double duration) {
  return json{
      {"name", "ten-years"},
      {"duration", duration},
      {"warmup", 0.0},
      {"workload",
       {{"jobs", 1},
        {"threads_per_job", 1},
        {"cpu_time_per_event", 1e7},
        {"requests", json::array({{{"model", "m"}, {"offload_fraction", 0.5}}})}}},
      {"devices", {{"FPGA", {{"kind", "pipeline"}}}}},
      {"models",
       {{"m", {{"service_time", {{"FPGA", {{"latency", latency}, {"interval", latency / 2}}}}}}}}},
      {"servers",
       json::array({{{"name", "fpga"}, {"count", 1}, {"device", "FPGA"}, {"models", {"m"}}}})}};
}

}  // namespace

TEST_CASE("time: an instant plus a duration keeps the nanosecond at ten years", "[time]") {
  const Time t = Time::from_seconds(kTenYears);
  CHECK(t.ns() == 315'576'000'000'000'000);
  CHECK((t + 1e-9) - t == 1e-9);
  CHECK(t + 1e-9 > t);
  CHECK((t + 1.6e-6) - t == 1.6e-6);
  // What a double of seconds does there: the nanosecond is lost (the spacing is 60 ns).
  CHECK((kTenYears + 1e-9) - kTenYears == 0.0);
  CHECK(std::nextafter(kTenYears, 1e300) - kTenYears == Approx(5.96e-8).epsilon(0.01));
}

TEST_CASE("time: rounding to the nanosecond, never(), and sums past the range", "[time]") {
  CHECK(Time::from_seconds(1.4e-9).ns() == 1);
  CHECK(Time::from_seconds(1.6e-9).ns() == 2);
  CHECK(Time::from_seconds(0.3).ns() == 300'000'000);
  CHECK(Time::from_seconds(-2.0).ns() == -2'000'000'000);
  CHECK(Time::from_seconds(-1.5e-9).ns() == -2);
  // Every instant of a run survives a round trip through its double where that is exact (to
  // 2^53 ns, 104 days), odd ones included: no rounding to even past 2^52.
  for (std::int64_t ns :
       {std::int64_t{1}, (std::int64_t{1} << 52) + 1, (std::int64_t{1} << 53) - 1})
    CHECK(Time::from_seconds(Time::from_ns(ns).seconds()).ns() == ns);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Time::from_seconds(inf).is_never());
  CHECK(Time::from_seconds(std::nan("")).is_never());
  CHECK(Time::from_seconds(1e300).is_never());  // past 292 years
  CHECK(std::isinf(Time::never().seconds()));
  CHECK((Time::never() + 1.0).is_never());
  CHECK((Time::from_seconds(9e9) + 9e9).is_never());  // the sum passes 2^63 ns
  CHECK(Time::never() - Time::zero() == inf);
  CHECK(Time::never() > Time::from_seconds(9.2e9));
  CHECK(Time::from_seconds(2.5) - Time::from_seconds(1.0) == 1.5);
}

TEST_CASE("time: the platform's double clock reaches every instant at or before it", "[time]") {
  // Past 2^22 s several nanoseconds share one double: platform_instant(t) is the last of those
  // at or before t, so an event next_time() reported as t is processed when the platform's
  // clock is t, and nothing after it.
  for (double t : {0.0, 1e-9, 0.25, 3600.0, 4.2e6, 1.7e7, 2.0e8, kTenYears}) {
    for (double x : {t, std::nextafter(t, 1e300)}) {
      INFO("t = " << x);
      const Time r = sonicsim::engine::Simulation::platform_instant(x);
      CHECK(r.seconds() <= x);
      CHECK((r + 1e-9).seconds() > x);
    }
  }
}

TEST_CASE("time: a run of the longest duration (10 years) ends and keeps a 2 us latency exact",
          "[time][engine]") {
  // Before: past 2^24 s the execution's remaining work (under half the double's spacing) was
  // rescheduled at the same instant for ever; later, each latency was off by up to 60 ns.
  const double latency = 2e-6;
  const auto m =
      test::run(late_pipeline_requests(latency, sonicsim::scenario::Limits::max_duration_s));
  test::check_conservation(m);
  // One event per 1e7 s (half before its request, half after).
  CHECK(m.events_completed >= 30);
  REQUIRE(m.latency.count() >= 30);
  CHECK(m.latency.min() == Approx(latency).epsilon(1e-9));
  CHECK(m.latency.max() == Approx(latency).epsilon(1e-9));
}
