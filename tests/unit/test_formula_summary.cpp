// The summary's formula lines and analytic.formed_batches: with dynamic batching the run is held
// against the formula at the batches it formed as well as at one request per execution.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/util/format.hpp>

#include "support.hpp"

using namespace sonicsim;

namespace {

// scenarios/examples/triton-dynamic-batching.json, shorter: 100 threads keep one T4 busy enough
// that 4-item requests share executions.
test::json batching_scenario() {
  return test::json::parse(R"({
    "name": "formed-batches", "seed": 1, "duration": "12s", "warmup": "2s",
    "workload": {"jobs": 50, "threads_per_job": 2, "jobs_per_node": 10, "mode": "sync",
                 "cpu_time_per_event": "100ms",
                 "requests": [{"model": "pn", "offload_fraction": 0.05, "items": 4}]},
    "models": {"pn": {
      "input_bytes_per_item": "2.86kB", "output_bytes_per_item": "32B",
      "service_time": {"batch": [1, 4, 8, 16, 32, 64, 128, 256],
                       "seconds": [0.00124, 0.00147, 0.00200, 0.00339, 0.00615, 0.01182,
                                   0.02351, 0.04644]},
      "max_batch_size": 500,
      "dynamic_batching": {"preferred_batch_size": [200], "max_queue_delay": "100us"}}},
    "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["pn"]}],
    "network": {"client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
                "server_nic": {"bandwidth": "25Gbps", "latency": "50us"}}
  })");
}

// The SPEC formula, literally.
double spec_t_sonic(double p, double t_cpu, double t_gpu, double t_lat, double n_cpu,
                    double n_gpu) {
  const double t_ideal = (1 - p) * t_cpu + t_gpu + t_lat;
  return (1 - p) * t_cpu + t_gpu * (1 + std::max(0.0, n_cpu / n_gpu - t_ideal / t_gpu)) + t_lat;
}

}  // namespace

TEST_CASE("with dynamic batching the summary also quotes the formula at the batches formed",
          "[results][analytic]") {
  const auto run = pipeline::simulate(test::scenario_of(batching_scenario()));
  const auto& pn = run.output.metrics.models.at(0);
  REQUIRE(pn.executions > 0);
  const double batch = static_cast<double>(pn.items) / static_cast<double>(pn.executions);
  REQUIRE(batch > 4.5);  // requests did share executions

  // By hand: a 4-item request's share of an execution of the run's mean batch.
  const double t_gpu = 4 * run.scenario.models.at(0).curve_for("T4").at(batch) / batch;
  const nlohmann::json doc = run.results;
  const results::Document written(doc);
  const results::Analytic analytic = written.analytic();
  const auto formed = analytic.formed_batches();
  REQUIRE(formed);
  CHECK(formed->mean_batch_size() == Approx(batch));
  CHECK(formed->t_gpu_s() == Approx(t_gpu));
  const double expected =
      spec_t_sonic(0.05, 0.1, t_gpu, analytic.t_latency_s(), analytic.n_cpu(), analytic.n_gpu());
  CHECK(formed->t_sonic_s() == Approx(expected));
  CHECK(formed->t_sonic_s() < analytic.t_sonic_s());
  // The batches are what the run did: the figure at them is nearer the run than batch 1's.
  const double simulated = run.output.metrics.thread_time_per_event(100);
  CHECK(std::abs(simulated / formed->t_sonic_s() - 1) <
        std::abs(simulated / analytic.t_sonic_s() - 1));

  const std::string summary = results::summary(run.scenario, run.output, run.analytic);
  CHECK(summary.find("formula t_SONIC " + util::format_time(analytic.t_sonic_s())) !=
        std::string::npos);
  CHECK(summary.find("formula at the batches this run formed (mean " +
                     util::formatted("%.2f", batch) + " items): t_SONIC " +
                     util::format_time(formed->t_sonic_s())) != std::string::npos);
}

TEST_CASE("without dynamic batching the summary quotes the formula once", "[results][analytic]") {
  auto doc = batching_scenario();
  doc["models"]["pn"].erase("dynamic_batching");
  const auto run = pipeline::simulate(test::scenario_of(doc));
  REQUIRE(run.output.metrics.models.at(0).executions > 0);
  const nlohmann::json written = run.results;
  CHECK_FALSE(results::Document(written).analytic().formed_batches());
  const std::string summary = results::summary(run.scenario, run.output, run.analytic);
  CHECK(summary.find("formula t_SONIC") != std::string::npos);
  CHECK(summary.find("at the batches") == std::string::npos);
}
