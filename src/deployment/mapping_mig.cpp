// A pool on MIG slices: NVIDIA's device plugin offers a slice as `nvidia.com/mig-<g>g.<m>gb` (its
// "mixed" strategy) or labels the node's product `<GPU>-MIG-<g>g.<m>gb` ("single" strategy). The
// pool's device becomes the slice, a fraction g/G of the GPU's compute with m GB of its memory,
// and its models run at that fraction of their speed on the whole GPU unless the overlay gives
// the slice a service time of its own (devices.D.slice, docs/servers.md).
#include <cstdlib>
#include <sstream>

#include "mapping.hpp"

namespace sonicsim::deployment {
namespace {

struct Profile {
  int compute = 0;   // g: compute slices
  double gb = 0.0;   // m: memory, GB
  std::string name;  // "1g.5gb"
};

// "1g.5gb", "3g.40gb", "1g.10gb+me" (with media engines): nullopt when it is not a profile.
std::optional<Profile> parse_profile(std::string text) {
  if (const auto plus = text.find('+'); plus != std::string::npos) text = text.substr(0, plus);
  const auto g = text.find("g.");
  if (g == std::string::npos || g == 0 || text.size() < g + 5 ||
      text.compare(text.size() - 2, 2, "gb") != 0)
    return std::nullopt;
  char* end = nullptr;
  const long compute = std::strtol(text.c_str(), &end, 10);
  if (end != text.c_str() + g || compute < 1 || compute > 8) return std::nullopt;
  const std::string mem = text.substr(g + 2, text.size() - g - 4);
  const double gb = std::strtod(mem.c_str(), &end);
  if (mem.empty() || end != mem.c_str() + mem.size() || gb <= 0 || gb > 1000) return std::nullopt;
  return Profile{static_cast<int>(compute), gb, text};
}

}  // namespace

void Mapper::map_mig(const std::string& product, const std::string& product_key,
                     const ValueNode* product_node) {
  std::string parent = product, profile_text, source_key = mig_key_;
  const ValueNode* source = mig_key_.empty() ? product_node : nullptr;
  if (const auto at_mig = product.find("-MIG-"); at_mig != std::string::npos) {
    parent = product.substr(0, at_mig);  // the "single" strategy's product label
    profile_text = product.substr(at_mig + 5);
    if (mig_key_.empty()) source_key = product_key;
  }
  if (!mig_name_.empty()) profile_text = mig_name_.substr(std::string("nvidia.com/mig-").size());
  if (!options().device.empty()) parent = options().device;
  if (parent.empty())
    if (const json* d = overlay_at("servers[0].device"); d && d->is_string())
      parent = d->get<std::string>();
  const auto profile = parse_profile(profile_text);
  if (!profile) {
    bad(source_key, "\"" + profile_text + "\"",
        "a MIG profile <g>g.<m>gb such as 1g.5gb or 3g.40gb (nvidia.com/mig-1g.5gb)");
    return;
  }
  if (parent.empty()) {
    note("a MIG slice (" + profile->name +
         ") of a GPU the values do not name: give --device NAME (the whole GPU, whose "
         "service times the overlay has)");
    return;
  }
  // Compute slices of the whole GPU: 7 on the A100 and the H100, 4 on the A30 (NVIDIA's MIG
  // user guide, "Supported MIG Profiles").
  const int whole = parent.find("A30") != std::string::npos ? 4 : 7;
  if (profile->compute > whole) {
    bad(source_key, "\"" + profile->name + "\"",
        "at most " + std::to_string(whole) + "g on " + parent);
    return;
  }
  const std::string slice = parent + "-MIG-" + profile->name;
  const double fraction = static_cast<double>(profile->compute) / whole;
  const ValueNode* node = mig_key_.empty() ? source : mig_node_;
  put_node("servers[0].device", slice, source_key, profile->name, node, "");
  // The device's name holds dots (1g.5gb): written as one key, not through a dotted path.
  json& entry = scenario["devices"][slice];
  if (!entry.is_object()) entry = json::object();
  const std::string shown_key = "devices.\"" + slice + "\"";
  const std::string where = node ? node->where() : "";
  if (!entry.contains("slice")) {
    entry["slice"] = {{"of", parent}, {"fraction", fraction}};
    report().filled.push_back(
        {shown_key + ".slice", source_key, profile->name + " of " + parent, where, "", ""});
  }
  if (!entry.contains("memory")) {
    std::ostringstream gb;
    gb << profile->gb << "GB";
    entry["memory"] = gb.str();
    report().filled.push_back({shown_key + ".memory", source_key, profile->name, where, "", ""});
  }
  note("MIG slice " + profile->name + " of " + parent + ": " + std::to_string(profile->compute) +
       "/" + std::to_string(whole) + " of its compute, so each execution takes " +
       std::to_string(whole) + "/" + std::to_string(profile->compute) +
       " as long as on the whole GPU (the overlay's "
       "service_time." +
       parent + "), unless the overlay gives service_time." + slice +
       " (measured on the slice, which is better)");
}

}  // namespace sonicsim::deployment
