# cli_smoke: the binary starts, prints help, and runs a minimal scenario to a results file.
source "$(dirname "$0")/lib.sh" "$@"

run_ok "$SONICSIM" --help
assert_stdout_contains "run"

run_ok "$SONICSIM" run tests/data/valid_minimal.json -o "$TMP/x.json"
assert_json "$TMP/x.json"
assert_json_has "$TMP/x.json" events

# Triton's Prometheus metrics beside the results; an unwritable path fails before the run.
run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 \
  --prometheus "$TMP/metrics.prom"
assert_stdout_contains "metrics    written to"
grep -q '^# TYPE nv_inference_exec_count counter$' "$TMP/metrics.prom" ||
  fail "no nv_inference_exec_count family in the metrics file"
grep -q '^nv_inference_exec_count{model="particlenet_ak4",version="1"} [1-9]' "$TMP/metrics.prom" ||
  fail "no executions of particlenet_ak4 counted"
grep -q '^nv_gpu_utilization{gpu_uuid="t4-7"} 0\.[0-9]' "$TMP/metrics.prom" ||
  fail "no utilization of the eighth T4"
pass "Prometheus metrics file with Triton's names"
run_status 2 "$SONICSIM" run tests/data/valid_minimal.json --prometheus "$TMP/no/such/dir/m.prom"
assert_stderr_contains "no/such/dir"

# A sample of requests as a Chrome trace (Perfetto).
run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 \
  --trace "$TMP/trace.json" --trace-every 1000 --trace-max 40 -o "$TMP/traced.json"
assert_stdout_contains "trace      40 requests written to"
assert_jq "$TMP/trace.json" \
  '([.traceEvents[] | select(.ph == "b")] | length) == ([.traceEvents[] | select(.ph == "e")] | length)' \
  "every trace slice that begins ends"
run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 -o "$TMP/plain.json"
cmp -s <(jq -S 'del(.perf)' "$TMP/traced.json") <(jq -S 'del(.perf)' "$TMP/plain.json") ||
  fail "tracing changed the results"
pass "tracing leaves the results unchanged"
assert_jq "$TMP/trace.json" '[.traceEvents[] | select(.name == "compute")] | length > 0' \
  "the trace shows executions"

finish
