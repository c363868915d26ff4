// The device catalogue (docs/devices.md): the public facts about the accelerators SONIC
// deployments use (GPUs and FPGA cards), so that a pool whose `device` is "T4" has the T4's
// memory and power without the scenario spelling them out. Each figure carries where it comes
// from; vendors publish memory and the board's power limit, never an idle power, so every idle
// figure here is an estimate by one stated rule and says so.
//
// The catalogue is data only: the scenario loader applies it (a scenario's own `devices.D`
// values override it field by field, `"catalogue": false` opts out), `sonicsim devices` lists it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sonicsim::devices {

enum class Kind { Gpu, Fpga };
const char* kind_name(Kind k);  // "GPU", "FPGA"

// One figure and where it comes from. A figure nobody publishes is absent (`value` unset) and
// its source says why.
struct Figure {
  std::optional<double> value;
  std::string source;
  bool estimate = false;  // not a published figure: the source gives the rule used
};

struct Entry {
  std::string name;  // the canonical name, e.g. "A100-SXM4-40GB"
  Kind kind = Kind::Gpu;
  std::string description;           // the board, e.g. "NVIDIA A100 40GB, SXM4 module"
  std::vector<std::string> aliases;  // other names that resolve here (Kubernetes labels, ...)
  Figure memory;                     // bytes
  Figure power_limit;                // watts: the board's maximum power (TDP, TBP)
  Figure idle_power;                 // watts
};

// Every entry, in the order `sonicsim devices` lists them.
const std::vector<Entry>& catalogue();

// The entry a device name resolves to, or nullptr. Names compare without case and without the
// separators the sources disagree on (" ", "-", "_"): "Tesla-T4", "tesla t4" and "NVIDIA T4"
// are the T4; NVIDIA's product names as Kubernetes labels them (nvidia.com/gpu.product, spaces
// turned into "-") are aliases of their entries.
const Entry* find(std::string_view name);

// Every name and alias, for a did-you-mean.
std::vector<std::string> known_names();

// The catalogue as `sonicsim devices` prints it: a table for people, JSON for machines.
std::string table(const std::vector<const Entry*>& entries);
std::string details(const Entry& e);  // one entry, every figure with its source
nlohmann::ordered_json to_json(const Entry& e);

}  // namespace sonicsim::devices
