// plan's first round starts at MVA with batching's answer (docs/plan.md, "The search, step by
// step"): on a batched scenario it is closer than MVA's, and from it, or from any other start,
// the search ends at the brute-force answer.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>

using namespace sonicsim;

namespace {

const std::string kBatchedKneeFile = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

// The knee scenario with batches of up to 8 requests costing 2 ms, against 1 ms alone: 400
// threads need far fewer devices than MVA, which charges every request its own 1 ms, says.
const std::vector<scenario::Override> kBatched{
    {"workload.jobs", "400"},
    {"models.toy.max_batch_size", "8"},
    {"models.toy.dynamic_batching", "{}"},
    {"models.toy.service_time", R"({"batch": [1, 8], "seconds": ["1ms", "2ms"]})"}};

plan::Simulate simulate_batched_knee(int& count) {
  return [&count](const std::vector<std::vector<scenario::Override>>& sets) {
    count += static_cast<int>(sets.size());
    return points::run_points(pipeline::simulator(), kBatchedKneeFile, kBatched, sets, 2);
  };
}

plan::Options min_devices_on_batched_knee() {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 5.0;
  o.replications = 1;
  return o;
}

}  // namespace

TEST_CASE("min-devices starts at batched MVA's answer and ends at the brute-force one",
          "[plan][simulation]") {
  int count = 0;
  const auto r = plan::plan(kBatchedKneeFile, kBatched, min_devices_on_batched_knee(),
                            simulate_batched_knee(count));
  REQUIRE(r.answer.status == "found");
  REQUIRE(r.mva_batched_answer);
  REQUIRE(r.mva_answer);
  CHECK(*r.mva_batched_answer < *r.mva_answer);
  // The first round: the guess and its neighbour on the failing side.
  CHECK(r.bracket_high == *r.mva_batched_answer);
  CHECK(r.bracket_low == *r.mva_batched_answer - 1.0);

  const int hi = static_cast<int>(*r.mva_answer) + 2;
  std::vector<std::vector<scenario::Override>> sets;
  for (int v = 1; v <= hi; ++v) sets.push_back(plan::point_overrides(r.options, v, 1));
  const auto runs = points::run_points(pipeline::simulator(), kBatchedKneeFile, kBatched, sets, 2);
  int smallest = 0;
  for (int v = hi; v >= 1; --v) {
    REQUIRE(runs[v - 1].ok);
    if (plan::metric_of(r.options, runs[v - 1].results) <= *r.threshold) smallest = v;
  }
  CHECK(*r.answer.value == smallest);

  // Started far below and far above instead, the search finds the same boundary.
  for (const auto& start : {std::pair{1.0, 2.0}, std::pair{double(hi), double(hi - 1)}}) {
    plan::Options o = min_devices_on_batched_knee();
    o.warm_start = start;
    int other = 0;
    const auto s = plan::plan(kBatchedKneeFile, kBatched, o, simulate_batched_knee(other));
    INFO("start " << start.first << ", " << start.second);
    CHECK(s.answer.value == r.answer.value);
  }
}
