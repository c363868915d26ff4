# cli_calibrate_host: `calibrate perf-analyzer --host-cores N` gets a server's host CPU costs back
# from perf_analyzer scans across batch sizes (here scans `sonicsim perf-analyzer` emulates of a
# server whose front end costs 200 us per request and 4 ns per input byte), a scenario uses them
# with `"host_cost": {"calibration": FILE}` without counting the server time twice, the emulation
# runs the host stage, and what cannot be fitted is refused (exit 2).
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# 10 kB in, nothing out per item: Network+Server Send/Recv = 200 us + 40 us x B; a fast device
# without dynamic batching (0.2 ms alone, 0.39 ms at B = 16).
cat >"$TMP/bench.json" <<'JSON'
{
  "name": "host-bench",
  "duration": "10s",
  "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1ms",
               "requests": [{"model": "m", "offload_fraction": 0.5}]},
  "models": {"m": {"input_bytes_per_item": 10000, "output_bytes_per_item": 0,
                   "max_batch_size": 64,
                   "request_overhead": {"server": {"fixed": "200us", "per_item": "40us"}},
                   "service_time": {"T4": {"batch": [1, 64], "seconds": [0.0002, 0.001]}}}},
  "servers": [{"name": "t4", "count": 1, "device": "T4", "models": ["m"]}]
}
JSON
for b in 1 2 4 8 16; do
  run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/bench.json" -m m --concurrency-range 4:4 \
    -b "$b" --requests 3000 -o "$TMP/m_batch$b.csv"
done
CSVS=("$TMP"/m_batch{1,2,4,8,16}.csv)

# --- refused: no cores, bytes without cores, cores without bytes -------------------------------
run_status 2 "$SONICSIM" calibrate perf-analyzer "${CSVS[@]}" --model m --device T4 \
  --max-batch-size 64 --no-dynamic-batching --host-cores 0
assert_stderr_contains "--host-cores"
run_status 2 "$SONICSIM" calibrate perf-analyzer "${CSVS[@]}" --model m --device T4 \
  --max-batch-size 64 --no-dynamic-batching --input-bytes-per-item 10000
assert_stderr_contains "expected --host-cores N too"
run_status 2 "$SONICSIM" calibrate perf-analyzer "${CSVS[@]}" --model m --device T4 \
  --max-batch-size 64 --no-dynamic-batching --host-cores 4
assert_stderr_contains "--input-bytes-per-item: needed for --host-cores (no --triton-config)"

# --- the fit -----------------------------------------------------------------------------------
run_ok "$SONICSIM" calibrate perf-analyzer "${CSVS[@]}" --model m --device T4 \
  --max-batch-size 64 --no-dynamic-batching --host-cores 4 --input-bytes-per-item 10000 --output-bytes-per-item 0 \
  --no-refine -o "$TMP/m.json"
assert_stdout_contains "host       4 cores"
got="$(json_get "$TMP/m.json" host_cost.per_request)"
near "$got" 200e-6 0.02 || fail "per_request $got, expected 200 us within 2%"
pass "per_request $got s (200 us)"
got="$(json_get "$TMP/m.json" host_cost.per_byte_in)"
near "$got" 4e-9 0.02 || fail "per_byte_in $got, expected 4 ns within 2%"
pass "per_byte_in $got s (4 ns)"
[[ "$(json_get "$TMP/m.json" host_cost.in_server_overhead)" == true ]] ||
  fail "host_cost.in_server_overhead is not true"
pass "the host work is part of the server overhead"
# The measured load at B = 16 (four clients) kept well under 4 cores busy.
busy="$(json_get "$TMP/m.json" host_cost.fit.busy_cores)"
float_cmp "$busy" '<' 4 || fail "busy_cores $busy, expected below 4"
pass "busy cores $busy"
# The round trip replays the host stage and still holds within 5%.
for k in 0 1 2 3 4; do
  e="$(json_get "$TMP/m.json" "round_trip.$k.inferences_per_s_error")"
  awk -v e="$e" 'BEGIN { exit !(e < 0.05 && e > -0.05) }' ||
    fail "round trip row $k: throughput error $e"
done
pass "round trip within 5% with the host stage"

# --- a scenario with the calibrated host ---------------------------------------------------------
# Same total server time with 4 cores (nothing queues at concurrency 4): the same throughput.
json_edit "$TMP/bench.json" "$TMP/hosted.json" \
  'models.m.request_overhead={"calibration": "m.json"}' \
  'models.m.host_cost={"calibration": "m.json"}' \
  'servers.0.host={"cores": 4}'
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/hosted.json" -m m --concurrency-range 4:4 \
  -b 16 --requests 3000 -o "$TMP/hosted_batch16.csv"
measured="$(tail -n 1 "$TMP/m_batch16.csv" | cut -d, -f2)"
hosted="$(tail -n 1 "$TMP/hosted_batch16.csv" | cut -d, -f2)"
near "$hosted" "$measured" 0.03 || fail "hosted $hosted inferences/s, measured $measured"
pass "4 host cores replay the bench: $hosted inferences/s (measured $measured)"
# One core: the host stage binds, at most 1 / (200 us + 40 us x 16) requests/s x 16 items.
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/hosted.json" --set servers.0.host.cores=1 -m m \
  --concurrency-range 16:16 -b 16 --requests 3000 -o "$TMP/one_batch16.csv"
one="$(tail -n 1 "$TMP/one_batch16.csv" | cut -d, -f2)"
near "$one" "$(awk 'BEGIN { print 16 / 840e-6 }')" 0.02 ||
  fail "one core: $one inferences/s, expected the host's 19048 within 2%"
pass "one host core binds: $one inferences/s"
# The file's host block without host cores changes nothing: the server time stays a delay.
json_edit "$TMP/hosted.json" "$TMP/nocores.json" 'servers.0.host=null'
run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/nocores.json" -m m --concurrency-range 4:4 \
  -b 16 --requests 3000 -o "$TMP/nocores_batch16.csv"
nocores="$(tail -n 1 "$TMP/nocores_batch16.csv" | cut -d, -f2)"
near "$nocores" "$measured" 0.03 || fail "no cores: $nocores inferences/s, measured $measured"
pass "without host cores the server time is a delay as before"
# A calibration file without a host block cannot give one.
run_ok "$SONICSIM" calibrate perf-analyzer "${CSVS[@]}" --model m --device T4 \
  --max-batch-size 64 --no-dynamic-batching --no-refine -o "$TMP/plain.json"
json_edit "$TMP/hosted.json" "$TMP/plainhost.json" 'models.m.host_cost={"calibration": "plain.json"}'
run_status 2 "$SONICSIM" validate "$TMP/plainhost.json"
assert_stderr_contains "models.m.host_cost.calibration"
assert_stderr_contains "--host-cores N"

# --- calibrate scan: t_host needs host cores ---------------------------------------------------
printf 'jobs,throughput_per_s\n1,400\n2,500\n' >"$TMP/scan.csv"
run_status 2 "$SONICSIM" calibrate scan "$TMP/scan.csv" --scenario "$TMP/nocores.json" \
  --vary workload.jobs --free t_host -o "$TMP/fitted.json"
assert_stderr_contains "t_host: no pool serving the requests has host cores"
assert_no_file "$TMP/fitted.json"
finish
