#!/usr/bin/env bash
# Side-by-side speed of two sonicsim binaries (say, before and after a refactor): runs each
# scenario with both, alternating A, B, A, B ... back to back on one pinned core, and prints the
# median simulated requests per wall-second of each and B's change against A. Alternating and
# pinning is what makes a few percent visible on a shared machine: noise that comes and goes
# hits both binaries alike.
#
#   scripts/bench-compare.sh A_BINARY B_BINARY [SCENARIO.json[=DURATION]...]
#
#   default scenarios: scenarios/bench/*.json shortened to latency-bound-10k=20min,
#   latency-bound-100k=5min, bandwidth-bound-10k=150s (each includes its 2 min warm-up)
#   BENCH_ROUNDS=5        runs of each binary per scenario (the median is printed)
#   BENCH_CPU=1           the core both run on (taskset); empty: not pinned
#   BENCH_ARGS='--set warmup="3s"'   extra `sonicsim run` arguments for both
# Results: out/bench-compare/<scenario>-<A|B>-<round>.json
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

(($# >= 2)) || die "usage: scripts/bench-compare.sh A_BINARY B_BINARY [SCENARIO.json[=DURATION]...]"
A="$1" B="$2"
shift 2
for bin in "$A" "$B"; do [[ -x "$bin" ]] || die "$bin: not an executable"; done
ROUNDS="${BENCH_ROUNDS:-5}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS=$ROUNDS: expected a whole number >= 1"
CPU="${BENCH_CPU-1}"
pin=()
[[ -n "$CPU" ]] && pin=(taskset -c "$CPU")
if (($#)); then
  specs=("$@")
else
  specs=(scenarios/bench/latency-bound-10k.json=20min scenarios/bench/latency-bound-100k.json=5min
         scenarios/bench/bandwidth-bound-10k.json=150s)
fi
ensure_packages jq
OUTDIR=out/bench-compare
mkdir -p "$OUTDIR"

rate() { jq -r .perf.simulated_requests_per_wall_s "$1"; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-24s %14s %14s %8s   %s\n' scenario "A req/wall-s" "B req/wall-s" "B vs A" "runs (A | B)"
for spec in "${specs[@]}"; do
  file="${spec%%=*}"
  [[ -f "$file" ]] || die "$file: no such scenario"
  read -ra args <<<"${BENCH_ARGS:-}"
  [[ "$spec" == *=* ]] && args+=(--set "duration=${spec#*=}")
  name="$(basename "$file" .json)"
  ra=() rb=()
  for ((i = 1; i <= ROUNDS; i++)); do
    for side in A B; do
      bin="$A"; [[ $side == B ]] && bin="$B"
      out="$OUTDIR/$name-$side-$i.json"
      "${pin[@]}" "$bin" run "$file" "${args[@]}" -o "$out" >/dev/null 2>"$OUTDIR/$name-$side-$i.err" \
        || { cat "$OUTDIR/$name-$side-$i.err" >&2; die "$bin run $file failed"; }
      if [[ $side == A ]]; then ra+=("$(rate "$out")"); else rb+=("$(rate "$out")"); fi
    done
  done
  ma="$(median "${ra[@]}")" mb="$(median "${rb[@]}")"
  printf '%-24s %14.0f %14.0f %+7.1f%%   %s | %s\n' "$name" "$ma" "$mb" \
    "$(awk -v a="$ma" -v b="$mb" 'BEGIN{print 100 * (b / a - 1)}')" \
    "$(printf '%.0f ' "${ra[@]}")" "$(printf '%.0f ' "${rb[@]}")"
done
