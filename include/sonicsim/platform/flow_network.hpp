// The one thin layer over SimGrid: hosts, links and transfers that share bandwidth through
// SimGrid's flow-level model (CM02, latencies literal, no TCP window bound).
//
// No SimGrid actor runs here. SimGrid owns the clock: a kernel timer wakes the event core at its
// next event time, transfers are started from those wake-ups, and a transfer's completion is
// handed back to the core at the exact time SimGrid computed. The hosts, links and routes (one
// site or several, with the WAN between them) are built by platform_build.cpp.
#pragma once

#include <cstdint>
#include <memory>

#include <sonicsim/engine/transport.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::platform {

class FlowNetwork final : public engine::Transport {
 public:
  // One per process: SimGrid allows a single engine, and a second one keeps the first's clock.
  // Arrivals are reported to `sink`; drive() wakes `core` at its event times.
  FlowNetwork(const scenario::Scenario& s, engine::TransferSink& sink, engine::EventCore& core);
  ~FlowNetwork() override;
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  void send(double now, std::uint32_t client_node, std::uint32_t device, engine::Direction dir,
            double bytes, std::uint32_t token) override;

  // Runs the simulation to its end with SimGrid owning the clock; transfers still in flight at
  // the end are cancelled (the core counts their requests as in flight).
  void drive(double end);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sonicsim::platform
