# cli_examples: each scenario in scenarios/examples/ shows what its description promises (the
# headline number of each feature), so an engine change that breaks a feature shows up here.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

E=scenarios/examples
R() {  # R NAME [ARGS...]: run $E/NAME.json into $TMP/NAME.json (extra args: --set, ...)
  local name="$1"; shift
  run_ok "$SONICSIM" run "$E/$name.json" -q -o "$TMP/$name.json" "$@"
}
get() { json_get "$TMP/$1.json" "$2" || fail "$1.json: no $2"; }
calc() { awk "BEGIN { printf \"%.17g\", $* }"; }
check() {  # check MESSAGE COMMAND...: pass when COMMAND succeeds
  local msg="$1"; shift
  "$@" || fail "$msg"
  pass "$msg"
}

# cpu-only-baseline: no servers, every request falls back, time per event = t_CPU.
R cpu-only-baseline
n="cpu-only-baseline"
check "$n: no request completed remotely" test "$(get $n requests.completed)" -eq 0
check "$n: all requests are fallback or in flight" test "$(get $n requests.sent)" -eq \
  "$(($(get $n requests.fallback) + $(get $n requests.in_flight_at_end)))"
check "$n: n_gpu = 0" test "$(get $n analytic.n_gpu)" -eq 0
check "$n: time per event ~ t_CPU" near "$(get $n events.time_per_event_s.mean)" "$(get $n analytic.t_cpu_s)" 0.02

# The CPU-only baseline of a scenario with server NICs (a speed-up's denominator): the NIC class
# has no link then, and its figures are 0, not a division by zero (it once stopped the run).
run_ok "$SONICSIM" run scenarios/default.json --set 'servers=[]' --set duration=2min \
  --set warmup=10s -q -o "$TMP/default-cpu-only.json"
assert_jq "$TMP/default-cpu-only.json" \
  '.links[] | select(.name == "server_nic") | .count == 0 and .mean_utilization == 0 and .peak_utilization == 0'

# formula-knee: deterministic, above the knee: simulated = t_SONIC = t_GPU N_CPU / N_GPU.
R formula-knee
n=formula-knee
check "$n: saturated" test "$(get $n analytic.saturated)" == true
check "$n: time per event = t_SONIC (1e-3)" near "$(get $n events.time_per_event_s.mean)" "$(get $n analytic.t_sonic_s)" 1e-3
check "$n: t_SONIC = 120 ms" near "$(get $n analytic.t_sonic_s)" 0.12 1e-9
check "$n: GPU 100% busy" float_cmp "$(get $n servers.0.utilization)" '>' 0.999

# triton-no-batching vs triton-dynamic-batching: same load, batching keeps up.
R triton-no-batching
R triton-dynamic-batching
check "no batching: one 4-item request per execution" near "$(get triton-no-batching models.particlenet_ak4.mean_batch_size)" 4 1e-12
check "dynamic batching: batches of several requests" float_cmp "$(get triton-dynamic-batching models.particlenet_ak4.mean_batch_size)" '>' 8
check "dynamic batching: 30% more throughput" float_cmp "$(get triton-dynamic-batching events.throughput_per_s)" '>' \
  "$(calc "1.3 * $(get triton-no-batching events.throughput_per_s)")"
check "no batching: GPU saturated" float_cmp "$(get triton-no-batching servers.0.utilization)" '>' 0.999

# cpu-fallback: the unserved model's requests are fallback, one per event.
R cpu-fallback
n=cpu-fallback
fb="$(get $n requests.fallback)"
ev="$(get $n events.completed)"
check "$n: fallback ~ events ($fb vs $ev)" test "$((fb - ev))" -le 40 -a "$((ev - fb))" -le 40
check "$n: deeptau never executed" test "$(get $n models.deeptau.executions)" -eq 0
check "$n: p counts only the served model" near "$(get $n analytic.p)" 0.06 1e-12
check "$n: p_fallback" near "$(get $n analytic.p_fallback)" 0.02 1e-12

# random-routing-mva: the simulation matches exact MVA.
R random-routing-mva
n=random-routing-mva
check "$n: throughput within 2% of MVA" near "$(get $n events.throughput_per_s)" "$(get $n analytic.mva.throughput_per_s)" 0.02
check "$n: utilization within 2% of MVA" near "$(get $n servers.0.utilization)" "$(get $n analytic.mva.device_utilization.gpu)" 0.02
check "$n: latency within 5% of MVA" near "$(get $n requests.latency_s.mean)" "$(get $n analytic.mva.request_latency_s.classifier)" 0.05

# heterogeneous-devices: two pools, one device map; equal shares, the T4s bind.
R heterogeneous-devices
n=heterogeneous-devices
check "$n: binding pool t4" test "$(get $n analytic.binding_pool)" == t4
check "$n: T4s busier than A100s" float_cmp "$(get $n servers.0.utilization)" '>' "$(calc "2 * $(get $n servers.1.utilization)")"
check "$n: equal executions per device" near "$(calc "$(get $n servers.0.executions) / 4")" "$(calc "$(get $n servers.1.executions) / 2")" 0.01

# tensor-shapes: ParticleNet's six FP32 inputs are 9760 B per jet, 20 jets per request.
R tensor-shapes
n=tensor-shapes
check "$n: 195200 B in per event" near "$(get $n analytic.network.bytes_in_per_event)" 195200 1e-12
check "$n: 320 B out per event" near "$(get $n analytic.network.bytes_out_per_event)" 320 1e-12

# bandwidth-bound-uplink: auto picks flows; contention stretches the transfers.
R bandwidth-bound-uplink
n=bandwidth-bound-uplink
tr="$(get $n network.transport)"
check "$n: flows chosen for the requests (transport: $tr)" test "${tr#flow}" != "$tr"
check "$n: latency well above the idle round trip" float_cmp "$(get $n requests.latency_s.mean)" '>' \
  "$(calc "2 * $(get $n analytic.t_latency_s)")"

# async-external-work: every thread keeps its CPU busy: throughput = N_CPU / ((1-p) t_CPU).
# open-loop-arrivals: 800 requests/s offered to one T4 that saturates at 680/s without batching;
# dynamic batching keeps up, so everything offered is served and the backlog stays flat.
R open-loop-arrivals
n=open-loop-arrivals
check "$n: analytic saturation without batching at 1 / 1.47 ms" near "$(get $n analytic.arrivals.saturation_rate_per_s)" "$(calc "1 / 0.00147")" 1e-9
check "$n: throughput = offered rate" near "$(get $n events.throughput_per_s)" "$(get $n arrivals.offered_per_s)" 0.002
check "$n: offered ~ 800/s" near "$(get $n arrivals.offered_per_s)" 800 0.02
check "$n: backlog not growing" test "$(get $n arrivals.backlog_growing)" == false
check "$n: batches of several requests" float_cmp "$(get $n models.particlenet_ak4.mean_batch_size)" '>' 6
R open-loop-arrivals --set workload.arrivals.rate=5000 --set duration=20 --set warmup=2
check "$n at 5000/s: backlog growing" test "$(get $n arrivals.backlog_growing)" == true
check "$n at 5000/s: grows by what full batches cannot serve" float_cmp "$(get $n arrivals.backlog_growth_per_s)" '>' 3000

R async-external-work
n=async-external-work
x="$(get $n events.throughput_per_s)"
check "$n: throughput ~ 80 threads / 180 ms" near "$x" "$(calc "80 / 0.18")" 0.02
check "$n: throughput above the sync formula" float_cmp "$x" '>' "$(calc "1.4 * $(get $n analytic.throughput_per_s)")"
# Little's law: each thread always holds events_in_flight = 2 open events, so the mean time
# from an event's start to its end is 2 x n_cpu / throughput.
check "$n: Little's law, time per event = 2 n_cpu / throughput" \
  near "$(get $n events.time_per_event_s.mean)" "$(calc "2 * 80 / $x")" 0.02
# The same with constant CPU time and most of it independent (the round trip, ~33 ms, is shorter
# than the independent work): the CPU must still serve both open events first come first served.
R async-external-work --set workload.cpu_time_per_event=\"200ms\" \
  --set workload.async.independent_work_fraction=0.8 --set network.wan.latency=\"15ms\"
x="$(get $n events.throughput_per_s)"
check "$n (constant, f=0.8): throughput ~ 80 threads / 180 ms" near "$x" "$(calc "80 / 0.18")" 0.02
t="$(get $n events.time_per_event_s.mean)"
check "$n (constant, f=0.8): Little's law, time per event $t s = 2 n_cpu / throughput = $(calc "2 * 80 / $x") s (both open events progress)" \
  near "$t" "$(calc "2 * 80 / $x")" 0.02

# columnar-coffea: few huge requests; batches of about a thousand items, the uplink loaded enough
# that the automatic transport models the requests as flows, and the time per chunk near t_SONIC.
R columnar-coffea
n=columnar-coffea
check "$n: batches of ~1000 items" float_cmp "$(get $n models.particlenet_ak4.mean_batch_size)" '>' 900
check "$n: requests as SimGrid flows" test "$(get $n network.transport)" == "flow to servers, analytic to clients"
check "$n: time per chunk within 5% of t_SONIC" near "$(get $n events.time_per_event_s.mean)" "$(get $n analytic.t_sonic_s)" 0.05

# shared-priorities: reco (priority 1) and a columnar analysis (priority 2) on too few GPUs.
# Priority levels keep reco's latency; one queue (priority_levels 0) makes reco wait behind the
# analysis's chunks, and the analysis takes back its share.
R shared-priorities
R shared-priorities --set models.particlenet_ak4.dynamic_batching.priority_levels=0
mv "$TMP/shared-priorities.json" "$TMP/one-queue.json"
R shared-priorities
n=shared-priorities
check "$n: two workloads, named" test "$(get $n workloads.1.name)" == columnar
check "$n: the GPUs are short" float_cmp "$(get $n servers.0.utilization)" '>' 0.99
check "$n: reco p99 under 50 ms with priority" float_cmp "$(get $n workloads.0.requests.latency_s.p99)" '<' 0.05
check "$n: one queue: reco p99 above 150 ms" float_cmp "$(get one-queue workloads.0.requests.latency_s.p99)" '>' 0.15
check "$n: priority gives reco more events" float_cmp "$(get $n workloads.0.events.throughput_per_s)" '>' "$(calc "1.1 * $(get one-queue workloads.0.events.throughput_per_s)")"
check "$n: ... and the analysis fewer chunks" float_cmp "$(get $n workloads.1.events.throughput_per_s)" '<' "$(calc "0.7 * $(get one-queue workloads.1.events.throughput_per_s)")"
check "$n: workloads add up to the total" test "$(get $n requests.sent)" -eq "$(($(get $n workloads.0.requests.sent) + $(get $n workloads.1.requests.sent)))"

# burst-start: 200 jobs started together queue at the GPU in the first windows (the burst) and
# drift apart within a few events; started spread out, the same jobs never see the burst.
R burst-start --set workload.start=\"spread\"
mv "$TMP/burst-start.json" "$TMP/burst-spread.json"
R burst-start
n=burst-start
check "$n: the burst queues over 50 ms per request in the second window" \
  float_cmp "$(get $n timeseries.servers.0.queue_time_s.1)" '>' 0.05
assert_jq "$TMP/$n.json" '[.timeseries.servers[0].queue_time_s[30:][]] | add / length < 0.005' \
  "$n: the steady state (the last 30 windows) queues under 5 ms"
assert_jq "$TMP/$n.json" '.timeseries.models.particlenet_ak4.mean_batch_size as $b
  | $b[0] > 2 * ([$b[30:][]] | add / length)' "$n: the burst's batches are over twice the steady ones"
assert_jq "$TMP/burst-spread.json" '[.timeseries.servers[0].queue_time_s[]] | max < 0.01' \
  "$n with spread starts: no window queues 10 ms"

finish
