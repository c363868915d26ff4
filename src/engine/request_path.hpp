// The way of a request between its client and its server, in front of the network: admission
// (a job must be connected), routing (the load-balancing policy picks a server that is up, or the
// balancer answers 503 at once), the load balancer as a server of its own (workers and a NIC that
// requests and responses queue for), and the way back once the server responds. routing.cpp
// holds the load-balancing policies; a new policy goes there.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <sonicsim/balancing/policies.hpp>
#include <sonicsim/util/rng.hpp>

#include "context.hpp"
#include "station.hpp"

namespace sonicsim::engine {

class Clients;
class Sites;
class NetworkPath;
class ServerPools;
class ServerHosts;
class AttachedDevices;
class SiteOperations;
class Accounting;

class RequestPath {
 public:
  // No server is up for the model: the balancer refuses the try.
  static constexpr std::uint32_t kNoDevice = UINT32_MAX;

  // The parts this one calls, and no others: the engine's dependency graph is the list of
  // these structs (parts.hpp wires them).
  struct Uses {
    Clients& clients;
    Sites& sites;
    NetworkPath& network;
    ServerPools& servers;
    ServerHosts& hosts;
    AttachedDevices& attached;
    SiteOperations& operations;
    Accounting& accounting;
  };

  RequestPath(Context& ctx, const Uses& uses);
  // After the server pools (routing tables per device).
  void build();

  // The client sends request r's next try (its first, or a retry).
  void send_try(std::uint32_t r);
  // Request r's message has crossed the network towards the servers.
  void delivered(std::uint32_t r);
  // The response (or the error) leaves the server with `bytes`.
  void respond(std::uint32_t r, double bytes);
  // EventKind::BalancerDone: r's message leaves stage `stage` of the load balancer.
  void on_balancer_done(std::uint32_t r, int stage);
  // Requests routed to device d whose response has not left it yet.
  std::uint32_t active(std::uint32_t d) const { return active_[d]; }
  // Job j lost its slot (preemption): a new slot connects anew.
  void disconnect(std::uint32_t j) {
    if (!connections_.empty()) connections_[j] = {};
  }

  // The end of the run: the load balancer's utilization.
  void finish();

 private:
  void at_server(std::uint32_t r);
  // Routing (routing.cpp): the site, then the load-balancing policy (include/sonicsim/balancing/)
  // through RoutingEnv, its view of the engine.
  class RoutingEnv;
  void build_policy();
  std::uint32_t route(std::uint32_t model, std::uint32_t thread);
  std::uint32_t route_retry(const Request& rq, std::uint32_t model);
  // The load balancer as a server: two stations in tandem (station.hpp), the worker threads
  // (per_message each) then the NIC (bytes / bandwidth). A stage with no cost is skipped. With
  // sites, each site with servers has its own.
  using BalancerStages = std::array<Station, 2>;
  double stage_cost(int stage, std::uint32_t r) const;
  void enter_balancer(std::uint32_t r, double bytes);
  void next_stage(std::uint32_t r, int stage);
  void leave_balancer(std::uint32_t r);
  // Admission.
  struct Connection {
    bool connected = false;
    Time retry_at;  // refused: no new attempt before
  };
  bool admitted(std::uint32_t job);

  Context& ctx_;
  Uses parts_;
  bool open_ = false;  // open loop: each arrival is a client of its own
  balancing::List::State policy_state_;
  Rng routing_rng_;
  Rng retry_rng_;  // the other server a later try goes to
  // Requests routed to each device whose response has not left it yet (what an Envoy in front of
  // the servers counts as active: least_request's measure).
  std::vector<std::uint32_t> active_;
  std::uint64_t arrivals_routed_ = 0;  // the client of an open-loop arrival, for client hashes
  // Per server site (one without sites): each site's servers have their own Envoy.
  std::vector<BalancerStages> lb_sites_;
  BalancerStages& balancer_of(std::uint32_t r) { return lb_sites_[server_site_of(r)]; }
  std::uint32_t server_site_of(std::uint32_t r) const;
  bool balancer_ = false;
  std::vector<Connection> connections_;  // per job, with load_balancer.admission
  double tokens_ = 0.0;
  Time tokens_at_;
};

}  // namespace sonicsim::engine
