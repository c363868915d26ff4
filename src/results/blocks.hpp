// The blocks that several parts of a results file share (a distribution's quantiles, the
// `events` and `requests` of the run, a workload or a site), and the sites' own blocks.
// Private to src/results.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/metrics/histogram.hpp>
#include <sonicsim/results_format/keys.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::results::detail {

using ojson = nlohmann::ordered_json;
namespace k = keys;

inline ojson quantiles(const metrics::Histogram& h, bool p95) {
  ojson j;
  j[k::quantile::mean] = h.mean();
  j[k::quantile::p50] = h.quantile(0.50);
  j[k::quantile::p90] = h.quantile(0.90);
  if (p95) j[k::quantile::p95] = h.quantile(0.95);
  j[k::quantile::p99] = h.quantile(0.99);
  j[k::quantile::max] = h.max();
  return j;
}

// The `events` and `requests` blocks of the whole run or of one workload (RunMetrics and
// RunMetrics::Workload name their counts alike).
template <class Counts>
inline ojson events_json(const Counts& c, double throughput, double jobs, double thread_time) {
  ojson ev;
  ev[k::events::completed] = c.events_completed;
  ev[k::events::throughput_per_s] = throughput;
  ev[k::events::per_job_throughput_per_s] = throughput / jobs;
  ev[k::events::time_per_event_s] = quantiles(c.time_per_event, false);
  ev[k::events::thread_time_per_event_s] = thread_time;
  return ev;
}

template <class Counts>
inline ojson requests_json(const Counts& c) {
  ojson rq;
  rq[k::requests::sent] = c.sent;
  rq[k::requests::completed] = c.completed;
  rq[k::requests::failed] = c.failed;
  rq[k::requests::fallback] = c.fallback;
  rq[k::requests::in_flight_at_end] = c.in_flight_at_end;
  rq[k::requests::latency_s] = quantiles(c.latency, true);
  return rq;
}

// With several sites (sites.cpp): `sites` (each site's client nodes' figures and bytes over
// its uplink) and `egress` (bytes from each site to each other over the WAN, priced).
ojson sites_json(const scenario::Scenario& s, const engine::RunMetrics& m);
ojson egress_json(const scenario::Scenario& s, const engine::RunMetrics& m);

// The client side (clients.cpp): `modules`, one element per request kind of a closed loop, and
// with worker nodes `nodes`, one element per workload that has them; their lines in the summary.
ojson modules_json(const scenario::Scenario& s, const engine::RunMetrics& m);
std::vector<std::string> modules_summary(const scenario::Scenario& s, const engine::RunMetrics& m);
ojson nodes_json(const scenario::Scenario& s, const engine::RunMetrics& m);
std::vector<std::string> nodes_summary(const scenario::Scenario& s, const engine::RunMetrics& m);

}  // namespace sonicsim::results::detail
