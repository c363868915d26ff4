// calibrate scan: fit t_GPU, p, t_latency (t_CPU) of a scenario to a measured scan.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <sonicsim/calibration/measurements.hpp>
#include <sonicsim/calibration/scan.hpp>
#include <sonicsim/pipeline/children.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/util/files.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct ScanArgs {
  ScenarioArgs scenario;
  std::string measurements, vary, metric, x_column, output, report, free, model = "auto";
  bool no_refine = false;
  int workers = 0;
};

int cmd_calibrate_scan(const ScanArgs& a) {
  check_writable(a.output);
  if (!a.report.empty()) check_writable(a.report);
  calibration::ScanOptions opts;
  if (!a.free.empty()) {
    opts.free = calibration::parse_free(a.free);
    opts.free_given = true;
  }
  const auto model = calibration::analytic_model_from_name(a.model);
  if (!model) throw UsageError("--model: found `" + a.model + "`, expected auto, formula or mva");

  calibration::MeasurementOptions mo;
  mo.vary = a.vary;
  mo.x_column = a.x_column;
  mo.metric = a.metric;
  mo.min_rows = opts.free.size() + 1;
  mo.min_rows_reason = std::to_string(opts.free.size()) + " free parameters + 1";
  const auto m = calibration::read_measurements(a.measurements, mo);
  opts.metric = m.metric;

  const auto common = overrides_of(a.scenario);
  const auto base = scenario::load_file(a.scenario.scenario_path, common);
  opts.model = calibration::resolve_model(*model, base);
  const auto base_values = calibration::scan_point(base).values;

  std::vector<calibration::ScanPoint> points;
  for (const auto& row : m.rows) {
    const scenario::Override set{a.vary, calibration::format_x(row.x)};
    auto overrides = common;
    overrides.push_back(set);
    try {
      points.push_back(
          calibration::scan_point(scenario::load_file(a.scenario.scenario_path, overrides), row.x));
    } catch (const scenario::InputError& e) {
      throw scenario::InputError(
          m.file, {{"line " + std::to_string(row.line) + ", column " + std::to_string(m.x_index) +
                        " (`" + m.x_column + "`)",
                    "the scenario rejects " + a.vary + "=" + set.value + ": " + e.what()}});
    }
  }

  const int workers = a.workers > 0 ? a.workers : pipeline::default_workers();
  const auto simulate = calibration::point_simulator(a.scenario.scenario_path, common, base,
                                                     base_values, opts.free, m, a.vary, workers);
  if (!a.no_refine && ::isatty(2))
    std::cerr << "refining with the simulator: " << m.rows.size() << " points a round, " << workers
              << " at a time...\n";
  const auto result =
      calibration::fit_scan(points, base_values, m, opts, a.no_refine ? nullptr : &simulate);
  const auto fitted = calibration::fitted_scenario(base, result, m, a.output);
  // What is written must load from where it is written.
  std::string out_dir = std::filesystem::path(a.output).parent_path().string();
  if (out_dir.empty()) out_dir = ".";
  try {
    scenario::load_json(nlohmann::json::parse(fitted.dump()), a.output, out_dir);
  } catch (const scenario::InputError& e) {
    throw std::runtime_error(std::string("the fitted scenario does not validate: ") + e.what());
  }
  write_atomically(a.output, fitted.dump(2) + "\n");
  if (!a.report.empty()) write_atomically(a.report, calibration::to_json(result, m).dump(2) + "\n");

  std::cout << calibration::to_text(result, m);
  std::cout << "\nfitted scenario written to " << a.output << ":\n";
  const auto mapping =
      calibration::describe_mapping(base, result.base, result.fit.values, result.free);
  for (const auto& line : mapping) std::cout << "  " << line << "\n";
  if (!a.report.empty()) std::cout << "fit report written to " << a.report << "\n";
  return 0;
}

}  // namespace

void add_calibrate_scan_command(CLI::App* calibrate, Commands& out) {
  static ScanArgs args;
  auto* cmd = calibrate->add_subcommand(
      "scan",
      "Fit t_GPU, p, t_latency (or t_CPU) of a scenario to a measured scan over --vary, against "
      "the analytic model, then refined with the simulator; writes the fitted scenario");
  cmd->add_option("measurements", args.measurements,
                  "Measurements CSV: a header row, the x column and one metric column "
                  "(per_job_throughput_per_s, throughput_per_s, time_per_event_s or "
                  "thread_time_per_event_s), optional <metric>_stddev")
      ->required();
  add_scenario_args(cmd, args.scenario, false);
  cmd->add_option("--vary", args.vary, "Scenario path the x column sets (workload.jobs)")
      ->required();
  cmd->add_option("-o,--output", args.output, "Write the fitted scenario here")->required();
  cmd->add_option("--free", args.free,
                  "Parameters to fit, comma-separated among t_gpu, p, t_latency, t_cpu "
                  "(default t_gpu,p,t_latency, holding those the data cannot tell apart)");
  cmd->add_flag("--no-refine", args.no_refine, "Fit the analytic model only; no simulation");
  cmd->add_option("--model", args.model,
                  "Analytic model to fit and refine: auto (formula when every time is constant, "
                  "else exact MVA), formula, mva")
      ->default_str("auto");
  cmd->add_option("--metric", args.metric, "The metric column to fit, when there are several");
  cmd->add_option("--x", args.x_column,
                  "The x column's name (default: the last part of --vary, or --vary itself)");
  cmd->add_option("--report", args.report,
                  "Also write the fit (parameters, intervals, "
                  "residuals, rounds) as JSON here");
  cmd->add_option("--workers", args.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(CLI::PositiveNumber);
  out.push_back({cmd, [] { return cmd_calibrate_scan(args); }});
}

}  // namespace sonicsim::cli
