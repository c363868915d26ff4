# sonicsim report --format html: a run with time series and two sweeps (1 and 2 GPUs) rendered
# as one self-contained page: well-formed, no external reference, every chart with axes, tick
# labels and data; the knee sentence matches the sweeps' analytic columns; sweep CSVs in text
# and Markdown; --csv-dir; plan JSONs (plain, robust, timeline) in HTML, text, Markdown and
# --svg-dir; bad input.
source "$(dirname "$0")/lib.sh" "$@"

PY=""
for p in /usr/bin/python3 python3; do
  command -v "$p" >/dev/null && "$p" -c 'import xml.etree.ElementTree' 2>/dev/null && { PY=$p; break; }
done
[[ -n $PY ]] || skip "python3 is needed to parse the HTML"

# check_page FILE MIN_CHARTS: parses as XML; no external reference; each <svg> has the two axis
# lines, tick labels and at least one data path or bar.
check_page() {
  "$PY" - "$1" "$2" <<'EOF' || fail "$1 is not a well-formed, self-contained page with complete charts"
import re, sys, xml.etree.ElementTree as ET
path, want = sys.argv[1], int(sys.argv[2])
text = open(path, encoding="utf-8").read()
for bad in ("http://", "https://", "<script src", "<link", "url(", "@import"):
    if bad in text:
        sys.exit(f"external reference: {bad!r}")
root = ET.fromstring(text.replace("<!DOCTYPE html>", "", 1))
svgs = [e for e in root.iter() if e.tag == "svg"]
if len(svgs) < want:
    sys.exit(f"{len(svgs)} charts, expected at least {want}")
def cls(e):
    return (e.get("class") or "").split()
for svg in svgs:
    title = svg.findtext("title")
    axes = [e for e in svg.iter() if "axis" in cls(e) and e.tag == "line"]
    ticks = [e for e in svg.iter() if "tick" in cls(e) and (e.text or "").strip()]
    data = [e for e in svg.iter() if "series" in cls(e)]
    if len(axes) < 2 or len(ticks) < 2 or not data:
        sys.exit(f"chart {title!r}: {len(axes)} axes, {len(ticks)} tick labels, {len(data)} data elements")
    for e in data:
        d = e.get("d", "")
        if e.tag == "path" and not re.match(r"M[0-9.-]+ [0-9.-]+", d):
            sys.exit(f"chart {title!r}: empty data path")
print(f"{len(svgs)} charts, each with axes, tick labels and data")
EOF
  pass "${1##*/}: well-formed, self-contained, $2+ complete charts"
}

scenario=scenarios/examples/formula-knee.json
run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 \
  --set timeseries=true -o "$TMP/run.json" -q
run_ok "$SONICSIM" sweep "$scenario" --param workload.jobs=1:8:1 --replications 2 --workers 1 \
  -o "$TMP/gpu1.csv"
run_ok "$SONICSIM" sweep "$scenario" --param workload.jobs=1:8:1 --replications 2 --workers 1 \
  --set servers.0.count=2 -o "$TMP/gpu2.csv"

# A run: the -o extension picks HTML; time series, percentiles and the time split are drawn.
run_ok "$SONICSIM" report "$TMP/run.json" -o "$TMP/run.html"
check_page "$TMP/run.html" 9
for title in "Device utilization" "Queue length" "Inferences per second" "Mean batch size" \
  "Request latency p50" "Link utilization" "Events per second" "Request latency histogram" \
  "Where an event"; do
  grep -q "<title>[^<]*$title" "$TMP/run.html" || fail "run.html has no \"$title\" chart"
done
pass "run.html has every time-series panel, the latency percentiles and the time split"

# Two sweeps overlaid, with the knee sentence computed from the numbers.
run_ok "$SONICSIM" report "$TMP/gpu1.csv" "$TMP/gpu2.csv" --format html -o "$TMP/sweeps.html"
check_page "$TMP/sweeps.html" 4
knee() {  # the formula's knee in jobs from the first row: per-GPU knee x GPUs / threads per job
  "$PY" - "$1" <<'EOF'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
f = lambda k: float(row[k + ".mean"])
print(f("analytic.saturation_n_cpu_per_gpu") * f("analytic.n_gpu")
      / (f("analytic.n_cpu") / float(row["param.workload.jobs"])))
EOF
}
knee1=$(knee "$TMP/gpu1.csv") knee2=$(knee "$TMP/gpu2.csv")
read -r said1 said2 < <(sed -nE 's/.*moves the knee \(formula\) from ([0-9.]+) to ([0-9.]+) jobs.*/\1 \2/p' "$TMP/sweeps.html")
near "${said1:-0}" "$knee1" 0.01 && near "${said2:-0}" "$knee2" 0.01 ||
  fail "the knee sentence ($said1 -> $said2) does not match the CSVs ($knee1 -> $knee2)"
pass "the knee moves as the sweeps' analytic columns say ($knee1 -> $knee2 jobs)"
grep -q "adding 1 device (1 -&gt; 2)" "$TMP/sweeps.html" || fail "no devices sentence"
pass "the devices sentence"
grep -q 'class="band"' "$TMP/sweeps.html" || fail "no confidence band for 2 replications"
pass "confidence bands for replicated sweeps"
grep -q 'knee 3.1' "$TMP/sweeps.html" || fail "no knee marker"
pass "knee marker"

# Runs and sweeps in one page, to stdout; CSV tables beside it.
run_ok "$SONICSIM" report "$TMP/run.json" "$TMP/gpu1.csv" --format html --csv-dir "$TMP/tables"
cp "$OUT" "$TMP/mixed.html"
check_page "$TMP/mixed.html" 13
"$PY" - "$TMP/tables/runs.csv" "$TMP/tables/sweeps.csv" <<'EOF' || fail "the CSV tables do not read back"
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.reader(open(path)))
    assert rows[0][0] == "figure" and len(rows) > 5, path
    assert all(len(r) == len(rows[0]) for r in rows), path
EOF
pass "--csv-dir writes runs.csv and sweeps.csv"

# Sweep CSVs in text and Markdown.
run_ok "$SONICSIM" report "$TMP/gpu1.csv" "$TMP/gpu2.csv"
assert_stdout_contains "knee (formula)"
assert_stdout_contains "peak events/s"
run_ok "$SONICSIM" report "$TMP/gpu1.csv" --format md
assert_stdout_contains "| swept (x axis) | workload.jobs |"

# Plan JSONs: a plain plan simulated here, and the hand-made robust and timeline plans of
# tests/data/report/ (docs/report.md, "A plan").
robust=tests/data/report/plan_robust.json timeline=tests/data/report/plan_timeline.json
run_ok "$SONICSIM" plan tests/data/plan_knee.json min-devices --set workload.jobs=200 \
  --slowdown 0.5 -o "$TMP/plain-plan.json"
run_ok "$SONICSIM" report "$TMP/plain-plan.json" -o "$TMP/plain-plan.html"
check_page "$TMP/plain-plan.html" 1
grep -q "<title>Values simulated" "$TMP/plain-plan.html" || fail "no points chart"
pass "a plain plan: its points against the threshold"
run_ok "$SONICSIM" report "$robust" "$timeline" -o "$TMP/plans.html" --svg-dir "$TMP/plan-svg"
check_page "$TMP/plans.html" 5
for title in "Values simulated" "Answers over the plausible inputs" "Inputs by swing" \
  "Devices required against the fleet"; do
  grep -q "<title>$title" "$TMP/plans.html" || fail "plans.html has no \"$title\" chart"
done
pass "plans.html has the points, the answers, the tornado and the timeline"
for f in answers-over-the-plausible-inputs inputs-by-swing-of-the-answer-tornado \
  devices-required-against-the-fleet; do
  [[ -s "$TMP/plan-svg/$f.svg" ]] || fail "--svg-dir wrote no $f.svg"
done
pass "--svg-dir writes the plan charts"
run_ok "$SONICSIM" report "$robust" "$timeline"
assert_stdout_contains "8 T4s meet <= 5% slowdown in 95% of the plausible cases"
assert_stdout_contains "Inputs by swing (tornado)"
assert_stdout_contains "stops meeting the constraint in 2028-04"
run_ok "$SONICSIM" report "$robust" --format md
assert_stdout_contains "## Plan: $robust"
"$PY" - "$robust" "$TMP/wrong-plan.json" <<'EOF_PY' || fail "cannot write the wrong plan"
import json, sys
doc = json.load(open(sys.argv[1]))
doc["robust"]["tornado"][0]["swing"] = "large"
json.dump(doc, open(sys.argv[2], "w"))
EOF_PY
run_status 2 "$SONICSIM" report "$TMP/wrong-plan.json" -o "$TMP/wrong.html"
assert_stderr_contains "wrong-plan.json"
assert_stderr_contains "/robust/tornado/0/swing"
assert_no_file "$TMP/wrong.html"

# Bad input: named, what was found and expected, exit 2, no output file.
printf 'hello\n' >"$TMP/notes.txt"
run_status 2 "$SONICSIM" report "$TMP/notes.txt" -o "$TMP/bad.html"
assert_stderr_contains "notes.txt"
assert_stderr_contains "expected a results JSON"
assert_stderr_contains "a plan JSON (sonicsim plan -o FILE.json)"
assert_no_file "$TMP/bad.html"
head -c 300 "$TMP/gpu1.csv" >"$TMP/cut.csv"
run_status 2 "$SONICSIM" report "$TMP/cut.csv" --format html
assert_stderr_contains "cut.csv"

finish
