// The engine as a whole (src/engine/simulation.cpp and the parts it drives): the simulator
// reproduces the synchronous SONIC formula in its limits and the exact MVA of the closed network
// between them, and the same scenario and seed give the same results.
#include "results_support.hpp"
#include "support.hpp"

#include <sonicsim/results/results.hpp>

#include <algorithm>
#include <sonicsim/analytic/analytic.hpp>

using namespace test;

namespace {

// t_ideal of deterministic(): (1-p) t_CPU + t_GPU + 2 x 600 us + 10 kB/10 Gbps + 100 B/10 Gbps.
double t_ideal(double t_cpu = 0.1, double p = 0.1, double t_gpu = 0.01) {
  return (1 - p) * t_cpu + t_gpu + 2 * 600e-6 + (10000.0 + 100.0) / 1.25e9;
}

}  // namespace

TEST_CASE("below saturation the time per event is t_ideal", "[engine][formula]") {
  const double ideal = t_ideal();
  for (int gpus : {1, 4}) {
    const double knee = ideal / 0.01;  // N_CPU per GPU at saturation (~10.2)
    for (double ratio : {1.0, 3.0, 6.0, 9.0}) {
      const int n = static_cast<int>(ratio * gpus);
      INFO("N_GPU " << gpus << " N_CPU " << n << " knee " << knee * gpus);
      const auto m = run(deterministic(n, gpus));
      CHECK(m.time_per_event.mean() == Approx(ideal).epsilon(0.005));
      check_conservation(m);
    }
  }
}

TEST_CASE("above saturation the time per event is t_GPU x N_CPU / N_GPU", "[engine][formula]") {
  for (int gpus : {1, 4}) {
    for (double ratio : {12.0, 15.0, 20.0, 40.0}) {
      const int n = static_cast<int>(ratio * gpus);
      INFO("N_GPU " << gpus << " N_CPU " << n);
      const auto m = run(deterministic(n, gpus));
      CHECK(m.time_per_event.mean() == Approx(0.01 * n / gpus).epsilon(0.01));
    }
  }
}

TEST_CASE("the analytic block agrees with the formula the tests use", "[engine][formula]") {
  const auto s = scenario_of(deterministic(40, 1));
  const auto p = sonicsim::analytic::predict(s);
  CHECK(p.t_ideal_s == Approx(t_ideal()).epsilon(1e-9));
  CHECK(p.t_sonic_s == Approx(0.01 * 40).epsilon(1e-9));
  CHECK(p.saturated);
}

namespace {

nlohmann::json with_spread(int threads, int gpus, const std::string& dist, double cv,
                           const std::string& policy = "round_robin") {
  auto doc = deterministic(threads, gpus);
  doc["duration"] = 2000.0;
  doc["warmup"] = 100.0;
  if (dist == "exponential")
    doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  else
    doc["workload"]["cpu_time_per_event"] = {{"dist", dist}, {"mean", 0.1}, {"cv", cv}};
  doc["models"]["m"]["service_time"]["dist"] = dist;
  if (dist != "exponential") doc["models"]["m"]["service_time"]["cv"] = cv;
  doc["load_balancer"] = {{"policy", policy}};
  return doc;
}

}  // namespace

TEST_CASE("throughput never exceeds the asymptotic bounds", "[engine][bounds]") {
  for (const std::string dist : {"exponential", "lognormal"}) {
    for (int n : {2, 10, 30}) {
      const auto m = run(with_spread(n, 1, dist, 1.0));
      const double bound = std::min(n / t_ideal(), 1.0 / 0.01);
      INFO(dist << " N_CPU " << n << " throughput " << throughput(m) << " bound " << bound);
      CHECK(throughput(m) <= bound * 1.02);
    }
  }
}

TEST_CASE("exponential times: throughput matches exact MVA (1 device)", "[engine][mva]") {
  // Saturation near N_CPU = 10; up to three times that.
  for (int n : {1, 5, 10, 15, 30}) {
    const auto doc = with_spread(n, 1, "exponential", 1.0);
    const auto p = sonicsim::analytic::predict(scenario_of(doc));
    const auto m = run(doc);
    INFO("N_CPU " << n << " simulated " << throughput(m) << " MVA " << p.mva->throughput_per_s);
    CHECK(throughput(m) == Approx(p.mva->throughput_per_s).epsilon(0.02));
  }
}

TEST_CASE("exponential times: throughput matches exact MVA (4 devices, random routing)",
          "[engine][mva]") {
  for (int n : {4, 20, 40, 60, 120}) {
    const auto doc = with_spread(n, 4, "exponential", 1.0, "random");
    const auto p = sonicsim::analytic::predict(scenario_of(doc));
    const auto m = run(doc);
    INFO("N_CPU " << n << " simulated " << throughput(m) << " MVA " << p.mva->throughput_per_s);
    CHECK(throughput(m) == Approx(p.mva->throughput_per_s).epsilon(0.02));
  }
}

TEST_CASE("round-robin does better than random routing, which MVA describes", "[engine][mva]") {
  const auto rr = run(with_spread(40, 4, "exponential", 1.0, "round_robin"));
  const auto rnd = run(with_spread(40, 4, "exponential", 1.0, "random"));
  CHECK(throughput(rr) > throughput(rnd));
}

TEST_CASE("same scenario and seed give the same results file, except perf",
          "[engine][determinism]") {
  auto doc = deterministic(20, 2);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "lognormal"}, {"mean", 0.1}, {"cv", 0.8}};
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {4}},
                                            {"max_queue_delay", "1ms"}};
  const auto s = scenario_of(doc);
  auto dump = [&] { return results_without_perf(s); };
  const std::string a = dump(), b = dump();
  CHECK(a == b);
  auto other = doc;
  other["seed"] = 2;
  const auto s2 = scenario_of(other);
  sonicsim::runner::TransportChoice choice;
  auto out2 = sonicsim::runner::simulate(s2, choice);
  CHECK(out2.metrics.events_completed !=
        sonicsim::runner::simulate(s, choice).metrics.events_completed);
}
