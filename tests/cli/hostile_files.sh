# cli_hostile_files: the files sonicsim reads and writes (issue 35). Only regular files are read:
# a FIFO with no writer, a socket, a device or a folder given as any input is refused at once
# (exit 2; a FIFO once blocked the open forever). Standard output that cannot take the text is a
# failure even for --help. Helm values with old Mac line ends (CR alone) read as Helm reads them.
# `calibrate overlap` and `calibrate prometheus` refuse the measurements that cannot give a curve
# a scenario accepts, instead of writing it (or running out of memory). Every run is bounded, so a
# regression fails here instead of hanging the suite.
source "$(dirname "$0")/lib.sh" "$@"
bound_every_run
need_json_tool
command -v python3 >/dev/null || skip "python3 is needed to build the test inputs"

RESULTS="$TMP/out.json"
DEFAULT=scenarios/default.json
TRITON=scenarios/examples/triton-config.json
MODEL=particlenet_ak4
D=tests/data/supersonic

# ---- 1. Only regular files are read ------------------------------------------------------------
mkfifo "$TMP/fifo"
FIFO="$TMP/fifo: found a FIFO (named pipe), expected a regular file"
refused "$FIFO" "$SONICSIM" run "$TMP/fifo" -o "$RESULTS"
refused "$FIFO" "$SONICSIM" validate "$TMP/fifo"
refused "$FIFO" "$SONICSIM" analytic "$TMP/fifo"
refused "cannot read Triton config \`$TMP/fifo\`: found a FIFO (named pipe)" \
  "$SONICSIM" run "$TRITON" --set "models.$MODEL.triton_config=\"$TMP/fifo\"" -o "$RESULTS"
refused "cannot read calibration file \`$TMP/fifo\`: found a FIFO (named pipe)" \
  "$SONICSIM" run "$TRITON" --set "models.$MODEL.service_time={\"calibration\":\"$TMP/fifo\"}" -o "$RESULTS"
refused "$FIFO" "$SONICSIM" import supersonic "$TMP/fifo" --overlay "$D/overlay.json" -o "$RESULTS"
refused "$FIFO" "$SONICSIM" import supersonic "$D/keda.yaml" --overlay "$TMP/fifo" -o "$RESULTS"
refused "$FIFO" "$SONICSIM" calibrate perf-analyzer "$TMP/fifo" --model m -b 1 -o "$RESULTS"
refused "$FIFO" "$SONICSIM" calibrate overlap "$TMP/fifo" -b 1 -o "$RESULTS"
refused "$FIFO" "$SONICSIM" import prometheus "$TMP/fifo" -o "$RESULTS"
refused "$FIFO" "$SONICSIM" calibrate prometheus "$TMP/fifo" --model m -o "$RESULTS"
refused "$FIFO" "$SONICSIM" compare "$DEFAULT" "$TMP/fifo" --vary workload.jobs -o "$RESULTS"
refused "$FIFO" "$SONICSIM" reproduce "$TMP/fifo"
refused "$FIFO" "$SONICSIM" report "$TMP/fifo"
refused "$FIFO" "$SONICSIM" merge "$TMP/fifo" -o "$TMP/merged.csv"
# A socket cannot even be opened; a folder and a device are named as what they are.
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/socket"
refused "$TMP/socket: found a socket, expected a regular file" "$SONICSIM" validate "$TMP/socket"
refused "$TMP: found a folder, expected a regular file" "$SONICSIM" validate "$TMP"
refused "/dev/null: found a character device, expected a regular file" "$SONICSIM" validate /dev/null
# No command reads standard input: /dev/stdin is read only when it is a regular file.
run_status 2 bash -c "cat $DEFAULT | \"$SONICSIM\" validate /dev/stdin"
assert_stderr_contains "/dev/stdin: found a FIFO (named pipe), expected a regular file"
run_ok bash -c "\"$SONICSIM\" validate /dev/stdin <$DEFAULT"
# Nor is a FIFO written to when no process reads it: that open blocked too.
run_status 1 "$SONICSIM" run "$DEFAULT" --set duration=1s --set warmup=0 -o "$TMP/fifo"
assert_stderr_contains "$TMP/fifo: cannot write: no process reads from this FIFO"

# ---- 2. Standard output that does not take the text is a failure -------------------------------
[[ -w /dev/full ]] || skip "no /dev/full to fill standard output"
for args in "--help" "--version" "run --help" "calibrate overlap --help"; do
  run_status 1 bash -c "\"$SONICSIM\" $args >/dev/full"
  assert_stderr_contains "standard output: write failed: No space left on device"
done

# ---- 3. Helm values with CR-only line ends ------------------------------------------------------
# Helm's YAML (go-yaml) breaks lines at a lone CR (v3 yamlprivateh.go:124-130, scannerc.go:
# 568-581); yaml-cpp did not, and read the whole file as one key.
run_ok "$SONICSIM" import supersonic "$D/keda.yaml" --overlay "$D/overlay.json" -o "$TMP/lf.json"
tr '\n' '\r' <"$D/keda.yaml" >"$TMP/cr.yaml"
run_ok "$SONICSIM" import supersonic "$TMP/cr.yaml" --overlay "$D/overlay.json" -o "$TMP/cr.json"
cmp -s "$TMP/lf.json" "$TMP/cr.json" || fail "CR-only values gave another scenario than LF"
pass "CR-only line ends give the scenario LF gives"
sed 's/$/\r/' "$D/keda.yaml" >"$TMP/crlf.yaml"
run_ok "$SONICSIM" import supersonic "$TMP/crlf.yaml" --overlay "$D/overlay.json" -o "$TMP/crlf.json"
cmp -s "$TMP/lf.json" "$TMP/crlf.json" || fail "CR LF values gave another scenario than LF"
pass "CR LF line ends give the scenario LF gives"
# A line separator (U+2028) is a line end to Helm and not to yaml-cpp: refused, not misread.
printf 'triton:\n  replicas: 2\xe2\x80\xa8  image: x\n' >"$TMP/ls.yaml"
refused "ls.yaml: line 2, column 14: found U+2028 (line separator), which Helm reads as a line end" \
  "$SONICSIM" import supersonic "$TMP/ls.yaml" --overlay "$D/overlay.json" -o "$RESULTS"

# ---- 4. calibrate overlap: a curve no longer than the measurement and the scenario allow ------
HEADER="Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency"
# pa_row CONCURRENCY INFER_PER_S COMPUTE_INFER_US
pa_row() { echo "$1,$2,10,100,0,10,$3,10,5,20000,21000,22000,23000"; }
# Two rows whose second claims 1.5 million executions at concurrency 2 (X x Compute Infer =
# 150/s x 1e4 s): once a curve of 1.5 M points (100 MB, exit 0), or memory running out.
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2 150 10000000000; } >"$TMP/contradiction_batch1.csv"
refused "contradiction_batch1.csv: line 3: found 1500000 executions on the device on average" \
  "$SONICSIM" calibrate overlap "$TMP/contradiction_batch1.csv" -o "$RESULTS"
assert_stderr_contains "expected at most the concurrency"
# A little above the concurrency is the noise of two averages: read as the concurrency.
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2 160 13000; } >"$TMP/noise_batch1.csv"
run_ok "$SONICSIM" calibrate overlap "$TMP/noise_batch1.csv" -o "$TMP/noise.json"
[[ "$(json_get "$TMP/noise.json" overlap.executions)" == "[1,2]" ]] ||
  fail "executions $(json_get "$TMP/noise.json" overlap.executions), expected [1,2]"
pass "2.08 executions at concurrency 2 read as 2"
# 1,500 executions at concurrency 2,000: the curve stops at the 1,000 a scenario accepts, and
# loads into one.
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2000 100000 15000; } >"$TMP/wide_batch1.csv"
run_ok "$SONICSIM" calibrate overlap "$TMP/wide_batch1.csv" --device T4 -o "$TMP/wide.json"
assert_stdout_contains "the curve stops at 1000"
[[ "$(json_get "$TMP/wide.json" overlap.executions.999)" == 1000 ]] &&
  ! json_has "$TMP/wide.json" overlap.executions.1000 || fail "the curve does not stop at 1000"
pass "1000 executions at most"
python3 - "$DEFAULT" "$TMP/wide.json" "$TMP/wide-scenario.json" <<'PY'
import json, sys
scenario, curve, out = sys.argv[1:]
doc = json.load(open(scenario))
doc["devices"] = {"T4": {"overlap": json.load(open(curve))["overlap"]}}
json.dump(doc, open(out, "w"))
PY
run_ok "$SONICSIM" validate "$TMP/wide-scenario.json"

# ---- 5. calibrate prometheus: a window a scenario cannot take is refused by name ---------------
run_ok "$SONICSIM" import prometheus tests/data/prometheus/curve.json -o "$TMP/curve-m.json"
# set_window FILE OUT SERIES WINDOW VALUE: the measurements with one value of pools[0].models[0]
# replaced.
set_window() {
  python3 - "$@" <<'PY'
import json, sys
src, out, series, k, value = sys.argv[1:]
doc = json.load(open(src))
doc["pools"][0]["models"][0][series][int(k)] = float(value)
json.dump(doc, open(out, "w"))
PY
}
RESULTS="$TMP/pn.json"
# A batch below 1 (an execution holds at least one inference): once written as a calibration the
# loader refuses.
set_window "$TMP/curve-m.json" "$TMP/half.json" batch_size 3 0.5
refused "half.json: pools[0].models[0].batch_size[3]: in window 3" \
  "$SONICSIM" calibrate prometheus "$TMP/half.json" --model pn -o "$RESULTS"
assert_stderr_contains "found 0.5 inferences per execution, expected at least 1"
# A batch of 0 (or below) in a window with executions was dropped without a word.
set_window "$TMP/curve-m.json" "$TMP/zero.json" batch_size 3 0
refused "zero.json: pools[0].models[0].batch_size[3]: in window 3" \
  "$SONICSIM" calibrate prometheus "$TMP/zero.json" --model pn -o "$RESULTS"
assert_stderr_contains "found 0 inferences per execution, expected at least 1"
# A compute time past the scenario's 1e9 s: once a calibration of `null` times.
set_window "$TMP/curve-m.json" "$TMP/huge.json" compute_infer_time_s 5 1e300
refused "huge.json: pools[0].models[0].compute_infer_time_s[5]: in window 5" \
  "$SONICSIM" calibrate prometheus "$TMP/huge.json" --model pn -o "$RESULTS"
assert_stderr_contains "expected at most 1e9 s"
# What is written loads: the calibration in a scenario (calibrate prometheus reads it back too).
run_ok "$SONICSIM" calibrate prometheus "$TMP/curve-m.json" --model pn -o "$RESULTS"
run_ok "$SONICSIM" validate tests/data/valid_minimal.json \
  --set 'workload.requests=[{"model": "pn", "offload_fraction": 0.1}]' \
  --set "models={\"pn\": {\"input_bytes_per_item\": 100, \"output_bytes_per_item\": 10, \"service_time\": {\"GPU\": {\"calibration\": \"$RESULTS\"}}}}" \
  --set 'servers=[{"name": "g", "count": 1, "device": "GPU", "models": ["pn"]}]'
finish
