#include "command.hpp"

namespace sonicsim::cli {

void add_compare_command(CLI::App&, Commands&) {}

}  // namespace sonicsim::cli
