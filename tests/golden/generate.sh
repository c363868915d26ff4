#!/usr/bin/env bash
# Writes the golden set: what sonicsim prints and writes for a fixed list of inputs, with the
# `perf` figures (wall time, RSS) removed and scratch paths replaced by `$OUT`. The set pins the
# behaviour users rely on: every byte of it must stay the same across refactors. A change is
# either a bug or a change of behaviour explained in its commit.
#
#   tests/golden/generate.sh BINARY OUTDIR [--quick]
#
# cli_golden (tests/cli/golden.sh) writes the set into a scratch folder and compares it byte for
# byte with tests/golden/expected/. To accept a change of behaviour, regenerate the expected set:
#
#   tests/golden/generate.sh build/sonicsim tests/golden/expected
#
# --quick (the sanitizer pass): only the runs under each scenario's own seed and the cheap tools.
# Runs from the repository root; every case must exit 0 except the `errors` ones.
set -uo pipefail

if (($# < 2)); then
  echo "usage: $0 BINARY OUTDIR [--quick]" >&2
  exit 2
fi
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$2"
OUT="$(cd "$2" && pwd)"
QUICK=0
[[ "${3:-}" == --quick ]] && QUICK=1
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/sonicsim-golden.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
FAILED=0

source scripts/shortened-runs.sh
SEEDS=(own 2 3)
((QUICK)) && SEEDS=(own)

# strip_perf: the results JSON without its `perf` object (printed last, 2-space indent).
strip_perf() { sed '/^  "perf": {/,/^  }/d'; }
# Scratch paths in printed text become `$OUT`.
unscratch() { sed "s|$SCRATCH|\$OUT|g"; }

# case NAME CMD...: run CMD (exit 0 expected); its stdout is kept in NAME.out (the summary's
# `perf` line removed) unless NAME ends in "-", stderr is discarded.
case_ok() {
  local name="$1"; shift
  local keep=1 t0=$EPOCHREALTIME
  [[ $name == *- ]] && { keep=0; name="${name%-}"; }
  if ! "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr" </dev/null; then
    echo "golden: case $name failed: $*" >&2
    head -20 "$SCRATCH/stderr" >&2
    FAILED=1
    return
  fi
  [[ -n ${GOLDEN_TIMES:-} ]] && echo "$name $(bc <<<"$EPOCHREALTIME - $t0")" >&2
  if ((keep)); then
    grep -v '^perf  ' "$SCRATCH/stdout" | strip_perf | unscratch >"$OUT/$name.out"
  fi
}
# errors NAME CMD...: CMD must exit 2; its stderr goes to NAME.err.
errors() {
  local name="$1"; shift
  local status=0
  "$@" >/dev/null 2>"$SCRATCH/stderr" </dev/null || status=$?
  if ((status != 2)); then
    echo "golden: case $name exited $status (expected 2): $*" >&2
    FAILED=1
  fi
  unscratch <"$SCRATCH/stderr" >"$OUT/$name.err"
}
# keep FILE NAME: a written file, scratch paths replaced.
keep() { unscratch <"$1" >"$OUT/$2"; }
# results NAME: the results JSON the last case wrote to $SCRATCH/r.json, perf removed.
results() { strip_perf <"$SCRATCH/r.json" >"$OUT/$1.json"; rm -f "$SCRATCH/r.json"; }

# ---- every shipped scenario under a few seeds --------------------------------------------
# (The gallery's scenarios are pinned by cli_gallery instead: scripts/validate.sh --check holds
# every figure of every folder to its committed page, at the scenarios' own seeds.)
while IFS= read -r f; do
  rel="${f#scenarios/}"
  rel="${rel%.json}"
  name="run-${rel//\//-}"
  # shellcheck disable=SC2206
  short=(${SHORT[$rel]:-})
  for seed in "${SEEDS[@]}"; do
    args=()
    [[ $seed != own ]] && args=(--seed "$seed")
    case_ok "$name-seed$seed" "$BIN" run "$f" "${short[@]}" "${args[@]}" -o "$SCRATCH/r.json"
    results "$name-seed$seed"
  done
done < <(find scenarios -name '*.json' -not -name '*.uncertainty.json' -not -path 'scenarios/gallery/*' | LC_ALL=C sort)

# ---- site operations and network paths no shipped scenario exercises ----------------------
T2=scenarios/sites/tier2-keda.json
case_ok ops-faults "$BIN" run "$T2" --set duration=1h -o "$SCRATCH/r.json" \
  --set 'servers.0.autoscaler.min_replicas=2' --set 'servers.0.autoscaler.initial_replicas=2' \
  --set 'faults=[{"kind": "crash", "pool": "t4", "device": 0, "at": "40min", "for": "10min"},
                 {"kind": "random_crashes", "pool": "t4", "mtbf": "30min", "mttr": "3min"},
                 {"kind": "link", "link": "site_uplink", "at": "20min", "duration": "2min", "bandwidth_factor": 0.2},
                 {"kind": "preemption", "at": "30min", "jobs": 20, "restart_after": "2min"},
                 {"kind": "random_preemption", "mtbf": "3h"}]'
results ops-faults
case_ok ops-admission "$BIN" run "$T2" --set duration=1h -o "$SCRATCH/r.json" \
  --set 'load_balancer.admission={"rate": 0.5, "burst": 20, "refuse_above_threshold": true, "retry_after": "2min"}' \
  --set 'load_balancer.capacity={"per_message": "200us", "workers": 2, "bandwidth": "10Gbps"}'
results ops-admission
case_ok ops-no-fallback "$BIN" run "$T2" --set duration=40min -o "$SCRATCH/r.json" \
  --set 'workload.client={"timeout": "50ms", "allowed_tries": 3, "fallback": "none"}'
results ops-no-fallback
D=scenarios/default.json
DSHORT=(--set duration=3min --set warmup=20s)
# Every load-balancing policy, as the schema lists them (a unit test holds the schema to the
# policies' table, include/sonicsim/balancing/policies.hpp): a new policy gets its case here.
policies=$(jq -r '.. | objects | select(has("properties")) | .properties
  | select(has("policy") and has("admission")) | .policy.enum[]' docs/scenario.schema.json) ||
  { echo "generate.sh: cannot read the policies from docs/scenario.schema.json (jq)" >&2; exit 2; }
for policy in $policies; do
  case_ok "lb-$policy" "$BIN" run "$D" "${DSHORT[@]}" --set "load_balancer={\"policy\": \"$policy\"}" \
    -o "$SCRATCH/r.json"
  results "lb-$policy"
done
case_ok default-async "$BIN" run "$D" "${DSHORT[@]}" --set 'workload.mode="async"' -o "$SCRATCH/r.json"
results default-async
for model in flow analytic; do
  case_ok "uplink-$model" "$BIN" run scenarios/examples/bandwidth-bound-uplink.json \
    --set "network.flow_model=\"$model\"" -o "$SCRATCH/r.json"
  results "uplink-$model"
done
case_ok uplink-flow-outage "$BIN" run scenarios/examples/bandwidth-bound-uplink.json \
  --set 'network.flow_model="flow"' -o "$SCRATCH/r.json" \
  --set 'faults=[{"kind": "link", "link": "site_uplink", "at": "20s", "duration": "5s", "bandwidth_factor": 0.5},
                 {"kind": "link", "link": "client_nic", "at": "40s", "duration": "1s", "bandwidth_factor": 0}]'
results uplink-flow-outage
case_ok default-timeseries "$BIN" run "$D" "${DSHORT[@]}" --set timeseries=true \
  --prometheus "$SCRATCH/metrics.prom" --trace "$SCRATCH/trace.json" --trace-every 997 --trace-max 100 \
  -o "$SCRATCH/r.json"
results default-timeseries
keep "$SCRATCH/metrics.prom" default-timeseries.prom
keep "$SCRATCH/trace.json" default-timeseries.trace.json
case_ok tier2-metrics "$BIN" run "$T2" --set duration=30min --prometheus "$SCRATCH/metrics.prom" \
  -o "$SCRATCH/r.json"
results tier2-metrics
keep "$SCRATCH/metrics.prom" tier2-metrics.prom
# The simulated history for Prometheus (run --openmetrics): KEDA adding replicas, whose counters
# start at 0; a fixed start makes the timestamps reproducible.
case_ok tier2-openmetrics "$BIN" run "$T2" --set duration=15min --set 'timeseries={"interval":"30s"}' \
  --openmetrics "$SCRATCH/history.om" --openmetrics-start 2026-11-26T00:00:00Z --release cms-t2 \
  -o "$SCRATCH/r.json"
results tier2-openmetrics
keep "$SCRATCH/history.om" tier2-openmetrics.om
# With sites: each device's `site`, and a model's counters at the one site that serves it.
case_ok sites-metrics "$BIN" run scenarios/examples/sites-grid-to-gpu-site.json \
  --set duration=2min --set warmup=20s --prometheus "$SCRATCH/metrics.prom" -o "$SCRATCH/r.json"
rm -f "$SCRATCH/r.json"
keep "$SCRATCH/metrics.prom" sites-metrics.prom
case_ok knee-json "$BIN" run scenarios/examples/formula-knee.json --json

# ---- the formulas ---------------------------------------------------------------------------
for s in default examples/heterogeneous-devices examples/random-routing-mva sites/tier2-keda; do
  case_ok "analytic-${s//\//-}" "$BIN" analytic "scenarios/$s.json"
  case_ok "analytic-${s//\//-}-json" "$BIN" analytic "scenarios/$s.json" --json
done

# ---- sweep, plan, compare, report, calibration --------------------------------------------
K=scenarios/examples/formula-knee.json
case_ok sweep- "$BIN" sweep "$K" --param workload.jobs=2,4,8,16 --param servers.0.count=1,2 \
  --replications 2 --workers 2 -o "$SCRATCH/sweep.csv"
keep "$SCRATCH/sweep.csv" sweep.csv
sed 's/,"perf":{[^}]*}//' "$SCRATCH/sweep.jsonl" >"$OUT/sweep.jsonl"
case_ok sweep-zip- "$BIN" sweep "$K" --param workload.jobs=2,4,8 --param servers.0.count=1,2,4 \
  --zip workload.jobs,servers.0.count -o "$SCRATCH/zip.csv"
keep "$SCRATCH/zip.csv" sweep-zip.csv
PK=tests/data/plan_knee.json
case_ok plan-max-cpu "$BIN" plan "$PK" max-cpu --slowdown 0.5 --replications 2 --workers 2 \
  -o "$SCRATCH/plan.json"
keep "$SCRATCH/plan.json" plan-max-cpu.json
case_ok plan-min-devices "$BIN" plan "$PK" min-devices --set workload.jobs=200 --slowdown 0.5 \
  --replications 1 -o "$SCRATCH/plan.json"
keep "$SCRATCH/plan.json" plan-min-devices.json
case_ok plan-min-bandwidth "$BIN" plan tests/data/plan_narrow_uplink.json min-bandwidth \
  --replications 1 -o "$SCRATCH/plan.json"
keep "$SCRATCH/plan.json" plan-min-bandwidth.json
case_ok plan-cost "$BIN" plan "$PK" cost --gpu-hour-price 1 --core-hour-price 0.02 \
  --replications 1 -o "$SCRATCH/plan.json"
keep "$SCRATCH/plan.json" plan-cost.json
case_ok plan-analytic-only "$BIN" plan "$PK" max-cpu --slowdown 0.5 --analytic-only --json
case_ok compare "$BIN" compare "$K" scenarios/examples/scan-measurements.csv --vary workload.jobs \
  -o "$SCRATCH/compare.json" --csv "$SCRATCH/compare.csv"
keep "$SCRATCH/compare.json" compare.json
keep "$SCRATCH/compare.csv" compare.csv
case_ok calibrate-scan "$BIN" calibrate scan scenarios/examples/scan-measurements.csv \
  --scenario "$K" --vary workload.jobs -o "$SCRATCH/fitted.json"
# The fitted scenario points at the schema relative to where it was written: the checkout's path.
sed 's|"\$schema": ".*docs/scenario.schema.json"|"$schema": "$REPO/docs/scenario.schema.json"|' \
  "$SCRATCH/fitted.json" >"$OUT/calibrate-scan.json"
case_ok perf-analyzer- "$BIN" perf-analyzer --scenario "$D" -m particlenet_ak4 \
  --concurrency-range 1:3 -b 16 -o "$SCRATCH/pa_b16.csv"
keep "$SCRATCH/pa_b16.csv" perf-analyzer.csv
case_ok perf-analyzer-rate- "$BIN" perf-analyzer --scenario "$D" -m deepmet \
  --request-rate-range 100:300:100 -b 4 -o "$SCRATCH/pa_b4.csv"
keep "$SCRATCH/pa_b4.csv" perf-analyzer-rate.csv
# The round trip: the emulated scans back through the calibration.
case_ok calibrate-perf-analyzer "$BIN" calibrate perf-analyzer "$SCRATCH/pa_b16.csv" \
  --model pn -o "$SCRATCH/cal.json"
keep "$SCRATCH/cal.json" calibrate-perf-analyzer.json
# A worker node from the shipped synthetic per-job throughputs (the cap asked, not identified).
case_ok calibrate-nodes "$BIN" calibrate nodes calibration/nodes-example.csv --cores 32 \
  --threads-per-core 2 --memory-bandwidth -o "$SCRATCH/node.json"
keep "$SCRATCH/node.json" calibrate-nodes.json
# Reports over two runs and the sweep (the runs of the sections above, perf kept out).
case_ok report-a- "$BIN" run "$D" "${DSHORT[@]}" --set timeseries=true -o "$SCRATCH/a.json"
case_ok report-b- "$BIN" run "$D" "${DSHORT[@]}" --set timeseries=true --set servers.0.count=10 \
  -o "$SCRATCH/b.json"
case_ok report-text "$BIN" report "$SCRATCH/a.json" "$SCRATCH/b.json"
case_ok report-md "$BIN" report "$SCRATCH/a.json" "$SCRATCH/b.json" --format md
case_ok report-html- "$BIN" report "$SCRATCH/a.json" "$SCRATCH/b.json" -o "$SCRATCH/report.html"
unscratch <"$SCRATCH/report.html" >"$OUT/report.html"
case_ok report-sweep "$BIN" report "$SCRATCH/sweep.csv" --format md --csv-dir "$SCRATCH/tables"
for t in "$SCRATCH"/tables/*.csv; do keep "$t" "report-sweep-table-${t##*/}"; done
case_ok report-sweep-html- "$BIN" report "$SCRATCH/sweep.csv" -o "$SCRATCH/sweep.html"
unscratch <"$SCRATCH/sweep.html" >"$OUT/report-sweep.html"

# ---- what the loader says of bad input (every section) --------------------------------------
V=(validate "$D")
errors bad-workload "$BIN" "${V[@]}" --set 'workload.jobs="many"' --set workload.threads_per_job=0 \
  --set 'workload.mode="turbo"' --set 'workload.cpu_time_per_event="1 parsec"' \
  --set 'workload.requests.0.model="nope"' --set workload.requests.1.offload_fraction=2 \
  --set 'workload.requests.2.items={"dist": "uniform", "cv": 1}' --set workload.unknown=1
errors bad-models "$BIN" "${V[@]}" --set 'models.deepmet.service_time={"batch": [2, 1], "seconds": [1, 2]}' \
  --set models.deeptau.max_batch_size=4.5 --set 'models.particlenet_ak4.input_bytes_per_item="lots"' \
  --set 'models.particlenet_ak4.dynamic_batching={"preferred_batch_size": [9999], "max_queue_delay": "-1s"}'
errors bad-servers "$BIN" "${V[@]}" --set servers.0.count=-1 --set 'servers.0.models=["nope"]' \
  --set 'servers.0.device=7' --set 'servers.0.autoscaler={"metric": "queue_time", "min_replicas": 5, "max_replicas": 2}'
errors bad-network "$BIN" "${V[@]}" --set 'network.client_nic.bandwidth="fast"' \
  --set 'network.site_uplink.latency=-1' --set 'network.flow_model="exact"' --set 'network.wan={}'
errors bad-operations "$BIN" validate "$T2" --set 'load_balancer.policy="fastest"' \
  --set 'load_balancer.admission={"rate": -1, "burst": 0}' \
  --set 'load_balancer.capacity={"workers": 0}' --set 'workload.client={"timeout": 0, "allowed_tries": 0, "fallback": "gpu"}'
errors bad-faults "$BIN" "${V[@]}" --set 'faults=[{"kind": "crash", "pool": "nope", "at": "1min"},
  {"kind": "meteor"}, {"kind": "link", "link": "wan", "at": "1s", "duration": 0},
  {"kind": "random_preemption"}, {"kind": "preemption", "at": "1min", "jobs": 0}]'
errors bad-workloads "$BIN" validate scenarios/examples/shared-priorities.json \
  --set 'workloads.0.name="batch"' --set workloads.1.priority=-3 \
  --set 'models.particlenet_ak4.dynamic_batching.priority_levels=0'
errors bad-time "$BIN" "${V[@]}" --set 'duration="10 fortnights"' --set 'warmup="2h"' --set seed=-4
errors bad-triton "$BIN" validate scenarios/examples/triton-config.json \
  --set 'models.particlenet_ak4.triton_config="tests/data/triton/malformed.pbtxt"'
errors bad-triton-typo "$BIN" validate scenarios/examples/triton-config.json \
  --set 'models.particlenet_ak4.triton_config="tests/data/triton/typo.pbtxt"'
errors bad-calibration "$BIN" validate tests/data/with_calibration.json \
  --set 'models.pn.calibration="tests/data/calibration/broken.json"'
errors bad-json "$BIN" run tests/data/perf_analyzer/native_batch4.csv -o "$SCRATCH/x.json"
errors bad-missing "$BIN" run tests/data/no-such-file.json
errors bad-perf-analyzer "$BIN" calibrate perf-analyzer tests/data/perf_analyzer/missing_column_batch1.csv \
  tests/data/perf_analyzer/short_row_batch1.csv --model pn
errors bad-sweep "$BIN" sweep "$K" --param workload.jobs=5:1:1 -o "$SCRATCH/s.csv"
errors bad-plan "$BIN" plan "$PK" max-cpu --slowdown -1
errors bad-set "$BIN" run "$D" --set 'servers.7.count=1'

# ---- a deployment's own files: the twin of docs/deployment.md ------------------------------
# SuperSONIC values mapped over an overlay (the scenario and the report), a day of Prometheus
# exports as a measurements file and its client load, and the twin held against that day.
case_ok import-supersonic "$BIN" import supersonic tests/data/supersonic/keda.yaml \
  -f tests/data/supersonic/later.yaml --overlay tests/data/supersonic/overlay.json \
  -o "$SCRATCH/twin.json" --report "$SCRATCH/twin-report.json"
keep "$SCRATCH/twin.json" import-supersonic.json
keep "$SCRATCH/twin-report.json" import-supersonic-report.json
case_ok import-prometheus "$BIN" import prometheus tests/data/prometheus/day.json \
  tests/data/prometheus/envoy.json -o "$SCRATCH/day.json" --flow-overlay "$SCRATCH/load.json"
keep "$SCRATCH/day.json" import-prometheus.json
keep "$SCRATCH/load.json" import-prometheus-load.json
case_ok import-supersonic-load "$BIN" import supersonic tests/data/twin/site.yaml \
  --overlay tests/data/twin/base.json --overlay tests/data/twin/truth-load.json -o "$SCRATCH/site.json"
keep "$SCRATCH/site.json" import-supersonic-load.json
case_ok compare-history "$BIN" compare tests/data/twin/day-twin.json "$SCRATCH/day.json" \
  -o "$SCRATCH/cmp.json"
keep "$SCRATCH/cmp.json" compare-history.json
errors bad-supersonic "$BIN" import supersonic tests/data/supersonic/wrong_types.yaml \
  --overlay tests/data/supersonic/overlay.json -o "$SCRATCH/x.json"
errors bad-prometheus "$BIN" import prometheus tests/data/prometheus/rate.json -o "$SCRATCH/x.json"

exit $FAILED
