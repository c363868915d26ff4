#include <sonicsim/runner/memory.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <sonicsim/scenario/link_class.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/format.hpp>

namespace sonicsim::runner {

namespace {

// Bytes of peak resident memory per item, measured on this engine (Release build, x86-64,
// glibc) as the slope of the peak RSS (`/usr/bin/time -f %M` of `sonicsim run
// scenarios/default.json -o FILE`, duration 10 s, warmup 0) while one count varied and the rest
// stayed small; scripts/memory-estimate.sh repeats the comparison on every shipped scenario.
struct MemoryCosts {
  // A run of the default scenario cut to 10 s: the binary, SimGrid, the results JSON.
  double fixed = 45.0 * 0x1p20;
  // servers.0.count 100,000 -> 300,000, hosting one model: 230 -> 609 MiB (1,985 B a device);
  // hosting the default's three: 553 -> 1,572 MiB (5,344 B). A device's state, busy-time
  // integrals and NIC counters, and per model it hosts a batcher with its queues.
  double per_device = 305.0;
  double per_device_model = 1680.0;
  // workload.jobs 100,000 -> 300,000 (one thread each): 65 -> 119 MiB. A thread with its event
  // state, its request slots and its event in the queue.
  double per_thread = 282.0;
  // Async, 8,000 threads, events_in_flight 10 -> 100: 74 -> 435 MiB. Each further event a thread
  // holds in flight, with its requests queued at the servers.
  double per_extra_event_in_flight = 526.0;
  // A time series holds each value three times at the end of a run: the engine's sample (8 B in
  // a vector whose capacity doubles; measured 10-14 B after the simulation), the results' JSON
  // value (a 16 B node; a series built by copy is briefly held twice) and its text in the
  // results file (`dump(2)`: a line of indent and up to 17 significant digits). Measured on the
  // default scenario at 0.1 and 0.01 s windows, whose values print long: 56-62 B a value from
  // the end of the simulation to the peak (scripts/memory-estimate.sh, docs/limits.md).
  double per_series_value = 16.0;
  double per_series_json_value = 64.0;
  // duration 1e6 -> 3e6 s with three links: 16 B per link and second (a byte counter per
  // direction and 1 s window, for the peak utilization), twice since links keep the bytes
  // offered beside those carried (issue 33).
  double per_link_window = 32.0;
  // Sites x workloads (100 sites, 8 -> 64 workloads spread over every site, 1 min): 82 -> 328
  // MB, 44 kB a workload's record at a site of its clients. Most of it is the record's two
  // histograms (latency and time per event, metrics/histogram.hpp), 8 kB per factor of two their
  // samples span: 1 ms to 20 ms and 0.15 s to 1.5 s there. A record whose samples span 2^20
  // (microseconds to seconds) holds 160 kB each.
  double per_site_record_samples = 48.0 * 1024;
  // --trace-max 10,000 -> 30,000 (every request traced): 18.4 KiB per request, mostly the Chrome
  // trace's JSON events.
  double per_traced_request = 18832.0;
};
constexpr MemoryCosts kMemoryCosts{};

MemoryEstimate g_last;

// Requests the trace will hold: every `every`-th issued after the warm-up, at most `max`. The
// issue rate is bounded from above: a closed loop issues at most one event per t_CPU per thread
// (remote time only slows it), an open loop its arrival rate.
double traced_requests(const scenario::Scenario& s, const engine::TraceSettings& trace) {
  if (trace.every == 0 || trace.max == 0) return 0.0;
  const double span = s.duration - s.warmup;
  double requests = 0.0;
  for (const auto& w : s.workloads) {
    double per_event = 0.0;
    for (const auto& r : w.requests) per_event += r.per_event;
    const double t_cpu = w.cpu_time_per_event.expected();
    if (w.open_loop())
      requests += w.arrivals->rate * span * per_event;
    else if (t_cpu > 0.0)
      requests +=
          static_cast<double>(w.n_threads()) * w.async.events_in_flight * span / t_cpu * per_event;
    else
      return static_cast<double>(trace.max);  // no CPU time: nothing bounds the rate but the trace
  }
  return std::min(static_cast<double>(trace.max),
                  std::ceil(requests / static_cast<double>(trace.every)));
}

// "a budget of 8.00 GiB", or "an unlimited budget".
std::string budget_text(double budget) {
  return std::isinf(budget) ? "an unlimited budget"
                            : "a budget of " + util::format_binary_bytes(budget);
}

}  // namespace

std::string MemoryEstimate::largest(std::size_t n) const {
  std::string out;
  for (std::size_t i = 0; i < parts.size() && i < n; ++i)
    out += (i ? ", " : "") + parts[i].what + " ~ " + util::format_bytes(parts[i].bytes);
  return out;
}

MemoryEstimate estimate_memory(const scenario::Scenario& s, const engine::TraceSettings& trace,
                               const std::vector<MemoryPart>& outputs) {
  const MemoryCosts& c = kMemoryCosts;
  MemoryEstimate e;
  const auto add = [&e](std::string what, double bytes) {
    if (bytes > 0.0) e.parts.push_back({std::move(what), bytes});
  };
  double devices = 0.0, device_models = 0.0, operated = 0.0, pool_models = 0.0;
  for (std::size_t i = 0; i < s.servers.size(); ++i) {
    const auto& p = s.servers[i];
    devices += p.count;
    pool_models += static_cast<double>(p.models.size());
    device_models += static_cast<double>(p.count) * static_cast<double>(p.models.size());
    // Operated pools (an autoscaler, or faults that crash their devices) have replica series.
    const auto crashes = [i](const auto& c) { return c.pool == i; };
    if (p.autoscaler || std::any_of(s.faults.crashes.begin(), s.faults.crashes.end(), crashes) ||
        std::any_of(s.faults.random_crashes.begin(), s.faults.random_crashes.end(), crashes))
      operated += 1.0;
  }
  add(util::format_count(devices) + (devices == 1.0 ? " server" : " servers"),
      devices * c.per_device + device_models * c.per_device_model);

  double threads = 0.0, slots = 0.0;
  bool job_flow = false;
  for (const auto& w : s.workloads) {
    if (w.open_loop()) continue;
    threads += static_cast<double>(w.n_threads());
    slots += static_cast<double>(w.n_threads()) * w.async.events_in_flight;
    job_flow = job_flow || w.flow.has_value();
  }
  add(slots == threads ? util::format_count(threads) + " client threads"
                       : util::format_count(threads) + " client threads holding " +
                             util::format_count(slots) + " events in flight",
      threads * c.per_thread + (slots - threads) * c.per_extra_event_in_flight);

  double links = 0.0;
  for (const auto link : scenario::kLinkClasses)
    if (s.network.link(link)) links += 1.0;
  if (!s.sites.empty()) {
    // Each site's three link classes and every WAN link; the routes between every pair of
    // sites, held by the scenario and by the engine (two vectors of links each).
    links = 3.0 * static_cast<double>(s.sites.size()) + static_cast<double>(s.wan.links.size());
    double route_links = 0.0;
    for (const auto& from : s.routes)
      for (const auto& r : from) route_links += static_cast<double>(r.hops.size());
    const double pairs = static_cast<double>(s.sites.size()) * static_cast<double>(s.sites.size());
    add(util::format_count(pairs) + " routes between sites", pairs * 160.0 + route_links * 24.0);
    // A record per workload and site (engine/accounting.hpp), with samples at its clients' sites.
    double sampled = 0.0;
    for (const auto& w : s.workloads) sampled += static_cast<double>(w.sites.size());
    const double records =
        static_cast<double>(s.workloads.size()) * static_cast<double>(s.sites.size());
    add(util::format_count(sampled) + " workload x site records",
        records * static_cast<double>(sizeof(engine::RunMetrics::Workload)) +
            sampled * c.per_site_record_samples);
  }
  const double span = s.duration - s.warmup;
  const double link_windows = (span >= 100.0 ? std::ceil(span) : 100.0) + 1.0;
  add("byte counters of " + util::format_count(links) + " links over " + util::format_time(span) +
          " (" + util::format_count(link_windows) + " windows)",
      links * link_windows * c.per_link_window);

  if (s.timeseries_interval > 0.0) {
    // Per window (engine/sampling.cpp, results' timeseries_json): the window's end and its
    // events; per device its utilization and queue length (and whether it serves: a byte, as an
    // eighth of a value, not in the results); per workload its events and latency p50 and p99
    // (in the results with several workloads only); per model 5 series (and 2 more kept for the
    // OpenMetrics proxy, not in the results); per link 3; per operated pool 2; the running jobs
    // of a job flow; Triton's 6 counters per pool and model it hosts and, with
    // timeseries.replicas, per device and model (and each device's memory in use, not in the
    // results).
    const double windows = std::floor(s.duration / s.timeseries_interval);
    const double workloads = static_cast<double>(s.workloads.size());
    const double models = static_cast<double>(s.models.size());
    const double counters = 6.0 * pool_models + (s.timeseries_replicas ? 6.0 * device_models : 0.0);
    const double shared = 2.0 + 2.0 * devices + 5.0 * models + 3.0 * links + 2.0 * operated +
                          (job_flow ? 1.0 : 0.0) + counters;
    const double engine_values = shared + devices / 8.0 + 2.0 * models + 3.0 * workloads +
                                 (s.timeseries_replicas ? devices : 0.0);
    const double json_values = shared + (s.workloads.size() > 1 ? 3.0 * workloads : 0.0);
    add(util::format_count(windows) + " time-series windows of " +
            util::format_count(engine_values) + " values",
        windows * engine_values * c.per_series_value);
    add("the time series in the results (" + util::format_count(windows * json_values) +
            " values as JSON and text)",
        windows * json_values * c.per_series_json_value);
  }
  const double traced = traced_requests(s, trace);
  add(util::format_count(traced) + " traced requests", traced * c.per_traced_request);
  for (const auto& o : outputs) add(o.what, o.bytes);

  std::sort(e.parts.begin(), e.parts.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  e.bytes = c.fixed;
  for (const auto& p : e.parts) e.bytes += p.bytes;
  e.parts.push_back({"fixed overhead", c.fixed});
  return e;
}

double default_memory_budget() {
  const double cap = 8.0 * 0x1p30;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return cap;
  return std::min(cap, 0.75 * static_cast<double>(pages) * static_cast<double>(page));
}

Budget& memory_budget() {
  static Budget budget({"--memory-budget", scenario::Quantity::Size, 1.0,
                        "a size such as 512MiB, 8GiB or 2GB", default_memory_budget});
  return budget;
}

void check_memory_budget(const scenario::Scenario& s, const MemoryEstimate& estimate) {
  g_last = estimate;
  const double budget = memory_budget().value();
  if (estimate.bytes <= budget) return;
  throw InputError(
      s.source_file.empty() ? s.name : s.source_file,
      {{"", "the run would need about " + util::format_bytes(estimate.bytes) +
                " of memory, above " + budget_text(budget) +
                "; the largest parts: " + estimate.largest() +
                ". Lower these counts, or raise the budget with --memory-budget SIZE (e.g. 32GiB, "
                "or unlimited) if the machine has the memory (docs/limits.md)"}});
}

const MemoryEstimate& last_memory_estimate() {
  return g_last;
}

std::string out_of_memory_message() {
  std::string m = "memory ran out";
  if (g_last.bytes > 0.0)
    m += " (the run's estimate was " + util::format_bytes(g_last.bytes) + " against " +
         budget_text(memory_budget().value()) + "; its largest parts: " + g_last.largest() + ")";
  return m +
         ": lower the counts (servers, jobs and threads, events in flight, time-series windows, "
         "--trace-max) or give the process more memory (a ulimit -v or a container limit may be "
         "below --memory-budget)";
}

}  // namespace sonicsim::runner
