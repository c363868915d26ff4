#!/usr/bin/env bash
# The work estimate (runner/work_estimate.cpp) against what the engine did, for every shipped
# scenario (shortened as the golden set shortens them): a Markdown table on stdout with the
# engine events estimated and processed, their ratio, the wall time and the events per wall
# second. The estimate must err long (ratio >= 1) and the speed stay above the 2e6 events/s it
# assumes; docs/limits.md#the-time-budget keeps a run of it.
#
#   scripts/work-estimate.sh [BINARY]      (default build/sonicsim; a few minutes)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN="${1:-build/sonicsim}"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/sonicsim-work.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
source scripts/shortened-runs.sh

row() {
  python3 - "$BIN" "$SCRATCH/r.json" "$@" <<'PY'
import json, subprocess, sys
binary, out, label, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
run = subprocess.run([binary, "run", *args, "-q", "--time-budget", "unlimited", "-o", out],
                     capture_output=True, text=True)
if run.returncode != 0:
    print(f"| {label} | failed: {run.stderr.splitlines()[:1]} | | | | |")
    sys.exit(0)
perf = json.load(open(out))["perf"]
est, done, wall = perf["estimated_engine_events"], perf["engine_events"], perf["wall_time_s"]
ratio = est / done if done else float("inf")
speed = done / wall if wall > 0 else 0.0
print(f"| {label} | {est:.3g} | {done:.3g} | {ratio:.2f} | {wall:.2f} s | {speed:.3g} |")
PY
}

echo "| scenario | estimated events | processed | estimate / processed | wall | events per wall-second |"
echo "|---|---|---|---|---|---|"
while IFS= read -r f; do
  name="${f#scenarios/}"; name="${name%.json}"
  # shellcheck disable=SC2086
  row "$name" "$f" ${SHORT[$name]:-}
done < <(find scenarios -name '*.json' ! -name '*.uncertainty.json' ! -path '*/gallery/*/figures.json' | sort)
