#include "site_operations.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model_memory.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

void SiteOperations::build() {
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  auto& servers = parts_.servers;
  const auto& faults = sc.faults;
  pools_.resize(sc.servers.size());
  fault_rngs_.assign(servers.device_count(), Rng(0));
  for (std::uint32_t di = 0; di < servers.device_count(); ++di)
    pools_[servers.device(di).pool].devices.push_back(di);
  std::vector<bool> faulty(sc.servers.size(), false);
  for (const auto& c : faults.crashes) faulty[c.pool] = true;
  for (const auto& c : faults.random_crashes) faulty[c.pool] = true;
  for (std::size_t p = 0; p < sc.servers.size(); ++p) {
    const auto& pool = sc.servers[p];
    PoolOps& po = pools_[p];
    po.asked = po.up = pool.count;
    if (!pool.autoscaler && !faulty[p]) continue;
    operated_ = true;
    metrics.pools[p].operated = true;
    metrics.pools[p].peak_replicas = pool.count;
    if (!pool.autoscaler) continue;
    const auto& a = *pool.autoscaler;
    po.scaler.emplace(a);
    // The first initial_replicas devices are serving when the run begins; the others are off.
    for (std::size_t k = static_cast<std::size_t>(a.initial_replicas); k < po.devices.size(); ++k)
      servers.begin_off(po.devices[k]);
    po.asked = po.up = a.initial_replicas;
    metrics.pools[p].peak_replicas = a.initial_replicas;
    ctx_.queue.push(Time::from_seconds(a.polling_interval), EventKind::Operation,
                    static_cast<std::uint32_t>(p), op_stamp(kPoll, 0));
    schedule_mark(static_cast<std::uint32_t>(p));
  }
  if (const auto& a = sc.load_balancer.admission; a && a->refuse_above) {
    // The deployment ran idle before the run: Prometheus holds a scrape one interval back.
    int up = 0;
    for (const PoolOps& po : pools_) up += po.up;
    scrapes_.push_back({Time::from_seconds(-a->refuse_above->scrape_interval), 0.0, 0.0, up});
    ctx_.queue.push(Time::zero(), EventKind::Operation, 0, op_stamp(kScrape, 0));
  }
  if (!operated_) return;
  servers.rebuild_up_hosts();
  servers.track_busy_over_whole_run();
  for (const auto& c : faults.crashes) {
    const auto& devs = pools_[c.pool].devices;
    for (std::size_t k = 0; k < devs.size(); ++k)
      if (c.device < 0 || static_cast<std::size_t>(c.device) == k)
        ctx_.queue.push(Time::from_seconds(c.at), EventKind::Operation, devs[k],
                        op_stamp(kCrash, static_cast<std::uint32_t>(&c - faults.crashes.data())));
  }
  crash_planned_.assign(servers.device_count(), false);
  random_crash_pool_.assign(sc.servers.size(), false);
  for (const auto& c : faults.random_crashes) random_crash_pool_[c.pool] = true;
  for (const auto& c : faults.random_crashes)
    for (std::uint32_t d : pools_[c.pool].devices) {
      fault_rngs_[d].reseed(derive_seed(sc.seed, kFaultStream, d));
      const State st = servers.device(d).state;
      if (st != State::Off && st != State::Down) plan_random_crash(d);
    }
}

void SiteOperations::plan_random_crash(std::uint32_t d) {
  if (crash_planned_[d]) return;
  crash_planned_[d] = true;
  ctx_.queue.push(ctx_.now + fault_rngs_[d].exponential(random_crashes_of(d).mtbf),
                  EventKind::Operation, d, op_stamp(kRandomCrash, 0));
}

// The random-crash settings of a device's pool (the scenario allows one per pool).
const scenario::Faults::RandomCrashes& SiteOperations::random_crashes_of(std::uint32_t d) const {
  for (const auto& c : ctx_.sc.faults.random_crashes)
    if (c.pool == parts_.servers.device(d).pool) return c;
  throw std::logic_error("random crash planned for a pool without random_crashes");
}

bool SiteOperations::above_threshold() const {
  for (const PoolOps& po : pools_)
    if (po.scaler && po.scaler->usage_ratio(po.last_metric, po.asked) > 1.0) return true;
  return false;
}

// Replica-seconds up count after the warm-up only, like utilization.
void SiteOperations::account_up(PoolOps& po) {
  const Time now = ctx_.now;
  const Time from = std::max(po.up_since, ctx_.warmup);
  if (now > from)
    ctx_.metrics.pools[&po - pools_.data()].replica_seconds_up += po.up * (now - from);
  po.up_since = now;
}

void SiteOperations::set_state(std::uint32_t d, State next) {
  const std::uint32_t pool = parts_.servers.pool_of(d);
  PoolOps& po = pools_[pool];
  const bool was_up = parts_.servers.device(d).state == State::Up, is_up = next == State::Up;
  if (was_up != is_up) {
    account_up(po);
    po.up += is_up ? 1 : -1;
  }
  const State from = parts_.servers.change_state(d, next);
  parts_.memory.state_changed(d, from, next);
  const bool serving = next != State::Off && next != State::Down;
  if (serving && (from == State::Off || from == State::Down) && !random_crash_pool_.empty() &&
      random_crash_pool_[pool])
    plan_random_crash(d);
}

void SiteOperations::start_server(std::uint32_t d) {
  set_state(d, State::Starting);
  // Pod start, then loading the models it holds (model_memory.hpp).
  const double delay =
      ctx_.sc.servers[parts_.servers.pool_of(d)].startup_delay + parts_.memory.start_up_loading(d);
  if (delay <= 0.0) return set_state(d, State::Up);
  ctx_.queue.push(ctx_.now + delay, EventKind::Operation, d,
                  op_stamp(kStarted, parts_.servers.device(d).epoch));
}

// Scaled down: a server not yet serving goes at once; one serving stops taking requests and goes
// when it holds none, or when the grace period ends.
void SiteOperations::drain_server(std::uint32_t d) {
  const ServerPools::Device& dev = parts_.servers.device(d);
  if (dev.state != State::Up) return stop_server(d, State::Off);
  set_state(d, State::Draining);
  if (!parts_.servers.holds_work(d)) return stop_server(d, State::Off);
  ctx_.queue.push(ctx_.now + ctx_.sc.servers[dev.pool].drain_timeout, EventKind::Operation, d,
                  op_stamp(kDrainTimeout, dev.epoch));
}

void SiteOperations::stop_server(std::uint32_t d, State next) {
  std::vector<Batcher::Queued> lost;
  parts_.servers.drop_all(d, lost);
  set_state(d, next);
  for (const auto& q : lost) parts_.servers.reject(q.request, Rejection::Lost);
}

// Whether the device went down (and will come back after `down_for`). A draining server that
// crashes just goes: it was leaving, and no one asked for it any more.
bool SiteOperations::crash(std::uint32_t d, double down_for, Op back) {
  const ServerPools::Device& dev = parts_.servers.device(d);
  if (dev.state == State::Off || dev.state == State::Down) return false;
  if (ctx_.now >= ctx_.warmup) ++ctx_.metrics.pools[dev.pool].crashes;
  if (dev.state == State::Draining) {
    stop_server(d, State::Off);
    return false;
  }
  stop_server(d, State::Down);
  if (std::isfinite(down_for))
    ctx_.queue.push(ctx_.now + down_for, EventKind::Operation, d, op_stamp(back, dev.epoch));
  return true;
}

void SiteOperations::plan_model_loaded(std::uint32_t bi, Time at, std::uint32_t generation) {
  static_assert(ModelMemory::kGenerationMask == kEpochMask, "a load's generation fits the stamp");
  ctx_.queue.push(at, EventKind::Operation, bi, op_stamp(kModelLoaded, generation));
}

bool SiteOperations::in_state(std::uint32_t d, State s, std::uint32_t epoch) const {
  const ServerPools::Device& dev = parts_.servers.device(d);
  return dev.state == s && dev.epoch == epoch;
}

void SiteOperations::on_operation(std::uint32_t id, std::uint32_t stamp) {
  const auto op = static_cast<Op>(stamp & ((1u << kOpBits) - 1));
  const std::uint32_t epoch = stamp >> kOpBits;
  switch (op) {
    case kPoll:
      return poll(id);
    case kPollMark:
      return take_mark(id);
    case kStarted:
      if (in_state(id, State::Starting, epoch)) set_state(id, State::Up);
      return;
    case kDrainTimeout:
      if (in_state(id, State::Draining, epoch)) stop_server(id, State::Off);
      return;
    case kCrash:
      crash(id, ctx_.sc.faults.crashes[epoch].down_for, kRestart);
      return;
    case kRestart:
      if (in_state(id, State::Down, epoch)) start_server(id);
      return;
    case kRandomCrash: {
      crash_planned_[id] = false;
      const double down_for = fault_rngs_[id].exponential(random_crashes_of(id).mttr);
      // Not serving (nothing to crash), or leaving anyway: the next failure is planned when the
      // device serves again (set_state).
      crash(id, down_for, kRandomRepair);
      return;
    }
    case kModelLoaded:
      return parts_.memory.on_loaded(id, epoch);
    case kScrape:
      return scrape();
    case kRandomRepair:
      // Back up: set_state plans the next failure.
      if (in_state(id, State::Down, epoch)) start_server(id);
      return;
  }
}

void SiteOperations::finish() {
  auto& metrics = ctx_.metrics;
  for (std::size_t p = 0; p < pools_.size(); ++p)
    if (metrics.pools[p].operated) {
      account_up(pools_[p]);
      metrics.pools[p].mean_replicas_up = metrics.pools[p].replica_seconds_up / metrics.span();
    }
}

}  // namespace sonicsim::engine
