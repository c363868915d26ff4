// The report's view of power, energy and cost (docs/servers.md, "Power, energy and cost"): a
// run's energy and cost per event as rows of the figures table and its energy by component as
// a chart; a sweep's events/s, energy per event and cost per event at every point as a table
// (the charts against the swept parameter are sweep_panels'). Results and sweeps without power
// or prices have none of them, and their report is as before.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

namespace column {
extern const std::string energy_per_event, cost_per_event;  // energy.per_event_j, cost.per_event
}  // namespace column

// Fills RunFigures' energy and cost when the results have them.
void read_energy(const results::Document& doc, RunFigures& f);
// Rows of energy and cost per event, mean power: none when no run has them.
void add_energy_rows(Table& t, const std::vector<RunFigures>& runs);
// One run's energy per event by component (devices, hosts, client cores); none without energy.
std::vector<Panel> energy_panels(const RunFigures& run);

// Whether some point of the sweep has energy or cost per event.
bool has_energy(const SweepData& sweep);
// One row per point: the swept value, devices (N_GPU), events/s, energy and cost per event.
Table energy_table(const SweepData& sweep);
// The tables of the sweeps that have energy or cost, titled by file ("" when none has).
std::string energy_tables(const std::vector<SweepData>& sweeps, Format format);

}  // namespace sonicsim::report
