// calibrate scan: fit t_GPU, p, t_latency (t_CPU) of a scenario to a measured scan.
#include <unistd.h>

#include <iostream>

#include <sonicsim/calibration/scan_calibration.hpp>
#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
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
  check_distinct_outputs({{"-o", a.output}, {"--report", a.report}});
  check_writable(a.output);
  if (!a.report.empty()) check_writable(a.report);
  const auto model = calibration::analytic_model_from_name(a.model);
  if (!model) throw UsageError("--model: found `" + a.model + "`, expected auto, formula or mva");
  calibration::ScanCalibrationRequest q;
  q.scenario_path = a.scenario.scenario_path;
  q.common = overrides_of(a.scenario);
  q.measurements_path = a.measurements;
  q.vary = a.vary;
  q.x_column = a.x_column;
  q.metric = a.metric;
  q.free = a.free;
  q.model = *model;
  q.refine = !a.no_refine;
  q.workers = a.workers;
  q.simulate = pipeline::simulator();
  q.output_path = a.output;
  if (::isatty(2)) q.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  const auto c = calibration::calibrate_scan(q);

  std::vector<Output> out = {{a.output, c.fitted.dump(2) + "\n", scenario_read_back()}};
  if (!a.report.empty())
    out.emplace_back(a.report, calibration::to_json(c.result, c.measurements).dump(2) + "\n");
  write_all_or_none(out);
  std::cout << calibration::to_text(c.result, c.measurements);
  std::cout << "\nfitted scenario written to " << a.output << ":\n";
  for (const auto& line : c.mapping) std::cout << "  " << line << "\n";
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
  add_budgets(cmd);
  cmd->add_option("--vary", args.vary, "Scenario path the x column sets (workload.jobs)")
      ->required();
  cmd->add_option("-o,--output", args.output, "Write the fitted scenario here")->required();
  cmd->add_option("--free", args.free,
                  "Parameters to fit, comma-separated among t_gpu, p, t_latency, t_cpu, "
                  "t_host (default t_gpu,p,t_latency, holding those the data cannot tell apart)");
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
      ->check(whole_number(1, 4096));
  out.push_back({cmd, [] { return cmd_calibrate_scan(args); }, &args.scenario});
}

}  // namespace sonicsim::cli
