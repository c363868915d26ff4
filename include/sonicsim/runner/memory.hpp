// The memory a run will need at its peak, estimated from the scenario before anything is
// allocated, and the budget it must fit: a count the user did not mean (servers.0.count=1000000,
// a million time-series windows, --trace-max 10000000) is refused in milliseconds with the
// estimate and its biggest parts, instead of exhausting a shared login node minutes later.
// The costs per item were measured on the engine (see kMemoryCosts in memory.cpp and
// scripts/memory-estimate.sh, which compares the estimate with the measured peak).
#pragma once

#include <string>
#include <vector>

#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/runner/budget.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::runner {

// One part of the estimate: "1,000,000 servers" and its bytes.
struct MemoryPart {
  std::string what;
  double bytes = 0.0;
};

struct MemoryEstimate {
  double bytes = 0.0;             // the sum of the parts
  std::vector<MemoryPart> parts;  // largest first
  // "1,000,000 servers ~ 5.35 GB, 8 client threads ~ 2.24 kB" (the largest `n`).
  std::string largest(std::size_t n = 3) const;
};

// The run's peak resident memory: a fixed overhead, the devices, the client threads (times the
// events each holds in flight), the links' per-second byte counters, the time series (the
// engine's windows, and their JSON and text in the results), the traced requests (when a trace
// is written) and `outputs`, files the caller builds in memory from the run (an OpenMetrics
// timeline). Grows with each count; never below the overhead.
MemoryEstimate estimate_memory(const scenario::Scenario& s, const engine::TraceSettings& trace = {},
                               const std::vector<MemoryPart>& outputs = {});

// The budget a run's estimate must fit (`--memory-budget`; budget.hpp). Bytes; defaults to
// default_memory_budget().
Budget& memory_budget();
// min(8 GiB, 75% of the machine's physical memory).
double default_memory_budget();

// Throws InputError (exit 2) naming the scenario, the estimate, the budget, the largest parts and
// how to override, when the estimate is over memory_budget().
void check_memory_budget(const scenario::Scenario& s, const MemoryEstimate& estimate);

// The estimate of the run under way in this process, for the message when memory runs out
// anyway (std::bad_alloc): bytes, 0 when no run was estimated.
const MemoryEstimate& last_memory_estimate();

// What to tell the user when memory ran out all the same (std::bad_alloc, a limit such as
// `ulimit -v` below the budget): that it ran out, the run's estimate and the budget, and what to
// lower. One sentence, no prefix.
std::string out_of_memory_message();

}  // namespace sonicsim::runner
