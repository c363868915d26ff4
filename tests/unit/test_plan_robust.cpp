// Robust plans against answers propagated exactly: on the deterministic knee scenario the
// formula's min-devices answer is exact, and it grows with the GPU time, so the q-quantile of
// the answers is the answer at the GPU time's q-quantile. A Latin hypercube puts the k-th
// smallest of n samples in the k-th of n equal strata, which bounds the sampled quantile exactly.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <boost/math/special_functions/erf.hpp>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/robust.hpp>
#include <sonicsim/points/points.hpp>

using namespace sonicsim;

namespace {

const std::string kRobustKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";
constexpr double kGpuSigma = 0.3;  // the GPU time's lognormal spread around its 1 ms

const std::vector<scenario::Override> kRobustCommon = {
    {"workload.jobs", "200"},
    {"uncertainty", R"({"inputs": [{"name": "GPU time", "path": "models.toy.service_time.seconds.0",
                        "dist": "lognormal", "sigma": 0.3}]})"}};

plan::Options robust_min_devices() {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 1;
  return o;
}

struct RobustCounting {
  int count = 0;
  plan::SimulateFor simulate() {
    return [this](const std::vector<scenario::Override>& common) -> plan::Simulate {
      return [this, common](const std::vector<std::vector<scenario::Override>>& sets) {
        count += static_cast<int>(sets.size());
        return points::run_points(pipeline::simulator(), kRobustKnee, common, sets, 2);
      };
    };
  }
};

// The formula's answer at a GPU time (exact on this scenario): no simulation.
double exact_min_devices(double t_gpu) {
  auto o = robust_min_devices();
  o.analytic_only = true;
  auto common = kRobustCommon;
  common.push_back({"models.toy.service_time.seconds.0", std::to_string(t_gpu)});
  const auto r = plan::plan(kRobustKnee, common, o, {});
  REQUIRE(r.formula_answer);
  return *r.formula_answer;
}

double gpu_time_quantile(double q) {
  return 0.001 * std::exp(kGpuSigma * std::sqrt(2.0) * boost::math::erf_inv(2 * q - 1));
}

}  // namespace

TEST_CASE("a robust min-devices answer is the exact quantile of the answer, within the strata",
          "[plan][robust]") {
  RobustCounting c;
  const auto sim = c.simulate();
  const auto nominal =
      plan::plan(kRobustKnee, kRobustCommon, robust_min_devices(), sim(kRobustCommon));
  REQUIRE(nominal.answer.value);
  CHECK(*nominal.answer.value == exact_min_devices(0.001));
  plan::RobustOptions ro;
  ro.confidence = 0.9;
  ro.samples = 40;
  ro.seed = 3;
  ro.narrow_to = 0.0;
  const auto rb = plan::robust_plan(kRobustKnee, kRobustCommon, nominal, sim, ro);
  REQUIRE(rb.answers.size() == 40);
  // Every sample's simulated answer is the exact one at its own GPU time.
  for (std::size_t i = 0; i < rb.answers.size(); ++i) {
    REQUIRE(rb.answers[i]);
    CHECK(*rb.answers[i] == exact_min_devices(rb.sample_inputs[i][0]));
  }
  // The 36th smallest of 40 (90%) lies in the 36th stratum, [F^-1(35/40), F^-1(36/40)].
  REQUIRE(rb.answer);
  CHECK(*rb.answer >= exact_min_devices(gpu_time_quantile(35.0 / 40)));
  CHECK(*rb.answer <= exact_min_devices(gpu_time_quantile(36.0 / 40)));
  CHECK(rb.met >= 36);
  REQUIRE(rb.median);
  CHECK(*rb.median >= exact_min_devices(gpu_time_quantile(19.0 / 40)));
  CHECK(*rb.median <= exact_min_devices(gpu_time_quantile(20.0 / 40)));
  // The tornado's ends are the answers at the input's 2.5% and 97.5% quantiles.
  REQUIRE(rb.tornado.size() == 1);
  CHECK(*rb.tornado[0].answer_at_low == exact_min_devices(gpu_time_quantile(0.025)));
  CHECK(*rb.tornado[0].answer_at_high == exact_min_devices(gpu_time_quantile(0.975)));
  // Warm starts: a search confirms its boundary in about two simulations, not a plain plan's.
  CHECK(rb.simulations == c.count - nominal.simulations);
  CHECK(static_cast<double>(rb.simulations) / rb.searches <= 3.0);
}

TEST_CASE("a robust plan is reproducible from its seed, and --check counts the samples met",
          "[plan][robust]") {
  RobustCounting c;
  const auto sim = c.simulate();
  const auto nominal =
      plan::plan(kRobustKnee, kRobustCommon, robust_min_devices(), sim(kRobustCommon));
  plan::RobustOptions ro;
  ro.confidence = 0.95;
  ro.samples = 8;
  ro.seed = 5;
  ro.method = "sobol";
  ro.check = 4.0;
  ro.narrow_to = 0.0;
  ro.tornado = false;
  const auto a = plan::robust_plan(kRobustKnee, kRobustCommon, nominal, sim, ro);
  const auto b = plan::robust_plan(kRobustKnee, kRobustCommon, nominal, sim, ro);
  CHECK(plan::to_json(a, nominal).dump() == plan::to_json(b, nominal).dump());
  int enough = 0;
  for (const auto& x : a.answers) enough += x && *x <= 4.0;
  CHECK(a.check_met == enough);
  ro.seed = 6;
  const auto other = plan::robust_plan(kRobustKnee, kRobustCommon, nominal, sim, ro);
  CHECK(other.sample_inputs != a.sample_inputs);
}

TEST_CASE("the robust quantile of answers, with answers beyond the range counted as misses",
          "[plan][robust]") {
  using A = std::vector<std::optional<double>>;
  // min-devices: 3 is enough for 3 of 4, 5 for all.
  const A answers = {3.0, 2.0, 5.0, 3.0};
  CHECK(*plan::robust_quantile(answers, 0.75, false).value == 3.0);
  CHECK(*plan::robust_quantile(answers, 0.76, false).value == 5.0);
  CHECK(plan::robust_quantile(answers, 0.75, false).met == 3);
  // max-cpu: at most 3 jobs meet it in 3 of 4 samples.
  CHECK(*plan::robust_quantile(answers, 0.75, true).value == 3.0);
  CHECK(*plan::robust_quantile(answers, 1.0, true).value == 2.0);
  // A sample with no answer in the range: no value is enough for all of them.
  const A beyond = {3.0, std::nullopt};
  CHECK_FALSE(plan::robust_quantile(beyond, 0.95, false).value);
  CHECK(*plan::robust_quantile(beyond, 0.5, false).value == 3.0);
}
