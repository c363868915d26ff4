# cli_hostile_time: simulated time that stops advancing (issue 16, class 1). Each case once
# looped forever or ate the machine; now it must end fast with exit status 2 (bad input), no
# signal, a message naming the JSON path or flag, what was found and what is expected, and no
# output file left behind. Every run is bounded (timeout, address space) so that a regression
# fails here instead of hanging the suite.
source "$(dirname "$0")/lib.sh" "$@"

RESULTS="$TMP/out.json"
BASELINE=scenarios/examples/cpu-only-baseline.json
DEFAULT=scenarios/default.json
KEDA=scenarios/sites/tier2-keda.json


# No servers: the CPU fallback costs p x 0 s, so every event took no time.
refused "workload.cpu_time_per_event: found 0 with requests for model \`particlenet_ak4\`, which no pool in \`servers\` hosts" \
  "$SONICSIM" run "$BASELINE" --set workload.cpu_time_per_event=0 --set duration=1 --set warmup=0 -o "$RESULTS"
refused "workload.cpu_time_per_event: found 1e-300, expected a time of at least 1ns (SimGrid's clock resolution)" \
  "$SONICSIM" run "$BASELINE" --set workload.cpu_time_per_event=1e-300 -o "$RESULTS"
refused "faults[0].mtbf: found 1e-300, expected a time of at least 1ns" \
  "$SONICSIM" run "$DEFAULT" --set 'faults=[{"kind":"random_crashes","pool":"t4","mtbf":1e-300,"mttr":1e-300}]' -o "$RESULTS"
assert_stderr_contains "faults[0].mttr: found 1e-300"
refused "faults[0].mtbf: found 1e-300, expected a time of at least 1ns" \
  "$SONICSIM" run "$DEFAULT" --set 'faults=[{"kind":"random_preemption","mtbf":1e-300}]' -o "$RESULTS"
# A tiny mtbf above the tick: refused by the event budget, with the estimate.
refused "faults[0].mtbf: found a run expected to process about 6.48e+14 events" \
  "$SONICSIM" run "$DEFAULT" --set 'faults=[{"kind":"random_preemption","mtbf":"1ns"}]' -o "$RESULTS"
refused "servers[0].autoscaler.polling_interval: found 1e-300, expected a time of at least 1ns" \
  "$SONICSIM" run "$KEDA" --set servers.0.autoscaler.polling_interval=1e-300 -o "$RESULTS"
refused "expected at most 1e+12 events" \
  "$SONICSIM" run "$KEDA" --set servers.0.autoscaler.polling_interval=1ns -o "$RESULTS"
refused "workload.arrivals.rate: found a run expected to process about" \
  "$SONICSIM" run scenarios/examples/open-loop-arrivals.json --set workload.arrivals.rate=1e9/s --set duration=10h -o "$RESULTS"

# The engine's safety net, for what the loader cannot foresee: no CPU time per event, requests
# offloading everything, and a crash that takes every server down for good (no network, so the
# balancer's "no server" answer comes back at once). The clock stops at the crash.
cat >"$TMP/stall.json" <<'JSON'
{
  "name": "stall", "duration": "10s", "warmup": 0,
  "workload": {"jobs": 4, "threads_per_job": 1, "cpu_time_per_event": 0,
               "requests": [{"model": "m", "offload_fraction": 1}]},
  "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                   "service_time": {"batch": [1], "seconds": [0.01]}}},
  "servers": [{"name": "gpu", "count": 2, "device": "T4", "models": ["m"]}],
  "faults": [{"kind": "crash", "pool": "gpu", "at": "2s"}]
}
JSON
# The gate sees it first: a request that can fail at once (the crash) makes the fastest event 1 ns.
refused "stall.json: the run would take about" "$SONICSIM" run "$TMP/stall.json" -o "$RESULTS"
assert_stderr_contains "no CPU time, so the fastest round trip 1.00 ns"
# Past the gate (unlimited), the net stops the run where the clock stops.
refused "stall.json: simulated time stopped advancing at t=2 s" \
  "$SONICSIM" run "$TMP/stall.json" --time-budget unlimited -o "$RESULTS"
assert_stderr_contains "events in a row within 1 ns, mostly client events (workload.cpu_time_per_event)"

# Issue 35. The clock past 2^24 s (194 days): an execution's remaining work under half the
# double's spacing was rescheduled at the same instant for ever. One thread, a request a day.
cat >"$TMP/long.json" <<'JSON'
{
  "name": "long", "duration": 20000000, "warmup": 0,
  "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": 86400,
               "requests": [{"model": "m", "offload_fraction": 0.5}]},
  "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                   "service_time": {"batch": [1], "seconds": [0.001]}}},
  "servers": [{"name": "gpu", "count": 1, "device": "T4", "models": ["m"]}]
}
JSON
run_ok "$SONICSIM" run "$TMP/long.json" -q -o "$RESULTS"
assert_jq "$RESULTS" '.requests.failed == 0 and .requests.completed > 200'

# The time budget (one admission gate with the memory budget): random crashes every 2 ns on
# 8 devices for a minute are 4.8e11 events, days of wall time; refused at once with the term.
rm -f "$RESULTS"
refused "the run would take about 66.7 h of wall time" "$SONICSIM" run "$DEFAULT" --set duration=1min \
  --set warmup=0 --set 'faults=[{"kind":"random_crashes","pool":"t4","mtbf":"1ns","mttr":"1ns"}]' \
  -o "$RESULTS"
assert_stderr_contains "random crashes of pool \`t4\`: 8 devices x (1 + 2 x 1.00 min / (mtbf + mttr = 2.00 ns))"
assert_stderr_contains "--time-budget DURATION"
assert_no_file "$RESULTS"
# ... the flag raises it (validate checks the same estimate without running).
run_ok "$SONICSIM" validate "$DEFAULT" --set duration=1min --set warmup=0 --time-budget unlimited \
  --set 'faults=[{"kind":"random_crashes","pool":"t4","mtbf":"1ns","mttr":"1ns"}]'
refused "--time-budget: found \"0.5\", expected a wall time of at least 1s" \
  "$SONICSIM" validate "$DEFAULT" --time-budget 0.5
# No CPU time per event: a 1 ns service time paces each thread at a billion events a second.
# Past 1e12 events the loader refuses it; below, the time budget does.
cat >"$TMP/nocpu.json" <<'JSON'
{
  "name": "nocpu", "duration": "1h", "warmup": 0,
  "workload": {"jobs": 4, "threads_per_job": 1, "cpu_time_per_event": 0,
               "requests": [{"model": "m", "offload_fraction": 1}]},
  "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                   "service_time": {"batch": [1], "seconds": [1e-9]}}},
  "servers": [{"name": "gpu", "count": 2, "device": "T4", "models": ["m"]}]
}
JSON
refused "workload.cpu_time_per_event: found a run expected to process about 1.44e+13 events" \
  "$SONICSIM" run "$TMP/nocpu.json" -o "$RESULTS"
assert_stderr_contains "the fastest event with no CPU time"
refused "the workload's client events: 4 threads x (1 + 1.00 min / no CPU time, so the fastest round trip 1.00 ns)" \
  "$SONICSIM" run "$TMP/nocpu.json" --set duration=1min -o "$RESULTS"

# A run in which no event completes says so instead of printing 0 s per event silently.
run_ok "$SONICSIM" run "$DEFAULT" --set duration=5s --set warmup=0 \
  --set workload.cpu_time_per_event=10s -q -o "$RESULTS"
assert_stderr_contains "warning: no event completed in the measured span"
rm -f "$RESULTS"

# A site with neither NICs nor a WAN between its clients and its pool: nothing to share, and
# SimGrid found "no connecting path" and aborted (exit 134); the same file ran with "flow".
run_ok "$SONICSIM" run tests/data/sites_no_nics.json -q -o "$RESULTS"
assert_jq "$RESULTS" '.requests.completed > 1000 and .requests.failed == 0'
rm -f "$RESULTS"

# `validate` refuses what `run` refuses, for the same reasons.
refused "workload.cpu_time_per_event: found 0 with requests" \
  "$SONICSIM" validate "$BASELINE" --set workload.cpu_time_per_event=0
refused "servers[0].autoscaler.polling_interval: found 1e-300" \
  "$SONICSIM" validate "$KEDA" --set servers.0.autoscaler.polling_interval=1e-300

# plan's bisection: a tolerance its 4-digit bandwidths cannot reach never ended.
refused "--tolerance: found 1e-17, expected a ratio in [0.001, 1]" \
  "$SONICSIM" plan tests/data/plan_knee.json min-bandwidth --link site_uplink --tolerance 1e-17 -o "$RESULTS"
refused "--tolerance: found nan" \
  "$SONICSIM" plan tests/data/plan_knee.json min-bandwidth --link site_uplink --tolerance nan -o "$RESULTS"

finish
