// The network path with several sites (scenario `sites`, docs/sites.md): each request takes the
// route between its client's site and its server's site. Within a site: client NIC -> server
// NIC. Between sites: client NIC -> the client site's uplink -> the WAN links of the route ->
// the server site's uplink -> server NIC. Transfers take latency + bytes over the narrowest
// bandwidth of their route, as on one site; the links count the bytes in each direction.
#include <algorithm>
#include <cmath>

#include "attached_devices.hpp"
#include "clients.hpp"
#include "link_windows.hpp"
#include "network_path.hpp"
#include "sampling.hpp"
#include "server_hosts.hpp"
#include "sites.hpp"

namespace sonicsim::engine {

void NetworkPath::build_sites(std::size_t devices) {
  several_ = true;
  const auto& sc = ctx_.sc;
  auto& metrics = ctx_.metrics;
  const auto& sites = parts_.sites;
  const std::uint32_t n = sites.count();
  // A site's link that exists and has users: a slot in the run's links (none: -1).
  auto add = [&](std::string name, const std::optional<scenario::LinkSpec>& spec, int count,
                 std::vector<std::pair<double, double>> factors) {
    return !spec || count == 0 ? -1 : add_link(std::move(name), *spec, count, std::move(factors));
  };
  using scenario::LinkClass;
  std::vector<int> uplink_slot(n, -1);
  client_nic_slot_.assign(n, -1);
  server_nic_slot_.assign(n, -1);
  // Each site's links in path order, then the WAN's: "SITE/client_nic", ..., "wan/NAME".
  for (std::uint32_t s = 0; s < n; ++s) {
    const auto& site = sc.sites[s];
    const std::string prefix = site.name + "/";
    const auto factors = [&](LinkClass c) {
      return sc.faults.site_link_factors(static_cast<int>(s), c);
    };
    client_nic_slot_[s] =
        add(prefix + scenario::link_class_name(LinkClass::ClientNic), site.client_nic,
            static_cast<int>(sites.nodes_at(s)), factors(LinkClass::ClientNic));
    uplink_slot[s] = add(prefix + scenario::link_class_name(LinkClass::SiteUplink),
                         site.site_uplink, 1, factors(LinkClass::SiteUplink));
    server_nic_slot_[s] =
        add(prefix + scenario::link_class_name(LinkClass::ServerNic), site.server_nic,
            static_cast<int>(sites.servers_at(s)), factors(LinkClass::ServerNic));
  }
  std::vector<int> wan_slot;
  for (std::size_t w = 0; w < sc.wan.links.size(); ++w)
    wan_slot.push_back(add("wan/" + sc.wan.links[w].name,
                           std::optional<scenario::LinkSpec>(sc.wan.links[w].spec), 1,
                           sc.faults.wan_link_factors(static_cast<int>(w))));

  site_routes_.assign(static_cast<std::size_t>(n) * n, {});
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) {
      SiteRoute& route = site_routes_[a * n + b];
      const scenario::PathFigures path = scenario::path_between(sc, a, b);
      route.latency = path.latency;
      route.bandwidth = path.bandwidth;
      if (a == b) continue;
      if (uplink_slot[a] >= 0) route.shared.push_back({uplink_slot[a], 0});  // leaves a
      for (const auto& h : sc.routes[a][b].hops)
        route.shared.push_back({wan_slot[h.link], h.forward ? 0 : 1});
      if (uplink_slot[b] >= 0) route.shared.push_back({uplink_slot[b], 1});  // enters b
    }
  if (!sc.faults.links.empty()) degrade_routes();
  metrics.egress_bytes.assign(n, std::vector<double>(n, 0.0));
  for (int dir = 0; dir < 2; ++dir) {
    client_nic_bytes_[dir].assign(sc.client_nodes(), 0.0);
    server_nic_bytes_[dir].assign(devices, 0.0);
  }
}

// Each route's narrowest bandwidth over time, from the degradations of the links it crosses.
void NetworkPath::degrade_routes() {
  using scenario::LinkClass;
  const auto& sc = ctx_.sc;
  const auto n = static_cast<std::uint32_t>(sc.sites.size());
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) {
      std::vector<scenario::DegradedLink> links;
      auto cross = [&](std::uint32_t site, LinkClass c) {
        if (const auto& spec = sc.sites[site].link(c))
          links.push_back(
              {spec->bandwidth, sc.faults.site_link_factors(static_cast<int>(site), c)});
      };
      cross(a, LinkClass::ClientNic);
      cross(b, LinkClass::ServerNic);
      if (a != b) {
        cross(a, LinkClass::SiteUplink);
        cross(b, LinkClass::SiteUplink);
        for (const auto& h : sc.routes[a][b].hops)
          links.push_back({sc.wan.links[h.link].spec.bandwidth,
                           sc.faults.wan_link_factors(static_cast<int>(h.link))});
      }
      site_routes_[a * n + b].bandwidth_steps = scenario::narrowest_bandwidth_steps(links);
    }
}

const NetworkPath::SiteRoute& NetworkPath::route_of(std::uint32_t node,
                                                    std::uint32_t device) const {
  const auto& sites = parts_.sites;
  return site_routes_[sites.of_node(node) * sites.count() + sites.of_device(device)];
}

// What the links of the route are offered (counted when sent).
void NetworkPath::offer_sites(std::uint32_t node, std::uint32_t device, const SiteRoute& route,
                              Direction d, double bytes) {
  if (bytes <= 0.0 || ctx_.now < ctx_.warmup) return;
  const int dir = d == Direction::ToServer ? 0 : 1;
  const double since = ctx_.now - ctx_.warmup;
  // NICs: their directions are the payload's (out of the client node is towards the servers).
  for (int slot : {client_nic_slot_[parts_.sites.of_node(node)],
                   server_nic_slot_[parts_.sites.of_device(device)]})
    if (slot >= 0) offer_on(slot, dir, bytes, since);
  for (const auto& [slot, forward] : route.shared)
    offer_on(slot, dir == 0 ? forward : 1 - forward, bytes, since);
}

void NetworkPath::carry_sites(std::uint32_t node, std::uint32_t device, const SiteRoute& route,
                              Direction d, double from, double to, double bytes) {
  if (bytes <= 0.0) return;
  const int dir = d == Direction::ToServer ? 0 : 1;
  auto& links = ctx_.metrics.links;
  // The share after warm-up, which every link of the route counts; the WAN egress it is charged
  // is what left its site, as the links count it.
  const double counted = bytes * share_within(from, to, ctx_.warmup_s, ctx_.end_s);
  for (int slot : {client_nic_slot_[parts_.sites.of_node(node)],
                   server_nic_slot_[parts_.sites.of_device(device)]}) {
    if (slot < 0) continue;
    carry_on(slot, dir, from, to, bytes, counted);
    links[slot].payload[dir] += counted;
  }
  for (const auto& [slot, forward] : route.shared) {
    carry_on(slot, dir == 0 ? forward : 1 - forward, from, to, bytes, counted);
    links[slot].payload[dir] += counted;
  }
  if (counted <= 0.0) return;
  client_nic_bytes_[dir][node] += counted;
  server_nic_bytes_[dir][device] += counted;
  const std::uint32_t at = parts_.sites.of_node(node), serving = parts_.sites.of_device(device);
  if (at != serving) {
    auto& egress = ctx_.metrics.egress_bytes;
    (dir == 0 ? egress[at][serving] : egress[serving][at]) += counted;
  }
}

void NetworkPath::send_between_sites(std::uint32_t r, Direction dir, double bytes,
                                     std::uint32_t node) {
  const Request& rq = ctx_.requests[r];
  const SiteRoute& route = route_of(node, rq.device);
  offer_sites(node, rq.device, route, dir, bytes);
  // A route that crosses no link (a site with neither NICs nor a WAN between the two) has
  // nothing to share: SimGrid would find no path for it.
  if (flow_dir_[dir == Direction::ToServer ? 0 : 1] && route.bandwidth < kInf)
    return transport_->send(ctx_.now.seconds(), node, rq.device, dir, bytes, r);
  const double transfer = bytes > 0.0 ? bytes / route.bandwidth : 0.0;
  const double through = route.bandwidth_steps.empty()
                             ? ctx_.now.seconds() + transfer
                             : degraded_transfer_end(bytes, route.bandwidth_steps);
  carry_sites(node, rq.device, route, dir, ctx_.now.seconds(), through, bytes);
  const Time t = route.bandwidth_steps.empty() ? ctx_.now + (route.latency + transfer)
                                               : Time::from_seconds(through) + route.latency;
  ctx_.queue.push(t + overhead_after_transfer(r), EventKind::TransferDone, r);
}

void NetworkPath::finish_sites() {
  auto& links = ctx_.metrics.links;
  const auto& sites = parts_.sites;
  // The busiest single NIC of each site's NIC classes.
  for (std::uint32_t node = 0; node < client_nic_bytes_[0].size(); ++node) {
    const int slot = client_nic_slot_[sites.of_node(node)];
    if (slot >= 0)
      links[slot].busiest_bytes = std::max(
          {links[slot].busiest_bytes, client_nic_bytes_[0][node], client_nic_bytes_[1][node]});
  }
  for (std::uint32_t d = 0; d < server_nic_bytes_[0].size(); ++d) {
    const int slot = server_nic_slot_[sites.of_device(d)];
    if (slot >= 0)
      links[slot].busiest_bytes =
          std::max({links[slot].busiest_bytes, server_nic_bytes_[0][d], server_nic_bytes_[1][d]});
  }
  for (auto& l : links)
    if (l.count == 1) l.busiest_bytes = std::max(l.bytes[0], l.bytes[1]);
}

}  // namespace sonicsim::engine
