#include <sonicsim/engine/simulation.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/errors.hpp>
#include <sonicsim/util/numbers.hpp>

#include "parts.hpp"

namespace sonicsim::engine {

namespace {

using scenario::Limits;

// Events in a row within one tick that stop the run: ten million at least, and more where the
// scenario's own population (threads with their events and requests, open-loop requests,
// devices) could legitimately all act at one instant, a few events each. A billion at most: no
// run holds that many things in memory at once.
std::int64_t stall_limit_of(const scenario::Scenario& s) {
  double population = 0.0;
  for (const scenario::Workload& w : s.workloads) {
    double per_event = 1.0;
    for (const scenario::RequestSpec& r : w.requests) per_event += r.per_event;
    population += w.open_loop()
                      ? static_cast<double>(w.arrivals->max_in_flight)
                      : static_cast<double>(w.n_threads()) * w.async.events_in_flight * per_event;
  }
  for (const scenario::ServerPool& p : s.servers) population += p.count;
  return static_cast<std::int64_t>(
      std::clamp(16.0 * population, static_cast<double>(Limits::min_stalled_events), 1e9));
}

}  // namespace

// The parts, built in order, and the loop that hands them their events.
struct Simulation::Impl {
  explicit Impl(const scenario::Scenario& s) : parts(s), stall_limit(stall_limit_of(s)) {
    parts.accounting.build();
    parts.clients.build();
    parts.servers.build();
    parts.hosts.build();
    parts.memory.build();
    parts.attached.build();
    parts.sites.build();
    parts.path.build();
    parts.network.build(parts.servers.device_count());
    parts.operations.build();
    parts.clients.start();
    if (!parts.clients.open()) parts.preemption.build();
    if (s.timeseries_interval > 0.0) parts.sampling.start();
  }

  void handle(const Event& e);
  // Inlined: GCC deems a function of prefetches pure and drops a call to it whose result is
  // unused; in place, the prefetches stay.
  [[gnu::always_inline]] inline void prefetch(const Event& next);
  void process_through(Time until) {
    Context& ctx = parts.ctx;
    if (stall) return;
    ctx.limit = std::min(until, ctx.end);
    Event e, next;
    while (ctx.queue.pop_through(ctx.limit, e)) {
      // The safety net, one compare per event while time advances.
      if (e.time < tick_end) {
        if (++same_tick >= stall_limit && stalled(e)) return;
      } else {
        tick_end = e.time + Limits::clock_tick_s;
        same_tick = 0;
      }
      if (ctx.queue.peek(next)) prefetch(next);
      handle(e);
      if ((++events & (kWatchEvents - 1)) == 0 && watch) watch(e.time.seconds(), events);
    }
  }
  bool stalled(const Event& e);
  RunMetrics finish();

  Parts parts;
  // The safety net: events in a row that begin within one clock tick of the first of them.
  Time tick_end = Time::from_seconds(-1.0);
  std::int64_t same_tick = 0;
  const std::int64_t stall_limit;
  std::array<std::int64_t, kEventKindCount> kinds_seen{};  // over the last events before the stop
  std::optional<std::string> stall;                        // why the run stopped, once it has
  std::int64_t events = 0;                                 // processed, for the watch
  Watch watch;
};

// Past the limit the next events are sampled for the kind that repeats, then the run stops: no
// scenario may hold simulated time still for this long (the loader refuses what it can foresee).
bool Simulation::Impl::stalled(const Event& e) {
  constexpr std::int64_t kSampled = 1024;
  const std::int64_t past = same_tick - stall_limit;
  if (past == 0) kinds_seen.fill(0);
  ++kinds_seen[static_cast<std::size_t>(e.kind)];
  if (past + 1 < kSampled) return false;
  const auto most = std::max_element(kinds_seen.begin(), kinds_seen.end());
  const auto kind = static_cast<EventKind>(most - kinds_seen.begin());
  char head[160];
  std::snprintf(head, sizeof head,
                "simulated time stopped advancing at t=%.9g s: %lld events in a row within 1 ns, "
                "mostly ",
                e.time.seconds(), static_cast<long long>(same_tick));
  stall = std::string(head) + facts_of(kind).meaning + " (" + std::to_string(*most) +
          " of the last " + std::to_string(kSampled) +
          "), expected time to advance: a period or a duration in the scenario is zero or next "
          "to it (events that take no time, such as requests no server can take with no CPU "
          "time per event), see docs/limits.md";
  return true;
}

// The records the next event will read, fetched while this one is handled: at the whole grid's
// scale (a million threads, ten thousand devices) they are rarely in cache, and waiting for
// them is most of an event's cost (docs/performance.md). Only addresses known without reading
// other cold records: a prefetch that waits for a miss would stall like the miss itself.
inline void Simulation::Impl::prefetch(const Event& next) {
  switch (next.kind) {
    case EventKind::CpuDone:  // its request leaves through its node's NIC
      parts.network.prefetch_client_nic(parts.clients.node_of(next.id), Direction::ToServer);
      [[fallthrough]];
    case EventKind::EventStart:
      parts.clients.prefetch(next.id);
      break;
    case EventKind::TransferDone: {
      const Request& rq = parts.ctx.requests[next.id];  // in flight: usually in cache
      if (rq.dir == Direction::ToServer)
        parts.servers.prefetch_arrival(rq.device, rq.batcher);
      else
        parts.clients.prefetch(rq.thread);
      break;
    }
    case EventKind::BatcherWake:
      parts.servers.prefetch_wake(next.id);
      break;
    case EventKind::ExecutionDone:
      parts.servers.prefetch_execution_end(next.id);
      break;
    default:
      break;
  }
}

void Simulation::Impl::handle(const Event& e) {
  parts.ctx.now = e.time;
  Clients& clients = parts.clients;
  switch (e.kind) {
    case EventKind::EventStart:
      if (!clients.current(e.id, e.stamp)) break;  // its job was preempted since
      if (parts.preemption.on()) parts.preemption.job_thread_starts(clients.job_of(e.id));
      clients.start_events(e.id);
      break;
    case EventKind::CpuDone:
      if (!clients.current(e.id, e.stamp)) break;  // its job was preempted since
      clients.on_cpu_done(e.id);
      break;
    case EventKind::TransferDone:
      if (parts.ctx.requests[e.id].dir != Direction::ToServer)
        clients.request_back(e.id);
      else
        parts.path.delivered(e.id);
      break;
    case EventKind::BalancerDone:
      parts.path.on_balancer_done(e.id, static_cast<int>(e.stamp));
      break;
    case EventKind::BatcherWake:
      parts.servers.on_batcher_wake(e.id);
      break;
    case EventKind::ExecutionDone:
      parts.servers.on_execution_done(e.id, e.stamp);
      break;
    case EventKind::Arrival:
      clients.on_arrival();
      break;
    case EventKind::Sample:
      parts.sampling.on_sample();
      break;
    case EventKind::Operation:
      parts.operations.on_operation(e.id, e.stamp);
      break;
    case EventKind::ClientTimeout:
      clients.on_client_timeout(e.id, e.stamp);
      break;
    case EventKind::Retry:
      clients.on_retry(e.id, e.stamp);
      break;
    case EventKind::FallbackDone:
      clients.on_fallback_done(e.id, e.stamp);
      break;
    case EventKind::Preemption:
      parts.preemption.on_preemption(e.id, e.stamp);
      break;
    case EventKind::HostWorkDone:
      parts.hosts.on_work_done(e.id, e.stamp);
      break;
    case EventKind::NodeCpuDone:
      clients.on_node_done(e.id, e.stamp);
      break;
  }
}

// The books close at the end time, each part for its own figures.
RunMetrics Simulation::Impl::finish() {
  Context& ctx = parts.ctx;
  // The scenario's fault, not the engine's: bad input, exit 2.
  if (stall) throw InputError(ctx.sc.source_file, {{"", *stall}});
  ctx.now = ctx.end;
  parts.accounting.finish(ctx.requests.live + parts.clients.fallbacks_in_flight());
  parts.clients.finish();
  parts.path.finish();
  parts.operations.finish();
  parts.servers.finish();
  parts.hosts.finish();
  parts.memory.finish();
  parts.network.finish();
  parts.sampling.finish();
  return std::move(ctx.metrics);
}

Simulation::Simulation(const scenario::Scenario& s) : impl_(std::make_unique<Impl>(s)) {}
Simulation::~Simulation() = default;

void Simulation::set_transport(Transport* t, bool to_servers, bool to_clients) {
  impl_->parts.network.set_transport(t, to_servers, to_clients);
}

double Simulation::next_time() const {
  const Context& ctx = impl_->parts.ctx;
  if (impl_->stall || ctx.queue.empty() || ctx.queue.top_time() > ctx.end) return kInf;
  return ctx.queue.top_time().seconds();
}

// The platform's clock is a double of seconds, coarser than a nanosecond past 2^22 s, where
// several instants share one double: the platform has reached every instant whose double
// (next_time()'s answer) is at or before its clock. A binary search between the neighbours.
Time Simulation::platform_instant(double t) {
  const Time at = Time::from_seconds(t);
  // Past the range (the flow models wake the core at +inf, or just below a huge finite time):
  // every instant is reached.
  if (!(t < kInf) || at.is_never()) return Time::never();
  const Time above = Time::from_seconds(std::nextafter(t, kInf));
  std::int64_t lo = at.ns() - 1;  // at or before t
  std::int64_t hi = above.is_never() ? std::numeric_limits<std::int64_t>::max() : above.ns() + 1;
  while (Time::from_ns(lo).seconds() > t) lo -= hi - lo;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (Time::from_ns(mid).seconds() <= t ? lo : hi) = mid;
  }
  return Time::from_ns(lo);
}

void Simulation::process_through(double until) {
  impl_->process_through(platform_instant(until));
}
void Simulation::set_trace(const TraceSettings& t) {
  impl_->parts.sampling.set_trace(t);
}

double Simulation::events_processed() const {
  return static_cast<double>(impl_->events);
}

void Simulation::set_watch(Watch w) {
  impl_->watch = std::move(w);
}

void Simulation::hold_at(double t) {
  Context& ctx = impl_->parts.ctx;
  ctx.limit = std::min(ctx.limit, platform_instant(t));
}
void Simulation::run() {
  impl_->process_through(impl_->parts.ctx.end);
}
RunMetrics Simulation::finish() {
  return impl_->finish();
}

void Simulation::on_delivered(std::uint32_t token, double from, double to, double bytes) {
  impl_->parts.network.delivered(token, from, to, bytes);
}

// The links' windows (after the warm-up) and, when sampled, the time series' intervals.
std::vector<std::pair<double, double>> Simulation::delivery_grids() const {
  const Context& ctx = impl_->parts.ctx;
  std::vector<std::pair<double, double>> grids;
  if (!ctx.metrics.links.empty())
    grids.emplace_back(ctx.warmup_s, ctx.metrics.links.front().window);
  if (ctx.sc.timeseries_interval > 0.0) grids.emplace_back(0.0, ctx.sc.timeseries_interval);
  return grids;
}

void Simulation::on_transfer_done(std::uint32_t token, double now) {
  // Not before the core's clock, which may have passed the double's instant by a few ns.
  const Context& ctx = impl_->parts.ctx;
  impl_->parts.ctx.queue.push(std::max(ctx.now, Time::from_seconds(now)) +
                                  impl_->parts.network.overhead_after_transfer(token),
                              EventKind::TransferDone, token);
}

}  // namespace sonicsim::engine
