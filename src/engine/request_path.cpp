#include "request_path.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting.hpp"
#include "attached_devices.hpp"
#include "clients.hpp"
#include "network_path.hpp"
#include "server_hosts.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

RequestPath::RequestPath(Context& ctx, const Uses& uses)
    : ctx_(ctx),
      parts_(uses),
      routing_rng_(derive_seed(ctx.sc.seed, kRoutingStream, 0)),
      retry_rng_(derive_seed(ctx.sc.seed, kRetryStream, 0)) {}

void RequestPath::build() {
  const auto& sc = ctx_.sc;
  open_ = sc.workload().open_loop();  // the loader keeps an open loop alone
  active_.assign(parts_.servers.device_count(), 0);
  build_policy();
  if (sc.load_balancer.capacity) {
    balancer_ = true;
    lb_sites_.resize(parts_.sites.count());
    for (auto& stages : lb_sites_) stages[0] = Station(sc.load_balancer.capacity->workers);
    ctx_.metrics.balancer.emplace(RunMetrics::Balancer{});
  }
  if (sc.load_balancer.admission && !open_) {
    connections_.resize(static_cast<std::size_t>(sc.total_jobs()));
    tokens_ = sc.load_balancer.admission->burst;
    ctx_.metrics.admission.emplace(RunMetrics::Admission{});
  }
}

void RequestPath::send_try(std::uint32_t r) {
  const Time now = ctx_.now;
  auto& requests = ctx_.requests;
  auto& servers = parts_.servers;
  Request& rq = requests[r];
  const std::uint32_t model = requests.kinds[rq.kind].model;
  const bool retry = rq.tries > 0;
  const auto& client = parts_.clients.policy_of(rq.thread);
  if (!connections_.empty() && !admitted(parts_.clients.job_of(rq.thread))) {
    // Not connected: no try at all; straight to the fallback (or the request fails).
    if (ctx_.counts(now)) ++ctx_.metrics.admission->requests;
    return parts_.clients.give_up(r);
  }
  // A device in the client's node first, unless past its spill-over thresholds; back to it when
  // no other server is up.
  const bool attached = parts_.attached.any();
  std::uint32_t d = attached ? parts_.attached.local_choice(model, rq.thread, true) : kNoDevice;
  if (d == kNoDevice) d = retry ? route_retry(rq, model) : route(model, rq.thread);
  if (d == kNoDevice && attached) d = parts_.attached.local_choice(model, rq.thread, false);
  ++rq.tries;
  rq.gen = (rq.gen + 1) & EventQueue::kStampMask;
  rq.sent = now;
  rq.failed = false;
  rq.out = true;
  parts_.accounting.try_sent(retry);
  if (client.timeout > 0.0)
    ctx_.queue.push(now + client.timeout, EventKind::ClientTimeout, r, rq.gen);
  if (d == kNoDevice) {
    rq.routed = false;
    for (std::uint32_t host : servers.hosts(model))
      parts_.operations.note_refused(servers.device(host).pool);
    // The load balancer answers at once that no server is there (Envoy's 503): the error is
    // back after a round trip, with no payload.
    rq.failed = true;
    rq.why = Rejection::NoServer;
    rq.dir = Direction::ToClient;
    ctx_.queue.push(now + parts_.network.refusal_round_trip(rq.thread), EventKind::TransferDone, r);
    return;
  }
  rq.device = d;
  rq.routed = true;
  ++active_[d];
  parts_.operations.note_active(servers.pool_of(d));
  rq.batcher = servers.batcher_for(d, model);
  if (auto* tr = ctx_.traced(r)) tr->device = d;
  parts_.network.send(r, Direction::ToServer,
                      rq.items * ctx_.sc.models[model].input_bytes_per_item);
}

// The request reached its server: its host's work first, when hosts are modelled.
inline void RequestPath::at_server(std::uint32_t r) {
  if (parts_.hosts.any()) return parts_.hosts.request_in(r);
  parts_.servers.arrive(r);
}

void RequestPath::delivered(std::uint32_t r) {
  if (!balancer_ || parts_.attached.is_attached(ctx_.requests[r].device)) return at_server(r);
  const Request& rq = ctx_.requests[r];
  enter_balancer(r, rq.items * ctx_.sc.models[ctx_.requests.model_of(r)].input_bytes_per_item);
}

// The request is no longer active at its server.
void RequestPath::respond(std::uint32_t r, double bytes) {
  --active_[ctx_.requests[r].device];
  if (!balancer_ || parts_.attached.is_attached(ctx_.requests[r].device))
    return parts_.network.send(r, Direction::ToClient, bytes);
  ctx_.requests[r].dir = Direction::ToClient;
  enter_balancer(r, bytes);
}

// ---- the load balancer as a server ----------------------------------------------------------

double RequestPath::stage_cost(int stage, std::uint32_t r) const {
  const auto& c = *ctx_.sc.load_balancer.capacity;
  if (stage == 0) return c.per_message;
  return c.bandwidth > 0.0 ? ctx_.requests[r].lb_bytes / c.bandwidth : 0.0;
}

void RequestPath::enter_balancer(std::uint32_t r, double bytes) {
  const Time now = ctx_.now;
  ctx_.requests[r].lb_in = now;
  ctx_.requests[r].lb_bytes = bytes;
  if (ctx_.counts(now)) ++ctx_.metrics.balancer->messages;
  next_stage(r, 0);
}

void RequestPath::next_stage(std::uint32_t r, int stage) {
  for (; stage < 2; ++stage) {
    if (stage_cost(stage, r) <= 0.0) continue;
    if (balancer_of(r)[stage].arrive(r, ctx_.now, ctx_.warmup))
      ctx_.queue.push(ctx_.now + stage_cost(stage, r), EventKind::BalancerDone, r,
                      static_cast<std::uint32_t>(stage));
    return;
  }
  leave_balancer(r);
}

void RequestPath::on_balancer_done(std::uint32_t r, int stage) {
  balancer_of(r)[stage].done(ctx_.now, ctx_.warmup, [&](std::uint32_t next) {
    ctx_.queue.push(ctx_.now + stage_cost(stage, next), EventKind::BalancerDone, next,
                    static_cast<std::uint32_t>(stage));
  });
  next_stage(r, stage + 1);
}

void RequestPath::leave_balancer(std::uint32_t r) {
  const Time now = ctx_.now;
  Request& rq = ctx_.requests[r];
  if (ctx_.counts(now))
    ctx_.metrics.balancer->wait.add(
        std::max(0.0, now - rq.lb_in - stage_cost(0, r) - stage_cost(1, r)));
  if (rq.dir == Direction::ToServer) return at_server(r);
  parts_.network.send(r, Direction::ToClient, rq.lb_bytes);
}

// ---- admission ------------------------------------------------------------------------------

// Whether the job is connected, connecting it now if it may try: the servers must be within
// the thresholds (the autoscaled pools' last readings; Prometheus' answer now), then the bucket
// must hold a token.
bool RequestPath::admitted(std::uint32_t job) {
  const Time now = ctx_.now;
  Connection& c = connections_[job];
  if (c.connected) return true;
  if (now < c.retry_at) return false;
  const auto& a = *ctx_.sc.load_balancer.admission;
  bool ok = true;
  if (a.above_threshold && parts_.operations.above_threshold()) ok = false;
  if (ok && a.refuse_above && !parts_.operations.query_within(*a.refuse_above)) ok = false;
  if (ok && (a.rate > 0.0 || a.fill_interval > 0.0)) {
    // Envoy 1.30 refills on a timer started with the listener: tokens_per_fill at every multiple
    // of fill_interval; tokens only grow between two takes, so one cap covers all the fills.
    // Whole nanoseconds: the fills counted exactly at any time of the run.
    const std::int64_t every = (Time::zero() + a.fill_interval).ns();
    const double added =
        a.fill_interval > 0.0
            ? static_cast<double>(now.ns() / every - tokens_at_.ns() / every) * a.tokens_per_fill
            : (now - tokens_at_) * a.rate;
    tokens_ = std::min(a.burst, tokens_ + added);
    tokens_at_ = now;
    if (tokens_ >= 1.0)
      tokens_ -= 1.0;
    else
      ok = false;
  }
  if (ok) {
    c.connected = true;
    ++ctx_.metrics.admission->connections;
  } else {
    c.retry_at = a.reconnect ? now + a.retry_after : Time::never();
    ++ctx_.metrics.admission->refused;
  }
  return ok;
}

void RequestPath::finish() {
  if (!balancer_) return;
  auto& metrics = ctx_.metrics;
  const double span = metrics.span();
  // The mean over the balancers of the sites with servers (the only one without sites).
  double cpu = 0.0, nic = 0.0, balancers = 0.0;
  for (std::uint32_t site = 0; site < lb_sites_.size(); ++site) {
    auto& stages = lb_sites_[site];
    for (auto& st : stages) st.account(ctx_.now, ctx_.warmup);
    if (parts_.sites.several() && parts_.sites.devices_at(site) == 0) continue;
    cpu += stages[0].busy_area() / (span * stages[0].servers());
    nic += stages[1].busy_area() / span;
    balancers += 1.0;
  }
  metrics.balancer->cpu_utilization = balancers > 0.0 ? cpu / balancers : 0.0;
  metrics.balancer->nic_utilization = balancers > 0.0 ? nic / balancers : 0.0;
}

std::uint32_t RequestPath::server_site_of(std::uint32_t r) const {
  return parts_.sites.of_device(ctx_.requests[r].device);
}

}  // namespace sonicsim::engine
