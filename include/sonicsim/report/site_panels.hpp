// The report's view of a run with several sites (docs/sites.md#results): each site's events,
// latency and bytes over the WAN, each WAN link's bytes and utilization, as rows of the figures
// table and as charts. A run on one site has none of them, and its report is as before.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/report/panels.hpp>
#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

// Fills RunFigures::sites and wan_links when the results have `sites`; leaves them empty else.
void read_sites(const results::Document& doc, RunFigures& f);

// Rows of the figures table per site and per WAN link, over every run's sites and links: none
// when no run has sites.
void add_site_rows(Table& t, const std::vector<RunFigures>& runs);

// What changed per site from `base` to `run` (throughput, bytes out over the WAN, egress cost),
// for the sites both have; changes under 1% are left unsaid.
void site_changes(const RunFigures& base, const RunFigures& run, std::vector<std::string>& said);

// One run: events/s, time per event and latency, bytes out and in, egress cost by site, and the
// WAN links' bytes and utilization. Empty for a run on one site.
std::vector<Panel> site_panels(const RunFigures& run);

}  // namespace sonicsim::report
