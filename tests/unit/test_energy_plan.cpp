// `plan cost` prices its points with the results' `cost` (energy/account.hpp): the scenario's own
// prices and powers give the same answer as the same prices given as flags, and a flag given
// over the scenario's price wins.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>

using namespace sonicsim;

namespace {

const std::string kPlanKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

plan::Simulate simulate_on(const std::vector<scenario::Override>& common) {
  return [common](const std::vector<std::vector<scenario::Override>>& sets) {
    return points::run_points(pipeline::simulator(), kPlanKnee, common, sets, 2);
  };
}

// $1 per GPU-hour, $0.02 per core-hour, 70 W per GPU and 10 W per core at $0.25 per kWh, as the
// scenario's keys.
const std::vector<scenario::Override> kScenarioPrices = {
    {"prices", R"({"device_hour": 1, "core_hour": 0.02, "kwh": 0.25})"},
    {"devices", R"({"T4": {"power": {"idle": "70W", "busy": "70W"}}})"},
    {"workload.core_power", R"({"idle": 10, "busy": 10})"}};

}  // namespace

TEST_CASE("plan cost: the scenario's prices answer as the same prices given as flags",
          "[plan][energy][simulation]") {
  plan::Options flags;
  flags.question = plan::Question::Cost;
  flags.prices = {1.0, 0.02, 70.0, 10.0, 0.25};
  flags.replications = 1;
  const auto by_flags = plan::plan(kPlanKnee, {}, flags, simulate_on({}));

  plan::Options own = flags;
  own.prices = {};
  const auto by_scenario =
      plan::plan(kPlanKnee, kScenarioPrices, own, simulate_on(kScenarioPrices));

  REQUIRE(by_flags.answer.value);
  REQUIRE(by_scenario.answer.value);
  CHECK(*by_scenario.answer.value == *by_flags.answer.value);
  CHECK(by_scenario.formula_answer == by_flags.formula_answer);
  CHECK(by_scenario.mva_answer == by_flags.mva_answer);
  const auto a = plan::to_json(by_flags)["answer"], b = plan::to_json(by_scenario)["answer"];
  CHECK(b["cost_per_million_events"].get<double>() ==
        Approx(a["cost_per_million_events"].get<double>()).epsilon(1e-12));
  CHECK(b["hourly_cost"].get<double>() == Approx(a["hourly_cost"].get<double>()).epsilon(1e-12));
  // By hand at the answer: $(1 + N x 0.02) + (70 + N x 10) W x $0.25/kWh an hour.
  const double n = *by_flags.answer.value;
  CHECK(a["hourly_cost"].get<double>() ==
        Approx(1.0 + n * 0.02 + (70.0 + n * 10.0) / 1000.0 * 0.25).epsilon(1e-9));
}

TEST_CASE("plan cost: a flag overrides the scenario's own price", "[plan][energy]") {
  plan::Options flags;
  flags.question = plan::Question::Cost;
  flags.prices = {1.0, 0.02, 70.0, 10.0, 0.25};
  flags.analytic_only = true;
  const auto by_flags = plan::plan(kPlanKnee, {}, flags, simulate_on({}));

  // The scenario says $5 per GPU-hour and 30 W per core; the flags say otherwise and win.
  auto common = kScenarioPrices;
  common[0].value = R"({"device_hour": 5, "core_hour": 0.02, "kwh": 0.25})";
  common[2].value = R"({"idle": 30, "busy": 30})";
  const auto overridden = plan::plan(kPlanKnee, common, flags, simulate_on(common));
  REQUIRE(by_flags.formula_answer);
  CHECK(overridden.formula_answer == by_flags.formula_answer);
  CHECK(overridden.mva_answer == by_flags.mva_answer);

  // Without the flags, the dearer GPU moves the cheapest point to more threads per GPU.
  plan::Options own = flags;
  own.prices = {};
  const auto dearer = plan::plan(kPlanKnee, common, own, simulate_on(common));
  REQUIRE(dearer.formula_answer);
  CHECK(*dearer.formula_answer >= *by_flags.formula_answer);
}

TEST_CASE("plan cost: no prices anywhere is refused, naming the flags", "[plan][energy]") {
  plan::Options o;
  o.question = plan::Question::Cost;
  o.analytic_only = true;
  CHECK_THROWS_WITH(plan::plan(kPlanKnee, {}, o, simulate_on({})),
                    Catch::Contains("--gpu-hour-price"));
}
