// Pipelined devices (devices.D.kind "pipeline", an FPGA): a request's time on the device is its
// latency whatever the load, while the throughput rises with the load up to 1 / interval.
#include "support.hpp"

using namespace test;

namespace {

constexpr double kLatency = 0.0018, kInterval = 0.0016;  // Brainwave's ResNet-50, roughly

// Requests of `items` arriving at `rate` (constant spacing) at one pipeline, no network.
json pipeline_open_loop(double rate, int items) {
  return json{
      {"name", "pipeline"},
      {"duration", 100.0},
      {"warmup", 10.0},
      {"workload",
       {{"arrivals", {{"rate", rate}, {"distribution", "constant"}, {"max_in_flight", 64}}},
        {"requests", json::array({{{"model", "m"}, {"items", items}}})}}},
      {"devices", {{"FPGA", {{"kind", "pipeline"}}}}},
      {"models",
       {{"m", {{"service_time", {{"FPGA", {{"latency", "1.8ms"}, {"interval", "1.6ms"}}}}}}}}},
      {"servers",
       json::array({{{"name", "fpga"}, {"count", 1}, {"device", "FPGA"}, {"models", {"m"}}}})}};
}

double pipeline_per_second(const sonicsim::engine::RunMetrics& m) {
  return static_cast<double>(m.completed) / (m.duration - m.warmup);
}

}  // namespace

TEST_CASE("pipeline: latency stays constant while throughput rises to 1 / interval",
          "[engine][devices][pipeline]") {
  // Below 1 / interval = 625/s, constant arrivals never find the entry taken: no queue, and
  // every request leaves `latency` after it arrived.
  for (double rate : {100.0, 300.0, 600.0}) {
    INFO("rate " << rate);
    const auto m = run(pipeline_open_loop(rate, 1));
    check_conservation(m);
    CHECK(pipeline_per_second(m) == Approx(rate).epsilon(0.002));
    CHECK(m.models[0].compute_time.mean() == Approx(kLatency).epsilon(1e-9));
    CHECK(m.models[0].queue_time.mean() == Approx(0.0).margin(1e-12));
    // Busy is the entry taking items: rate x interval of the time.
    CHECK(m.pools[0].mean_utilization() == Approx(rate * kInterval).epsilon(0.002));
    // Little: requests inside the pipeline = rate x latency.
    CHECK(m.pools[0].mean_executions[0] == Approx(rate * kLatency).epsilon(0.002));
  }
  // Offered 2000/s: the entry takes one item per interval, no more; the latency is unchanged.
  const auto over = run(pipeline_open_loop(2000.0, 1));
  check_conservation(over);
  CHECK(pipeline_per_second(over) == Approx(1.0 / kInterval).epsilon(0.002));
  CHECK(over.models[0].compute_time.mean() == Approx(kLatency).epsilon(1e-9));
  CHECK(over.pools[0].mean_utilization() == Approx(1.0).epsilon(0.002));

  // A request of 4 items streams them in 4 consecutive slots: it completes when the last one
  // leaves, latency + 3 intervals after the first entered.
  const auto stream = run(pipeline_open_loop(100.0, 4));
  CHECK(stream.models[0].compute_time.mean() == Approx(kLatency + 3 * kInterval).epsilon(1e-9));
  CHECK(stream.pools[0].mean_utilization() == Approx(100.0 * 4 * kInterval).epsilon(0.002));
}
