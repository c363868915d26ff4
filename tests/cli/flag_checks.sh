# cli_flag_checks: numeric flags are checked with messages a person reads (no 309-digit bounds),
# nan, inf and overflows are refused (exit 2), and an impossible link load cannot pass unseen.
source "$(dirname "$0")/lib.sh" "$@"
bound_every_run
S=(tests/data/valid_minimal.json)

check_refused() {  # check_refused MESSAGE CMD...: exit 2, the message, no long numbers
  local message="$1"
  shift
  run_status 2 "$@"
  assert_stderr_contains "$message"
  if grep -Eq '[0-9]{25,}|not in range|\.000000' "$ERR"; then fail "unreadable bounds: $(cat "$ERR")"; fi
}

check_refused '--seed: found "99999999999999999999999", expected a whole number from 0 to' \
  "$SONICSIM" run "${S[@]}" --seed 99999999999999999999999
check_refused '--seed: found "-1"' "$SONICSIM" run "${S[@]}" --seed -1
check_refused '--seed: found "1.5"' "$SONICSIM" run "${S[@]}" --seed 1.5
check_refused '--trace-every: found "0", expected a whole number from 1 to' \
  "$SONICSIM" run "${S[@]}" --trace-every 0
check_refused '--min-per-job-throughput: found "nan", expected a finite number >= 0' \
  "$SONICSIM" plan tests/data/plan_knee.json max-cpu --min-per-job-throughput nan
check_refused '--slowdown: found "inf", expected a finite number >= 0' \
  "$SONICSIM" plan tests/data/plan_knee.json max-cpu --slowdown inf
check_refused '--gpu-hour-price: found "1e999", expected a finite number >= 0' \
  "$SONICSIM" plan tests/data/plan_knee.json cost --gpu-hour-price 1e999
check_refused '--workers: found "0", expected a whole number from 1 to 4096' \
  "$SONICSIM" sweep "${S[@]}" --param workload.jobs=1 -o "$TMP/s.csv" --workers 0
assert_no_file "$TMP/s.csv"

# A link that carries more than its bandwidth (the analytic transport does not slow transfers):
# a warning in the summary, and on stderr with --json.
over=(scenarios/default.json --set duration=1min --set warmup=10s
  --set network.flow_model=analytic
  --set 'network.site_uplink={"bandwidth":"100Mbps","latency":"1ms"}')
run_ok "$SONICSIM" run "${over[@]}"
assert_stdout_contains "WARNING    site_uplink carried"
assert_stdout_contains 'network.flow_model is "analytic": set it to "auto" or "flow"'
run_ok "$SONICSIM" run "${over[@]}" --json
assert_stderr_contains "sonicsim: warning: site_uplink carried"
run_ok "$SONICSIM" run scenarios/default.json --set duration=1min --set warmup=10s
if grep -q WARNING "$OUT"; then fail "a warning without an overload"; fi
pass "no warning when no link is overloaded"

# Wall-clock instants: RFC 3339 in the same range as seconds, 1970-01-01T00:00:00Z to
# 9999-12-31T23:59:59Z (year 0 and a time past the cap were accepted), each end and one step
# past it. The OpenMetrics file's last sample too: the 10 min run must end by the cap.
run_ok "$SONICSIM" run "${S[@]}" -q --openmetrics "$TMP/end.om" --openmetrics-start 9999-12-31T23:49:59Z
grep -q ' 253402300799.000$' "$TMP/end.om" || fail "the last sample is not at 9999-12-31T23:59:59Z"
pass "the last sample at 9999-12-31T23:59:59Z"
check_refused "--openmetrics-start: found '9999-12-31T23:49:59.001Z', whose run of 10.0 min ends after 9999-12-31T23:59:59Z, expected a start at most 253402300199 (9999-12-31T23:49:59Z)" \
  "$SONICSIM" run "${S[@]}" -q --openmetrics "$TMP/bad.om" --openmetrics-start 9999-12-31T23:49:59.001Z
run_ok "$SONICSIM" run "${S[@]}" -q --openmetrics "$TMP/start.om" --openmetrics-start 1970-01-01T00:00:00Z
for t in 0000-01-01T00:00:00Z 9999-12-31T23:59:59.001Z 9999-12-31T23:59:59-00:01 \
  1969-12-31T23:59:59.999Z 253402300799.001 -0.001 0x10; do
  check_refused "--openmetrics-start: found '$t', expected seconds since the epoch (1732665600) or RFC 3339 (2026-11-27T00:00:00Z) from 0 (1970-01-01T00:00:00Z) to 253402300799 (9999-12-31T23:59:59Z)" \
    "$SONICSIM" run "${S[@]}" -q --openmetrics "$TMP/bad.om" --openmetrics-start "$t"
  assert_no_file "$TMP/bad.om"
  check_refused "--start: found \"$t\"" \
    "$SONICSIM" import prometheus tests/data/prometheus/day.json -o "$TMP/m.json" --start "$t"
done

finish
