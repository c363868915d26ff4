# cli_import_prometheus_server: `import prometheus` reads what a real Prometheus answers. A
# counter history is backfilled into a fresh Prometheus (promtool, OpenMetrics), the server is
# started on a scratch folder and a local port, the history exported with /api/v1/query_range
# as the docs say (curl), and imported; also the server's own answers to an instant query, a
# rate() and a failed query are refused. Skipped without prometheus, promtool, curl or jq.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
for tool in prometheus promtool curl jq; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

# One server, pn: 6 requests of 4 inferences in 3 executions every 5 s (1.2 requests/s, batch
# 8), 4 ms of compute per request; an hour that ended two hours ago (within the retention).
T0=$(($(date +%s) - 3 * 3600))
{
  for m in "nv_inference_request_success 6" "nv_inference_count 24" "nv_inference_exec_count 3" \
    "nv_inference_compute_infer_duration_us 24000"; do
    set -- $m
    echo "# TYPE $1 counter"
    for ((i = 0; i < 720; i++)); do
      echo "$1{model=\"pn\",version=\"1\",pod=\"triton-a\",release=\"supersonic\"} $((i * $2)) $((T0 + 5 * i))"
    done
  done
  echo "# EOF"
} >"$TMP/history.om"
promtool tsdb create-blocks-from openmetrics "$TMP/history.om" "$TMP/tsdb" >/dev/null 2>&1 ||
  fail "promtool could not backfill the history"
pass "history backfilled"
start_prometheus "$TMP/tsdb" || skip "Prometheus did not start here ($(tail -1 "$TMP/prometheus.log"))"
pass "Prometheus ready on port $PORT"

API="http://127.0.0.1:$PORT/api/v1"
export_range() {  # export_range QUERY FILE
  curl -fsSG "$API/query_range" --data-urlencode "query=$1" --data-urlencode "start=$T0" \
    --data-urlencode "end=$((T0 + 3595))" --data-urlencode "step=15s" >"$2" ||
    fail "query_range $1 failed"
}
for m in nv_inference_request_success nv_inference_count nv_inference_exec_count \
  nv_inference_compute_infer_duration_us; do
  export_range "$m" "$TMP/$m.json"
done
run_ok "$SONICSIM" import prometheus "$TMP"/nv_*.json -o "$TMP/m.json"
assert_stdout_contains "step 15.0 s, 239 windows"
assert_stdout_contains "supersonic: 1 to 1 replicas; models pn v1"
for check in "requests_per_s 1.2" "batch_size 8" "compute_infer_time_s 0.004"; do
  set -- $check
  values="$(json_get "$TMP/m.json" "pools.0.models.0.$1")"
  [[ "$(jq -c 'map(. * 1e9 | round / 1e9) | unique' <<<"$values")" == "[$2]" ]] ||
    fail "$1: $(jq -c unique <<<"$values"), expected $2 in every window"
  pass "$1 = $2 in every window"
done

# What Prometheus answers to the exports sonicsim cannot use.
export_range "rate(nv_inference_count[1m])" "$TMP/rate.json"
curl -fsSG "$API/query" --data-urlencode "query=nv_inference_count" \
  --data-urlencode "time=$((T0 + 3595))" >"$TMP/instant.json" || fail "instant query failed"
curl -sG "$API/query_range" --data-urlencode "query=nv_inference_count[" \
  --data-urlencode "start=$T0" --data-urlencode "end=$((T0 + 60))" \
  --data-urlencode "step=15s" >"$TMP/failed.json"
refused "rate.json: data.result[0].metric: found a series without __name__" \
  "$SONICSIM" import prometheus "$TMP/rate.json" -o "$TMP/x.json"
refused "instant.json: data.resultType: found the string \"vector\"" \
  "$SONICSIM" import prometheus "$TMP/instant.json" -o "$TMP/x.json"
refused "failed.json: status: found the string \"error\": Prometheus said \"" \
  "$SONICSIM" import prometheus "$TMP/failed.json" -o "$TMP/x.json"
finish
