// `sonicsim report`'s inputs and outputs: results JSON files, plan JSON files and sweep CSVs
// told apart by content, rendered as text, Markdown, one self-contained HTML page, or CSV tables.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <sonicsim/report/plan_report.hpp>
#include <sonicsim/report/sweep_summary.hpp>
#include <sonicsim/report/whatif.hpp>

namespace sonicsim::report {

struct Inputs {
  std::vector<RunFigures> runs;    // in the order given; the first is the baseline
  std::vector<SweepData> sweeps;   // likewise
  std::vector<PlanFigures> plans;  // in the order given
};

// Reads each file as a plan JSON (a JSON object with `question`, `answer` and `points` at its
// top level), a results JSON (any other file that starts with '{') or a sweep CSV (its header
// starts with sweep_id). Throws scenario::InputError naming the file, what was found and what is
// expected.
Inputs read_inputs(const std::vector<std::string>& files);

// --format text or md: the runs' figures and what-if sentences, then the sweeps' summary, then
// each plan's tables and sentences.
std::string text_report(const Inputs& inputs, Format format);

// One HTML page, no external reference: tables, what changed in words, inline SVG charts.
// Well-formed XML as well as HTML (every element closed, only XML's own entities).
std::string html_report(const Inputs& inputs);

// Every chart the HTML page draws, each as a standalone SVG document named by its title
// ("time-per-event.svg"; a title met again gets "-2", "-3"), in the page's order.
std::vector<std::pair<std::string, std::string>> svg_files(const Inputs& inputs);

// The figures tables as CSV: ("runs.csv", ...) and ("sweeps.csv", ...) for what is present.
std::vector<std::pair<std::string, std::string>> csv_tables(const Inputs& inputs);

}  // namespace sonicsim::report
