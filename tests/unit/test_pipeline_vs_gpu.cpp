// A pipeline and a batch-1 GPU queue differently. Poisson arrivals at a pipeline wait for its
// entry, which each request holds for one interval: an M/D/1 queue of service `interval`, then
// `latency` inside. A batch-1 device busy `latency` per request (the same time per request
// alone) is an M/D/1 queue of service `latency`: it queues more and saturates at 1 / latency.
// A batch-1 device busy `interval` per request (the same capacity) queues like the pipeline but
// returns each request after `interval`, not `latency`.
#include "support.hpp"

using namespace test;

namespace {

constexpr double kFpgaLatency = 0.0018, kFpgaInterval = 0.0016, kPoissonRate = 400.0;

json poisson_at(const json& device, const json& timing) {
  json doc{{"name", "pipeline-vs-gpu"},
           {"duration", 500.0},
           {"warmup", 20.0},
           {"workload",
            {{"arrivals",
              {{"rate", kPoissonRate}, {"distribution", "poisson"}, {"max_in_flight", 10000}}},
             {"requests", json::array({{{"model", "m"}}})}}},
           {"models", {{"m", {{"service_time", {{"D", timing}}}}}}},
           {"servers",
            json::array({{{"name", "d"}, {"count", 1}, {"device", "D"}, {"models", {"m"}}}})}};
  if (!device.is_null()) doc["devices"] = {{"D", device}};
  return doc;
}

// Pollaczek-Khinchine for constant service s: the mean wait in the queue.
double md1_wait(double s) {
  const double rho = kPoissonRate * s;
  return rho * s / (2.0 * (1.0 - rho));
}

}  // namespace

TEST_CASE("pipeline: queues like M/D/1 on its interval, a batch-1 GPU on its service time",
          "[engine][devices][pipeline]") {
  const auto pipe =
      run(poisson_at({{"kind", "pipeline"}}, {{"latency", "1.8ms"}, {"interval", "1.6ms"}}));
  const auto same_time = run(poisson_at(nullptr, {{"batch", {1}}, {"seconds", {kFpgaLatency}}}));
  const auto same_rate = run(poisson_at(nullptr, {{"batch", {1}}, {"seconds", {kFpgaInterval}}}));
  for (const auto* m : {&pipe, &same_time, &same_rate}) check_conservation(*m);

  INFO("waits: pipeline " << pipe.models[0].queue_time.mean() << ", GPU 1.8ms "
                          << same_time.models[0].queue_time.mean() << ", GPU 1.6ms "
                          << same_rate.models[0].queue_time.mean());
  CHECK(pipe.models[0].queue_time.mean() == Approx(md1_wait(kFpgaInterval)).epsilon(0.05));
  CHECK(same_time.models[0].queue_time.mean() == Approx(md1_wait(kFpgaLatency)).epsilon(0.05));
  CHECK(same_rate.models[0].queue_time.mean() == Approx(md1_wait(kFpgaInterval)).epsilon(0.05));
  // The same time per request alone, and a longer queue on the GPU (1.42 ms against 2.31 ms).
  CHECK(pipe.models[0].compute_time.mean() == Approx(kFpgaLatency).epsilon(1e-9));
  CHECK(same_time.models[0].compute_time.mean() == Approx(kFpgaLatency).epsilon(1e-9));
  CHECK(same_time.models[0].queue_time.mean() > 1.4 * pipe.models[0].queue_time.mean());
  // The same capacity: the same queue, each request back after 1.6 ms instead of 1.8 ms.
  CHECK(same_rate.models[0].compute_time.mean() == Approx(kFpgaInterval).epsilon(1e-9));
  // Utilization is the fraction of capacity in use: rate x interval on both.
  CHECK(pipe.pools[0].mean_utilization() == Approx(kPoissonRate * kFpgaInterval).epsilon(0.02));
  CHECK(same_rate.pools[0].mean_utilization() ==
        Approx(kPoissonRate * kFpgaInterval).epsilon(0.02));
}
