#!/usr/bin/env bash
# sonicsim's max-min flows against SimGrid's, the reference: runs each scenario with every payload
# a flow of each solver (network.flow_model "flow" with the class solver, "flow" with
# SONICSIM_FLOW_SOLVER=flows, the per-flow reference, then "simgrid"), same seed, and prints the
# figures the flow model must keep (throughput, the busiest link's mean utilization, request
# latency p50 and p99) side by side with the class solver's differences from each, and the wall
# time of each.
#
#   scripts/flow-compare.sh SCENARIO.json[=DURATION] ...   e.g. scenarios/bench/bandwidth-bound-10k.json=5min
#   FLOW_COMPARE_ARGS='--set seed=2'                        extra `sonicsim run` arguments
#   FLOW_COMPARE_SIMGRID=0                                  skip SimGrid (slow at a saturated link)
# Results: out/flow-compare/<scenario>-{flow,perflow,simgrid}.json
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"
(($#)) || die "usage: scripts/flow-compare.sh SCENARIO.json[=DURATION] ..."
BIN="${SONICSIM_BUILD_DIR:-build}/sonicsim"
[[ -x "$BIN" ]] || die "$BIN not built (scripts/setup.sh)"
read -ra EXTRA <<<"${FLOW_COMPARE_ARGS:-}"
OUTDIR=out/flow-compare
mkdir -p "$OUTDIR"

# figures FILE: throughput, busiest link mean utilization, p50, p99, wall seconds
figures() {
  jq -r '[.events.throughput_per_s,
          ([.links[]?.mean_utilization] | max // 0),
          .requests.latency_s.p50, .requests.latency_s.p99, .perf.wall_time_s] | @tsv' "$1"
}

SIMGRID="${FLOW_COMPARE_SIMGRID:-1}"
printf '%-34s %-10s %14s %14s %14s %11s %11s\n' scenario figure classes per-flow simgrid \
  vs-perflow vs-simgrid
for arg in "$@"; do
  scenario="${arg%%=*}"
  args=()
  if [[ "$arg" == *=* ]]; then
    args=(--set "duration=\"${arg#*=}\"")
  fi
  name="$(basename "$scenario" .json)"
  solvers=(flow perflow)
  ((SIMGRID)) && solvers+=(simgrid)
  for solver in "${solvers[@]}"; do
    model_name="$solver"
    [[ "$solver" == perflow ]] && model_name=flow
    # With sites a scenario may have no top-level `network`: then it is only the choice.
    if jq -e 'has("network")' "$scenario" >/dev/null; then
      model=(--set "network.flow_model=\"$model_name\"")
    else
      model=(--set "network={\"flow_model\": \"$model_name\"}")
    fi
    env_solver=classes
    [[ "$solver" == perflow ]] && env_solver=flows
    SONICSIM_FLOW_SOLVER="$env_solver" "$BIN" run "$scenario" "${args[@]}" "${EXTRA[@]}" "${model[@]}" -q \
      -o "$OUTDIR/$name-$solver.json" || die "sonicsim run $scenario ($solver) failed"
  done
  read -r t1 u1 p501 p991 w1 < <(figures "$OUTDIR/$name-flow.json")
  read -r t3 u3 p503 p993 w3 < <(figures "$OUTDIR/$name-perflow.json")
  t2=0 u2=0 p502=0 p992=0 w2=0
  ((SIMGRID)) && read -r t2 u2 p502 p992 w2 < <(figures "$OUTDIR/$name-simgrid.json")
  row() {
    awk -v n="$name" -v f="$1" -v a="$2" -v r="$3" -v b="$4" -v fmt="$5" 'BEGIN {
      dr = (r != 0) ? sprintf("%+.2e", (a - r) / r) : "-";
      d = (b != 0) ? sprintf("%+.3f%%", 100 * (a - b) / b) : "-";
      printf "%-34s %-10s " fmt " " fmt " " fmt " %11s %11s\n", n, f, a, r, b, dr, d }'
  }
  row throughput "$t1" "$t3" "$t2" "%14.2f"
  row link_util "$u1" "$u3" "$u2" "%14.5f"
  row p50_s "$p501" "$p503" "$p502" "%14.6g"
  row p99_s "$p991" "$p993" "$p992" "%14.6g"
  awk -v n="$name" -v a="$w1" -v r="$w3" -v b="$w2" 'BEGIN {
    printf "%-34s %-10s %13.2fs %13.2fs %13.2fs %10.2fx %10.2fx\n", n, "wall", a, r, b, r / a, b / a }'
done
