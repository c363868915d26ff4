// calibrate prometheus: a model's service-time curve from a measured history (a measurements
// file of `import prometheus`), in `calibrate perf-analyzer`'s calibration-file format.
#include <iostream>

#include <sonicsim/calibration/prometheus_calibration.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PromCalArgs {
  std::string measurements, model, version, pool, device = "GPU", output, curve;
  double min_executions = 100.0;
  int min_windows = 10;
  bool json = false;
};

int cmd_calibrate_prometheus(const PromCalArgs& a, const std::string& command_line) {
  if (!a.output.empty()) check_writable(a.output);
  calibration::PrometheusCalibrationInput in;
  in.measurements_path = a.measurements;
  in.model = a.model;
  in.version = a.version;
  in.pool = a.pool;
  in.device = a.device;
  in.min_executions = a.min_executions;
  in.min_windows = static_cast<std::size_t>(a.min_windows);
  in.command_line = command_line;
  if (!a.curve.empty() && a.curve != "auto") {
    calibration::CurveKind k;
    if (!calibration::parse_curve_kind(a.curve, k))
      throw UsageError("--curve: found \"" + a.curve +
                       "\", expected auto, linear, piecewise or saturating");
    in.curve = k;
  }
  const auto cal = calibration::calibrate_prometheus(in);
  return write_calibration(cal, a.output, a.json);
}

}  // namespace

void add_calibrate_prometheus_command(CLI::App* calibrate, Commands& out) {
  static PromCalArgs args;
  auto* cmd = calibrate->add_subcommand(
      "prometheus",
      "Fit a model's service-time curve from a measured history (a measurements file of "
      "`import prometheus`): each window's batch size and compute time per execution");
  cmd->add_option("measurements", args.measurements,
                  "Measurements file written by `sonicsim import prometheus`")
      ->required();
  cmd->add_option("--model", args.model, "The model to calibrate")->required();
  cmd->add_option("--pool", args.pool, "The pool serving it (needed when several do)");
  cmd->add_option("--model-version", args.version,
                  "The model's version (needed when the file holds several)");
  cmd->add_option("--device", args.device, "Device name of the pools this curve is for")
      ->capture_default_str();
  cmd->add_option("-o,--output", args.output, "Write the calibration file here");
  cmd->add_option("--min-executions", args.min_executions,
                  "Executions a window needs to count as a point")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--min-windows", args.min_windows, "Usable windows needed to fit a curve")
      ->check(whole_number(2, 100000000))
      ->capture_default_str();
  cmd->add_option("--curve", args.curve,
                  "auto (smallest held-out error), linear, piecewise or saturating")
      ->default_str("auto");
  cmd->add_flag("--json", args.json, "Print the calibration file instead of the report");
  out.push_back({cmd, [cmd] {
                   return cmd_calibrate_prometheus(
                       args,
                       recorded_command(*cmd, "sonicsim calibrate prometheus " + args.measurements,
                                        {"measurements"}));
                 }});
}

}  // namespace sonicsim::cli
