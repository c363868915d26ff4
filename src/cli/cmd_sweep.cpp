// sweep, merge: parameter grids, one process per simulation, resumable tables (README "Sweeps",
// docs/sweep.md). The work is pipeline/sweep.hpp's; here are the flags and their combinations.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <sonicsim/pipeline/sweep.hpp>
#include <sonicsim/uncertainty/inputs.hpp>

#include "checks.hpp"
#include "command.hpp"

namespace sonicsim::cli {

namespace {

struct SweepArgs {
  pipeline::SweepRequest sweep;
  pipeline::BatchRequest batch;
};

void check_batch_flags(const pipeline::BatchRequest& a, const std::string& shard) {
  if (a.slurm && a.condor) throw UsageError("sweep: --slurm and --condor exclude each other");
  const bool batch = a.slurm || a.condor;
  if (batch && !shard.empty())
    throw UsageError("sweep: --shard with --" + std::string(a.slurm ? "slurm" : "condor") +
                     ": the batch system runs every shard itself (set their number with --tasks)");
  const std::vector<std::pair<const char*, bool>> slurm_only{
      {"--partition", !a.partition.empty()}, {"--time", !a.time.empty()},
      {"--account", !a.account.empty()},     {"--qos", !a.qos.empty()},
      {"--mem", !a.memory.empty()},          {"--sbatch-option", !a.sbatch_options.empty()},
      {"--max-running", a.max_running > 0},  {"--no-wait", a.no_wait}};
  for (const auto& [flag, given] : slurm_only)
    if (given && !a.slurm) throw UsageError(std::string("sweep: ") + flag + " needs --slurm");
  const std::vector<std::pair<const char*, bool>> condor_only{
      {"--request-memory", !a.request_memory.empty()},
      {"--condor-command", !a.condor_commands.empty()}};
  for (const auto& [flag, given] : condor_only)
    if (given && !a.condor) throw UsageError(std::string("sweep: ") + flag + " needs --condor");
  const std::vector<std::pair<const char*, bool>> either{{"--batch-dir", !a.batch_dir.empty()},
                                                         {"--tasks", a.tasks > 0},
                                                         {"--cpus-per-task", a.cpus_per_task != 1}};
  for (const auto& [flag, given] : either)
    if (given && !batch)
      throw UsageError(std::string("sweep: ") + flag + " needs --slurm or --condor");
}

int cmd_sweep(const SweepArgs& a) {
  if (a.sweep.output == a.sweep.jsonl_path())
    throw UsageError("sweep: --jsonl must differ from -o (" + a.sweep.output + ")");
  check_batch_flags(a.batch, a.sweep.shard);
  for (const auto& [flag, given] :
       std::vector<std::pair<const char*, bool>>{{"--sampling", !a.sweep.sampling.empty()},
                                                 {"--uncertainty", !a.sweep.uncertainty.empty()},
                                                 {"--sampling-seed", a.sweep.sampling_seed >= 0}})
    if (given && a.sweep.samples == 0)
      throw UsageError(std::string("sweep: found ") + flag +
                       " without --samples, expected --samples N with it");
  return pipeline::sweep(a.sweep, a.batch);
}

}  // namespace

void add_sweep_commands(CLI::App& app, Commands& out) {
  static SweepArgs args;
  auto* cmd = app.add_subcommand(
      "sweep",
      "Simulate a grid of parameter values, each run in its own process, K at a time: a CSV "
      "row per point (mean and 95% CI over replications) and the full results as JSONL. Exit 0 "
      "all points ran, 3 some failed (rows carry the error), 2 bad input, 130 interrupted "
      "(--resume finishes)");
  add_scenario_args(cmd, args.sweep.scenario);
  add_budgets(cmd);
  cmd->add_option("--param", args.sweep.params,
                  "PATH=VALUES, repeatable: a list 1,2,4 (JSON values or words like 2.5ms), a "
                  "range A:B:STEP, a geometric range A:B:xF or a log range log:A:B:N; bounds may "
                  "carry a unit (100us:1000us:100us). Points: the Cartesian product, first "
                  "--param slowest")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--zip", args.sweep.zips,
                  "PATH,PATH,...: these --param parameters move together (same number of "
                  "values), e.g. --zip workload.jobs,servers.0.count; repeatable")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--replications", args.sweep.replications,
                  "Simulations per point with distinct derived seeds (default 1)")
      ->check(whole_number(1, 100000));
  cmd->add_option("--samples", args.sweep.samples,
                  "N samples of the scenario's uncertainty block at every point: one more grid "
                  "dimension, the last (column param.sample), and OUT.quantiles.csv with "
                  "p05/p50/p95 over the samples per point (docs/uncertainty-samples.md)")
      ->check(whole_number(1, uncertainty::kMaxSamples));
  cmd->add_option("--sampling", args.sweep.sampling,
                  "--samples: the design, lhs or sobol (default: the block's method, else lhs)");
  cmd->add_option("--sampling-seed", args.sweep.sampling_seed,
                  "--samples: the design's seed (default: the block's, else the scenario's)")
      ->check(whole_number(0, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--uncertainty", args.sweep.uncertainty,
                  "--samples: take the uncertainty block from this file instead of the scenario");
  cmd->add_option("--workers", args.sweep.workers,
                  "Simulations running at once, each in its own process (default: the cores)")
      ->check(whole_number(1, 4096));
  cmd->add_option("-o,--output", args.sweep.output, "The sweep CSV (one row per point)")
      ->required();
  cmd->add_option("--jsonl", args.sweep.jsonl,
                  "The full results, one run per line (default: -o with .jsonl for .csv)");
  cmd->add_flag("--resume", args.sweep.resume,
                "Keep the points already complete in the output files and run the others");
  cmd->add_option("--shard", args.sweep.shard,
                  "I/N: run only the points whose index % N == I-1 (merge the shards with "
                  "sonicsim merge)");
  cmd->add_flag("--dry-run", args.sweep.dry_run,
                "Print the sweep id and its points, simulate nothing (with --slurm: write the "
                "batch files, submit nothing)");
  // On a batch system: README "Sweeps on Slurm and HTCondor", docs/sweep.md.
  cmd->add_flag("--slurm", args.batch.slurm,
                "Run the shards as a Slurm job array (sbatch --array), wait, and merge into -o");
  cmd->add_flag("--condor", args.batch.condor,
                "Write an HTCondor submit file for the shards (condor_submit it, then merge)");
  cmd->add_option("--batch-dir", args.batch.batch_dir,
                  "Scripts, shard outputs and logs (default: -o with .batch for .csv); on a "
                  "filesystem the worker nodes share");
  cmd->add_option("--tasks", args.batch.tasks,
                  "Shards, one per array task or job (default: one per point, at most 1000)")
      ->check(whole_number(1, 10000000));
  cmd->add_option("--cpus-per-task", args.batch.cpus_per_task,
                  "Cores per task; each task runs that many simulations at once (default 1)")
      ->check(whole_number(1, 4096));
  cmd->add_flag("--no-wait", args.batch.no_wait,
                "--slurm: submit and return; print the merge command to run when it is done");
  cmd->add_option("--partition", args.batch.partition, "--slurm: #SBATCH --partition");
  cmd->add_option("--time", args.batch.time, "--slurm: #SBATCH --time per task, e.g. 1:00:00");
  cmd->add_option("--account", args.batch.account, "--slurm: #SBATCH --account");
  cmd->add_option("--qos", args.batch.qos, "--slurm: #SBATCH --qos");
  cmd->add_option("--mem", args.batch.memory, "--slurm: #SBATCH --mem per task, e.g. 2G");
  cmd->add_option("--max-running", args.batch.max_running,
                  "--slurm: at most this many tasks at once (--array=1-N%M)")
      ->check(whole_number(1, 1000000));
  cmd->add_option("--sbatch-option", args.batch.sbatch_options,
                  "--slurm: another #SBATCH line, e.g. --sbatch-option=--constraint=skylake; "
                  "repeatable");
  cmd->add_option("--request-memory", args.batch.request_memory,
                  "--condor: request_memory per job, e.g. 2GB");
  cmd->add_option("--condor-command", args.batch.condor_commands,
                  "--condor: another submit command, e.g. '+JobFlavour = \"longlunch\"'; "
                  "repeatable");
  out.push_back({cmd, [] { return cmd_sweep(args); }, &args.sweep.scenario});

  static pipeline::MergeRequest merge_args;
  auto* merge = app.add_subcommand(
      "merge",
      "Combine the CSVs (and JSONLs beside them) of shards of one sweep into one, in point "
      "order; refuses shards of different sweeps (exit 2); exit 3 when points are missing");
  merge->add_option("inputs", merge_args.inputs, "Shard CSVs written by sonicsim sweep --shard")
      ->required();
  merge->add_option("-o,--output", merge_args.output, "The merged CSV")->required();
  merge->add_option("--jsonl", merge_args.jsonl,
                    "The merged JSONL (default: -o with .jsonl for .csv)");
  out.push_back({merge, [] { return pipeline::merge(merge_args); }});
}

}  // namespace sonicsim::cli
