#!/usr/bin/env bash
# The gallery's validation: reproduces every published figure of scenarios/gallery/*/figures.json
# (sonicsim reproduce), draws each folder's plot (sonicsim sweep + sonicsim report --svg-dir), and
# writes what came out where readers look: the block between the figures markers of each
# folder's README.md and of docs/validation.md, and each folder's plot.svg. Nothing there is
# written by hand, so no page can say what the simulator no longer does.
#
#   scripts/validate.sh [--check] [--binary PATH] [--workers N]
#
# --check writes nothing in the tree: it renders into a scratch folder and fails (exit 1, with
# the diff) when a committed page or plot differs from what the simulator says now. Exit 3 when
# a figure is outside its tolerance (known misses excepted), 2 on bad input, 1 on a stale page or
# another failure; the pages are still (re)written, or diffed, when figures are outside.
# Needs jq (the plot's sweep is read from figures.json).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
CHECK=0
BIN=build/sonicsim
WORKERS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) CHECK=1 ;;
    --binary) BIN="$2"; shift ;;
    --workers) WORKERS=(--workers "$2"); shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "validate.sh: unknown argument $1 (expected --check, --binary PATH, --workers N)" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$BIN" ] || { echo "validate.sh: $BIN is not an executable (build it: scripts/setup.sh)" >&2; exit 2; }
command -v jq >/dev/null || { echo "validate.sh: needs jq (apt-get install jq)" >&2; exit 2; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mapfile -t FILES < <(find scenarios/gallery -mindepth 2 -maxdepth 2 -name figures.json | LC_ALL=C sort)
[ ${#FILES[@]} -gt 0 ] || { echo "validate.sh: no scenarios/gallery/*/figures.json" >&2; exit 2; }

mkdir -p "$WORK/md"
rc=0
"$BIN" reproduce "${FILES[@]}" "${WORKERS[@]}" --markdown-dir "$WORK/md" --json "$WORK/reproduce.json" \
  >"$WORK/reproduce.txt" || rc=$?
cat "$WORK/reproduce.txt"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
  echo "validate.sh: sonicsim reproduce failed (exit $rc)" >&2
  exit "$rc"
fi

# splice FILE BLOCK OUT: FILE with the lines between the markers replaced by BLOCK's.
splice() {
  local file="$1" block="$2" out="$3"
  grep -q '^<!-- figures:begin -->$' "$file" && grep -q '^<!-- figures:end -->$' "$file" || {
    echo "validate.sh: $file lacks the lines <!-- figures:begin --> and <!-- figures:end -->" >&2
    exit 2
  }
  awk -v block="$block" '
    /^<!-- figures:begin -->$/ { print; print "<!-- written by scripts/validate.sh: do not edit -->"; print ""
                                 while ((getline line < block) > 0) print line; skip = 1; next }
    /^<!-- figures:end -->$/   { skip = 0 }
    !skip { print }' "$file" >"$out"
}

# plot FOLDER OUT: the folder's plot sweep and the report chart it names, as OUT.
plot() {
  local dir="$1" out="$2" f="$1/figures.json" name
  jq -e '.plot' "$f" >/dev/null || return 1
  name="$(basename "$dir")"
  local scenario chart
  scenario="$dir/$(jq -r '.plot.scenario // .scenario' "$f")"
  chart="$(jq -r '.plot.chart // "time-per-event"' "$f")"
  local args=()
  while IFS= read -r s; do args+=(--set "$s"); done < <(jq -r '.plot.set // [] | .[]' "$f")
  while IFS= read -r p; do args+=(--param "$p"); done < <(jq -r '.plot.params[]' "$f")
  # (Called in an `if`, where set -e is off: every step checks its own status.)
  "$BIN" sweep "$scenario" "${args[@]}" "${WORKERS[@]}" -o "$WORK/$name.csv" >"$WORK/sweep.log" 2>&1 || {
    cat "$WORK/sweep.log" >&2
    echo "validate.sh: $f: the plot's sweep failed" >&2
    exit 1
  }
  "$BIN" report "$WORK/$name.csv" --svg-dir "$WORK/svg-$name" -o /dev/null || {
    echo "validate.sh: $f: the plot's report failed" >&2
    exit 1
  }
  [ -f "$WORK/svg-$name/$chart.svg" ] || {
    echo "validate.sh: $f: plot.chart \"$chart\" is not a chart of the report; it has:" \
      "$(cd "$WORK/svg-$name" && ls | sed 's/\.svg$//' | tr '\n' ' ')" >&2
    exit 2
  }
  cp "$WORK/svg-$name/$chart.svg" "$out"
}

stale=0
# update TARGET NEW: write NEW over TARGET, or with --check report when they differ.
update() {
  local target="$1" new="$2"
  if [ "$CHECK" -eq 1 ]; then
    if ! cmp -s "$target" "$new"; then
      echo "validate.sh: $target is stale (scripts/validate.sh rewrites it):" >&2
      diff -u "$target" "$new" | head -40 >&2 || true
      stale=1
    fi
  elif ! cmp -s "$target" "$new"; then
    cp "$new" "$target" || { echo "validate.sh: cannot write $target" >&2; exit 1; }
    echo "validate.sh: wrote $target"
  fi
}

for f in "${FILES[@]}"; do
  dir="$(dirname "$f")"
  name="$(basename "$dir")"
  [ -f "$dir/README.md" ] || { echo "validate.sh: $dir has no README.md" >&2; exit 2; }
  splice "$dir/README.md" "$WORK/md/$name.md" "$WORK/$name-README.md"
  update "$dir/README.md" "$WORK/$name-README.md"
  if plot "$dir" "$WORK/$name-plot.svg"; then
    if [ "$CHECK" -eq 1 ] && [ ! -f "$dir/plot.svg" ]; then
      echo "validate.sh: $dir/plot.svg is missing (scripts/validate.sh draws it)" >&2
      stale=1
    else
      update "$dir/plot.svg" "$WORK/$name-plot.svg"
    fi
  fi
done

{
  cat "$WORK/md/validation-table.md"
  echo
  tail -n 1 "$WORK/reproduce.txt"
} >"$WORK/validation-block.md"
splice docs/validation.md "$WORK/validation-block.md" "$WORK/validation.md"
update docs/validation.md "$WORK/validation.md"

if [ "$stale" -ne 0 ]; then
  echo "validate.sh: pages are stale: run scripts/validate.sh and commit what it writes" >&2
  exit 1
fi
exit "$rc"
