#include <sonicsim/flows/topology.hpp>
#include <sonicsim/scenario/sites.hpp>

#include <array>
#include <numeric>

namespace sonicsim::flows {

using scenario::LinkClass;

namespace {
constexpr std::uint32_t up(std::int32_t link) {
  return 2 * static_cast<std::uint32_t>(link);
}
constexpr std::uint32_t down(std::int32_t link) {
  return up(link) + 1;
}
}  // namespace

Topology::Topology(const scenario::Scenario& s) {
  if (s.sites.empty()) {
    one_site(s);
  } else {
    several_sites(s);
  }
  find_components();
}

// Union-find over every route a transfer can take: per site, all its client NICs in one
// direction and all its device NICs in one direction are joined (more than needed when a site
// serves no one: that only merges, it never separates flows that meet), then each pair of
// sites joins its clients' side, the path between them and its devices' side.
void Topology::find_components() {
  std::vector<std::uint32_t> parent(bandwidth_.size());
  std::iota(parent.begin(), parent.end(), 0U);
  const auto find = [&](std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const auto join = [&](std::int64_t a, std::int64_t b) {
    if (a < 0 || b < 0) return;
    parent[find(static_cast<std::uint32_t>(a))] = find(static_cast<std::uint32_t>(b));
  };
  // [site][0: up, 1: down]: one constraint standing for the site's NICs of that direction.
  const std::uint32_t n = several_ ? sites_ : 1;
  std::vector<std::array<std::int64_t, 2>> client(n, {-1, -1}), device(n, {-1, -1});
  const auto gather = [&](const std::vector<std::int32_t>& nics,
                          const std::vector<std::uint32_t>& site,
                          std::vector<std::array<std::int64_t, 2>>& rep) {
    for (std::size_t i = 0; i < nics.size(); ++i) {
      if (nics[i] < 0) continue;
      const std::uint32_t at = several_ ? site[i] : 0;
      for (int d = 0; d < 2; ++d) {
        const std::int64_t c = d == 0 ? up(nics[i]) : down(nics[i]);
        if (rep[at][d] < 0) rep[at][d] = c;
        join(c, rep[at][d]);
      }
    }
  };
  gather(node_nic_, node_site_, client);
  gather(device_nic_, device_site_, device);
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b)
      for (bool to_server : {true, false}) {
        // Requests leave the client's NIC (up) for the device's (down); responses the reverse.
        const std::int64_t from = to_server ? client[a][0] : device[b][0];
        const std::int64_t to = to_server ? device[b][1] : client[a][1];
        std::int64_t last = from;
        for (std::uint32_t c : path_[path_of(a, b, to_server)]) {
          join(c, last);
          last = c;
        }
        join(to, last);
      }
  component_.assign(bandwidth_.size(), 0);
  std::vector<std::int64_t> number(bandwidth_.size(), -1);
  for (std::uint32_t c = 0; c < bandwidth_.size(); ++c) {
    const std::uint32_t root = find(c);
    if (number[root] < 0) number[root] = static_cast<std::int64_t>(components_++);
    component_[c] = static_cast<std::uint32_t>(number[root]);
  }
}

std::int32_t Topology::add_link(const scenario::LinkSpec& spec) {
  link_latency_.push_back(spec.latency);
  bandwidth_.push_back(spec.bandwidth);  // up
  bandwidth_.push_back(spec.bandwidth);  // down
  return static_cast<std::int32_t>(link_latency_.size() - 1);
}

void Topology::one_site(const scenario::Scenario& s) {
  const auto& net = s.network;
  std::vector<Degradable> by_class(scenario::kLinkClasses.size());
  auto link = [&](LinkClass c) -> std::int32_t {
    const auto& spec = net.link(c);
    if (!spec) return -1;
    const std::int32_t l = add_link(*spec);
    auto& group = by_class[scenario::index_of(c)];
    group.bandwidth = spec->bandwidth;
    group.factors = s.faults.link_factors(c);
    group.constraints.push_back(up(l));
    group.constraints.push_back(down(l));
    return l;
  };
  // Towards the servers a request climbs the uplink and the WAN (UP); a response comes down.
  path_.resize(2);
  path_latency_.assign(2, 0.0);
  for (LinkClass c : {LinkClass::SiteUplink, LinkClass::Wan})
    if (const std::int32_t l = link(c); l >= 0) {
      path_[0].push_back(up(l));
      path_[1].push_back(down(l));
      path_latency_[0] += link_latency_[l];
      path_latency_[1] += link_latency_[l];
    }
  const auto nodes = static_cast<std::size_t>(s.client_nodes());
  for (std::size_t i = 0; i < nodes; ++i) node_nic_.push_back(link(LinkClass::ClientNic));
  for (const auto& pool : s.servers)
    for (int c = 0; c < pool.count; ++c) device_nic_.push_back(link(LinkClass::ServerNic));
  node_site_.assign(node_nic_.size(), 0);
  device_site_.assign(device_nic_.size(), 0);
  for (auto& group : by_class)
    if (!group.constraints.empty()) degradable_.push_back(std::move(group));
}

void Topology::several_sites(const scenario::Scenario& s) {
  const auto n = static_cast<std::uint32_t>(s.sites.size());
  sites_ = n;
  several_ = true;
  node_site_ = scenario::client_node_sites(s);
  device_site_ = scenario::device_sites(s);
  // [site][class]: a site's links of a class, degraded together.
  std::vector<std::vector<Degradable>> site_links(n);
  std::vector<std::int32_t> uplink(n, -1);
  for (std::uint32_t a = 0; a < n; ++a) {
    site_links[a].resize(scenario::kLinkClasses.size());
    for (LinkClass c : scenario::kLinkClasses)
      if (const auto& spec = s.sites[a].link(c)) {
        auto& group = site_links[a][scenario::index_of(c)];
        group.bandwidth = spec->bandwidth;
        group.factors = s.faults.site_link_factors(static_cast<int>(a), c);
      }
    if (const auto& spec = s.sites[a].site_uplink) {
      uplink[a] = add_link(*spec);
      auto& group = site_links[a][scenario::index_of(LinkClass::SiteUplink)];
      group.constraints = {up(uplink[a]), down(uplink[a])};
    }
  }
  auto nic = [&](std::uint32_t site, LinkClass c) -> std::int32_t {
    const auto& spec = s.sites[site].link(c);
    if (!spec) return -1;
    const std::int32_t l = add_link(*spec);
    auto& group = site_links[site][scenario::index_of(c)];
    group.constraints.push_back(up(l));
    group.constraints.push_back(down(l));
    return l;
  };
  for (std::uint32_t site : node_site_) node_nic_.push_back(nic(site, LinkClass::ClientNic));
  for (std::uint32_t site : device_site_) device_nic_.push_back(nic(site, LinkClass::ServerNic));

  std::vector<std::int32_t> wan;
  for (std::size_t l = 0; l < s.wan.links.size(); ++l) {
    const auto& link = s.wan.links[l];
    wan.push_back(add_link(link.spec));
    degradable_.push_back({{up(wan.back()), down(wan.back())},
                           link.spec.bandwidth,
                           s.faults.wan_link_factors(static_cast<int>(l))});
  }
  // Between two sites: out of a's uplink, the WAN links as the route walks them (a link is UP
  // from its first end to its second), into b's uplink. Within a site: nothing but the NICs.
  path_.resize(static_cast<std::size_t>(n) * n);
  path_latency_.assign(path_.size(), 0.0);
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) {
      if (a == b) continue;
      auto& p = path_[path_of(a, b, true)];
      double& latency = path_latency_[path_of(a, b, true)];
      if (uplink[a] >= 0) {
        p.push_back(up(uplink[a]));
        latency += link_latency_[uplink[a]];
      }
      for (const auto& h : s.routes[a][b].hops) {
        p.push_back(h.forward ? up(wan[h.link]) : down(wan[h.link]));
        latency += link_latency_[wan[h.link]];
      }
      if (uplink[b] >= 0) {
        p.push_back(down(uplink[b]));
        latency += link_latency_[uplink[b]];
      }
    }
  for (auto& classes : site_links)
    for (auto& group : classes)
      if (!group.constraints.empty()) degradable_.push_back(std::move(group));
}

Topology::Ends Topology::ends(std::uint32_t node, std::uint32_t device,
                              engine::Direction dir) const {
  const bool to_server = dir == engine::Direction::ToServer;
  const std::uint32_t client_site = several_ ? node_site_[node] : 0;
  const std::uint32_t device_site = several_ ? device_site_[device] : 0;
  return {to_server ? node_nic_[node] : device_nic_[device],
          to_server ? device_nic_[device] : node_nic_[node],
          path_of(client_site, device_site, to_server)};
}

double Topology::latency(std::uint32_t node, std::uint32_t device, engine::Direction dir) const {
  const Ends e = ends(node, device, dir);
  return nic_latency(e.from) + path_latency_[e.path] + nic_latency(e.to);
}

double Topology::route(std::uint32_t node, std::uint32_t device, engine::Direction dir,
                       std::vector<std::uint32_t>& out) const {
  const Ends e = ends(node, device, dir);
  out.clear();
  if (e.from >= 0) out.push_back(up(e.from));
  out.insert(out.end(), path_[e.path].begin(), path_[e.path].end());
  if (e.to >= 0) out.push_back(down(e.to));
  return nic_latency(e.from) + path_latency_[e.path] + nic_latency(e.to);
}

}  // namespace sonicsim::flows
