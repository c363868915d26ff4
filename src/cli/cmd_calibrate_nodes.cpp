// calibrate nodes: a worker node's speed model (workload.node) and t1 from per-job throughputs
// of a CPU-only job at several jobs per node (calibration/node_fit.hpp).
#include <sonicsim/calibration/node_fit.hpp>
#include <sonicsim/scenario/limits.hpp>
#include <sonicsim/util/files.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct NodesArgs {
  std::string measurements, output;
  int cores = 0, threads_per_core = 0;
  bool memory_bandwidth = false, json = false;
};

int cmd_calibrate_nodes(const NodesArgs& a, const std::string& command_line) {
  if (!a.output.empty()) check_writable(a.output);
  const auto m = calibration::read_node_measurements(a.measurements);
  const auto fit = calibration::fit_node(m, {a.cores, a.threads_per_core, a.memory_bandwidth});
  // The fragment is for pasting into a scenario's workload: the loader must accept it.
  return write_fragment(calibration::to_json(fit, m, command_line).dump(2) + "\n",
                        calibration::to_text(fit, m), a.output, a.json, node_read_back(), "node");
}

}  // namespace

void add_calibrate_nodes_command(CLI::App* calibrate, Commands& out) {
  static NodesArgs args;
  auto* cmd = calibrate->add_subcommand(
      "nodes",
      "Fit a worker node's speed model (workload.node: hyperthread, memory_bandwidth_threads) "
      "and cpu_time_per_event from the throughput per job of a CPU-only job at several jobs per "
      "node");
  cmd->add_option("measurements", args.measurements,
                  "CSV with a header row and the columns jobs_per_node, threads_per_job, "
                  "throughput_per_job (events per second per job); other columns are ignored")
      ->required();
  cmd->add_option("--cores", args.cores, "Physical cores of the measured node")
      ->required()
      ->check(whole_number(1, scenario::Limits::max_host_cores));
  cmd->add_option("--threads-per-core", args.threads_per_core,
                  "Hardware threads per core of the measured node (2 with hyper-threading)")
      ->required()
      ->check(whole_number(1, 8));
  cmd->add_flag("--memory-bandwidth", args.memory_bandwidth,
                "Also fit memory_bandwidth_threads, the node's throughput cap (reported as not "
                "identified when the measurements never reach it)");
  cmd->add_option("-o,--output", args.output,
                  "Write the workload fragment and the fit (intervals, residuals) as JSON here");
  cmd->add_flag("--json", args.json, "Print the JSON instead of the summary");
  out.push_back({cmd, [cmd] {
                   return cmd_calibrate_nodes(
                       args, recorded_command(*cmd, "sonicsim calibrate nodes " + args.measurements,
                                              {"measurements"}));
                 }});
}

}  // namespace sonicsim::cli
