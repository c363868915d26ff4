// Open loops and several workloads as the capacity questions see them (docs/plan.md, "Open loops
// and several workloads"). The formula and MVA describe one closed population of threads:
// - an open loop has no threads; its load is its arrival rate, the events it holds in flight
//   (Little's law) stand for N_CPU, and its time per event is the event's own latency;
// - several workloads share the pools; the shared formula asks them together: at the pool that
//   binds first, every workload's device time is stretched by one common factor until the pool is
//   exactly full, which is the SONIC formula's saturated limit when there is one workload.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/plan/plan.hpp>
#include <sonicsim/results_format/reader.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::plan::detail {

// The scenario with workload `w` alone: its name kept, the servers its own.
scenario::Scenario alone(const scenario::Scenario& s, std::size_t w);

// "workloads.3.jobs" with tail "jobs" -> 3: the index of a path under `workloads.N.`.
std::optional<std::size_t> indexed_workload(const std::string& path, const std::string& tail);

using plan::varies_rate;  // plan.hpp
// The arrival rate the scenario has at `path` (workload.arrivals.rate, workloads.N.arrivals.rate).
std::optional<double> current_rate(const scenario::Scenario& s, const std::string& path);

// Checks the question against an open loop or several workloads, sets Options::vary's default
// for them and fills Options::scope and Report::mix. Refuses (scenario::InputError) what the
// workload makes ill-posed: a per-job throughput of an open loop, threads varied where there are
// none, an unknown --workload. A single closed-loop workload passes unchanged.
void scope_workloads(Report& r, const scenario::Scenario& base);

// The shared formula at one scenario (several workloads, or one): per workload its time per event
// (an open loop's: the event's latency) and throughput, every link's load summed over them.
struct SharedFormula {
  std::vector<double> time_per_event_s, throughput_per_s, t_ideal_s, jobs;
  std::vector<bool> open;
  std::string binding_pool;  // the pool that binds first ("" when none is in use)
  int binding_index = -1;
  double pool_load = 0.0;    // its offered load at t_ideal (above 1: queueing)
  double stretch = 0.0;      // the common factor on device time (0 below the knee)
  std::string busiest_link;  // the link with the highest load at these throughputs
  double link_utilization = 0.0;
  double link_bandwidth_Bps = 0.0;
  double n_cpu = 0.0;  // threads (open loops: events in flight) at these throughputs
};
SharedFormula shared_formula(const scenario::Scenario& s);

// The formula's view of the constrained metric for several workloads (MVA has none).
std::optional<double> shared_metric(const Options& o, const SharedFormula& f);

// One workload's metric in a run (a workload's own block, or the run's): the constraint's
// figure, an open loop's event time being its mean event latency. No finished event: infinitely
// slow (per-job throughput 0).
double workload_metric(const Options& o, const results::Events& events,
                       const results::Requests& requests, bool open);

// The constrained metric from one run, for an open loop or several workloads; nullopt for a
// single closed-loop workload (questions.cpp reads it as before).
std::optional<double> scoped_metric(const Options& o, const results::Document& doc);

// The threads a run had, for the points' summary: several workloads' sum (job flows
// time-weighted), an open loop's events in flight. nullopt for a single closed-loop workload.
std::optional<double> scoped_n_cpu(const Options& o, const results::Document& doc);

// Why the shared formula has no answer at `best` (why_none.cpp for several workloads).
NoAnswer why_none_shared(const Report& r, double best, bool use_mva);

}  // namespace sonicsim::plan::detail
