#include "command.hpp"

namespace sonicsim::cli {

void add_perf_analyzer_command(CLI::App&, Commands&) {}

}  // namespace sonicsim::cli
