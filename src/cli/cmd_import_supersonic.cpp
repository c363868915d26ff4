// import supersonic: SuperSONIC's Helm values into a scenario (deployment/supersonic.hpp). The
// values and the overlay are read, mapped and validated before anything is written; the scenario
// and the --report JSON are written all or none.
#include <iostream>

#include <sonicsim/deployment/supersonic.hpp>
#include <sonicsim/util/files.hpp>

#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct ImportSupersonicArgs {
  std::vector<std::string> values, more_values;
  std::vector<std::string> overlays;
  std::string output, report, release = "supersonic", device, chart_version, chart_dir;
  bool strict = false;
};

int cmd_import_supersonic(const ImportSupersonicArgs& a) {
  check_distinct_outputs({{"-o", a.output}, {"--report", a.report}});
  check_writable(a.output);
  if (!a.report.empty()) check_writable(a.report);
  deployment::SupersonicOptions options;
  options.values_files = a.values;
  options.values_files.insert(options.values_files.end(), a.more_values.begin(),
                              a.more_values.end());
  if (!a.overlays.empty()) {
    options.overlay = a.overlays.front();
    options.more_overlays.assign(a.overlays.begin() + 1, a.overlays.end());
  }
  options.release = a.release;
  options.device = a.device;
  options.strict = a.strict;
  options.chart_version = a.chart_version;
  options.chart_dir = a.chart_dir;
  options.output = a.output;
  const auto imported = deployment::import_supersonic(options);
  std::vector<Output> files{{a.output, imported.scenario.dump(2) + "\n", scenario_read_back()}};
  if (!a.report.empty())
    files.push_back({a.report, deployment::to_json(imported.report).dump(2) + "\n"});
  write_all_or_none(files);
  std::cout << deployment::to_text(imported.report) << "\nscenario written to " << a.output
            << (a.report.empty() ? "" : ", report to " + a.report) << "\n";
  return 0;
}

}  // namespace

void add_import_supersonic_command(CLI::App* import, Commands& out) {
  static ImportSupersonicArgs args;
  auto* cmd = import->add_subcommand(
      "supersonic",
      "Turn SuperSONIC Helm values (chart 0.1.0 to 0.3.1, detected from the keys) into a "
      "scenario: one server pool, its KEDA autoscaler, Envoy's policy and rate limiters; the "
      "rest from --overlay");
  cmd->add_option("values", args.values,
                  "Helm values files, merged in order over the chart's defaults (as helm -f)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--values,-f", args.more_values, "More values files, after the positional ones")
      ->check(CLI::ExistingFile);
  cmd->add_option("--overlay", args.overlays,
                  "A partial scenario (JSON) for what the values cannot say: workload, models, "
                  "service times, network, duration; its servers[0] is the pool's template. "
                  "Several: each laid over the ones before (JSON merge patch), e.g. the measured "
                  "client load of import prometheus --flow-overlay")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args.output, "The scenario JSON to write")->required();
  cmd->add_option("--report", args.report, "Also write the report as JSON here");
  cmd->add_option("--release", args.release,
                  "Helm release name: the pool's name when nameOverride is empty")
      ->capture_default_str();
  cmd->add_option("--device", args.device,
                  "The pool's device name (as the overlay's service_time names it), over the "
                  "values' nvidia.com/gpu.product");
  cmd->add_flag("--strict", args.strict,
                "Keys that would change the deployment but cannot be mapped, and unknown keys, "
                "are errors (exit 2)");
  cmd->add_option("--chart-version", args.chart_version,
                  "The chart release the values are written for (0.1.0 ... 0.3.1); default: "
                  "detected from their keys");
  cmd->add_option("--chart", args.chart_dir,
                  "A SuperSONIC chart checkout (helm/supersonic): its Chart.yaml, values.yaml and "
                  "values.schema.json instead of the built-in ones")
      ->check(CLI::ExistingDirectory);
  out.push_back({cmd, [] { return cmd_import_supersonic(args); }});
}

}  // namespace sonicsim::cli
