// `sonicsim compare`: its statistics against hand-computed values, its verdict, and the
// one-process-per-point runner it (and calibrate scan) simulate with.
#include "support.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sonicsim/compare/compare.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/points/children.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/util/numbers.hpp>

using namespace sonicsim;
using test::json;

namespace {

namespace fs = std::filesystem;

struct CompareTempDir : test::ScratchDir {
  CompareTempDir() : test::ScratchDir("compare") {}
};

std::string write_scenario(const CompareTempDir& dir, const json& doc) {
  return dir.write("scenario.json", doc);
}

// deterministic() of support.hpp, short enough for a test that runs several points.
json short_deterministic() {
  json doc = test::deterministic(4, 1);
  doc["duration"] = 60.0;
  doc["warmup"] = 5.0;
  return doc;
}

compare::Report report_of(const std::vector<double>& measured,
                          const std::vector<double>& simulated) {
  compare::Report r;
  r.x_column = "jobs";
  for (std::size_t i = 0; i < measured.size(); ++i) {
    compare::Row row;
    row.x = static_cast<double>(i + 1);
    row.measured = measured[i];
    row.simulated = simulated[i];
    row.formula = measured[i];
    row.mva = kNaN;
    r.rows.push_back(row);
  }
  compare::summarize(r);
  return r;
}

}  // namespace

TEST_CASE("ranks average ties", "[compare][stats]") {
  CHECK(compare::ranks({10, 30, 20}) == std::vector<double>{1, 3, 2});
  CHECK(compare::ranks({5, 6, 7, 8, 7}) == std::vector<double>{1, 2, 3.5, 5, 3.5});
  CHECK(compare::ranks({2, 2, 2}) == std::vector<double>{2, 2, 2});
}

TEST_CASE("Spearman matches hand-computed values", "[compare][stats]") {
  CHECK(compare::spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1.0));
  CHECK(compare::spearman({1, 2, 3, 4}, {40, 30, 20, 10}) == Approx(-1.0));
  // Monotone but not linear: ranks only.
  CHECK(compare::spearman({1, 2, 3, 4}, {1, 10, 100, 1000}) == Approx(1.0));
  // Ranks 1..5 against 1, 2, 3.5, 5, 3.5: sum of products of deviations 8, sums of squares 10
  // and 9.5, so rho = 8 / sqrt(95).
  CHECK(compare::spearman({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}) == Approx(8.0 / std::sqrt(95.0)));
  // Ranks 1,2,3,4 against 2,1,4,3: d^2 sums to 4, rho = 1 - 6*4 / (4*15) = 0.6.
  CHECK(compare::spearman({1, 2, 3, 4}, {20, 10, 40, 30}) == Approx(0.6));
  // Undefined: a constant side, or fewer than two points.
  CHECK(std::isnan(compare::spearman({1, 2, 3}, {5, 5, 5})));
  CHECK(std::isnan(compare::spearman({1}, {1})));
}

TEST_CASE("MAPE and the worst point match hand-computed values", "[compare][stats]") {
  // Errors +10%, -10%, 0%, +25%: MAPE 11.25%, worst 25% at x = 4.
  const auto e = compare::errors_of({1, 2, 3, 4}, {110, 90, 100, 50}, {100, 100, 100, 40});
  CHECK(e.points == 4);
  CHECK(e.mape_percent == Approx(11.25));
  CHECK(e.max_abs_error_percent == Approx(25.0));
  CHECK(e.max_at_x == 4.0);
  // A failed point (NaN) is left out of every statistic, not counted as 0 error.
  const auto f = compare::errors_of({1, 2, 3}, {110, kNaN, 100}, {100, 100, 100});
  CHECK(f.points == 2);
  CHECK(f.mape_percent == Approx(5.0));
  const auto none = compare::errors_of({1}, {kNaN}, {100});
  CHECK(none.points == 0);
  CHECK(std::isnan(none.mape_percent));
}

TEST_CASE("the verdict says trust, care or distrust in plain words", "[compare][verdict]") {
  const std::vector<double> measured = {10, 20, 30, 40};
  const auto good = report_of(measured, {10.1, 19.8, 30.3, 40.2});
  CHECK_THAT(good.verdict, Catch::StartsWith("TRUST for planning over jobs 1..4"));
  const auto care = report_of(measured, {11, 22, 33, 44});
  CHECK_THAT(care.verdict, Catch::StartsWith("USE WITH CARE") &&
                               Catch::Contains("off by 10.00% on average") &&
                               Catch::Contains("calibrate scan"));
  const auto off = report_of(measured, {15, 30, 45, 60});
  CHECK_THAT(off.verdict, Catch::StartsWith("DO NOT TRUST as is") &&
                              Catch::Contains("follows the measured trend") &&
                              Catch::Contains("the formula does better"));
  const auto trendless = report_of(measured, {40, 30, 20, 10});
  CHECK_THAT(trendless.verdict, Catch::StartsWith("DO NOT TRUST: the simulation misses the "
                                                  "measured trend (Spearman -1.00)"));
  auto failed = report_of(measured, {10, kNaN, kNaN, kNaN});
  CHECK_THAT(failed.verdict,
             Catch::StartsWith("cannot judge") && Catch::Contains("3 of 4 points failed"));
}

TEST_CASE("the report's table is aligned, with units, and its files hold every point",
          "[compare][report]") {
  compare::Report r = report_of({0.062, 0.080, 0.120}, {0.0621, 0.0799, kNaN});
  r.metric = calibration::Metric::TimePerEvent;
  r.rows[2].error = "the simulation process was killed by signal 11 (Segmentation fault)";
  compare::summarize(r);
  const std::string text = compare::to_text(r);
  // 4 significant digits on the largest value, the same decimals on every row.
  CHECK_THAT(text, Catch::Contains("measured (ms)") && Catch::Contains(" 62.0 ") &&
                       Catch::Contains(" 120.0 ") && Catch::Contains("FAILED") &&
                       Catch::Contains("signal 11") && Catch::Contains("verdict: "));
  // Every table line has the same width: aligned columns.
  std::istringstream lines(text);
  std::string line;
  std::vector<std::size_t> widths;
  while (std::getline(lines, line))
    if ((line.rfind("   ", 0) == 0 || line.rfind("jobs", 0) == 0) &&
        line.find("MAPE") == std::string::npos)
      widths.push_back(line.size());
  // The header and the three rows, right-aligned down to the last column.
  REQUIRE(widths.size() == 4);
  CHECK(std::count(widths.begin(), widths.end(), widths[0]) == 4);
  const auto j = compare::to_json(r);
  CHECK(j["points"].size() == 3);
  CHECK(j["points"][2]["simulated"].is_null());
  CHECK(j["points"][2]["error"] == r.rows[2].error);
  CHECK(j["summary"]["simulation"]["points"] == 2);
  CHECK(j["summary"]["mva"]["mape_percent"].is_null());
  const std::string csv = compare::to_csv(r);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);
  CHECK_THAT(csv, Catch::StartsWith("jobs,measured,measured_stddev,simulated,") &&
                      Catch::Contains(",the simulation process was killed by signal 11"));
  r.rows[2].error = "bad value, see line 3";
  CHECK_THAT(compare::to_csv(r), Catch::Contains(",\"bad value, see line 3\"\n"));
}

TEST_CASE("children run in parallel, keep their order, and report failures", "[points]") {
  const auto outcomes = points::run_in_children(
      6,
      [](std::size_t i) -> std::string {
        if (i == 1) throw std::runtime_error("point 1 is broken");
        if (i == 2) throw scenario::InputError("s.json", {{"workload.jobs", "found 0"}});
        if (i == 3) std::raise(SIGSEGV);
        if (i == 4) ::_exit(3);
        // Larger than a pipe's buffer: the parent must read while the child writes.
        if (i == 5) return std::string(1 << 20, 'x');
        return "point " + std::to_string(i);
      },
      2);
  REQUIRE(outcomes.size() == 6);
  CHECK(outcomes[0].ok);
  CHECK(outcomes[0].output == "point 0");
  CHECK_FALSE(outcomes[1].ok);
  CHECK(outcomes[1].error == "point 1 is broken");
  CHECK_FALSE(outcomes[1].input_error);
  CHECK(outcomes[2].input_error);
  CHECK_THAT(outcomes[2].error, Catch::Contains("s.json: workload.jobs: found 0"));
  CHECK_FALSE(outcomes[3].ok);
  CHECK_THAT(outcomes[3].error, Catch::Contains("signal " + std::to_string(SIGSEGV)));
  CHECK_FALSE(outcomes[4].ok);
  CHECK_THAT(outcomes[4].error, Catch::Contains("status 3"));
  CHECK(outcomes[5].ok);
  CHECK(outcomes[5].output.size() == (1u << 20));
}

TEST_CASE("simulated points match in-process runs; a bad point is reported, not fatal",
          "[points]") {
  CompareTempDir dir;
  const std::string file = write_scenario(dir, short_deterministic());
  const std::vector<std::vector<scenario::Override>> points = {
      {{"workload.jobs", "2"}}, {{"workload.jobs", "0"}}, {{"workload.jobs", "20"}}};
  const auto results = points::run_points(pipeline::simulator(), file, {{"seed", "3"}}, points, 2);
  REQUIRE(results.size() == 3);
  REQUIRE(results[0].ok);
  REQUIRE(results[2].ok);
  CHECK(results[0].results["seed"] == 3);
  CHECK_FALSE(results[1].ok);
  CHECK(results[1].input_error);
  CHECK_THAT(results[1].error, Catch::Contains(file) && Catch::Contains("workload.jobs"));
  // Above the knee the deterministic system runs at N_GPU / t_GPU = 100 events/s.
  CHECK(results[2].results["events"]["throughput_per_s"].get<double>() ==
        Approx(100.0).epsilon(0.01));
  CHECK(results[0].results["analytic"]["n_cpu"] == 2);
}

TEST_CASE("compared with its own simulation a scenario shows no error", "[compare][points]") {
  CompareTempDir dir;
  const std::string file = write_scenario(dir, short_deterministic());
  std::vector<std::vector<scenario::Override>> points;
  for (int jobs : {2, 6, 10, 14, 20}) points.push_back({{"workload.jobs", std::to_string(jobs)}});
  const auto measured = points::run_points(pipeline::simulator(), file, {}, points, 2);
  const auto simulated = points::run_points(pipeline::simulator(), file, {}, points, 1);
  compare::Report r;
  r.x_column = "jobs";
  for (std::size_t i = 0; i < points.size(); ++i) {
    REQUIRE(measured[i].ok);
    compare::Row row;
    row.x = std::stod(points[i][0].value);
    row.measured = calibration::metric_of_results(measured[i].results,
                                                  calibration::Metric::ThreadTimePerEvent);
    row.simulated = calibration::metric_of_results(simulated[i].results,
                                                   calibration::Metric::ThreadTimePerEvent);
    row.formula = measured[i].results["analytic"]["t_sonic_s"].get<double>();
    row.mva = measured[i].results["analytic"]["mva"]["time_per_event_s"].get<double>();
    r.rows.push_back(row);
  }
  compare::summarize(r);
  CHECK(r.simulation.points == 5);
  CHECK(r.simulation.mape_percent < 1e-9);
  CHECK(r.simulation.spearman == Approx(1.0));
  // The deterministic system follows the formula to 0.5%, the knee included.
  CHECK(r.formula.mape_percent < 0.5);
  CHECK_THAT(r.verdict, Catch::StartsWith("TRUST"));
}
