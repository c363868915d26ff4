// `network.flow_model: auto` near saturation: the choice is judged at the most traffic the
// devices allow (not at MVA's estimate, which understates a near-deterministic system's
// throughput at the knee), and checked again against the run's own event rates; a run its own
// loads contradict is run again with flows (issue 33).
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/runner.hpp>

using namespace test;

namespace {

// Twelve threads just past the knee of one device (Z + transfers ~ 0.1 s, D = 0.01 s): constant
// times, so the run carries the asymptotic 100 events/s while MVA's exponential queues predict
// 87. Each event sends 1 MB over the uplink.
json knee_with_uplink(const char* uplink) {
  return one_megabyte_per_event(12, uplink, 60.0);
}

double uplink_load(double events_per_s, double bandwidth_Bps) {
  return events_per_s * 1e6 / bandwidth_Bps;
}

}  // namespace

TEST_CASE("auto judges the links at the most traffic the devices allow", "[network][auto]") {
  // 95 MB/s: MVA's throughput puts the uplink below 100%, the run's would not be.
  const auto s = scenario_of(knee_with_uplink("95MB/s"));
  const auto p = sonicsim::analytic::predict(s);
  REQUIRE(p.mva);
  const double bandwidth = 95e6;
  CHECK(uplink_load(p.mva->throughput_per_s, bandwidth) < 0.95);
  const auto choice = sonicsim::runner::choose_transport(s, p);
  CHECK(choice.worst_link_utilization >= 1.0);
  CHECK(choice.flow_to_servers);
  // Under the analytic path the run carries more than the uplink can: what auto must not use.
  const auto analytic = sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice{});
  const double carried = uplink_load(analytic.metrics.throughput(), bandwidth);
  CHECK(carried > 1.0);
  CHECK(carried <= choice.worst_link_utilization * (1 + 1e-9));
}

TEST_CASE("auto checks its choice against the run and runs again with flows", "[network][auto]") {
  const auto s = scenario_of(knee_with_uplink("95MB/s"));
  const auto p = sonicsim::analytic::predict(s);
  const sonicsim::runner::TransportChoice analytic;  // what a wrong first judgement would use
  const auto run = sonicsim::runner::simulate(s, analytic);
  const auto check = sonicsim::runner::check_transport(s, p, analytic, run.metrics);
  REQUIRE(check.observed_utilization);
  CHECK(*check.observed_utilization ==
        Approx(uplink_load(run.metrics.throughput(), 95e6)).epsilon(1e-9));
  REQUIRE(check.rerun);
  CHECK(check.rerun->flow_to_servers);
  CHECK(check.rerun->runs == 2);
  CHECK_THAT(check.rerun->reason, Catch::Contains("checked against the run") &&
                                      Catch::Contains("site_uplink (to servers)"));
  // Judged again on the flows' own run, nothing is left to change.
  const auto again = sonicsim::runner::simulate(s, *check.rerun);
  CHECK_FALSE(sonicsim::runner::check_transport(s, p, *check.rerun, again.metrics).rerun);
  // The flows' run carries what the link can.
  CHECK(uplink_load(again.metrics.throughput(), 95e6) <= 1.0 + 1e-6);

  // With the analytic path chosen by the scenario, nothing is second-guessed: the summary's
  // warning says so instead.
  auto forced_doc = knee_with_uplink("95MB/s");
  forced_doc["network"]["flow_model"] = "analytic";
  const auto forced = scenario_of(forced_doc);
  const auto forced_run = sonicsim::runner::run_checked(forced, p);
  CHECK(forced_run.metrics.transport == "analytic");
  CHECK_FALSE(forced_run.transport.observed_link_utilization);
  const auto warnings = sonicsim::results::run_warnings(forced, forced_run);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("site_uplink carried") &&
                              Catch::Contains("network.flow_model is \"analytic\""));
}

TEST_CASE("a lightly loaded run keeps the analytic path and records what it carried",
          "[network][auto]") {
  const auto s = scenario_of(knee_with_uplink("10Gbps"));
  const auto p = sonicsim::analytic::predict(s);
  const auto run = sonicsim::runner::run_checked(s, p);
  CHECK(run.metrics.transport == "analytic");
  CHECK(run.transport.runs == 1);
  REQUIRE(run.transport.observed_link_utilization);
  // The run's own load never exceeds the bound it was judged at (here it reaches it).
  CHECK(*run.transport.observed_link_utilization <=
        run.transport.worst_link_utilization * (1 + 1e-9));
  CHECK(sonicsim::results::run_warnings(s, run).empty());
}

TEST_CASE("auto's runs agree with every payload a flow near saturation", "[network][auto]") {
  const auto s = scenario_of(knee_with_uplink("95MB/s"));
  const auto p = sonicsim::analytic::predict(s);
  const auto chosen = sonicsim::runner::run_checked(s, p);
  const auto flows =
      sonicsim::runner::simulate(s, sonicsim::runner::TransportChoice::all_flows()).metrics;
  // The responses (100 B) alone on their direction: their path changes nothing measurable.
  CHECK(chosen.metrics.throughput() ==
        Approx(flows.throughput()).epsilon(s.network.auto_tolerance));
  CHECK_FALSE(chosen.metrics.transport == "analytic");
}
