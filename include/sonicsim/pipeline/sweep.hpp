// Sweeps as `sonicsim sweep` and `sonicsim merge` run them: a grid of points simulated K at a
// time in child processes into a CSV (a row per point) and a JSONL (a line per run) that survive
// an interrupt and resume; shards of one sweep merged back into one table; or the shards run on
// Slurm or HTCondor and merged. They print their progress and their report as the commands do.
// The grid, the statistics and the table's text are sweep/'s (sweep/sweep.hpp, sweep/batch.hpp).
//
// Files: sweep_run.cpp (define, dry run, run here), sweep_resume.cpp (what --resume keeps),
// sweep_records.cpp (the JSONL lines and CSV rows), sweep_merge.cpp, sweep_launch.cpp (batch
// systems), progress.cpp and stop_signals.cpp.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <sonicsim/pipeline/scenario_run.hpp>
#include <sonicsim/util/errors.hpp>

namespace sonicsim::pipeline {

// Exit codes beyond 0, 1 and 2: some points failed (their rows carry the error) or merge found
// points missing; and the shell's code for an interrupt (--resume finishes the sweep).
constexpr int kExitSomeFailed = 3;
constexpr int kExitInterrupted = 130;

struct SweepRequest {
  scenario::Source scenario;
  std::vector<std::string> params, zips;  // --param and --zip as given
  std::size_t replications = 1;
  int workers = 0;  // <= 0: the cores
  std::string output, jsonl, shard;
  bool resume = false, dry_run = false;
  // --samples N: the samples of the uncertainty block (--uncertainty FILE's when given) as the
  // last dimension of the grid (docs/uncertainty-samples.md); 0: none.
  std::size_t samples = 0;
  std::string sampling, uncertainty;
  long long sampling_seed = -1;  // the design's; < 0: the block's, else the scenario's
  // The JSONL file: --jsonl, or the CSV's name with .jsonl for .csv.
  std::string jsonl_path() const;
};

// On a batch system (README "Sweeps on Slurm and HTCondor", docs/sweep.md).
struct BatchRequest {
  bool slurm = false, condor = false, no_wait = false;
  std::string batch_dir;
  std::size_t tasks = 0, max_running = 0;
  int cpus_per_task = 1;
  std::string partition, time, account, qos, memory, request_memory;
  std::vector<std::string> sbatch_options, condor_commands;
};

// OUT.csv -> OUT.jsonl; any other name gets .jsonl appended.
std::string jsonl_path_of(const std::string& csv);

// `sonicsim sweep` after its flags are checked: defines the sweep (the scenario must load and
// every --param must have a value it accepts), then lists it (dry run), runs it here (resuming
// when asked) or on the batch system. Returns the exit code: 0, kExitSomeFailed or
// kExitInterrupted; throws scenario::InputError, OutputError, WriteError or BatchSystemError.
int sweep(const SweepRequest& request, const BatchRequest& batch);

struct MergeRequest {
  std::vector<std::string> inputs;  // shard CSVs
  std::string output, jsonl;        // jsonl empty: beside output
};
// `sonicsim merge`: returns 0, or kExitSomeFailed when points are missing. `failed`, when given,
// receives the number of rows whose simulations failed.
int merge(const MergeRequest& request, std::size_t* failed = nullptr);

// The batch system could not take the sweep (no sbatch, a refused submission): the user's
// environment, exit code 2 like a bad flag.
class BatchSystemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sonicsim::pipeline
