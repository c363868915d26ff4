// calibrate: fits from measurements. `perf-analyzer` fits a model's service-time curve and
// request overheads from perf_analyzer CSVs; `scan` (cmd_calibrate_scan.cpp) fits a scenario's
// parameters to measured throughput scans.
#include <iostream>
#include <sstream>

#include <sonicsim/calibration/perf_calibration.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/scenario/units.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PerfArgs {
  std::vector<std::string> files;
  std::string model, device = "GPU", output, hardware, tool_version, notes, curve;
  int batch_size = 0;
  int max_batch_size = -1, instances = 0;
  std::vector<int> preferred;
  std::string max_queue_delay;
  bool no_dynamic_batching = false, no_refine = false, json = false;
  std::string command_line;
};

calibration::ServerSettings server_settings(const PerfArgs& a) {
  calibration::ServerSettings s;
  std::vector<std::string> given;
  if (a.max_batch_size >= 0) {
    s.max_batch_size = a.max_batch_size;
    given.push_back("max_batch_size " + std::to_string(a.max_batch_size));
  }
  if (a.no_dynamic_batching) {
    s.dynamic_batching = false;
    given.push_back("no dynamic batching");
  }
  if (!a.preferred.empty()) {
    s.preferred_batch_size = a.preferred;
    given.push_back("preferred batch sizes");
  }
  if (!a.max_queue_delay.empty()) {
    std::string error;
    nlohmann::json value = a.max_queue_delay;
    if (const auto number = nlohmann::json::parse(a.max_queue_delay, nullptr, false);
        number.is_number())
      value = number;
    const auto v = scenario::parse_quantity(value, scenario::Quantity::Time, error);
    if (!v || *v < 0)
      throw UsageError("--max-queue-delay: " + (error.empty() ? "found a negative time" : error));
    s.max_queue_delay = *v;
    given.push_back("max_queue_delay");
  }
  if (a.instances > 0) {
    s.instances = a.instances;
    given.push_back(std::to_string(a.instances) + " instance(s)");
  }
  if (!given.empty()) {
    std::string text = "flags (";
    for (std::size_t i = 0; i < given.size(); ++i) text += (i ? ", " : "") + given[i];
    s.source = text + "; dynamic batching unless disabled, 1 instance unless given)";
  }
  return s;
}

int cmd_perf(const PerfArgs& a) {
  if (!a.output.empty()) results::check_writable(a.output);
  calibration::PerfCalibrationInput in;
  in.model = a.model;
  in.device = a.device;
  in.hardware = a.hardware;
  in.tool_version = a.tool_version;
  in.notes = a.notes;
  in.refine = !a.no_refine;
  in.command_line = a.command_line;
  if (!a.curve.empty() && a.curve != "auto") {
    calibration::CurveKind k;
    if (!calibration::parse_curve_kind(a.curve, k))
      throw UsageError("--curve: found \"" + a.curve +
                       "\", expected auto, linear, piecewise or saturating");
    in.curve = k;
  }
  in.server = server_settings(a);
  for (const auto& f : a.files)
    in.scans.push_back(calibration::read_perf_analyzer_csv(
        f, a.batch_size > 0 ? std::optional<int>(a.batch_size) : std::nullopt));
  const auto cal = calibration::calibrate_perf_analyzer(in);
  if (!a.output.empty()) results::write_atomically(a.output, cal.doc.dump(2) + "\n");
  if (a.json)
    std::cout << cal.doc.dump(2) << "\n";
  else
    std::cout << cal.report
              << (a.output.empty() ? "" : "calibration written to " + a.output + "\n");
  return 0;
}

}  // namespace

void add_calibrate_commands(CLI::App& app, Commands& out) {
  auto* calibrate = app.add_subcommand("calibrate", "Fit models and scenarios from measurements");
  calibrate->require_subcommand(1);

  static PerfArgs perf;
  auto* pa = calibrate->add_subcommand(
      "perf-analyzer",
      "Fit a model's service-time curve and request overheads from perf_analyzer CSV files");
  pa->add_option("files", perf.files,
                 "perf_analyzer CSV files (perf_analyzer -f), one per batch "
                 "size; the batch size comes from -b or the file name")
      ->required()
      ->check(CLI::ExistingFile);
  pa->add_option("--model", perf.model, "Model name recorded in the calibration")->required();
  pa->add_option("-o,--output", perf.output,
                 "Write the calibration JSON here (e.g. "
                 "calibration/NAME.json)");
  pa->add_option("--device", perf.device,
                 "Device name of the pools this curve is for (a pool's `device`)")
      ->capture_default_str();
  pa->add_option("-b,--batch-size", perf.batch_size,
                 "Batch size of every file (default: from each file name, e.g. _batch16)")
      ->check(CLI::Range(1, 1000000));
  pa->add_option("--max-batch-size", perf.max_batch_size,
                 "The measured server's max_batch_size (0 = no limit)")
      ->check(CLI::Range(0, 1000000));
  pa->add_option("--preferred-batch-size", perf.preferred,
                 "The measured server's preferred batch sizes")
      ->check(CLI::Range(1, 1000000));
  pa->add_option("--max-queue-delay", perf.max_queue_delay,
                 "The measured server's max_queue_delay (e.g. 100us; default 0)");
  pa->add_flag("--no-dynamic-batching", perf.no_dynamic_batching,
               "The measured server ran without dynamic batching");
  pa->add_option("--instances", perf.instances,
                 "Model instances per device on the measured "
                 "server (default 1)")
      ->check(CLI::Range(1, 1000));
  pa->add_option("--curve", perf.curve,
                 "Force a curve: linear, piecewise or saturating (default: smallest held-out "
                 "error)");
  pa->add_flag("--no-refine", perf.no_refine,
               "Write the smooth curve as fitted: no correction by the simulator, no overhead "
               "jitter");
  pa->add_option("--hardware", perf.hardware, "Hardware description recorded in the file");
  pa->add_option("--tool-version", perf.tool_version,
                 "perf_analyzer / Triton version recorded in the file");
  pa->add_option("--notes", perf.notes, "Free text recorded in the file");
  pa->add_flag("--json", perf.json, "Print the calibration JSON instead of the summary");
  out.push_back({pa, [pa] {
                   // Recorded for provenance; CLI11 does not keep the original argv.
                   std::ostringstream cmd;
                   cmd << "sonicsim calibrate perf-analyzer";
                   for (const auto& f : perf.files) cmd << " " << f;
                   cmd << " --model " << perf.model;
                   if (!perf.output.empty()) cmd << " -o " << perf.output;
                   for (const auto* o : pa->get_options())
                     if (o->count() && o->get_name() != "files" && o->get_name() != "--model" &&
                         o->get_name() != "--output" && o->get_name() != "--help") {
                       cmd << " " << o->get_name();
                       for (const auto& r : o->results()) cmd << " " << r;
                     }
                   perf.command_line = cmd.str();
                   return cmd_perf(perf);
                 }});

  add_calibrate_scan_command(calibrate, out);
}

}  // namespace sonicsim::cli
