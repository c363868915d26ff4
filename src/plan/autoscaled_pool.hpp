// `plan min-devices` on a pool an autoscaler runs (docs/plan.md, "Autoscaled pools"): the count
// the search varies must be what bounds the devices that run.
#pragma once

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::plan::detail {

// For a varied `servers.I.count` whose pool has an autoscaler. A max_replicas the scenario fixes
// is refused (scenario::InputError, exit 2): the autoscaler never runs more devices than that, so
// every count above it plans the same pool. Without one the ceiling follows the count, the answer
// is the devices the pool must be able to scale to, and the search starts at the autoscaler's
// min_replicas (a smaller pool is not valid). Other paths and fixed pools pass unchanged.
void check_autoscaled_count(Report& r, const scenario::Scenario& base);

}  // namespace sonicsim::plan::detail
