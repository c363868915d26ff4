#include "command.hpp"

namespace sonicsim::cli {

void add_calibrate_scan_command(CLI::App*, Commands&) {}

}  // namespace sonicsim::cli
