// What --resume keeps: the points whose every replication is a complete line of the JSONL, so
// that an interrupted sweep (Ctrl-C, SIGKILL, a requeued batch task) finishes to the same bytes
// as one that ran through. The CSV is computed from the runs; only its column order is reused.
#include <iostream>
#include <iterator>

#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "sweep_steps.hpp"

namespace sonicsim::pipeline {

namespace {

// The runs of this sweep in the JSONL; a line of another sweep refuses the resume.
void read_kept_runs(const SweepDefinition& d, SweepState& state) {
  std::string text;
  if (!read_text(d.jsonl, text)) return;
  const auto lines = complete_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string sid;
    sweep::Run run = parse_run(d.jsonl, i + 1, lines[i], sid);
    if (sid != d.id)
      throw scenario::InputError(
          d.jsonl,
          {{"", "line " + std::to_string(i + 1) + ": found sweep_id " + sid + ", expected " + d.id +
                    ": the file holds another sweep (a different "
                    "scenario, --set, --seed, --param, --zip or "
                    "--replications); resume only the same sweep, or "
                    "write to another -o"}});
    if (run.point < d.n_points && run.replication < d.replications)
      state.runs[run.point][run.replication] = std::move(run);
  }
}

// The CSV's metric columns, when it is this sweep's: new rows follow its header.
void read_kept_header(const SweepDefinition& d, SweepState& state) {
  std::string text;
  if (!read_text(d.csv, text) || text.empty()) return;
  const sweep::Table t = sweep::read_table(d.csv);
  for (const auto& row : t.rows)
    if (row.fixed[0] != d.id)
      throw scenario::InputError(d.csv,
                                 {{"", "found sweep_id " + row.fixed[0] + ", expected " + d.id +
                                           ": the file holds another sweep; resume only the same "
                                           "sweep, or write to another -o"}});
  if (t.fixed == d.fixed && !t.metrics.empty()) {
    state.metrics = t.metrics;
    state.header_written = true;
  }
  // The CSV is computed from the runs; without them its rows cannot be kept.
  if (state.runs.empty() && !t.rows.empty())
    std::cerr << "sonicsim sweep: --resume: " << d.jsonl << " holds no run of this sweep, so the "
              << t.rows.size() << " rows of " << d.csv << " are simulated again\n";
}

}  // namespace

SweepState start_files(const SweepRequest& request, const SweepDefinition& d) {
  SweepState state;
  if (request.resume) {
    read_kept_runs(d, state);
    read_kept_header(d, state);
    // A point is done when all its replications are in the JSONL; partial points run again.
    for (auto it = state.runs.begin(); it != state.runs.end();)
      it = it->second.size() == d.replications ? std::next(it) : state.runs.erase(it);
    state.resumed = state.runs.size();
  }

  // Start the files over from what is kept: whole lines only, in point order.
  std::vector<sweep::TableRow> rows;
  std::string jsonl_text;
  for (const auto& [p, reps] : state.runs) {
    rows.push_back(row_of(d.id, d.grid, p, reps));
    for (const auto& [r, run] : reps) jsonl_text += run.line + "\n";
  }
  if (!state.header_written && !sweep::metric_union(rows).empty()) {
    state.metrics = sweep::metric_union(rows);
    state.header_written = true;
  }
  std::string csv_text;
  if (state.header_written) {
    csv_text = sweep::header_line(d.fixed, state.metrics);
    for (const auto& row : rows) csv_text += sweep::row_line(row, state.metrics);
  }
  write_all_or_none({{d.csv, csv_text}, {d.jsonl, jsonl_text}});
  return state;
}

}  // namespace sonicsim::pipeline
