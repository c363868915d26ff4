// The links of a scenario as the flow model sees them, and the route of each transfer: the same
// platform that platform/platform_build.cpp builds for SimGrid, without SimGrid.
//
// Every link is full duplex: a constraint per direction (2 x link + 0 towards the centre, + 1
// away from it, SimGrid's UP and DOWN). One site: a client node reaches the servers through its
// NIC, the site uplink and the WAN, a device through its NIC. Several sites: a request within its
// site crosses the two NICs; one between sites crosses client NIC, the client site's uplink, the
// WAN links of the derived route (each in the direction it is walked), the server site's
// uplink and the server NIC. A response takes the reverse site route as SimGrid derives it.
//
// A transfer's sharing weight is SimGrid's CM02 sharing penalty: its route's latency (1 when
// that is 0), so that flows with a longer round trip get less of a shared link, as TCP flows do.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <sonicsim/engine/transport.hpp>
#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::flows {

class Topology {
 public:
  explicit Topology(const scenario::Scenario& s);

  std::size_t constraints() const { return bandwidth_.size(); }
  double bandwidth(std::uint32_t constraint) const { return bandwidth_[constraint]; }

  // The constraints a transfer crosses (appended to `out`, cleared first) and its one-way
  // latency.
  double route(std::uint32_t node, std::uint32_t device, engine::Direction dir,
               std::vector<std::uint32_t>& out) const;
  // Its one-way latency alone.
  double latency(std::uint32_t node, std::uint32_t device, engine::Direction dir) const;

  // Sets of constraints that no route joins: the flows of one never share a link with those of
  // another (with one site, requests and responses), so each is solved alone.
  std::size_t components() const { return components_; }
  std::uint32_t component(std::uint32_t constraint) const { return component_[constraint]; }

  // Links that faults degrade together: their constraints, nominal bandwidth and factor steps
  // (Faults::link_factors: (time, factor), the first at time 0).
  struct Degradable {
    std::vector<std::uint32_t> constraints;
    double bandwidth = 0.0;
    std::vector<std::pair<double, double>> factors;
  };
  const std::vector<Degradable>& degradable() const { return degradable_; }

 private:
  std::int32_t add_link(const scenario::LinkSpec& spec);
  void several_sites(const scenario::Scenario& s);
  void one_site(const scenario::Scenario& s);
  // The part of the route between the two NICs, walked from site `from` to site `to`.
  void find_components();
  // What a transfer crosses: the NIC it leaves by, the path between the NICs (an index in
  // path_), the NIC it arrives by (-1: none).
  struct Ends {
    std::int32_t from, to;
    std::size_t path;
  };
  Ends ends(std::uint32_t node, std::uint32_t device, engine::Direction dir) const;
  // The path from the clients of site `client` to the devices of site `device` (to_server) or
  // back; with one site, 0 up and 1 down.
  std::size_t path_of(std::uint32_t client, std::uint32_t device, bool to_server) const {
    if (!several_) return to_server ? 0 : 1;
    return to_server ? client * sites_ + device : device * sites_ + client;
  }
  double nic_latency(std::int32_t link) const { return link >= 0 ? link_latency_[link] : 0.0; }

  std::vector<double> bandwidth_;                    // by constraint
  std::vector<double> link_latency_;                 // by link
  std::vector<std::int32_t> node_nic_, device_nic_;  // link index, -1 without
  std::vector<std::uint32_t> node_site_, device_site_;
  std::uint32_t sites_ = 1;
  bool several_ = false;  // `sites` given (even one): routes by pair of sites
  // [from * sites + to]: the constraints of the path between two sites' NICs and its latency.
  std::vector<std::vector<std::uint32_t>> path_;
  std::vector<double> path_latency_;
  std::vector<Degradable> degradable_;
  std::vector<std::uint32_t> component_;  // by constraint
  std::size_t components_ = 0;
};

}  // namespace sonicsim::flows
