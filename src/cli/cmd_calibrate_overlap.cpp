// calibrate overlap: a device's overlap curve (devices.D.overlap) from perf_analyzer scans at
// several concurrencies (calibration/overlap_fit.hpp).

#include <sonicsim/calibration/overlap_fit.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct OverlapArgs {
  std::vector<std::string> files;
  std::string device = "T4", output;
  int batch_size = 0;
  bool json = false;
};

int cmd_calibrate_overlap(const OverlapArgs& a) {
  if (!a.output.empty()) check_writable(a.output);
  std::vector<calibration::PerfAnalyzerScan> scans;
  for (const auto& f : a.files)
    scans.push_back(calibration::read_perf_analyzer_csv(
        f, a.batch_size > 0 ? std::optional<int>(a.batch_size) : std::nullopt));
  const auto fit = calibration::fit_overlap(scans);
  const auto doc = calibration::to_json(fit, a.device, scans);
  // The curve is for pasting into devices.D.overlap: a scenario must accept it.
  return write_fragment(doc.dump(2) + "\n", calibration::to_text(fit, a.device), a.output, a.json,
                        overlap_read_back(), "curve");
}

}  // namespace

void add_calibrate_overlap_command(CLI::App* calibrate, Commands& out) {
  static OverlapArgs args;
  auto* cmd = calibrate->add_subcommand(
      "overlap",
      "Fit a device's overlap curve (devices.D.overlap) from perf_analyzer scans at concurrency "
      "1..N against a model with N or more instances");
  cmd->add_option("files", args.files,
                  "perf_analyzer CSV files (concurrency mode, one batch size, a row at "
                  "concurrency 1)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--device", args.device, "Device name the curve is for (a pool's `device`)")
      ->capture_default_str();
  cmd->add_option("-b,--batch-size", args.batch_size,
                  "Batch size of every file (default: from each file name, e.g. _batch16)")
      ->check(whole_number(1, 1000000));
  cmd->add_option("-o,--output", args.output,
                  "Write the curve and the measured points as JSON here");
  cmd->add_flag("--json", args.json, "Print the JSON instead of the summary");
  out.push_back({cmd, [] { return cmd_calibrate_overlap(args); }});
}

}  // namespace sonicsim::cli
