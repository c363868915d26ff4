# cli_site_operations: the shipped Tier-2 scenario (scenarios/sites/tier2-keda.json: 1000 jobs in
# waves of 50 every 10 minutes, KEDA on the queue time per execution, 20 ms threshold) runs its
# four simulated hours and reports per-GPU utilization and replicas over time; faults and client
# policies reach the results through --set; the same seed gives the same results.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

S=scenarios/sites/tier2-keda.json
# The sanitizer pass (SONICSIM_TEST_QUICK=1) runs the first simulated hour: the same code paths.
if [[ $QUICK == 1 ]]; then SHORT=(--set duration=1h); MINUTES=60; else SHORT=(); MINUTES=240; fi
run_ok "$SONICSIM" run "$S" -q -o "$TMP/t2.json" "${SHORT[@]}"
R="$TMP/t2.json"
if [[ $QUICK != 1 ]]; then
  assert_jq "$R" '.jobs.finished == 1000 and .jobs.not_started == 0' "every job of every wave finished"
fi
assert_jq "$R" '.requests.sent == .requests.completed + .requests.failed + .requests.fallback + .requests.in_flight_at_end' \
  "conservation: sent = completed + failed + fallback + in flight"
assert_jq "$R" '.servers[0].utilization_per_device | length == 10' "utilization per GPU (10 devices)"
assert_jq "$R" '.servers[0].replicas.peak > 2 and .servers[0].replicas.peak <= 10' "the pool scaled up, within max_replicas"
assert_jq "$R" '.servers[0].replicas.mean_up > 1 and .servers[0].replicas.mean_up < .servers[0].replicas.peak' \
  "mean replicas up between min and peak"
assert_jq "$R" '.servers[0].scaling | length > 10' "the autoscaler followed the waves"
assert_jq "$R" '[.servers[0].scaling[] | select(.to > .from)] | all(.to - .from == 1)' "scale up one replica per step"
assert_jq "$R" '[.servers[0].scaling[].t_s] | all(. / 30 == (. / 30 | floor))' "decisions only at 30 s polls"
assert_jq "$R" ".timeseries.pools[0].replicas | length == $MINUTES" "replicas asked for, per minute"
assert_jq "$R" '.timeseries.pools[0] | [.replicas, .ready] | transpose | all(.[1] <= .[0])' \
  "never more replicas ready than asked for"
assert_jq "$R" '.timeseries.pools[0].ready | max > 2' "replicas ready over time"

# Same seed, same bytes (perf aside).
run_ok "$SONICSIM" run "$S" -q -o "$TMP/t2b.json" "${SHORT[@]}"
diff <(jq -c 'del(.perf)' "$TMP/t2.json") <(jq -c 'del(.perf)' "$TMP/t2b.json") >/dev/null || fail "two runs of the same seed differ"
pass "two runs of the same seed give the same results (perf aside)"

# A GPU node lost for 20 minutes of the busiest hour, with clients that retry and fall back:
# nothing is lost silently.
run_ok "$SONICSIM" run "$S" -q -o "$TMP/crash.json" \
  --set 'faults=[{"kind": "crash", "pool": "t4", "device": 0, "at": "1h", "for": "20min"}]' \
  --set 'servers[0].autoscaler.min_replicas=2' --set 'servers[0].autoscaler.initial_replicas=2' \
  --set duration=2h
C="$TMP/crash.json"
assert_jq "$C" '.servers[0].replicas.crashes == 1' "one crash"
assert_jq "$C" '.requests.sent == .requests.completed + .requests.failed + .requests.fallback + .requests.in_flight_at_end' \
  "conservation under a crash"
assert_jq "$C" '.requests.resilience.failed_tries.server_lost > 0' "the crashed server's requests failed back"
assert_jq "$C" '.requests.failed == 0' "and were retried or computed locally"

# The text summary names the operations.
run_ok "$SONICSIM" run "$S" --set duration=30min
assert_stdout_contains "replicas"
finish
