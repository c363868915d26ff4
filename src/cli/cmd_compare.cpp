// compare: the simulation and the analytic models against measured points
// (compare/evaluate.hpp builds the rows).
#include <unistd.h>

#include <iostream>

#include <sonicsim/compare/compare.hpp>
#include <sonicsim/compare/evaluate.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct CompareArgs {
  ScenarioArgs scenario;
  std::string measurements, vary, metric, x_column, output, csv;
  int workers = 0;
};

int cmd_compare(const CompareArgs& a) {
  check_distinct_outputs({{"-o", a.output}, {"--csv", a.csv}});
  if (!a.output.empty()) check_writable(a.output);
  if (!a.csv.empty()) check_writable(a.csv);
  const compare::Request request{a.scenario, a.measurements, a.vary,
                                 a.metric,   a.x_column,     a.workers};
  const auto report = compare::evaluate(request, [](std::size_t points, int workers) {
    if (::isatty(2))
      std::cerr << "simulating " << points << " points, " << workers << " at a time...\n";
  });
  std::vector<std::pair<std::string, std::string>> out;
  if (!a.output.empty()) out.emplace_back(a.output, compare::to_json(report).dump(2) + "\n");
  if (!a.csv.empty()) out.emplace_back(a.csv, compare::to_csv(report));
  write_all_or_none(out);
  std::cout << compare::to_text(report);
  if (!a.output.empty()) std::cout << "report written to " << a.output << "\n";
  if (!a.csv.empty()) std::cout << "table written to " << a.csv << "\n";
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, Commands& out) {
  static CompareArgs args;
  auto* cmd = app.add_subcommand(
      "compare",
      "Simulate the scenario at every measured point and hold the simulation, the SONIC formula "
      "and exact MVA against the measurements (MAPE, worst point, Spearman, a verdict)");
  add_scenario_args(cmd, args.scenario);
  add_memory_budget(cmd);
  cmd->add_option("measurements", args.measurements,
                  "Measurements CSV: a header row, the x column and one metric column "
                  "(per_job_throughput_per_s, throughput_per_s, time_per_event_s or "
                  "thread_time_per_event_s), optional <metric>_stddev")
      ->required();
  cmd->add_option("--vary", args.vary,
                  "Scenario path the x column sets at each point (workload.jobs, servers.0.count)")
      ->required();
  cmd->add_option("--metric", args.metric, "The metric column to compare, when there are several");
  cmd->add_option("--x", args.x_column,
                  "The x column's name (default: the last part of --vary, or --vary itself)");
  cmd->add_option("-o,--output", args.output, "Write the report as JSON here");
  cmd->add_option("--csv", args.csv, "Write the table as CSV here");
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
  out.push_back({cmd, [] { return cmd_compare(args); }});
}

}  // namespace sonicsim::cli
