#!/usr/bin/env bash
# Sweep speed-up benchmark: times one 64-point sweep (N_CPU = 1..64 threads of the exact-MVA
# example, 30 simulated minutes per point, ~0.05-0.5 s of simulation each) with --workers 1 and
# --workers 2, REPEAT times each, and prints the medians and the speed-up. Each point runs in its
# own forked process, so on a 2-core machine the ideal is 2x; fork, pipe and result handling in
# the parent are what keep it below. The CPU seconds (children included) show the work, which
# should not grow with K. Linux's autogroup scheduler shares the cores between sessions, not
# processes: while another session keeps a core busy, K=2 cannot get the second one and the
# speed-up collapses to ~1x; the load average printed says whether that was the case.
#
#   scripts/bench-sweep.sh              uses build/sonicsim (scripts/setup.sh builds it)
#   SONICSIM_BIN=path/to/sonicsim BENCH_REPEAT=3 scripts/bench-sweep.sh
# Output files: out/bench-sweep/k{1,2}-{i}.csv (the tables must be identical: checked).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN="${SONICSIM_BIN:-build/sonicsim}"
REPEAT="${BENCH_REPEAT:-3}"
[[ -x "$BIN" ]] || { echo "no $BIN: run scripts/setup.sh or set SONICSIM_BIN" >&2; exit 2; }
OUT=out/bench-sweep
mkdir -p "$OUT"
ARGS=(scenarios/examples/random-routing-mva.json --set workload.threads_per_job=1
  --set duration=30min --param workload.jobs=1:64:1)

# K=1 and K=2 alternate, so that load from other users of the machine falls on both alike; the
# load average is printed because the 2x this measures needs both cores free.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A times
for i in $(seq "$REPEAT"); do
  for k in 1 2; do
    # bash's `time` counts the children's CPU too: the work done, whatever the wall clock says.
    TIMEFORMAT='%R %U %S'
    read -r t user sys < <({ time "$BIN" sweep "${ARGS[@]}" --workers "$k" -o "$OUT/k$k-$i.csv" \
      >/dev/null 2>&1; } 2>&1)
    times[$k]+="$t "
    echo "K=$k run $i: $t s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') s CPU"
  done
done
cmp -s "$OUT/k1-1.csv" "$OUT/k2-1.csv" || { echo "K=1 and K=2 tables differ" >&2; exit 1; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
m1=$(echo "${times[1]}" | median)
m2=$(echo "${times[2]}" | median)
echo "64-point sweep, median of $REPEAT: K=1 $m1 s, K=2 $m2 s, speed-up $(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2f", a / b }')x (same table: yes)"
