# sonicsim perf-analyzer --request-rate-range: perf_analyzer's open loop in the simulator, its
# CSV in perf_analyzer's Request Rate format, and the usage errors around the two range flags.
source "$(dirname "$0")/lib.sh" "$@"
FIX="$SRC/tests/data/perf_analyzer"

# 2 ms per execution of 4 items, no batching: 500 requests/s of capacity.
cat >"$TMP/pa.json" <<JSON
{"name": "pa", "duration": "10s",
 "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "10ms",
              "requests": [{"model": "m", "offload_fraction": 0.1, "items": 4}]},
 "models": {"m": {"max_batch_size": 16, "request_overhead": {"server": "300us"},
                  "service_time": {"batch": [1, 7], "seconds": ["1.5ms", "2.5ms"]}}},
 "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["m"]}]}
JSON

run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 100.5:300.5:100 \
  -b 4 --requests 2000 -o "$TMP/rate_b4.csv"
head -1 "$FIX/rate_bs2.csv" | tr -d '\r' >"$TMP/want-header"
head -1 "$TMP/rate_b4.csv" | cut -d, -f1-13 >"$TMP/got-header"
cmp -s "$TMP/want-header" "$TMP/got-header" ||
  fail "header differs from perf_analyzer's Request Rate header: $(cat "$TMP/got-header")"
pass "the CSV has perf_analyzer's Request Rate header"
[[ $(wc -l <"$TMP/rate_b4.csv") -eq 4 ]] || fail "expected 3 rows, one per rate: $(cat "$TMP/rate_b4.csv")"
pass "one row per rate"
[[ $(cut -d, -f1 "$TMP/rate_b4.csv" | tail -n +2 | tr '\n' ' ') == "100.5 200.5 300.5 " ]] ||
  fail "expected the rates 100.5 200.5 300.5 in the first column: $(cat "$TMP/rate_b4.csv")"
pass "fractional rates written as perf_analyzer writes them"
# Below saturation: Inferences/Second is the rate x 4 items.
while IFS=, read -r rate ips _; do
  near "$ips" "$(awk -v r="$rate" 'BEGIN { print 4 * r }')" 0.01 ||
    fail "rate $rate: $ips infer/s, expected 4 x the rate"
done < <(tail -n +2 "$TMP/rate_b4.csv")
pass "throughput is the offered rate x the batch size"
# calibrate reads the scans back (one request per execution without batching) and finds the
# service times the scenario has: 1.667 ms for 2 items, 2 ms for 4.
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 100:300:100 \
  -b 2 --requests 2000 -o "$TMP/rate_b2.csv"
run_ok "$SONICSIM" calibrate perf-analyzer "$TMP/rate_b2.csv" "$TMP/rate_b4.csv" --model m \
  --max-batch-size 16 -o "$TMP/cal.json"
assert_jq "$TMP/cal.json" \
  '[.service_time.batch, .service_time.seconds] | transpose | map({key: (.[0] | tostring), value: .[1]})
   | from_entries | ((."2" / 0.0016667 - 1) | fabs) < 0.01 and ((."4" / 0.002 - 1) | fabs) < 0.01' \
  "the service times at the two batch sizes come back from the request-rate scans"
assert_jq "$TMP/cal.json" \
  '[.round_trip[] | select(.request_rate)] | length == 6 and
   all((.inferences_per_s_error | fabs) < 0.02 and (.p50_error | fabs) < 0.05)' \
  "the round trip replays the request-rate rows as an open loop"

# Poisson arrivals, with per-level diagnostics; past saturation -v says so.
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 400:1000:600 \
  --request-distribution poisson -b 4 --requests 2000 -v
assert_stderr_contains "request rate 400: "
assert_stderr_contains "request rate 1000: "
assert_stderr_contains "past saturation"
[[ $(grep -c '^[0-9]' "$OUT") -eq 2 ]] || fail "expected two rows on stdout"
pass "CSV on stdout without -o"

# Exactly one of the two range flags; bad ranges; no output file left behind.
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --concurrency-range 1:2 \
  --request-rate-range 10 -o "$TMP/both.csv"
assert_stderr_contains "found both --concurrency-range and --request-rate-range, expected exactly one"
assert_no_file "$TMP/both.csv"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m -o "$TMP/neither.csv"
assert_stderr_contains "found neither --concurrency-range nor --request-rate-range"
assert_no_file "$TMP/neither.csv"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 0:10
assert_stderr_contains "--request-rate-range: found \"0:10\", expected START[:END[:STEP]]"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 50:10
assert_stderr_contains "expected START <= END"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range fast
assert_stderr_contains "numbers of requests per second > 0"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --concurrency-range 1 \
  --request-distribution poisson
assert_stderr_contains "expected it only with --request-rate-range"
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 10 \
  --request-distribution uniform
run_status 2 "$SONICSIM" perf-analyzer --scenario "$TMP/pa.json" -m m --request-rate-range 10 -b 17
assert_stderr_contains "expected at most 16"

# A closed-loop key next to `arrivals`: the file, the JSON path, found and expected.
cat >"$TMP/bad.json" <<JSON
{"name": "bad", "duration": "10s",
 "workload": {"jobs": 3, "arrivals": {"rate": "fast"}, "requests": [{"model": "m"}]},
 "models": {"m": {"service_time": {"batch": [1], "seconds": [0.001]}}},
 "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["m"]}]}
JSON
run_status 2 "$SONICSIM" validate "$TMP/bad.json"
assert_stderr_contains "bad.json: workload.jobs: found 3 next to \`arrivals\`, expected no \`jobs\`"
assert_stderr_contains "bad.json: workload.arrivals.rate: found \"fast\", expected a rate"
run_status 2 "$SONICSIM" run "$TMP/bad.json" -o "$TMP/bad-results.json"
assert_no_file "$TMP/bad-results.json"

# The open loop as a scenario of its own: `run` reports the arrivals and says what happened.
run_ok "$SONICSIM" run scenarios/examples/open-loop-arrivals.json -o "$TMP/open.json"
assert_stdout_contains "open loop, "
assert_jq "$TMP/open.json" '.arrivals.rate_per_s > 0 and .arrivals.dropped == 0' \
  "results carry the arrivals block"
assert_jq "$TMP/open.json" \
  '.requests.sent == .requests.completed + .requests.failed + .requests.fallback + .requests.in_flight_at_end' \
  "every request accounted for"
run_ok "$SONICSIM" run scenarios/examples/open-loop-arrivals.json --set workload.arrivals.rate=5000 \
  --set duration=20 --set warmup=2 -o "$TMP/over.json"
assert_stdout_contains "PAST SATURATION"
assert_jq "$TMP/over.json" '.arrivals.backlog_growing and .arrivals.backlog_growth_per_s > 0' \
  "past saturation the results say the backlog grows"
finish
