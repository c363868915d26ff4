#include "server_pools.hpp"

#include <sonicsim/scenario/limits.hpp>

#include <algorithm>

#include "accounting.hpp"
#include "model_memory.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "server_hosts.hpp"
#include "site_operations.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

static_assert(scenario::Limits::max_devices_per_host <= UINT16_MAX,
              "Device::per_host holds a server's device count");

void ServerPools::build() {
  const auto& sc = ctx_.sc;
  const std::size_t nm = sc.models.size();
  hosts_.assign(nm, {});
  curve_of_.assign(nm, std::vector<CurveTable>(sc.servers.size()));
  counters_.assign(sc.servers.size(), {});
  for (const auto& pool : sc.servers)
    load_on_demand_ = load_on_demand_ || pool.model_control == scenario::ModelControl::Explicit;
  for (std::size_t i = 0; i < nm; ++i) {
    const auto& model = sc.models[i];
    scenario::Distribution d;
    d.kind = model.spread.kind;
    d.mean = 1.0;
    d.cv = model.spread.cv;
    spreads_.push_back(d);
  }
  for (std::size_t p = 0; p < sc.servers.size(); ++p) {
    const auto& pool = sc.servers[p];
    RunMetrics::Pool pm;
    pm.name = pool.name;
    pm.device = pool.device;
    ctx_.metrics.pools.push_back(pm);
    for (const auto& name : pool.models) {
      const int mi = sc.model_index(name);
      CurveTable& table = curve_of_[mi][p];
      table.curve = &sc.models[mi].curve_for(pool.device);
      const int cap = sc.models[mi].max_batch_size;
      const int size = cap > 0 && cap <= 65536 ? cap + 1 : 4097;
      table.by_batch.resize(static_cast<std::size_t>(size));
      for (int b = 0; b < size; ++b) table.by_batch[b] = table.curve->at(b);
    }
    const int per_host = pool.host ? pool.host->devices : 1;
    for (int c = 0; c < pool.count; ++c) {
      const auto d = static_cast<std::uint32_t>(devices_.size());
      Device dev{static_cast<std::uint32_t>(p),
                 kNone,
                 Rng(derive_seed(sc.seed, kDeviceStream, d)),
                 {},
                 Time::zero(),
                 0,
                 0,
                 metrics::BusyTime(ctx_.warmup, ctx_.end),
                 std::vector<std::uint32_t>(nm, kNone),
                 State::Up,
                 static_cast<std::uint16_t>(per_host),
                 0,
                 Time::zero()};
      const std::uint32_t first = d - static_cast<std::uint32_t>(c % per_host);
      if (first == d) {
        for (const auto& name : pool.models) add_batcher(dev, d, sc.model_index(name), per_host);
      } else {
        dev.batcher_of_model = devices_[first].batcher_of_model;
      }
      devices_.push_back(std::move(dev));
    }
  }
  models_ = nm;
  for (const Device& dev : devices_) {
    pool_of_.push_back(dev.pool);
    batcher_table_.insert(batcher_table_.end(), dev.batcher_of_model.begin(),
                          dev.batcher_of_model.end());
  }
  up_hosts_ = hosts_;
  build_kinds();
}

// Triton's scheduler for model `mi` on device d, as its model configuration sets it.
void ServerPools::add_batcher(Device& dev, std::uint32_t d, int mi, int devices) {
  const auto& model = ctx_.sc.models[mi];
  BatcherConfig cfg;
  cfg.max_batch_size = model.max_batch_size;
  if (model.dynamic_batching) {
    cfg.dynamic = true;
    cfg.preferred = model.dynamic_batching->preferred_batch_size;
    cfg.max_queue_delay = model.dynamic_batching->max_queue_delay;
    const auto& policy = model.dynamic_batching->queue_policy;
    cfg.max_queue_size = policy.max_queue_size;
    cfg.default_timeout = policy.default_timeout;
    cfg.delay_timed_out = policy.timeout_action == scenario::QueuePolicy::TimeoutAction::Delay;
    const auto& db = *model.dynamic_batching;
    for (std::uint64_t l = 1; l <= db.priority_levels; ++l) {
      const auto& lp = db.policy_of(l);
      cfg.levels.push_back({lp.max_queue_size, lp.default_timeout,
                            lp.timeout_action == scenario::QueuePolicy::TimeoutAction::Delay});
    }
  }
  // A pipeline takes requests one at a time, in the queue's order (device_kinds.cpp).
  if (pipelined(dev.pool)) cfg.dynamic = false;
  dev.batcher_of_model[mi] = static_cast<std::uint32_t>(batchers_.size());
  // One queue for the instances on all of the server's devices.
  batchers_.push_back(
      {Batcher(cfg, instances_on(dev.pool, static_cast<std::uint32_t>(mi)) * devices),
       static_cast<std::uint32_t>(mi), d, Time::never()});
  device_of_batcher_.push_back(d);
  // A device inside a client node serves that node alone (attached_devices.cpp).
  if (!ctx_.sc.servers[dev.pool].attached) hosts_[mi].push_back(d);
}

void ServerPools::rebuild_up_hosts() {
  for (std::size_t mi = 0; mi < hosts_.size(); ++mi) {
    auto& up = up_hosts_[mi];
    up.clear();
    for (std::uint32_t d : hosts_[mi])
      if (devices_[d].state == State::Up) up.push_back(d);
  }
  parts_.sites.rebuild_up_hosts();
}

ServerPools::State ServerPools::change_state(std::uint32_t d, State next) {
  Device& dev = devices_[d];
  const State from = dev.state;
  const bool was_up = from == State::Up, is_up = next == State::Up;
  if (!(from == State::Starting && is_up)) dev.epoch = (dev.epoch + 1) & kEpochMask;
  if (next == State::Starting) dev.started_at = ctx_.now;
  dev.state = next;
  if (was_up != is_up) set_up(d, is_up);
  return from;
}

void ServerPools::set_up(std::uint32_t d, bool up) {
  for (std::uint32_t mi = 0; mi < hosts_.size(); ++mi)
    if (std::binary_search(hosts_[mi].begin(), hosts_[mi].end(), d))
      set_in_device_order(up_hosts_[mi], d, up);
  parts_.sites.set_up(d, up);
}

std::size_t ServerPools::queued_on(std::uint32_t d) const {
  std::size_t queued = 0;
  for (std::uint32_t bi : devices_[d].batcher_of_model)
    if (bi != kNone) queued += batchers_[bi].batcher.queued();
  return queued;
}

bool ServerPools::holds_work(std::uint32_t d) const {
  return !devices_[d].running.empty() || queued_on(d) > 0 || parts_.hosts.holds_work(d);
}

double ServerPools::expected_wait(std::uint32_t di, std::uint32_t model) const {
  const Device& d = devices_[di];
  if (d.per_host > 1) return shared_expected_wait(di, model);
  if (d.kind != kNone) return expected_wait_kind(d, di, model);
  double left = 0.0;
  for (const Exec& e : d.running) left += e.remaining;
  // Processor sharing conserves work: since the last update the device did (now - then) of it.
  if (!d.running.empty()) left = std::max(0.0, left - (ctx_.now - d.last_update));
  const double per_request = d.requests_started > 0
                                 ? d.work_started / static_cast<double>(d.requests_started)
                                 : curve_of_[model][d.pool].at(1);
  return left + static_cast<double>(queued_on(di)) * per_request;
}

// A server of several devices: its work left and its queue, done by all of them at once.
double ServerPools::shared_expected_wait(std::uint32_t server, std::uint32_t model) const {
  double left = 0.0, work = 0.0, requests = 0.0;
  const std::uint32_t k = devices_[server].per_host;
  for (std::uint32_t di = server; di < server + k; ++di) {
    const Device& d = devices_[di];
    double device_left = 0.0;
    for (const Exec& e : d.running) device_left += e.remaining;
    if (!d.running.empty()) device_left = std::max(0.0, device_left - (ctx_.now - d.last_update));
    left += device_left;
    work += d.work_started;
    requests += static_cast<double>(d.requests_started);
  }
  const double per_request =
      requests > 0.0 ? work / requests : curve_of_[model][devices_[server].pool].at(1);
  return (left + static_cast<double>(queued_on(server)) * per_request) / k;
}

void ServerPools::track_busy_over_whole_run() {
  while (whole_busy_.size() < devices_.size()) whole_busy_.emplace_back(Time::zero(), ctx_.end);
}

void ServerPools::arrive(std::uint32_t r) {
  const Time now = ctx_.now;
  Request& rq = ctx_.requests[r];
  rq.enqueued = now;
  if (auto* tr = ctx_.traced(r)) tr->at_server = now.seconds();
  // A server that is not serving refuses the connection (a draining one still takes what was
  // already on its way).
  const State state = devices_[rq.device].state;
  if (state != State::Up && state != State::Draining) return reject(r, Rejection::NoServer);
  BatcherState& b = batchers_[rq.batcher];
  // Triton refuses a request larger than max_batch_size, or one that finds its priority level's
  // queue full (max_queue_size); the error travels back.
  if (!b.batcher.accepts(rq.items)) return reject(r, Rejection::TooLarge);
  const std::uint32_t level = rq.level;
  if (!b.batcher.has_room(level)) return reject(r, Rejection::QueueFull);
  b.batcher.enqueue(r, rq.items, now, level);
  dispatch(rq.batcher);
}

void ServerPools::reject(std::uint32_t r, Rejection why) {
  if (why == Rejection::QueueFull || why == Rejection::Timeout || why == Rejection::TooLarge)
    parts_.sampling.request_refused(ctx_.requests[r].device,
                                    batchers_[ctx_.requests[r].batcher].model);
  ctx_.requests[r].failed = true;
  ctx_.requests[r].why = why;
  parts_.path.respond(r, 0.0);
}

void ServerPools::on_batcher_wake(std::uint32_t bi) {
  if (batchers_[bi].wake_at - ctx_.now <= kTimeEps) batchers_[bi].wake_at = Time::never();
  dispatch(bi);
}

void ServerPools::dispatch(std::uint32_t bi) {
  BatcherState& b = batchers_[bi];
  Time wake_at = Time::never();
  // Explicit model control: a model starts nothing while it is not loaded (model_memory.hpp).
  while (!load_on_demand_ || parts_.memory.may_start(bi)) {
    const int items = b.batcher.form(ctx_.now, scratch_, wake_at);
    if (items == 0) break;
    start_execution(bi, items);
  }
  // Requests whose queue timeout expired under REJECT, found while forming batches.
  b.batcher.take_rejected(rejected_scratch_);
  for (const auto& q : rejected_scratch_) reject(q.request, Rejection::Timeout);
  // One pending wake per batcher is enough: a later front request never needs an earlier one.
  if (wake_at < b.wake_at) {
    b.wake_at = wake_at;
    ctx_.queue.push(wake_at, EventKind::BatcherWake, bi);
  }
  if (load_on_demand_) parts_.memory.after_dispatch(bi);
}

inline void ServerPools::update_progress(Device& d) {
  const Time now = ctx_.now;
  const double k = static_cast<double>(d.running.size());
  if (k > 0.0) {
    const double done =
        d.kind == kNone ? (now - d.last_update) / k : progress(d, now - d.last_update);
    for (Exec& e : d.running) e.remaining -= done;
  }
  d.last_update = now;
}

[[gnu::always_inline]] inline void ServerPools::reschedule(std::uint32_t di) {
  Device& d = devices_[di];
  ++d.stamp;
  if (d.kind != kNone && kinds_[d.kind].pipeline) return reschedule_pipeline(di);
  if (d.running.empty()) return;
  double least = kInf;
  for (const Exec& e : d.running) least = std::min(least, e.remaining);
  const double k = d.kind == kNone ? static_cast<double>(d.running.size()) : stretch(d);
  ctx_.queue.push(ctx_.now + std::max(0.0, least) * k, EventKind::ExecutionDone, di, d.stamp);
}

std::uint32_t ServerPools::least_busy_device(std::uint32_t server) {
  const std::uint32_t k = devices_[server].per_host;
  std::uint32_t& turn = devices_[server].turn;
  // Ties go round the devices: Triton hands a batch to whichever instance waits, and over time
  // every GPU of a server does its share. Devices starting again after a crash of the pool take
  // nothing yet (the first stands for the server and is always there).
  std::uint32_t best = kNone;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint32_t di = server + (turn + i) % k;
    if (di != server && devices_[di].state != State::Up) continue;
    if (best == kNone || devices_[di].running.size() < devices_[best].running.size()) best = di;
  }
  turn = (best - server + 1) % k;
  return best;
}

// The execution starts on device di (after its host's work, when there is any).
[[gnu::always_inline]] inline void ServerPools::place(std::uint32_t di, Exec&& e) {
  Device& d = devices_[di];
  const Time now = ctx_.now;
  const bool pipeline = d.kind != kNone && kinds_[d.kind].pipeline;
  // A pipeline's `remaining` is when the request leaves it, in seconds from the execution's
  // start; its items enter one per interval.
  if (pipeline) e.remaining = pipeline_enter(d, e.batcher, e.items) - e.start;
  update_progress(d);
  if (d.running.empty() || pipeline) {
    d.busy.set_busy(true, now);
    if (!whole_busy_.empty()) whole_busy_[di].set_busy(true, now);
  }
  d.work_started += pipeline ? e.items * kinds_[d.kind].interval : e.remaining;
  d.running.push_back(std::move(e));
  if (d.kind != kNone) executions_changed(d);
  reschedule(di);
}

void ServerPools::start_execution(std::uint32_t bi, int items) {
  const Time now = ctx_.now;
  BatcherState& b = batchers_[bi];
  const std::uint32_t di = devices_[b.device].per_host > 1 ? least_busy_device(b.device) : b.device;
  Device& d = devices_[di];
  const double mean = curve_of_[b.model][d.pool].at(items);
  const auto& spread = spreads_[b.model];
  // A pipeline's work is fixed when its items start entering (run_on_device), after the host.
  const bool pipeline = d.kind != kNone && kinds_[d.kind].pipeline;
  const double work = pipeline ? 0.0
                      : spread.kind == scenario::Distribution::Kind::Constant
                          ? mean
                          : mean * spread.sample(d.rng);
  Exec e{work, now, bi, items, {}};
  if (!spare_batches_.empty()) {
    e.batch = std::move(spare_batches_.back());
    spare_batches_.pop_back();
  }
  e.batch.swap(scratch_);
  d.requests_started += e.batch.size();
  parts_.accounting.batch_started(b.model, e.batch);
  for (const auto& q : e.batch)
    if (auto* tr = ctx_.traced(q.request)) {
      tr->exec_start = now.seconds();
      tr->batch_items = items;
    }
  if (parts_.hosts.any()) return parts_.hosts.execution_in(di, std::move(e));
  place(di, std::move(e));
}

void ServerPools::run_on_device(std::uint32_t di, Exec&& e) {
  place(di, std::move(e));
}

void ServerPools::release_pending(Exec& e) {
  e.batch.clear();
  spare_batches_.push_back(std::move(e.batch));
}

// An execution ends: its instance, counters and the responses (the hot path: kept inline).
[[gnu::always_inline]] inline void ServerPools::end_execution(std::uint32_t di, const Exec& e) {
  BatcherState& b = batchers_[e.batcher];
  const std::uint32_t pool = devices_[di].pool;
  // A pipeline's request gave its instance back when its last item entered.
  if (devices_[di].kind == kNone || !kinds_[devices_[di].kind].pipeline)
    b.batcher.release_instance();
  Counters& c = counters_[pool];
  c.executions += 1.0;
  double queued = 0.0;
  for (const auto& q : e.batch) {
    const double wait = e.start - q.enqueued;
    c.queue_seconds += wait;  // one request at a time: the autoscaler's sums stay as they were
    queued += wait;
  }
  parts_.sampling.execution_done(di, b.model, e.items, e.batch.size(), queued, ctx_.now - e.start);
  parts_.accounting.execution_done(b.model, pool, e.items, e.batch.size(), e.start);
  const auto& model = ctx_.sc.models[b.model];
  for (const auto& q : e.batch) {
    if (auto* tr = ctx_.traced(q.request)) tr->exec_end = ctx_.now.seconds();
    if (parts_.hosts.any())
      parts_.hosts.response_out(q.request, q.items * model.output_bytes_per_item);
    else
      parts_.path.respond(q.request, q.items * model.output_bytes_per_item);
  }
}

void ServerPools::on_execution_done(std::uint32_t di, std::uint32_t stamp) {
  Device& d = devices_[di];
  if (stamp != (d.stamp & EventQueue::kStampMask)) return;  // the running set changed since
  if (d.kind != kNone && kinds_[d.kind].pipeline) return on_pipeline_event(di);
  update_progress(d);
  // Everything within the clock's resolution of done finishes now.
  const double k = d.kind == kNone ? static_cast<double>(d.running.size()) : stretch(d);
  std::vector<std::uint32_t>& freed = freed_scratch_;
  freed.clear();
  for (std::size_t i = 0; i < d.running.size();) {
    if (d.running[i].remaining * k > kTimeEps) {
      ++i;
      continue;
    }
    Exec e = std::move(d.running[i]);
    d.running[i] = std::move(d.running.back());
    d.running.pop_back();
    end_execution(di, e);
    freed.push_back(e.batcher);
    e.batch.clear();
    spare_batches_.push_back(std::move(e.batch));
  }
  if (d.kind != kNone) executions_changed(d);
  if (d.running.empty()) {
    d.busy.set_busy(false, ctx_.now);
    if (!whole_busy_.empty()) whole_busy_[di].set_busy(false, ctx_.now);
  }
  reschedule(di);
  for (std::uint32_t bi : freed) dispatch(bi);
  if (d.state == State::Draining && !holds_work(di)) parts_.operations.stop_server(di, State::Off);
}

void ServerPools::finish_execution(std::uint32_t di, const Exec& e) {
  end_execution(di, e);
}

void ServerPools::drop_all(std::uint32_t d, std::vector<Batcher::Queued>& lost) {
  parts_.hosts.drop(d, lost);
  Device& dev = devices_[d];
  for (std::uint32_t bi : dev.batcher_of_model)
    if (bi != kNone)
      // Every device of a shared server goes down with it (load_faults.cpp refuses one alone).
      batchers_[bi].batcher.drop_all(
          lost, instances_on(dev.pool, batchers_[bi].model) * static_cast<int>(dev.per_host));
  for (Exec& e : dev.running) {
    lost.insert(lost.end(), e.batch.begin(), e.batch.end());
    e.batch.clear();
    spare_batches_.push_back(std::move(e.batch));
  }
  if (!dev.running.empty()) {
    dev.running.clear();
    dev.busy.set_busy(false, ctx_.now);
    whole_busy_[d].set_busy(false, ctx_.now);
    ++dev.stamp;  // its pending ExecutionDone is stale
  }
  if (dev.kind != kNone) executions_changed(dev);
}

void ServerPools::finish() {
  for (const Device& d : devices_)
    ctx_.metrics.pools[d.pool].utilization.push_back(d.busy.utilization(ctx_.end));
  finish_kinds();
}

}  // namespace sonicsim::engine
