// The autoscaler's decision rule (include/sonicsim/engine/autoscaler.hpp,
// src/engine/autoscaler.cpp): KEDA + HPA as plain arithmetic, checked poll by poll against values
// computed by hand.
#include <sonicsim/engine/autoscaler.hpp>

#include "support.hpp"

namespace {

namespace asc = sonicsim::scenario;
using AsScaler = sonicsim::engine::Autoscaler;

asc::Autoscaler as_scaler(double threshold) {
  asc::Autoscaler a;
  a.threshold = threshold;
  a.min_replicas = 1;
  a.max_replicas = 10;
  a.scale_up = {0.0, 4, 15.0};
  a.scale_down = {0.0, 10, 15.0};
  return a;
}

// Every replica asked for is ready unless `ready` says otherwise.
AsScaler::Poll as_poll(double t, double metric, int current, bool active = true, int ready = -1) {
  AsScaler::Poll p;
  p.time = sonicsim::Time::from_seconds(t);
  p.metric = metric;
  p.current = current;
  p.ready = ready < 0 ? current : ready;
  p.active = active;
  return p;
}

}  // namespace

TEST_CASE("autoscaler: HPA arithmetic, tolerance, stabilization and policies",
          "[operations][autoscaler]") {
  SECTION("Value target: ceil(current x metric / threshold), within tolerance: unchanged") {
    AsScaler a(as_scaler(0.020));
    CHECK(a.decide(as_poll(30, 0.021, 2)).replicas == 2);  // ratio 1.05, within 10%
    CHECK(a.decide(as_poll(60, 0.025, 2)).replicas == 3);  // ceil(2 x 1.25) = 3
    CHECK(a.decide(as_poll(90, 0.100, 3)).replicas == 7);  // ceil(15) = 15, at most +4 per 15 s
    CHECK(a.decide(as_poll(120, 0.0, 7)).replicas == 1);   // no stabilization: straight to min
  }
  SECTION("AverageValue target: ceil(metric / threshold)") {
    auto cfg = as_scaler(10.0);
    cfg.target = asc::Autoscaler::Target::AverageValue;
    AsScaler a(cfg);
    CHECK(a.decide(as_poll(30, 35.0, 2)).replicas == 4);
    CHECK(a.decide(as_poll(60, 41.0, 4)).replicas == 4);  // 41 / (10 x 4) = 1.025: within tolerance
    CHECK(a.decide(as_poll(90, 55.0, 4)).replicas == 6);  // ceil(55 / 10)
  }
  SECTION("replica_calculator.go getUsageRatioReplicaCount: a Value target scales ready pods") {
    // Kubernetes: ceil(usageRatio x readyPodCount); 4 asked for, 2 of them still starting.
    AsScaler a(as_scaler(0.020));
    const auto d = a.decide(as_poll(30, 0.030, 4, true, 2));
    CHECK(d.raw == 3);  // ceil(1.5 x 2), not ceil(1.5 x 4) = 6
    CHECK(d.replicas == 3);
    // The tolerance still compares the ratio alone: within 10%, the replicas asked for stay.
    AsScaler b(as_scaler(0.020));
    CHECK(b.decide(as_poll(30, 0.021, 4, true, 1)).replicas == 4);
    // An AverageValue target ignores readiness: ceil(metric / target per pod).
    auto cfg = as_scaler(10.0);
    cfg.target = asc::Autoscaler::Target::AverageValue;
    AsScaler c(cfg);
    CHECK(c.decide(as_poll(30, 35.0, 2, true, 0)).replicas == 4);
  }
  SECTION("scale-up stabilization takes the least recommendation of its window") {
    auto cfg = as_scaler(1.0);
    cfg.scale_up.stabilization_window = 60.0;
    AsScaler a(cfg);
    CHECK(a.decide(as_poll(30, 3.0, 1)).replicas == 3);   // first poll: nothing older
    CHECK(a.decide(as_poll(60, 1.0, 3)).replicas == 3);   // within tolerance: raw 3
    CHECK(a.decide(as_poll(90, 3.0, 3)).replicas == 3);   // raw 9, but 3 at 60 s is in the window
    CHECK(a.decide(as_poll(120, 3.0, 3)).replicas == 7);  // window (60, 120]: 9, 9; +4 policy
  }
  SECTION("scale-to-zero after the cooldown, activation on a refused request") {
    auto cfg = as_scaler(1.0);
    cfg.min_replicas = 0;
    cfg.cooldown = 60.0;
    AsScaler a(cfg);
    CHECK(a.decide(as_poll(30, 0.0, 1, true)).replicas == 1);
    CHECK(a.decide(as_poll(60, 0.0, 1, false)).replicas == 1);  // idle 30 s
    CHECK(a.decide(as_poll(90, 0.0, 1, false)).replicas == 0);  // idle 60 s
    CHECK(a.decide(as_poll(120, 0.0, 0, false)).replicas == 0);
    auto p = as_poll(150, 0.0, 0, false);
    p.refused = true;
    CHECK(a.decide(p).replicas == 1);
  }
  // SuperSONIC values.yaml:223-226 (0.3.1): with the metric read from the Triton servers, "scaling
  // from 0 to 1 will never happen": no server, no metric, no active trigger.
  SECTION("values.yaml:223-226: a metric from the servers never wakes a pool at zero") {
    auto cfg = as_scaler(1.0);
    cfg.min_replicas = 0;
    cfg.cooldown = 60.0;
    cfg.wake_from_zero = false;
    AsScaler a(cfg);
    CHECK(a.decide(as_poll(30, 0.0, 1, true)).replicas == 1);
    CHECK(a.decide(as_poll(90, 0.0, 1, false)).replicas == 0);  // idle 60 s: to zero as before
    auto p = as_poll(120, 0.0, 0, true);
    p.refused = true;
    const auto d = a.decide(p);
    CHECK(d.replicas == 0);
    CHECK(d.why.find("no value without one") != std::string::npos);
  }
}
