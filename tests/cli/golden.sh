# cli_golden: the golden set (tests/golden/): every shipped scenario under a few seeds, site
# operations, sweeps, plans, compare, reports, calibration and the loader's messages, byte for
# byte as recorded in tests/golden/expected/ (perf figures and scratch paths aside). A difference
# is a change of behaviour: fix it, or regenerate the set and explain the change in the commit
# (tests/golden/README.md).
source "$(dirname "$0")/lib.sh" "$@"

EXPECTED="$SRC/tests/golden/expected"
[[ -d "$EXPECTED" ]] || fail "no golden set in $EXPECTED"
quick=()
((QUICK)) && quick=(--quick)
run bash "$SRC/tests/golden/generate.sh" "$SONICSIM" "$TMP/actual" "${quick[@]}"
((STATUS == 0)) || fail "generating the golden set failed (exit $STATUS)"
pass "golden set generated ($(ls "$TMP/actual" | wc -l) files)"

# Every generated file matches its expected bytes; the full pass also produces every expected
# file (the quick pass, a subset).
differ=0
for f in "$TMP"/actual/*; do
  name="${f##*/}"
  if [[ ! -f "$EXPECTED/$name" ]]; then
    echo "# new file, not in the golden set: $name"
    differ=$((differ + 1))
  elif ! cmp -s "$f" "$EXPECTED/$name"; then
    echo "# differs: $name"
    diff "$EXPECTED/$name" "$f" | head -20
    differ=$((differ + 1))
  fi
done
if ((!QUICK)); then
  for f in "$EXPECTED"/*; do
    [[ -f "$TMP/actual/${f##*/}" ]] || { echo "# not produced: ${f##*/}"; differ=$((differ + 1)); }
  done
fi
((differ == 0)) || fail "$differ golden files differ (tests/golden/README.md says what to do)"
pass "all $(ls "$TMP/actual" | wc -l) files byte-identical to tests/golden/expected"
finish
