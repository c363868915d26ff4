// A sweep on a batch system: the batch directory is claimed for this sweep, the shard script and
// the Slurm batch script (or the HTCondor submit file) are written (sweep/batch.hpp makes their
// text); with Slurm the job array is submitted with sbatch --wait, its progress read from the
// shards' files, and the shards merged into the sweep's -o when it ends.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>

#include <sonicsim/results/results.hpp>
#include <sonicsim/runner/memory.hpp>
#include <sonicsim/runner/work_estimate.hpp>
#include <sonicsim/sweep/batch.hpp>
#include <sonicsim/util/files.hpp>
#include <sonicsim/util/format.hpp>

#include "progress.hpp"
#include "stop_signals.hpp"
#include "sweep_steps.hpp"

namespace sonicsim::pipeline {

namespace {

std::string absolute_path(const std::string& path) {
  std::error_code ec;
  auto p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// Starts argv (found on PATH) with stdin from /dev/null and stdout into a pipe; each line of
// its output goes to on_line, and on_idle runs about once a second while it runs. Returns the
// exit status (128 + signal when killed), or -1 with `error` set when it could not start.
int run_watched(const std::vector<std::string>& argv,
                const std::function<void(const std::string&)>& on_line,
                const std::function<void()>& on_idle, std::string& error) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::vector<char*> args;
  for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    error = std::strerror(rc);
    return -1;
  }
  std::string pending;
  char buffer[4096];
  for (;;) {
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      on_idle();
      continue;
    }
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      on_line(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  ::close(fds[0]);
  if (!pending.empty()) on_line(pending);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void write_file(const std::string& path, const std::string& text, bool executable = false) {
  write_atomically(path, text);
  if (executable && ::chmod(path.c_str(), 0755) != 0)
    throw OutputError(path + ": cannot make it executable: " + std::strerror(errno));
}

// The batch directory holds one sweep's shards: --resume in the tasks would refuse another's.
void claim_batch_dir(const std::string& dir, const std::string& id) {
  std::error_code ec;
  std::filesystem::create_directories(dir + "/shards", ec);
  if (!ec) std::filesystem::create_directories(dir + "/logs", ec);
  if (ec) throw OutputError(dir + ": cannot create the batch directory: " + ec.message());
  const std::string id_file = dir + "/sweep_id";
  std::string existing;
  if (read_text(id_file, existing)) {
    while (!existing.empty() && std::isspace(static_cast<unsigned char>(existing.back())))
      existing.pop_back();
    if (!existing.empty() && existing != id)
      throw scenario::InputError(
          dir, {{"", "found the shards of sweep " + existing + ", expected " + id +
                         " (this sweep): remove the directory or choose another "
                         "--batch-dir"}});
  }
  write_file(id_file, id + "\n");
}

std::size_t runs_written(const sweep::BatchJob& job) {
  std::size_t runs = 0;
  for (std::size_t i = 1; i <= job.tasks; ++i) {
    std::string text;
    if (read_text(jsonl_path_of(sweep::shard_csv_path(job, i)), text))
      runs += complete_lines(text).size();
  }
  return runs;
}

std::string merge_command(const sweep::BatchJob& job, const SweepRequest& a) {
  return "sonicsim merge " + sweep::shell_quote(job.dir) + "/shards/shard-*.csv -o " +
         sweep::shell_quote(a.output) +
         (a.jsonl.empty() ? "" : " --jsonl " + sweep::shell_quote(a.jsonl));
}

// The job the tasks run: this binary, from this directory, on the sweep as given.
sweep::BatchJob batch_job_of(const SweepRequest& a, const BatchRequest& b,
                             const SweepDefinition& d) {
  sweep::BatchJob job;
  std::error_code ec;
  job.sonicsim = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw OutputError("cannot find the sonicsim binary: " + ec.message());
  job.workdir = std::filesystem::current_path().string();
  std::string dir = b.batch_dir;
  if (dir.empty()) {
    const std::string jsonl = jsonl_path_of(a.output);  // OUT.csv -> OUT.batch
    dir = jsonl.substr(0, jsonl.size() - 6) + ".batch";
  }
  job.dir = absolute_path(dir);
  job.sweep_id = d.id;
  // As given: the tasks start in workdir, and error messages name the file as the user did.
  auto& args = job.sweep_args;
  args.push_back(a.scenario.scenario_path);
  for (const auto& s : a.scenario.sets) args.insert(args.end(), {"--set", s});
  if (a.scenario.seed >= 0) args.insert(args.end(), {"--seed", std::to_string(a.scenario.seed)});
  for (const auto& p : a.params) args.insert(args.end(), {"--param", p});
  for (const auto& z : a.zips) args.insert(args.end(), {"--zip", z});
  args.insert(args.end(), {"--replications", std::to_string(a.replications)});
  if (a.samples > 0) args.insert(args.end(), {"--samples", std::to_string(a.samples)});
  if (!a.sampling.empty()) args.insert(args.end(), {"--sampling", a.sampling});
  if (!a.uncertainty.empty()) args.insert(args.end(), {"--uncertainty", a.uncertainty});
  if (a.sampling_seed >= 0)
    args.insert(args.end(), {"--sampling-seed", std::to_string(a.sampling_seed)});
  // The budget the user gave; without one each task takes its own node's default.
  for (runner::Budget* budget : {&runner::memory_budget(), &runner::time_budget()})
    if (budget->given()) args.insert(args.end(), {budget->flag(), budget->argument()});
  // Slurm's default MaxArraySize is 1001: at most 1000 shards unless asked.
  job.tasks = std::min(d.n_points, b.tasks ? b.tasks : std::size_t{1000});
  job.max_running = b.max_running;
  job.cpus_per_task = b.cpus_per_task;
  job.partition = b.partition;
  job.time = b.time;
  job.account = b.account;
  job.qos = b.qos;
  job.memory = b.memory;
  job.sbatch_options = b.sbatch_options;
  job.request_memory = b.request_memory;
  job.condor_commands = b.condor_commands;
  sweep::check_batch_options(job);
  return job;
}

// Merges what the shards wrote into the sweep's -o: exit 3 when points failed or are missing.
int merge_shards(const sweep::BatchJob& job, const SweepRequest& a) {
  MergeRequest merge_request;
  for (std::size_t i = 1; i <= job.tasks; ++i) {
    std::string text;
    const auto csv = sweep::shard_csv_path(job, i);
    if (read_text(csv, text) && !text.empty()) merge_request.inputs.push_back(csv);
  }
  if (merge_request.inputs.empty())
    throw scenario::InputError(
        job.dir + "/shards",
        {{"", "found no shard output, expected " + std::to_string(job.tasks) +
                  " CSVs: no task ran its shard (see " + sweep::logs_dir(job) + ")"}});
  merge_request.output = a.output;
  merge_request.jsonl = a.jsonl;
  std::size_t failed = 0;
  const int merged = merge(merge_request, &failed);
  if (failed)
    std::cerr << "sonicsim sweep: " << failed << " failed points (their rows carry the error)\n";
  return merged != 0 || failed ? kExitSomeFailed : 0;
}

// sbatch [--wait] the job array, reporting the runs the shards have written while it runs.
int submit_to_slurm(const sweep::BatchJob& job, const std::string& script, const SweepRequest& a,
                    const BatchRequest& b, const SweepDefinition& d) {
  std::vector<std::string> argv{"sbatch", "--parsable"};
  if (!b.no_wait) argv.push_back("--wait");
  argv.push_back(script);
  const bool tty = ::isatty(2);
  const std::size_t total_runs = d.n_points * d.replications;
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  std::string job_id, error;
  StopSignals stop_signals;
  const int status = run_watched(
      argv,
      [&](const std::string& line) {
        if (!job_id.empty() || line.empty()) return;
        job_id = line.substr(0, line.find(';'));  // "jobid[;cluster]"
        std::cout << "submitted Slurm job array " << job_id << " (" << job.tasks
                  << (job.tasks == 1 ? " task" : " tasks") << "); logs in " << sweep::logs_dir(job)
                  << (b.no_wait ? "" : "; waiting for it to finish") << "\n"
                  << std::flush;
      },
      [&] {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_report < std::chrono::seconds(tty ? 1 : 60)) return;
        last_report = now;
        const double elapsed = std::chrono::duration<double>(now - start).count();
        std::cerr << (tty ? "\r" : "") << "sweep: " << std::min(runs_written(job), total_runs)
                  << "/" << total_runs << " runs written by the shards, " << clock_text(elapsed)
                  << " elapsed" << (tty ? "\033[K" : "\n") << std::flush;
      },
      error);
  stop_signals.restore();
  if (tty) std::cerr << "\r\033[K";
  if (status < 0)
    throw BatchSystemError("sweep --slurm: cannot run sbatch: " + error +
                           " (is this a Slurm submit host? --condor writes HTCondor files "
                           "instead)");
  if (job_id.empty())
    throw BatchSystemError("sweep --slurm: sbatch did not submit the job array (exit " +
                           std::to_string(status) + "; its message is above); the script is " +
                           script);
  if (StopSignals::raised()) {
    std::cerr << "sonicsim sweep: interrupted while waiting; Slurm job array " << job_id
              << " keeps running (scancel " << job_id
              << " stops it); when it is done: " << merge_command(job, a) << "\n";
    return kExitInterrupted;
  }
  if (b.no_wait) {
    std::cout << "when it is done, merge with: " << merge_command(job, a) << "\n";
    return 0;
  }
  if (status != 0)
    std::cerr << "sonicsim sweep: sbatch --wait exited " << status
              << ": some array tasks failed (see " << sweep::logs_dir(job)
              << "); merging what the shards wrote\n";
  return merge_shards(job, a);
}

}  // namespace

int launch(const SweepRequest& a, const BatchRequest& b, const SweepDefinition& d) {
  const sweep::BatchJob job = batch_job_of(a, b, d);
  claim_batch_dir(job.dir, d.id);
  write_file(sweep::shard_script_path(job), sweep::shard_script(job), true);
  const std::string script =
      b.slurm ? sweep::slurm_script_path(job) : sweep::condor_submit_path(job);
  write_file(script, b.slurm ? sweep::slurm_script(job) : sweep::condor_submit(job));
  std::cout << "sweep " << d.id << ": " << points_text(d.n_points, d.replications) << " in "
            << job.tasks << (job.tasks == 1 ? " shard" : " shards") << "; wrote " << script
            << " and " << sweep::shard_script_path(job) << "\n";
  if (b.condor || a.dry_run) {
    std::cout << "submit with: "
              << (b.slurm ? "sbatch " + sweep::shell_quote(script)
                          : "condor_submit " + sweep::shell_quote(script))
              << "\nthen merge with: " << merge_command(job, a) << "\n";
    return 0;
  }
  return submit_to_slurm(job, script, a, b, d);
}

}  // namespace sonicsim::pipeline
