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
refused "stall.json: simulated time stopped advancing at t=2 s" "$SONICSIM" run "$TMP/stall.json" -o "$RESULTS"
assert_stderr_contains "events in a row within 1 ns, mostly client events (workload.cpu_time_per_event)"

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
