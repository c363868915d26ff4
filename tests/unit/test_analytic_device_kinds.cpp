// The formulas on devices that overlap executions or are pipelines: t_GPU stays a request's time
// on the device, the pool's demand (what saturates) is the device time it uses up.
#include "support.hpp"

#include <sonicsim/analytic/analytic.hpp>

using namespace test;
using sonicsim::analytic::predict;

namespace {

json open_loop_at(const json& device, const json& timing, int instances = 1) {
  json doc{{"name", "analytic-kinds"},
           {"duration", 10.0},
           {"workload",
            {{"arrivals", {{"rate", 100.0}}}, {"requests", json::array({{{"model", "m"}}})}}},
           {"models", {{"m", {{"instances", instances}, {"service_time", {{"D", timing}}}}}}},
           {"servers",
            json::array({{{"name", "d"}, {"count", 2}, {"device", "D"}, {"models", {"m"}}}})}};
  if (!device.is_null()) doc["devices"] = {{"D", device}};
  return doc;
}

}  // namespace

TEST_CASE(
    "analytic: a pipeline saturates at 1 / interval, an overlapping device at "
    "throughput(k) / t",
    "[analytic][devices]") {
  const auto pipe = predict(scenario_of(
      open_loop_at({{"kind", "pipeline"}}, {{"latency", "1.8ms"}, {"interval", "1.6ms"}})));
  CHECK(pipe.t_gpu_s == Approx(0.0018));  // a request's time through the pipeline
  CHECK(pipe.saturation_rate_per_s == Approx(2 / 0.0016));
  CHECK(pipe.notes.back().find("is a pipeline") != std::string::npos);

  const json curve = {{"overlap", {{"executions", {1, 2, 4}}, {"throughput", {1.0, 1.6, 1.9}}}}};
  const json batch1 = {{"batch", {1}}, {"seconds", {0.010}}};
  const auto overlap = predict(scenario_of(open_loop_at(curve, batch1, 4)));
  CHECK(overlap.t_gpu_s == Approx(0.010));
  CHECK(overlap.saturation_rate_per_s == Approx(2 * 1.9 / 0.010));

  // Without a curve, instances add nothing, and a `devices` entry without keys changes nothing.
  const auto plain = predict(scenario_of(open_loop_at(nullptr, batch1, 4)));
  const auto entry = predict(scenario_of(open_loop_at(json::object(), batch1, 4)));
  CHECK(plain.saturation_rate_per_s == Approx(2 / 0.010));
  CHECK(entry.saturation_rate_per_s == plain.saturation_rate_per_s);
  CHECK(entry.t_sonic_s == plain.t_sonic_s);
  CHECK(entry.notes == plain.notes);
}
