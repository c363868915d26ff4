#!/usr/bin/env bash
# scripts/hostile-inputs.sh BINARY [OUT.tsv]: hostile invocations of BINARY by surface (issue 35),
# each outcome classified; the closing note's "before and after" table.
#   scripts/hostile-inputs.sh --compare BEFORE.tsv AFTER.tsv: the two runs side by side (markdown).
#
# Every case runs in its own scratch folder under `timeout 20` (HOSTILE_TIMEOUT) and `ulimit -v
# 4000000` (4 GB of address space), with standard input from /dev/null. Its outcome:
#   refused         exit 2, and stderr names the file, the flag or the JSON path given
#   refused-flag    exit 2 for an unknown flag or option (a command the binary does not have):
#                   never counted as a fix
#   refused-unnamed exit 2 with a message that names none of the files, flags or paths given
#   ok              exit 0 (and the case's check of the output passed)
#   error           exit 1 (a write failure, an internal error)
#   outside         exit 3 (`reproduce`: a figure outside its tolerance)
#   crash           a signal, an abort, an exit status of 128 or more other than below
#   hang            the timeout was hit
#   oom             memory ran out: std::bad_alloc, "memory ran out", or killed (SIGKILL)
#   wrong           exit 0 with output that is unusable or wrong, as the case's check finds it
#                   (a written calibration the loader refuses, an OpenMetrics file without
#                   samples, "within" for an infinite figure, exit 0 for input that has no
#                   meaningful output, ...); or any message holding a control byte
# Each case has a surface, an id, the command and the outcome expected of a good binary. The
# script prints a TSV row per case (surface, id, expected, outcome, exit, seconds, the first 120
# characters of stderr, the command), then a markdown summary: surface x outcome, and the cases
# whose outcome is not the expected one. OUT.tsv receives the rows with a header line.
# HOSTILE_ONLY=REGEX runs only the cases whose id matches. Inputs come from this checkout
# (scenarios/, tests/data/) and from files generated here; the binary is never built here.
set -euo pipefail
# shellcheck source=scripts/common.sh disable=SC1091
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() {
  echo "usage: $0 BINARY [OUT.tsv]   or   $0 --compare BEFORE.tsv AFTER.tsv" >&2
  exit 2
}

# ---- --compare: two runs' TSVs side by side -------------------------------------------------------
# counts FILE SURFACE: "refused 5, ok 2" for the surface's cases (all surfaces when SURFACE is "").
counts() {
  awk -F'\t' -v s="$2" 'NR > 1 && (s == "" || $1 == s) { n[$4]++ }
    END { out = ""; for (k in n) out = out (out == "" ? "" : ", ") k " " n[k]; print out }' "$1" |
    tr ',' '\n' | sed 's/^ //' | sort | paste -sd, - | sed 's/,/, /g'
}
# fixed BEFORE AFTER SURFACE: cases of the surface whose outcome was not the expected class before
# (nor an unknown flag) and is after.
fixed() {
  awk -F'\t' -v s="$3" 'FNR == 1 { next } NR == FNR { b[$2] = $4; next }
    (s == "" || $1 == s) && $4 == $3 && ($2 in b) && b[$2] != $3 && b[$2] != "refused-flag" { n++ }
    END { print n + 0 }' "$1" "$2"
}
compare() {
  local before="$1" after="$2" s
  echo "| surface | cases | before | after | fixed |"
  echo "|---|---|---|---|---|"
  while IFS= read -r s; do
    printf '| %s | %s | %s | %s | %s |\n' "$s" "$(awk -F'\t' -v s="$s" 'NR > 1 && $1 == s' "$after" | wc -l)" \
      "$(counts "$before" "$s")" "$(counts "$after" "$s")" "$(fixed "$before" "$after" "$s")"
  done < <(awk -F'\t' 'NR > 1 && !seen[$1]++ { print $1 }' "$after")
  printf '| all | %s | %s | %s | %s |\n' "$(awk 'NR > 1' "$after" | wc -l)" "$(counts "$before" "")" \
    "$(counts "$after" "")" "$(fixed "$before" "$after" "")"
  echo
  # Joined on the id: fixed (before not the expected class, and not an unknown flag; after the
  # expected class), still not the expected class after, and worse.
  awk -F'\t' 'FNR == 1 { next } NR == FNR { b[$2] = $4; next }
    { e = $3; a = $4; x = ($2 in b) ? b[$2] : "(absent)"; total++
      if (a == e) { good++; if (x != e && x != "refused-flag") fixed++; if (x == "refused-flag") flag++ }
      else { bad++; list = list sprintf("- `%s` (%s): expected %s, before %s, after %s\n", $2, $1, e, x, a) } }
    END { printf "%d cases: after, %d of the expected class (%d of them fixed since before, %d new commands or flags that the old binary refused as unknown); %d not.\n", total, good, fixed, flag, bad
          if (bad) printf "\nNot the expected class after:\n\n%s", list }' "$before" "$after"
}

if [[ ${1:-} == --compare ]]; then
  (($# == 3)) || usage
  compare "$2" "$3"
  exit 0
fi
(($# >= 1 && $# <= 2)) || usage
[[ -x $1 && ! -d $1 ]] || die "not an executable: $1"
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
OUT_TSV="${2:-}"
for tool in python3 jq timeout mkfifo awk; do
  command -v "$tool" >/dev/null || die "$tool is needed"
done

R="$SONICSIM_ROOT"
TIMEOUT="${HOSTILE_TIMEOUT:-20}"
MEM_KB=4000000
ONLY="${HOSTILE_ONLY:-}"
W="$(mktemp -d "${TMPDIR:-/tmp}/hostile-inputs.XXXXXX")"
trap 'rm -rf "$W"' EXIT
IN="$W/in"
mkdir -p "$IN" "$W/case"

DEFAULT="$R/scenarios/default.json"
KEDA="$R/scenarios/sites/tier2-keda.json"
GRID="$R/scenarios/examples/sites-grid-to-gpu-site.json"
OPEN="$R/scenarios/examples/open-loop-arrivals.json"
TRITON="$R/scenarios/examples/triton-config.json"
MIN="$R/tests/data/valid_minimal.json"
PROM="$R/tests/data/prometheus"
SUPER="$R/tests/data/supersonic"
PN=particlenet_ak4

# ---- Inputs -----------------------------------------------------------------------------------------
# One thread and one request a day: a run of months or years is a few thousand events.
cat >"$IN/long.json" <<'JSON'
{
  "name": "long", "duration": 20000000, "warmup": 0,
  "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": 86400,
               "requests": [{"model": "m", "offload_fraction": 0.5}]},
  "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                   "service_time": {"batch": [1], "seconds": [0.001]}}},
  "servers": [{"name": "gpu", "count": 1, "device": "T4", "models": ["m"]}]
}
JSON
# No CPU time per event, 1 ns of service: a billion events a second per thread.
cat >"$IN/nocpu.json" <<'JSON'
{
  "name": "nocpu", "duration": "1h", "warmup": 0,
  "workload": {"jobs": 4, "threads_per_job": 1, "cpu_time_per_event": 0,
               "requests": [{"model": "m", "offload_fraction": 1}]},
  "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                   "service_time": {"batch": [1], "seconds": [1e-9]}}},
  "servers": [{"name": "gpu", "count": 2, "device": "T4", "models": ["m"]}]
}
JSON
# N sites around one WAN router, W workloads each with a job at every site (as the unit test
# `the memory estimate counts a record per workload and site of its clients` builds them), a pool
# at the first site: one record per workload and site, W x N of them.
python3 - "$IN" <<'PY'
import json, sys
out = sys.argv[1]
def sites_by_workloads(n_sites, n_workloads, duration):
    names = [f"s{i}" for i in range(n_sites)]
    sites = [{"name": n, "network": {"site_uplink": {"bandwidth": "100Gbps", "latency": "1ms"}}}
             for n in names]
    links = [{"between": [n, "r"], "bandwidth": "100Gbps", "latency": "2ms"} for n in names]
    workloads = [{"name": f"w{w}", "jobs": n_sites, "threads_per_job": 1,
                  "cpu_time_per_event": {"dist": "lognormal", "mean": 0.5, "cv": 0.3},
                  "requests": [{"model": "m", "offload_fraction": 1.0}],
                  "sites": {n: 1 for n in names}} for w in range(n_workloads)]
    return {"name": f"sites-{n_sites}x{n_workloads}", "duration": duration, "warmup": 0,
            "workloads": workloads,
            "models": {"m": {"input_bytes_per_item": 1000, "output_bytes_per_item": 10,
                             "service_time": {"batch": [1], "seconds": [0.001]}}},
            "servers": [{"name": "gpu", "count": 8, "device": "T4", "models": ["m"],
                         "site": "s0"}],
            "sites": sites, "wan": {"routers": ["r"], "links": links}}
json.dump(sites_by_workloads(500, 16, "10s"), open(f"{out}/sites500x16.json", "w"))
json.dump(sites_by_workloads(500, 64, "10s"), open(f"{out}/sites500x64.json", "w"))
PY

# Prometheus query_range exports and Grafana frames with instants out of range.
series='{"metric":{"__name__":"nv_inference_count","model":"pn","pod":"a"},"values":[[1732700000,"1"],[%s,"2"]]}'
# shellcheck disable=SC2059
prom() { printf '{"status":"success","data":{"resultType":"matrix","result":[%s]}}' "$(printf "$series" "$1")"; }
prom 1e19 >"$IN/t1e19.json"
prom -1 >"$IN/tneg.json"
prom 253402300800 >"$IN/t10000.json"
frame='{"results":{"A":{"status":200,"frames":[{"schema":{"fields":[{"name":"Time","type":"time"},{"name":"Value","type":"number","labels":{"__name__":"nv_inference_count","model":"pn","pod":"a"}}]},"data":{"values":[[1732700000000,%s],[1,2]]}}]}}}'
# shellcheck disable=SC2059
printf "$frame" 253402300799001 >"$IN/g-far.json"
# shellcheck disable=SC2059
printf "$frame" -6919046400000000 >"$IN/g-neg.json"
python3 - "$IN" <<'PY'
import json, sys
out = sys.argv[1]
def doc(result):
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}
# 3,000 pods, two samples a week apart, for 1 s windows: series x windows to spread.
pods = [{"metric": {"__name__": "nv_inference_count", "model": "pn", "pod": f"p{i}"},
         "values": [[1732700000, "1"], [1732700000 + 7 * 86400, "2"]]} for i in range(3000)]
json.dump(doc(pods), open(f"{out}/pods.json", "w"))
# 3,000 pools with only GPU utilization over 2 million windows (a 370 kB file).
pools = [{"metric": {"__name__": "nv_inference_count", "model": "pn", "pod": "a"},
          "values": [[1732700000, "1"], [1732700001, "2"]]}]
pools += [{"metric": {"__name__": "nv_gpu_utilization", "release": f"g{i}", "pod": "a"},
           "values": [[1732700000, "0.5"], [1732700000 + 2000000, "0.5"]]} for i in range(3000)]
json.dump(doc(pools), open(f"{out}/gpupools.json", "w"))
# One series in 9,000 result entries of 40 samples each, latest first (about 9 MB).
entries = []
for k in reversed(range(9000)):
    t0 = 1732700000 + k * 200
    entries.append({"metric": {"__name__": "nv_inference_count", "model": "pn", "pod": "a"},
                    "values": [[t0 + 5 * j, str(k * 40 + j)] for j in range(40)]})
json.dump(doc(entries), open(f"{out}/repeated.json", "w"))
# Two samples 200 days apart, one an hour: a measured history past 2^24 s.
long = [{"metric": {"__name__": "nv_inference_count", "model": "m", "pod": "a", "release": "gpu"},
         "values": [[1732700000 + h * 3600, str(h)] for h in range(0, 200 * 24, 24)]}]
json.dump(doc(long), open(f"{out}/long-history.json", "w"))
PY

# perf_analyzer CSVs for calibrate overlap.
HEADER="Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue,Server Compute Input,Server Compute Infer,Server Compute Output,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency"
pa_row() { echo "$1,$2,10,100,0,10,$3,10,5,20000,21000,22000,23000"; }
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2 150 10000000000; } >"$IN/contradiction_batch1.csv"
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2 160 13000; } >"$IN/noise_batch1.csv"
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2000 100000 15000; } >"$IN/wide_batch1.csv"
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 10000000 100000 100000000; } >"$IN/huge_batch1.csv"
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 2 150 1e300; } >"$IN/inf_batch1.csv"
{ echo "$HEADER"; pa_row 1 100 10000; pa_row 1000 1000000000 1000000000; } >"$IN/rate_batch1.csv"

# Measurements for calibrate prometheus: curve.json's, imported by the binary under test, with one
# window spoilt.
"$BIN" import prometheus "$PROM/curve.json" -o "$IN/curve-m.json" >/dev/null 2>&1 ||
  die "$BIN cannot import $PROM/curve.json (the calibrate prometheus cases need it)"
set_window() {  # set_window OUT SERIES WINDOW VALUE
  python3 - "$IN/curve-m.json" "$@" <<'PY'
import json, sys
src, out, series, k, value = sys.argv[1:]
doc = json.load(open(src))
doc["pools"][0]["models"][0][series][int(k)] = float(value)
json.dump(doc, open(out, "w"))
PY
}
set_window "$IN/half.json" batch_size 3 0.5
set_window "$IN/batch-zero.json" batch_size 3 0
set_window "$IN/batch-huge.json" batch_size 3 1e7
set_window "$IN/time-huge.json" compute_infer_time_s 5 1e300
set_window "$IN/time-1e10.json" compute_infer_time_s 5 1e10
set_window "$IN/exec-huge.json" executions_per_s 4 1e12

# reproduce: figures that overflow, on a small deterministic scenario.
python3 - "$IN" <<'PY'
import json, sys
out = sys.argv[1]
scenario = {"name": "knee", "seed": 1, "duration": "20s", "warmup": "2s",
            "workload": {"jobs": 2, "threads_per_job": 1, "mode": "sync",
                         "cpu_time_per_event": "50ms",
                         "requests": [{"model": "m", "offload_fraction": 0.2, "items": 1}]},
            "models": {"m": {"input_bytes_per_item": "1kB", "output_bytes_per_item": "8B",
                             "service_time": {"batch": [1], "seconds": [0.01]}}},
            "servers": [{"name": "g", "count": 1, "device": "T4", "models": ["m"]}]}
json.dump(scenario, open(f"{out}/knee.json", "w"))
big = 1.7976931348623157e308
def figs(name, simulated, published, tolerance):
    f = {"id": "f", "figure": "a figure", "source": "hostile-inputs.sh", "unit": "x",
         "published": published, "simulated": simulated}
    if tolerance is not None:
        f["tolerance"] = tolerance
    json.dump({"system": "test", "source": "hostile-inputs.sh", "scenario": "knee.json",
               "figures": [f]}, open(f"{out}/{name}", "w"))
figs("fig-product.json", {"product": [big, 2]}, None, {"at_least": 1})
figs("fig-sum.json", {"sum": [big, big]}, 1e308, {"relative": 0.5})
figs("fig-negative.json", {"product": [big, -2]}, None, {"at_most": 1})
figs("fig-band.json", 1.0, big / 2, {"relative": 1.0000000000000002})
figs("fig-finite.json", {"product": [big, 1]}, None, {"at_least": 1})
f = {"id": "f", "figure": "a figure", "source": "hostile-inputs.sh", "unit": "x", "published": None,
     "simulated": {"metric": "requests.completed"},
     "vary": {"set": "workload.jobs", "label": "jobs", "values": list(range(1, 40))}}
json.dump({"system": "test", "source": "hostile-inputs.sh", "scenario": "knee.json", "figures": [f]},
          open(f"{out}/fig-vary.json", "w"))
PY

# Helm values: CR-only and LS line ends; a KEDA threshold far below the clock's nanosecond.
tr '\n' '\r' <"$SUPER/keda.yaml" >"$IN/cr.yaml"
printf 'triton:\n  replicas: 2\xe2\x80\xa8  image: x\n' >"$IN/ls.yaml"
sed 's/^serverLoadThreshold: 20$/serverLoadThreshold: 0.000000001/' "$SUPER/keda.yaml" >"$IN/tiny-threshold.yaml"
grep -q '^serverLoadThreshold: 0.000000001' "$IN/tiny-threshold.yaml" || die "keda.yaml changed"

# Files that are not regular: a FIFO with no writer, a socket, a folder; a file over the cap.
mkfifo "$IN/fifo" "$IN/fifo-out"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$IN/socket"
mkdir -p "$IN/folder"
truncate -s 17M "$IN/big.json"

# ---- Running and classifying ----------------------------------------------------------------------
ROWS="$W/rows.tsv"
: >"$ROWS"
TAB=$'\t'

# tokens ARGS...: what a refusal may name: flags, --set paths (as JSON paths too), files.
tokens() (
  set -f
  local prev="" a w p
  for a in "$@"; do
    for w in $a; do
      if [[ $prev == --set ]]; then
        p="${w%%=*}"
        echo "$p"
        echo "$p" | sed -E 's/\.([0-9]+)(\.|$)/[\1]\2/g'
      elif [[ $w == --?* ]]; then
        echo "${w%%=*}"
      fi
      if [[ $w == */* || $w == *.json || $w == *.csv || $w == *.yaml ]]; then
        w="${w//[\"\']/}"; w="${w##*=}"
        [[ -n $w ]] && basename -- "$w"
      fi
      prev="$w"
    done
  done | awk 'length($0) > 1' | sort -u
)

# check NAME DIR: the case's check of a run that exited 0; prints a reason when the output is wrong.
check() {
  local name="$1" dir="$2"
  case "$name" in
    -) ;;
    okwrong) echo "exit 0 for input that has no meaningful output" ;;
    runs)
      jq -e '.requests.completed > 0' "$dir/out.json" >/dev/null 2>&1 ||
        echo "no results with completed requests" ;;
    warn)
      grep -qi 'no event completed' "$dir/.stdout" "$dir/.stderr" ||
        echo "no warning that no event completed" ;;
    om)
      [[ -s $dir/out.om ]] && grep -qv '^#' "$dir/out.om" ||
        echo "an OpenMetrics file with no samples" ;;
    cal)
      "$BIN" validate "$MIN" --set 'workload.requests=[{"model": "pn", "offload_fraction": 0.1}]' \
        --set "models={\"pn\": {\"input_bytes_per_item\": 100, \"output_bytes_per_item\": 10, \"service_time\": {\"GPU\": {\"calibration\": \"$dir/out.json\"}}}}" \
        --set 'servers=[{"name": "g", "count": 1, "device": "GPU", "models": ["pn"]}]' \
        >/dev/null 2>"$dir/.check" || echo "the loader refuses the calibration written: $(head -c 100 "$dir/.check" | tr '\n\t' '  ')" ;;
    overlap)
      local n
      n="$(jq '.overlap.executions | length' "$dir/out.json" 2>/dev/null || echo none)"
      if [[ $n == none ]]; then
        echo "no overlap curve written"
      elif ((n > 1000)); then
        echo "a curve of $n executions (a scenario takes at most 1000)"
      elif ! "$BIN" validate "$DEFAULT" --set "devices={\"T4\": {\"overlap\": $(jq -c .overlap "$dir/out.json")}}" \
        >/dev/null 2>"$dir/.check"; then
        echo "the loader refuses the curve written: $(head -c 100 "$dir/.check" | tr '\n\t' '  ')"
      fi ;;
    crlf)
      "$BIN" import supersonic "$SUPER/keda.yaml" --overlay "$SUPER/overlay.json" -o "$dir/lf.json" \
        >/dev/null 2>&1 || { echo "the LF values do not import"; return; }
      cmp -s "$dir/lf.json" "$dir/out.json" || echo "CR-only values give another scenario than LF" ;;
    within)
      grep -qi 'within' "$dir/.stdout" && echo "an infinite figure judged within its tolerance" ;;
    *) die "unknown check $name" ;;
  esac
  return 0
}

# c SURFACE ID EXPECTED CHECK CMD...: one case.
c() {
  local surface="$1" id="$2" expected="$3" chk="$4"
  shift 4
  [[ -n $ONLY && ! $id =~ $ONLY ]] && return 0
  local dir="$W/case/$id" rc=0 t0 t1 secs outcome reason="" err
  mkdir -p "$dir"
  t0="$(date +%s.%N)"
  (cd "$dir" && ulimit -v "$MEM_KB" && exec timeout -k 5 "$TIMEOUT" "$@") \
    >"$dir/.stdout" 2>"$dir/.stderr" </dev/null || rc=$?
  t1="$(date +%s.%N)"
  secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
  err="$dir/.stderr"
  if ((rc == 124)) || { ((rc == 137)) && awk -v s="$secs" -v t="$TIMEOUT" 'BEGIN { exit !(s >= t) }'; }; then
    outcome=hang
  elif ((rc != 0)) && grep -Eqi 'bad_alloc|memory ran out|out of memory|cannot allocate memory' "$err"; then
    outcome=oom
  elif ((rc == 137)); then
    outcome=oom
  elif ((rc >= 128)); then
    outcome=crash
  elif LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$err"; then
    outcome=wrong reason="a control byte in the message"
  elif ((rc == 2)); then
    if grep -Eqi 'not expected|unknown option|unrecognized option|unknown flag|were not expected' "$err"; then
      outcome=refused-flag
    elif [[ -s $err ]] && grep -qFf <(tokens "$@") "$err"; then
      outcome=refused
    else
      outcome=refused-unnamed
    fi
  elif ((rc == 1)); then
    outcome=error
  elif ((rc == 3)); then
    outcome=outside
  elif ((rc == 0)); then
    reason="$(check "$chk" "$dir")"
    if [[ -n $reason ]]; then outcome=wrong; else outcome=ok; fi
  else
    outcome=error
  fi
  local msg cmd
  msg="$(head -c 2000 "$err" | tr '\n\t\r' '   ' | cat -v | cut -c1-120)"
  [[ -n $reason ]] && msg="[$reason] $msg"
  cmd="$(printf '%q ' "$@" | sed "s#$BIN#BINARY#g; s#$IN/#IN/#g; s#$R/##g" | tr '\t' ' ')"
  printf '%s\n' "$surface$TAB$id$TAB$expected$TAB$outcome$TAB$rc$TAB$secs$TAB$msg$TAB$cmd" | tee -a "$ROWS"
  rm -rf "$dir"
}

# ---- The cases --------------------------------------------------------------------------------------
S="clock and duration"
c "$S" long-2p24-remote ok runs "$BIN" run "$IN/long.json" -q -o out.json
c "$S" long-2p25-remote ok runs "$BIN" run "$IN/long.json" --set duration=33554432 -q -o out.json
c "$S" long-10y-remote ok runs "$BIN" run "$IN/long.json" --set duration=315360000 -q -o out.json
c "$S" long-200d-flow ok runs "$BIN" run "$IN/long.json" --set duration=17280000 --set 'network={"flow_model":"flow","site_uplink":{"bandwidth":"10Gbps","latency":"1ms"}}' -q -o out.json
c "$S" long-200d-simgrid ok runs "$BIN" run "$IN/long.json" --set duration=17280000 --set 'network={"flow_model":"simgrid","site_uplink":{"bandwidth":"10Gbps","latency":"1ms"}}' -q -o out.json
c "$S" long-2p30-remote refused okwrong "$BIN" run "$IN/long.json" --set duration=1073741824 -q -o out.json
c "$S" long-1e9s-async ok runs "$BIN" run "$IN/long.json" --set duration=300000000 --set workload.mode=async -q -o out.json
c "$S" default-2p24 refused okwrong "$BIN" run "$DEFAULT" --set duration=16777216 -q -o out.json
c "$S" validate-2p24 refused okwrong "$BIN" validate "$DEFAULT" --set duration=16777216
c "$S" compare-200-days ok - bash -c "'$BIN' import prometheus '$IN/long-history.json' --step 86400 -o m.json >/dev/null && '$BIN' compare '$IN/long.json' m.json -o out.json"
c "$S" nocpu-1ns-1h refused okwrong "$BIN" run "$IN/nocpu.json" -q -o out.json
c "$S" nocpu-1ns-1min refused okwrong "$BIN" run "$IN/nocpu.json" --set duration=1min -q -o out.json
c "$S" nocpu-1ns-10s refused okwrong "$BIN" run "$IN/nocpu.json" --set duration=10s -q -o out.json
c "$S" cpu-1ns-default refused okwrong "$BIN" run "$DEFAULT" --set workload.cpu_time_per_event=1ns -q -o out.json
c "$S" no-event-completed ok warn "$BIN" run "$DEFAULT" --set duration=5s --set warmup=0 --set workload.cpu_time_per_event=10s -o out.json
c "$S" no-event-json ok warn "$BIN" run "$DEFAULT" --set duration=5s --set warmup=0 --set workload.cpu_time_per_event=10s --json
c "$S" time-budget-flag refused okwrong "$BIN" validate "$DEFAULT" --time-budget 0.5

S="rates and faults"
CRASH='faults=[{"kind":"random_crashes","pool":"t4","mtbf":"1ns","mttr":"1ns"}]'
c "$S" crash-1ns-8dev-1min refused okwrong "$BIN" run "$DEFAULT" --set duration=1min --set warmup=0 --set "$CRASH" -q -o out.json
c "$S" crash-1ns-8dev refused okwrong "$BIN" run "$DEFAULT" --set "$CRASH" -q -o out.json
c "$S" crash-1us-8dev-1h refused okwrong "$BIN" run "$DEFAULT" --set duration=1h --set warmup=0 --set 'faults=[{"kind":"random_crashes","pool":"t4","mtbf":"1us","mttr":"1us"}]' -q -o out.json
c "$S" crash-1ns-autoscaled refused okwrong "$BIN" run "$KEDA" --set "$CRASH" -q -o out.json
c "$S" preempt-1ns refused okwrong "$BIN" run "$DEFAULT" --set 'faults=[{"kind":"random_preemption","mtbf":"1ns"}]' -q -o out.json
c "$S" preempt-1us-1min refused okwrong "$BIN" run "$DEFAULT" --set duration=1min --set warmup=0 --set 'faults=[{"kind":"random_preemption","mtbf":"1us"}]' -q -o out.json
c "$S" poll-1ns refused okwrong "$BIN" run "$KEDA" --set servers.0.autoscaler.polling_interval=1ns -q -o out.json
c "$S" poll-1us refused okwrong "$BIN" run "$KEDA" --set servers.0.autoscaler.polling_interval=1us -q -o out.json
c "$S" arrivals-1e9-10h refused okwrong "$BIN" run "$OPEN" --set workload.arrivals.rate=1e9/s --set duration=10h -q -o out.json
c "$S" arrivals-1e6-1h refused okwrong "$BIN" run "$OPEN" --set workload.arrivals.rate=1e6/s --set duration=1h -q -o out.json

S="hosts and devices"
c "$S" overlap-not-from-1 refused okwrong "$BIN" run "$DEFAULT" --set 'devices={"T4": {"overlap": {"executions": [2, 4], "throughput": [1.0, 1.5]}}}' -q -o out.json
c "$S" overlap-superlinear refused okwrong "$BIN" run "$DEFAULT" --set 'devices={"T4": {"overlap": {"executions": [1, 2], "throughput": [1.0, 2.5]}}}' -q -o out.json
c "$S" overlap-1e9-executions refused okwrong "$BIN" run "$DEFAULT" --set 'devices={"T4": {"overlap": {"executions": [1, 1000000000], "throughput": [1.0, 2.0]}}}' -q -o out.json
c "$S" host-cores-1e18 refused okwrong "$BIN" run "$DEFAULT" --set 'servers.0.host={"cores": 1e18}' -q -o out.json
c "$S" servers-1e6-budget refused okwrong "$BIN" run "$DEFAULT" --set servers.0.count=1000000 --memory-budget 2GiB -q -o out.json
c "$S" servers-1e9 refused okwrong "$BIN" run "$DEFAULT" --set servers.0.count=1000000000 -q -o out.json

S="sites and WAN"
c "$S" nonic-simgrid ok runs "$BIN" run "$R/tests/data/sites_no_nics.json" -q -o out.json
c "$S" nonic-flow ok runs "$BIN" run "$R/tests/data/sites_no_nics.json" --set network.flow_model=flow -q -o out.json
c "$S" nonic-simgrid-async ok runs "$BIN" run "$R/tests/data/sites_no_nics.json" --set workload.mode=async -q -o out.json
c "$S" sites-500x16 ok runs "$BIN" run "$IN/sites500x16.json" -q -o out.json
c "$S" sites-500x16-budget refused okwrong "$BIN" run "$IN/sites500x16.json" --memory-budget 256MiB -q -o out.json
c "$S" sites-500x64-budget refused okwrong "$BIN" validate "$IN/sites500x64.json" --memory-budget 1GiB
c "$S" site-placeholder refused - "$BIN" run "$GRID" --set 'sites.1.name=""' -q -o out.json
c "$S" site-placeholder-fault refused - "$BIN" run "$GRID" --set 'sites.0.name=""' --set 'faults=[{"kind":"link_outage","link":"nowhere","at":"1s","for":"1s"}]' -q -o out.json
c "$S" site-placeholder-routing refused - "$BIN" validate "$GRID" --set 'sites.2.name=""' --set 'routing={"policy":"pinned","site":"fnl"}'
c "$S" wan-latency-1e308 refused okwrong "$BIN" run "$GRID" --set wan.links.0.latency=1e308 -q -o out.json

S="numeric ranges (weights, prices, thresholds)"
TWO_POOLS='servers=[{"name":"t4","count":4,"device":"T4","models":["particlenet_ak4","deepmet","deeptau"],"site":"fnal"},{"name":"p","count":4,"device":"T4","models":["particlenet_ak4","deepmet","deeptau"],"site":"purdue"}]'
c "$S" weights-sum-inf refused okwrong "$BIN" run "$GRID" --set duration=30s --set warmup=0 --set "$TWO_POOLS" --set 'routing={"policy":"weighted","weights":{"fnal":1e308,"purdue":1e308}}' -q -o out.json
c "$S" weights-analytic-inf refused okwrong "$BIN" analytic "$GRID" --set "$TWO_POOLS" --set 'routing={"policy":"weighted","weights":{"fnal":1e308,"purdue":1e308}}' --json
c "$S" weights-one-past refused okwrong "$BIN" validate "$GRID" --set "$TWO_POOLS" --set 'routing={"policy":"weighted","weights":{"fnal":1000000001,"purdue":1}}'
c "$S" weights-at-bound ok - "$BIN" validate "$GRID" --set "$TWO_POOLS" --set 'routing={"policy":"weighted","weights":{"fnal":1000000000,"purdue":1}}'
c "$S" weights-all-zero refused okwrong "$BIN" validate "$GRID" --set "$TWO_POOLS" --set 'routing={"policy":"weighted","weights":{"fnal":0,"purdue":0}}'
c "$S" egress-1e300 refused okwrong "$BIN" run "$GRID" --set duration=30s --set warmup=0 --set sites.2.egress_price_per_gb=1e300 -q -o out.json
c "$S" egress-1e308 refused okwrong "$BIN" run "$GRID" --set duration=30s --set warmup=0 --set sites.0.egress_price_per_gb=1e308 -q -o out.json
c "$S" egress-one-past refused okwrong "$BIN" validate "$GRID" --set sites.0.egress_price_per_gb=1000001
c "$S" threshold-1e-12s refused okwrong "$BIN" run "$KEDA" --set duration=1h --set servers.0.autoscaler.threshold=1e-12 -q -o out.json
c "$S" threshold-0.5ns refused okwrong "$BIN" validate "$KEDA" --set 'servers.0.autoscaler.threshold="0.5ns"'
c "$S" threshold-1ns ok - "$BIN" validate "$KEDA" --set 'servers.0.autoscaler.threshold="1ns"'
c "$S" threshold-length-1e-300 refused okwrong "$BIN" validate "$KEDA" --set servers.0.autoscaler.metric=queue_length --set servers.0.autoscaler.threshold=1e-300
c "$S" threshold-length-1e300 refused okwrong "$BIN" validate "$KEDA" --set servers.0.autoscaler.metric=queue_length --set servers.0.autoscaler.threshold=1e300
c "$S" supersonic-threshold-1e-9ms refused okwrong "$BIN" import supersonic "$IN/tiny-threshold.yaml" --overlay "$SUPER/overlay.json" -o out.json
c "$S" timeseries-0.001-100k refused okwrong "$BIN" run "$DEFAULT" --set duration=100000 --set 'timeseries={"interval":0.001}' -q -o out.json

S="import prometheus"
c "$S" time-1e19 refused okwrong "$BIN" import prometheus "$IN/t1e19.json" -o out.json
c "$S" time-negative refused okwrong "$BIN" import prometheus "$IN/tneg.json" -o out.json
c "$S" time-year-10000 refused okwrong "$BIN" import prometheus "$IN/t10000.json" -o out.json
c "$S" grafana-ms-past-cap refused okwrong "$BIN" import prometheus "$IN/g-far.json" -o out.json
c "$S" grafana-ms-negative refused okwrong "$BIN" import prometheus "$IN/g-neg.json" -o out.json
c "$S" start-year-0 refused okwrong "$BIN" import prometheus "$PROM/day.json" --start 0000-01-01T00:00:00Z -o out.json
c "$S" end-1e20 refused okwrong "$BIN" import prometheus "$PROM/day.json" --end 1e20 -o out.json
c "$S" step-1ns refused okwrong "$BIN" import prometheus "$PROM/day.json" --step 0.000000001 -o out.json
c "$S" pods-week-1s refused okwrong "$BIN" import prometheus "$IN/pods.json" --step 1 -o out.json
c "$S" gpu-only-pools refused okwrong "$BIN" import prometheus "$IN/gpupools.json" --step 1 -o out.json
c "$S" repeated-series-9MB ok - "$BIN" import prometheus "$IN/repeated.json" -o out.json

S="calibrate overlap"
c "$S" executions-1.5M refused overlap "$BIN" calibrate overlap "$IN/contradiction_batch1.csv" -o out.json
c "$S" executions-1.5M-json refused overlap "$BIN" calibrate overlap "$IN/contradiction_batch1.csv" --json
c "$S" executions-1500-at-2000 ok overlap "$BIN" calibrate overlap "$IN/wide_batch1.csv" --device T4 -o out.json
c "$S" executions-1e7-at-1e7 ok overlap "$BIN" calibrate overlap "$IN/huge_batch1.csv" --device T4 -o out.json
c "$S" noise-2.08-at-2 ok overlap "$BIN" calibrate overlap "$IN/noise_batch1.csv" -o out.json
c "$S" compute-1e300 refused overlap "$BIN" calibrate overlap "$IN/inf_batch1.csv" -o out.json
c "$S" executions-1e9-at-1000 refused overlap "$BIN" calibrate overlap "$IN/rate_batch1.csv" -o out.json

S="calibrate prometheus"
c "$S" batch-0.5 refused cal "$BIN" calibrate prometheus "$IN/half.json" --model pn -o out.json
c "$S" batch-0 refused cal "$BIN" calibrate prometheus "$IN/batch-zero.json" --model pn -o out.json
c "$S" batch-1e7 refused cal "$BIN" calibrate prometheus "$IN/batch-huge.json" --model pn -o out.json
c "$S" compute-1e300 refused cal "$BIN" calibrate prometheus "$IN/time-huge.json" --model pn -o out.json
c "$S" compute-1e10 refused cal "$BIN" calibrate prometheus "$IN/time-1e10.json" --model pn -o out.json
c "$S" executions-1e12 refused cal "$BIN" calibrate prometheus "$IN/exec-huge.json" --model pn -o out.json
c "$S" good-measurements ok cal "$BIN" calibrate prometheus "$IN/curve-m.json" --model pn -o out.json

S="reproduce"
c "$S" product-inf-at-least outside within "$BIN" reproduce "$IN/fig-product.json"
c "$S" sum-inf-relative outside within "$BIN" reproduce "$IN/fig-sum.json"
c "$S" product-minus-inf-at-most outside within "$BIN" reproduce "$IN/fig-negative.json"
c "$S" band-inf refused okwrong "$BIN" reproduce "$IN/fig-band.json"
c "$S" largest-finite ok - "$BIN" reproduce "$IN/fig-finite.json"
c "$S" vary-39-values refused okwrong "$BIN" reproduce "$IN/fig-vary.json"

S="files and FIFOs"
c "$S" fifo-scenario refused okwrong "$BIN" run "$IN/fifo" -o out.json
c "$S" fifo-validate refused okwrong "$BIN" validate "$IN/fifo"
c "$S" fifo-values refused okwrong "$BIN" import supersonic "$IN/fifo" --overlay "$SUPER/overlay.json" -o out.json
c "$S" fifo-calibration refused okwrong "$BIN" run "$TRITON" --set "models.$PN.service_time={\"calibration\":\"$IN/fifo\"}" -q -o out.json
c "$S" fifo-triton-config refused okwrong "$BIN" run "$TRITON" --set "models.$PN.triton_config=\"$IN/fifo\"" -q -o out.json
c "$S" fifo-prometheus refused okwrong "$BIN" import prometheus "$IN/fifo" -o out.json
c "$S" fifo-measurements refused okwrong "$BIN" calibrate prometheus "$IN/fifo" --model pn -o out.json
c "$S" fifo-figures refused okwrong "$BIN" reproduce "$IN/fifo"
c "$S" fifo-perf-analyzer-csv refused okwrong "$BIN" calibrate overlap "$IN/fifo" -b 1 -o out.json
c "$S" stdin-pipe refused - bash -c "cat '$DEFAULT' | '$BIN' validate /dev/stdin"
c "$S" dev-zero-scenario refused okwrong "$BIN" run /dev/zero -o out.json
c "$S" dev-zero-calibration refused okwrong "$BIN" run "$TRITON" --set "models.$PN.service_time={\"calibration\":\"/dev/zero\"}" -q -o out.json
c "$S" dev-zero-values refused okwrong "$BIN" import supersonic /dev/zero --overlay "$SUPER/overlay.json" -o out.json
c "$S" folder-scenario refused okwrong "$BIN" validate "$IN/folder"
c "$S" socket-scenario refused okwrong "$BIN" validate "$IN/socket"
c "$S" file-17MiB refused okwrong "$BIN" run "$IN/big.json" -o out.json
c "$S" values-cr-only ok crlf "$BIN" import supersonic "$IN/cr.yaml" --overlay "$SUPER/overlay.json" -o out.json
c "$S" values-line-separator refused okwrong "$BIN" import supersonic "$IN/ls.yaml" --overlay "$SUPER/overlay.json" -o out.json

S="outputs"
c "$S" help-dev-full error okwrong bash -c "'$BIN' --help >/dev/full"
c "$S" version-dev-full error okwrong bash -c "'$BIN' --version >/dev/full"
c "$S" summary-dev-full error okwrong bash -c "'$BIN' run '$MIN' --set duration=10s >/dev/full"
c "$S" results-dev-full error okwrong "$BIN" run "$MIN" --set duration=10s -q -o /dev/full
c "$S" output-fifo-no-reader error okwrong "$BIN" run "$MIN" --set duration=10s -q -o "$IN/fifo-out"
c "$S" output-missing-folder refused okwrong "$BIN" run "$MIN" --set duration=10s -q -o no/such/out.json
c "$S" openmetrics-start-year-0 refused okwrong "$BIN" run "$MIN" -q --openmetrics out.om --openmetrics-start 0000-01-01T00:00:00Z
c "$S" openmetrics-start-past-cap refused okwrong "$BIN" run "$MIN" -q --openmetrics out.om --openmetrics-start 9999-12-31T23:59:59.001Z
c "$S" openmetrics-run-ends-past-cap refused okwrong "$BIN" run "$MIN" -q --openmetrics out.om --openmetrics-start 9999-12-31T23:50:00Z
c "$S" openmetrics-at-cap ok om "$BIN" run "$MIN" -q --openmetrics out.om --openmetrics-start 9999-12-31T23:49:59Z
c "$S" timeseries-coarser-openmetrics refused om "$BIN" run "$MIN" --set duration=10s --set warmup=0 --set 'timeseries={"interval":"1min"}' -q --openmetrics out.om
c "$S" timeseries-coarser refused okwrong "$BIN" run "$MIN" --set duration=10s --set warmup=0 --set 'timeseries={"interval":"1min"}' -q -o out.json
c "$S" timeseries-equal-openmetrics ok om "$BIN" run "$MIN" --set duration=1min --set warmup=0 --set 'timeseries={"interval":"1min"}' -q --openmetrics out.om

# ---- Summary ----------------------------------------------------------------------------------------
if [[ -n $OUT_TSV ]]; then
  { printf 'surface\tid\texpected\toutcome\texit\tseconds\tstderr\tcommand\n'; cat "$ROWS"; } >"$OUT_TSV"
fi
echo
echo "## $(basename "$BIN"): $(wc -l <"$ROWS") hostile inputs by surface and outcome"
echo
classes="$(cut -f4 "$ROWS" | sort -u)"
{
  printf '| surface | cases |'
  for k in $classes; do printf ' %s |' "$k"; done
  printf '\n|---|---|'
  for k in $classes; do printf -- '---|'; done
  printf '\n'
  awk -F'\t' -v classes="$classes" '
    BEGIN { n = split(classes, k, "\n") }
    { if (!($1 in total)) order[++m] = $1; total[$1]++; all++; c[$1, $4]++; t[$4]++ }
    END {
      for (i = 1; i <= m; i++) {
        s = order[i]; printf "| %s | %d |", s, total[s]
        for (j = 1; j <= n; j++) printf " %s |", (c[s, k[j]] ? c[s, k[j]] : "")
        printf "\n"
      }
      printf "| all | %d |", all
      for (j = 1; j <= n; j++) printf " %d |", t[k[j]]
      printf "\n"
    }' "$ROWS"
}
echo
awk -F'\t' '$3 != $4 { n++; printf "- `%s` (%s): expected %s, got %s (exit %s, %s s): %s\n", $2, $1, $3, $4, $5, $6, $7 }
  END { if (!n) print "Every case ended as expected."; else printf "\n%d of %d cases not as expected.\n", n, NR }' "$ROWS"
