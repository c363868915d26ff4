# cli_compare: `sonicsim compare` holds a scenario against measured points. A scenario compared
# with its own simulation shows no error; the shipped example shows its error and verdict; a
# failing point is reported, not fatal; every bad input exits 2 naming the file and the line,
# with no output file left behind.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

KNEE=scenarios/examples/formula-knee.json
EXAMPLE=scenarios/examples/scan-measurements.csv

# Measurements that are the scenario's own simulation.
SELF="$TMP/self.csv"
echo "jobs,thread_time_per_event_s" >"$SELF"
for jobs in 1 2 3 4 6; do
  run_ok "$SONICSIM" run "$KNEE" --set workload.jobs=$jobs -q -o "$TMP/run.json"
  echo "$jobs,$(json_get "$TMP/run.json" events.thread_time_per_event_s)" >>"$SELF"
done
run_ok "$SONICSIM" compare "$KNEE" "$SELF" --vary workload.jobs -o "$TMP/self.json" \
  --csv "$TMP/self-table.csv" --workers 2
assert_stdout_contains "measured (ms)"
assert_stdout_contains "verdict: TRUST for planning over jobs 1..6"
assert_json_paths "$TMP/self.json" summary.simulation.mape_percent summary.formula.spearman \
  summary.mva.max_abs_error_percent points.4.simulated_error_percent verdict
mape="$(json_get "$TMP/self.json" summary.simulation.mape_percent)"
float_cmp "$mape" "<" 1e-9 || fail "own simulation: MAPE $mape, expected 0"
pass "own simulation: MAPE $mape"
[[ "$(json_get "$TMP/self.json" summary.simulation.spearman)" == 1 ]] || fail "Spearman not 1"
pass "own simulation: Spearman 1"
(($(wc -l <"$TMP/self-table.csv") == 6)) || fail "table CSV: expected a header and 5 rows"
pass "table CSV has a header and 5 rows"

# The shipped example: measurements of a slower system than the scenario describes.
run_ok "$SONICSIM" compare "$KNEE" "$EXAMPLE" --vary workload.jobs -o "$TMP/example.json"
assert_stdout_contains "+-"  # the stddev column is shown
assert_stdout_contains "verdict: DO NOT TRUST as is"
mape="$(json_get "$TMP/example.json" summary.simulation.mape_percent)"
float_cmp "$mape" ">" 10 || fail "example: MAPE $mape, expected the scenario to be >10% off"
pass "example: the uncalibrated scenario is $mape% off"

# A point the scenario rejects is reported in the table; the others are compared.
printf 'jobs,thread_time_per_event_s\n1,0.062\n0,0.062\n6,0.1\n' >"$TMP/zero.csv"
run_ok "$SONICSIM" compare "$KNEE" "$TMP/zero.csv" --vary workload.jobs -o "$TMP/zero.json"
assert_stdout_contains "FAILED     jobs=0 (line 3)"
assert_stdout_contains "1 of 3 points failed"
assert_jq "$TMP/zero.json" '.points[1].simulated == null and (.points[1].error | contains("workload.jobs"))'
assert_jq "$TMP/zero.json" '.summary.simulation.points == 2'

# Bad inputs: exit 2, the file and the line named, no report left behind.
bad() {  # bad "WHAT STDERR SHOWS" CSV_CONTENT [ARGS...]
  local expect="$1" content="$2"; shift 2
  printf '%b' "$content" >"$TMP/bad.csv"
  run_status 2 "$SONICSIM" compare "$KNEE" "$TMP/bad.csv" --vary "${VARY:-workload.jobs}" \
    -o "$TMP/out/report.json" --csv "$TMP/out/report.csv" "$@"
  assert_stderr_contains "$expect"
  [[ -z "$(ls -A "$TMP/out")" ]] || fail "an output file was left behind: $(ls -A "$TMP/out")"
  pass "no output left behind"
}
mkdir -p "$TMP/out"
run_status 2 "$SONICSIM" compare "$KNEE" "$TMP/missing.csv" --vary workload.jobs
assert_stderr_contains "$TMP/missing.csv: cannot read the measurements file"
bad "bad.csv: the file has no header and no data" ""
bad "bad.csv: line 2: found a row of numbers, expected a header row" "# scan\n1,0.06\n2,0.06\n"
bad "bad.csv: line 1: no column \`jobs\`" "jbos,time_per_event_s\n1,0.06\n2,0.06\n"
bad "did you mean \`jobs\`?" "jbos,time_per_event_s\n1,0.06\n2,0.06\n"
bad "bad.csv: line 1, column 2 (\`time_per_event\`): unknown column; did you mean \`time_per_event_s\`?" \
  "jobs,time_per_event\n1,0.06\n2,0.06\n"
bad "bad.csv: line 3, column 2 (\`time_per_event_s\`): found \`62ms\`, expected a number in seconds" \
  "jobs,time_per_event_s\n1,0.062\n2,62ms\n"
bad "bad.csv: found 1 data row, expected at least 2" "jobs,time_per_event_s\n1,0.062\n"
bad "bad.csv: line 1: found several metric columns" \
  "jobs,time_per_event_s,throughput_per_s\n1,0.062,16\n2,0.062,32\n"
bad "--metric: found \`latency\`" "jobs,time_per_event_s\n1,0.06\n2,0.06\n" --metric latency
# A --vary path the scenario does not have: both files named, with the scenario's hint.
VARY=workload.jbos bad \
  "bad.csv: line 2, column 1 (\`jbos\`): the scenario rejects workload.jbos=1: $KNEE: workload.jbos" \
  "jbos,time_per_event_s\n1,0.06\n2,0.06\n"
assert_stderr_contains "did you mean \`jobs\`?"
run_status 2 "$SONICSIM" compare "$KNEE" "$SELF" --vary workload.jobs -o "$TMP/no/such/dir/r.json"
assert_stderr_contains "$TMP/no/such/dir/r.json"
run_ok "$SONICSIM" compare --help
assert_stdout_contains "--vary"
finish
