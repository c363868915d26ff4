# cli_compare_history: `compare SCENARIO MEASUREMENTS.json` with a measured history (import
# prometheus): the flags that belong to scans are refused with it, pools are matched by name, one
# to one, or by --pool, and every refusal is exit 2 with what was found and what is expected.
# The statistics themselves: tests/unit/test_compare_history.cpp; the loop: cli_twin_loop.
source "$(dirname "$0")/lib.sh" "$@"
command -v jq >/dev/null || skip "jq is required (scripts/test.sh installs it)"

run_ok "$SONICSIM" import prometheus tests/data/prometheus/day.json tests/data/prometheus/envoy.json \
  -o "$TMP/day.json" --flow-overlay "$TMP/load.json"
cp tests/data/twin/day-twin.json "$TMP/twin.json"
run_ok "$SONICSIM" compare "$TMP/twin.json" "$TMP/day.json" -o "$TMP/cmp.json" --csv "$TMP/cmp.csv"
assert_stdout_contains "pool       supersonic (measured) = gpu (simulated)"
assert_stdout_contains "verdict    "
assert_jq "$TMP/cmp.json" '[.series[].metric] | index("requests_per_s") != null' true
assert_jq "$TMP/cmp.json" '[.series[] | select(.model == "deepmet")] | length > 0' true
assert_jq "$TMP/cmp.json" '.pools[0].simulated' '"gpu"'
head -1 "$TMP/cmp.csv" | grep -qx "time,t_s,pool,model,metric,measured,simulated" || fail "CSV header"
pass "CSV header"

# Scan flags with a history, a history's flags with a scan.
refused "--vary is for measured scans (CSV)" "$SONICSIM" compare "$TMP/twin.json" "$TMP/day.json" --vary workload.jobs
refused "--workers is for measured scans (CSV)" "$SONICSIM" compare "$TMP/twin.json" "$TMP/day.json" --workers 2
refused "--vary is required with a measured scan (CSV)" "$SONICSIM" compare scenarios/examples/formula-knee.json \
  scenarios/examples/scan-measurements.csv
refused "--pool and --from are for a measured history" "$SONICSIM" compare scenarios/examples/formula-knee.json \
  scenarios/examples/scan-measurements.csv --vary workload.jobs --from 1min
# Pools that do not match.
jq '.servers += [{"name": "cpu", "count": 1, "device": "EPYC", "models": ["pn"]}]' "$TMP/twin.json" > "$TMP/two.json"
refused "measured pool 'supersonic' has no simulated pool, expected one of gpu, cpu: name it with --pool supersonic=POOL" \
  "$SONICSIM" compare "$TMP/two.json" "$TMP/day.json"
run_ok "$SONICSIM" compare "$TMP/two.json" "$TMP/day.json" --pool supersonic=gpu
refused "(--pool gave 'tpu')" "$SONICSIM" compare "$TMP/two.json" "$TMP/day.json" --pool supersonic=tpu
refused "found 'supersonic', expected MEASURED=SIMULATED" "$SONICSIM" compare "$TMP/two.json" "$TMP/day.json" --pool supersonic
refused "--from: found 'yesterday'" "$SONICSIM" compare "$TMP/twin.json" "$TMP/day.json" --from yesterday
# A broken measurements file names itself and the path.
jq '.step_s = -1' "$TMP/day.json" > "$TMP/bad.json"
refused "bad.json" "$SONICSIM" compare "$TMP/twin.json" "$TMP/bad.json"
echo '{"a": 1}' > "$TMP/other.json"
refused "other.json: no key \`format\`, expected \"sonicsim-measurements\"" "$SONICSIM" compare "$TMP/twin.json" "$TMP/other.json"
refused "missing.json: cannot read" "$SONICSIM" compare "$TMP/twin.json" "$TMP/missing.json"
finish
