// What a server is made of beyond its device's service-time curve (docs/servers.md): the device
// as hardware (`devices.NAME`: its memory, power, how executions overlap on it, or a pipeline
// in place of batches), the host machine the devices sit in (`servers[i].host`: its cores and
// how many devices share one Triton server), and the host CPU work each model's requests cost
// there (`models.M.host_cost`). A scenario without these keys runs exactly as before they
// existed: devices without limits, server-side overheads as pure delays.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <sonicsim/device_kinds/kinds.hpp>
#include <sonicsim/scenario/power.hpp>

namespace sonicsim::scenario {

// A device's kind (`devices.D.kind`) and its settings are a row of the device-kind table
// (include/sonicsim/device_kinds/: one header per kind); these are the types scenarios share.
using device_kinds::Overlap;
using device_kinds::PipelineTiming;

// Which of a device's figures the device catalogue (devices/catalogue.hpp) supplied because the
// scenario left them out; the results say so, since an energy resting on them rests on a
// datasheet's power limit and an estimated idle power, not on a measurement.
struct FromCatalogue {
  bool memory = false;
  bool power_idle = false;
  bool power_busy = false;
  bool idle_estimate = false;  // power_idle is the catalogue's estimate, not a published figure
  bool operator==(const FromCatalogue&) const = default;
};

// One entry of `devices`, keyed by the device name pools give in `servers[i].device`. The loader
// also adds one for every pool device the catalogue knows. A pool whose device has no entry has
// a device without memory limit or power draw.
struct DeviceSpec {
  std::string name;
  device_kinds::Settings kind;     // `kind` and its own keys; default: a gpu without overlap
  std::optional<PowerSpec> power;  // `power` (power.hpp); unset: the device draws nothing
  // Bytes of device memory (`memory`); unset: the models of its pools are not limited.
  std::optional<double> memory;
  // A MIG slice of another device (`slice`): `fraction` of its compute. A model without a
  // service time of its own for this device runs at that fraction of its speed on `of`.
  struct Slice {
    std::string of;
    double fraction = 1.0;
    bool operator==(const Slice&) const = default;
  };
  std::optional<Slice> slice;
  // The catalogue entry the device's name (or its `catalogue` key) resolved to; empty when the
  // catalogue does not know it or the scenario opted out (`"catalogue": false`).
  std::string catalogue;
  FromCatalogue from_catalogue;
  // A gpu's overlap curve, or null (processor sharing, or another kind).
  const Overlap* overlap() const {
    const auto* gpu = std::get_if<device_kinds::Gpu::Settings>(&kind);
    return gpu && gpu->overlap ? &*gpu->overlap : nullptr;
  }
  bool operator==(const DeviceSpec&) const = default;
};

// What one model holds in device memory (`models.M.memory`, docs/servers.md). Triton gives each
// instance of a model its own copy of the weights and its own working memory, sized for the
// largest batch that instance may execute (max_batch_size items), and keeps both for as long as
// the model is loaded: the peak, not the mean, is what must fit.
struct MemoryFootprint {
  double weights = 0.0;   // bytes per instance
  double per_item = 0.0;  // bytes of working memory per item of an execution's batch
  double bytes(int instances, int max_batch_size) const {
    return static_cast<double>(instances) * (weights + per_item * max_batch_size);
  }
  bool operator==(const MemoryFootprint&) const = default;
};

// Triton's --model-control-mode as a pool runs it. None: every model of the pool is loaded
// while a server is up (loading them is part of its start-up). Explicit: a server starts empty,
// a model loads at the first request that finds it unloaded, and the least recently used models
// that are idle unload when memory is short (load on demand, as a planner would drive Triton).
enum class ModelControl { None, Explicit };

// The machine a pool's devices sit in. `devices` of them share one host: one Triton server,
// whose scheduler keeps one queue per model that the instances on all its devices take batches
// from (an M/M/c-like pool), behind one server NIC (`network.server_nic` is per host). With
// `cores`, the host's CPU work (HostCost) queues on that many cores; without, it is not modelled.
struct ServerHost {
  std::optional<int> cores;
  int devices = 1;
  std::optional<PowerSpec> power;  // the host's draw besides its devices (power.hpp)
  bool operator==(const ServerHost&) const = default;
};

// Host CPU time of a model's requests on a server host with `cores` (seconds). The gRPC front
// end receives and deserialises each request and copies its inputs to the device before the
// batcher sees it (per_request + per_byte_in x input bytes); serialising the response comes after
// the execution (per_byte_out x output bytes); a Python or custom backend runs its own code for
// each execution on a host core before the device starts it (per_execution).
struct HostCost {
  double per_request = 0.0;
  double per_byte_in = 0.0;
  double per_byte_out = 0.0;
  double per_execution = 0.0;
  // The host work is part of the model's `request_overhead.server`, as perf_analyzer's
  // `Network+Server Send/Recv` column measures it (`in_server_overhead`, set by a calibration
  // file): where the host is modelled, a request's server overhead is shortened by its host work
  // (not below zero), so the time is counted once, as work on a core.
  bool in_server_overhead = false;
  double before_queue(double bytes_in) const { return per_request + per_byte_in * bytes_in; }
  double after_execution(double bytes_out) const { return per_byte_out * bytes_out; }
  // A request's host work outside its execution (in and out): what `in_server_overhead` takes
  // off the server overhead.
  double per_request_work(double bytes_in, double bytes_out) const {
    return before_queue(bytes_in) + after_execution(bytes_out);
  }
  bool is_zero() const {
    return per_request == 0.0 && per_byte_in == 0.0 && per_byte_out == 0.0 && per_execution == 0.0;
  }
  bool operator==(const HostCost&) const = default;
};

}  // namespace sonicsim::scenario
