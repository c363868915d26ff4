// A job flow as the capacity questions see it (docs/plan.md, "Job flows"). The formula and MVA
// describe a fixed population of threads; a flow's jobs come and go, so plan gives them the
// population that runs on average over the measured span (after the warm-up), estimated from the
// flow's own definition before anything is simulated. Each simulated point then reports the
// time-weighted threads its run really had (results `jobs.mean_running_threads`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::plan::detail {

// The flow's start rule in words: "waves of 50 jobs every 10min", "a ramp over 1h", ...
std::string describe_flow(const scenario::JobFlow& flow);

// Jobs of the workload whose start falls before the end of the run: the others never start.
std::int64_t starts_in_run(const scenario::Workload& w, double duration_s);

// The most jobs the flow starts in the run whatever `jobs` is: waves start at fixed times, so
// jobs beyond the waves that fit in the run never start. nullopt where more jobs do start more
// (all together, a ramp spread over the run) or where `jobs` is fixed by the flow (start_times,
// running).
std::optional<std::int64_t> most_starts(const scenario::Workload& w, double duration_s);

// Jobs running on average over [warmup, duration] when each thread spends `thread_time_s` per
// event: job j runs from its start (plus half a mean event time, its threads' spread start) for
// its mean events / threads_per_job x thread_time_s; a `running` profile's jobs run from their
// start to their end whatever the event time.
double mean_running_jobs(const scenario::Scenario& s, double thread_time_s);

// The scenario the formula and MVA are asked about for a flow: a fixed population of the jobs
// running on average (rounded, at least one), the flow removed, and the estimate. The event time
// and the population depend on each other (longer events, longer jobs, more of them overlap): the
// estimate starts from t_ideal and takes the formula's t_SONIC at each population until the
// population no longer changes (it only grows, and never past the jobs started).
struct FlowEquivalent {
  scenario::Scenario scenario;
  FlowLoad load;
};
FlowEquivalent flow_equivalent(const scenario::Scenario& s);

}  // namespace sonicsim::plan::detail
