// compare: the simulation and the analytic models against measured points
// (compare/evaluate.hpp builds the rows).
#include <unistd.h>

#include <iostream>

#include <sonicsim/compare/compare.hpp>
#include <sonicsim/compare/evaluate.hpp>
#include <sonicsim/compare/history.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct CompareArgs {
  ScenarioArgs scenario;
  std::string measurements, vary, metric, x_column, output, csv, from;
  std::vector<std::string> pools;
  int workers = 0;
};

// The report as JSON (-o) and CSV (--csv), all or none, then as text: a scan's or a history's.
template <class Report>
int write_report(const CompareArgs& a, const Report& report) {
  std::vector<Output> out;
  if (!a.output.empty()) out.emplace_back(a.output, compare::to_json(report).dump(2) + "\n");
  if (!a.csv.empty()) out.emplace_back(a.csv, compare::to_csv(report));
  write_all_or_none(out);
  std::cout << compare::to_text(report);
  if (!a.output.empty()) std::cout << "report written to " << a.output << "\n";
  if (!a.csv.empty()) std::cout << "table written to " << a.csv << "\n";
  return 0;
}

// A measured day (import prometheus): one simulation over its span, series against series.
int cmd_compare_history(const CompareArgs& a) {
  for (const auto& [flag, given] : {std::pair<const char*, bool>{"--vary", !a.vary.empty()},
                                    {"--metric", !a.metric.empty()},
                                    {"--x", !a.x_column.empty()},
                                    {"--workers", a.workers != 0}})
    if (given)
      throw UsageError(std::string(flag) + " is for measured scans (CSV); " + a.measurements +
                       " is a measured history, compared window by window over its span");
  compare::HistoryRequest q{a.scenario, a.measurements, a.pools, -1.0, pipeline::simulator()};
  if (!a.from.empty()) {
    std::string error;
    const auto t =
        scenario::parse_quantity(nlohmann::json(a.from), scenario::Quantity::Time, error);
    if (!t || *t < 0.0)
      throw UsageError("--from: found '" + a.from + "', expected a time >= 0 (\"10min\")" +
                       (error.empty() ? "" : ": " + error));
    q.from_s = *t;
  }
  const auto report = compare::compare_history(q);
  return write_report(a, report);
}

int cmd_compare(const CompareArgs& a) {
  check_distinct_outputs({{"-o", a.output}, {"--csv", a.csv}});
  if (!a.output.empty()) check_writable(a.output);
  if (!a.csv.empty()) check_writable(a.csv);
  // A .json is a measured history whatever it holds: its reader says what is wrong with it.
  const bool json = a.measurements.size() > 5 &&
                    a.measurements.compare(a.measurements.size() - 5, 5, ".json") == 0;
  if (json || compare::is_history_file(a.measurements)) return cmd_compare_history(a);
  if (a.vary.empty())
    throw UsageError(
        "--vary is required with a measured scan (CSV): the scenario path its x "
        "column sets");
  if (!a.pools.empty() || !a.from.empty())
    throw UsageError("--pool and --from are for a measured history (import prometheus)");
  const compare::Request request{a.scenario, a.measurements,       a.vary, a.metric, a.x_column,
                                 a.workers,  pipeline::simulator()};
  const auto report = compare::evaluate(request, [](std::size_t points, int workers) {
    if (::isatty(2))
      std::cerr << "simulating " << points << " points, " << workers << " at a time...\n";
  });
  return write_report(a, report);
}

}  // namespace

void add_compare_command(CLI::App& app, Commands& out) {
  static CompareArgs args;
  auto* cmd = app.add_subcommand(
      "compare",
      "Simulate the scenario at every measured point and hold the simulation, the SONIC formula "
      "and exact MVA against the measurements (MAPE, worst point, Spearman, a verdict)");
  add_scenario_args(cmd, args.scenario);
  add_budgets(cmd);
  cmd->add_option("measurements", args.measurements,
                  "Measurements CSV: a header row, the x column and one metric column "
                  "(per_job_throughput_per_s, throughput_per_s, time_per_event_s or "
                  "thread_time_per_event_s), optional <metric>_stddev; or a measured history "
                  "(sonicsim import prometheus), compared window by window")
      ->required();
  cmd->add_option("--vary", args.vary,
                  "Scenario path the x column sets at each point (workload.jobs, servers.0.count); "
                  "measured scans only");
  cmd->add_option("--pool", args.pools,
                  "History: MEASURED=SIMULATED pool names, when they differ and either side has "
                  "several");
  cmd->add_option("--from", args.from,
                  "History: compare the windows ending after this time (default: the scenario's "
                  "warm-up)");
  cmd->add_option("--metric", args.metric, "The metric column to compare, when there are several");
  cmd->add_option("--x", args.x_column,
                  "The x column's name (default: the last part of --vary, or --vary itself)");
  cmd->add_option("-o,--output", args.output, "Write the report as JSON here");
  cmd->add_option("--csv", args.csv, "Write the table as CSV here");
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
  out.push_back({cmd, [] { return cmd_compare(args); }, &args.scenario});
}

}  // namespace sonicsim::cli
