// KEDA + HorizontalPodAutoscaler decisions for one server pool, as plain arithmetic on the
// metric values the engine reads at each poll: no clock, no servers. Kept apart from the event
// core so that a replica timeline can be checked by hand, poll by poll.
#pragma once

#include <deque>
#include <string>

#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/sim_time.hpp>

namespace sonicsim::engine {

class Autoscaler {
 public:
  explicit Autoscaler(const scenario::Autoscaler& cfg);

  struct Poll {
    Time time;
    double metric = 0.0;  // over the last window (queue_time, utilization) or now (queue_length)
    int current = 0;      // replicas asked for: starting and up, not draining
    // Replicas serving (Kubernetes' ready pods): HPA scales a Value target from these, not from
    // `current` (replica_calculator.go, getUsageRatioReplicaCount).
    int ready = 0;
    // KEDA's activity: a request reached the pool, or found no server, since the last poll.
    bool active = false;
    bool refused = false;  // a request found no server since the last poll
  };
  struct Decision {
    int replicas = 0;  // to ask for from now on
    int raw = 0;       // HPA's recommendation before stabilization and rate limits
    std::string why;   // one phrase, for the replica timeline
  };
  Decision decide(const Poll& p);
  // The metric over its target, as HPA compares them: value / threshold, or value /
  // (threshold x current) for an average_value target. Above 1: the pool is above threshold.
  double usage_ratio(double metric, int current) const;

 private:
  int recommend(const Poll& p) const;
  int stabilize(Time now, int raw, int current);
  int limit_rate(Time now, int desired, int current) const;

  scenario::Autoscaler cfg_;
  struct Sample {
    Time time;
    int replicas;
  };
  std::deque<Sample> recommendations_;  // HPA's unstabilized recommendations, oldest first
  std::deque<Sample> changes_;          // replicas added (> 0) or removed (< 0) at each time
  Time last_active_;
};

}  // namespace sonicsim::engine
