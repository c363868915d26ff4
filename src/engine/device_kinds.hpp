// How a device executes when it is more than processor sharing (docs/servers.md, docs/model.md):
// concurrent executions that overlap (`devices.D.overlap`: k executions finish throughput(k)
// executions' worth of work per second, shared equally), and pipelines (`devices.D.kind`
// "pipeline", an FPGA such as Brainwave: one item enters per interval, each leaves `latency`
// later). The server pools keep their batchers, queues and accounting; this is the state such a
// device adds and the arithmetic on it. Devices without either run exactly as before: they have
// no slot here and the pools never consult it.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace sonicsim::engine {

// The time average of a count (executions running, requests in a pipeline) over the measured
// period [from, to]: the device's mean concurrency.
class CountAverage {
 public:
  CountAverage(Time from, Time to) : from_(from), to_(to) {}
  void set(double count, Time now) {
    area_ += count_ * overlap(since_, now);
    count_ = count;
    since_ = now;
  }
  double mean(Time end) const {
    const double span = std::min(end, to_) - from_;
    return span > 0.0 ? (area_ + count_ * overlap(since_, end)) / span : 0.0;
  }

 private:
  double overlap(Time a, Time b) const {
    return std::max(0.0, std::min(b, to_) - std::max(a, from_));
  }
  Time from_, to_;
  Time since_;
  double count_ = 0.0, area_ = 0.0;
};

struct DeviceKindState {
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  explicit DeviceKindState(Time from, Time to) : executions(from, to) {}

  bool pipeline = false;
  // Overlap: each execution's speed with k running, throughput(k) / k (index k; [0] unused).
  std::vector<double> speed;
  // Pipeline: the one model it serves, its timing, and the request whose items are entering
  // (it holds the batcher's only instance until its last item has entered).
  double latency = 0.0, interval = 0.0;
  Time entry_free_at;
  std::uint32_t entering = kNone;  // batcher, kNone when the entry is free
  CountAverage executions;         // executions running (pipeline: requests inside)

  double speed_at(std::size_t k) const { return k < speed.size() ? speed[k] : speed.back(); }
  double throughput_at(std::size_t k) const {
    return speed_at(k) * static_cast<double>(k == 0 ? 1 : k);
  }
};

}  // namespace sonicsim::engine
