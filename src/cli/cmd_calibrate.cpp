#include "command.hpp"

namespace sonicsim::cli {

void add_calibrate_commands(CLI::App&, Commands&) {}

}  // namespace sonicsim::cli
