// The report's view of what went wrong in a run: devices that crashed, links that were out or
// slowed, and what the clients' tries met (failed, retried, fell back to the CPU). A site
// planner comparing two runs must learn that the second lost 2 of its 56 T4s before reading its
// throughput; the what-if sentences and the figures table say so
// (docs/report.md#what-if-sentences). Runs with no fault and no failed try get none of this, and
// their report is as before.
#pragma once

#include <string>
#include <vector>

#include <sonicsim/report/table.hpp>
#include <sonicsim/report/whatif.hpp>
#include <sonicsim/results_format/reader.hpp>

namespace sonicsim::report {

// Fills RunFigures::trouble from the results' `servers[i].replicas.crashes`, `links[i]`
// (`degraded_s`, `outage_s`) and `requests.resilience`; figures older results lack read 0.
void read_trouble(const results::Document& doc, RunFigures& f);

// Whether the run met a fault or a failed try or request.
bool has_trouble(const RunFigures& f);

// Rows of devices crashed, link time out and degraded, and tries failed and retried: none when
// no run has trouble.
void add_trouble_rows(Table& t, const std::vector<RunFigures>& runs);

// The what-if clauses of `run` against `base`. Each of these is said, with the run's own figures
// and the baseline's after "was", when it differs between the two runs (by the report's 1%
// rule, `unchanged`): a pool's device crashes ("2 crashes among the 56 T4s of pool gpu (was
// 0)"; a device that crashes twice counts twice); a
// link's time out or at reduced bandwidth ("the wan was out for 60 s"); the tries that failed,
// by why, and the retries ("19 tries failed (19 lost in a crash or drain) and 19 were retried
// (was 0 and 0)"); the requests that fell back to the CPU and that failed ("0 requests fell back
// to the CPU and 0 failed" when either differs).
void trouble_changes(const RunFigures& base, const RunFigures& run, std::vector<std::string>& said);

}  // namespace sonicsim::report
