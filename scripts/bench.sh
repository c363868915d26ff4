#!/usr/bin/env bash
# Speed benchmark: runs build/sonicsim on every scenarios/bench/*.json REPEAT times (default 3)
# and prints the median simulated requests per wall-second and peak RSS of each; then runs the
# SimPy reference model (analysis/simpy_closed_loop.py) on the 10k-thread latency-bound scenario
# for a short simulated time and prints the speed ratio sonicsim / SimPy.
#
#   scripts/bench.sh [SCENARIO.json...]      default: scenarios/bench/*.json
#
#   BENCH_REPEAT=3               runs per scenario
#   BENCH_ARGS='...'             extra `sonicsim run` arguments, split on spaces, e.g.
#                                BENCH_ARGS='--set duration="10min"' for a quicker pass (the
#                                full set takes ~50 min, most of it the 100k- and 1M-thread
#                                benchmarks)
#   BENCH_SIMPY_SCENARIO=FILE    scenario for the SimPy comparison (default: the bench file whose
#                                name looks like latency-bound-10k, else *latency*, else *10k*;
#                                never one with sites)
#   BENCH_SIMPY_DURATION=60s     simulated time of the SimPy run (short: SimPy is slow)
#   BENCH_SIMPY=0                skip the SimPy comparison
#   BENCH_SIMGRID=1              also run every scenario whose payloads are all flows
#                                (network.flow_model "flow": sonicsim's max-min solver) on
#                                SimGrid's flows, the reference, right after it: a row
#                                "NAME (simgrid)" and the speed-up (adds ~35 min for the hour of
#                                bandwidth-bound-10k; BENCH_ARGS shortens it)
# Results: out/bench/<scenario>-<i>.json, summary in out/bench/summary.json.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

REPEAT="${BENCH_REPEAT:-3}"
read -ra EXTRA <<<"${BENCH_ARGS:-}"
PY=/usr/bin/python3   # Debian's interpreter: python3-simpy3 is installed for it
ensure_packages "${BUILD_PKGS[@]}" "${BENCH_PKGS[@]}"
scripts/setup.sh
BIN="${SONICSIM_BUILD_DIR:-build}/sonicsim"

if (($#)); then scenarios=("$@"); else scenarios=(scenarios/bench/*.json); fi
[[ -e "${scenarios[0]}" ]] || die "no benchmark scenarios (scenarios/bench/*.json)"
OUTDIR=out/bench
mkdir -p "$OUTDIR"

# median FILE... : prints "rate rss" medians over the given results files
median() {
  "$PY" - "$@" <<'PY'
import json, statistics, sys
rates, rss = [], []
for f in sys.argv[1:]:
    perf = json.load(open(f))["perf"]
    rates.append(float(perf["simulated_requests_per_wall_s"]))
    rss.append(float(perf["peak_rss_bytes"]))
print(statistics.median(rates), statistics.median(rss))
PY
}

declare -A RATE
rows=()
speedups=()
# bench SCENARIO NAME [ARGS...]: REPEAT runs; appends a row, prints nothing, sets LAST_RATE
bench() {
  local s="$1" name="$2" files=() f i rate rss
  shift 2
  for ((i = 1; i <= REPEAT; i++)); do
    f="$OUTDIR/$name-$i.json"
    log "$name: run $i/$REPEAT"
    "$BIN" run "$s" "${EXTRA[@]}" "$@" -o "$f" >"$OUTDIR/$name-$i.log" 2>&1 \
      || { cat "$OUTDIR/$name-$i.log" >&2; die "sonicsim run $s failed"; }
    files+=("$f")
  done
  read -r rate rss < <(median "${files[@]}")
  rows+=("$name $rate $rss")
  LAST_RATE="$rate"
}
for s in "${scenarios[@]}"; do
  name="$(basename "$s" .json)"
  bench "$s" "$name"
  RATE[$s]="$LAST_RATE"
  if [[ "${BENCH_SIMGRID:-0}" != 0 ]] &&
    [[ "$(jq -r '.network.flow_model // "auto"' "$s")" == flow ]]; then
    ours="$LAST_RATE"
    bench "$s" "$name-simgrid" --set 'network.flow_model="simgrid"'
    speedups+=("$(printf '%s: max-min flows %.0f, SimGrid flows %.0f simulated requests/wall-s: %.2fx' \
      "$name" "$ours" "$LAST_RATE" "$(awk -v a="$ours" -v b="$LAST_RATE" 'BEGIN{print a/b}')")")
  fi
done

echo
printf '%-40s %22s %14s\n' scenario "sim. requests/wall-s" "peak RSS MB"
for r in "${rows[@]}"; do
  read -r name rate rss <<<"$r"
  printf '%-40s %22.0f %14.1f\n' "$name" "$rate" "$(awk -v b="$rss" 'BEGIN{print b/1048576}')"
done

for line in "${speedups[@]}"; do printf '\n%s' "$line"; done
((${#speedups[@]})) && echo

simpy_json=null
if [[ "${BENCH_SIMPY:-1}" != 0 ]]; then
  target="${BENCH_SIMPY_SCENARIO:-}"
  if [[ -z "$target" ]]; then
    for pat in '*10k*latency*' '*latency*10k[^0-9]*' '*latency*' '*10k*'; do
      for s in "${scenarios[@]}"; do
        # The SimPy model is one site: a scenario with sites would be compared with something else.
        jq -e 'has("sites")' "$s" >/dev/null && continue
        [[ "$(basename "$s")" == $pat ]] && { target="$s"; break 2; }
      done
    done
  fi
  if [[ -n "$target" ]]; then
    dur="${BENCH_SIMPY_DURATION:-60s}"
    log "SimPy reference model on $target (duration $dur)"
    "$PY" analysis/simpy_closed_loop.py "$target" --duration "$dur" -o "$OUTDIR/simpy.json" >/dev/null
    simpy_rate="$(jq -r .simulated_requests_per_wall_s "$OUTDIR/simpy.json")"
    ours="${RATE[$target]:-}"
    if [[ -z "$ours" ]]; then  # the comparison scenario was not in the list: run it once
      "$BIN" run "$target" "${EXTRA[@]}" -o "$OUTDIR/simpy-target.json" >/dev/null
      read -r ours _ < <(median "$OUTDIR/simpy-target.json")
    fi
    printf '\nSimPy on %s: %.0f simulated requests/wall-s; sonicsim: %.0f; ratio sonicsim/SimPy: %.1fx\n' \
      "$(basename "$target" .json)" "$simpy_rate" "$ours" "$(awk -v a="$ours" -v b="$simpy_rate" 'BEGIN{print a/b}')"
    simpy_json="$(jq -c --arg s "$target" --argjson ours "$ours" \
      '{scenario: $s, simpy: ., sonicsim_requests_per_wall_s: $ours,
        ratio: ($ours / .simulated_requests_per_wall_s)}' "$OUTDIR/simpy.json")"
  else
    log "no 10k latency-bound scenario found; SimPy comparison skipped"
  fi
fi

{
  printf '{"repeat": %s, "scenarios": [' "$REPEAT"
  sep=""
  for r in "${rows[@]}"; do
    read -r name rate rss <<<"$r"
    printf '%s{"name": "%s", "median_simulated_requests_per_wall_s": %s, "median_peak_rss_bytes": %s}' \
      "$sep" "$name" "$rate" "$rss"
    sep=", "
  done
  printf '], "simpy_comparison": %s}\n' "$simpy_json"
} | jq . >"$OUTDIR/summary.json"
log "summary: $OUTDIR/summary.json"
