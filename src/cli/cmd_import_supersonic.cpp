// import supersonic: SuperSONIC's Helm values into a scenario (placeholder, being written).
#include "command.hpp"

namespace sonicsim::cli {

void add_import_supersonic_command(CLI::App*, Commands&) {}

}  // namespace sonicsim::cli
