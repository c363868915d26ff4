# sonicsim calibrate perf-analyzer and sonicsim perf-analyzer end to end: the round trip on the
# real CMS scans (ParticleNet on a T4), a calibration used from a scenario, the emulated CSV in
# perf_analyzer's format, and bad input.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
REF="$SRC/../shared/reference/perf_analyzer/cms-t4"
FIX="$SRC/tests/data/perf_analyzer"

# Round trip: calibrate from the measured scans, replay them in the simulator. Every row that
# is consistent with Little's law: throughput within 5%, p50 latency within 10%. These are the
# configurations that meet it today; README "Calibration" has the full table of all 20.
if [[ -d "$REF" ]]; then
  for config in particlenet_AK4:500:200 particlenet:160:80 particlenet_AK4_PT:500:200 \
    particlenet_trt:160:80 particlenet_trt_CPU:160:80; do
    IFS=: read -r name max preferred <<<"$config"
    run_ok "$SONICSIM" calibrate perf-analyzer "$REF/$name/"*.csv --model "$name" --device T4 \
      --max-batch-size "$max" --preferred-batch-size "$preferred" -o "$TMP/$name.json"
    assert_json "$TMP/$name.json"
    assert_jq "$TMP/$name.json" \
      '[.round_trip[] | select(.consistent) | (.inferences_per_s_error | fabs) < 0.05] | all' \
      "$name: every consistent row's throughput within 5%"
    assert_jq "$TMP/$name.json" \
      '[.round_trip[] | select(.consistent) | (.p50_error | fabs) < 0.10] | all' \
      "$name: every consistent row's p50 latency within 10%"
    assert_jq "$TMP/$name.json" '.sources | length > 6 and all(.sha256 | length == 64)' \
      "$name: provenance lists every file with its checksum"
  done
  assert_stdout_contains "<- chosen"

  # The calibration from a scenario, and the emulated scan in perf_analyzer's format.
  cat >"$TMP/pn.json" <<JSON
{"name": "pn", "duration": "60s",
 "workload": {"jobs": 10, "threads_per_job": 4, "cpu_time_per_event": "1s",
              "requests": [{"model": "pn", "offload_fraction": 0.05, "items": 16}]},
 "models": {"pn": {"input_bytes_per_item": "9.8kB", "output_bytes_per_item": "32B",
   "max_batch_size": 500, "dynamic_batching": {"preferred_batch_size": [200]},
   "service_time": {"calibration": "particlenet_AK4.json"},
   "request_overhead": {"calibration": "particlenet_AK4.json"}}},
 "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["pn"]}]}
JSON
  run_ok "$SONICSIM" run "$TMP/pn.json" -o "$TMP/pn-results.json"
  assert_jq "$TMP/pn-results.json" '.scenario_files | length == 1' \
    "the calibration file is part of the scenario's identity"
  run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/pn.json" -m pn --concurrency-range 1:4 -b 16 \
    -o "$TMP/sim.csv"
  head -1 "$REF/particlenet_AK4/particlenet_AK4_batch16.csv" | tr -d '\r' >"$TMP/want-header"
  head -1 "$TMP/sim.csv" | cut -d, -f1-13 >"$TMP/got-header"
  cmp -s "$TMP/want-header" "$TMP/got-header" || fail "emulated header differs from perf_analyzer's"
  pass "emulated CSV has perf_analyzer's header"
  [[ $(wc -l <"$TMP/sim.csv") -eq 5 ]] || fail "expected 4 rows in the emulated scan"
  pass "one row per concurrency"
  run_ok "$SONICSIM" calibrate perf-analyzer "$TMP/sim.csv" -b 16 --model pn -o "$TMP/again.json"
else
  echo "# reference scans not found at $REF: round-trip checks skipped"
fi

# Bad input: exit 2, the file and the problem named, no output file left behind.
run_status 2 "$SONICSIM" calibrate perf-analyzer "$FIX/non_numeric_batch1.csv" --model m \
  -o "$TMP/bad.json"
assert_stderr_contains "non_numeric_batch1.csv: line 2, column \`Server Compute Infer\`"
assert_no_file "$TMP/bad.json"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$FIX/semicolons_batch1.csv" --model m
assert_stderr_contains "expected commas"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$FIX/native_batch4.csv" --model m \
  --max-batch-size 2
assert_stderr_contains "above max_batch_size 2"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$FIX/native_batch4.csv" --model m --curve cubic
assert_stderr_contains "expected auto, linear, piecewise or saturating"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$SRC/scenarios/default.json" -m nope \
  --concurrency-range 1:4
assert_stderr_contains "expected a model of the scenario"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$SRC/scenarios/default.json" \
  -m particlenet_ak4 --concurrency-range 4:1
assert_stderr_contains "expected START <= END"
finish
