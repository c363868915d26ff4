// The network between the clients and the servers as the engine sees it: when a message sent now
// arrives, and how many bytes each link carried. A direction that goes through a Transport
// (SimGrid's flows, platform/) is timed there; the others take latency + bytes over the narrowest
// bandwidth, slowed by link degradations and held by outages (faults.links), computed here. Each
// direction's request overhead (serialization, gRPC) follows its transfer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/engine/run_metrics.hpp>
#include <sonicsim/engine/transport.hpp>
#include <sonicsim/scenario/scenario.hpp>
#include <sonicsim/util/large_array.hpp>
#include <sonicsim/util/numbers.hpp>

namespace sonicsim::engine {

struct Context;
class Clients;
class Sites;
class ServerHosts;
class AttachedDevices;
class Sampling;

class NetworkPath {
 public:
  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Clients& clients;
    Sites& sites;
    ServerHosts& hosts;
    AttachedDevices& attached;
    Sampling& sampling;
  };

  NetworkPath(Context& ctx, const Uses& uses) : ctx_(ctx), parts_(uses) {}

  // After the server pools: the server NICs are one link per device.
  void build(std::size_t devices);
  // Which directions go through `t` (nullptr: none).
  void set_transport(Transport* t, bool to_servers, bool to_clients);

  // Request r's message leaves in direction `dir`; its TransferDone follows when it has arrived
  // (with the transport: when the transport says so, see Simulation::on_transfer_done).
  void send(std::uint32_t r, Direction dir, double bytes);
  // The transport's word that `bytes` of r's current message passed between `from` and `to`.
  void delivered(std::uint32_t r, double from, double to, double bytes);
  // Prefetches the byte counter of a client node's NIC (Simulation::Impl::prefetch).
  void prefetch_client_nic(std::uint32_t node, Direction d) const {
    const auto& bytes = client_nic_bytes_[d == Direction::ToServer ? 0 : 1];
    if (node < bytes.size()) __builtin_prefetch(&bytes[node]);
  }
  // The request overhead of r's current direction, paid after its transfer.
  double overhead_after_transfer(std::uint32_t r);
  // Fixed latency of the path, one way (one site).
  double latency() const { return path_latency_; }
  // How long the answer "no server" takes to come back to `thread`'s client: a round trip to
  // the load balancer, at the servers' end of the path (with sites: of its own site's path).
  double refusal_round_trip(std::uint32_t thread) const;

  // The end of the run: the busiest single NIC of each per-node or per-device link class.
  void finish();

 private:
  // With several sites (network_sites.cpp): the path of each (client site, server site) pair.
  struct SiteRoute {
    double latency = 0.0, bandwidth = kInf;  // one way; the narrowest link
    // The links between sites it crosses towards the server: (metrics slot, the link's
    // direction then: 0 forward, 1 backward). The way back is the same, reversed.
    std::vector<std::pair<int, int>> shared;
    // With link faults on any link it crosses: its narrowest bandwidth over time.
    std::vector<std::pair<double, double>> bandwidth_steps;
  };
  // The one way a link joins the run's metrics (one site or several): its slot.
  int add_link(std::string name, const scenario::LinkSpec& spec, int count,
               std::vector<std::pair<double, double>> factors);
  void build_sites(std::size_t devices);
  void degrade_routes();
  void send_between_sites(std::uint32_t r, Direction dir, double bytes, std::uint32_t node);
  // Bytes offered (counted when sent) and carried (counted as they pass, from `from` to `to`),
  // with several sites.
  void offer_sites(std::uint32_t node, std::uint32_t device, const SiteRoute& route, Direction d,
                   double bytes);
  void carry_sites(std::uint32_t node, std::uint32_t device, const SiteRoute& route, Direction d,
                   double from, double to, double bytes);
  const SiteRoute& route_of(std::uint32_t node, std::uint32_t device) const;
  void finish_sites();

  // The same on one site's path.
  void offer(Direction d, double bytes);
  void carry(std::uint32_t node, std::uint32_t device, Direction d, double from, double to,
             double bytes);
  // Into link `slot`'s carried bytes, physical direction `direction`: `bytes` over [from, to]
  // for the time series, `counted` of them (the share after warm-up) for the run's figures.
  void carry_on(int slot, int direction, double from, double to, double bytes, double counted);
  void offer_on(int slot, int direction, double bytes, double since);
  double degraded_transfer_end(double bytes,
                               const std::vector<std::pair<double, double>>& steps) const;

  Context& ctx_;
  Uses parts_;
  Transport* transport_ = nullptr;
  bool flow_dir_[2] = {false, false};  // [ToServer, ToClient]
  double path_latency_ = 0.0, path_bandwidth_ = kInf;
  // With link degradations: the path's narrowest bandwidth over time, (from, bytes/s) steps.
  std::vector<std::pair<double, double>> bandwidth_steps_;
  // index_of(link class) -> index in RunMetrics::links, -1 if absent
  std::array<int, scenario::kLinkClasses.size()> link_slot_ = {-1, -1, -1, -1};
  // The same slots without the absent ones, and the windows they all count bytes in (add_link
  // gives every link of a run the same): a transfer's share of each window is worked out once
  // for the whole path.
  std::array<int, scenario::kLinkClasses.size()> path_slots_ = {};
  int path_links_ = 0;
  double window_ = 1.0;
  std::size_t windows_ = 0;
  LargeVector<double> client_nic_bytes_[2], server_nic_bytes_[2];  // per link and direction
  std::vector<scenario::Distribution> overhead_spreads_;           // per model, mean 1
  // Several sites: routes [from * sites + to]; the NIC classes' slots per site (-1: absent).
  bool several_ = false;
  std::vector<SiteRoute> site_routes_;
  std::vector<int> client_nic_slot_, server_nic_slot_;
};

}  // namespace sonicsim::engine
