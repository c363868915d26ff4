// Sequential stopping of a search's replications (docs/plan.md, "Searches that simulate less"):
// a value gets its first few seeds, and more one at a time only while its verdict is open.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::plan::detail {

// The replications one value got, seeds base_seed .. base_seed + results.size() - 1.
struct Replicated {
  std::vector<points::PointResult> results;
  std::string stopped = "max";  // Point::stopped
};

// Whether `value`'s verdict is already certain from the replications so far.
using Decided =
    std::function<bool(double value, const std::vector<points::PointResult>& replications)>;

// The replications of `values`, as few rounds of `simulate` as the stopping rule allows: every
// value's first seeds together (min_replications, or all of them when not sequential), then one
// more seed for every value still open, until each is decided or has `replications`. The seeds
// are the same at every value (common random numbers), so the k-th replication of two values
// differs only by the value.
// `extra` is added to every run's overrides (a shortened `duration`).
std::vector<Replicated> replicate(const Options& o, std::int64_t base_seed,
                                  const std::vector<double>& values, const Simulate& simulate,
                                  const Decided& decided,
                                  const std::vector<scenario::Override>& extra = {});

// Adaptive run length (Options::short_run): the shortened runs' duration, warm-up + fraction x
// the measured span, or 0 with the reason it is off. Only a scenario whose load holds still after
// the warm-up may be judged from a part of its run: a job flow, an autoscaler or faults change
// the load over time, so a shorter run would see another system.
struct ShortRun {
  double duration_s = 0.0;
  std::string off;  // "" when on; else why not ("not asked" when the fraction is 0)
};
ShortRun short_run_of(const Options& o, const scenario::Scenario& base);

// Whether a point of the shortened runs decides its value: certain, and its interval's near end
// at least `margin` x the threshold away from it (what a shorter run may be biased by).
bool short_decides(const Options& o, const Point& p, double threshold);

// The first replications a value gets: all of them unless sequential, at least 1.
int first_replications(const Options& o);

}  // namespace sonicsim::plan::detail
