#!/usr/bin/env bash
# Side-by-side speed of two sonicsim binaries, run at the same time: each round starts A on one
# core and B on the other, together, and swaps the cores the next round; it prints each round's
# B/A ratio and their median. On a shared machine whose noise (other tenants, the L3 cache and
# memory they share) comes and goes over minutes, running both at once makes both see the same
# noise: the ratio is steadier than two medians measured one after the other
# (scripts/bench-compare.sh). Both binaries share the memory bandwidth, so the rates are lower
# than a run alone; the ratio is what it measures. Needs 2 cores.
#
#   scripts/pair-compare.sh A_BINARY B_BINARY SCENARIO.json[=DURATION] [ROUNDS]
#
#   ROUNDS: default 4
#   PAIR_ARGS="--set warmup=1s"   more arguments for both runs (split on spaces)
# Results: out/pair-compare/<scenario>-<A|B>-<round>.json; the script checks that both give the
# same results (the `perf` block aside) and fails if they do not.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

(($# >= 3)) || die "usage: scripts/pair-compare.sh A_BINARY B_BINARY SCENARIO.json[=DURATION] [ROUNDS]"
A="$1" B="$2" spec="$3" ROUNDS="${4:-4}"
for bin in "$A" "$B"; do [[ -x "$bin" ]] || die "$bin: not an executable"; done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS=$ROUNDS: expected a whole number >= 1"
file="${spec%%=*}"
[[ -f "$file" ]] || die "$file: no such scenario"
args=()
[[ "$spec" == *=* ]] && args=(--set "duration=${spec#*=}")
[[ -n "${PAIR_ARGS:-}" ]] && read -ra extra <<<"$PAIR_ARGS" && args+=("${extra[@]}")
ensure_packages jq
OUTDIR=out/pair-compare
mkdir -p "$OUTDIR"
name="$(basename "$file" .json)"

rate() { jq -r .perf.simulated_requests_per_wall_s "$1"; }
ratios=()
printf '%-6s %14s %14s %8s\n' round "A req/wall-s" "B req/wall-s" "B/A"
for ((i = 1; i <= ROUNDS; i++)); do
  ca=$((i % 2 ? 0 : 1)) cb=$((i % 2 ? 1 : 0))
  oa="$OUTDIR/$name-A-$i.json" ob="$OUTDIR/$name-B-$i.json"
  taskset -c "$ca" "$A" run "$file" "${args[@]}" -o "$oa" >/dev/null 2>"$OUTDIR/$name-A-$i.err" &
  pa=$!
  taskset -c "$cb" "$B" run "$file" "${args[@]}" -o "$ob" >/dev/null 2>"$OUTDIR/$name-B-$i.err" &
  pb=$!
  wait "$pa" || { cat "$OUTDIR/$name-A-$i.err" >&2; die "$A run $file failed"; }
  wait "$pb" || { cat "$OUTDIR/$name-B-$i.err" >&2; die "$B run $file failed"; }
  cmp -s <(jq -S 'del(.perf)' "$oa") <(jq -S 'del(.perf)' "$ob") ||
    die "round $i: A and B give different results ($oa, $ob)"
  ra="$(rate "$oa")" rb="$(rate "$ob")"
  ratio="$(awk -v a="$ra" -v b="$rb" 'BEGIN{printf "%.3f", b / a}')"
  ratios+=("$ratio")
  printf '%-6s %14.0f %14.0f %8s\n' "$i" "$ra" "$rb" "$ratio"
done
printf 'median B/A: %s (same results in every round)\n' \
  "$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')"
