#!/usr/bin/env bash
# The memory estimate (runner/memory.cpp) against the measured peak RSS, for every shipped
# scenario and a few large synthetic ones: a Markdown table on stdout with the error in percent
# ((estimate - measured) / measured). docs/limits.md#memory keeps its output; rerun it after a
# change to the engine's data structures, and update the costs in memory.cpp when it drifts.
#
#   scripts/memory-estimate.sh [BINARY]      (default build/sonicsim; about two minutes)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN="${1:-build/sonicsim}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/sonicsim-memory.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT

source scripts/shortened-runs.sh
D="scenarios/default.json --set duration=10s --set warmup=0"
SYNTHETIC=(
  "300k servers|$D --set servers.0.count=300000"
  "1.2M client threads|$D --set workload.jobs=300000 --set workload.jobs_per_node=1000"
  "async, 2.4M events in flight|$D --set workload.jobs=6000 --set workload.jobs_per_node=1000 --set workload.mode=async --set workload.async={\"events_in_flight\":100}"
  "300k time-series windows, 80 servers|$D --set duration=3000s --set workload.jobs=1 --set workload.threads_per_job=1 --set timeseries={\"interval\":0.01} --set servers.0.count=80"
  "3e6 s of link counters|$D --set duration=3e6 --set workload.jobs=1 --set workload.threads_per_job=1 --set workload.cpu_time_per_event=1000"
  "default 1 h, 0.1 s windows|scenarios/default.json --set timeseries={\"interval\":0.1}"
  "default 1 h, 1 s windows, replicas|scenarios/default.json --set timeseries={\"interval\":1,\"replicas\":true}"
  "default 1 h, --openmetrics (5 s)|scenarios/default.json --openmetrics $SCRATCH/om.txt"
  "30k traced requests|$D --set workload.cpu_time_per_event=0.005 --trace $SCRATCH/trace.json --trace-every 1 --trace-max 30000"
)

# row LABEL ARGS...: one run with -o; its estimate from the results' perf object, its peak RSS
# as the kernel counts it for the whole process (the results' own peak_rss_bytes is taken before
# the results and the trace are rendered).
row() {
  python3 - "$BIN" "$SCRATCH/r.json" "$@" <<'PY'
import json, resource, subprocess, sys
binary, out, label, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
run = subprocess.run([binary, "run", *args, "-q", "--memory-budget", "unlimited", "-o", out],
                     capture_output=True, text=True)
if run.returncode != 0:
    print(f"| {label} | failed: {run.stderr.splitlines()[:1]} | | |")
    sys.exit(0)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
est = json.load(open(out))["perf"]["estimated_peak_rss_bytes"]
print(f"| {label} | {est / 1e6:,.0f} MB | {rss / 1e6:,.0f} MB | {100 * (est - rss) / rss:+.0f}% |")
PY
}

echo "| scenario | estimate | measured peak RSS | error |"
echo "|---|---|---|---|"
while IFS= read -r f; do
  name="${f#scenarios/}"; name="${name%.json}"
  # shellcheck disable=SC2086
  row "$name" "$f" ${SHORT[$name]:-}
done < <(find scenarios -name '*.json' ! -name '*.uncertainty.json' | sort)
for s in "${SYNTHETIC[@]}"; do
  # shellcheck disable=SC2086
  row "${s%%|*}" ${s#*|}
done
