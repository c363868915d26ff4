// A sample of requests as Chrome trace-event JSON (the format Perfetto and chrome://tracing
// open): each request is an async track, a `request` slice from issue to response with its
// phases nested inside: `to server` (client send overhead, transfer, server receive),
// `queue`, `compute` (its whole execution, shared with the batch) and `to client`.
// Timestamps are simulated microseconds from the start of the run.
#pragma once

#include <string>

#include <sonicsim/engine/simulation.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results {

std::string to_chrome_trace(const scenario::Scenario& s, const engine::RunMetrics& m);

}  // namespace sonicsim::results
