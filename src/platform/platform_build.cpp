#include "platform_build.hpp"

#include <string>

#include <sonicsim/scenario/sites.hpp>

namespace sonicsim::platform {

namespace sg4 = simgrid::s4u;
using Dir = sg4::LinkInRoute::Direction;
using scenario::LinkClass;

namespace {

// SimGrid's link names are the results' names, with "-<node>" or "-<device>" for the NICs.
sg4::SplitDuplexLink* make_link(sg4::NetZone* zone, const std::string& name,
                                const scenario::LinkSpec& spec) {
  auto* link = zone->create_split_duplex_link(name, spec.bandwidth);
  link->set_latency(spec.latency)->seal();
  return link;
}

// A host whose route to its zone's centre crosses `links` (towards the centre: UP).
sg4::Host* make_host(sg4::NetZone* zone, const std::string& name,
                     const std::vector<sg4::SplitDuplexLink*>& links) {
  auto* host = zone->create_host(name, 1e9)->seal();
  std::vector<sg4::LinkInRoute> route;
  for (auto* l : links) route.emplace_back(l, Dir::UP);
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, route, true);
  return host;
}

BuiltPlatform one_site(const scenario::Scenario& s) {
  BuiltPlatform p;
  auto* zone = sg4::create_star_zone("site");
  const auto& net = s.network;
  p.latency = {net.path_latency()};
  p.bandwidth = {net.path_bandwidth()};
  std::vector<BuiltPlatform::Degradable> by_class(scenario::kLinkClasses.size());
  for (LinkClass c : scenario::kLinkClasses)
    if (const auto& spec = net.link(c)) {
      by_class[scenario::index_of(c)].bandwidth = spec->bandwidth;
      by_class[scenario::index_of(c)].factors = s.faults.link_factors(c);
    }
  auto link = [&](LinkClass c, const std::string& suffix = {}) -> sg4::SplitDuplexLink* {
    const auto& spec = net.link(c);
    if (!spec) return nullptr;
    auto* l = make_link(zone, scenario::link_class_name(c) + suffix, *spec);
    by_class[scenario::index_of(c)].links.push_back(l);
    return l;
  };
  auto* uplink = link(LinkClass::SiteUplink);
  auto* wan = link(LinkClass::Wan);
  const auto nodes = static_cast<std::size_t>(s.client_nodes());
  for (std::size_t i = 0; i < nodes; ++i) {
    const std::string id = std::to_string(i);
    std::vector<sg4::SplitDuplexLink*> route;
    if (auto* nic = link(LinkClass::ClientNic, "-" + id)) route.push_back(nic);
    if (uplink) route.push_back(uplink);
    if (wan) route.push_back(wan);
    p.clients.push_back(make_host(zone, "client-" + id, route));
  }
  for (const auto& pool : s.servers)
    for (int c = 0; c < pool.count; ++c) {
      const std::string id = std::to_string(p.devices.size());
      std::vector<sg4::SplitDuplexLink*> route;
      if (auto* nic = link(LinkClass::ServerNic, "-" + id)) route.push_back(nic);
      p.devices.push_back(make_host(zone, "device-" + id, route));
    }
  zone->seal();
  p.client_site.assign(p.clients.size(), 0);
  p.device_site.assign(p.devices.size(), 0);
  for (auto& d : by_class)
    if (!d.links.empty()) p.degradable.push_back(std::move(d));
  return p;
}

BuiltPlatform several_sites(const scenario::Scenario& s) {
  BuiltPlatform p;
  const auto n = static_cast<std::uint32_t>(s.sites.size());
  p.sites = n;
  p.client_site = scenario::client_node_sites(s);
  p.device_site = scenario::device_sites(s);
  auto* top = sg4::create_full_zone("sites");
  std::vector<sg4::NetZone*> zones;
  std::vector<simgrid::kernel::routing::NetPoint*> gateways;
  std::vector<sg4::SplitDuplexLink*> uplinks(n, nullptr);
  // [site][class]: the site's NICs of a class, and its uplink, degraded together.
  std::vector<std::vector<BuiltPlatform::Degradable>> site_links(n);
  for (std::uint32_t a = 0; a < n; ++a) {
    const auto& site = s.sites[a];
    auto* zone = sg4::create_star_zone(site.name);
    zone->set_parent(top);
    site_links[a].resize(scenario::kLinkClasses.size());
    for (LinkClass c : scenario::kLinkClasses)
      if (const auto& spec = site.link(c)) {
        auto& d = site_links[a][scenario::index_of(c)];
        d.bandwidth = spec->bandwidth;
        d.factors = s.faults.site_link_factors(static_cast<int>(a), c);
      }
    if (site.site_uplink) {
      uplinks[a] = make_link(zone, site.name + "/site_uplink", *site.site_uplink);
      site_links[a][scenario::index_of(LinkClass::SiteUplink)].links.push_back(uplinks[a]);
    }
    // The gateway: where the site's uplink starts, reached from every host through its NIC.
    auto* gateway = zone->create_router(site.name + "-gateway");
    zone->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
    zones.push_back(zone);
    gateways.push_back(gateway);
  }
  auto host = [&](std::uint32_t site, LinkClass nic, const std::string& kind, std::size_t index) {
    const std::string id = std::to_string(index);
    std::vector<sg4::SplitDuplexLink*> route;
    if (const auto& spec = s.sites[site].link(nic)) {
      auto* l = make_link(
          zones[site], s.sites[site].name + "/" + scenario::link_class_name(nic) + "-" + id, *spec);
      site_links[site][scenario::index_of(nic)].links.push_back(l);
      route.push_back(l);
    }
    return make_host(zones[site], kind + "-" + id, route);
  };
  for (std::size_t i = 0; i < p.client_site.size(); ++i)
    p.clients.push_back(host(p.client_site[i], LinkClass::ClientNic, "client", i));
  for (std::size_t d = 0; d < p.device_site.size(); ++d)
    p.devices.push_back(host(p.device_site[d], LinkClass::ServerNic, "device", d));
  for (auto* zone : zones) zone->seal();

  std::vector<sg4::SplitDuplexLink*> wan;
  for (std::size_t l = 0; l < s.wan.links.size(); ++l) {
    const auto& link = s.wan.links[l];
    wan.push_back(make_link(top, "wan/" + link.name, link.spec));
    p.degradable.push_back(
        {{wan.back()}, link.spec.bandwidth, s.faults.wan_link_factors(static_cast<int>(l))});
  }
  // Each ordered pair of sites: out of a's uplink, the WAN links as the route walks them (a link
  // is UP from its first end `a` to its second), into b's uplink.
  p.latency.assign(static_cast<std::size_t>(n) * n, 0.0);
  p.bandwidth = p.latency;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) {
      const auto figures = scenario::path_between(s, a, b);
      p.latency[a * n + b] = figures.latency;
      p.bandwidth[a * n + b] = figures.bandwidth;
      if (a == b) continue;
      std::vector<sg4::LinkInRoute> route;
      if (uplinks[a]) route.emplace_back(uplinks[a], Dir::UP);
      for (const auto& h : s.routes[a][b].hops)
        route.emplace_back(wan[h.link], h.forward ? Dir::UP : Dir::DOWN);
      if (uplinks[b]) route.emplace_back(uplinks[b], Dir::DOWN);
      top->add_route(zones[a]->get_netpoint(), zones[b]->get_netpoint(), gateways[a], gateways[b],
                     route, false);
    }
  top->seal();
  for (auto& classes : site_links)
    for (auto& d : classes)
      if (!d.links.empty()) p.degradable.push_back(std::move(d));
  return p;
}

}  // namespace

BuiltPlatform build_platform(const scenario::Scenario& s) {
  return s.sites.empty() ? one_site(s) : several_sites(s);
}

}  // namespace sonicsim::platform
