// The work a run will do, estimated from the scenario before it starts: the engine events each
// source produces over the duration (client events and the requests they send, open-loop
// arrivals, autoscaler polls, Prometheus scrapes, random crashes and preemptions, time-series
// samples), and the wall time they take at the engine's measured speed. With the memory estimate
// (memory.hpp) it is the admission gate every simulation passes: a run over the time budget is
// refused in milliseconds, naming its largest term and the flag that raises the budget, instead
// of running for days (an MTBF of 1ns on 8 devices). `scripts/work-estimate.sh` compares the
// estimate with the events each shipped scenario processes.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/runner/budget.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::runner {

struct WorkTerm {
  std::string what;  // "the workload's client events: 720 threads x 1.00 h / ..."
  double events = 0.0;
};

struct WorkEstimate {
  double events = 0.0;          // engine events, the sum of the terms
  double wall_seconds = 0.0;    // at kEngineEventsPerSecond
  std::vector<WorkTerm> terms;  // largest first
  std::string largest(std::size_t n = 2) const;
};

// Engine events per wall-second assumed: below all but the flow runs of the shipped scenarios
// (0.84 to 13.4 million, median 6.1; scripts/work-estimate.sh, docs/limits.md#the-time-budget).
inline constexpr double kEngineEventsPerSecond = 2e6;

WorkEstimate estimate_work(const scenario::Scenario& s);

// The budget a run's estimated wall time must fit (`--time-budget`; budget.hpp). Seconds.
inline constexpr double kDefaultTimeBudget = 3600.0;
Budget& time_budget();

// Throws InputError (exit 2) naming the scenario, the estimate, the budget, the largest terms and
// the flag, when the estimate is over time_budget().
void check_time_budget(const scenario::Scenario& s, const WorkEstimate& estimate);

}  // namespace sonicsim::runner
