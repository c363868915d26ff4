// Fuzz target: SuperSONIC Helm values, read by `import supersonic` as a user's values file over a
// fixed overlay: the YAML reader (yaml-cpp, its limits, aliases, merge keys), Helm's merge, the
// typed reads of every mapped key, and the scenario loader on the result.
#include <string>

#include <sonicsim/deployment/supersonic.hpp>

#include "support.hpp"

SONICSIM_FUZZ_TARGET(supersonic) {
  using namespace sonicsim;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  static const std::string overlay =
      fuzz::scratch_file("overlay.json",
                         R"({"duration": "1min", "workload": {"jobs": 2, "threads_per_job": 2,
          "cpu_time_per_event": "1s", "requests": [{"model": "m", "offload_fraction": 0.5}]},
          "models": {"m": {"service_time": {"*": {"batch": [1], "seconds": [0.01]}}}},
          "servers": [{"name": "p", "device": "T4", "models": ["m"]}]})");
  const std::string path = fuzz::scratch_file("values.yaml", input);
  fuzz::expect_contract("supersonic", fuzz::Where::Anywhere, [&] {
    deployment::SupersonicOptions options;
    options.values_files = {path};
    options.overlay = overlay;
    const auto imported = deployment::import_supersonic(options);
    deployment::to_text(imported.report);
    deployment::to_json(imported.report).dump();
  });
  return 0;
}
