// import: a running deployment's own files turned into sonicsim's inputs. `import supersonic`
// reads SuperSONIC's Helm values into a scenario (cmd_import_supersonic.cpp); `import
// prometheus` reads Prometheus query_range exports into a measurements file
// (cmd_import_prometheus.cpp).
#include "command.hpp"

namespace sonicsim::cli {

void add_import_commands(CLI::App& app, Commands& out) {
  auto* import = app.add_subcommand(
      "import", "Turn a running deployment's files into sonicsim's inputs (docs/deployment.md)");
  import->require_subcommand(1);
  add_import_supersonic_command(import, out);
  add_import_prometheus_command(import, out);
}

}  // namespace sonicsim::cli
