// The names results give the links of a scenario with sites: each site's links as
// "SITE/client_nic", "SITE/site_uplink", "SITE/server_nic", the WAN's as "wan/NAME"
// (docs/sites.md#results). The planner finds the link a user names by them, and the report tells
// WAN links from a site's links by them; one spelling, so that a renamed scheme is renamed for
// every reader at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <sonicsim/scenario/link_class.hpp>

namespace sonicsim::scenario {

inline constexpr std::string_view kWanLinkPrefix = "wan/";

inline std::string site_link_name(std::string_view site, LinkClass c) {
  return std::string(site).append("/").append(link_class_name(c));
}

inline std::string wan_link_name(std::string_view name) {
  return std::string(kWanLinkPrefix).append(name);
}

// The WAN link's own name ("esnet" of "wan/esnet"); nullopt for any other link's name.
inline std::optional<std::string> wan_link_of(std::string_view link_name) {
  if (link_name.size() <= kWanLinkPrefix.size() ||
      link_name.substr(0, kWanLinkPrefix.size()) != kWanLinkPrefix)
    return std::nullopt;
  return std::string(link_name.substr(kWanLinkPrefix.size()));
}

}  // namespace sonicsim::scenario
