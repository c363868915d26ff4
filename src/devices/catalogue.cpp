// The catalogue's entries and how a name finds one. Every figure names the public document it
// comes from; docs/devices.md prints the same table. Memory is the board's memory as the
// datasheet states it, read in binary units (a "16 GB" card carries 16 GiB of memory chips);
// what software can allocate is less (ECC, the driver's reserve).
#include <sonicsim/devices/catalogue.hpp>

#include <cctype>
#include <cstdio>

namespace sonicsim::devices {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Vendors publish no idle power. One rule for every entry keeps the estimates comparable and
// easy to replace: a quarter of the power limit lies between a card parked in its lowest
// performance state (a T4 reads about 10 W, 14% of its limit) and one holding a CUDA context
// and loaded models between executions (about 36 W on a T4, half its limit), the two readings
// docs/servers.md gives.
constexpr double kIdleShareOfLimit = 0.25;

Figure published(double value, std::string source) {
  return {value, std::move(source), false};
}

Figure unpublished(std::string why) {
  return {std::nullopt, std::move(why), false};
}

Figure idle_estimate(const Figure& limit) {
  if (!limit.value)
    return unpublished("no figure: without a power limit there is nothing to estimate from");
  char watts[32];
  std::snprintf(watts, sizeof watts, "%g", *limit.value);
  return {*limit.value * kIdleShareOfLimit,
          std::string("estimate: no vendor publishes an idle power; 25% of the ") + watts +
              " W power limit, sonicsim's rule for every entry (docs/devices.md)",
          true};
}

Entry gpu(std::string name, std::string description, std::vector<std::string> aliases,
          Figure memory, Figure limit) {
  Entry e;
  e.name = std::move(name);
  e.kind = Kind::Gpu;
  e.description = std::move(description);
  e.aliases = std::move(aliases);
  e.memory = std::move(memory);
  e.idle_power = idle_estimate(limit);
  e.power_limit = std::move(limit);
  return e;
}

Entry fpga(std::string name, std::string description, std::vector<std::string> aliases,
           Figure memory, Figure limit) {
  Entry e = gpu(std::move(name), std::move(description), std::move(aliases), std::move(memory),
                std::move(limit));
  e.kind = Kind::Fpga;
  return e;
}

std::vector<Entry> build() {
  const std::string v100 = "NVIDIA Tesla V100 datasheet: ";
  const std::string a100 = "NVIDIA A100 datasheet: ";
  const std::string h100 = "NVIDIA H100 datasheet: ";
  return {
      gpu("T4", "NVIDIA T4 (Turing), low-profile PCIe card", {"Tesla-T4", "NVIDIA-T4"},
          published(16 * kGiB, "NVIDIA T4 datasheet and board product brief: 16 GB GDDR6"),
          published(70,
                    "NVIDIA T4 datasheet and board product brief: 70 W maximum power "
                    "limit")),
      gpu("V100-SXM2-16GB", "NVIDIA Tesla V100 (Volta) 16GB, SXM2 (NVLink) module",
          {"V100", "V100-16GB", "Tesla-V100-SXM2-16GB"}, published(16 * kGiB, v100 + "16 GB HBM2"),
          published(300, v100 + "300 W maximum power consumption (V100 for NVLink)")),
      gpu("V100-SXM2-32GB", "NVIDIA Tesla V100 (Volta) 32GB, SXM2 (NVLink) module",
          {"V100-32GB", "Tesla-V100-SXM2-32GB"}, published(32 * kGiB, v100 + "32 GB HBM2"),
          published(300, v100 + "300 W maximum power consumption (V100 for NVLink)")),
      gpu("V100-PCIE-16GB", "NVIDIA Tesla V100 (Volta) 16GB, PCIe card", {"Tesla-V100-PCIE-16GB"},
          published(16 * kGiB, v100 + "16 GB HBM2"),
          published(250, v100 + "250 W maximum power consumption (V100 for PCIe)")),
      gpu("V100-PCIE-32GB", "NVIDIA Tesla V100 (Volta) 32GB, PCIe card", {"Tesla-V100-PCIE-32GB"},
          published(32 * kGiB, v100 + "32 GB HBM2"),
          published(250, v100 + "250 W maximum power consumption (V100 for PCIe)")),
      gpu("A10", "NVIDIA A10 (Ampere), PCIe card", {"NVIDIA-A10"},
          published(24 * kGiB, "NVIDIA A10 datasheet: 24 GB GDDR6"),
          published(150, "NVIDIA A10 datasheet: 150 W maximum thermal design power")),
      gpu("A30", "NVIDIA A30 (Ampere), PCIe card", {"NVIDIA-A30"},
          published(24 * kGiB, "NVIDIA A30 datasheet: 24 GB HBM2"),
          published(165, "NVIDIA A30 datasheet: 165 W maximum thermal design power")),
      gpu("L4", "NVIDIA L4 (Ada Lovelace), low-profile PCIe card", {"NVIDIA-L4"},
          published(24 * kGiB, "NVIDIA L4 datasheet: 24 GB GDDR6"),
          published(72, "NVIDIA L4 datasheet: 72 W maximum thermal design power")),
      gpu("L40", "NVIDIA L40 (Ada Lovelace), PCIe card", {"NVIDIA-L40"},
          published(48 * kGiB, "NVIDIA L40 datasheet: 48 GB GDDR6 with ECC"),
          published(300, "NVIDIA L40 datasheet: 300 W maximum power consumption")),
      gpu("A100-SXM4-40GB", "NVIDIA A100 (Ampere) 40GB, SXM4 module",
          {"A100", "A100-40GB", "NVIDIA-A100-SXM4-40GB"}, published(40 * kGiB, a100 + "40 GB HBM2"),
          published(400, a100 + "400 W maximum TDP (SXM)")),
      gpu("A100-PCIE-40GB", "NVIDIA A100 (Ampere) 40GB, PCIe card", {"NVIDIA-A100-PCIE-40GB"},
          published(40 * kGiB, "NVIDIA A100 40GB PCIe product brief (PB-10137): 40 GB HBM2"),
          published(250, "NVIDIA A100 40GB PCIe product brief (PB-10137) and " + a100 +
                             "250 W maximum power")),
      gpu("A100-SXM4-80GB", "NVIDIA A100 (Ampere) 80GB, SXM4 module",
          {"A100-80GB", "NVIDIA-A100-SXM4-80GB"}, published(80 * kGiB, a100 + "80 GB HBM2e"),
          published(400, a100 + "400 W maximum TDP (SXM)")),
      gpu("A100-PCIE-80GB", "NVIDIA A100 (Ampere) 80GB, PCIe card",
          {"A100-80GB-PCIe", "NVIDIA-A100-80GB-PCIe"},
          published(80 * kGiB, "NVIDIA A100 80GB PCIe product brief (PB-10577): 80 GB HBM2e"),
          published(300, "NVIDIA A100 80GB PCIe product brief (PB-10577) and " + a100 +
                             "300 W maximum power")),
      gpu("H100-SXM5-80GB", "NVIDIA H100 (Hopper) 80GB, SXM5 module",
          {"H100", "H100-SXM", "NVIDIA-H100-80GB-HBM3"}, published(80 * kGiB, h100 + "80 GB HBM3"),
          published(700, h100 + "up to 700 W maximum TDP, configurable (SXM)")),
      gpu("H100-PCIE-80GB", "NVIDIA H100 (Hopper) 80GB, PCIe card",
          {"H100-PCIe", "NVIDIA-H100-PCIe"}, published(80 * kGiB, h100 + "80 GB HBM2e (PCIe)"),
          published(350, h100 + "300-350 W maximum TDP, configurable (PCIe): the top of the "
                                "range")),
      gpu("MI100", "AMD Instinct MI100 (CDNA), PCIe card", {"AMD-Instinct-MI100", "Instinct-MI100"},
          published(32 * kGiB, "AMD Instinct MI100 datasheet: 32 GB HBM2"),
          published(300, "AMD Instinct MI100 datasheet: 300 W maximum board power")),
      fpga("Alveo-U250", "AMD (Xilinx) Alveo U250 FPGA card (FaaST's on-premises card)",
           {"U250", "Xilinx-U250"},
           published(64 * kGiB,
                     "AMD Alveo U250 data sheet (DS962) and platforms guide (UG1120): "
                     "64 GB DDR4 off-chip (4 x 16 GB)"),
           published(225, "AMD Alveo U250 data sheet (DS962): 225 W maximum total power")),
      fpga("Alveo-U55C", "AMD (Xilinx) Alveo U55C FPGA card", {"U55C"},
           published(16 * kGiB,
                     "AMD Alveo U55C data sheet (DS978) and platforms guide (UG1120): "
                     "16 GB HBM2"),
           published(150, "AMD Alveo U55C data sheet (DS978): 150 W maximum power")),
      fpga("Brainwave",
           "Microsoft Project Brainwave, an FPGA service (the gallery's fpga-brainwave)",
           {"Project-Brainwave"},
           unpublished("not published: Brainwave was used as a cloud and edge service, and its "
                       "source (Duarte et al., Comput. Softw. Big Sci. 3 (2019) 13) gives no "
                       "board memory"),
           unpublished("not published: the same source gives no board power; set "
                       "devices.Brainwave.power to figures you measured")),
  };
}

// "Tesla-T4", "tesla t4" and "TESLA_T4" are one name.
std::string key_of(std::string_view name) {
  std::string k;
  for (char c : name)
    if (c != ' ' && c != '-' && c != '_')
      k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

}  // namespace

const char* kind_name(Kind k) {
  return k == Kind::Fpga ? "FPGA" : "GPU";
}

const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> entries = build();
  return entries;
}

const Entry* find(std::string_view name) {
  const std::string k = key_of(name);
  if (k.empty()) return nullptr;
  for (const Entry& e : catalogue()) {
    if (key_of(e.name) == k) return &e;
    for (const std::string& a : e.aliases)
      if (key_of(a) == k) return &e;
  }
  return nullptr;
}

std::vector<std::string> known_names() {
  std::vector<std::string> out;
  for (const Entry& e : catalogue()) {
    out.push_back(e.name);
    out.insert(out.end(), e.aliases.begin(), e.aliases.end());
  }
  return out;
}

}  // namespace sonicsim::devices
