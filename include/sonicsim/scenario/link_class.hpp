// The four link classes of the request path, in path order: the one vocabulary that scenarios
// (`network`, link faults), the engine, the analytic model, plans and results share. Their names
// are the scenario keys and the result names; nothing else spells them.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace sonicsim::scenario {

// One link: every link of a scenario, a node's NIC or a WAN link, has these two figures.
struct LinkSpec {
  double bandwidth = 0.0;  // bytes per second
  double latency = 0.0;    // seconds, taken literally
  bool operator==(const LinkSpec&) const = default;
};

enum class LinkClass { ClientNic, SiteUplink, Wan, ServerNic };

inline constexpr std::array<LinkClass, 4> kLinkClasses = {
    LinkClass::ClientNic, LinkClass::SiteUplink, LinkClass::Wan, LinkClass::ServerNic};

constexpr const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::ClientNic:
      return "client_nic";
    case LinkClass::SiteUplink:
      return "site_uplink";
    case LinkClass::Wan:
      return "wan";
    case LinkClass::ServerNic:
      return "server_nic";
  }
  return "?";
}

inline std::optional<LinkClass> link_class_named(std::string_view name) {
  for (LinkClass c : kLinkClasses)
    if (name == link_class_name(c)) return c;
  return std::nullopt;
}

constexpr std::size_t index_of(LinkClass c) {
  return static_cast<std::size_t>(c);
}

// The names in path order for messages: "client_nic, site_uplink, wan, server_nic", each
// between `quote`s.
inline std::string link_class_list(std::string_view quote = {}) {
  std::string s;
  for (LinkClass c : kLinkClasses)
    s.append(s.empty() ? "" : ", ").append(quote).append(link_class_name(c)).append(quote);
  return s;
}

}  // namespace sonicsim::scenario
