// calibrate: fits from measurements. `perf-analyzer` fits a model's service-time curve and
// request overheads from perf_analyzer CSVs; `scan` (cmd_calibrate_scan.cpp) fits a scenario's
// parameters to measured throughput scans.
#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>

#include <sonicsim/calibration/perf_calibration.hpp>
#include <sonicsim/emulation/perf_emulation.hpp>
#include <sonicsim/results/results.hpp>
#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/scenario/triton_settings.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/triton/config_file.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>
#include <sonicsim/util/json_text.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PerfArgs {
  std::vector<std::string> files;
  std::string model, device = "GPU", output, hardware, tool_version, notes, curve;
  std::string triton_config;
  bool triton_config_given = false;  // an empty path is a mistake, not "no config"
  int batch_size = 0;
  int max_batch_size = -1, instances = 0;
  std::vector<int> preferred;
  std::string max_queue_delay;
  bool no_dynamic_batching = false, no_preferred = false, no_refine = false, json = false;
  std::string command_line;
  // The host stage: cores of the measured server's host, and the payload per item when the
  // Triton config cannot give it (variable dimensions) or is not given.
  int host_cores = 0;
  bool host_cores_given = false;
  double input_bytes = -1.0, output_bytes = -1.0;
};

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string sizes_text(const std::vector<int>& sizes) {
  std::vector<std::string> out;
  for (int n : sizes) out.push_back(std::to_string(n));
  return join(out, " ");
}

std::optional<double> queue_delay_flag(const PerfArgs& a) {
  if (a.max_queue_delay.empty()) return std::nullopt;
  std::string error;
  nlohmann::json value = a.max_queue_delay;
  if (const auto number = parse_json_value(a.max_queue_delay); number && number->is_number())
    value = *number;
  const auto v = scenario::parse_quantity(value, scenario::Quantity::Time, error);
  if (!v || *v < 0)
    throw UsageError("--max-queue-delay: " + (error.empty() ? "found a negative time" : error));
  return *v;
}

calibration::ServerSettings settings_from_flags(const PerfArgs& a,
                                                const std::optional<double>& delay) {
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
  if (delay) {
    s.max_queue_delay = *delay;
    given.push_back("max_queue_delay");
  }
  if (a.instances > 0) {
    s.instances = a.instances;
    given.push_back(std::to_string(a.instances) + " instance(s)");
  }
  if (!given.empty())
    s.source = "flags (" + join(given, ", ") +
               "; dynamic batching unless disabled, 1 instance unless given)";
  return s;
}

// The config's settings as a scenario's `triton_config` reads them, then each flag given over
// the one field it names. `source` lists every field a flag replaced, so a calibration file says
// which of its settings the config does not vouch for.
calibration::ServerSettings settings_from_config(const PerfArgs& a,
                                                 const std::optional<double>& delay,
                                                 std::string& config_sha256) {
  scenario::TritonAdvice advice;
  advice.ensemble =
      "calibrate each step from its own scans with its own config, or the ensemble as a whole "
      "with its settings given as flags (--max-batch-size, --preferred-batch-size, ...) instead "
      "of --triton-config";
  advice.sequence =
      "give the settings as flags instead of --triton-config if its requests can be treated as "
      "independent";
  advice.instances =
      "give --instances (the concurrent executions per device the measured server ran)";
  const auto t =
      scenario::read_triton_config(a.triton_config, "--triton-config", a.instances > 0, advice);
  config_sha256 = t.sha256;
  calibration::ServerSettings s;
  s.max_batch_size = t.max_batch_size;
  s.dynamic_batching = t.dynamic_batching.has_value();
  if (t.dynamic_batching) {
    s.preferred_batch_size = t.dynamic_batching->preferred_batch_size;
    s.max_queue_delay = t.dynamic_batching->max_queue_delay;
  }
  s.instances = t.instances;

  std::vector<std::string> notes;
  // Triton's 0 and sonicsim's 0 mean different things; a reader of the file must see which.
  if (t.config_max_batch_size == 0 && a.max_batch_size < 0)
    notes.push_back("max_batch_size 0 read as 1 item per execution: no batch dimension");
  if (a.max_batch_size >= 0) {
    s.max_batch_size = a.max_batch_size;
    notes.push_back("max_batch_size overridden by --max-batch-size " +
                    std::to_string(a.max_batch_size));
  }
  if (a.no_dynamic_batching) {
    s.dynamic_batching = false;
    s.preferred_batch_size.clear();
    s.max_queue_delay = 0.0;
    notes.push_back(t.dynamic_batching ? "dynamic_batching turned off by --no-dynamic-batching"
                                       : "no dynamic_batching, as --no-dynamic-batching says");
  }
  // Batching flags over a config without dynamic_batching describe a server that had it, as a
  // scenario's dynamic_batching does over such a config.
  const bool had_batching = s.dynamic_batching;
  std::vector<std::string> batching_flags;
  if (a.no_preferred && had_batching && !s.preferred_batch_size.empty()) {
    s.preferred_batch_size.clear();
    notes.push_back("preferred_batch_size removed by --no-preferred-batch-size");
  }
  if (!a.preferred.empty()) {
    batching_flags.push_back("--preferred-batch-size " + sizes_text(a.preferred));
    s.preferred_batch_size = a.preferred;
    if (had_batching)
      notes.push_back("preferred_batch_size overridden by " + batching_flags.back());
  }
  if (delay) {
    batching_flags.push_back("--max-queue-delay " + a.max_queue_delay);
    s.max_queue_delay = *delay;
    if (had_batching)
      notes.push_back("max_queue_delay_microseconds overridden by " + batching_flags.back());
  }
  if (!had_batching && !batching_flags.empty()) {
    s.dynamic_batching = true;
    notes.push_back("dynamic_batching, absent there, set by " + join(batching_flags, " ") +
                    (delay ? "" : " (max_queue_delay 0)"));
  }
  if (a.instances > 0) {
    s.instances = a.instances;
    notes.push_back(
        (t.instance_groups ? "instance_group" : "instances (1 without instance_group)") +
        std::string(" overridden by --instances ") + std::to_string(a.instances));
  }
  s.source = a.triton_config + (notes.empty() ? "" : " (" + join(notes, "; ") + ")");
  return s;
}

// `config_sha256` is set when the settings come from a Triton config.
calibration::ServerSettings server_settings(const PerfArgs& a, std::string& config_sha256) {
  if (a.triton_config_given && a.triton_config.empty())
    throw UsageError("--triton-config: found an empty path, expected a Triton config.pbtxt file");
  if (a.no_dynamic_batching && (!a.preferred.empty() || !a.max_queue_delay.empty()))
    throw UsageError(std::string("--no-dynamic-batching: found with ") +
                     (a.preferred.empty() ? "--max-queue-delay" : "--preferred-batch-size") +
                     ", expected one or the other: that flag sets the dynamic batching "
                     "--no-dynamic-batching turns off");
  if (a.no_preferred && !a.preferred.empty())
    throw UsageError(
        "--no-preferred-batch-size: found with --preferred-batch-size, expected one or the "
        "other");
  const auto delay = queue_delay_flag(a);
  auto s = a.triton_config.empty() ? settings_from_flags(a, delay)
                                   : settings_from_config(a, delay, config_sha256);
  // Triton refuses such a config; the emulation would too, with a message about a scenario the
  // user never wrote.
  if (s.dynamic_batching && s.max_batch_size > 0)
    for (int p : s.preferred_batch_size)
      if (p > s.max_batch_size) {
        const bool flag_max = a.max_batch_size >= 0, flag_pref = !a.preferred.empty();
        throw UsageError(
            std::string(flag_pref ? "--preferred-batch-size" : "--max-batch-size") + ": found " +
            (flag_pref ? "preferred batch size " + std::to_string(p) + " above max_batch_size " +
                             std::to_string(s.max_batch_size) +
                             (flag_max ? " (--max-batch-size)" : " of " + a.triton_config)
                       : "max_batch_size " + std::to_string(s.max_batch_size) +
                             ", below the preferred_batch_size " + std::to_string(p) + " of " +
                             a.triton_config) +
            ", expected preferred sizes <= max_batch_size (0 = no limit)" +
            (flag_pref ? "" : "; give --preferred-batch-size too"));
      }
  return s;
}

// Bytes per item of the config's input or output tensors; empty when a dimension is variable or
// a type has no fixed size (`why` says which).
std::optional<double> config_payload(const std::string& file, bool input, std::string& why) {
  std::vector<sonicsim::Problem> problems;
  const auto src = triton::read_config(file, file, "--triton-config", {}, 1 << 30, problems);
  if (!src) return std::nullopt;
  double total = 0.0;
  for (const auto& t : input ? src->config.inputs : src->config.outputs) {
    scenario::TensorSpec spec{t.name, t.dims, triton::protocol_dtype(t.data_type)};
    bool fixed = spec.bytes() > 0.0;
    for (std::int64_t d : t.dims) fixed = fixed && d >= 1;
    if (!fixed) {
      why = std::string(input ? "input" : "output") + " `" + t.name + "` has dims " +
            triton::dims_text(t.dims) + " of " + t.data_type;
      return std::nullopt;
    }
    total += spec.bytes();
  }
  return total;
}

// The measured host (`--host-cores`) with the payload per item: each flag, else the config's
// tensors. Exit 2 when a payload is known from neither.
std::optional<calibration::HostSpec> host_spec(const PerfArgs& a) {
  if (!a.host_cores_given) {
    if (a.input_bytes >= 0.0 || a.output_bytes >= 0.0)
      throw UsageError(
          std::string(a.input_bytes >= 0.0 ? "--input-bytes-per-item" : "--output-bytes-per-item") +
          ": found without --host-cores, expected --host-cores N too (the bytes "
          "only serve the host stage's per-byte costs)");
    return std::nullopt;
  }
  calibration::HostSpec h;
  h.cores = a.host_cores;
  std::vector<std::string> from;
  for (const bool input : {true, false}) {
    const double flag = input ? a.input_bytes : a.output_bytes;
    const char* name = input ? "--input-bytes-per-item" : "--output-bytes-per-item";
    double& target = input ? h.input_bytes_per_item : h.output_bytes_per_item;
    if (flag >= 0.0) {
      target = flag;
      from.push_back(std::string(name) + " " + util::formatted("%g", flag));
      continue;
    }
    std::string why = "no --triton-config";
    const auto bytes =
        a.triton_config.empty() ? std::nullopt : config_payload(a.triton_config, input, why);
    if (!bytes)
      throw UsageError(std::string(name) + ": needed for --host-cores (" + why +
                       "), expected the payload per batch item in bytes, e.g. " + name + " 9760");
    target = *bytes;
    from.push_back(std::string(input ? "inputs" : "outputs") + " of " + a.triton_config);
  }
  h.bytes_from = join(from, ", ");
  return h;
}

int cmd_perf(const PerfArgs& a) {
  if (!a.output.empty()) check_writable(a.output);
  calibration::PerfCalibrationInput in;
  in.emulate = emulation::emulator();
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
  std::string config_sha256;
  in.server = server_settings(a, config_sha256);
  in.host = host_spec(a);
  for (const auto& f : a.files)
    in.scans.push_back(calibration::read_perf_analyzer_csv(
        f, a.batch_size > 0 ? std::optional<int>(a.batch_size) : std::nullopt));
  auto cal = calibration::calibrate_perf_analyzer(in);
  if (!a.triton_config.empty())
    cal.doc["server"]["triton_config"] = {{"path", a.triton_config}, {"sha256", config_sha256}};
  return write_calibration(cal, a.output, a.json);
}

}  // namespace

std::string recorded_command(const CLI::App& cmd, const std::string& head,
                             const std::vector<std::string>& skip) {
  std::ostringstream line;
  line << head;
  for (const auto* o : cmd.get_options()) {
    const std::string& name = o->get_name();
    if (!o->count() || name == "--help" || std::find(skip.begin(), skip.end(), name) != skip.end())
      continue;
    line << " " << name;
    // A flag's stored "true" is not what was typed.
    if (o->get_expected_max() == 0) continue;
    for (const auto& r : o->results()) line << " " << r;
  }
  return line.str();
}

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
      ->check(whole_number(1, 1000000));
  pa->add_option("--triton-config", perf.triton_config,
                 "The measured server's config.pbtxt: max_batch_size, dynamic_batching and "
                 "instance_group read as a scenario's triton_config reads them; the flags below "
                 "override single fields");
  pa->add_option("--max-batch-size", perf.max_batch_size,
                 "The measured server's max_batch_size (0 = no limit)")
      ->check(whole_number(0, 1000000));
  pa->add_option("--preferred-batch-size", perf.preferred,
                 "The measured server's preferred batch sizes")
      ->check(whole_number(1, 1000000));
  pa->add_option("--max-queue-delay", perf.max_queue_delay,
                 "The measured server's max_queue_delay (e.g. 100us; default 0)");
  pa->add_flag("--no-dynamic-batching", perf.no_dynamic_batching,
               "The measured server ran without dynamic batching");
  pa->add_flag("--no-preferred-batch-size", perf.no_preferred,
               "The measured server batched without the config's preferred batch sizes");
  pa->add_option("--instances", perf.instances,
                 "Model instances per device on the measured "
                 "server (default 1)")
      ->check(whole_number(1, 1000));
  pa->add_option("--host-cores", perf.host_cores,
                 "CPU cores of the measured server's host: the server column becomes host CPU "
                 "work (host_cost) on them, replayed with the host stage")
      ->check(whole_number(1, scenario::Limits::max_host_cores));
  pa->add_option("--input-bytes-per-item", perf.input_bytes,
                 "Request payload per batch item, bytes (default: the Triton config's input "
                 "tensors)")
      ->check(CLI::Range(0.0, 1e12));
  pa->add_option("--output-bytes-per-item", perf.output_bytes,
                 "Response payload per batch item, bytes (default: the Triton config's output "
                 "tensors)")
      ->check(CLI::Range(0.0, 1e12));
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
                   perf.triton_config_given = pa->count("--triton-config") > 0;
                   perf.host_cores_given = pa->count("--host-cores") > 0;
                   return cmd_perf(perf);
                 }});

  add_calibrate_scan_command(calibrate, out);
  add_calibrate_overlap_command(calibrate, out);
  add_calibrate_prometheus_command(calibrate, out);
  add_calibrate_nodes_command(calibrate, out);
}

}  // namespace sonicsim::cli
