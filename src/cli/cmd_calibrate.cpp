// calibrate: fits from measurements. `perf-analyzer` fits a model's service-time curve and
// request overheads from perf_analyzer CSVs; `scan` (cmd_calibrate_scan.cpp) fits a scenario's
// parameters to measured throughput scans.
#include "command.hpp"

namespace sonicsim::cli {

void add_calibrate_commands(CLI::App& app, Commands& out) {
  auto* calibrate =
      app.add_subcommand("calibrate", "Fit models and scenarios from measurements");
  calibrate->require_subcommand(1);
  add_calibrate_scan_command(calibrate, out);
}

}  // namespace sonicsim::cli
