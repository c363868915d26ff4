# cli_determinism: the same scenario and seed give the same results file (all but `perf`), another
# seed gives another one; every results file has the SPEC keys and satisfies the conservation
# identity sent = completed + failed + fallback + in_flight_at_end.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# The SPEC result keys (section 6), as dotted paths.
REQUIRED=(sonicsim_version scenario scenario_sha256 seed simulated_time_s
  events.completed events.throughput_per_s events.per_job_throughput_per_s
  events.time_per_event_s.mean events.time_per_event_s.p50 events.time_per_event_s.p90
  events.time_per_event_s.p99
  requests.sent requests.completed requests.failed requests.fallback requests.in_flight_at_end
  requests.latency_s.mean requests.latency_s.p50 requests.latency_s.p90 requests.latency_s.p95
  requests.latency_s.p99
  models servers links
  analytic.t_cpu_s analytic.p analytic.t_gpu_s analytic.t_latency_s analytic.n_cpu
  analytic.n_gpu analytic.t_ideal_s analytic.t_sonic_s analytic.saturated
  analytic.saturation_n_cpu_per_gpu
  perf.wall_time_s perf.simulated_requests_per_wall_s perf.peak_rss_bytes)
MODEL_KEYS=(inferences_per_s mean_batch_size queue_time_s.mean queue_time_s.p99 compute_time_s.mean)
SERVER_KEYS=(name device utilization executions)
LINK_KEYS=(name bytes mean_bandwidth_Bps peak_utilization)

# check_results FILE: SPEC keys (also per model, server and link), conservation, sane values.
check_results() {
  local f="$1"
  assert_json_paths "$f" "${REQUIRED[@]}"
  local k paths=()
  while IFS= read -r k; do
    [[ -n $k ]] && paths+=("${MODEL_KEYS[@]/#/models.$k.}")
  done < <(json_keys "$f" models)
  while IFS= read -r k; do
    [[ -n $k ]] && paths+=("${SERVER_KEYS[@]/#/servers.$k.}")
  done < <(json_keys "$f" servers)
  while IFS= read -r k; do
    [[ -n $k ]] && paths+=("${LINK_KEYS[@]/#/links.$k.}")
  done < <(json_keys "$f" links)
  ((${#paths[@]} == 0)) || assert_json_paths "$f" "${paths[@]}"
  local sent completed failed fallback inflight
  sent="$(json_get "$f" requests.sent)"
  completed="$(json_get "$f" requests.completed)"
  failed="$(json_get "$f" requests.failed)"
  fallback="$(json_get "$f" requests.fallback)"
  inflight="$(json_get "$f" requests.in_flight_at_end)"
  ((sent == completed + failed + fallback + inflight)) ||
    fail "${f##*/}: sent $sent != completed $completed + failed $failed + fallback $fallback + in flight $inflight"
  pass "${f##*/}: conservation $sent = $completed + $failed + $fallback + $inflight"
  local ev
  ev="$(json_get "$f" events.completed)"
  ((ev > 0)) || fail "${f##*/}: no events completed"
  [[ "$(json_get "$f" scenario_sha256)" =~ ^[0-9a-f]{64}$ ]] || fail "${f##*/}: scenario_sha256 is not a SHA-256"
  pass "${f##*/}: $ev events, scenario_sha256 is a SHA-256"
}

# same_but_perf A B: the two results files are identical once `perf` is removed, both as parsed
# JSON and as bytes (the perf object, printed last, cut out of the text).
strip_perf() { sed '/^  "perf": {/,/^  }/d' "$1"; }
same_but_perf() {
  diff <(json_canon "$1" perf) <(json_canon "$2" perf) >"$TMP/diff" ||
    { head -40 "$TMP/diff"; fail "${1##*/} and ${2##*/} differ (perf removed)"; }
  pass "${1##*/} = ${2##*/} as JSON (perf removed)"
  grep -q '^  "perf": {' "$1" || fail "${1##*/}: no top-level perf object at the expected place"
  cmp -s <(strip_perf "$1") <(strip_perf "$2") ||
    { diff <(strip_perf "$1") <(strip_perf "$2") | head -40; fail "${1##*/} and ${2##*/} differ byte-wise outside perf"; }
  pass "${1##*/} = ${2##*/} byte for byte outside perf"
}
differ_but_perf() {
  if diff -q <(json_canon "$1" perf) <(json_canon "$2" perf) >/dev/null; then
    fail "${1##*/} and ${2##*/} are identical (perf removed)"
  fi
  pass "${1##*/} != ${2##*/}"
}

# 1. The minimal scenario (CPU only), twice with the same seed, once with another.
S=tests/data/valid_minimal.json
run_ok "$SONICSIM" run "$S" -q -o "$TMP/min-a.json"
run_ok "$SONICSIM" run "$S" -q -o "$TMP/min-b.json"
run_ok "$SONICSIM" run "$S" -q --seed 2 -o "$TMP/min-seed2.json"
check_results "$TMP/min-a.json"
same_but_perf "$TMP/min-a.json" "$TMP/min-b.json"
differ_but_perf "$TMP/min-a.json" "$TMP/min-seed2.json"
[[ "$(json_get "$TMP/min-a.json" seed)" == 1 && "$(json_get "$TMP/min-seed2.json" seed)" == 2 ]] ||
  fail "seed not reported as 1 / 2"
pass "seed 1 and 2 reported"

# 2. Servers, batching and random routing (analytic transport), shortened with --set.
S=scenarios/examples/random-routing-mva.json
args=(--set duration=\"3min\" --set warmup=\"20s\")
run_ok "$SONICSIM" run "$S" "${args[@]}" -q -o "$TMP/mva-a.json"
run_ok "$SONICSIM" run "$S" "${args[@]}" -q -o "$TMP/mva-b.json"
run_ok "$SONICSIM" run "$S" "${args[@]}" -q --seed 2 -o "$TMP/mva-seed2.json"
check_results "$TMP/mva-a.json"
check_results "$TMP/mva-seed2.json"
same_but_perf "$TMP/mva-a.json" "$TMP/mva-b.json"
differ_but_perf "$TMP/mva-a.json" "$TMP/mva-seed2.json"
# --json prints the same document on stdout.
run_ok "$SONICSIM" run "$S" "${args[@]}" --json
cp "$OUT" "$TMP/mva-stdout.json"
same_but_perf "$TMP/mva-a.json" "$TMP/mva-stdout.json"

# 3. Fallback, dynamic batching and SimGrid flows (network.flow_model auto picks flow).
for S in scenarios/examples/cpu-fallback.json scenarios/examples/bandwidth-bound-uplink.json \
  scenarios/examples/async-external-work.json; do
  [[ -f $S ]] || fail "missing example $S"
  b="$(basename "$S" .json)"
  run_ok "$SONICSIM" run "$S" -q --set duration=\"40s\" --set warmup=\"5s\" -o "$TMP/$b-a.json"
  run_ok "$SONICSIM" run "$S" -q --set duration=\"40s\" --set warmup=\"5s\" -o "$TMP/$b-b.json"
  check_results "$TMP/$b-a.json"
  same_but_perf "$TMP/$b-a.json" "$TMP/$b-b.json"
done
[[ "$(json_get "$TMP/bandwidth-bound-uplink-a.json" network.transport)" == flow* ]] ||
  fail "bandwidth-bound-uplink did not use flows (network.transport: $(json_get "$TMP/bandwidth-bound-uplink-a.json" network.transport))"
pass "the flow transport is deterministic too"
fb="$(json_get "$TMP/cpu-fallback-a.json" requests.fallback)"
((fb > 0)) || fail "cpu-fallback: no fallback requests"
pass "cpu-fallback: $fb fallback requests"

finish
