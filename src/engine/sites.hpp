// Sites as the engine sees them (the scenario's `sites`, docs/sites.md): the site of every client
// node and server device, and the choice of the site that serves a try, made before the
// load-balancing policy picks a server there. A scenario without sites is one site: then `several`
// is false and the request path never asks.
#pragma once

#include <cstdint>
#include <vector>

#include <sonicsim/util/rng.hpp>

#include "context.hpp"

namespace sonicsim::engine {

class RequestPath;
class ServerPools;

class Sites {
 public:
  static constexpr std::uint32_t kNoSite = UINT32_MAX;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    RequestPath& path;
    ServerPools& servers;
  };

  Sites(Context& ctx, const Uses& uses);
  // After the clients and the server pools.
  void build();

  bool several() const { return several_; }
  std::uint32_t count() const { return count_; }
  std::uint32_t of_node(std::uint32_t node) const { return several_ ? node_site_[node] : 0; }
  std::uint32_t of_device(std::uint32_t d) const { return several_ ? device_site_[d] : 0; }
  // Client nodes and server devices at each site.
  std::uint32_t nodes_at(std::uint32_t site) const { return nodes_at_[site]; }
  std::uint32_t devices_at(std::uint32_t site) const { return devices_at_[site]; }
  // Triton servers at the site: one server NIC each.
  std::uint32_t servers_at(std::uint32_t site) const { return servers_at_[site]; }

  // The site that serves a try of `model` sent by a thread of workload `w` on client node `node`,
  // by the workload's routing, or kNoSite when no site it may choose has a server of the model up.
  std::uint32_t choose(std::uint32_t model, const scenario::Workload& w, std::uint32_t node);
  // The servers of `model` up at `site`: the load-balancing policy's choice there.
  const std::vector<std::uint32_t>& up_hosts(std::uint32_t model, std::uint32_t site) const {
    return up_hosts_[model][site];
  }
  // After servers changed state (ServerPools::rebuild_up_hosts), or one did (set_up).
  void rebuild_up_hosts();
  void set_up(std::uint32_t d, bool up);

  // Round-trip network latency between two sites, client NIC to server NIC, as the scenario
  // gives it (no queueing): what least_latency and local_first's spill-over compare.
  double round_trip(std::uint32_t from, std::uint32_t to) const { return rtt_[from][to]; }
  // A new request's expected wait for the servers of `model` at `site` (see sites.cpp), and the
  // requests those servers hold per device up.
  double expected_queue_time(std::uint32_t model, std::uint32_t site) const;
  double in_flight_per_device(std::uint32_t model, std::uint32_t site) const;

 private:
  std::uint32_t least_latency(std::uint32_t model, std::uint32_t from,
                              const scenario::SiteRouting& r, bool with_queue) const;
  std::uint32_t weighted(std::uint32_t model, std::uint32_t from, const scenario::SiteRouting& r);
  bool too_busy(std::uint32_t model, std::uint32_t site, const scenario::SiteRouting& r) const;

  Context& ctx_;
  Uses parts_;
  bool several_ = false;
  std::uint32_t count_ = 1;
  std::vector<std::uint32_t> node_site_, device_site_;
  std::vector<std::uint32_t> nodes_at_, devices_at_, servers_at_;
  std::vector<std::vector<double>> rtt_;
  // [model][site]: the devices that host the model there, and those of them up.
  std::vector<std::vector<std::vector<std::uint32_t>>> hosts_, up_hosts_;
  Rng rng_;
};

}  // namespace sonicsim::engine
