# cli_openmetrics: `run --openmetrics` writes the simulated history under Triton's own metric
# names; Debian's promtool backfills it into a Prometheus TSDB, a Prometheus server on 127.0.0.1
# serves it, and SuperSONIC's KEDA expression, queried through the HTTP API, gives the queue time
# per execution the run itself recorded (timeseries.replicas), window by window. Also: the
# labels and counters a dashboard relies on, the same seed and start giving the same bytes, and
# the refusals (exit 2) of a bad --openmetrics-start and of a file that would not fit.
source "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null || skip "python3 is required (scripts/test.sh installs it)"
command -v promtool >/dev/null || skip "promtool is required (Debian package prometheus; scripts/test.sh installs it)"
command -v prometheus >/dev/null || skip "prometheus is required (scripts/test.sh installs it)"

SCEN=scenarios/sites/tier2-keda.json
# 40 simulated minutes from a recent start (inside Prometheus' retention), every 5 s: the first
# wave of jobs makes KEDA add replicas, whose counters start at 0.
START=$(( $(date +%s) / 60 * 60 - 3 * 3600 ))
ARGS=(run "$SCEN" --set duration=40min --set 'timeseries={"interval":"5s"}' -q
  --openmetrics-start "$START" --release cms-t2 --namespace sonic)
run_ok "$SONICSIM" "${ARGS[@]}" -o "$TMP/r.json" --openmetrics "$TMP/run.om"
assert_file "$TMP/run.om"
[[ "$(tail -n 1 "$TMP/run.om")" == "# EOF" ]] || fail "the OpenMetrics file does not end with # EOF"
pass "ends with # EOF"
for family in nv_inference_request_success nv_inference_count nv_inference_exec_count \
  nv_inference_queue_duration_us nv_inference_compute_infer_duration_us nv_gpu_utilization \
  envoy_http_downstream_rq_time envoy_http_downstream_cx_active kube_deployment_spec_replicas; do
  grep -q "^# TYPE $family " "$TMP/run.om" || fail "no family $family"
done
pass "Triton's, Envoy's and Kubernetes' families are there"
grep -q 'nv_inference_exec_count{app="supersonic",release="cms-t2",namespace="sonic",pool="t4",replica="0",pod="cms-t2-t4-0",model="particlenet_ak4",version="1"} ' "$TMP/run.om" ||
  fail "replica 0's exec counter lacks SuperSONIC's labels"
pass "labels: app, release, namespace, pool, replica, pod, model, version"
run_ok "$SONICSIM" "${ARGS[@]}" --openmetrics "$TMP/again.om"
same_bytes "$TMP/run.om" "$TMP/again.om"

python3 "$SRC/analysis/grafana/make_dashboard.py" "$TMP/dashboard.json"
same_bytes "$TMP/dashboard.json" "$SRC/analysis/grafana/supersonic-twin.json"

# Backfill with promtool, serve with Prometheus, ask the KEDA metric.
run_ok promtool tsdb create-blocks-from openmetrics "$TMP/run.om" "$TMP/tsdb"
printf 'global:\n  scrape_interval: 5s\n' > "$TMP/prometheus.yml"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
  --web.listen-address="127.0.0.1:$PORT" --storage.tsdb.retention.time=30d \
  --query.lookback-delta=10s \
  > "$TMP/prometheus.log" 2>&1 &
PROM=$!
trap 'kill $PROM 2>/dev/null; wait $PROM 2>/dev/null; rm -rf "$TMP"' EXIT
python3 - "$PORT" "$TMP/r.json" "$START" "$TMP/run.om" "$SRC/analysis/grafana/supersonic-twin.json" <<'PY' || fail "the KEDA metric from Prometheus does not match the run (log: $(tail -3 "$TMP/prometheus.log"))"
import json, re, sys, time, urllib.parse, urllib.request
port, results, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
# Each replica's exec counter as written: a replica that stops has no samples and starts again
# from 0. Points whose 30 s range holds such a gap or restart are not compared: rate() spans
# them by design, the run's windows count what happened in the gap.
written = {}
for line in open(sys.argv[4]):
    m = re.match(r'nv_inference_exec_count\{.*pool="([^"]*)",replica="([^"]*)".*\} (\S+) (\S+)$', line)
    if m:
        written.setdefault((m[1], m[2]), {})[round(float(m[4]) - start, 3)] = float(m[3])
base = f"http://127.0.0.1:{port}"
for _ in range(300):
    try:
        if urllib.request.urlopen(base + "/-/ready", timeout=2).status == 200:
            break
    except Exception:
        time.sleep(0.2)
else:
    sys.exit("prometheus did not become ready")
expr = ("rate(nv_inference_queue_duration_us[30s]) / "
        "(rate(nv_inference_exec_count[30s]) * 1000)")
ts = json.load(open(results))["timeseries"]
dt, t = ts["interval_s"], ts["t_s"]
q = urllib.parse.urlencode({"query": expr, "start": start + t[0], "end": start + t[-1], "step": dt})
answer = json.load(urllib.request.urlopen(f"{base}/api/v1/query_range?{q}", timeout=30))
assert answer["status"] == "success", answer
series = {(r["metric"]["pool"], r["metric"]["replica"]): r["values"] for r in answer["data"]["result"]}
# The run's own queue time per execution over the six windows ending at each query time (a 30 s
# range holds seven samples 5 s apart, both ends included; the two rates extrapolate alike, so
# their ratio is exact).
checked = 0
for rep in ts["replicas"]:
    values = series.get((rep["pool"], str(rep["replica"])), [])
    assert values or sum(rep["executions_per_s"]) == 0, f"no series for replica {rep['replica']}"
    for stamp, value in values:
        k = round((float(stamp) - start) / dt) - 1  # the window ending at `stamp`
        if k < 6:
            continue
        ws = range(k - 5, k + 1)
        counter = written[(rep["pool"], str(rep["replica"]))]
        stamps = [round(t[w0], 3) for w0 in range(k - 6, k + 1)]
        if any(x not in counter for x in stamps) or any(
                counter[b] < counter[a] for a, b in zip(stamps, stamps[1:])):
            continue
        executions = sum(rep["executions_per_s"][w] * dt for w in ws)
        queued = sum(rep["queue_time_s"][w] * rep["requests_per_s"][w] * dt for w in ws)
        if executions == 0:
            continue
        expected_ms = queued / executions * 1000
        got = float(value)
        assert abs(got - expected_ms) <= 1e-6 * max(1.0, expected_ms), (rep["replica"], stamp, got, expected_ms)
        checked += 1
assert checked > 100, f"only {checked} points compared"
print(f"ok - KEDA metric through Prometheus == the run's queue time per execution at {checked} points")
# Replicas that KEDA added appear as Triton servers of their own: the dashboard's count, with a
# lookback of two samples (a backfill carries no staleness markers: docs/deployment.md).
q = urllib.parse.urlencode({"query": 'count(nv_gpu_utilization{release="cms-t2"})', "time": start + t[-1]})
answer = json.load(urllib.request.urlopen(f"{base}/api/v1/query?{q}", timeout=30))
servers = int(float(answer["data"]["result"][0]["value"][1]))
serving = sum(1 for counter in written.values() if round(t[-1], 3) in counter)
ready = ts["pools"][0]["ready"][-1]
assert servers == serving >= ready >= 1, (servers, serving, ready)
print(f"ok - count(nv_gpu_utilization) = {servers} servers serving at the end ({ready:g} ready, the others draining)")
# Every query of the shipped dashboard has data from the simulated day.
dashboard = json.load(open(sys.argv[5]))
exprs = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p.get("targets", [])]
for title, expr in exprs:
    expr = expr.replace("$release", "cms-t2").replace("$namespace", "sonic")
    q = urllib.parse.urlencode({"query": expr, "start": start + t[0], "end": start + t[-1], "step": 60})
    answer = json.load(urllib.request.urlopen(f"{base}/api/v1/query_range?{q}", timeout=30))
    assert answer["status"] == "success" and answer["data"]["result"], (title, expr, answer)
print(f"ok - the {len(exprs)} queries of analysis/grafana/supersonic-twin.json all have data")
PY
pass "Prometheus over the backfilled TSDB answers SuperSONIC's queries"
kill $PROM; wait $PROM 2>/dev/null
pass "Prometheus stopped"

# With sites, each server carries its site, as a scrape config per site would label it.
run_ok "$SONICSIM" run scenarios/examples/sites-grid-to-gpu-site.json --set duration=1min --set warmup=0 -q \
  --openmetrics "$TMP/sites.om" --openmetrics-start "$START"
grep -q '^nv_gpu_utilization{.*,site="fnal",gpu_uuid=' "$TMP/sites.om" || fail "no site label on the GPUs"
pass "with sites, the servers' samples carry their site"

# Refusals.
refused "--openmetrics-start: found 'yesterday'" "$SONICSIM" "${ARGS[@]/$START/yesterday}" --openmetrics "$TMP/bad.om"
assert_no_file "$TMP/bad.om"
refused "expected at most 1,000,000" "$SONICSIM" run "$SCEN" --set duration=2400h --set timeseries=null \
  --openmetrics "$TMP/bad.om" -q
refused "--openmetrics would write about" "$SONICSIM" run "$SCEN" --set duration=1200h \
  --set 'timeseries={"interval":"5s"}' --set servers.0.count=1000 --set servers.0.autoscaler.max_replicas=1000 \
  --openmetrics "$TMP/bad.om" -q
refused "--openmetrics-start needs --openmetrics FILE" "$SONICSIM" run "$SCEN" --openmetrics-start 0 -q
finish
