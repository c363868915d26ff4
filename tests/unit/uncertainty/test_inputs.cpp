// The `uncertainty` block: what it accepts, and a message naming the JSON path for what it does
// not; a calibration file's fitted intervals read as its curve's parameter spread.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/uncertainty/inputs.hpp>

using namespace sonicsim;
using nlohmann::json;

namespace {

const std::string kInputsKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

json knee_doc() {
  std::ifstream in(kInputsKnee);
  return json::parse(in);
}

// The problems of a block set into the knee scenario.
std::vector<Problem> block_problems(const json& block,
                                    std::optional<uncertainty::Spec>* out = nullptr) {
  json doc = knee_doc();
  doc["uncertainty"] = block;
  std::vector<Problem> problems;
  auto spec = uncertainty::read_spec(doc, SONICSIM_TEST_DATA_DIR, problems);
  if (out) *out = spec;
  return problems;
}

std::string first_problem(const std::vector<Problem>& p) {
  return p.empty() ? std::string("(none)") : p.front().path + ": " + p.front().message;
}

}  // namespace

TEST_CASE("an uncertainty block reads every distribution against the scenario's own values",
          "[uncertainty]") {
  std::optional<uncertainty::Spec> spec;
  const json block = {
      {"samples", 16},
      {"method", "sobol"},
      {"seed", 7},
      {"inputs",
       {{{"path", "workload.cpu_time_per_event"}, {"dist", "plus_minus"}, {"by", "10%"}},
        {{"name", "GPU time"},
         {"path", "models.toy.service_time.seconds.0"},
         {"dist", "lognormal"},
         {"cv", 0.2}},
        {{"path", "workload.jobs"}, {"dist", "uniform"}, {"low", 10}, {"high", 30}},
        {{"path", "network.site_uplink.latency"}, {"dist", "normal"}, {"sd", "0.1ms"}},
        {{"path", "workload.mode"},
         {"dist", "choice"},
         {"values", {"sync", "async"}},
         {"weights", {3, 1}}}}}};
  const auto p = block_problems(block, &spec);
  INFO(first_problem(p));
  REQUIRE(p.empty());
  REQUIRE(spec);
  CHECK(spec->samples == 16);
  CHECK(spec->method == "sobol");
  CHECK(spec->seed == 7u);
  REQUIRE(spec->inputs.size() == 5);
  const auto& cpu = spec->inputs[0];
  CHECK(cpu.nominal == Approx(0.1));
  CHECK(cpu.a == Approx(0.01));  // 10% of 100 ms
  CHECK(cpu.quantity == scenario::Quantity::Time);
  CHECK(spec->inputs[1].name == "GPU time");
  CHECK(spec->inputs[1].a == Approx(0.001));                        // median: as written
  CHECK(spec->inputs[1].b == Approx(std::sqrt(std::log1p(0.04))));  // sigma from cv
  CHECK(spec->inputs[2].integer);
  CHECK(spec->inputs[3].a == Approx(0.001));
  CHECK(spec->inputs[3].b == Approx(0.0001));
  CHECK(spec->inputs[4].weights == std::vector<double>{0.75, 0.25});
  CHECK(spec->dims() == 5);
}

TEST_CASE("a bad uncertainty block names the JSON path, what was found and what is expected",
          "[uncertainty][errors]") {
  const auto one = [](const json& input) { return block_problems({{"inputs", {input}}}); };
  CHECK_THAT(
      first_problem(one({{"path", "workload.jbos"}, {"dist", "uniform"}, {"low", 1}, {"high", 2}})),
      Catch::Contains("uncertainty.inputs[0].path") && Catch::Contains("workload.jbos") &&
          Catch::Contains("did you mean"));
  CHECK_THAT(first_problem(one({{"path", "workload.jobs"}, {"dist", "gaussian"}})),
             Catch::Contains("uncertainty.inputs[0].dist") && Catch::Contains("\"gaussian\"") &&
                 Catch::Contains("lognormal"));
  CHECK_THAT(first_problem(one({{"path", "workload"}, {"dist", "normal"}, {"sd", 1}})),
             Catch::Contains("an object") && Catch::Contains("workload.mean"));
  CHECK_THAT(first_problem(
                 one({{"path", "workload.cpu_time_per_event"}, {"dist", "normal"}, {"sd", "50%"}})),
             Catch::Contains("uncertainty.inputs[0].sd") && Catch::Contains("lognormal"));
  CHECK_THAT(
      first_problem(one({{"path", "workload.jobs"}, {"dist", "uniform"}, {"low", 5}, {"high", 2}})),
      Catch::Contains("uncertainty.inputs[0].high"));
  CHECK_THAT(first_problem(one({{"path", "workload.mode"},
                                {"dist", "choice"},
                                {"values", {"sync"}},
                                {"weights", {1, 2}}})),
             Catch::Contains("uncertainty.inputs[0].weights") && Catch::Contains("1 weights"));
  CHECK_THAT(first_problem(one({{"path", "workload.jobs"},
                                {"dist", "uniform"},
                                {"low", 1},
                                {"high", 2},
                                {"sd", 3},
                                {"hihg", 1}})),
             Catch::Contains("uncertainty.inputs[0].hihg") && Catch::Contains("did you mean"));
  CHECK_THAT(first_problem(one({{"path", "models.toy.service_time"}, {"from", "calibration"}})),
             Catch::Contains("calibration file") && Catch::Contains("models.toy.service_time"));
  CHECK_THAT(first_problem(block_problems({{"inputs", json::array()}})),
             Catch::Contains("uncertainty.inputs") && Catch::Contains("1 to 64"));
  CHECK_THAT(first_problem(block_problems(
                 {{"inputs",
                   {{{"path", "workload.jobs"}, {"dist", "plus_minus"}, {"by", 2}},
                    {{"path", "workload.jobs"}, {"dist", "plus_minus"}, {"by", 3}}}}})),
             Catch::Contains("uncertainty.inputs[1].path") && Catch::Contains("already uncertain"));
  CHECK_THAT(first_problem(block_problems(
                 {{"inputs", {{{"path", "workload.jobs"}, {"dist", "plus_minus"}, {"by", 2}}}},
                  {"samples", 0}})),
             Catch::Contains("uncertainty.samples"));
}

TEST_CASE("a value an input reaches that the scenario refuses is refused before any sample",
          "[uncertainty][errors]") {
  // 20 jobs +- 25: at its low end the workload would have negative jobs.
  const std::string dir = SONICSIM_TEST_DATA_DIR;
  const std::vector<scenario::Override> set = {
      {"uncertainty",
       R"({"inputs": [{"path": "workload.jobs", "dist": "plus_minus", "by": 25}]})"}};
  CHECK_THROWS_WITH(uncertainty::load_spec(kInputsKnee, set),
                    Catch::Contains("uncertainty.inputs[0]") && Catch::Contains("0.05%") &&
                        Catch::Contains("workload.jobs"));
  const std::vector<scenario::Override> fine = {
      {"uncertainty", R"({"inputs": [{"path": "workload.jobs", "dist": "plus_minus", "by": 5}]})"}};
  CHECK(uncertainty::load_spec(kInputsKnee, fine));
  CHECK_FALSE(uncertainty::load_spec(kInputsKnee, {}));  // no block, no spec
}

TEST_CASE("a calibrated curve takes its fitted parameters and their 95% intervals",
          "[uncertainty][calibration]") {
  // The shipped ParticleNet AK4 T4 calibration: a saturating curve (t0, r_max, k).
  const std::string file =
      std::string(SONICSIM_SOURCE_DIR) + "/calibration/cms-t4/particlenet_AK4.json";
  json doc = knee_doc();
  doc["models"]["toy"]["service_time"] = {{"T4", {{"calibration", file}}}};
  doc["uncertainty"] = {
      {"inputs", {{{"path", "models.toy.service_time.T4"}, {"from", "calibration"}}}}};
  std::vector<Problem> problems;
  const auto spec = uncertainty::read_spec(doc, ".", problems);
  INFO(first_problem(problems));
  REQUIRE(spec);
  const auto& c = *spec->inputs[0].curve;
  std::ifstream in(file);
  const json cal = json::parse(in);
  json chosen;
  for (const auto& x : cal["fit"]["candidates"])
    if (x["kind"] == cal["fit"]["chosen"]) chosen = x;
  REQUIRE(c.kind == cal["fit"]["chosen"].get<std::string>());
  REQUIRE(c.params.size() == 3);
  CHECK(c.params[0] == chosen["params"]["t0_s"].get<double>());
  CHECK(c.params[1] == chosen["params"]["r_max_items_per_s"].get<double>());
  CHECK(spec->inputs[0].dims() == 3);
  CHECK(c.batch.size() == cal["service_time"]["batch"].size());
  if (c.covariance_from_file) {  // the fit's own covariance, in CurveFit's parameter order
    REQUIRE(chosen["param_order"][0] == "t0_s");
    CHECK(c.covariance[0] == chosen["covariance"][0][0].get<double>());
    CHECK(c.covariance[1] == chosen["covariance"][0][1].get<double>());
  } else {
    const double sd = chosen["ci95_halfwidth"]["t0_s"].get<double>() / 1.959963984540054;
    CHECK(c.covariance[0] == Approx(sd * sd));
    CHECK(c.covariance[1] == 0.0);
  }
  for (std::size_t i = 0; i < 3; ++i) CHECK(c.covariance[i * 3 + i] >= 0.0);
}
