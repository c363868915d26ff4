# cli_set_overrides: `--set key.path=JSON` changes the simulated scenario the way the same edit of
# the file would: jobs, pool size, dynamic batching, strings, new objects, several overrides.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# 100 threads, constant 100 ms events, 5% offloaded in 1-item requests to one GPU that takes
# 1.24 ms per request alone: ~1000 requests/s against ~800/s without batching, so with Triton's
# dynamic batcher requests queue and run together (mean batch > 1).
BASE="$TMP/scenario.json"
cat >"$BASE" <<'JSON'
{
  "name": "set-overrides",
  "seed": 1,
  "duration": "30s",
  "warmup": "5s",
  "workload": {
    "jobs": 50,
    "threads_per_job": 2,
    "jobs_per_node": 10,
    "cpu_time_per_event": "100ms",
    "requests": [{"model": "m", "offload_fraction": 0.05, "items": 1}]
  },
  "models": {
    "m": {
      "input_bytes_per_item": "10kB",
      "output_bytes_per_item": "100B",
      "service_time": {"batch": [1, 16, 64], "seconds": [0.00124, 0.00339, 0.01182]},
      "max_batch_size": 64,
      "dynamic_batching": {"preferred_batch_size": [32], "max_queue_delay": "100us"}
    }
  },
  "servers": [{"name": "gpu", "count": 1, "device": "T4", "models": ["m"]}],
  "network": {"site_uplink": {"bandwidth": "10Gbps", "latency": "100us"}}
}
JSON

r() {  # r NAME ARGS...: run BASE with ARGS into $TMP/NAME.json
  local name="$1"; shift
  run_ok "$SONICSIM" run "$BASE" -q -o "$TMP/$name.json" "$@"
}
get() { json_get "$TMP/$1.json" "$2" || fail "$1.json: no $2"; }
expect_eq() {  # expect_eq RESULT PATH VALUE
  local v
  v="$(get "$1" "$2")"
  if [[ $v =~ ^-?[0-9.eE+-]+$ && $3 =~ ^-?[0-9.eE+-]+$ ]]; then
    float_cmp "$v" == "$3" || fail "$1: $2 = $v, expected $3"
  else
    [[ "$v" == "$3" ]] || fail "$1: $2 = $v, expected $3"
  fi
  pass "$1: $2 = $3"
}

r base
expect_eq base analytic.n_cpu 100
expect_eq base analytic.n_gpu 1
expect_eq base servers.0.count 1
b="$(get base models.m.mean_batch_size)"
float_cmp "$b" '>' 1.5 || fail "base: mean_batch_size $b, expected batches to form (> 1.5)"
pass "base: dynamic batching forms batches (mean_batch_size $b)"

# workload.jobs: N_CPU follows, and per-job throughput is throughput / jobs.
r jobs80 --set workload.jobs=80
expect_eq jobs80 analytic.n_cpu 160
tp="$(get jobs80 events.throughput_per_s)"
pj="$(get jobs80 events.per_job_throughput_per_s)"
near "$pj" "$(awk -v t="$tp" 'BEGIN { printf "%.17g", t / 80 }')" 1e-9 ||
  fail "jobs80: per_job_throughput_per_s $pj != throughput $tp / 80"
pass "jobs80: per-job throughput = throughput / 80"
[[ "$(get jobs80 scenario_sha256)" != "$(get base scenario_sha256)" ]] || fail "scenario_sha256 did not change"
pass "jobs80: scenario_sha256 changed"

# The override gives exactly what the edited file gives (same effective scenario, same hash).
json_edit "$BASE" "$TMP/scenario-jobs80.json" workload.jobs=80
run_ok "$SONICSIM" run "$TMP/scenario-jobs80.json" -q -o "$TMP/file80.json"
diff <(json_canon "$TMP/jobs80.json" perf) <(json_canon "$TMP/file80.json" perf) >/dev/null ||
  fail "--set workload.jobs=80 and the edited file give different results"
pass "--set workload.jobs=80 = the edited file, scenario_sha256 included"

# servers.0.count: N_GPU and the pool size follow, the devices get less busy.
r count3 --set servers.0.count=3
expect_eq count3 servers.0.count 3
expect_eq count3 analytic.n_gpu 3
u1="$(get base servers.0.utilization)"
u3="$(get count3 servers.0.utilization)"
float_cmp "$u3" '<' "$u1" || fail "utilization with 3 GPUs ($u3) not below 1 GPU ($u1)"
pass "count3: utilization $u3 < $u1"

# models.m.dynamic_batching=null: every 1-item request executes alone.
r nobatch --set models.m.dynamic_batching=null
expect_eq nobatch models.m.mean_batch_size 1
ex="$(get nobatch servers.0.executions)"
done_="$(get nobatch requests.completed)"
infl="$(get nobatch requests.in_flight_at_end)"
((ex >= done_ && ex <= done_ + infl)) ||
  fail "nobatch: $ex executions for $done_ completed requests (+ $infl in flight)"
pass "nobatch: one execution per request ($ex)"
tb="$(get base events.throughput_per_s)"
tn="$(get nobatch events.throughput_per_s)"
float_cmp "$tn" '<' "$tb" || fail "without batching the throughput ($tn) should drop below $tb"
pass "nobatch: throughput $tn < $tb (the GPU saturates without batching)"

# Later overrides win; strings need no quotes; a new object can be set whole.
r twice --set workload.jobs=10 --set workload.jobs=20
expect_eq twice analytic.n_cpu 40
r async --set workload.mode=async
expect_eq async analytic.mode async
r wan --set 'network.wan={"bandwidth": "1Gbps", "latency": "10ms"}'
lat0="$(get base analytic.t_latency_s)"
lat1="$(get wan analytic.t_latency_s)"
# + 2 x 10 ms of latency, and 10 kB + 100 B now over 1 Gbit/s instead of 10 Gbit/s.
want="$(awk -v a="$lat0" 'BEGIN { printf "%.17g", a + 0.02 + 10100 / 125e6 - 10100 / 1.25e9 }')"
near "$lat1" "$want" 1e-9 || fail "wan: t_latency_s $lat1, expected $want"
pass "wan: t_latency_s $lat0 -> $lat1"
names=""
while IFS= read -r i; do names+=" $(get wan "links.$i.name")"; done < <(json_keys "$TMP/wan.json" links)
[[ " $names " == *" wan "* ]] || fail "wan: no wan link in the results (links:$names)"
pass "wan: the wan link is in the results"
r nested --set models.m.dynamic_batching.max_queue_delay=\"2ms\" --set 'models.m.dynamic_batching.preferred_batch_size=[8]'
b8="$(get nested models.m.mean_batch_size)"
float_cmp "$b8" '<=' 8 || fail "nested: mean batch $b8 above the preferred size 8"
pass "nested: mean batch $b8 <= 8"

# --seed overrides the scenario seed; validate accepts --set as well.
r seed5 --seed 5
expect_eq seed5 seed 5
run_ok "$SONICSIM" validate "$BASE" --set workload.jobs=80 --set models.m.dynamic_batching=null

# The site-operations keys: whole objects, nested keys (brackets as messages spell paths work like
# dots), arrays; a bad value is reported at its path and names its override.
run_ok "$SONICSIM" validate "$BASE" --set 'servers[0].autoscaler={"threshold": "20ms"}' \
  --set servers.0.autoscaler.threshold=10ms --set 'servers[0].startup_delay=30s' \
  --set 'workload.client={"allowed_tries": 2}' --set workload.client.fallback=cpu \
  --set 'faults=[{"kind": "crash", "pool": "gpu", "at": "10s", "for": "5s"}]'
run_status 2 "$SONICSIM" validate "$BASE" --set 'servers[0].autoscaler={"threshold": "20ms"}' \
  --set 'servers[0].autoscaler.max_replicas=3'
assert_stderr_contains "servers[0].autoscaler.max_replicas: found 3, expected at most the pool's count 1"
assert_stderr_contains "(value from --set servers[0].autoscaler.max_replicas=3)"
run_status 2 "$SONICSIM" validate "$BASE" --set 'faults=[{"kind": "crash", "pool": "gpus", "at": 1}]'
assert_stderr_contains 'faults[0].pool: found "gpus", expected the name of a pool in `servers` (defined: gpu)'

finish
