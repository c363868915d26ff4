// The report's view of servers as machines (docs/servers.md): how busy each pool's hosts are
// beside its devices, how long a request spends on the host, and how much device memory each
// pool's models hold against the device's size. Figures-table rows and per-run charts; results
// whose pools have no host cores and no memory keys have none of them, and their report is as
// before.
#pragma once

#include <vector>

#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

// Fills RunFigures::pools from the results' `servers`.
void read_servers(const results::Document& doc, RunFigures& f);
// Rows of the busiest pool's host utilization and time per request, and of the fullest
// pool's device memory: none when no run has host cores (or memory keys).
void add_server_rows(Table& t, const std::vector<RunFigures>& runs);
// One run's devices against hosts busy per pool, and device memory used against the device's
// size per pool; each only when some pool has it.
std::vector<Panel> server_panels(const RunFigures& run);

}  // namespace sonicsim::report
