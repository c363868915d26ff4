// The network path (src/engine/network_path.cpp): byte counters per link and direction, link
// outages and degradations. Links count bytes as they are delivered (carried) and, apart, as
// they are sent (offered):
// with flows a link never shows more than its bandwidth, in any window or on average, while the
// demand it was offered can be higher (issue 33: a 100 B/s link reported 261,847,100%).
#include "support.hpp"

#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/runner.hpp>

using namespace test;

namespace {

// Ten threads that would send 1 MB per event at ~100 events/s over an uplink of `uplink`.
json overloaded(const char* uplink) {
  auto doc = one_megabyte_per_event(10, uplink, 40.0);
  doc["timeseries"] = {{"interval", 0.5}};
  return doc;
}

const sonicsim::engine::RunMetrics::Link& uplink_of(const sonicsim::engine::RunMetrics& m) {
  for (const auto& l : m.links)
    if (l.name == "site_uplink") return l;
  FAIL("no site_uplink");
  return m.links.front();
}

}  // namespace

TEST_CASE("with flows a link carries at most its bandwidth, in every window",
          "[network][flow][links]") {
  const auto s = scenario_of(overloaded("40MB/s"));
  const auto m =
      sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice::all_flows()).metrics;
  const auto& l = uplink_of(m);
  const double span = m.span();
  // The uplink is the bottleneck: busy nearly all the time, never above its bandwidth.
  CHECK(l.peak_utilization() <= 1.0 + 1e-9);
  CHECK(l.peak_utilization() > 0.95);
  CHECK(l.bytes[0] / span / l.bandwidth <= 1.0 + 1e-9);
  CHECK(l.busiest_utilization(span) <= 1.0 + 1e-9);
  // What the flows delivered is what the requests that arrived sent, within the transfers
  // under way at either end of the measured span (a few MB at most).
  CHECK(std::abs(l.bytes[0] - l.offered[0]) <= 12e6);
  // The time series too, window by window, warm-up included.
  REQUIRE(m.timeseries);
  const auto& tl = m.timeseries->links.at(static_cast<std::size_t>(&l - m.links.data()));
  REQUIRE(tl.utilization.size() == m.timeseries->t.size());
  for (double u : tl.utilization) CHECK(u <= 1.0 + 1e-9);
  for (double b : tl.bytes_per_s[0]) CHECK(b <= l.bandwidth * (1.0 + 1e-9));
}

TEST_CASE("results keep the offered load beside the carried", "[network][flow][links]") {
  // 4 MB/s where the threads alone would send ~100 MB/s: each waits for its last MB to come
  // back, so what they offer is paced by what the link carries.
  const auto s = scenario_of(overloaded("4MB/s"));
  const auto run = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice::all_flows());
  const auto& l = uplink_of(run.metrics);
  CHECK(l.peak_utilization() <= 1.0 + 1e-9);
  // Never less offered than carried, beyond the ten transfers under way at the warm-up's end.
  CHECK(l.offered[0] >= l.bytes[0] - 11e6);
  const auto results = sonicsim::results::to_json(s, run, nlohmann::json::object());
  const auto& link = results["links"][1];
  REQUIRE(link["name"] == "site_uplink");
  CHECK(link["peak_utilization"].get<double>() <= 1.0 + 1e-9);
  CHECK(link.contains("offered_peak_utilization"));
  CHECK(link.contains("offered_mean_utilization"));
}

TEST_CASE("the analytic transport carries what it is offered, and the summary says it cannot",
          "[network][links]") {
  auto doc = overloaded("40MB/s");
  doc["network"]["flow_model"] = "analytic";
  const auto s = scenario_of(doc);
  const auto run = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const auto& l = uplink_of(run.metrics);
  const double span = run.metrics.span();
  // Without sharing, ~80 MB/s pass a 40 MB/s link: offered and carried alike, both impossible.
  CHECK(l.bytes[0] / span / l.bandwidth > 1.5);
  CHECK(l.bytes[0] == Approx(l.offered[0]).epsilon(0.01));
  const auto warnings = sonicsim::results::run_warnings(s, run);
  REQUIRE_FALSE(warnings.empty());
  CHECK_THAT(warnings[0], Catch::Contains("too short"));
}

TEST_CASE("link byte counters equal the sum of payloads", "[engine][network]") {
  auto doc = deterministic(3, 1);
  doc["warmup"] = 0.0;
  const auto m = run(doc);
  // Every request carries 10 kB up and 100 B down; requests cut by the end sent only theirs.
  const double completed = static_cast<double>(m.completed);
  for (const auto& l : m.links) {
    INFO(l.name);
    CHECK(l.total_bytes() >= completed * 10100.0);
    CHECK(l.total_bytes() <= (completed + static_cast<double>(m.in_flight_at_end)) * 10100.0);
    // Each direction carries its own payloads: 10 kB up, 100 B down per request.
    CHECK(l.bytes[1] * 100.0 == Approx(l.bytes[0]).epsilon(0.01));
  }
}

namespace {

// The only link is out from 100 to 130 s: no event completes while it lasts.
void np_check_outage(bool flows) {
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
  np_check_outage(false);
}

TEST_CASE("link outage: transfers stall and resume (flows)", "[engine][operations][faults][flow]") {
  np_check_outage(true);
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
