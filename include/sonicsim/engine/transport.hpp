// What the engine needs of the network: move bytes between a client node and a server device
// and say when they have arrived. Two implementations: the analytic path (latency + size over
// the narrowest bandwidth, computed in the engine) and SimGrid's flow model (platform/).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace sonicsim::engine {

enum class Direction : std::uint8_t { ToServer, ToClient };

class TransferSink {
 public:
  virtual ~TransferSink() = default;
  // A transfer started with `token` has fully arrived at simulated time `now`.
  virtual void on_transfer_done(std::uint32_t token, double now) = 0;
  // `bytes` of the transfer `token` passed its links evenly between `from` and `to` (reported
  // before its on_transfer_done; links count what they carried from these).
  virtual void on_delivered(std::uint32_t /*token*/, double /*from*/, double /*to*/,
                            double /*bytes*/) {}
  // The windows links count bytes in, as (origin, length) grids: a transport may report a
  // transfer's bytes over any span within one window of every grid and the counts stay exact.
  // Empty: report them at every change of rate.
  virtual std::vector<std::pair<double, double>> delivery_grids() const { return {}; }
};

// Whatever owns the events: the platform wakes it at its next event time and lets it process
// everything due by then (SimGrid owns the clock when flows are modelled).
class EventCore {
 public:
  virtual ~EventCore() = default;
  virtual double next_time() const = 0;  // +inf when nothing is left before the end
  virtual void process_through(double until) = 0;
  // Called while processing: stop after the events at time `t` (a flow must start then, and
  // SimGrid's clock has to catch up first).
  virtual void hold_at(double t) = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(double now, std::uint32_t client_node, std::uint32_t device, Direction dir,
                    double bytes, std::uint32_t token) = 0;
};

}  // namespace sonicsim::engine
