// GPUs inside the client nodes (a pool's `attached`, docs/sites.md): each node of the workload
// holds one device of the pool, which its threads use without the network, the load balancer or
// the site routing. A request goes elsewhere only when its device is not up, or is past the
// pool's spill-over thresholds; then it takes the request path like any other.
#pragma once

#include <cstdint>
#include <vector>

#include "context.hpp"

namespace sonicsim::engine {

class Clients;
class RequestPath;
class ServerPools;

class AttachedDevices {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Clients& clients;
    RequestPath& path;
    ServerPools& servers;
  };

  AttachedDevices(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}
  // After the clients and the server pools.
  void build();

  bool any() const { return !attached_.empty(); }
  bool is_attached(std::uint32_t d) const { return !attached_.empty() && attached_[d]; }
  // The device of `thread`'s node that serves this try of `model`, or kNone: none there, or it
  // is not up, or (`thresholds`) it is past its spill-over thresholds.
  std::uint32_t local_choice(std::uint32_t model, std::uint32_t thread, bool thresholds) const;

 private:
  Context& ctx_;
  Uses parts_;
  std::vector<std::uint8_t> attached_;             // by device
  std::vector<std::vector<std::uint32_t>> local_;  // [model][client node] -> device or kNone
};

}  // namespace sonicsim::engine
