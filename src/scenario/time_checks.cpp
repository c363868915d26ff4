// Simulated time that must advance, checked once every section is valid: events that would take
// no time at all, and runs expected to process more events than any run can (Limits). The
// engine's safety net (engine/simulation.cpp) catches what no static rule can see.
#include <algorithm>
#include <cmath>

#include <sonicsim/util/format.hpp>

#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

namespace {

// One source of events and how many it is expected to produce over the run.
struct EventSource {
  std::string path;     // the key that sets its rate
  std::string formula;  // how `events` was computed, for the message
  double events = 0.0;
};

// Readings an autoscaler may hold at once (one per poll over its longest window).
constexpr double kMaxPollsHeld = 1e6;

std::string count_text(double n) {
  return util::formatted("%.3g", n);
}

// The JSON path of the `key` of the first fault of `kind` (for `pool`, if given).
std::string fault_path(const json& doc, std::string_view kind, const std::string& pool,
                       std::string_view key) {
  const json* faults = Checker::get(doc, "faults");
  if (faults && faults->is_array())
    for (std::size_t i = 0; i < faults->size(); ++i) {
      const json& f = (*faults)[i];
      const json* k = f.is_object() ? Checker::get(f, "kind") : nullptr;
      const json* p = f.is_object() ? Checker::get(f, "pool") : nullptr;
      if (k && *k == kind && (pool.empty() || (p && *p == pool)))
        return key_path(index_path("faults", i), key);
    }
  return "faults";
}

}  // namespace

void Loader::time_checks(const json& doc, const Scenario& s) {
  const bool many = get(doc, "workloads") != nullptr;
  const std::string duration = util::format_time(s.duration);
  std::vector<EventSource> sources;
  for (std::size_t i = 0; i < s.workloads.size(); ++i) {
    const Workload& w = s.workloads[i];
    const std::string wpath = many ? index_path("workloads", i) : "workload";
    if (w.open_loop()) {
      sources.push_back({key_path(key_path(wpath, "arrivals"), "rate"),
                         "rate x duration = " + count_text(w.arrivals->rate) + "/s x " + duration,
                         w.arrivals->rate * s.duration});
      continue;
    }
    const double t_cpu = w.cpu_time_per_event.expected();
    const std::string cpath = key_path(wpath, "cpu_time_per_event");
    if (t_cpu > 0.0) {
      sources.push_back({cpath,
                         "client threads x duration / t_CPU = " + std::to_string(w.n_threads()) +
                             " x " + duration + " / " + util::format_time(t_cpu),
                         static_cast<double>(w.n_threads()) * s.duration / t_cpu});
      continue;
    }
    // No CPU time (perf_analyzer's concurrency mode): only the requests' way to a server and back
    // takes time. A request no server can take falls back to the client's CPU (p x 0 s) or fails
    // at once, so its events would take no time at all, over and over.
    // Each thread then goes as fast as its requests' round trips let it.
    const double fastest = s.fastest_event_without_cpu(w);
    if (fastest > 0.0)
      sources.push_back(
          {cpath,
           "client threads x events in flight x duration / the fastest event "
           "with no CPU time (its requests' fastest executions and round trips) = " +
               std::to_string(w.n_threads()) + " x " + std::to_string(w.async.events_in_flight) +
               " x " + duration + " / " + util::format_time(fastest),
           static_cast<double>(w.n_threads()) * w.async.events_in_flight * s.duration / fastest});
    for (const RequestSpec& r : w.requests) {
      if (s.devices_hosting(r.model) > 0) continue;
      add(cpath, "found 0 with requests for model `" + r.model +
                     "`, which no pool in `servers` hosts, expected a CPU time >= 1ns: such a "
                     "request is computed by the client's fallback in p x t_CPU = 0 s (or fails "
                     "at once), so each event would take no time and the simulated clock would "
                     "stop");
      break;
    }
  }
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const ServerPool& pool = s.servers[i];
    if (!pool.autoscaler) continue;
    const Autoscaler& a = *pool.autoscaler;
    const std::string apath = key_path(index_path("servers", i), "autoscaler");
    sources.push_back({key_path(apath, "polling_interval"),
                       "duration / polling_interval = " + duration + " / " +
                           util::format_time(a.polling_interval),
                       s.duration / a.polling_interval});
    // Each poll keeps a reading for its window and a recommendation for the stabilization
    // windows: memory in proportion to window / polling_interval.
    const double span = std::min(s.duration, std::max({a.window, a.scale_up.stabilization_window,
                                                       a.scale_down.stabilization_window}));
    if (span / a.polling_interval > kMaxPollsHeld)
      add(key_path(apath, "polling_interval"),
          "found " + util::format_time(a.polling_interval) + " against a window of " +
              util::format_time(span) + " (the longest of window and the stabilization windows, " +
              "within the duration), expected at most " + count_text(kMaxPollsHeld) +
              " polls per window: the autoscaler keeps a reading per poll over its window; an "
              "interval of at least " +
              util::format_time(span / kMaxPollsHeld));
  }
  for (std::size_t i = 0; i < s.faults.random_crashes.size(); ++i) {
    const auto& r = s.faults.random_crashes[i];
    const int devices = s.servers[r.pool].count;
    sources.push_back({fault_path(doc, "random_crashes", s.servers[r.pool].name, "mtbf"),
                       "2 x devices x duration / (mtbf + mttr) = 2 x " + std::to_string(devices) +
                           " x " + duration + " / " + util::format_time(r.mtbf + r.mttr),
                       2.0 * devices * s.duration / (r.mtbf + r.mttr)});
  }
  if (const auto& r = s.faults.random_preemption) {
    const double period = r->mtbf + r->restart_after;
    sources.push_back(
        {fault_path(doc, "random_preemption", "", "mtbf"),
         "jobs x duration / (mtbf + restart_after) = " + std::to_string(s.total_jobs()) + " x " +
             duration + " / " + util::format_time(period),
         static_cast<double>(s.total_jobs()) * s.duration / period});
  }
  if (s.timeseries_interval > 0.0)
    sources.push_back(
        {"timeseries.interval", "duration / interval", s.duration / s.timeseries_interval});

  double total = 0.0;
  const EventSource* largest = nullptr;
  for (const EventSource& e : sources) {
    total += e.events;
    if (!largest || e.events > largest->events) largest = &e;
  }
  if (largest && !(total <= Limits::max_expected_events))
    add(largest->path,
        "found a run expected to process about " + count_text(total) + " events (" +
            largest->formula + " = " + count_text(largest->events) + " from this key alone), " +
            "expected at most " + count_text(Limits::max_expected_events) +
            " events: at some ten million events per second that run would take days (a unit "
            "mistake, or a duration too long?)");
}

}  // namespace sonicsim::scenario::detail
