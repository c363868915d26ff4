# cli_dashboards: every Prometheus query of SuperSONIC's own Grafana dashboard (chart 0.3.1,
# restated in tests/data/supersonic/dashboard_panels.json) has data from a simulated day. A small
# deployment (tests/data/supersonic/dashboard_day.json: KEDA scaling T4 servers between 1 and 3,
# two models, the T4's power and memory given) is written with `run --openmetrics` under a
# release and namespace, backfilled with promtool, served by Prometheus on 127.0.0.1 and asked
# through the HTTP API (curl): the dashboard's variables return the release and namespace, and
# each panel's expression, its variables substituted as Grafana does for one selected value,
# returns the series its legend names over the whole day. Where a hand check exists it is made:
# servers counted = replicas ready, power / limit = the T4's power line at the device's
# utilization, memory used / total = the models' footprints over the device's memory,
# inferences by server and by model add up to the total, and that total equals the run's own.
# Skipped without prometheus, promtool or curl (python3 checks the answers).
source "$(dirname "$0")/lib.sh" "$@"
for tool in prometheus promtool curl; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian packages prometheus, curl; scripts/test.sh installs them)"
done
command -v python3 >/dev/null || skip "python3 is required to check Prometheus' answers (scripts/test.sh installs it)"

SCEN=tests/data/supersonic/dashboard_day.json
PANELS=tests/data/supersonic/dashboard_panels.json
# A recent start, so that Prometheus keeps the blocks (its retention runs from now).
START=$(($(date +%s) / 60 * 60 - 2 * 3600))
run_ok "$SONICSIM" run "$SCEN" -q -o "$TMP/r.json" --openmetrics "$TMP/day.om" \
  --openmetrics-start "$START" --release cms-dash --namespace sonic
for family in "nv_gpu_memory_total_bytes gauge" "nv_gpu_memory_used_bytes gauge" \
  "nv_gpu_power_usage gauge" "nv_gpu_power_limit gauge" "envoy_http_downstream_rq_time histogram"; do
  grep -q "^# TYPE $family$" "$TMP/day.om" || fail "no family $family"
done
pass "Triton's GPU memory and power gauges, Envoy's request time histogram"
grep -q '^nv_gpu_power_usage{app="supersonic",release="cms-dash",namespace="sonic",pool="t4",replica="0",pod="cms-dash-t4-0",gpu_uuid="GPU-cms-dash-t4-0"} ' "$TMP/day.om" ||
  fail "the power gauge lacks the labels of nv_gpu_utilization"
pass "GPU gauges carry app, release, namespace, pod and gpu_uuid"

run_ok promtool tsdb create-blocks-from openmetrics "$TMP/day.om" "$TMP/tsdb"
# The lookback is below the 5 s between samples: an instant selector at a sample's time sees that
# sample only, so a server that stopped is not counted on (a backfill has no staleness markers).
start_prometheus "$TMP/tsdb" --query.lookback-delta=4s ||
  fail "Prometheus did not start: $(tail -2 "$TMP/prometheus.log")"
pass "Prometheus serves the backfilled day on 127.0.0.1:$PORT"

python3 - "$PORT" "$START" "$PANELS" "$SCEN" "$TMP/r.json" "$TMP/day.om" cms-dash sonic <<'PY' ||
import json, math, re, subprocess, sys

port, start, panels_file, scenario_file, results_file, om_file, release, namespace = sys.argv[1:]
start = float(start)
fixture = json.load(open(panels_file))
scenario = json.load(open(scenario_file))
results = json.load(open(results_file))
ts = results["timeseries"]
dt, t_s = ts["interval_s"], ts["t_s"]
api = f"http://127.0.0.1:{port}/api/v1"
failures = []


def get(path, **params):
    args = ["curl", "-sSG", api + path]
    for k, v in params.items():
        args += ["--data-urlencode", f"{k}={v}"]
    answer = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    assert answer["status"] == "success", (path, params, answer)
    return answer["data"]


def query_range(expr):
    # Every window's end, as Grafana would step through the day at the scrape interval.
    return get("/query_range", query=expr, start=start + t_s[0], end=start + t_s[-1], step=dt)["result"]


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


def substitute(expr, rel, ns):
    # Grafana writes one selected value as it is (these have no regex characters to escape).
    return expr.replace("$release", rel).replace("$namespace", ns)


def step_of(stamp):
    return round((float(stamp) - start - t_s[0]) / dt)


def values(series):
    out = {}
    for stamp, v in series["values"]:
        x = float(v)
        if math.isfinite(x):
            out[step_of(stamp)] = x
    return out


# The template variables: label_values(METRIC, LABEL) is Grafana's label values call.
for var in fixture["templating"]["list"]:
    want = [v.replace("$RELEASE", release).replace("$NAMESPACE", namespace)
            for v in var["sonicsim"]["values"]]
    got = get(f"/label/{var['sonicsim']['label']}/values", **{"match[]": var["sonicsim"]["metric"]},
              start=start, end=start + t_s[-1])
    check(got == want, f"${var['name']}: {var['definition']} = {got} (expected {want})")

# What the run itself says, for the hand checks: the replicas ready and the inferences per
# second in each window (results), and the windows each server served (the file's GPU samples).
ready = ts["pools"][0]["ready"]
total_inferences = [sum(m["inferences_per_s"][k] for m in ts["models"].values())
                    for k in range(len(t_s))]
serving = {}
for line in open(om_file):
    m = re.match(r'nv_gpu_utilization\{.*pod="([^"]*)".*\} \S+ (\S+)$', line)
    if m:
        serving.setdefault(m[1], set()).add(step_of(m[2]))
units = {"B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def size(text):
    number, unit = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]+)", text).groups()
    return float(number) * units[unit]


pool = scenario["servers"][0]
device = scenario["devices"][pool["device"]]
footprint = 0.0
for name in pool["models"]:
    m = scenario["models"][name]
    footprint += m.get("instances", 1) * (size(m["memory"]["weights"]) +
                                          size(m["memory"]["per_item"]) * m["max_batch_size"])
memory_ratio = footprint / size(device["memory"])
idle, busy = (float(device["power"][k].rstrip("W")) for k in ("idle", "busy"))
check(len(set(ready)) > 1, f"the pool scaled over the day (ready replicas {sorted(set(ready))})")

known = {"servers", "power", "memory", "inferences_total", "sums_to_total"}
named = {t["sonicsim"].get("check") for p in fixture["panels"] for t in p["targets"]} - {None}
check(named <= known, f"the fixture names only checks this test makes ({sorted(named - known)} unknown)")
answers = {}
for panel in fixture["panels"]:
    for target in panel["targets"]:
        name = f"panel {panel['id']} '{panel['title']}' {target['refId']} ({target['legendFormat']})"
        want = target["sonicsim"]
        result = query_range(substitute(target["expr"], release, namespace))
        answers[(panel["id"], target["refId"])] = result
        check(bool(result) and any(values(s) for s in result), f"{name}: data over the day")
        if not result:
            continue
        # Another release's dashboard shows nothing of this one.
        check(not query_range(substitute(target["expr"], release + "-other", namespace)),
              f"{name}: nothing under another release")
        legend = re.findall(r"\{\{\s*(\w+)\s*\}\}", target["legendFormat"])
        check(all(label in s["metric"] for s in result for label in legend),
              f"{name}: every series has the legend's labels {legend}")
        kind = want["series"]
        if kind == "one":
            check(len(result) == 1, f"{name}: one series ({len(result)})")
        elif kind == "per pod":
            pods = sorted(s["metric"].get("pod", "") for s in result)
            check(pods == sorted(serving), f"{name}: one series per server ({pods})")
        elif kind == "per model":
            models = sorted(s["metric"].get("model", "") for s in result)
            check(models == sorted(scenario["models"]), f"{name}: one series per model ({models})")
        vs = [v for s in result for v in values(s).values()]
        # A window's busy time over its length may pass 1 by a rounding error.
        one = 1 + 1e-12
        rule = {"positive": lambda: min(vs) >= 0 and max(vs) > 0,
                "non-negative": lambda: min(vs) >= 0 and max(vs) > 0,
                "zero": lambda: max(map(abs, vs)) == 0,
                "fraction": lambda: 0 <= min(vs) and max(vs) <= one and max(vs) > 0,
                "positive fraction": lambda: 0 < min(vs) and max(vs) <= one}[want["values"]]
        check(bool(vs) and rule(), f"{name}: values {want['values']} (from {min(vs, default=None)} to {max(vs, default=None)})")

        if want.get("check") == "servers":
            counted = values(result[0])
            # A server the autoscaler stops at a poll drains through the sample at that instant.
            bad = [(k, n, ready[k]) for k, n in counted.items()
                   if n != ready[k] and not (n == ready[k] + 1 and k > 0 and ready[k] < ready[k - 1])]
            check(not bad and len(counted) == len(t_s),
                  f"{name}: servers counted = replicas ready at all {len(counted)} of {len(t_s)} steps"
                  + (f"; differ at {bad[:5]}" if bad else ""))

# The hand checks read the panels' answers (an empty one fails them too).
utilization = {s["metric"].get("pod"): values(s) for s in answers.get((14, "A"), [])}
power = {s["metric"].get("pod"): values(s) for s in answers.get((13, "A"), [])}


def expected_power(pod, k):
    u = utilization.get(pod, {}).get(k)
    return math.inf if u is None else (idle + (busy - idle) * min(1.0, u)) / busy


worst = max((abs(v - expected_power(pod, k)) for pod, series in power.items()
             for k, v in series.items()), default=math.inf)
check(worst < 1e-9, f"power / limit = ({idle:g} W + {busy - idle:g} W x utilization) / {busy:g} W (worst difference {worst:.2g})")
memory = [v for s in answers.get((12, "A"), []) for v in values(s).values()]
check(max((abs(v - memory_ratio) for v in memory), default=math.inf) < 1e-12,
      f"memory used / total = {footprint:.4g} B of the models / {size(device['memory']):.4g} B = {memory_ratio:.6f} at all {len(memory)} points")


def by_step(result):
    out = {}
    for s in result:
        for k, v in values(s).items():
            out[k] = out.get(k, 0.0) + v
    return out


total = by_step(answers.get((5, "A"), []))
for panel_id, what in ((15, "server"), (16, "model")):
    parts = by_step(answers.get((panel_id, "A"), []))
    worst = max((abs(parts.get(k, math.inf) - total[k]) / max(1.0, total[k]) for k in total),
                default=math.inf)
    check(set(parts) == set(total) and worst < 1e-9,
          f"inferences per second by {what} add up to the total at {len(total)} steps (worst {worst:.2g})")
# Where every server served the whole 30 s (no start nor stop inside the range, which rate()
# extrapolates over), the total is the run's own inferences over the 6 windows, per second.
steady = [k for k in total if k >= 6 and
          all(len(steps & set(range(k - 6, k + 1))) in (0, 7) for steps in serving.values())]
off = [(k, total[k], sum(total_inferences[k - 5:k + 1]) / 6) for k in steady
       if abs(total[k] - sum(total_inferences[k - 5:k + 1]) / 6) > 1e-9 * max(1.0, total[k])]
check(not off and len(steady) > len(t_s) // 2,
      f"inferences per second = the run's inferences over the last 30 s at all {len(steady)} steps "
      f"where no server started or stopped" + (f"; differ at {off[:3]}" if off else ""))
print(f"{len(failures)} failed" if failures else "all panel checks passed")
sys.exit(1 if failures else 0)
PY
  fail "the dashboard's queries do not all give the simulated day (Prometheus log: $(tail -2 "$TMP/prometheus.log"))"
pass "every panel of SuperSONIC's dashboard shows the simulated day"
stop_prometheus
pass "Prometheus stopped"
finish
