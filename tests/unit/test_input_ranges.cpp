// Derived values stay finite and meaningful (issue 35, item 2): each range that keeps a sum, a
// product or a comparison with the clock meaningful holds at its bound and refuses one step
// past it (docs/limits.md, "Ranges that keep derived values finite").
#include <catch2/catch.hpp>

#include <sonicsim/engine/autoscaler.hpp>

#include "support.hpp"

namespace {

using test::json;

// A grid site and a GPU site, weighted routing between them.
json ranges_two_sites(double weight, double price) {
  json d = json::parse(R"({
    "duration": "10min",
    "workload": {"jobs": 2, "threads_per_job": 1, "cpu_time_per_event": "1s",
                 "site": "grid", "requests": [{"model": "pn", "offload_fraction": 0.1}]},
    "models": {"pn": {"input_bytes_per_item": "10kB", "output_bytes_per_item": "1kB",
                      "service_time": {"batch": [1], "seconds": [0.01]}}},
    "servers": [{"name": "gpus", "count": 1, "device": "T4", "models": ["pn"], "site": "gpu"}],
    "sites": [
      {"name": "grid", "network": {"site_uplink": {"bandwidth": "10Gbps"}}},
      {"name": "gpu", "network": {"server_nic": {"bandwidth": "25Gbps"}}}
    ],
    "wan": {"links": [{"between": ["grid", "gpu"], "bandwidth": "10Gbps", "latency": "5ms"}]}
  })");
  d["routing"] = {{"policy", "weighted"}, {"weights", {{"gpu", weight}}}};
  d["sites"][0]["egress_price_per_gb"] = price;
  return d;
}

json ranges_threshold(const char* metric, double threshold) {
  json d = test::deterministic(4, 2);
  d["servers"][0]["autoscaler"] = {{"metric", metric}, {"threshold", threshold}};
  return d;
}

json ranges_timeseries(double interval) {
  json d = test::deterministic(4, 2);
  d["timeseries"] = {{"interval", interval}};
  return d;
}

}  // namespace

TEST_CASE("ranges: a site's weight and an egress price stay finite in every sum and product",
          "[loader][ranges]") {
  CHECK(test::load_error(ranges_two_sites(1e9, 1e6)).empty());
  CHECK_THAT(test::load_error(ranges_two_sites(1.001e9, 1)),
             Catch::Contains("routing.weights.gpu: found 1001000000") &&
                 Catch::Contains("[0, 1000000000]"));
  CHECK_THAT(test::load_error(ranges_two_sites(1, 1.000001e6)),
             Catch::Contains("sites[0].egress_price_per_gb: found 1000001") &&
                 Catch::Contains("a price in [0, 1000000]"));
}

TEST_CASE("ranges: an autoscaler threshold is not below what the clock can tell from 0",
          "[loader][ranges]") {
  CHECK(test::load_error(ranges_threshold("queue_time", 1e-9)).empty());
  CHECK(test::load_error(ranges_threshold("queue_time", 1e9)).empty());
  CHECK_THAT(test::load_error(ranges_threshold("queue_time", 0.999e-9)),
             Catch::Contains("autoscaler.threshold: found 9.99e-10") &&
                 Catch::Contains("a time from 1ns"));
  CHECK_THAT(test::load_error(ranges_threshold("queue_time", 1.001e9)),
             Catch::Contains("autoscaler.threshold: found 1001000000") &&
                 Catch::Contains("at most 1e9 s") && Catch::Contains("a time from 1ns to 1e9 s"));
  CHECK(test::load_error(ranges_threshold("queue_length", 1e-6)).empty());
  CHECK(test::load_error(ranges_threshold("queue_length", 1e9)).empty());
  CHECK_THAT(test::load_error(ranges_threshold("queue_length", 0.999e-6)),
             Catch::Contains("from 1e-06 to 1e+09"));
}

TEST_CASE("ranges: a time series is no coarser than the run", "[loader][ranges]") {
  // deterministic(): 400 s.
  CHECK(test::load_error(ranges_timeseries(400.0)).empty());
  CHECK_THAT(test::load_error(ranges_timeseries(400.4)),
             Catch::Contains("timeseries.interval: found") &&
                 Catch::Contains("expected an interval at most the duration"));
}

TEST_CASE("ranges: the smallest threshold still scales a pool up (no int overflow)",
          "[operations][ranges]") {
  // metric / 1 ns is 5e8: ceil(ratio x ready) used to convert to INT_MIN, and the pool stayed
  // at its minimum for ever.
  sonicsim::scenario::Autoscaler cfg;
  cfg.threshold = 1e-9;
  cfg.min_replicas = 1;
  cfg.max_replicas = 8;
  cfg.scale_up.step = 100;
  cfg.scale_up.period = 15.0;
  sonicsim::engine::Autoscaler a(cfg);
  sonicsim::engine::Autoscaler::Poll p;
  p.time = sonicsim::Time::from_seconds(30.0);
  p.metric = 0.5;
  p.current = p.ready = 2;
  p.active = true;
  CHECK(a.decide(p).replicas == 8);
}
