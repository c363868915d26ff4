# cli_analysis_plots: the plotting scripts of analysis/ on real sonicsim outputs (a sweep, runs
# with a timeseries, a plan, a compare report): every script writes PNG and SVG, the SVGs carry the
# expected axis labels and legend entries, the output is deterministic, and bad input exits 2
# with a message naming the file. matplotlib (Debian's python3-matplotlib, installed by
# scripts/test.sh) is optional: without it the test is skipped, or fails when CI=true.
# SONICSIM_PYTHON chooses the interpreter (default: the first of /usr/bin/python3 and python3
# that has matplotlib).
source "$(dirname "$0")/lib.sh" "$@"

# The ASan pass of scripts/test.sh (SONICSIM_TEST_QUICK=1) has nothing to find here: the
# scripts are Python, and the Release pass runs them on the same outputs.
[[ ${SONICSIM_TEST_QUICK:-0} == 1 ]] && skip "Python plots: run by the Release pass"

A="$SRC/analysis"
E="$SRC/scenarios/examples"

# ---- interpreters: any python3 for the bad-input checks, one with matplotlib for the plots --
PY=""
PY_ANY=""
for py in ${SONICSIM_PYTHON:-} /usr/bin/python3 python3; do
  command -v "$py" >/dev/null || continue
  [[ -n $PY_ANY ]] || PY_ANY="$py"
  if "$py" -c 'import matplotlib' 2>/dev/null; then PY="$py"; break; fi
done
if [[ -z $PY_ANY ]]; then
  [[ ${CI:-} == true ]] && fail "python3 is not installed (CI=true)"
  skip "python3 is not installed"
fi

# ---- inputs ---------------------------------------------------------------------------------
# A 2 x 4 sweep over jobs and GPUs of the deterministic knee example (the knee is at 6.2 threads
# per GPU), two replications so that the CSV has confidence intervals.
run_ok "$SONICSIM" sweep "$E/formula-knee.json" --param workload.jobs=1,2,4,8 \
  --param servers.0.count=1,2 --replications 2 --workers 1 --set duration=20s --set warmup=2s \
  -o "$TMP/knee.csv"
# The same with a GPU 20% faster, for a what-if overlay.
run_ok "$SONICSIM" sweep "$E/formula-knee.json" --param workload.jobs=1,2,4,8 \
  --replications 2 --workers 1 --set duration=20s --set warmup=2s \
  --set 'models.toy_model.service_time.seconds=[0.008]' -o "$TMP/faster.csv"
# Two runs of the default scenario with a timeseries (10 s windows).
run_ok "$SONICSIM" run scenarios/default.json --set timeseries=true --set duration=60s \
  --set warmup=10s -o "$TMP/run.json"
run_ok "$SONICSIM" run scenarios/default.json --set servers.0.count=6 --set duration=60s \
  --set warmup=10s -o "$TMP/run6.json"
run_ok "$SONICSIM" plan tests/data/plan_knee.json min-devices --set workload.jobs=200 \
  --slowdown 0.5 --replications 2 --workers 1 --set duration=20s -o "$TMP/plan.json"
run_ok "$SONICSIM" compare "$E/formula-knee.json" "$E/scan-measurements.csv" \
  --vary workload.jobs --workers 1 --set duration=20s -o "$TMP/compare.json" \
  --csv "$TMP/compare.csv"

# ---- bad input: exit 2, the file named, no traceback (matplotlib not needed) ---------------
# bad_input SCRIPT FILE [ARGS...]: the script exits 2 naming FILE on stderr, writes no figure.
bad_input() {
  local script="$1" file="$2"; shift 2
  rm -f "$TMP/bad.png"
  run_status 2 "$PY_ANY" "$A/$script" "$file" "$@" -o "$TMP/bad.png"
  assert_stderr_contains "$file"
  grep -q Traceback "$ERR" && fail "$script printed a traceback for bad input"
  assert_no_file "$TMP/bad.png"
}
bad_input plot_sweep.py "$TMP/missing.csv"
assert_stderr_contains "no such file"
bad_input plot_sweep.py "$TMP/run.json"
assert_stderr_contains "not a sonicsim sweep CSV"
bad_input plot_sweep.py "$TMP/knee.csv" --metric events.throughput_per_sec
assert_stderr_contains "did you mean events.throughput_per_s"
bad_input plot_sweep.py "$TMP/knee.csv" --x workload.mode
assert_stderr_contains "parameter 'workload.mode' was not swept"
bad_input plot_timeseries.py "$TMP/run6.json"
assert_stderr_contains "timeseries=true"
bad_input plot_timeseries.py "$TMP/knee.csv"
assert_stderr_contains "not valid JSON"
bad_input plot_run.py "$TMP/compare.json"
assert_stderr_contains "not a sonicsim results file"
bad_input plot_compare.py "$TMP/knee.csv"
assert_stderr_contains "not a \`sonicsim compare --csv\` table"
bad_input plot_plan.py "$TMP/run.json"
assert_stderr_contains "not a \`sonicsim plan -o\` file"
run_status 2 "$PY_ANY" "$A/plot_sweep.py" "$TMP/knee.csv" -o "$TMP/fig.jpg"
assert_stderr_contains "fig.jpg: unsupported output format"

# ---- plots ----------------------------------------------------------------------------------
if [[ -z $PY ]]; then
  : >"$OUT"; : >"$ERR"   # not the last command's output under the message
  [[ ${CI:-} == true ]] &&
    fail "matplotlib is not installed (CI=true): apt-get install python3-matplotlib"
  skip "matplotlib is not installed (apt-get install python3-matplotlib); $CHECKS checks passed"
fi

# assert_figures BASE: BASE.png is a PNG and BASE.svg an SVG, both non-empty.
assert_figures() {
  [[ -s "$1.png" ]] || fail "missing or empty: $1.png"
  [[ "$(head -c 8 "$1.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
    fail "not a PNG: $1.png"
  { [[ -s "$1.svg" ]] && grep -q '<svg' "$1.svg"; } || fail "missing or not an SVG: $1.svg"
  pass "PNG and SVG written: ${1##*/}"
}
# assert_svg_text FILE TEXT...: each TEXT is a text element of the SVG (labels, legend entries).
assert_svg_text() {
  local file="$1" text; shift
  for text in "$@"; do
    grep -qF -- ">$text</text>" "$file" || fail "${file##*/} lacks the text \"$text\""
  done
  pass "${file##*/} has: $*"
}
# plot BASE SCRIPT ARGS...: run the script to BASE.png and BASE.svg.
plot() {
  local base="$1" script="$2"; shift 2
  run_ok "$PY" "$A/$script" "$@" -o "$base.png"
  run_ok "$PY" "$A/$script" "$@" -o "$base.svg"
  assert_figures "$base"
}

# Sweep: a line per GPU count, formula, MVA, knee.
plot "$TMP/sweep" plot_sweep.py "$TMP/knee.csv" --title "Knee"
assert_svg_text "$TMP/sweep.svg" "Throughput (events/s)" "Time per event (ms)" "Jobs" \
  "Devices = 1" "Devices = 2" "simulation (95% CI)" "SONIC formula" "MVA" "knee (formula)" "Knee"
# Per device: x = N_CPU/N_GPU, rates per device; other metrics; log axes.
plot "$TMP/perdev" plot_sweep.py "$TMP/knee.csv" --per-device --width 3.4 --legend outside
assert_svg_text "$TMP/perdev.svg" "Throughput (events/s/device)" "Devices = 2"
plot "$TMP/metrics" plot_sweep.py "$TMP/knee.csv" --x servers.0.count \
  --metric requests.latency_s.p99 --metric servers.0.utilization --logy
assert_svg_text "$TMP/metrics.svg" "Request latency, p99 (ms)" "Device utilization" "Devices" \
  "Jobs = 8"
# What-if: two CSVs, labelled.
plot "$TMP/whatif" plot_sweep.py "$TMP/knee.csv" "$TMP/faster.csv" --x workload.jobs \
  --label base --label "faster GPU"
assert_svg_text "$TMP/whatif.svg" "base, Devices = 1" "faster GPU"
run_status 2 "$PY" "$A/plot_sweep.py" "$TMP/knee.csv" "$TMP/faster.csv" --label one -o "$TMP/x.svg"

# Timeseries: the six panels and the warm-up.
plot "$TMP/ts" plot_timeseries.py "$TMP/run.json"
assert_svg_text "$TMP/ts.svg" "Device utilization (%)" "Queued requests" "Inferences (1/s)" \
  "Mean batch size (items)" "Request latency (ms)" "Link utilization (%)" "Simulated time (s)" \
  "particlenet_ak4" "site_uplink" "p99" "warm-up"
plot "$TMP/ts2" plot_timeseries.py "$TMP/run.json" --panels events,latency --width 3.4
assert_svg_text "$TMP/ts2.svg" "Throughput (events/s)"
grep -qF "Queued requests" "$TMP/ts2.svg" && fail "ts2.svg: panel not asked for"
run_status 2 "$PY" "$A/plot_timeseries.py" "$TMP/run.json" --panels gpu -o "$TMP/x.svg"

# Run: latency percentiles and the breakdown of an event, two runs side by side.
plot "$TMP/run" plot_run.py "$TMP/run.json" "$TMP/run6.json" --label "8 T4" --label "6 T4"
assert_stdout_contains "time_per_event_s"
assert_svg_text "$TMP/run.svg" "all requests" "deeptau" "median" "p99" "network" "queue" \
  "compute" "8 T4" "6 T4"
grep -qF "Request latency (" "$TMP/run.svg" || fail "run.svg: no latency axis label"
pass "run.svg has the latency axis label"

# Compare: measured against simulation, formula and MVA, with errors.
plot "$TMP/cmp" plot_compare.py "$TMP/compare.json"
assert_svg_text "$TMP/cmp.svg" "measured" "simulation" "SONIC formula" "MVA" "Error (%)" \
  "Throughput per job (events/s)" "Jobs"
plot "$TMP/cmpcsv" plot_compare.py "$TMP/compare.csv" --no-errors --ylabel "Events/s per job"
assert_svg_text "$TMP/cmpcsv.svg" "Events/s per job"

# Plan: the simulated values, the constraint, the answers.
plot "$TMP/plan" plot_plan.py "$TMP/plan.json"
assert_svg_text "$TMP/plan.svg" "Devices" "Time per event (ms)" "meets" "misses" "constraint" \
  "answer" "formula's answer" "MVA's answer"

# ---- deterministic output: the same inputs give the same bytes -----------------------------
for fmt in svg pdf; do
  run_ok "$PY" "$A/plot_sweep.py" "$TMP/knee.csv" -o "$TMP/det1.$fmt"
  run_ok "$PY" "$A/plot_sweep.py" "$TMP/knee.csv" -o "$TMP/det2.$fmt"
  cmp -s "$TMP/det1.$fmt" "$TMP/det2.$fmt" || fail "two runs gave different $fmt files"
  pass "deterministic $fmt"
done
grep -q '<dc:date>' "$TMP/det1.svg" && fail "the SVG carries a date"
pass "no date in the SVG"

finish
