// Device memory and model loading (docs/servers.md, "Device memory and model loading"): which
// models each device holds loaded, what loading them costs, and Triton's explicit model control.
//
// Without model control (`model_control` "none") every model of a pool is loaded while its
// server is up: a server that starts (scaled up, or back after a crash) loads them all before it
// serves, so its start-up takes `startup_delay` plus the sum of their `load_time`s. The servers
// up when the run begins have loaded them already.
//
// With explicit model control a device starts with nothing loaded. A request for a model that is
// not loaded waits in that model's queue (its queue time counting) while the model loads, for
// `load_time`. To make room, the least recently used models that hold no queued or running
// request unload first. If that is not enough, the load waits: the models it needs gone (least
// recently used first) are told to unload, serve the requests they held at that moment and start
// nothing newer, and go once their executions end; a request that arrives for them meanwhile waits
// for their next load. Loads wait in the order they were asked for. Each model fits the device
// alone (the loader checks), every model told to unload holds a finite amount of work, and no
// other load passes the first waiting one, so every waiting load starts within finite time: there
// is no deadlock, and nothing happens without the clock moving (each turn executes a batch).
//
// The load balancer does not know what is loaded (Envoy does not): routing is unchanged.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "context.hpp"
#include "server_pools.hpp"

namespace sonicsim::engine {

class ServerPools;
class SiteOperations;

class ModelMemory {
 public:
  using State = ServerPools::State;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    ServerPools& servers;
    SiteOperations& operations;
  };

  ModelMemory(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  // After the server pools: each device's models, loaded (no model control) or not (explicit).
  void build();

  // Whether model batcher `bi` may start an execution now (its dispatch asks before each batch):
  // its model is loaded and, if it was told to unload, still holds requests from before. A model
  // not loaded whose requests wait asks for its load here.
  bool may_start(std::uint32_t bi) { return !explicit_ || may_start_explicit(bi); }
  // After its dispatch: a model that has become idle may make room for a waiting load, and one
  // told to unload goes once its executions end.
  void after_dispatch(std::uint32_t bi) {
    if (explicit_) settle(bi);
  }
  // Seconds a server that starts spends loading its models before it serves (model control
  // "none": all of them; explicit: none, it loads on demand).
  double start_up_loading(std::uint32_t d) const;
  // The server's state changed (site operations): it has loaded its models (Starting -> Up), or
  // it went away with everything it held (Off, Down).
  void state_changed(std::uint32_t d, State from, State to);
  // A load planned by start_load has ended (`generation`: the load's, in the low bits the event
  // keeps, so that a load a stop cut short is recognised).
  void on_loaded(std::uint32_t bi, std::uint32_t generation);
  static constexpr std::uint32_t kGenerationMask = (1u << 20) - 1;

  // Bytes of the models device d holds loaded or loading now.
  double used(std::uint32_t d) const { return devices_[d].used; }

  void finish();

 private:
  enum class Status : std::uint8_t { Unloaded, Loading, Loaded };
  // One model on one device (by its batcher's index).
  struct Slot {
    std::uint32_t device = 0, model = 0;
    Status status = Status::Unloaded;
    bool closing = false;  // told to unload: serves `backlog` more requests, then goes
    bool waiting = false;  // in its device's queue of loads
    double bytes = 0.0;
    Time last_used;
    std::size_t backlog = 0, seen = 0;  // closing: requests still to serve; queued at last look
    std::uint32_t generation = 0;       // loads begun, modulo kGenerationMask + 1
  };
  struct DeviceMemory {
    bool explicit_control = false;
    double capacity = 0.0;  // bytes; infinite without devices.D.memory
    double used = 0.0;      // by models loaded and loading
    std::vector<std::uint32_t> slots;
    std::deque<std::uint32_t> waiting;  // loads asked for, first come first served
  };

  bool may_start_explicit(std::uint32_t bi);
  void settle(std::uint32_t bi);
  bool idle(std::uint32_t bi) const;
  void count_backlog(Slot& s, std::uint32_t bi);
  void ask_load(std::uint32_t bi);
  void try_loads(std::uint32_t d);
  void unload_idle(std::uint32_t d, double need);
  void close_for(std::uint32_t d, double need);
  std::vector<std::uint32_t> least_recent(std::uint32_t d, bool want_idle) const;
  void start_load(std::uint32_t bi);
  void unload(std::uint32_t bi);
  void use(std::uint32_t d, double bytes);
  void count_load(std::uint32_t pool, double seconds);

  Context& ctx_;
  Uses parts_;
  bool explicit_ = false;    // some pool has explicit model control
  std::vector<Slot> slots_;  // by batcher index
  std::vector<DeviceMemory> devices_;
  std::vector<double> peak_;  // per pool: the most memory a device held at once, whole run
};

}  // namespace sonicsim::engine
