// The catalogue as `sonicsim devices` shows it: a table of every entry with its sources below it,
// one entry in full, and JSON whose keys are spelled here once.
#include <sonicsim/devices/catalogue.hpp>

#include <algorithm>

#include <sonicsim/util/format.hpp>

namespace sonicsim::devices {

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + "  ";
}

// Memory the way datasheets size it (binary), watts as the sources write them.
std::string memory_text(const Figure& f) {
  return f.value ? util::format_binary_bytes(*f.value) : "-";
}

std::string watts_text(const Figure& f) {
  if (!f.value) return "-";
  return util::formatted("%g W", *f.value) + (f.estimate ? " (est.)" : "");
}

nlohmann::ordered_json value_or_null(const Figure& f) {
  return f.value ? nlohmann::ordered_json(*f.value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string table(const std::vector<const Entry*>& entries) {
  const std::vector<std::string> headers = {"name", "kind", "memory", "power limit", "idle power"};
  std::vector<std::vector<std::string>> rows;
  for (const Entry* e : entries)
    rows.push_back({e->name, kind_name(e->kind), memory_text(e->memory), watts_text(e->power_limit),
                    watts_text(e->idle_power), join(e->aliases)});
  std::vector<std::size_t> width;
  for (const std::string& h : headers) width.push_back(h.size());
  for (const auto& r : rows)
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (std::size_t c = 0; c < headers.size(); ++c) out += pad(headers[c], width[c]);
  out += "aliases\n";
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < width.size(); ++c) out += pad(r[c], width[c]);
    out += r.back() + "\n";
  }
  out += "\nsources (`sonicsim devices NAME` prints one entry in full):\n";
  for (const Entry* e : entries) {
    out += "  " + e->name + "\n";
    out += "    memory:      " + e->memory.source + "\n";
    out += "    power limit: " + e->power_limit.source + "\n";
  }
  out +=
      "\nidle power (est.): no vendor publishes one; every estimate is 25% of the power limit. "
      "Measure yours (nvidia-smi, xbutil) and set devices.NAME.power.idle in the scenario.\n";
  return out;
}

std::string details(const Entry& e) {
  const auto line = [](const char* what, const std::string& value, const Figure& f) {
    return pad(what, 11) + pad(value, 26) + f.source + "\n";
  };
  std::string memory = memory_text(e.memory);
  if (e.memory.value) memory += " (" + util::exact_number(*e.memory.value) + " B)";
  return e.name + ": " + e.description + "\n" + pad("kind", 11) + kind_name(e.kind) + "\n" +
         pad("aliases", 11) + (e.aliases.empty() ? "-" : join(e.aliases)) + "\n" +
         line("memory", memory, e.memory) +
         line("power limit", watts_text(e.power_limit), e.power_limit) +
         line("idle power", watts_text(e.idle_power), e.idle_power);
}

nlohmann::ordered_json to_json(const Entry& e) {
  nlohmann::ordered_json j;
  j["name"] = e.name;
  j["kind"] = kind_name(e.kind);
  j["description"] = e.description;
  j["aliases"] = e.aliases;
  j["memory_bytes"] = value_or_null(e.memory);
  j["memory_source"] = e.memory.source;
  j["power_limit_w"] = value_or_null(e.power_limit);
  j["power_limit_source"] = e.power_limit.source;
  j["idle_power_w"] = value_or_null(e.idle_power);
  j["idle_power_source"] = e.idle_power.source;
  j["idle_power_estimate"] = e.idle_power.estimate;
  return j;
}

}  // namespace sonicsim::devices
