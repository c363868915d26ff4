# cli_flow_queueing: on links far from loaded, flows (sonicsim's max-min solver and SimGrid's)
# and the analytic path time every transfer alike, so where requests queue at the servers every
# transport must give the same throughput, latency and queue time, and every traced request must
# be causal (nothing arrives before it was sent). Small topologies, requests queueing or not,
# several seeds: the case where SimGrid's flows once left before their time (a timer firing early
# started every pending flow), and where the max-min transport's loop hands the clock over.
source "$(dirname "$0")/lib.sh" "$@"

base='{"name":"q","duration":"2s","warmup":"0.2s","seed":SEED,
 "workload":{"jobs":JOBS,"threads_per_job":1,"cpu_time_per_event":{"dist":"exponential","mean":"CPU"},
  "requests":[{"model":"m","offload_fraction":1}]},
 "models":{"m":{"input_bytes_per_item":1000,"output_bytes_per_item":10,
  "service_time":{"batch":[1],"seconds":[0.01]}}},
 "servers":[{"name":"gpu","count":GPUS,"device":"T4","models":["m"]}],
 "network":{"client_nic":{"bandwidth":"10Gbps","latency":"LAT"},NIC"flow_model":"flow"}}'
cases=(
  "1 4 2 1ms 1us"   "2 4 2 1ms 1us"   "3 8 2 0.5ms 1us" "4 4 4 1ms 1us"
  "5 3 1 2ms 50us"  "6 8 4 1ms 0"     "7 2 2 5ms 10us"  "8 16 4 0.2ms 1us"
)
for c in "${cases[@]}"; do
  read -r seed jobs gpus cpu lat <<<"$c"
  nic='"server_nic":{"bandwidth":"25Gbps","latency":"5us"},'
  ((seed % 2)) && nic=''
  s="${base//SEED/$seed}"; s="${s//JOBS/$jobs}"; s="${s//GPUS/$gpus}"; s="${s//CPU/$cpu}"
  s="${s//LAT/$lat}"; s="${s//NIC/$nic}"
  echo "$s" >"$TMP/q$seed.json"
  for mode in flow simgrid analytic; do
    run timeout 60 "$SONICSIM" run "$TMP/q$seed.json" --set network.flow_model="\"$mode\"" \
      -o "$TMP/q$seed-$mode.json" --trace "$TMP/q$seed-$mode.trace" --trace-every 7 -q
    [[ $STATUS -eq 0 ]] || fail "case $c, $mode: exit $STATUS: $(cat "$ERR")"
  done
  for mode in flow simgrid; do
  /usr/bin/python3 - "$TMP" "$seed" "$mode" <<'PY' || fail "case $c: $mode flows and the analytic path disagree"
import json, sys
d, seed, mode = sys.argv[1], sys.argv[2], sys.argv[3]
flow, ana = (json.load(open(f"{d}/q{seed}-{m}.json")) for m in (mode, "analytic"))
assert flow["network"]["transport"] == "flow", flow["network"]
assert flow["network"]["flow_solver"] == {"flow": "max-min", "simgrid": "simgrid"}[mode], flow["network"]
def close(a, b, rel, what):
    assert abs(a - b) <= rel * max(abs(b), 1e-12), f"{what}: flow {a} analytic {b}"
close(flow["events"]["throughput_per_s"], ana["events"]["throughput_per_s"], 0.01, "throughput")
fl, al = flow["requests"]["latency_s"], ana["requests"]["latency_s"]
close(fl["mean"], al["mean"], 0.03, "mean latency")
close(fl["p99"], al["p99"], 0.03, "p99 latency")
fq, aq = flow["models"]["m"]["queue_time_s"]["mean"], ana["models"]["m"]["queue_time_s"]["mean"]
assert abs(fq - aq) <= 0.03 * max(aq, 1e-3), f"queue time: flow {fq} analytic {aq}"
for p in flow["servers"]:
    assert p["utilization_max"] <= 1.0 + 1e-9, f"a device busy {p['utilization_max']:.3f} of the time"
# Causality in the trace: within a request, every span ends after it begins, in order.
tr = json.load(open(f"{d}/q{seed}-{mode}.trace"))["traceEvents"]
spans = {}
for e in tr:
    if e.get("ph") in ("b", "e"):
        spans.setdefault((e["id"], e["name"]), {})[e["ph"]] = e["ts"]
assert spans, "an empty trace"
for (rid, name), be in spans.items():
    if "b" in be and "e" in be:
        assert be["e"] >= be["b"] - 1e-6, f"request {rid}: {name} ends at {be['e']} before it begins at {be['b']}"
PY
  done
  pass "case $c: max-min flows = SimGrid flows = analytic, causal"
done
finish
