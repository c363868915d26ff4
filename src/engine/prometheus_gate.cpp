// The Prometheus that SuperSONIC's Lua filter asks before it lets a job in
// (load_balancer.admission.refuse_above): scrapes of the servers' counters every scrape
// interval, and the chart's load query answered from them as Prometheus would, from the samples
// of the last window only.
#include <cmath>

#include "model_memory.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"

namespace sonicsim::engine {

void SiteOperations::scrape() {
  const auto& g = *ctx_.sc.load_balancer.admission->refuse_above;
  Scrape s{ctx_.now, 0.0, 0.0, 0};
  for (std::uint32_t p = 0; p < pools_.size(); ++p) {
    const auto& c = parts_.servers.counters(p);
    s.queue_seconds += c.queue_seconds;
    s.executions += c.executions;
    s.up += pools_[p].up;
  }
  scrapes_.push_back(s);
  // Only samples inside the window of a query asked before the next scrape are ever read.
  while (!scrapes_.empty() && ctx_.now - scrapes_.front().time >= g.window) scrapes_.pop_front();
  const Time next = ctx_.now + g.scrape_interval;
  if (next <= ctx_.end) ctx_.queue.push(next, EventKind::Operation, 0, op_stamp(kScrape, 0));
}

// The chart's query (templates/_helpers/_scaling-metric.tpl, 0.3.1):
//   sum(rate(nv_inference_queue_duration_us[30s])) / sum(rate(nv_inference_exec_count[30s])
//   * 1000 + 0.001), in ms per execution; Prometheus' rate() needs two samples in the window,
// and takes the first and the last (their extrapolation cancels in the ratio; the 0.001 only
// keeps an idle window at 0). The Lua filter (cfg/envoy-filter.lua) refuses when the value is
// above the threshold, and when there is no value at all.
bool SiteOperations::query_within(const scenario::Admission::QueryGate& g) const {
  const Time now = ctx_.now;
  const Scrape* first = nullptr;
  const Scrape* last = nullptr;
  int samples = 0;
  for (const Scrape& s : scrapes_) {
    if (now - s.time >= g.window || s.time > now) continue;
    if (!first) first = &s;
    last = &s;
    ++samples;
  }
  if (samples < 2 || last->up == 0) return false;
  const double execs = last->executions - first->executions;
  const double value = execs > 0.0 ? (last->queue_seconds - first->queue_seconds) / execs : 0.0;
  return value <= g.threshold;
}

}  // namespace sonicsim::engine
