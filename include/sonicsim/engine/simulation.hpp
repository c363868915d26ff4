// The event core: client threads, requests, batchers and server pools as plain C++ event
// handling. It knows nothing of SimGrid: the network is a Transport, and whoever owns the clock
// (a plain loop, or SimGrid's engine when flows are modelled) calls process_through(). What a run
// measured is in run_metrics.hpp; the engine's parts are private to src/engine/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/engine/batcher.hpp>
#include <sonicsim/engine/event_queue.hpp>
#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/engine/transport.hpp>
#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/rng.hpp>

namespace sonicsim::engine {

// A look at a running simulation (simulated time now, events processed so far), for a progress
// display: the loop calls it every kWatchEvents events, so it costs the loop one counter and
// the display decides itself how often to draw.
using Watch = std::function<void(double now, std::int64_t events)>;
inline constexpr std::int64_t kWatchEvents = 1 << 16;

class Simulation final : public TransferSink, public EventCore {
 public:
  explicit Simulation(const scenario::Scenario& s);
  ~Simulation() override;
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Which directions go through `t`; the others (and all, with nullptr, the default) take
  // latency + bytes / narrowest bandwidth, computed here. Links are full duplex, so the two
  // directions never load each other.
  void set_transport(Transport* t, bool to_servers, bool to_clients);

  double next_time() const override;
  void process_through(double until) override;  // every event at or before `until` and the end
  void hold_at(double t) override;
  // The last instant whose double of seconds is at or before t (the platform's double clock).
  static Time platform_instant(double t);
  void set_trace(const TraceSettings& t);  // before the run
  void set_watch(Watch w);                 // before the run; none by default
  void run();                              // the plain loop: process everything up to the end
  double events_processed() const;         // so far
  RunMetrics finish();                     // closes the books at the end time

  void on_transfer_done(std::uint32_t token, double now) override;
  void on_delivered(std::uint32_t token, double from, double to, double bytes) override;
  std::vector<std::pair<double, double>> delivery_grids() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sonicsim::engine
