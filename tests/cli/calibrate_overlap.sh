# cli_calibrate_overlap: `calibrate overlap` gets a device's overlap curve back from perf_analyzer
# scans at concurrency 1..N, here a scan the simulator emulates (`sonicsim perf-analyzer`) of a
# device with a known curve; and refuses what cannot give a curve (exit 2, the file named).
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# One T4 with four instances of a 10 ms model whose executions overlap (1, 1.6, 1.9 at 1, 2, 4),
# reached over a fast network: perf_analyzer at concurrency k keeps about k executions on it.
cat >"$TMP/overlap.json" <<'JSON'
{
  "name": "overlap-round-trip",
  "duration": "10s",
  "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1ms",
               "requests": [{"model": "m", "offload_fraction": 0.5}]},
  "devices": {"T4": {"overlap": {"executions": [1, 2, 4], "throughput": [1.0, 1.6, 1.9]}}},
  "models": {"m": {"input_bytes_per_item": "1kB", "output_bytes_per_item": "16B",
                   "instances": 4, "service_time": {"T4": {"batch": [1], "seconds": [0.010]}}}},
  "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["m"]}]
}
JSON
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/overlap.json" -m m --concurrency-range 1:4 \
  --requests 4000 -o "$TMP/m_batch1.csv"
run_ok "$SONICSIM" calibrate overlap "$TMP/m_batch1.csv" --device T4 -o "$TMP/curve.json"
assert_stdout_contains "devices.T4.overlap = "
[[ "$(json_get "$TMP/curve.json" overlap.executions)" == "[1,2,3,4]" ]] ||
  fail "executions $(json_get "$TMP/curve.json" overlap.executions), expected [1,2,3,4]"
pass "executions 1..4"
# The curve read at whole executions: 1, 1.6, 1.75, 1.9 (within 2%: the emulated client adds a
# little time between requests, so each concurrency holds slightly fewer executions).
k=0
for want in 1 1.6 1.75 1.9; do
  got="$(json_get "$TMP/curve.json" "overlap.throughput.$k")"
  near "$got" "$want" 0.02 || fail "throughput[$k] = $got, expected $want within 2%"
  pass "throughput at $((k + 1)) executions: $got (curve $want)"
  k=$((k + 1))
done
# The curve goes into a scenario as it is.
run_ok "$SONICSIM" validate "$TMP/overlap.json" \
  --set "devices.T4.overlap=$(json_get "$TMP/curve.json" overlap)"

# Only concurrency 4, as in the shipped CMS T4 scans: no curve.
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/overlap.json" -m m --concurrency-range 4:4 \
  --requests 2000 -o "$TMP/only4_batch1.csv"
run_status 2 "$SONICSIM" calibrate overlap "$TMP/only4_batch1.csv"
assert_stderr_contains "only4_batch1.csv"
assert_stderr_contains "no row at concurrency 1"

# One instance: the device never holds two executions, whatever the concurrency.
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/overlap.json" --set models.m.instances=1 -m m \
  --concurrency-range 1:4 --requests 2000 -o "$TMP/one_batch1.csv"
run_status 2 "$SONICSIM" calibrate overlap "$TMP/one_batch1.csv"
assert_stderr_contains "expected at least 2"
finish
