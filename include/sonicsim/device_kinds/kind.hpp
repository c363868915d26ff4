// What a device kind is made of, for the kinds of this folder (kinds.hpp lists them). A kind is
// one struct holding everything about it:
//   name        its value of `devices.D.kind`;
//   meaning     one line for messages and the schema's description;
//   keys        its own keys of `devices.D` beside `kind` (with their meaning), which the loader
//               reads through `read` and refuses by name on a device of another kind; the
//               schema test holds docs/scenario.schema.json to them;
//   timing      how a model is timed on it (`models.M.service_time.D`): a batch curve, or a
//               pipeline's {latency, interval | throughput} (`timing_keys`, read by read_timing);
//   sliceable   whether a MIG slice (`devices.D.slice`) may be of it;
//   Settings    what the scenario keeps of it (scenario::DeviceSpec::kind);
//   read, check_pool   the loader's hooks: its keys, and the limits on a pool of it (see Reader);
//   executes, execution   the engine's and the formulas' hook: which of the engine's execution
//               models the device runs (Execution below), and its parameters from its settings;
//   note        what the formulas' notes say about a pool of it (empty: nothing).
// The engine (src/engine/device_kinds.cpp) and the formulas (src/analytic/device_kinds.cpp) see
// only the Execution, never a kind's name: a new kind that executes as processor sharing with a
// throughput curve, or as a pipeline, is one header and one row of the table. A kind that needs
// another execution model adds it there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sonicsim::device_kinds {

// How much work a device does per second with k executions running at once (`devices.D.overlap`),
// relative to one execution alone: Triton's instances of a model (or of several models) overlap
// on one GPU, so k of them finish more than one execution's work per second, but less than k.
// The points are (executions, throughput); linear between them, flat beyond the last. The loader
// guarantees executions[0] = 1 with throughput 1, strictly increasing integer executions,
// non-decreasing throughput and non-increasing throughput(k)/k (never superlinear).
struct Overlap {
  std::vector<double> executions, throughput;
  double at(double k) const {  // throughput(k), k >= 1
    if (executions.empty() || k <= executions.front())
      return throughput.empty() ? 1.0 : throughput.front();
    if (k >= executions.back()) return throughput.back();
    const auto upper = std::upper_bound(executions.begin(), executions.end(), k);
    const std::size_t i = static_cast<std::size_t>(upper - executions.begin());
    const double t = (k - executions[i - 1]) / (executions[i] - executions[i - 1]);
    return throughput[i - 1] + t * (throughput[i] - throughput[i - 1]);
  }
  bool operator==(const Overlap&) const = default;
};

// A model's timing on a pipeline device (`models.M.service_time.D` = {"latency", "interval"} or
// {"latency", "throughput"}): items enter one per `interval` seconds, each leaves `latency`
// after it entered; a request of n items streams them in n consecutive slots and completes when
// its last item leaves, latency + (n - 1) x interval after its first entered. The loader also
// records that time as the model's curve for the device (source "pipeline"), so that the formulas
// and every tool that reads a curve see a request's time on an empty pipeline.
struct PipelineTiming {
  double latency = 0.0;   // seconds, > 0
  double interval = 0.0;  // seconds, > 0 (the initiation interval, II = 1 / throughput)
  bool operator==(const PipelineTiming&) const = default;
};

// How a model is timed on a kind of device.
enum class Timing {
  BatchCurve,  // {"batch": [...], "seconds": [...]} (or a calibration file, or "*")
  Pipeline,    // PipelineTiming: {"latency", "interval" | "throughput"}
};

// A key of `devices.D` that belongs to one kind.
struct KeyDoc {
  std::string_view name, meaning;
};

// How a device executes, in the engine's terms (and the formulas'): one of the execution models
// the engine implements.
struct Execution {
  enum class Model {
    // The executions running share the device: with k of them, each does throughput[k] / k of
    // one execution's work per second. An empty `throughput` is plain processor sharing
    // (throughput 1 at every k), which the engine runs without any per-device state.
    Sharing,
    // One item enters per `interval`, each leaves `latency` after it entered; a request's items
    // enter back to back and the entry is held by one request at a time (one instance, no
    // dynamic batching).
    Pipeline,
  };
  Model model = Model::Sharing;
  std::vector<double> throughput;        // Sharing: [k] for k = 0..most ([0] = [1] = 1)
  double latency = 0.0, interval = 0.0;  // Pipeline
  bool plain() const { return model == Model::Sharing && throughput.empty(); }
  bool operator==(const Execution&) const = default;
};

// What the engine and the formulas know of a pool when they ask a kind for its Execution.
struct PoolFacts {
  int most_executions = 1;  // the instances of its models, at least 1
  // The timing of the pool's first model on its device, when the kind times models its own way.
  const PipelineTiming* timing = nullptr;
};

// What the loader knows of a pool when a kind checks the limits on it (check_pool).
struct PoolShape {
  std::string path;  // `servers[i]`
  std::string device;
  std::size_t models = 0;
  int devices_per_host = 1;
};

// The loader's side of a kind's hooks (src/scenario/device_kind_reader.hpp, a template parameter
// of read, read_timing and check_pool); each reading files its own problem with its JSON path:
//   const Json* find(const Json& object, std::string_view key)
//   bool object(const Json& v, const std::string& path, std::string_view expected)
//   void keys(const Json& v, const std::string& path, {allowed...}, {elsewhere...}, message)
//   std::optional<std::int64_t> integer(const Json&, path, lo, hi, what)
//   std::optional<double> positive(const Json&, path, what)   a plain number > 0
//   std::optional<double> time(const Json&, path)             a time > 0 of at least one tick
//   std::optional<double> rate(const Json&, path)             a rate > 0 whose period is >= a tick
//   void lead()                        the last reading stands for the model's curve
//   void problem(const std::string& path, std::string message)
//   void missing(const std::string& path, std::string expected)
//   std::string key(path, key), index(path, i), found(const Json&), number(double)
//   std::size_t max_instances()

}  // namespace sonicsim::device_kinds
