#include <sonicsim/sweep/batch.hpp>

#include <sonicsim/util/errors.hpp>

namespace sonicsim::sweep {

namespace {

std::string header_comment(const BatchJob& job, const std::string& what) {
  return "# " + what + ", written by `sonicsim sweep` for sweep " + job.sweep_id + " (" +
         std::to_string(job.tasks) + (job.tasks == 1 ? " shard" : " shards") +
         ").\n# Shards write to " + job.dir + "/shards; then: sonicsim merge " + job.dir +
         "/shards/shard-*.csv -o OUT.csv\n";
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string shard_script_path(const BatchJob& job) {
  return job.dir + "/shard.sh";
}
std::string slurm_script_path(const BatchJob& job) {
  return job.dir + "/sweep.sbatch";
}
std::string condor_submit_path(const BatchJob& job) {
  return job.dir + "/sweep.sub";
}
std::string shard_csv_path(const BatchJob& job, std::size_t shard) {
  return job.dir + "/shards/shard-" + std::to_string(shard) + ".csv";
}
std::string logs_dir(const BatchJob& job) {
  return job.dir + "/logs";
}

std::string shard_script(const BatchJob& job) {
  const std::string n = std::to_string(job.tasks);
  std::string s = "#!/bin/bash\n";
  s += header_comment(job, "One shard of a sonicsim sweep");
  s += "#\n#   shard.sh [--zero-based] I     run shard I of " + n;
  s += " (1-based; --zero-based for HTCondor's $(Process))\n";
  s += R"SH(set -u
zero=0
if [[ "${1:-}" == --zero-based ]]; then zero=1; shift; fi
i="${1:-${SLURM_ARRAY_TASK_ID:-}}"
if [[ ! "$i" =~ ^[0-9]+$ ]]; then
  echo "shard.sh: found shard '$i', expected a number (or SLURM_ARRAY_TASK_ID)" >&2
  exit 2
fi
if ((zero)); then i=$((i + 1)); fi
)SH";
  s += "if ((i < 1 || i > " + n + ")); then\n";
  s += "  echo \"shard.sh: found shard $i, expected 1.." + n + "\" >&2\n  exit 2\nfi\n";
  s += "workers=\"${SLURM_CPUS_PER_TASK:-" + std::to_string(job.cpus_per_task) + "}\"\n";
  s += "cd " + shell_quote(job.workdir) + " || exit 2\n";
  s += "# --resume: a requeued task keeps the points it finished.\n";
  s += shell_quote(job.sonicsim) + " sweep";
  for (const auto& a : job.sweep_args) s.append(" ").append(shell_quote(a));
  s += " \\\n  --shard \"$i/" + n + "\" --workers \"$workers\" --resume -o ";
  s += shell_quote(job.dir + "/shards/shard-") + "\"$i\".csv\n";
  s += R"SH(rc=$?
# 3: some points failed; their rows carry the error and the shard is done.
if ((rc == 3)); then rc=0; fi
exit $rc
)SH";
  return s;
}

std::string slurm_script(const BatchJob& job) {
  std::string s = "#!/bin/bash\n";
  // sbatch reads directives only before the first command, so the comment follows them.
  const auto directive = [&s](const std::string& option) { s += "#SBATCH " + option + "\n"; };
  directive(std::string("--job-name=sonicsim-").append(job.sweep_id, 0, 8));
  std::string array = "--array=1-" + std::to_string(job.tasks);
  if (job.max_running) array.append("%").append(std::to_string(job.max_running));
  directive(array);
  directive("--ntasks=1");
  directive("--cpus-per-task=" + std::to_string(job.cpus_per_task));
  directive("--output=" + logs_dir(job) + "/slurm-%A_%a.out");
  if (!job.partition.empty()) directive("--partition=" + job.partition);
  if (!job.time.empty()) directive("--time=" + job.time);
  if (!job.account.empty()) directive("--account=" + job.account);
  if (!job.qos.empty()) directive("--qos=" + job.qos);
  if (!job.memory.empty()) directive("--mem=" + job.memory);
  for (const auto& o : job.sbatch_options) directive(o);
  s += header_comment(job, "Slurm job array of a sonicsim sweep");
  s += "exec " + shell_quote(shard_script_path(job)) + " \"$SLURM_ARRAY_TASK_ID\"\n";
  return s;
}

std::string condor_submit(const BatchJob& job) {
  std::string s = header_comment(job, "HTCondor submit description of a sonicsim sweep") +
                  "# Submit with: condor_submit " + condor_submit_path(job) +
                  "\n# The binary, the scenario and this directory must be on a filesystem the "
                  "execute nodes share.\n";
  const auto command = [&s](const std::string& key, const std::string& value) {
    s += key + " = " + value + "\n";
  };
  command("universe", "vanilla");
  command("executable", shard_script_path(job));
  command("arguments", "--zero-based $(Process)");
  command("initialdir", job.workdir);
  command("should_transfer_files", "NO");
  command("request_cpus", std::to_string(job.cpus_per_task));
  if (!job.request_memory.empty()) command("request_memory", job.request_memory);
  command("output", logs_dir(job) + "/condor-$(Cluster)_$(Process).out");
  command("error", logs_dir(job) + "/condor-$(Cluster)_$(Process).err");
  command("log", logs_dir(job) + "/condor.log");
  command("batch_name", std::string("sonicsim-").append(job.sweep_id, 0, 8));
  for (const auto& c : job.condor_commands) s += c + "\n";
  s += "queue " + std::to_string(job.tasks) + "\n";
  return s;
}

void check_batch_options(const BatchJob& job) {
  const auto check = [](const std::string& flag, const std::string& value) {
    if (value.find_first_of("\r\n") != std::string::npos)
      throw scenario::InputError(flag, {{"",
                                         "found a value with a line break, expected one "
                                         "line (it becomes one directive)"}});
  };
  check("--partition", job.partition);
  check("--time", job.time);
  check("--account", job.account);
  check("--qos", job.qos);
  check("--mem", job.memory);
  check("--request-memory", job.request_memory);
  for (const auto& o : job.sbatch_options) check("--sbatch-option", o);
  for (const auto& c : job.condor_commands) check("--condor-command", c);
}

}  // namespace sonicsim::sweep
