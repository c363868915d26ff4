# cli_calibrate_scan: `sonicsim calibrate scan` fits the shipped example's measurements, writes a
# scenario that validates and that `compare` then trusts; bad inputs exit 2 naming the file and
# the line (or the flag), and leave no fitted scenario behind.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

KNEE=scenarios/examples/formula-knee.json
EXAMPLE=scenarios/examples/scan-measurements.csv
FITTED="$TMP/knee-fitted.json"

# The example was measured on a system with t_GPU = 12.1 ms and 2.6 ms of server overhead per
# request (t_latency 4.60 ms); the scenario says 10 ms and 2.00 ms.
run_ok "$SONICSIM" calibrate scan "$EXAMPLE" --scenario "$KNEE" --vary workload.jobs -o "$FITTED" \
  --report "$TMP/fit.json" --workers 2
assert_stdout_contains "95% interval"
assert_stdout_contains "p and t_latency cannot be told apart"
assert_stdout_contains "converged"
assert_stdout_contains "models.toy_model.request_overhead.server"
run_ok "$SONICSIM" validate "$FITTED"
assert_jq "$TMP/fit.json" '.parameters.t_gpu.ci95[0] <= 0.0121 and 0.0121 <= .parameters.t_gpu.ci95[1]' \
  "the t_GPU interval holds the true 12.1 ms"
assert_jq "$TMP/fit.json" '.parameters.t_latency.ci95[0] <= 0.0046016 and 0.0046016 <= .parameters.t_latency.ci95[1]' \
  "the t_latency interval holds the true 4.60 ms"
assert_jq "$TMP/fit.json" '.parameters.p.free == false and .parameters.p.fitted == 0.5' "p held"
assert_jq "$FITTED" '.models.toy_model.service_time.seconds[0] > 0.0119 and .models.toy_model.service_time.seconds[0] < 0.0123'
assert_jq "$FITTED" '.workload.jobs == 6 and .name == "example-formula-knee"' "the rest is the scenario's"
assert_jq "$TMP/fit.json" '.mape_percent < 1' "the fit follows the measurements within 1%"
# The fitted scenario is what compare trusts.
run_ok "$SONICSIM" compare "$FITTED" "$EXAMPLE" --vary workload.jobs
assert_stdout_contains "verdict: TRUST"

# Analytic only, and explicit parameters.
run_ok "$SONICSIM" calibrate scan "$EXAMPLE" --scenario "$KNEE" --vary workload.jobs \
  -o "$TMP/analytic.json" --no-refine --free t_gpu,t_latency --report "$TMP/analytic-fit.json"
assert_jq "$TMP/analytic-fit.json" '.refined == false and .predicted_by == "analytic"'
run_ok "$SONICSIM" validate "$TMP/analytic.json"

# Bad inputs: exit 2, named, nothing written.
mkdir -p "$TMP/out"
OUTFILE="$TMP/out/fitted.json"
bad() {  # bad "WHAT STDERR SHOWS" CSV_CONTENT [ARGS...]
  local expect="$1" content="$2"; shift 2
  printf '%b' "$content" >"$TMP/bad.csv"
  run_status 2 "$SONICSIM" calibrate scan "$TMP/bad.csv" --scenario "$KNEE" \
    --vary "${VARY:-workload.jobs}" -o "$OUTFILE" "$@"
  assert_stderr_contains "$expect"
  [[ -z "$(ls -A "$TMP/out")" ]] || fail "an output file was left behind: $(ls -A "$TMP/out")"
  pass "no output left behind"
}
GOOD="jobs,per_job_throughput_per_s\n1,30\n2,30\n4,20.7\n6,13.8\n8,10.4\n"
run_status 2 "$SONICSIM" calibrate scan "$TMP/none.csv" --scenario "$KNEE" --vary workload.jobs -o "$OUTFILE"
assert_stderr_contains "$TMP/none.csv: cannot read the measurements file"
bad "bad.csv: the file has no header and no data" "\n# nothing\n"
bad "bad.csv: line 1: found a row of numbers" "1,30\n2,30\n4,20\n6,14\n"
bad "bad.csv: line 3, column 2 (\`per_job_throughput_per_s\`): found \`fast\`, expected a number" \
  "jobs,per_job_throughput_per_s\n1,30\n2,fast\n4,20\n6,14\n"
bad "bad.csv: line 3: found 1 cell, expected 2" "jobs,per_job_throughput_per_s\n1,30\nfast\n4,20\n6,14\n"
bad "line 1, column 2 (\`per_job_thruput_per_s\`): unknown column" "jobs,per_job_thruput_per_s\n1,30\n2,30\n4,20\n6,14\n"
# Fewer rows than free parameters + 1.
bad "bad.csv: found 3 data rows, expected at least 4 (3 free parameters + 1)" \
  "jobs,per_job_throughput_per_s\n1,30\n2,30\n4,20.7\n"
bad "--free: found \`t_gpux\`" "$GOOD" --free t_gpux
# Asked for explicitly, parameters the data cannot separate are refused with the reason.
bad "--free: --free t_gpu,p,t_latency: p and t_latency cannot be told apart" "$GOOD" \
  --free t_gpu,p,t_latency
bad "--model: found \`exact\`" "$GOOD" --model exact
VARY=workload.jbos bad "bad.csv: line 2, column 1 (\`jbos\`): the scenario rejects workload.jbos=1" \
  "jbos,per_job_throughput_per_s\n1,30\n2,30\n4,20.7\n6,13.8\n"
bad "bad.csv: line 3, column 1 (\`jobs\`): the scenario rejects workload.jobs=0" \
  "jobs,per_job_throughput_per_s\n1,30\n0,30\n4,20.7\n6,13.8\n"
# t_latency 1 ms where the scenario's link alone takes 2 ms: that needs a negative overhead.
bad "negative overhead" "jobs,thread_time_per_event_s\n1,0.061\n2,0.061\n4,0.08\n5,0.1\n" \
  --free t_gpu,t_latency --no-refine
# Faster than any t_latency allows: the fit runs it to 0 and says so.
bad "the fit drives t_latency to 0" "jobs,thread_time_per_event_s\n1,0.05\n2,0.05\n4,0.08\n5,0.1\n" \
  --free t_gpu,t_latency --no-refine
run_status 2 "$SONICSIM" calibrate scan "$EXAMPLE" --scenario "$KNEE" --vary workload.jobs \
  -o "$TMP/no/such/dir/fitted.json"
assert_stderr_contains "$TMP/no/such/dir/fitted.json"
run_ok "$SONICSIM" calibrate scan --help
assert_stdout_contains "--free"
finish
