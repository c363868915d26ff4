// The SimGrid platform of a scenario: a host per client node and per server device, a
// split-duplex link per link of the scenario, and the routes between them. The flow network
// (flow_network.cpp) only starts transfers on it.
//
// One site: a star zone; a client reaches the centre through its NIC, the site uplink and the
// WAN, a device through its NIC. Several sites (docs/sites.md): a star zone per site, whose
// clients and devices meet through their NICs alone, inside a full zone whose routes between
// sites cross the client site's uplink, the WAN links of the derived route (each in the
// direction it is walked) and the server site's uplink.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include <sonicsim/scenario/scenario.hpp>

namespace sonicsim::platform {

struct BuiltPlatform {
  std::vector<simgrid::s4u::Host*> clients, devices;  // by client node, by device
  // Sites (one without `sites`), and each host's site.
  std::uint32_t sites = 1;
  std::vector<std::uint32_t> client_site, device_site;
  // Per (client site, server site), [from * sites + to]: the path's one-way latency and its
  // narrowest bandwidth, the run-ahead bound of a flow between them.
  std::vector<double> latency, bandwidth;
  // Links that faults degrade: each group shares its bandwidth and factor steps over time.
  struct Degradable {
    std::vector<simgrid::s4u::SplitDuplexLink*> links;
    double bandwidth = 0.0;
    std::vector<std::pair<double, double>> factors;  // Faults::link_factors
  };
  std::vector<Degradable> degradable;

  double bound_latency(std::uint32_t node, std::uint32_t device) const {
    return latency[client_site[node] * sites + device_site[device]];
  }
  double bound_bandwidth(std::uint32_t node, std::uint32_t device) const {
    return bandwidth[client_site[node] * sites + device_site[device]];
  }
};

// Builds it inside SimGrid's engine (which must exist) and seals it.
BuiltPlatform build_platform(const scenario::Scenario& s);

}  // namespace sonicsim::platform
