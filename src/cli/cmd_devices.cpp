// devices: the device catalogue (devices/catalogue.hpp, docs/devices.md): every entry, or one,
// as a table or as JSON.
#include <iostream>

#include <sonicsim/devices/catalogue.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct DevicesArgs {
  std::string name;
  bool json = false;
};

int cmd_devices(const DevicesArgs& a) {
  std::vector<const devices::Entry*> entries;
  if (a.name.empty()) {
    for (const devices::Entry& e : devices::catalogue()) entries.push_back(&e);
  } else if (const devices::Entry* e = devices::find(a.name)) {
    entries.push_back(e);
  } else {
    const std::string hint = did_you_mean(a.name, devices::known_names());
    std::string names;
    for (const devices::Entry& e : devices::catalogue())
      names += (names.empty() ? "" : ", ") + e.name;
    throw UsageError("devices: found \"" + a.name + "\", which the device catalogue does not know" +
                     (hint.empty() ? "" : " (" + hint + ")") +
                     ", expected an entry or one of its aliases: " + names);
  }
  if (a.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const devices::Entry* e : entries) out.push_back(devices::to_json(*e));
    std::cout << (a.name.empty() ? out : out.front()).dump(2) << "\n";
  } else {
    std::cout << (a.name.empty() ? devices::table(entries) : devices::details(*entries.front()));
  }
  return 0;
}

}  // namespace

void add_devices_command(CLI::App& app, Commands& out) {
  static DevicesArgs args;
  auto* cmd = app.add_subcommand(
      "devices",
      "The device catalogue (docs/devices.md): memory, power limit and idle power of the GPUs and "
      "FPGA cards pools may name, each with its source. Exit 0, 2 for a name it does not know");
  cmd->add_option("name", args.name,
                  "One entry, by its name or an alias (Kubernetes' nvidia.com/gpu.product labels "
                  "such as Tesla-T4 included)");
  cmd->add_flag("--json", args.json,
                "JSON instead of the table: an array of entries, or the one entry asked for");
  out.push_back({cmd, [] { return cmd_devices(args); }});
}

}  // namespace sonicsim::cli
