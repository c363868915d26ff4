// The report's view of the client side: how long each event waits for each request kind (its
// module time, results `modules`) and, on worker nodes, how busy the nodes were and what the jobs
// gained over CPU-only on the same nodes (results `nodes`, docs/nodes.md). Figures-table rows;
// results without them have none.
#pragma once

#include <vector>

#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

// Fills RunFigures::modules and RunFigures::nodes.
void read_clients(const results::Document& doc, RunFigures& f);
// A row per served module (its wait mean / p99, and with a declared module CPU time the module
// time), and per node workload (occupancy, speed factor against CPU-only, speed-up).
void add_client_rows(Table& t, const std::vector<RunFigures>& runs);

}  // namespace sonicsim::report
