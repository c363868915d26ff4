// compare: the simulation and the analytic models against measured points.
#include <unistd.h>

#include <cmath>
#include <iostream>

#include <sonicsim/analytic/analytic.hpp>
#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/compare/compare.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/points.hpp>
#include <sonicsim/util/numbers.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct CompareArgs {
  ScenarioArgs scenario;
  std::string measurements, vary, metric, x_column, output, csv;
  int workers = 0;
};

int cmd_compare(const CompareArgs& a) {
  if (!a.output.empty()) results::check_writable(a.output);
  if (!a.csv.empty()) results::check_writable(a.csv);
  calibration::MeasurementOptions mo;
  mo.vary = a.vary;
  mo.x_column = a.x_column;
  mo.metric = a.metric;
  mo.min_rows = 2;
  mo.min_rows_reason = "a comparison needs two points";
  const auto m = calibration::read_measurements(a.measurements, mo);
  const auto common = overrides_of(a.scenario);
  // A broken scenario is reported as itself, not as every point rejecting its x.
  scenario::load_file(a.scenario.scenario_path, common);

  compare::Report report;
  report.scenario_file = a.scenario.scenario_path;
  report.measurements_file = a.measurements;
  report.vary = a.vary;
  report.x_column = m.x_column;
  report.metric = m.metric;
  report.has_stddev = m.has_stddev;

  // The analytic predictions come from this process; only the simulations need children.
  std::vector<std::vector<scenario::Override>> points;
  std::vector<std::size_t> simulated_rows;
  std::vector<std::string> rejected;
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const auto& mr = m.rows[i];
    compare::Row row;
    row.x = mr.x;
    row.line = mr.line;
    row.measured = mr.value;
    row.stddev = mr.stddev;
    row.simulated = row.formula = row.mva = kNaN;
    const scenario::Override set{a.vary, calibration::format_x(mr.x)};
    try {
      auto overrides = common;
      overrides.push_back(set);
      const auto s = scenario::load_file(a.scenario.scenario_path, overrides);
      const auto p = analytic::predict(s);
      const double threads = static_cast<double>(s.workload().n_threads());
      const double jobs = static_cast<double>(s.workload().jobs);
      row.formula = calibration::metric_of_throughput(m.metric, p.throughput_per_s, threads, jobs);
      if (p.mva)
        row.mva =
            calibration::metric_of_throughput(m.metric, p.mva->throughput_per_s, threads, jobs);
      points.push_back({set});
      simulated_rows.push_back(i);
    } catch (const scenario::InputError& e) {
      row.error = e.what();
      rejected.push_back("line " + std::to_string(mr.line) + ", column " +
                         std::to_string(m.x_index) + " (`" + m.x_column + "`): the scenario " +
                         "rejects " + a.vary + "=" + set.value + ": " + e.what());
    }
    report.rows.push_back(row);
  }
  // Not one point loads: the --vary path itself is wrong, not a value.
  if (points.empty()) throw scenario::InputError(m.file, {{"", rejected.front()}});

  const int workers = a.workers > 0 ? a.workers : runner::default_workers();
  if (::isatty(2))
    std::cerr << "simulating " << points.size() << " points, " << workers << " at a time...\n";
  const auto results = runner::run_points(a.scenario.scenario_path, common, points, workers);
  std::size_t ok = 0;
  bool internal = false;
  for (std::size_t k = 0; k < results.size(); ++k) {
    compare::Row& row = report.rows[simulated_rows[k]];
    if (results[k].ok) {
      row.simulated = calibration::metric_of_results(results[k].results, m.metric);
      if (std::isfinite(row.simulated) && row.simulated > 0.0) {
        ++ok;
        continue;
      }
      // No event finished after the warm-up: a rate of 0, a time per event that does not exist.
      row.simulated = kNaN;
      row.error = std::string("the simulation finished no event after the warm-up, so it has no ") +
                  calibration::metric_name(m.metric) + " (a longer duration?)";
    } else {
      row.error = results[k].error;
      internal = internal || !results[k].input_error;
    }
  }
  compare::summarize(report);
  if (ok < 2) {
    std::string why = "only " + std::to_string(ok) + " of " + std::to_string(report.rows.size()) +
                      " points simulated, a comparison needs two";
    for (const auto& row : report.rows)
      if (!row.error.empty())
        why += "\n  " + m.x_column + "=" + calibration::format_x(row.x) + ": " + row.error;
    if (internal) throw std::runtime_error(why);
    throw scenario::InputError(m.file, {{"", why}});
  }

  if (!a.output.empty())
    results::write_atomically(a.output, compare::to_json(report).dump(2) + "\n");
  if (!a.csv.empty()) results::write_atomically(a.csv, compare::to_csv(report));
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
      ->check(CLI::PositiveNumber);
  out.push_back({cmd, [] { return cmd_compare(args); }});
}

}  // namespace sonicsim::cli
