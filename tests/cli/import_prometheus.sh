# cli_import_prometheus: `import prometheus` turns query_range exports into a measurements file
# (and the measured client load into a scenario overlay), refuses bad exports with exit 2 naming
# the file and the JSON path, refuses an unwritable output before reading anything; `calibrate
# prometheus` fits a curve from the measurements that a scenario then loads.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
D=tests/data/prometheus

run_ok "$SONICSIM" import prometheus "$D/day.json" "$D/envoy.json" -o "$TMP/m.json" \
  --flow-overlay "$TMP/flow.json"
assert_stdout_contains "8 windows"
assert_stdout_contains "supersonic: 1 to 2 replicas; models deepmet v1, pn v1"
assert_stdout_contains "ignored    nv_gpu_memory_used_bytes: 1 series (not a metric sonicsim uses)"
assert_stdout_contains "measurements written to $TMP/m.json"
assert_json_paths "$TMP/m.json" format version source.files.0.sha256 source.pool_label start \
  step_s t pools.0.replicas pools.0.autoscaler_metric_ms pools.0.models.1.requests_per_s \
  clients.connected
[[ "$(json_get "$TMP/m.json" format)" == sonicsim-measurements ]] || fail "format"
# 30 + 15 requests of pn in the last 15 s window: 3 per second.
[[ "$(json_get "$TMP/m.json" pools.0.models.1.requests_per_s.7)" == 3 ]] ||
  fail "pn requests_per_s[7] = $(json_get "$TMP/m.json" pools.0.models.1.requests_per_s.7), expected 3"
pass "pn: 3 requests per second in the last window"
[[ "$(json_get "$TMP/flow.json" workload.flow.running.jobs)" == "[15,15,15,17,17,17,17,17]" ]] ||
  fail "flow overlay jobs $(json_get "$TMP/flow.json" workload.flow.running.jobs)"
pass "the flow overlay holds Envoy's connections per window"

run_ok "$SONICSIM" import prometheus "$D/day.json" -o "$TMP/m2.json" --json --step 30
assert_json "$OUT"
[[ "$(json_get "$OUT" windows)" == 4 ]] || fail "--step 30: $(json_get "$OUT" windows) windows"
pass "--json summary: 4 windows of 30 s"
json_get "$OUT" metrics_missing | grep -q envoy_http_downstream_cx_active ||
  fail "Envoy's metrics not listed as missing"
pass "missing metrics listed"

# Refusals: exit 2, the file, the JSON path, and nothing written.
RESULTS="$TMP/refused.json"
refused "error.json: status: found the string \"error\": Prometheus said" \
  "$SONICSIM" import prometheus "$D/error.json" -o "$RESULTS"
refused "vector.json: data.resultType: found the string \"vector\", expected \"matrix\"" \
  "$SONICSIM" import prometheus "$D/vector.json" -o "$RESULTS"
refused "rate.json: data.result[0].metric: found a series without __name__" \
  "$SONICSIM" import prometheus "$D/rate.json" -o "$RESULTS"
refused "bad_value.json: data.result[0].values[2][1]: found the string \"thirty\"" \
  "$SONICSIM" import prometheus "$D/day.json" "$D/bad_value.json" -o "$RESULTS"
refused "unordered.json: data.result[0].values[2][0]" \
  "$SONICSIM" import prometheus "$D/unordered.json" -o "$RESULTS"
refused "--start: found \"noon\"" \
  "$SONICSIM" import prometheus "$D/day.json" -o "$RESULTS" --start noon
refused "no-such.json: cannot read" \
  "$SONICSIM" import prometheus "$D/no-such.json" -o "$RESULTS"
refused "--flow-overlay: found no Envoy connection counts" \
  "$SONICSIM" import prometheus "$D/day.json" -o "$RESULTS" --flow-overlay "$TMP/flow2.json"
assert_no_file "$TMP/flow2.json"
refused "$TMP/no-such-dir/m.json" \
  "$SONICSIM" import prometheus "$D/day.json" -o "$TMP/no-such-dir/m.json"
unset RESULTS

# calibrate prometheus: the curve of curve.json's windows, t(b) = 2 ms + 0.5 ms b, loads into a
# scenario.
run_ok "$SONICSIM" import prometheus "$D/curve.json" -o "$TMP/curve-m.json"
run_ok "$SONICSIM" calibrate prometheus "$TMP/curve-m.json" --model pn -o "$TMP/pn.json"
assert_stdout_contains "24 of 24 windows"
assert_stdout_contains "batch sizes 1 to 32 only"
got="$(json_get "$TMP/pn.json" service_time.seconds.0)"
near "$got" 0.0025 0.01 || fail "t(1) = $got, expected 0.0025"
pass "t(1) = $got (built from 2.5 ms)"
run_ok "$SONICSIM" validate tests/data/valid_minimal.json \
  --set 'workload.requests=[{"model": "pn", "offload_fraction": 0.1}]' \
  --set "models={\"pn\": {\"input_bytes_per_item\": 100, \"output_bytes_per_item\": 10, \"service_time\": {\"GPU\": {\"calibration\": \"$TMP/pn.json\"}}}}" \
  --set 'servers=[{"name": "g", "count": 1, "device": "GPU", "models": ["pn"]}]'
RESULTS="$TMP/refused-cal.json"
refused "curve-m.json: pools[0].models[0]: found 24 of 24 windows" \
  "$SONICSIM" calibrate prometheus "$TMP/curve-m.json" --model pn --min-windows 40 -o "$RESULTS"
refused "found no model \`nope\`" \
  "$SONICSIM" calibrate prometheus "$TMP/curve-m.json" --model nope -o "$RESULTS"
refused "flow.json: no key \`format\`, expected \"sonicsim-measurements\"" \
  "$SONICSIM" calibrate prometheus "$TMP/flow.json" --model pn -o "$RESULTS"
# From Grafana: day.json's series as /api/ds/query answers them, as the panel inspector's
# "DataFrame JSON (from Query)" and "Panel data" hold them (grafana_from_query_range.py): the
# same measurements as the query_range export (but for the files read, named in source.files).
run_ok "$SONICSIM" import prometheus "$D/day.json" -o "$TMP/q.json"
json_edit "$TMP/q.json" "$TMP/q-nofiles.json" -source.files
for g in grafana_ds_query grafana_frames grafana_panel_data; do
  run_ok "$SONICSIM" import prometheus "$D/$g.json" -o "$TMP/$g.json"
  assert_stdout_contains "8 windows"
  json_edit "$TMP/$g.json" "$TMP/$g-nofiles.json" -source.files
  diff <(json_canon "$TMP/q-nofiles.json") <(json_canon "$TMP/$g-nofiles.json") >/dev/null ||
    fail "$g.json gives other measurements than day.json"
  pass "$g.json gives day.json's measurements"
done
# A mix of both, the same series in each: merged, not counted twice.
run_ok "$SONICSIM" import prometheus "$D/day.json" "$D/grafana_ds_query.json" -o "$TMP/mix.json"
json_edit "$TMP/mix.json" "$TMP/mix-nofiles.json" -source.files
diff <(json_canon "$TMP/q-nofiles.json") <(json_canon "$TMP/mix-nofiles.json") >/dev/null ||
  fail "day.json with its Grafana form gives other measurements than day.json"
pass "day.json and its Grafana form: one history"

RESULTS="$TMP/refused-grafana.json"
refused "grafana_error.json: results.A.error: found the error \"bad_data: invalid parameter" \
  "$SONICSIM" import prometheus "$D/grafana_error.json" -o "$RESULTS"
refused "grafana_rate.json: [0].schema.fields[1].labels: found a series without __name__" \
  "$SONICSIM" import prometheus "$D/grafana_rate.json" -o "$RESULTS"
assert_stderr_contains "(the panel's query is \`rate(nv_inference_count[1m])\`)"
refused "grafana_no_time.json: [0].schema.fields: found a frame without a time field" \
  "$SONICSIM" import prometheus "$D/grafana_no_time.json" -o "$RESULTS"
refused "grafana_lengths.json: results.A.frames[0].data.values[1]: found 2 values, expected 3" \
  "$SONICSIM" import prometheus "$D/grafana_lengths.json" -o "$RESULTS"
refused "grafana_text_value.json: results.A.frames[0].data.values[1][2]: found the string \"240\"" \
  "$SONICSIM" import prometheus "$D/day.json" "$D/grafana_text_value.json" -o "$RESULTS"
unset RESULTS
# Instants outside 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z, in a query_range export or a
# Grafana frame: refused with the file, the JSON path, what was found and what was expected
# (1e19 s printed as the year -219246529).
series='{"metric":{"__name__":"nv_inference_count","model":"pn","pod":"a"},"values":[[1732700000,"1"],[%s,"2"]]}'
printf '{"status":"success","data":{"resultType":"matrix","result":[%s]}}' \
  "$(printf "$series" 253402300799)" >"$TMP/last.json"
run_ok "$SONICSIM" import prometheus "$TMP/last.json" -o "$TMP/last-m.json"
printf '{"status":"success","data":{"resultType":"matrix","result":[%s]}}' \
  "$(printf "$series" 1e19)" >"$TMP/far.json"
refused "far.json: data.result[0].values[1][0]: found the number 1e+19, expected a time in unix seconds from 0 (1970-01-01T00:00:00Z) to 253402300799 (9999-12-31T23:59:59Z)" \
  "$SONICSIM" import prometheus "$TMP/far.json" -o "$TMP/far-m.json"
frame='{"results":{"A":{"status":200,"frames":[{"schema":{"fields":[{"name":"Time","type":"time"},{"name":"Value","type":"number","labels":{"__name__":"nv_inference_count","model":"pn","pod":"a"}}]},"data":{"values":[[1732700000000,%s],[1,2]]}}]}}}'
printf "$frame" 253402300799000 >"$TMP/g-last.json"
run_ok "$SONICSIM" import prometheus "$TMP/g-last.json" -o "$TMP/g-last-m.json"
printf "$frame" 253402300799001 >"$TMP/g-far.json"
refused "g-far.json: results.A.frames[0].data.values[0][1]: found the number 253402300799001, expected a time in milliseconds since 1970 from 0 ms (1970-01-01T00:00:00Z) to 253402300799000 ms (9999-12-31T23:59:59Z)" \
  "$SONICSIM" import prometheus "$TMP/g-far.json" -o "$TMP/g-far-m.json"

# What the windows multiply (pools x windows, pool/model pairs x windows, samples, series) is
# estimated before a window is allocated and held to --memory-budget (the runs' budget): 200
# pools with only GPU utilization over 9,000 windows, in a 20 kB file.
{
  printf '{"status":"success","data":{"resultType":"matrix","result":['
  printf '{"metric":{"__name__":"nv_inference_count","model":"pn","pod":"a"},"values":[[1732700000,"1"],[1732700001,"2"]]}'
  for i in $(seq 200); do
    printf ',{"metric":{"__name__":"nv_gpu_utilization","release":"g%d","pod":"a"},"values":[[1732700000,"0.5"],[1732709000,"0.5"]]}' "$i"
  done
  printf ']}}'
} >"$TMP/pools.json"
RESULTS="$TMP/pools-m.json"
refused "--memory-budget: the import would need about" \
  "$SONICSIM" import prometheus "$TMP/pools.json" -o "$RESULTS" --memory-budget 256MiB
assert_stderr_contains "the largest parts: 9,000 windows x 201 pools ~ "
assert_stderr_contains "raise the budget with --memory-budget SIZE"
unset RESULTS

# --step takes seconds or a time with its unit.
run_ok "$SONICSIM" import prometheus tests/data/prometheus/day.json -o "$TMP/step.json" --step 1min
assert_stdout_contains "step 1.00 min, 2 windows"
run_status 2 "$SONICSIM" import prometheus tests/data/prometheus/day.json -o "$TMP/step.json" --step soon
assert_stderr_contains '--step: found "soon", expected a time > 0'
finish
