# cli_sweep_slurm: `sonicsim sweep --slurm` on a real single-node Slurm cluster
# (scripts/slurm-local.sh) gives the same bytes as the same sweep run locally (the JSONL's perf
# timings aside), with a failed point isolated; --no-wait returns at once and the printed merge
# command finishes the job; the same command again keeps every shard's points. `--condor` writes a
# submit file whose shard script, run as HTCondor would run it ($(Process) from 0), gives the
# same bytes too. Bad flag combinations and a missing sbatch exit 2 with a message.
source "$(dirname "$0")/lib.sh" "$@"
command -v jq >/dev/null || skip "jq is required to compare JSONL files (scripts/test.sh installs it)"

KNEE=scenarios/examples/formula-knee.json
SWEEP=(sweep "$KNEE" --param workload.jobs=10,0,30,40,50,60,70 --replications 2)

# --- Bad flags (no cluster needed) ------------------------------------------------------------
mkdir -p "$TMP/bad"
bad() {  # bad "STDERR TEXT" ARGS...
  local expect="$1"; shift
  run_status 2 "$SONICSIM" "${SWEEP[@]}" -o "$TMP/bad/s.csv" "$@"
  assert_stderr_contains "$expect"
  [[ -z "$(ls -A "$TMP/bad")" ]] || fail "an output file was left behind: $(ls -A "$TMP/bad")"
}
bad "--partition needs --slurm" --partition debug
bad "--request-memory needs --condor" --slurm --request-memory 2GB
bad "--tasks needs --slurm or --condor" --tasks 4
bad "--slurm and --condor exclude each other" --slurm --condor
bad "the batch system runs every shard itself" --slurm --shard 1/2
bad "--sbatch-option: found a value with a line break" --slurm $'--sbatch-option=--qos=x\necho injected'
run_status 2 env PATH=/nonexistent "$SONICSIM" "${SWEEP[@]}" --slurm -o "$TMP/nosbatch.csv"
assert_stderr_contains "cannot run sbatch"
assert_stderr_contains "is this a Slurm submit host?"

# --- The same sweep, locally: the reference ----------------------------------------------------
run_status 3 "$SONICSIM" "${SWEEP[@]}" -o "$TMP/local.csv"

# --- HTCondor: the files, and the shards run by hand as HTCondor would ------------------------
run_ok "$SONICSIM" "${SWEEP[@]}" --condor --tasks 3 --cpus-per-task 2 --request-memory 1GB \
  --condor-command '+JobFlavour = "espresso"' --memory-budget 1GiB --time-budget 2h \
  -o "$TMP/condor.csv"
# The budgets the user gave go to every shard (runner/budget.hpp); without them each node would
# take its own default.
for flag in "'--memory-budget' '1073741824'" "'--time-budget' '7200'"; do
  grep -qF -- "$flag" "$TMP/condor.batch/shard.sh" || fail "shard.sh does not pass on $flag"
done
sub="$TMP/condor.batch/sweep.sub"
assert_stdout_contains "condor_submit '$sub'"
for line in "executable = $TMP/condor.batch/shard.sh" "arguments = --zero-based \$(Process)" \
  "request_cpus = 2" "request_memory = 1GB" '+JobFlavour = "espresso"' "queue 3"; do
  grep -qxF -- "$line" "$sub" || fail "sweep.sub lacks the line: $line"
done
pass "sweep.sub: executable, 0-based arguments, resources, extra command, queue 3"
[[ ! -e "$TMP/condor.csv" ]] || fail "--condor wrote the CSV before any shard ran"
for process in 0 1 2; do
  (cd / && "$TMP/condor.batch/shard.sh" --zero-based "$process" >"$TMP/condor-$process.log" 2>&1) ||
    fail "shard.sh --zero-based $process failed: $(tail -3 "$TMP/condor-$process.log")"
done
pass "shard.sh ran the 3 shards from another directory (the failed point does not fail a shard)"
run_status 2 "$TMP/condor.batch/shard.sh" 4
assert_stderr_contains "found shard 4, expected 1..3"
run_ok "$SONICSIM" merge "$TMP"/condor.batch/shards/shard-{1,2,3}.csv -o "$TMP/condor.csv"
same_bytes "$TMP/condor.csv" "$TMP/local.csv"
same_results "$TMP/condor.jsonl" "$TMP/local.jsonl"

# --- A real Slurm cluster on this machine ------------------------------------------------------
# The sanitizer pass (SONICSIM_TEST_QUICK=1) stops here. What follows is mostly waiting for Slurm
# (daemons starting, jobs scheduled and polled): about 40 s with the sanitized binary or without,
# a ctest slot held while the CPU idles. The sonicsim code it adds to the sanitized part above
# (shards and merge, run as Condor would) is the submission itself: the sbatch script written,
# sbatch started, its job id read; the Release pass runs it.
if [[ $QUICK == 1 ]]; then
  echo "# quick: the real Slurm cluster is left to the Release pass"
  finish
fi
if [[ $EUID -ne 0 ]] || { ! command -v sbatch >/dev/null && [[ "${CI:-}" != true ]]; }; then
  [[ "${CI:-}" == true ]] && fail "CI needs the Slurm path tested: run as root (the cluster's daemons)"
  skip "the Slurm part needs root and slurm-wlm (scripts/slurm-local.sh start)"
fi
started=0
eval "$("$SRC/scripts/slurm-local.sh" env)"
ping_output="$(scontrol ping 2>/dev/null)"
if [[ $ping_output != *"is UP"* ]]; then
  "$SRC/scripts/slurm-local.sh" start >"$TMP/slurm-start.log" 2>&1 ||
    fail "scripts/slurm-local.sh start failed: $(tail -20 "$TMP/slurm-start.log")"
  started=1
fi
trap '((started)) && "$SRC/scripts/slurm-local.sh" stop >/dev/null 2>&1; rm -rf "$TMP"' EXIT
pass "a single-node Slurm cluster is up (SLURM_CONF=$SLURM_CONF)"

run_status 3 "$SONICSIM" "${SWEEP[@]}" --slurm --tasks 3 --max-running 2 --time 10 \
  --sbatch-option=--comment=sonicsim-test -o "$TMP/slurm.csv"
assert_stdout_contains "submitted Slurm job array"
assert_stderr_contains "1 failed points (their rows carry the error)"
script="$TMP/slurm.batch/sweep.sbatch"
for line in "#SBATCH --array=1-3%2" "#SBATCH --time=10" "#SBATCH --comment=sonicsim-test"; do
  grep -qxF -- "$line" "$script" || fail "sweep.sbatch lacks the line: $line"
done
pass "sweep.sbatch: array with a running limit, time, extra option"
(($(ls "$TMP"/slurm.batch/logs/slurm-*_*.out | wc -l) == 3)) || fail "expected 3 task logs"
pass "3 array tasks ran, each with its log"
same_bytes "$TMP/slurm.csv" "$TMP/local.csv"
same_results "$TMP/slurm.jsonl" "$TMP/local.jsonl"

# The same command again: every shard keeps its points (--resume in the tasks).
run_status 3 "$SONICSIM" "${SWEEP[@]}" --slurm --tasks 3 -o "$TMP/slurm.csv"
grep -q "7 points x 2 replications, shard 1/3 holds 3; 0 simulated" "$TMP"/slurm.batch/logs/*.out ||
  fail "a resubmitted shard simulated its points again"
pass "resubmitted: the shards kept their points"
same_bytes "$TMP/slurm.csv" "$TMP/local.csv"

# Another sweep into the same batch directory is refused before anything is submitted.
run_status 2 "$SONICSIM" sweep "$KNEE" --param workload.jobs=1,2 --slurm \
  --batch-dir "$TMP/slurm.batch" -o "$TMP/other.csv"
assert_stderr_contains "found the shards of sweep"

# --no-wait: submitted, not merged; the printed command merges once the array is done.
run_ok "$SONICSIM" "${SWEEP[@]}" --slurm --no-wait -o "$TMP/nowait.csv"
job="$(sed -n 's/^submitted Slurm job array \([0-9]*\).*/\1/p' "$OUT")"
[[ -n "$job" ]] || fail "--no-wait printed no job id"
merge_cmd="$(sed -n 's/^when it is done, merge with: sonicsim //p' "$OUT")"
[[ -n "$merge_cmd" ]] || fail "--no-wait printed no merge command"
pass "--no-wait: job array $job submitted; merge command printed"
for _ in $(seq 1 240); do
  [[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]] && break
  sleep 0.5
done
[[ -z "$(squeue -h -j "$job" 2>/dev/null)" ]] || fail "job array $job still queued after 120 s"
eval "run_ok \"\$SONICSIM\" $merge_cmd"
same_bytes "$TMP/nowait.csv" "$TMP/local.csv"
same_results "$TMP/nowait.jsonl" "$TMP/local.jsonl"

finish
