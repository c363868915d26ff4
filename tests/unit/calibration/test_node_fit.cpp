// calibrate nodes (calibration/node_fit.hpp): the worker node's speed model fitted from per-job
// throughputs against jobs per node. Measurements are made from NodeSpec itself, the model the
// engine runs: noise-free ones must come back exactly, noisy ones inside their intervals.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/scenario/node.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/rng.hpp>
#include <sonicsim/util/sha256.hpp>

#include "problems.hpp"

using namespace sonicsim::calibration;
using sonicsim::Rng;
using sonicsim::scenario::NodeSpec;

namespace {

struct Truth {
  Truth(int c = 32, int h_per_core = 2, double h = 0.6, double t = 0.9,
        std::optional<double> m = std::nullopt)
      : cores(c), threads_per_core(h_per_core), hyperthread(h), t1(t), cap(m) {}
  int cores, threads_per_core;
  double hyperthread, t1;
  std::optional<double> cap;
  NodeSpec node() const {
    NodeSpec n;
    n.cores = cores;
    n.threads_per_core = threads_per_core;
    n.hyperthread = hyperthread;
    n.memory_bandwidth_threads = cap;
    return n;
  }
};

// A CSV of `repeats` rows at each number of jobs, each job of `threads` threads running
// T s(J T) / t1 events per second, times (1 + noise x a standard normal) when noise > 0.
std::string measured(const Truth& truth, int threads, const std::vector<int>& jobs, int repeats,
                     double noise = 0.0, std::uint64_t seed = 1) {
  Rng rng(seed);
  const NodeSpec node = truth.node();
  std::string csv = "jobs_per_node,threads_per_job,throughput_per_job\n";
  char line[128];
  for (int j : jobs)
    for (int r = 0; r < repeats; ++r) {
      double y = threads * node.per_thread_speed(static_cast<double>(j) * threads) / truth.t1;
      if (noise > 0.0) y *= 1.0 + noise * rng.normal();
      std::snprintf(line, sizeof line, "%d,%d,%.17g\n", j, threads, y);
      csv += line;
    }
  return csv;
}

NodeFit fit_text(const std::string& csv, const Truth& truth, bool memory_bandwidth = false) {
  return fit_node(parse_node_measurements(csv, "node.csv"),
                  {truth.cores, truth.threads_per_core, memory_bandwidth});
}

bool covers(const NodeParameter& p, double truth) {
  return p.low <= truth && truth <= p.high;
}

// What reading `csv` and fitting it refuses, "" if nothing.
std::string error_of(const std::string& csv, const Truth& truth = {}) {
  return test::refusal_of([&] { fit_text(csv, truth); });
}

}  // namespace

TEST_CASE("calibrate nodes: two noise-free occupancies give back t1 and hyperthread exactly",
          "[calibration][nodes]") {
  struct Case {
    Truth truth;
    int threads;
    std::vector<int> jobs;  // one at most `cores` busy threads, one above with cores shared
  };
  const Case cases[] = {
      {{32, 2, 0.62, 0.85}, 8, {2, 8}},  // 16 busy, then 64: every core's two threads busy
      {{16, 2, 0.5, 2.0}, 4, {1, 6}},    // 24 busy: 8 cores doubled up, 8 alone
      {{8, 4, 0.45, 0.1}, 1, {3, 20}},   // SMT4, 20 busy: 4 cores with 3 threads, 4 with 2
      {{64, 2, 1.0, 0.3}, 8, {4, 16}},   // hyper-threads as good as cores
      {{24, 2, 0.7, 1.5}, 4, {6, 24}},   // 96 busy on 48 hardware threads: time-sliced
  };
  for (const auto& c : cases) {
    CAPTURE(c.truth.cores, c.truth.threads_per_core, c.truth.hyperthread, c.threads);
    const NodeFit fit = fit_text(measured(c.truth, c.threads, c.jobs, 1), c.truth);
    CHECK(fit.cpu_time_per_event.value == Approx(c.truth.t1).epsilon(1e-9));
    CHECK(fit.hyperthread.value == Approx(c.truth.hyperthread).epsilon(1e-9));
    CHECK(fit.rms_residual < 1e-9);
    // Two rows for two parameters: the point estimate, no interval, and why.
    CHECK(fit.dof == 0);
    CHECK(std::isnan(fit.hyperthread.low));
    CHECK(fit.no_interval.find("no degrees of freedom") != std::string::npos);
    // The fitted speed at each occupancy is the node's.
    for (const auto& o : fit.occupancies)
      CHECK(o.fitted_speed == Approx(c.truth.node().per_thread_speed(o.busy_threads)));
  }
}

TEST_CASE("calibrate nodes: the written fragment is the fitted node, null intervals at dof 0",
          "[calibration][nodes]") {
  const Truth truth{32, 2, 0.62, 0.85};
  const std::string csv = measured(truth, 8, {2, 8}, 1);
  const auto m = parse_node_measurements(csv, "dir/node.csv");
  const auto doc = to_json(fit_node(m, {32, 2, false}), m, "sonicsim calibrate nodes ...");
  const auto& node = doc["workload"]["node"];
  CHECK(node["cores"] == 32);
  CHECK(node["threads_per_core"] == 2);
  CHECK(node["speed"]["hyperthread"].get<double>() == Approx(0.62).epsilon(1e-9));
  CHECK_FALSE(node["speed"].contains("memory_bandwidth_threads"));
  CHECK(doc["workload"]["cpu_time_per_event"].get<double>() == Approx(0.85).epsilon(1e-9));
  CHECK(doc["fit"]["parameters"]["hyperthread"]["ci95"].is_null());
  CHECK(doc["fit"]["dof"] == 0);
  CHECK(doc["fit"]["sources"][0]["file"] == "node.csv");
  CHECK(doc["fit"]["sources"][0]["sha256"] == sonicsim::sha256_hex(csv));
  CHECK(doc["fit"]["rows"].size() == 2);
  CHECK(doc["fit"]["rows"][1]["line"] == 3);
}

TEST_CASE("calibrate nodes: with noise the 95% intervals cover the truth and shrink with repeats",
          "[calibration][nodes]") {
  const Truth truth{32, 2, 0.6, 0.9};
  // J = 1, C/T and 2C/T jobs of 4 threads, 2% noise per row: 40 independent measurements.
  const int trials = 40;
  auto run = [&](int repeats, int& t1_in, int& h_in, double& t1_width, double& h_width) {
    t1_in = h_in = 0;
    t1_width = h_width = 0.0;
    for (int seed = 1; seed <= trials; ++seed) {
      const NodeFit fit = fit_text(
          measured(truth, 4, {1, 8, 16}, repeats, 0.02, static_cast<std::uint64_t>(seed)), truth);
      REQUIRE(fit.dof == 3 * repeats - 2);
      t1_in += covers(fit.cpu_time_per_event, truth.t1);
      h_in += covers(fit.hyperthread, truth.hyperthread);
      t1_width += (fit.cpu_time_per_event.high - fit.cpu_time_per_event.low) / trials;
      h_width += (fit.hyperthread.high - fit.hyperthread.low) / trials;
    }
  };
  int t1_few = 0, h_few = 0, t1_many = 0, h_many = 0;
  double t1_width_few = 0, h_width_few = 0, t1_width_many = 0, h_width_many = 0;
  run(3, t1_few, h_few, t1_width_few, h_width_few);
  run(12, t1_many, h_many, t1_width_many, h_width_many);
  // 95% intervals miss 2 of 40 on average; 34 is three standard deviations below 38.
  CHECK(t1_few >= 34);
  CHECK(h_few >= 34);
  CHECK(t1_many >= 34);
  CHECK(h_many >= 34);
  // Four times the rows: about half the width (and a smaller t quantile).
  CHECK(t1_width_many < 0.6 * t1_width_few);
  CHECK(h_width_many < 0.6 * h_width_few);
  CHECK(h_width_many > 0.0);
}

TEST_CASE("calibrate nodes: without hyper-threads only t1 is fitted", "[calibration][nodes]") {
  const Truth truth{16, 1, 1.0, 0.2};
  // 4, 16 and 32 busy threads: the last time-sliced on 16 cores, at half speed.
  const NodeFit fit = fit_text(measured(truth, 4, {1, 4, 8}, 2), truth);
  CHECK_FALSE(fit.hyperthread.fitted);
  CHECK(fit.cpu_time_per_event.value == Approx(0.2).epsilon(1e-9));
  CHECK(fit.dof == 5);
  CHECK(fit.occupancies.back().fitted_speed == Approx(0.5));
  const auto m = parse_node_measurements(measured(truth, 4, {1, 4, 8}, 2), "node.csv");
  const auto doc = to_json(fit, m, "");
  CHECK_FALSE(doc["workload"]["node"].contains("speed"));
  CHECK_FALSE(doc["fit"]["parameters"].contains("hyperthread"));
}

TEST_CASE("calibrate nodes: a memory-bandwidth cap the data reach is recovered",
          "[calibration][nodes]") {
  SECTION("with hyper-threads") {
    // 16 cores x 2 at 0.6 run 19.2 threads' worth when full; the cap of 18 binds from 32 busy
    // threads on, while 20 and 24 busy threads (some cores doubled up) still show hyperthread.
    const Truth truth{16, 2, 0.6, 0.5, 18.0};
    const NodeFit fit = fit_text(measured(truth, 4, {1, 2, 4, 5, 6, 8, 10}, 1), truth, true);
    REQUIRE(fit.memory_bandwidth_threads.fitted);
    CHECK(fit.memory_bandwidth_threads.value == Approx(18.0).epsilon(1e-9));
    CHECK(fit.hyperthread.value == Approx(0.6).epsilon(1e-9));
    CHECK(fit.cpu_time_per_event.value == Approx(0.5).epsilon(1e-9));
    for (const auto& o : fit.occupancies) {
      CAPTURE(o.busy_threads);
      CHECK(o.capped == (o.busy_threads >= 32));
    }
  }
  SECTION("without hyper-threads") {
    const Truth truth{16, 1, 1.0, 0.25, 10.0};
    const NodeFit fit = fit_text(measured(truth, 4, {1, 2, 3, 4}, 2), truth, true);
    REQUIRE(fit.memory_bandwidth_threads.fitted);
    CHECK(fit.memory_bandwidth_threads.value == Approx(10.0).epsilon(1e-9));
    CHECK(fit.cpu_time_per_event.value == Approx(0.25).epsilon(1e-9));
  }
  SECTION("with noise, inside its interval") {
    const Truth truth{16, 2, 0.6, 0.5, 18.0};
    int covered = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const NodeFit fit =
          fit_text(measured(truth, 4, {1, 2, 4, 5, 6, 8, 10}, 4, 0.01, seed), truth, true);
      REQUIRE(fit.memory_bandwidth_threads.fitted);
      covered += covers(fit.memory_bandwidth_threads, 18.0);
    }
    CHECK(covered >= 16);  // 19 of 20 on average
  }
}

TEST_CASE("calibrate nodes: a cap the data never reach is flagged as not identified",
          "[calibration][nodes]") {
  // A cap of 40 threads' worth on a node that runs at most 19.2: no measurement sees it.
  const Truth truth{16, 2, 0.6, 0.5, 40.0};
  const double fullest = truth.node().throughput(32);
  SECTION("noise-free") {
    const NodeFit fit = fit_text(measured(truth, 4, {1, 4, 8}, 2), truth, true);
    CHECK_FALSE(fit.memory_bandwidth_threads.fitted);
    CHECK(fit.memory_bandwidth_at_least == Approx(fullest));
    CHECK(fit.memory_bandwidth_why.find("binds at none") != std::string::npos);
    CHECK(fit.hyperthread.value == Approx(0.6).epsilon(1e-9));
    const auto m = parse_node_measurements(measured(truth, 4, {1, 4, 8}, 2), "node.csv");
    const auto doc = to_json(fit, m, "");
    CHECK_FALSE(doc["workload"]["node"]["speed"].contains("memory_bandwidth_threads"));
    CHECK(doc["fit"]["parameters"]["memory_bandwidth_threads"]["identified"] == false);
  }
  SECTION("noisy: the fullest occupancy fits better with a cap, but not by more than noise") {
    int flagged = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed)
      flagged += !fit_text(measured(truth, 4, {1, 4, 6, 8}, 4, 0.02, seed), truth, true)
                      .memory_bandwidth_threads.fitted;
    CHECK(flagged >= 17);  // a 5% test: 19 of 20 on average
  }
}

TEST_CASE("calibrate nodes: measurements that cannot show hyperthread are refused",
          "[calibration][nodes]") {
  const Truth truth{32, 2, 0.6, 0.9};
  // 4 and 32 busy threads on 32 cores: no core ever ran two threads.
  const std::string e = error_of(measured(truth, 4, {1, 8}, 2), truth);
  CHECK(e.find("node.csv") == 0);
  CHECK(e.find("at most the node's --cores 32") != std::string::npos);
  CHECK(e.find("expected an occupancy above 32 busy threads") != std::string::npos);
  // 48 busy threads on 32 cores run 16 + 32 h threads' worth; measured at 9.6 (20% of 4 threads
  // alone per job), sharing a core would cost more than leaving one of its threads idle.
  const std::string none =
      error_of("jobs_per_node,threads_per_job,throughput_per_job\n1,4,10\n12,4,2\n", truth);
  CHECK(none.find("with a hyperthread in (0, 1] (the throughputs give -0.2") != std::string::npos);
}

TEST_CASE("calibrate nodes: hyper-threads faster than cores are held at hyperthread 1",
          "[calibration][nodes]") {
  // 64 busy threads on 32 x 2 at 15 events/s a job against 10 alone: hyperthread 1.5 unbounded.
  const Truth truth{32, 2, 0.6, 0.9};
  const NodeFit fit = fit_text(
      "jobs_per_node,threads_per_job,throughput_per_job\n1,4,10\n1,4,10\n16,4,15\n", truth);
  CHECK(fit.hyperthread.value == 1.0);
  CHECK(fit.hyperthread.at_bound);
  CHECK(fit.hyperthread.high == 1.0);
  CHECK(fit.notes.front().find("held at 1") != std::string::npos);
}

TEST_CASE("calibrate nodes: the CSV's columns by name, extra columns and comments ignored",
          "[calibration][nodes]") {
  const auto m = parse_node_measurements(
      "# synthetic\n"
      "host, throughput_per_job ,jobs_per_node,\"threads_per_job\",note\n"
      "\n"
      "wn1,10.5,1,4,first\n"
      "wn1,9.5,8,4,\n"
      "wn2,9.25,8,4,again\n",
      "node.csv");
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[0].line == 4);
  CHECK(m.rows[1].jobs_per_node == 8);
  CHECK(m.rows[1].threads_per_job == 4);
  CHECK(m.rows[2].throughput_per_job == 9.25);
  CHECK(m.rows[2].busy_threads() == 32.0);
}

TEST_CASE("calibrate nodes: every bad cell is named by file, line and column",
          "[calibration][nodes]") {
  const std::string header = "jobs_per_node,threads_per_job,throughput_per_job\n";
  // Each file and what its refusal must say (after the file's name).
  const std::pair<std::string, std::string> cases[] = {
      {"jobs_per_node,threads,throughput_per_job\n1,4,10\n2,4,9\n",
       "line 1: no column `threads_per_job`, expected the columns jobs_per_node, threads_per_job "
       "and throughput_per_job (events per second per job); column 2 is `threads`"},
      {header + "1,4,10\n2,four,9\n",
       "line 3, column 2 (`threads_per_job`): found `four`, expected a whole number"},
      {header + "1,4,10\n2.5,4,9\n", "line 3, column 1 (`jobs_per_node`): found `2.5`"},
      {header + "1,4,10\n2,4,0\n",
       "line 3, column 3 (`throughput_per_job`): found `0`, expected events per second per job"},
      {header + "1,4,10\n2,4,-3\n", "line 3, column 3 (`throughput_per_job`): found `-3`"},
      {header + "1,4,10\n2,4\n", "line 3: found 2 cells, expected 3 like the header"},
      {header + "1,4,10\n1,4,11\n2,2,10\n", "found 3 rows at 1 occupancy"},
      {"1,4,10\n2,4,9\n", "line 1: found a row of numbers, expected a header row"},
      {"", "found no header and no data"},
      {header + "1,4,10\n" + std::string("2,4,\0", 5) + "\n", "found binary data"},
      {header + header + "1,4,10\n", "line 2, column 1 (`jobs_per_node`): found `jobs_per_node`"},
  };
  for (const auto& [csv, message] : cases) {
    CAPTURE(csv);
    CHECK_THAT(test::refusal_of([&] { parse_node_measurements(csv, "bad.csv"); }),
               Catch::StartsWith("bad.csv: " + message));
  }
}

TEST_CASE("calibrate nodes: more rows than the cap are refused at the first row beyond it",
          "[calibration][nodes]") {
  std::string csv = "jobs_per_node,threads_per_job,throughput_per_job\n";
  const std::size_t cap = NodeMeasurementLimits::max_rows;
  csv.reserve(csv.size() + (cap + 1) * 8);
  for (std::size_t i = 0; i <= cap; ++i) csv += i % 2 ? "1,4,10\n" : "2,4,9\n";
  CHECK_THAT(test::refusal_of([&] { parse_node_measurements(csv, "big.csv"); }),
             Catch::Contains("big.csv: line " + std::to_string(cap + 2) + ": found more than"));
}
