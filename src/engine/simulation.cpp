#include <sonicsim/engine/simulation.hpp>

#include <algorithm>

#include <sonicsim/util/numbers.hpp>

#include "parts.hpp"

namespace sonicsim::engine {

// The parts, built in order, and the loop that hands them their events.
struct Simulation::Impl {
  explicit Impl(const scenario::Scenario& s) : parts(s) {
    parts.accounting.build();
    parts.clients.build();
    parts.servers.build();
    parts.path.build();
    parts.network.build(parts.servers.device_count());
    parts.operations.build();
    parts.clients.start();
    if (!parts.clients.open()) parts.preemption.build();
    if (s.timeseries_interval > 0.0) parts.sampling.start();
  }

  void handle(const Event& e);
  void process_through(double until) {
    Context& ctx = parts.ctx;
    ctx.limit = std::min(until, ctx.end);
    while (!ctx.queue.empty() && ctx.queue.top_time() <= ctx.limit) handle(ctx.queue.pop());
  }
  RunMetrics finish();

  Parts parts;
};

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
  }
}

// The books close at the end time, each part for its own figures.
RunMetrics Simulation::Impl::finish() {
  Context& ctx = parts.ctx;
  ctx.now = ctx.end;
  parts.accounting.finish(ctx.requests.live + parts.clients.fallbacks_in_flight());
  parts.path.finish();
  parts.operations.finish();
  parts.servers.finish();
  parts.network.finish();
  return std::move(ctx.metrics);
}

Simulation::Simulation(const scenario::Scenario& s) : impl_(std::make_unique<Impl>(s)) {}
Simulation::~Simulation() = default;

void Simulation::set_transport(Transport* t, bool to_servers, bool to_clients) {
  impl_->parts.network.set_transport(t, to_servers, to_clients);
}

double Simulation::next_time() const {
  const Context& ctx = impl_->parts.ctx;
  if (ctx.queue.empty() || ctx.queue.top_time() > ctx.end) return kInf;
  return ctx.queue.top_time();
}

void Simulation::process_through(double until) {
  impl_->process_through(until);
}
void Simulation::set_trace(const TraceSettings& t) {
  impl_->parts.sampling.set_trace(t);
}

void Simulation::hold_at(double t) {
  Context& ctx = impl_->parts.ctx;
  ctx.limit = std::min(ctx.limit, t);
}
void Simulation::run() {
  impl_->process_through(impl_->parts.ctx.end);
}
RunMetrics Simulation::finish() {
  return impl_->finish();
}

void Simulation::on_transfer_done(std::uint32_t token, double now) {
  impl_->parts.ctx.queue.push(now + impl_->parts.network.overhead_after_transfer(token),
                              EventKind::TransferDone, token);
}

}  // namespace sonicsim::engine
