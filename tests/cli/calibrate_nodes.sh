# cli_calibrate_nodes: `calibrate nodes` fits a worker node (workload.node) and t1 from per-job
# throughputs at several jobs per node: the shipped synthetic example comes back near the node it
# was made from, the fragment it writes goes into a scenario as it is, and bad input is refused
# with exit 2 naming the file, the line and the column.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

EX=calibration/nodes-example.csv
# Made from 32 cores x 2 at hyperthread 0.62 and 0.95 s per event alone, 1.5% noise per job.
run_ok "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 2 -o "$TMP/node.json"
assert_stdout_contains "hyperthread"
assert_stdout_contains "node written to $TMP/node.json"
h="$(json_get "$TMP/node.json" workload.node.speed.hyperthread)"
t1="$(json_get "$TMP/node.json" workload.cpu_time_per_event)"
near "$h" 0.62 0.02 || fail "hyperthread $h, expected 0.62 within 2%"
pass "hyperthread $h (made with 0.62)"
near "$t1" 0.95 0.02 || fail "cpu_time_per_event $t1, expected 0.95 within 2%"
pass "cpu_time_per_event $t1 (made with 0.95)"
# 25 rows, 2 parameters; each interval around its value (how often they hold the truth is
# test_node_fit.cpp's to count: one realisation misses one time in twenty).
for p in hyperthread cpu_time_per_event; do
  assert_jq "$TMP/node.json" ".fit.parameters.$p | .ci95[0] < .value and .value < .ci95[1]"
done
assert_jq "$TMP/node.json" '.fit.dof == 23 and (.fit.rows | length) == 25'
assert_jq "$TMP/node.json" ".fit.sources[0].sha256 == \"$(sha256sum "$EX" | cut -d' ' -f1)\""
assert_jq "$TMP/node.json" '[.fit.occupancies[].busy_threads] == [4, 32, 64]'
# The fragment goes into a scenario's workload as it is.
run_ok "$SONICSIM" validate scenarios/default.json \
  --set "workload.node=$(json_get "$TMP/node.json" workload.node)" \
  --set "workload.cpu_time_per_event=$t1"

# --json prints the same document; without -o nothing is written.
run_ok "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 2 --json
cp "$OUT" "$TMP/printed.json"
assert_jq "$TMP/printed.json" ".workload.node.speed.hyperthread == $h"

# The example never fills the node beyond its 64 hardware threads: no cap to see.
run_ok "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 2 --memory-bandwidth \
  -o "$TMP/mb.json"
assert_stdout_contains "memory_bandwidth_threads  not identified"
assert_jq "$TMP/mb.json" '.fit.parameters.memory_bandwidth_threads.identified == false'
assert_jq "$TMP/mb.json" '.workload.node.speed | has("memory_bandwidth_threads") | not'

# A node without hyper-threads: t1 only (12 threads on 8 cores are time-sliced).
printf 'jobs_per_node,threads_per_job,throughput_per_job\n1,4,20\n1,4,20\n3,4,13.3333\n' \
  >"$TMP/ht1.csv"
run_ok "$SONICSIM" calibrate nodes "$TMP/ht1.csv" --cores 8 --threads-per-core 1 \
  -o "$TMP/ht1.json"
assert_jq "$TMP/ht1.json" '.workload.node | has("speed") | not'
assert_jq "$TMP/ht1.json" '.workload.cpu_time_per_event > 0.199 and .workload.cpu_time_per_event < 0.201'

# Bad input: exit 2, the file, the line and the column named, nothing written.
RESULTS="$TMP/bad.json"
H='jobs_per_node,threads_per_job,throughput_per_job'
# bad NAME LINE... MESSAGE: a CSV of the LINEs, refused with "NAME.csv: MESSAGE".
bad() {
  printf '%s\n' "${@:2:$#-2}" >"$TMP/$1.csv"
  refused "$1.csv: ${!#}" \
    "$SONICSIM" calibrate nodes "$TMP/$1.csv" --cores 32 --threads-per-core 2 -o "$RESULTS"
}
bad nocol 'jobs_per_node,threads,throughput_per_job' 1,4,10 8,4,9 \
  "line 1: no column \`threads_per_job\`"
bad nan "$H" 1,4,10 8,4,fast "line 3, column 3 (\`throughput_per_job\`): found \`fast\`"
bad neg "$H" 1,4,10 -8,4,9 "line 3, column 1 (\`jobs_per_node\`): found \`-8\`"
bad short "$H" 1,4,10 8,4 "line 3: found 2 cells, expected 3"
bad one "$H" 8,4,10 8,4,9 "found 2 rows at 1 occupancy"
# Every thread on a core of its own: hyperthread cannot show.
bad low "$H" 1,4,10 8,4,9 "found occupancies up to 32 busy threads"
refused "no-such.csv" \
  "$SONICSIM" calibrate nodes "$TMP/no-such.csv" --cores 32 --threads-per-core 2 -o "$RESULTS"
refused "--cores" "$SONICSIM" calibrate nodes "$EX" --threads-per-core 2 -o "$RESULTS"
refused "--threads-per-core" "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 9
refused "no-dir" \
  "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 2 -o "$TMP/no-dir/x.json"
unset RESULTS

# A failed write: exit 1, naming the path.
if [[ -w /dev/full ]]; then
  run_status 1 "$SONICSIM" calibrate nodes "$EX" --cores 32 --threads-per-core 2 -o /dev/full
  assert_stderr_contains "/dev/full"
fi
finish
