// Sites and the WAN between them (`sites`, `wan`, `routing`; docs/sites.md): where client jobs
// and server pools are, which links a request crosses between them, and how a client chooses
// the site that serves it.
//
// A scenario without `sites` is one site whose clients reach their servers over `network`
// (client NIC -> site uplink -> WAN -> server NIC), exactly as before sites existed. With
// `sites`, each site has its own client NICs, uplink and server NICs; a request that stays in its
// site crosses client NIC -> server NIC, one that leaves it crosses client NIC -> its site's
// uplink -> the WAN links of the route -> the server site's uplink -> server NIC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <sonicsim/scenario/link_class.hpp>

namespace sonicsim::scenario {

struct Site {
  std::string name;
  std::optional<LinkSpec> client_nic, site_uplink, server_nic;
  // Cost of a gigabyte (1e9 bytes) that leaves the site over the WAN (cloud egress), in the
  // planner's own currency; unset: not priced.
  std::optional<double> egress_price_per_gb;

  // A link class of the site, empty when it has none (and always for LinkClass::Wan: the WAN
  // between sites is `Wan`).
  const std::optional<LinkSpec>& link(LinkClass c) const {
    static const std::optional<LinkSpec> none;
    switch (c) {
      case LinkClass::ClientNic:
        return client_nic;
      case LinkClass::SiteUplink:
        return site_uplink;
      case LinkClass::ServerNic:
        return server_nic;
      case LinkClass::Wan:
        break;
    }
    return none;
  }
  bool operator==(const Site&) const = default;
};

// A WAN link joins two points of the WAN: sites (indices 0..sites-1) or routers, the transit
// points of a backbone that hold no jobs and no servers (indices sites..sites+routers-1).
struct WanLink {
  std::string name;
  std::size_t a = 0, b = 0;
  LinkSpec spec;
  bool operator==(const WanLink&) const = default;
};

struct Wan {
  std::vector<std::string> routers;
  std::vector<WanLink> links;
  bool operator==(const Wan&) const = default;
};

// One WAN link of a route, and which way the route crosses it: forward is from its point `a`
// to its point `b` (the link's "up" direction in the flow models).
struct WanHop {
  std::size_t link = 0;
  bool forward = true;
  bool operator==(const WanHop&) const = default;
};

// The WAN part of the path from one site to another, walked once here (derive_routes): every
// model of the network crosses the links in this order and direction.
struct Route {
  bool exists = false;       // false: the WAN does not connect them
  std::vector<WanHop> hops;  // in order from the client's site
  std::vector<std::size_t> links() const {
    std::vector<std::size_t> out;
    for (const WanHop& h : hops) out.push_back(h.link);
    return out;
  }
  double latency = 0.0;                                        // one way, the WAN links only
  double bandwidth = std::numeric_limits<double>::infinity();  // narrowest WAN link
  bool operator==(const Route&) const = default;
};

// routes[from][to] for every pair of sites: the path of least latency; on equal latency the one
// with fewer links, then the one whose link numbers come first. A site's route to itself is
// empty. Routes are symmetric (WAN links carry both directions).
std::vector<std::vector<Route>> derive_routes(std::size_t sites, const Wan& wan);

// One way from a client node at site `from` to a server device at site `to`, as the scenario
// gives it: the sum of the latencies and the narrowest bandwidth of client NIC, (between sites)
// both uplinks and the WAN route, server NIC. Needs `sites` and their routes.
struct PathFigures {
  double latency = 0.0;
  double bandwidth = std::numeric_limits<double>::infinity();
};
struct Scenario;
PathFigures path_between(const Scenario& s, std::size_t from, std::size_t to);

// How a client chooses the site that serves a request, among the sites with servers of its
// model that its site has a route to (`routing`, or a workload's own `routing`).
struct SiteRouting {
  enum class Policy {
    // Its own site's servers while they are not too busy (the spill-over thresholds), then the
    // other sites by least latency; without local servers, the site of least network latency.
    LocalFirst,
    // The site whose network latency plus expected queue time is least.
    LeastLatency,
    // Sites in proportion to `weights` (a site absent from the weights gets none).
    Weighted,
    // Always `pinned` (the scenario refuses a workload whose model it does not host).
    Pinned,
  };
  Policy policy = Policy::LocalFirst;
  // local_first spills over when the local servers' expected queue time would be above
  // `spill_queue_time`, or when the requests they hold are more than `spill_in_flight` per
  // device; neither given: it never spills while a local server is up.
  std::optional<double> spill_queue_time;
  std::optional<double> spill_in_flight;
  std::vector<double> weights;  // weighted: one per site
  std::size_t pinned = 0;       // pinned: the site
  bool operator==(const SiteRouting&) const = default;
};

// Where a workload's jobs are: one site, or several by share of its client nodes.
struct SiteShare {
  std::size_t site = 0;
  double share = 1.0;  // in (0, 1]; a workload's shares add up to 1
  bool operator==(const SiteShare&) const = default;
};

// How many of `nodes` client nodes each site gets for these shares: the largest-remainder
// apportionment (every node placed, each site within one node of its share; ties go to the
// site listed first). Nodes are placed in site order: the first counts[0] at shares[0].site, ...
std::vector<std::int64_t> apportion_nodes(std::int64_t nodes, const std::vector<SiteShare>& shares);

// The site of every client node (nodes numbered through the workloads in order, each workload's
// nodes in its sites' order as apportioned) and of every server device (pool by pool, `count`
// devices each). The engine and the flow platform number them alike.
std::vector<std::uint32_t> client_node_sites(const Scenario& s);
std::vector<std::uint32_t> device_sites(const Scenario& s);
// Where `r` sends a request of `model` from site `from` at light load (every queue empty), a
// share per site: pinned, its site; weighted, the hosting sites by weight; local_first, `from`
// when it hosts the model; else (and least_latency) the nearest hosting site, ties to the site
// listed first, as the engine chooses. Pools attached to client nodes are not hosts here.
std::vector<double> light_load_shares(const Scenario& s, const SiteRouting& r, std::size_t from,
                                      const std::string& model);
// The number of workload `workload`'s first client node.
std::size_t first_node_of(const Scenario& s, std::size_t workload);

}  // namespace sonicsim::scenario
