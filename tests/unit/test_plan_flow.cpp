// The capacity planner on workloads whose threads do not all run at once (docs/plan.md, "Job
// flows"), and its explanation of every analytic "none": the binding resource and what would
// change it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/plan/plan.hpp>
#include <sonicsim/points/points.hpp>
#include <sonicsim/results_format/reader.hpp>

using namespace sonicsim;

namespace {

const std::string kFlow = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_flow.json";
const std::string kPlanKnee = std::string(SONICSIM_TEST_DATA_DIR) + "/plan_knee.json";
const std::string kDefault = std::string(SONICSIM_SOURCE_DIR) + "/scenarios/default.json";

plan::Simulate run_points(const std::string& file, const std::vector<scenario::Override>& common) {
  return [file, common](const std::vector<std::vector<scenario::Override>>& sets) {
    return points::run_points(pipeline::simulator(), file, common, sets, 2);
  };
}

// No simulation may run: the question is refused or answered analytically.
const plan::Simulate kNoSimulation = [](const std::vector<std::vector<scenario::Override>>&) {
  FAIL("simulated");
  return std::vector<points::PointResult>{};
};

}  // namespace

TEST_CASE("a job flow is planned with the threads it runs, time-weighted", "[plan][flow]") {
  // Waves of 10 one-thread jobs at 0, 2 and 4 s, 20 events of 53 ms each, measured 1..6 s:
  // 10 x (0.11 + 1.06 + 1.06) s / 5 s = 4.46 jobs on average (tests/data/plan_flow.json).
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.slowdown_percent = 0.5;
  o.replications = 1;
  o.analytic_only = true;
  const auto a = plan::plan(kFlow, {}, o, kNoSimulation);
  REQUIRE(a.flow);
  CHECK(a.flow->jobs == 30);
  CHECK(a.flow->starts == 30);
  CHECK(a.flow->most_starts == 30);
  CHECK(a.flow->job_lifetime_s == Approx(20 * 0.0530016).epsilon(1e-6));
  CHECK(a.flow->mean_running_jobs == Approx(10 * (0.11 + 2 * 1.06) / 5).epsilon(0.01));
  CHECK(a.base["n_cpu"].get<double>() == Approx(a.flow->mean_running_threads));
  CHECK(a.base["n_cpu_nominal"].get<double>() == 30);
  CHECK(plan::to_text(a).find("run on average after the warm-up") != std::string::npos);

  // The simulation agrees with the estimate, and the answer quotes the run's own figure.
  o.analytic_only = false;
  const auto r = plan::plan(kFlow, {}, o, run_points(kFlow, {}));
  REQUIRE(r.answer.value);
  CHECK(*r.answer.value == 1.0);
  const auto j = plan::to_json(r);
  const double running = j["answer"]["n_cpu"].get<double>();
  CHECK(running == Approx(a.flow->mean_running_threads).epsilon(0.05));
  CHECK(j["answer"]["n_cpu_nominal"].get<double>() == 30.0);
  CHECK(plan::to_text(r).find("running (time-weighted; nominal 30)") != std::string::npos);

  // The run's own results carry it: jobs.mean_running_threads, read through the typed reader.
  const auto runs = points::run_points(pipeline::simulator(), kFlow, {}, {{{"seed", "1"}}}, 1);
  REQUIRE(runs.at(0).ok);
  const results::Document doc(runs[0].results);
  REQUIRE(doc.has_jobs());
  CHECK(doc.jobs().mean_running_threads() == Approx(running));
  CHECK(doc.jobs().mean_running() == Approx(running));  // one thread per job
}

TEST_CASE("without a job flow, N_CPU is the nominal jobs x threads_per_job", "[plan][flow]") {
  // Without the flow the same jobs all run for the whole run: N_CPU is the nominal 30.
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.analytic_only = true;
  const auto fixed = plan::plan(kFlow, {{"workload.flow", "null"}}, o, kNoSimulation);
  CHECK(!fixed.flow);
  CHECK(fixed.base["n_cpu"].get<double>() == 30.0);
  CHECK(fixed.base["n_cpu_nominal"].get<double>() == 30.0);
}

TEST_CASE("questions a job flow cannot pose are refused with the reason", "[plan][flow]") {
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.replications = 1;
  // 100 jobs, of which the three waves start 30.
  CHECK_THROWS_WITH(plan::plan(kFlow, {{"workload.jobs", "100"}}, o, kNoSimulation),
                    Catch::Contains("starts at most 30 jobs in the 6.00 s run") &&
                        Catch::Contains("70 never start") &&
                        Catch::Contains("workload.flow.waves.size"));
  // max-cpu over jobs may not search past them...
  plan::Options m;
  m.question = plan::Question::MaxCpu;
  m.replications = 1;
  m.range_max = 64;
  CHECK_THROWS_WITH(
      plan::plan(kFlow, {}, m, kNoSimulation),
      Catch::Contains("starts at most 30 jobs") && Catch::Contains("search up to 30"));
  // ... and where the constraint still holds at the most jobs that start, there is no answer:
  // 4.5 threads on one device are far below its knee.
  m.range_max.reset();
  m.analytic_only = true;
  const auto a = plan::plan(kFlow, {}, m, kNoSimulation);
  CHECK(!a.formula_answer);
  CHECK(!a.mva_answer);
  REQUIRE(a.formula_none);
  CHECK(a.formula_none->kind == "flow");
  CHECK(a.formula_none->text.find("jobs above 30 never start") != std::string::npos);
  m.analytic_only = false;
  CHECK_THROWS_WITH(plan::plan(kFlow, {}, m, run_points(kFlow, {})),
                    Catch::Contains("still holds at workload.jobs=30") &&
                        Catch::Contains("never start") && !Catch::Contains("--range"));
}

TEST_CASE("an analytic none names the overloaded link and what would change it", "[plan][none]") {
  // default.json at 2,000 four-thread jobs: its 100 Gbps uplink carries 1.56 MB per event for
  // 8,000 threads, past its bandwidth whatever the number of T4s.
  plan::Options o;
  o.question = plan::Question::MinDevices;
  o.analytic_only = true;
  const auto r = plan::plan(kDefault, {{"workload.jobs", "2000"}}, o, kNoSimulation);
  CHECK(!r.formula_answer);
  CHECK(!r.mva_answer);
  REQUIRE(r.formula_none);
  REQUIRE(r.mva_none);
  CHECK(r.formula_none->kind == "link");
  CHECK(r.formula_none->resource == "site_uplink");
  REQUIRE(r.formula_none->utilization);
  CHECK(*r.formula_none->utilization > 1.0);
  CHECK(r.formula_none->text.find("min-bandwidth --link site_uplink") != std::string::npos);
  CHECK(r.formula_none->text.find("--range") == std::string::npos);
  const auto text = plan::to_text(r);
  CHECK(text.find("no answer    formula and MVA: site_uplink at 1") != std::string::npos);
  const auto j = plan::to_json(r);
  CHECK(j["analytic"]["none"]["formula"]["kind"] == "link");
  CHECK(j["analytic"]["none"]["mva"]["resource"] == "site_uplink");

  // With the uplink raised, the same question has an answer.
  const auto wide = plan::plan(
      kDefault, {{"workload.jobs", "2000"}, {"network.site_uplink.bandwidth", "\"400Gbps\""}}, o,
      kNoSimulation);
  CHECK(wide.formula_answer);
  CHECK(!wide.formula_none);
}

TEST_CASE("an analytic none names the saturated pool when the varied link cannot help",
          "[plan][none]") {
  // 200 threads on the knee scenario's one device (knee 53): no uplink bandwidth brings the time
  // per event within 5% of t_ideal; more devices would.
  plan::Options o;
  o.question = plan::Question::MinBandwidth;
  o.analytic_only = true;
  const auto r = plan::plan(kPlanKnee, {{"workload.jobs", "200"}}, o, kNoSimulation);
  CHECK(!r.formula_answer);
  REQUIRE(r.formula_none);
  CHECK(r.formula_none->kind == "pool");
  CHECK(r.formula_none->resource == "gpu");
  CHECK(r.formula_none->text.find("servers.0.count") != std::string::npos);
  CHECK(r.formula_none->text.find("--range") == std::string::npos);

  // Simulated, the refusal says the same instead of "raise --range".
  plan::Options s = o;
  s.analytic_only = false;
  s.replications = 1;
  CHECK_THROWS_WITH(plan::plan(kPlanKnee, {{"workload.jobs", "200"}}, s,
                               run_points(kPlanKnee, {{"workload.jobs", "200"}})),
                    Catch::Contains("pool gpu past its knee") && !Catch::Contains("--range"));

  // A model with no view of the metric says so: the formula has no latency.
  plan::Options p;
  p.question = plan::Question::MinDevices;
  p.constraint = plan::Constraint::P99Latency;
  p.max_p99_latency_s = 0.02;
  p.analytic_only = true;
  const auto l = plan::plan(kPlanKnee, {{"workload.jobs", "200"}}, p, kNoSimulation);
  REQUIRE(l.formula_none);
  CHECK(l.formula_none->kind == "no_view");
  CHECK(l.mva_answer);
  // A limit below one request's own time: MVA finds no device count, and says why.
  p.max_p99_latency_s = 0.001;
  const auto t = plan::plan(kPlanKnee, {{"workload.jobs", "200"}}, p, kNoSimulation);
  REQUIRE(t.mva_none);
  CHECK(t.mva_none->kind == "time");
  CHECK(t.mva_none->text.find("--max-p99-latency") != std::string::npos);
}
