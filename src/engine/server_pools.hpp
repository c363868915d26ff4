// The servers: each pool's devices, one Triton batcher per model a device hosts, and the
// executions running on each device. A request arrives from the network (or the load balancer),
// waits in its model's batcher, executes in a batch and its response leaves through the request
// path. Concurrent executions on a device share it (processor sharing), which is how model
// instances contend for one GPU, unless the device overlaps them or is a pipeline
// (device_kinds.cpp). A new device behaviour (how long a batch takes, how executions share a
// device) goes here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <sonicsim/engine/batcher.hpp>
#include <sonicsim/metrics/histogram.hpp>
#include <sonicsim/util/large_array.hpp>
#include <sonicsim/util/numbers.hpp>
#include <sonicsim/util/rng.hpp>

#include "context.hpp"
#include "device_kinds.hpp"

namespace sonicsim::engine {

class Sites;
class RequestPath;
class ServerHosts;
class ModelMemory;
class SiteOperations;
class Sampling;
class Accounting;

// Puts device d into a list of devices in increasing order, or takes it out: a memmove of the
// list's tail, not a pass over every device.
inline void set_in_device_order(std::vector<std::uint32_t>& list, std::uint32_t d, bool in) {
  const auto it = std::lower_bound(list.begin(), list.end(), d);
  const bool there = it != list.end() && *it == d;
  if (in && !there) list.insert(it, d);
  if (!in && there) list.erase(it);
}

class ServerPools {
 public:
  // The states site operations move a server through: Off (not a replica), Starting (pod start +
  // model load), Up, Draining (takes no new requests, finishes those it holds), Down (crashed).
  enum class State : std::uint8_t { Off, Starting, Up, Draining, Down };
  struct Exec {
    double remaining;  // seconds of work at full device speed
    Time start;
    std::uint32_t batcher;
    int items;
    std::vector<Batcher::Queued> batch;
  };
  // A device's record: read on every request and execution, so its fields sit in the padding
  // of one another (192 bytes; a field added elsewhere costs the large sites a cache line).
  struct Device {
    std::uint32_t pool;
    // Its slot in kinds_ when it overlaps executions or is a pipeline (device_kinds.hpp).
    std::uint32_t kind = kNone;
    Rng rng;
    std::vector<Exec> running;  // processor sharing among them
    Time last_update;
    std::uint32_t stamp = 0;
    std::uint32_t turn = 0;  // the server's device that wins the next tie (least_busy_device)
    metrics::BusyTime busy;
    std::vector<std::uint32_t> batcher_of_model;  // by model index, kNone if not hosted
    State state = State::Up;
    // Several devices behind one Triton server (`host.devices` k > 1, at most
    // Limits::max_devices_per_host): they share the batchers of the first of them, which stands
    // for the server in routing, the network and operations.
    std::uint16_t per_host = 1;
    std::uint32_t epoch = 0;  // changes with every state change but Starting -> Up
    Time started_at;
    // Work of the executions started and the requests they carried: the mean execution time
    // per request that expected_wait charges each queued request.
    double work_started = 0.0;
    std::uint64_t requests_started = 0;
  };
  // Triton's cumulative counters of a pool, which the autoscaler's metric reads.
  struct Counters {
    double queue_seconds = 0.0, executions = 0.0;
  };
  static constexpr std::uint32_t kNone = UINT32_MAX;
  // A device's epoch wraps within what an operation's event stamp holds beside the operation's
  // kind (site_operations.hpp, kOpBits).
  static constexpr std::uint32_t kEpochMask = EventQueue::kStampMask >> 4;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Sites& sites;
    RequestPath& path;
    ServerHosts& hosts;
    ModelMemory& memory;
    SiteOperations& operations;
    Sampling& sampling;
    Accounting& accounting;
  };

  ServerPools(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  void build();

  std::uint32_t device_count() const { return static_cast<std::uint32_t>(devices_.size()); }
  // A device's pool and its batcher for a model, from small arrays: routing a request reads
  // them without the device's record (at 10,000 devices, rarely in cache).
  std::uint32_t pool_of(std::uint32_t d) const { return pool_of_[d]; }
  std::uint32_t batcher_for(std::uint32_t d, std::uint32_t model) const {
    return batcher_table_[static_cast<std::size_t>(d) * models_ + model];
  }
  // Read-only: a device's state changes only here (change_state), when site operations ask.
  const Device& device(std::uint32_t d) const { return devices_[d]; }
  // The devices that host a model, and those of them up: routing's choice.
  const std::vector<std::uint32_t>& hosts(std::uint32_t model) const { return hosts_[model]; }
  const std::vector<std::uint32_t>& up_hosts(std::uint32_t model) const { return up_hosts_[model]; }
  void rebuild_up_hosts();
  // Server states (site_operations.hpp decides when they change). An autoscaled pool's devices
  // beyond its initial replicas begin the run off, before any list of devices up is built.
  void begin_off(std::uint32_t d) { devices_[d].state = State::Off; }
  // Moves device d to `next` and returns the state it left. The epoch moves on with every change
  // but Starting -> Up (the start-up event that makes it up is the one planned in its epoch);
  // Starting stamps started_at; the lists of devices up follow.
  State change_state(std::uint32_t d, State next);
  const Counters& counters(std::uint32_t pool) const { return counters_[pool]; }
  // Each model's scheduler on each device, by index (Device::batcher_of_model).
  std::uint32_t batcher_count() const { return static_cast<std::uint32_t>(batchers_.size()); }
  const Batcher& batcher(std::uint32_t bi) const { return batchers_[bi].batcher; }
  // Requests waiting in the device's queues, all models.
  std::size_t queued_on(std::uint32_t d) const;
  // A new request's expected wait at device d: the work left in its executions, plus each
  // request queued ahead at the device's mean execution time per request so far (before any
  // execution: `model`'s service time at batch 1).
  double expected_wait(std::uint32_t d, std::uint32_t model) const;
  [[gnu::cold]] double shared_expected_wait(std::uint32_t server, std::uint32_t model) const;
  // Up or draining: a Triton server whose metrics endpoint Prometheus would scrape.
  bool serving(std::uint32_t d) const {
    return devices_[d].state == State::Up || devices_[d].state == State::Draining;
  }
  // Executing, queued, or in its host's hands (server_hosts.hpp).
  bool holds_work(std::uint32_t d) const;
  // Busy clocks over the whole run, warm-up included (for the autoscaler and the time series).
  void track_busy_over_whole_run();
  double busy_seconds_whole_run(std::uint32_t d) const {
    return whole_busy_[d].busy_seconds(ctx_.now);
  }

  // Prefetches of the records an event will read (Simulation::Impl::prefetch).
  void prefetch_device(std::uint32_t d) const { prefetch_lines(&devices_[d]); }
  void prefetch_batcher(std::uint32_t bi) const { prefetch_lines(&batchers_[bi]); }
  void prefetch_arrival(std::uint32_t d, std::uint32_t bi) const {
    prefetch_device(d);
    prefetch_batcher(bi);
  }
  // A batcher's wake usually starts an execution on its device; an execution's end gives its
  // instance back to the batcher of the device's first model (with one model, the one it ran)
  // and forms the next batch there. Both found from small arrays, without another miss.
  void prefetch_wake(std::uint32_t bi) const {
    prefetch_batcher(bi);
    prefetch_device(device_of_batcher_[bi]);
  }
  void prefetch_execution_end(std::uint32_t d) const {
    prefetch_device(d);
    const std::uint32_t bi = batcher_table_[static_cast<std::size_t>(d) * models_];
    if (bi != kNone) prefetch_batcher(bi);
  }

  // Request r's message has reached its server.
  void arrive(std::uint32_t r);
  // The try fails; the error travels back to the client.
  void reject(std::uint32_t r, Rejection why);
  void on_batcher_wake(std::uint32_t bi);
  void on_execution_done(std::uint32_t di, std::uint32_t stamp);
  // An execution formed on device di starts running there (after its host's backend work).
  void run_on_device(std::uint32_t di, Exec&& e);
  // An execution that never reached its device (its server went away) gives its batch back.
  void release_pending(Exec& e);
  std::uint32_t model_of_batcher(std::uint32_t bi) const { return batchers_[bi].model; }
  // The server goes away: everything it queued and executed, appended to `lost`.
  void drop_all(std::uint32_t d, std::vector<Batcher::Queued>& lost);

  // The end of the run: each device's utilization.
  void finish();

 private:
  template <class T>
  static void prefetch_lines(const T* p) {
    const char* c = reinterpret_cast<const char*>(p);
    for (std::size_t off = 0; off < sizeof(T); off += 64) __builtin_prefetch(c + off);
  }
  // Device d came up or went down: its entries in the lists of those up, kept in device order
  // (the order a rebuild gives, so routing's choices are the same). A whole pool of 155,000
  // devices crashing at once rebuilt every list at each crash: 281 s for 155,000 events.
  void set_up(std::uint32_t d, bool up);
  void place(std::uint32_t di, Exec&& e);
  void end_execution(std::uint32_t di, const Exec& e);
  struct BatcherState {
    Batcher batcher;
    std::uint32_t model, device;
    Time wake_at = Time::never();
  };
  // Mean execution time by integer batch size, tabulated: executions are the hot path.
  struct CurveTable {
    const scenario::ServiceCurve* curve = nullptr;
    std::vector<double> by_batch;
    double at(int items) const {
      return static_cast<std::size_t>(items) < by_batch.size() ? by_batch[items] : curve->at(items);
    }
  };

  void add_batcher(Device& dev, std::uint32_t d, int mi, int devices);
  // The device of a server that takes the next execution: the one running the fewest.
  [[gnu::cold]] std::uint32_t least_busy_device(std::uint32_t server);
  void dispatch(std::uint32_t bi);
  void update_progress(Device& d);
  void reschedule(std::uint32_t di);
  void start_execution(std::uint32_t bi, int items);
  void finish_execution(std::uint32_t di, const Exec& e);

  // device_kinds.cpp: overlap and pipelines, for the devices that have a slot in kinds_. The
  // parts only such devices (and multi-device servers) reach are marked cold: kept out of the
  // hot path that every other run takes, so that it stays small enough to be inlined.
  void build_kinds();
  bool pipelined(std::uint32_t pool) const;
  int instances_on(std::uint32_t pool, std::uint32_t model) const;
  // Seconds of full-speed work k executions do in `elapsed` (overlap), 0 for a pipeline.
  [[gnu::cold]] double progress(const Device& d, double elapsed) const;
  // Seconds one unit of work takes with the executions running now.
  [[gnu::cold]] double stretch(const Device& d) const;
  [[gnu::cold]] Time pipeline_enter(Device& d, std::uint32_t bi, int items);
  [[gnu::cold]] void reschedule_pipeline(std::uint32_t di);
  [[gnu::cold]] void on_pipeline_event(std::uint32_t di);
  [[gnu::cold]] double expected_wait_kind(const Device& d, std::uint32_t di,
                                          std::uint32_t model) const;
  [[gnu::cold]] void executions_changed(Device& d);
  void finish_kinds();

  Context& ctx_;
  Uses parts_;
  LargeVector<Device> devices_;               // huge pages: read at random (large_array.hpp)
  std::vector<std::uint32_t> pool_of_;        // per device
  std::vector<std::uint32_t> batcher_table_;  // [device * models_ + model]: batcher_of_model
  std::size_t models_ = 0;
  LargeVector<BatcherState> batchers_;
  std::vector<std::uint32_t> device_of_batcher_;  // BatcherState::device, for prefetch_wake
  bool load_on_demand_ = false;  // some pool has explicit model control (model_memory.hpp)
  std::vector<std::vector<std::uint32_t>> hosts_;     // devices per model
  std::vector<std::vector<std::uint32_t>> up_hosts_;  // those up, per model
  std::vector<Counters> counters_;                    // per pool
  std::vector<metrics::BusyTime> whole_busy_;         // per device, when tracked
  std::vector<scenario::Distribution> spreads_;       // per model, mean 1
  std::vector<std::vector<CurveTable>> curve_of_;     // [model][pool]
  std::vector<Batcher::Queued> scratch_;
  std::vector<Batcher::Queued> rejected_scratch_;
  std::vector<std::uint32_t> freed_scratch_;
  std::vector<std::vector<Batcher::Queued>> spare_batches_;
  std::vector<DeviceKindState> kinds_;
};

}  // namespace sonicsim::engine
