// Service times (src/scenario/load_service_time.cpp): a curve of batch sizes and seconds, a map of
// curves by device, calibration files resolved against the scenario's folder, request
// overheads; bad curves refused with the JSON path, what was found and what is expected.
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include <sonicsim/scenario/loader.hpp>

#include "problems.hpp"
#include "support.hpp"

using namespace test;
using namespace sonicsim::scenario;

namespace {

const std::string kStData = SONICSIM_TEST_DATA_DIR;

}  // namespace

TEST_CASE("device maps and calibration files", "[loader]") {
  const Scenario s = load_file(kStData + "/with_calibration.json");
  const Model& m = *s.find_model("particlenet_ak4");
  CHECK(m.service_time.size() == 2);
  CHECK(m.curve_for("T4").source == "calibration/pn_t4.json");
  CHECK(m.curve_for("T4").at(16) == Approx(0.0034));
  CHECK(m.curve_for("CPU").at(8) == Approx(0.09));
  CHECK(m.spread.kind == Distribution::Kind::Lognormal);
  CHECK(m.spread.cv == 0.1);
  CHECK_THROWS_AS(m.curve_for("A100"), std::out_of_range);
  CHECK(s.devices_hosting("particlenet_ak4") == 6);
  CHECK(s.workload().cpu_time_per_event.cv == Approx(0.2));

  // The same document loaded inline resolves calibration files against base_dir.
  std::ifstream in(kStData + "/with_calibration.json");
  const json doc = json::parse(in);
  CHECK(load_json(doc, "inline", kStData).find_model("particlenet_ak4")->service_time.size() == 2);
  CHECK_THROWS_AS(load_json(doc, "inline", "/nonexistent"), InputError);
}

namespace {

// deterministic() with `curve` as m's service time.
json lst_with_curve(const json& curve) {
  auto doc = deterministic(2, 1);
  doc["models"]["m"]["service_time"] = curve;
  return doc;
}

}  // namespace

TEST_CASE("service time: a table's batch sizes and times are read with their units",
          "[loader][service_time]") {
  const auto s = scenario_of(lst_with_curve({{"batch", {1, 8, 32}},
                                             {"seconds", {"1.2ms", 0.0034, "11800us"}},
                                             {"dist", "lognormal"},
                                             {"cv", 0.2}}));
  const auto& m = *s.find_model("m");
  const auto& c = m.curve_for("T4");
  CHECK(c.batch == std::vector<double>{1, 8, 32});
  CHECK(c.seconds[0] == Approx(0.0012));
  CHECK(c.seconds[1] == Approx(0.0034));
  CHECK(c.seconds[2] == Approx(0.0118));
  CHECK(c.source == "table");
  CHECK(m.spread.kind == Distribution::Kind::Lognormal);
  CHECK(m.spread.cv == 0.2);
  // One curve for every device: any pool's device finds it.
  CHECK(m.curve_for("A100").at(8) == Approx(0.0034));
}

TEST_CASE("service time: a bad table names its key, what was found and what is expected",
          "[loader][service_time]") {
  const std::string st = "models.m.service_time";
  auto problems = problems_of(lst_with_curve({{"batch", {1, 8, 4}}, {"seconds", {1, 2, 3}}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, st + ".batch[2]",
                    {"found 4 after 8, expected strictly increasing batch sizes"}));

  problems = problems_of(lst_with_curve({{"batch", {1, 8}}, {"seconds", {"1ms"}}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, st + ".seconds",
                    {"found 1 times for 2 batch sizes, expected one time per batch size"}));

  problems = problems_of(lst_with_curve({{"seconds", {"1ms"}}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, st + ".batch",
                    {"missing, expected an array of batch sizes, strictly increasing, each >= 1"}));

  problems = problems_of(lst_with_curve({{"batch", {1}}, {"seconds", {"1MB"}}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, st + ".seconds[0]", {"found \"1MB\"", "expected a time"}));

  problems = problems_of(lst_with_curve({{"batch", {1}}, {"seconds", {"1ms"}}, {"cv", 0.3}}));
  INFO(dump(problems));
  CHECK(has_problem(problems, st + ".cv", {"found `cv` without `dist`"}));
}
