// The `network` section: the links between clients and servers and how flows share them.
#include "loader_impl.hpp"

namespace sonicsim::scenario::detail {

std::optional<LinkSpec> Loader::link(const json& v, const std::string& path) {
  if (v.is_null()) return std::nullopt;
  if (!expect_object(v, path, "null or a link {\"bandwidth\": \"10Gbps\", \"latency\": \"50us\"}"))
    return std::nullopt;
  check_keys(v, path, {"bandwidth", "latency"});
  return link_figures(v, path);
}

std::optional<LinkSpec> Loader::link_figures(const json& v, const std::string& path) {
  LinkSpec l;
  bool ok = true;
  // The links compared with each other: those of one `network` (`sites[0].network`), or the WAN's.
  const std::string network =
      path.back() == ']' ? path.substr(0, path.rfind('[')) : path.substr(0, path.rfind('.'));
  if (const json* x = get(v, "bandwidth")) {
    const RoleScope role(*this, Role::None, network);
    if (auto b = quantity(*x, key_path(path, "bandwidth"), Quantity::Bandwidth, Range::positive()))
      l.bandwidth = *b;
    else
      ok = false;
  } else {
    missing(key_path(path, "bandwidth"), "a bandwidth > 0 such as \"10Gbps\"");
    ok = false;
  }
  if (const json* x = get(v, "latency")) {
    const RoleScope role(*this, Role::Latency, network);
    if (auto t = quantity(*x, key_path(path, "latency"), Quantity::Time, Range::at_least(0)))
      l.latency = *t;
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return l;
}

void Loader::network(const json& v, const std::string& path, Network& n) {
  if (v.is_null()) return;
  if (!expect_object(v, path, "an object with client_nic, site_uplink, wan, server_nic")) return;
  check_keys(v, path,
             {"client_nic", "site_uplink", "wan", "server_nic", "flow_model", "auto_tolerance"});
  for (LinkClass c : kLinkClasses)
    if (const json* x = get(v, link_class_name(c)))
      n.link(c) = link(*x, key_path(path, link_class_name(c)));
  if (const json* x = get(v, "flow_model")) {
    if (auto f = choice(*x, key_path(path, "flow_model"), {"auto", "flow", "analytic", "simgrid"}))
      n.flow_model = *f == "auto"      ? FlowModel::Auto
                     : *f == "flow"    ? FlowModel::Flow
                     : *f == "simgrid" ? FlowModel::SimGrid
                                       : FlowModel::Analytic;
  }
  if (const json* x = get(v, "auto_tolerance")) {
    if (auto t = number(*x, key_path(path, "auto_tolerance"), Range::open(0, 1)))
      n.auto_tolerance = *t;
  }
}

}  // namespace sonicsim::scenario::detail
