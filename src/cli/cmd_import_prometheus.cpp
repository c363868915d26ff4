// import prometheus: Prometheus query_range exports into a measurements file (placeholder, being
// written).
#include "command.hpp"

namespace sonicsim::cli {

void add_import_prometheus_command(CLI::App*, Commands&) {}

}  // namespace sonicsim::cli
