# cli_simpy_model: the SimPy reference model (analysis/simpy_closed_loop.py) still runs and gives
# the exact answer on a deterministic scenario. Skipped when Debian's python3-simpy3 is absent
# (scripts/test.sh does not install it; scripts/bench.sh does).
source "$(dirname "$0")/lib.sh" "$@"

PY=/usr/bin/python3
[[ -x $PY ]] && $PY -c 'import simpy' 2>/dev/null || skip "python3-simpy3 not installed"

# One thread, constant 1 s events, 10% offloaded: one 10-item request of 1 MB/item in, 1 kB/item
# out over 8 Gbit/s (narrowest) with 1 ms + 4 ms latency, 0.1 s execution, 2 ms queue delay:
# latency = 2 x 5 ms + 10 MB / 1 GB/s + 10 kB / 1 GB/s + 2 ms + 100 ms = 0.12201 s.
cat >"$TMP/det.json" <<'JSON'
{"name": "det", "seed": 1, "duration": "100s",
 "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s",
   "requests": [{"model": "m", "offload_fraction": 0.1, "items": 10}]},
 "models": {"m": {"input_bytes_per_item": "1MB", "output_bytes_per_item": "1kB",
   "service_time": {"batch": [1, 10], "seconds": [0.01, 0.1]}, "max_batch_size": 100,
   "dynamic_batching": {"preferred_batch_size": [50], "max_queue_delay": "2ms"}}},
 "servers": [{"name": "g", "count": 2, "device": "T4", "models": ["m"]}],
 "network": {"client_nic": {"bandwidth": "8Gbps", "latency": "1ms"},
             "wan": {"bandwidth": "80Gbps", "latency": "4ms"}}}
JSON
run_ok $PY analysis/simpy_closed_loop.py "$TMP/det.json" -o "$TMP/r.json"
assert_json "$TMP/r.json"
assert_jq "$TMP/r.json" '(.mean_request_latency_s - 0.12201) | fabs < 1e-9' "request latency 0.12201 s"
assert_jq "$TMP/r.json" '(.time_per_event_s - 1.02201) | fabs < 1e-9' "time per event 1.02201 s"
assert_jq "$TMP/r.json" '.mean_batch_size == 10' "batch size 10"
assert_jq "$TMP/r.json" '.simulated_requests == 97' "97 requests in 100 s"

# Ten threads in lockstep, 1 s queue delay: the preferred size 50 is formed from 5 requests.
$PY - "$TMP/det.json" >"$TMP/det2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["workload"]["jobs"] = 10; s["servers"][0]["count"] = 1; s["network"] = {}
s["models"]["m"]["dynamic_batching"]["max_queue_delay"] = "1s"
print(json.dumps(s))
PY
run_ok $PY analysis/simpy_closed_loop.py "$TMP/det2.json" -o "$TMP/r2.json"
assert_jq "$TMP/r2.json" '.mean_batch_size == 50 and .mean_requests_per_execution == 5' \
  "preferred batch size 50 formed"

finish
