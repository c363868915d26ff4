// The capacity planner on an open loop and on several workloads sharing the servers (docs/plan.md,
// "Open loops and several workloads"): what N_CPU is, the shared formula against the SONIC
// formula it extends, the constraint on every workload against each one's own plan, and the
// questions refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/results_format/reader.hpp>

using namespace sonicsim;

namespace {

const std::string kTwo = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_two_workloads.json";
const std::string kOpen = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_open_loop.json";
const std::string kKneeOne = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";

plan::Simulate simulate_mix(const std::string& file,
                            const std::vector<scenario::Override>& common) {
  return [file, common](const std::vector<std::vector<scenario::Override>>& sets) {
    return points::run_points(pipeline::simulator(), file, common, sets, 2);
  };
}

const plan::Simulate kNoSimulationMix = [](const std::vector<std::vector<scenario::Override>>&) {
  FAIL("simulated");
  return std::vector<points::PointResult>{};
};

plan::Options analytic_question(plan::Question q, double slowdown = 5.0) {
  plan::Options o;
  o.question = q;
  o.slowdown_percent = slowdown;
  o.replications = 1;
  o.analytic_only = true;
  return o;
}

// `slow` made a copy of `fast` (100 ms CPU, one 1 ms request): the two workloads are then one
// population split in two.
const std::vector<scenario::Override> kTwins = {{"workloads.1.cpu_time_per_event", "\"100ms\""},
                                                {"workloads.1.requests.0.per_event", "1"}};

}  // namespace

TEST_CASE("the shared formula is the SONIC formula when the workloads are one population",
          "[plan][workloads]") {
  // plan_knee.json is `fast` alone: its knee is 53.0016 threads per device, so max-cpu at X%
  // slowdown is floor(53.0016 x (1 + X/100)) jobs. Split in two workloads with 20 jobs in the
  // second, the first may have exactly 20 fewer: the shared formula's stretch at the binding pool
  // reduces to t_SONIC = t_GPU N_CPU / N_GPU.
  for (const double slowdown : {0.5, 5.0, 20.0, 100.0}) {
    CAPTURE(slowdown);
    const auto one = plan::plan(kKneeOne, {}, analytic_question(plan::Question::MaxCpu, slowdown),
                                kNoSimulationMix);
    REQUIRE(one.formula_answer);
    CHECK(*one.formula_answer == std::floor(53.0016 * (1.0 + slowdown / 100.0)));
    for (const char* scope : {"all", "fast"}) {
      CAPTURE(scope);
      auto o = analytic_question(plan::Question::MaxCpu, slowdown);
      o.workload = scope;
      auto common = kTwins;
      common.push_back({"workloads.1.jobs", "20"});
      const auto two = plan::plan(kTwo, common, o, kNoSimulationMix);
      CHECK(two.options.vary == "workloads.0.jobs");
      REQUIRE(two.formula_answer);
      CHECK(*two.formula_answer == *one.formula_answer - 20.0);
      CHECK(!two.mva_answer);
      REQUIRE(two.mva_none);
      CHECK(two.mva_none->kind == "no_view");
    }
  }
  // Below the knee the formula is t_ideal whatever the split: min-devices needs one device.
  auto o = analytic_question(plan::Question::MinDevices);
  const auto below = plan::plan(kTwo, {}, o, kNoSimulationMix);
  REQUIRE(below.formula_answer);
  CHECK(*below.formula_answer == 1.0);
  // N_CPU is every workload's threads together, each one's own t_ideal kept.
  CHECK(below.base["n_cpu"].get<double>() == 50.0);
  REQUIRE(below.mix);
  REQUIRE(below.mix->terms.size() == 2);
  CHECK(below.mix->terms[0].t_ideal_s == Approx(0.0530016));
  CHECK(below.mix->terms[1].t_ideal_s == Approx(0.2120064));
  const auto j = plan::to_json(below);
  CHECK(j["workloads"]["constrained"] == "all");
  CHECK(j["workloads"]["terms"][1]["name"] == "slow");
  CHECK(plan::to_text(below).find("2 share the servers, the constraint on every one") !=
        std::string::npos);
}

TEST_CASE("several workloads: the simulated answer agrees with the shared formula at the knee",
          "[plan][workloads]") {
  // Constant times, closed loops: the simulation stays near the formula's asymptote. Together
  // the pool is full at 43 `fast` jobs; 5% more time per event allows 45 (docs/plan.md).
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.replications = 2;
  const auto r = plan::plan(kTwo, {}, o, simulate_mix(kTwo, {}));
  REQUIRE(r.formula_answer);
  CHECK(*r.formula_answer == 45.0);
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value <= *r.formula_answer);
  CHECK(*r.answer.value >= *r.formula_answer - 3.0);
  // The answer quotes the threads of both workloads.
  const auto j = plan::to_json(r);
  CHECK(j["answer"]["n_cpu"].get<double>() == *r.answer.value + 10.0);
  CHECK(r.metric_key == "max workloads[*] time per event / reference");
}

TEST_CASE("a constraint on every workload is each workload's constraint at once",
          "[plan][workloads]") {
  // 100 `fast` jobs need two devices by themselves; the slow workload's four requests per event
  // then suffer the queue more in time, less in ratio. The plan over every workload must be the
  // largest of the plans over each one (same seeds, so the same runs at every value).
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.replications = 2;
  o.slowdown_percent = 10.0;
  const std::vector<scenario::Override> common = {{"workloads.0.jobs", "100"}};
  std::vector<double> answers;
  for (const char* scope : {"fast", "slow", "all"}) {
    CAPTURE(scope);
    o.workload = scope;
    const auto r = plan::plan(kTwo, common, o, simulate_mix(kTwo, common));
    REQUIRE(r.answer.value);
    answers.push_back(*r.answer.value);
  }
  CHECK(answers[2] == std::max(answers[0], answers[1]));
  CHECK(answers[0] >= 2.0);
}

TEST_CASE("an open loop is planned by its arrival rate, its events in flight as N_CPU",
          "[plan][workloads]") {
  // 2,500 events/s of one 1 ms request each: one device serves 1,000/s, so the pools keep up
  // from 3 devices (the formula's answer, each request alone), and on one device the highest
  // rate kept is just below 1,000/s.
  auto o = analytic_question(plan::Question::MinDevices, 50.0);
  const auto a = plan::plan(kOpen, {}, o, kNoSimulationMix);
  REQUIRE(a.formula_answer);
  CHECK(*a.formula_answer == 3.0);
  CHECK(!a.mva_answer);
  REQUIRE(a.mva_none);
  CHECK(a.mva_none->kind == "no_view");
  // At exactly the saturation rate the queue is already unstable: 3,000/s needs 4 devices.
  const auto edge = plan::plan(kOpen, {{"workload.arrivals.rate", "3000"}}, o, kNoSimulationMix);
  REQUIRE(edge.formula_answer);
  CHECK(*edge.formula_answer == 4.0);
  // Little's law at t_ideal: 2,500/s x 3.0016 ms.
  CHECK(a.base["n_cpu"].get<double>() == Approx(2500 * 0.0030016));
  CHECK(a.base["n_cpu_nominal"].get<double>() == 0.0);

  auto m = analytic_question(plan::Question::MaxCpu, 50.0);
  const auto rate = plan::plan(kOpen, {}, m, kNoSimulationMix);
  CHECK(rate.options.vary == "workload.arrivals.rate");
  CHECK(rate.geometric);
  REQUIRE(rate.formula_answer);
  CHECK(*rate.formula_answer < 1000.0);
  CHECK(*rate.formula_answer > 1000.0 / 1.002);

  // Simulated: 2 devices saturate (the queue grows), 3 meet 50%; the answer's N_CPU is the run's
  // own events in flight, its throughput x its mean event time.
  o.analytic_only = false;
  const auto s = plan::plan(kOpen, {}, o, simulate_mix(kOpen, {}));
  REQUIRE(s.answer.value);
  CHECK(*s.answer.value == 3.0);
  CHECK(s.metric_key == "events.time_per_event_s.mean");
  const plan::Point* at3 = nullptr;
  for (const auto& p : s.points)
    if (p.value == 3.0) at3 = &p;
  REQUIRE(at3);
  const double x = at3->summary["throughput_per_s"].get<double>();
  CHECK(x == Approx(2500).epsilon(0.03));
  CHECK(at3->summary["n_cpu"].get<double>() == Approx(x * at3->metric.mean).epsilon(1e-9));
  CHECK(plan::to_text(s).find("events in flight, Little's law") != std::string::npos);
}

TEST_CASE("questions an open loop or several workloads cannot pose are refused",
          "[plan][workloads]") {
  const auto refused = [](const std::string& file, plan::Options o,
                          const std::vector<scenario::Override>& common = {}) {
    o.analytic_only = true;
    try {
      plan::plan(file, common, o, kNoSimulationMix);
    } catch (const scenario::InputError& e) {
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  plan::Options o;
  o.question = plan::Question::MaxCpu;
  o.constraint = plan::Constraint::PerJobThroughput;
  o.min_per_job_throughput = 1.0;
  CHECK_THAT(refused(kOpen, o),
             Catch::Contains("workload.arrivals") && Catch::Contains("an open loop has no jobs"));
  o = {};
  o.question = plan::Question::MaxCpu;
  o.vary = "workload.jobs";
  CHECK_THAT(refused(kOpen, o), Catch::Contains("--vary workload.arrivals.rate"));
  o.vary.clear();
  o.reference = plan::Reference::CpuOnly;
  CHECK_THAT(refused(kOpen, o), Catch::Contains("no CPU work of its own"));
  o = {};
  o.question = plan::Question::Cost;
  CHECK_THAT(refused(kOpen, o), Catch::Contains("open loop"));
  CHECK_THAT(refused(kTwo, o), Catch::Contains("2 workloads"));
  o = {};
  o.question = plan::Question::MinDevices;
  o.workload = "fats";
  CHECK_THAT(refused(kTwo, o),
             Catch::Contains("found `fats`") && Catch::Contains("did you mean `fast`"));
  o.workload = "reco";
  CHECK_THAT(refused(kOpen, o), Catch::Contains("leave --workload out"));
  o = {};
  o.question = plan::Question::MaxCpu;
  o.vary = "workload.jobs";
  CHECK_THAT(refused(kTwo, o), Catch::Contains("workloads.I.jobs"));
  o.vary = "workloads.0.arrivals.rate";
  CHECK_THAT(refused(kTwo, o), Catch::Contains("no arrival rate"));
}

TEST_CASE("a job flow in one of several workloads is planned with the jobs it starts",
          "[plan][workloads][flow]") {
  // `slow` in waves of 5 jobs every 2 s over the 6 s run: at most 15 of its jobs ever start.
  const std::vector<scenario::Override> waves = {
      {"workloads.1.flow", R"({"events_per_job": 20, "waves": {"size": 5, "every": "2s"}})"}};
  auto o = analytic_question(plan::Question::MinDevices);
  // Its jobs run part of the time: N_CPU counts them on average, not all 10.
  const auto r = plan::plan(kTwo, waves, o, kNoSimulationMix);
  REQUIRE(r.mix);
  CHECK(r.mix->terms[1].n_cpu < 10.0);
  CHECK(r.base["n_cpu"].get<double>() == Approx(40.0 + r.mix->terms[1].n_cpu));
  // More jobs than the waves start are refused, under the workload's own path...
  auto more = waves;
  more.push_back({"workloads.1.jobs", "40"});
  CHECK_THROWS_WITH(plan::plan(kTwo, more, o, kNoSimulationMix),
                    Catch::Contains("workloads.1.jobs = 40") &&
                        Catch::Contains("starts at most 15 jobs") &&
                        Catch::Contains("workloads.1.flow.waves.size"));
  // ... and a search over its jobs stops where the flow does.
  auto m = analytic_question(plan::Question::MaxCpu);
  m.vary = "workloads.1.jobs";
  m.range_max = 64;
  CHECK_THROWS_WITH(plan::plan(kTwo, waves, m, kNoSimulationMix),
                    Catch::Contains("search up to 15"));
  m.range_max.reset();
  const auto capped = plan::plan(kTwo, waves, m, kNoSimulationMix);
  REQUIRE(capped.flow);
  CHECK(capped.flow->path == "workloads.1");
  REQUIRE(capped.formula_none);
  CHECK(capped.formula_none->kind == "flow");
  CHECK(capped.formula_none->resource == "workloads.1.flow");
}
