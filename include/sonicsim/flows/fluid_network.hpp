// sonicsim's own flow transport: transfers that share links as SimGrid's CM02 flows share them
// (max-min, weighted by route latency; latencies literal, no TCP window bound, no cross
// traffic), solved exactly by max_min.hpp and driven by a plain loop, without SimGrid.
//
// A transfer first spends its route's latency, then joins the sharing of every link direction
// it crosses until its bytes are through. The loop alternates between the event core and the
// network: the core processes everything strictly before the network's next event (a latency
// paid, a transfer through, a link degraded); when the core starts a transfer, it stops before
// that transfer's first event. At equal times the network goes first.
#pragma once

#include <cstdint>
#include <memory>

#include <sonicsim/engine/transport.hpp>
#include <sonicsim/flows/max_min.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::flows {

class FluidNetwork final : public engine::Transport {
 public:
  FluidNetwork(const scenario::Scenario& s, engine::TransferSink& sink, engine::EventCore& core);
  ~FluidNetwork() override;
  FluidNetwork(const FluidNetwork&) = delete;
  FluidNetwork& operator=(const FluidNetwork&) = delete;

  void send(double now, std::uint32_t client_node, std::uint32_t device, engine::Direction dir,
            double bytes, std::uint32_t token) override;

  // Runs the simulation to `end`; transfers still under way then are left (the core counts
  // their requests as in flight).
  void drive(double end);

  const MaxMinFlows::Counters& counters() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sonicsim::flows
