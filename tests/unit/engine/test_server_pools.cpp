// The server pools (src/engine/server_pools.cpp): devices executing batches their model's batcher
// forms, and what they do with requests they cannot take.
#include "support.hpp"

using namespace test;

TEST_CASE("dynamic batching: the mean batch size grows with load", "[engine][batching]") {
  auto doc = deterministic(1, 1);
  doc["workload"]["cpu_time_per_event"] = {{"dist", "exponential"}, {"mean", 0.1}};
  doc["workload"]["requests"][0]["items"] = 4;
  doc["models"]["m"]["service_time"] = {{"batch", {1, 256}}, {"seconds", {0.002, 0.05}}};
  doc["models"]["m"]["max_batch_size"] = 256;
  doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {64}},
                                            {"max_queue_delay", "500us"}};
  double previous = 0.0;
  for (int n : {4, 32, 128, 512}) {
    doc["workload"]["jobs"] = n;
    const auto m = run(doc);
    const auto& mm = m.models.at(0);
    const double batch = static_cast<double>(mm.items) / static_cast<double>(mm.executions);
    INFO("N_CPU " << n << " mean batch " << batch);
    CHECK(batch > previous);
    CHECK(batch <= 256.0);
    previous = batch;
  }
  CHECK(previous > 32.0);
}

TEST_CASE("requests larger than max_batch_size fail, and are counted", "[engine][batching]") {
  auto doc = deterministic(4, 1);
  doc["workload"]["requests"][0]["items"] = {{"dist", "exponential"}, {"mean", 8}};
  doc["models"]["m"]["max_batch_size"] = 16;
  const auto m = run(doc);
  CHECK(m.failed > 0);
  CHECK(m.completed > m.failed);
  check_conservation(m);
}
