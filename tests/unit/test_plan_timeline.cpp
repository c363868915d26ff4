// plan timeline: the growth path's dates, durations and values, and what a planner is told to
// buy on a deterministic scenario where the requirement is known in closed form.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/timeline.hpp>
#include <sonicsim/points/points.hpp>

using namespace sonicsim;

namespace {

const std::string kTimelineKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

plan::SimulateFor timeline_simulate() {
  return [](const std::vector<scenario::Override>& common) -> plan::Simulate {
    return [common](const std::vector<std::vector<scenario::Override>>& sets) {
      return points::run_points(pipeline::simulator(), kTimelineKnee, common, sets, 2);
    };
  };
}

}  // namespace

TEST_CASE("growth dates, durations and values", "[plan][timeline]") {
  CHECK(plan::parse_month("2027-01") == 2027 * 12);
  CHECK(plan::format_month(2027 * 12 + 11) == "2027-12");
  CHECK_FALSE(plan::parse_month("2027-13"));
  CHECK_FALSE(plan::parse_month("27-01"));
  CHECK(plan::parse_months("6mo") == 6);
  CHECK(plan::parse_months("1y") == 12);
  CHECK(plan::parse_months("2.5y") == 30);
  CHECK_FALSE(plan::parse_months("6"));
  CHECK_FALSE(plan::parse_months("-1y"));

  plan::GrowthFlags f;
  f.growth = {"workload.jobs=x2/3y", "workload.cpu_time_per_event=+10ms/1y"};
  CHECK_THROWS_WITH(plan::load_growth(kTimelineKnee, {}, f), Catch::Contains("--growth"));
  f.growth = {"workload.jobs=x2/3y"};
  const std::vector<scenario::Override> step = {
      {"growth",
       R"({"start": "2027-01", "steps": [{"at": "2028-01", "path": "workload.requests.0.offload_fraction", "value": 0.6, "name": "new model"}]})"}};
  const auto g = plan::load_growth(kTimelineKnee, step, f);
  REQUIRE(g.paths.size() == 1);
  CHECK(g.base[0].si == 20);
  // x2 over 36 months: 20 at the start, 20 x 2^(18/36) = 28.28 -> 28 half-way, 40 at the end.
  CHECK(plan::growth_overrides(g, 0).front().value == "20");
  CHECK(plan::growth_overrides(g, 18).front().value == "28");
  CHECK(plan::growth_overrides(g, 36).front().value == "40");
  CHECK(plan::growth_overrides(g, 11).size() == 1);  // the step is not in force yet
  REQUIRE(plan::growth_overrides(g, 12).size() == 2);
  CHECK(plan::growth_overrides(g, 12)[1].value == "0.6");
  CHECK_THROWS_WITH(
      plan::load_growth(
          kTimelineKnee,
          {{"growth", R"({"paths": [{"path": "workload.jbos", "factor": 2, "over": "1y"}]})"}}, {}),
      Catch::Contains("workload.jbos"));
  CHECK_THROWS_WITH(plan::load_growth(kTimelineKnee, {}, {}),
                    Catch::Contains("growth: missing") || Catch::Contains("needs a growth path"));
}

TEST_CASE("a timeline buys what each date needs, ordered a lead time ahead", "[plan][timeline]") {
  // The knee scenario: min-devices at 0.5% needs ceil(threads / 53.0016) devices. Jobs grow
  // 100 -> 400 (x4 over 2 years): 2 devices now, then 3, 4, 6, 8 every 6 months.
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 1;
  plan::GrowthFlags f;
  f.growth = {"workload.jobs=x4/2y"};
  f.start = "2027-01";
  f.period = "6mo";
  f.horizon = "2y";
  f.lead_time = "9mo";
  const std::vector<scenario::Override> common = {{"workload.jobs", "100"}};
  const auto g = plan::load_growth(kTimelineKnee, common, f);
  const auto t = plan::timeline(kTimelineKnee, common, o, g, timeline_simulate(), std::nullopt);
  REQUIRE(t.periods.size() == 5);
  for (const auto& p : t.periods) {
    const double jobs = p.demand.at(0).second;
    REQUIRE(p.required);
    CHECK(*p.required == std::ceil(jobs / 53.0016));
  }
  CHECK(t.fleet == 1);  // the scenario's one device
  REQUIRE(t.stops_meeting);
  CHECK(plan::format_month(*t.stops_meeting) == "2027-01");
  double owned = t.fleet;
  for (const auto& b : t.purchases) {
    CHECK(b.order_by == b.needed_by - 9);
    owned += b.add;
  }
  CHECK(owned == *t.periods.back().required);
  CHECK(t.purchases.front().late);  // needed now, ordered 9 months ago
}
