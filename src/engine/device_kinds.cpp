// The server pools' devices that overlap executions or are pipelines (device_kinds.hpp): the
// parts of ServerPools that only such devices reach, so that a device without either keeps
// today's arithmetic to the last bit.
#include <algorithm>

#include "accounting.hpp"
#include "model_memory.hpp"
#include "request_path.hpp"
#include "sampling.hpp"
#include "server_hosts.hpp"
#include "server_pools.hpp"
#include "site_operations.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

bool ServerPools::pipelined(std::uint32_t pool) const {
  const scenario::DeviceSpec* spec = ctx_.sc.find_device(ctx_.sc.servers[pool].device);
  return spec && device_kinds::executes(spec->kind) == device_kinds::Execution::Model::Pipeline;
}

// A pipeline's batcher has one instance: the entry, held while a request's items enter.
int ServerPools::instances_on(std::uint32_t pool, std::uint32_t model) const {
  return pipelined(pool) ? 1 : ctx_.sc.models[model].instances;
}

// The device's kind says how it executes (include/sonicsim/device_kinds/); plain processor
// sharing needs no slot.
void ServerPools::build_kinds() {
  const auto& sc = ctx_.sc;
  // Asked once per pool: every device of a pool executes alike.
  std::vector<device_kinds::Execution> of_pool;
  for (const auto& pool : sc.servers) of_pool.push_back(sc.execution_of(pool));
  for (Device& d : devices_) {
    const device_kinds::Execution& ex = of_pool[d.pool];
    if (ex.plain()) continue;
    DeviceKindState st(ctx_.warmup, ctx_.end);
    if (ex.model == device_kinds::Execution::Model::Pipeline) {
      st.pipeline = true;
      st.latency = ex.latency;
      st.interval = ex.interval;
    } else {
      st.speed.assign(ex.throughput.size(), 1.0);
      for (std::size_t k = 1; k < ex.throughput.size(); ++k)
        st.speed[k] = ex.throughput[k] / static_cast<double>(k);
    }
    d.kind = static_cast<std::uint32_t>(kinds_.size());
    kinds_.push_back(std::move(st));
  }
}

double ServerPools::progress(const Device& d, double elapsed) const {
  const DeviceKindState& s = kinds_[d.kind];
  return s.pipeline ? 0.0 : elapsed * s.speed_at(d.running.size());
}

double ServerPools::stretch(const Device& d) const {
  return 1.0 / kinds_[d.kind].speed_at(d.running.size());
}

// The request's items start entering now (the entry was free: the batcher's one instance was);
// returns when its last item leaves.
Time ServerPools::pipeline_enter(Device& d, std::uint32_t bi, int items) {
  DeviceKindState& s = kinds_[d.kind];
  const Time now = ctx_.now;
  s.entering = bi;
  s.entry_free_at = now + items * s.interval;
  return now + (items - 1) * s.interval + s.latency;
}

// The next thing a pipeline does: its entry frees, or a request leaves.
void ServerPools::reschedule_pipeline(std::uint32_t di) {
  const Device& d = devices_[di];
  const DeviceKindState& s = kinds_[d.kind];
  Time next = s.entering != DeviceKindState::kNone ? s.entry_free_at : Time::never();
  for (const Exec& e : d.running) next = std::min(next, e.start + e.remaining);
  if (!next.is_never())
    ctx_.queue.push(std::max(ctx_.now, next), EventKind::ExecutionDone, di, d.stamp);
}

void ServerPools::on_pipeline_event(std::uint32_t di) {
  Device& d = devices_[di];
  DeviceKindState& s = kinds_[d.kind];
  const Time now = ctx_.now;
  std::uint32_t entry_freed = kNone;
  if (s.entering != DeviceKindState::kNone && s.entry_free_at - now <= kTimeEps) {
    entry_freed = s.entering;
    s.entering = DeviceKindState::kNone;
    batchers_[entry_freed].batcher.release_instance();
    // Busy is the entry taking items: the fraction of the pipeline's throughput in use.
    d.busy.set_busy(false, now);
    if (!whole_busy_.empty()) whole_busy_[di].set_busy(false, now);
  }
  for (std::size_t i = 0; i < d.running.size();) {
    if ((d.running[i].start + d.running[i].remaining) - now > kTimeEps) {
      ++i;
      continue;
    }
    Exec e = std::move(d.running[i]);
    d.running[i] = std::move(d.running.back());
    d.running.pop_back();
    finish_execution(di, e);
    e.batch.clear();
    spare_batches_.push_back(std::move(e.batch));
  }
  executions_changed(d);
  ++d.stamp;  // reschedule()'s first step (it is inline in server_pools.cpp)
  reschedule_pipeline(di);
  if (entry_freed != kNone) dispatch(entry_freed);
  if (d.state == State::Draining && !holds_work(di)) parts_.operations.stop_server(di, State::Off);
}

double ServerPools::expected_wait_kind(const Device& d, std::uint32_t di,
                                       std::uint32_t model) const {
  const DeviceKindState& s = kinds_[d.kind];
  const double queued = static_cast<double>(queued_on(di));
  const double per_request = d.requests_started > 0
                                 ? d.work_started / static_cast<double>(d.requests_started)
                                 : (s.pipeline ? s.interval : curve_of_[model][d.pool].at(1));
  if (s.pipeline) {
    // Each request ahead holds the entry for its items; then this one enters.
    const double entry = s.entering != DeviceKindState::kNone ? s.entry_free_at - ctx_.now : 0.0;
    return std::max(0.0, entry) + queued * per_request;
  }
  // Overlap: the work ahead drains at the device's throughput with the executions it runs.
  const std::size_t k = d.running.size();
  double left = 0.0;
  for (const Exec& e : d.running) left += e.remaining;
  if (k > 0) left = std::max(0.0, left - (ctx_.now - d.last_update) * s.throughput_at(k));
  return (left + queued * per_request) / s.throughput_at(std::max<std::size_t>(k, 1));
}

void ServerPools::executions_changed(Device& d) {
  DeviceKindState& s = kinds_[d.kind];
  s.executions.set(static_cast<double>(d.running.size()), ctx_.now);
  // Emptied (the last request left, or the server went away): nothing is entering either.
  if (d.running.empty()) {
    s.entering = DeviceKindState::kNone;
    s.entry_free_at = std::min(s.entry_free_at, ctx_.now);
  }
}

void ServerPools::finish_kinds() {
  for (const Device& d : devices_)
    if (d.kind != kNone)
      ctx_.metrics.pools[d.pool].mean_executions.push_back(
          kinds_[d.kind].executions.mean(ctx_.end));
}

}  // namespace sonicsim::engine
