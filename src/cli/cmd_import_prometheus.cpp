// import prometheus: Prometheus query_range exports of Triton's and Envoy's metrics into a
// measurements file (telemetry/prometheus_import.hpp), and optionally the measured client load
// as a partial scenario.
#include <cmath>
#include <iostream>

#include <sonicsim/runner/memory.hpp>
#include <sonicsim/scenario/units.hpp>
#include <sonicsim/telemetry/prometheus_import.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/json_text.hpp>
#include <sonicsim/util/wall_time.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct PromArgs {
  std::vector<std::string> files;
  std::string output, flow_overlay, start, end;
  std::string pool_label = "release", replica_label = "pod";
  std::string step;
  bool json = false;
};

std::optional<double> time_flag(const std::string& flag, const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto t = util::parse_wall_time(text);
  if (!t)
    throw UsageError(flag + ": found \"" + text +
                     "\", expected unix seconds (1732700000) or RFC 3339 "
                     "(2024-11-27T10:00:00Z) " +
                     util::wall_time_range());
  return t;
}

int cmd_import_prometheus(const PromArgs& a) {
  check_distinct_outputs({{"-o", a.output}, {"--flow-overlay", a.flow_overlay}});
  check_writable(a.output);
  if (!a.flow_overlay.empty()) check_writable(a.flow_overlay);
  telemetry::ImportOptions o;
  o.pool_label = a.pool_label;
  o.replica_label = a.replica_label;
  o.memory_budget = runner::memory_budget().value();
  o.start = time_flag("--start", a.start);
  o.end = time_flag("--end", a.end);
  if (!a.step.empty()) {
    // Seconds, or a time with its unit as the scenario takes them ("15s", "1min").
    std::string error;
    nlohmann::json value = a.step;
    if (const auto number = parse_json_value(a.step); number && number->is_number())
      value = *number;
    const auto t = scenario::parse_quantity(value, scenario::Quantity::Time, error);
    if (!t || !std::isfinite(*t) || *t <= 0.0)
      throw UsageError("--step: found \"" + a.step +
                       "\", expected a time > 0 (15, \"15s\", \"1min\")" +
                       (error.empty() ? "" : ": " + error));
    o.step_s = *t;
  }
  const auto r = telemetry::import_prometheus(a.files, o);
  std::vector<Output> out = {
      {a.output, telemetry::to_json(r.measurements).dump(1) + "\n", measurements_read_back()}};
  if (!a.flow_overlay.empty())
    out.emplace_back(a.flow_overlay,
                     telemetry::flow_overlay(r.measurements, "--flow-overlay").dump(2) + "\n",
                     flow_overlay_read_back());
  write_all_or_none(out);
  if (a.json) {
    std::cout << telemetry::summary_json(r).dump(2) << "\n";
  } else {
    std::cout << telemetry::summary_text(r) << "measurements written to " << a.output << "\n";
    if (!a.flow_overlay.empty())
      std::cout << "measured client load written to " << a.flow_overlay << "\n";
  }
  return 0;
}

}  // namespace

void add_import_prometheus_command(CLI::App* import, Commands& out) {
  static PromArgs args;
  auto* cmd = import->add_subcommand(
      "prometheus",
      "Turn Prometheus query_range exports of Triton's and Envoy's metrics into a measurements "
      "file: rates, batch sizes, times per request, replicas, GPU use, the autoscaler's metric "
      "and the clients, per window");
  cmd->add_option("files", args.files,
                  "JSON responses of /api/v1/query_range (one per file, or a JSON array of them)")
      ->required();
  cmd->add_option("-o,--output", args.output, "Write the measurements file (JSON) here")
      ->required();
  cmd->add_option("--step", args.step,
                  "Window length: seconds or a time with its unit (15, 15s, 1min; default: the "
                  "smallest sample spacing, to the ms)");
  cmd->add_option("--start", args.start,
                  "First window's start: unix seconds or RFC 3339 (default: the first sample)");
  cmd->add_option("--end", args.end,
                  "Last window's end: unix seconds or RFC 3339 (default: the last sample)");
  cmd->add_option("--pool-label", args.pool_label,
                  "The label that names a pool of servers (missing: one pool named \"all\")")
      ->capture_default_str();
  cmd->add_option("--replica-label", args.replica_label,
                  "The label that names a server (missing: `instance`)")
      ->capture_default_str();
  cmd->add_option("--flow-overlay", args.flow_overlay,
                  "Also write the measured client load (Envoy's connections as running jobs) as "
                  "a partial scenario {\"workload\": {\"flow\": {\"running\": ...}}}");
  cmd->add_flag("--json", args.json, "Print the summary as JSON");
  add_budget(cmd, runner::memory_budget(),
             "Refuse an import whose estimated peak memory is above SIZE (512MiB, 8GiB, "
             "unlimited); default: the smaller of 8 GiB and 75% of the machine's memory",
             "SIZE");
  out.push_back({cmd, [] { return cmd_import_prometheus(args); }});
}

}  // namespace sonicsim::cli
