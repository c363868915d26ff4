// MVA with dynamic batching and link stations (analytic/mva_batched.hpp): what the plan's first
// guess relies on. It is exact MVA where nothing batches and no link has a bandwidth, reaches the
// full-batch capacity bound when saturated, and lets a narrow link bind.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/analytic/mva.hpp>
#include <sonicsim/analytic/mva_batched.hpp>
#include <sonicsim/results_format/keys.hpp>

#include "support.hpp"

using sonicsim::analytic::BatchedKind;
using sonicsim::analytic::BatchedNetwork;
using sonicsim::analytic::ClosedNetwork;
using sonicsim::analytic::predict;
using sonicsim::analytic::Prediction;
using sonicsim::analytic::solve_mva;
using sonicsim::analytic::solve_mva_batched;
using test::json;

namespace {

// One model on `gpus` T4s whose executions cost 2 ms + 0.5 ms per item, batching up to 32 items
// when `batching`; `threads` threads each send one 4-item request per 100 ms event.
json batched_doc(int threads, int gpus, bool batching) {
  json doc = test::deterministic(threads, gpus, 0.1, 0.1, 0.01);
  doc["workload"]["requests"][0]["items"] = 4;
  doc["models"]["m"]["service_time"] = {{"batch", {1, 8, 32, 64}},
                                        {"seconds", {0.0025, 0.006, 0.018, 0.034}}};
  doc["models"]["m"]["max_batch_size"] = 64;
  if (batching) doc["models"]["m"]["dynamic_batching"] = {{"preferred_batch_size", {32}}};
  doc.erase("network");
  return doc;
}

Prediction predicted_from(const json& doc) {
  return predict(test::scenario_of(doc));
}

}  // namespace

TEST_CASE("batched MVA without batching or links is exact MVA", "[mva_batched]") {
  // Random networks of constant-demand stations, straight against solve_mva.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> demand(0.0005, 0.05);
  std::uniform_int_distribution<int> count(1, 6);
  for (int trial = 0; trial < 20; ++trial) {
    ClosedNetwork plain{demand(rng) * 20.0, {}};
    BatchedNetwork net{plain.think_time_s, {}};
    for (int s = 0; s < 3; ++s) {
      const double d = demand(rng);
      const int c = count(rng);
      plain.stations.push_back({d, c});
      BatchedKind k;
      k.model = "m" + std::to_string(s);
      k.visits = 1.0;
      k.busy_s = [d](double) { return d; };
      net.stations.push_back({k.model, static_cast<double>(c), {k}});
    }
    for (const std::int64_t n : {1, 7, 60, 500, 5000}) {
      const auto want = solve_mva(plain, n);
      const auto got = solve_mva_batched(net, n);
      INFO("trial " << trial << " N=" << n);
      CHECK(got.throughput == Approx(want.throughput).epsilon(1e-12));
      for (std::size_t i = 0; i < plain.stations.size(); ++i) {
        CHECK(got.queue_length[i] == Approx(want.queue_length[i]).epsilon(1e-10));
        CHECK(got.utilization[i] == Approx(want.utilization[i]).epsilon(1e-12));
      }
    }
  }
  // A scenario: unbatched, no network, from light load to far past the knee.
  for (const int threads : {1, 20, 200, 2000}) {
    const Prediction pr = predicted_from(batched_doc(threads, 2, false));
    REQUIRE(pr.mva);
    REQUIRE(pr.mva_batched);
    INFO("threads " << threads);
    CHECK(pr.mva_batched->throughput_per_s == Approx(pr.mva->throughput_per_s).epsilon(1e-12));
    CHECK(pr.mva_batched->time_per_event_s == Approx(pr.mva->time_per_event_s).epsilon(1e-12));
    CHECK(pr.mva_batched->device_utilization[0] ==
          Approx(pr.mva->device_utilization[0]).epsilon(1e-12));
    CHECK(pr.mva_batched->mean_batch_items[0] == Approx(4.0));
  }
}

TEST_CASE("batched MVA forms no batch alone and the full batch when saturated", "[mva_batched]") {
  // One thread never finds another request: its batch is its own 4 items, as MVA.
  const Prediction alone = predicted_from(batched_doc(1, 2, true));
  CHECK(alone.mva_batched->mean_batch_items[0] == Approx(4.0));
  CHECK(alone.mva_batched->throughput_per_s == Approx(alone.mva->throughput_per_s));

  // Far past the knee every execution is a full batch of 32: each device carries what
  // demand_per_device_full_batch_s allows (4 items at 18/32 ms against 4 ms alone), above MVA's
  // single-request limit.
  const Prediction full = predicted_from(batched_doc(20000, 2, true));
  const auto& pool = full.pools[0];
  REQUIRE(pool.demand_per_device_full_batch_s);
  const double bound = 1.0 / *pool.demand_per_device_full_batch_s;
  CHECK(full.mva_batched->throughput_per_s <= bound * (1.0 + 1e-9));
  CHECK(full.mva_batched->throughput_per_s == Approx(bound).epsilon(0.01));
  CHECK(full.mva_batched->mean_batch_items[0] == Approx(32.0).epsilon(0.01));
  CHECK(full.mva->throughput_per_s == Approx(1.0 / pool.demand_per_device_s).epsilon(0.01));
  CHECK(full.mva_batched->throughput_per_s > 1.5 * full.mva->throughput_per_s);
}

TEST_CASE("batched MVA's throughput grows with devices and with bandwidth", "[mva_batched]") {
  double last = 0.0;
  for (int gpus = 1; gpus <= 16; ++gpus) {
    const double x = predicted_from(batched_doc(3000, gpus, true)).mva_batched->throughput_per_s;
    INFO("gpus " << gpus);
    CHECK(x >= last);
    last = x;
  }
  last = 0.0;
  // 1 MB per event: the uplink binds below 800 Mbps (the device's 100 events/s).
  for (const char* bw : {"50Mbps", "100Mbps", "200Mbps", "400Mbps", "600Mbps"}) {
    const double x =
        predicted_from(test::one_megabyte_per_event(400, bw, 60.0)).mva_batched->throughput_per_s;
    INFO("uplink " << bw);
    CHECK(x > last);
    last = x;
  }
}

TEST_CASE("a narrow link binds batched MVA where MVA ignores it", "[mva_batched]") {
  // 1 MB per event over a 200 Mbps uplink: at most 25 events/s, a quarter of the device's 100.
  const Prediction pr = predicted_from(test::one_megabyte_per_event(400, "200Mbps", 60.0));
  double uplink_cap = 0.0;
  std::size_t uplink = 0;
  for (std::size_t l = 0; l < pr.links.size(); ++l)
    if (pr.links[l].name == "site_uplink") {
      uplink = l;
      uplink_cap = pr.links[l].bandwidth_Bps / (pr.bytes_in_per_event + pr.bytes_out_per_event);
    }
  REQUIRE(uplink_cap > 0.0);
  CHECK(pr.mva->throughput_per_s > 2.0 * uplink_cap);
  CHECK(pr.mva_batched->throughput_per_s <= uplink_cap * (1.0 + 1e-9));
  CHECK(pr.mva_batched->throughput_per_s == Approx(uplink_cap).epsilon(0.02));
  CHECK(pr.mva_batched->link_utilization[uplink] == Approx(1.0).epsilon(0.02));
  // Light load: the links' stations give back what t_latency already holds.
  const Prediction light = predicted_from(test::one_megabyte_per_event(1, "200Mbps", 60.0));
  CHECK(light.mva_batched->throughput_per_s == Approx(light.mva->throughput_per_s).epsilon(1e-9));
}

TEST_CASE("analytic.mva_batched lists the pools and the links with a station", "[mva_batched]") {
  namespace k = sonicsim::results::keys;
  json doc = test::one_megabyte_per_event(40, "1Gbps", 60.0);
  json a = sonicsim::analytic::to_json(predicted_from(doc));
  const json& b = a.at(k::analytic::mva_batched);
  CHECK(b.at(k::mva_batched::throughput_per_s).get<double>() > 0.0);
  CHECK(b.at(k::mva_batched::device_utilization).contains("gpu"));
  CHECK(b.at(k::mva_batched::mean_batch_items).contains("gpu"));
  CHECK(b.at(k::mva_batched::link_utilization).contains("site_uplink"));
  // flow_model analytic: the simulation shares no bandwidth, so neither does the model.
  doc["network"]["flow_model"] = "analytic";
  const Prediction alone = predicted_from(doc);
  a = sonicsim::analytic::to_json(alone);
  CHECK(a.at(k::analytic::mva_batched).at(k::mva_batched::link_utilization).empty());
  CHECK(alone.mva_batched->throughput_per_s == Approx(alone.mva->throughput_per_s).epsilon(1e-12));
  // Async mode has no MVA of either kind.
  doc["workload"]["mode"] = "async";
  CHECK(sonicsim::analytic::to_json(predicted_from(doc)).at(k::analytic::mva_batched).is_null());
}
