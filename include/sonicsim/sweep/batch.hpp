// A sweep on a batch system: the files `sonicsim sweep --slurm|--condor` writes so that each
// array task (Slurm) or job (HTCondor) runs one shard of the sweep, `--shard I/N`, into its own
// CSV and JSONL, which `sonicsim merge` then combines (README "Sweeps on Slurm and HTCondor").
//
// Only text is made here (no process is started), so every file is unit-testable. The tasks
// run the same binary on the same scenario paths: the batch directory, the binary and the
// scenario must be visible from the worker nodes (a shared filesystem, as on most HPC sites).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sonicsim::sweep {

struct BatchJob {
  std::string sonicsim;                 // absolute path of the binary the tasks run
  std::string workdir;                  // absolute: where relative paths in the arguments resolve
  std::string dir;                      // absolute: scripts, shard outputs and logs
  std::vector<std::string> sweep_args;  // after `sonicsim sweep`: the scenario and the flags
                                        // that define the sweep (not -o, --shard, --workers)
  std::string sweep_id;
  std::size_t tasks = 1;        // shards, one per array task / job
  std::size_t max_running = 0;  // Slurm `%M`; 0: no limit
  int cpus_per_task = 1;        // each task runs this many simulations at once
  std::string partition, time, account, qos, memory;  // Slurm (empty: the site's default)
  std::vector<std::string> sbatch_options;            // more `#SBATCH` lines, e.g. --constraint=x
  std::string request_memory;                         // HTCondor request_memory (empty: default)
  std::vector<std::string> condor_commands;           // more submit commands, `key = value`
};

// POSIX shell single quoting: safe for any text, including quotes and newlines.
std::string shell_quote(const std::string& text);

// Paths inside dir: the shard task script, the Slurm batch script, the HTCondor submit file,
// shard I's CSV (I from 1), and the logs directory.
std::string shard_script_path(const BatchJob& job);
std::string slurm_script_path(const BatchJob& job);
std::string condor_submit_path(const BatchJob& job);
std::string shard_csv_path(const BatchJob& job, std::size_t shard);
std::string logs_dir(const BatchJob& job);

// `shard.sh [--zero-based] I` runs shard I of N (1-based; HTCondor's $(Process) is 0-based)
// with --resume, so a requeued or repeated task keeps the points it already finished. Exit 3
// (some points failed, their rows carry the error) counts as done: only a task that could not
// run its shard fails.
std::string shard_script(const BatchJob& job);
// The sbatch script: `#SBATCH --array=1-N[%M]` and the options, then runs shard.sh.
std::string slurm_script(const BatchJob& job);
// The HTCondor submit description: `queue N` jobs of shard.sh.
std::string condor_submit(const BatchJob& job);

// Throws scenario::InputError naming `flag` when a Slurm or HTCondor option holds a newline
// (it would end the directive and start a command).
void check_batch_options(const BatchJob& job);

}  // namespace sonicsim::sweep
