# cli_gallery: the gallery's published figures stay reproduced and its pages stay true.
# scripts/validate.sh --check runs every scenarios/gallery/*/figures.json and fails when a figure
# leaves its tolerance (exit 3) or a README block, plot or docs/validation.md differs from what
# the simulator says now (exit 1). Around it: reproduce's exit codes and bad inputs, and the
# staleness check itself on a scratch gallery.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# A scratch gallery of one system: the deterministic knee example, saturated.
G="$TMP/repo"
mkdir -p "$G/scripts" "$G/docs" "$G/scenarios/gallery/knee"
cp scripts/validate.sh "$G/scripts/"
cp scenarios/examples/formula-knee.json "$G/scenarios/gallery/knee/knee.json"
printf '# v\n\n<!-- figures:begin -->\n<!-- figures:end -->\n\ntail\n' >"$G/docs/validation.md"
printf '# knee\n\n<!-- figures:begin -->\n<!-- figures:end -->\n\n![plot](plot.svg)\n' \
  >"$G/scenarios/gallery/knee/README.md"
figures() {  # figures PUBLISHED [MISS [MORE]]: the knee's saturated time per event against
  # t_SONIC; MORE: further members of the figure (", \"key\": value")
  local miss="${3:-}"
  [[ -n ${2:-} ]] && miss=", \"miss\": \"$2\"$miss"
  cat >"$G/scenarios/gallery/knee/figures.json" <<EOF
{"system": "knee", "source": "tests/cli/gallery.sh", "scenario": "knee.json",
 "figures": [
  {"id": "saturated", "figure": "thread time per event at 10 threads", "source": "t_GPU N_CPU/N_GPU",
   "published": $1, "unit": "ms", "tolerance": {"relative": 0.01}$miss,
   "set": ["workload.jobs=10", "workload.threads_per_job=1", "duration=300s"],
   "simulated": {"product": [{"metric": "events.thread_time_per_event_s"}, 1000]},
   "formula": {"product": [{"metric": "analytic.t_sonic_s"}, 1000]},
   "vary": {"set": "servers.0.count", "label": "GPUs", "values": [1, 2]}}],
 "plot": {"set": ["duration=300s", "workload.threads_per_job=1"], "params": ["workload.jobs=2,6,10"],
          "caption": "time per event"}}
EOF
}
figures 100
F="$G/scenarios/gallery/knee/figures.json"

run_ok "$SONICSIM" reproduce "$F" --json "$TMP/r.json"
assert_stdout_contains "published 100 ms; formula 100 ms (+0.0%); simulated 100 ms (+0.0%); within ±1%"
assert_jq "$TMP/r.json" '.systems[0].figures[0].vary.points | length == 2'
assert_jq "$TMP/r.json" '(.systems[0].figures[0].vary.points[1].formula - 62 | fabs) < 0.01'  # 2 GPUs: below the knee, t_ideal
figures 130
run_status 3 "$SONICSIM" reproduce "$F"
assert_stdout_contains "OUTSIDE ±1%"
figures 130 "the source's t_GPU is not this one"
run_ok "$SONICSIM" reproduce "$F"
assert_stdout_contains "known miss ±1%"

# A figure by construction is no evidence: counted apart, and outside its tolerance it fails.
IDENTITY=', "by_construction": {"kind": "identity", "why": "saturated, it is t_GPU N_CPU / N_GPU"}'
figures 100 "" "$IDENTITY"
run_ok "$SONICSIM" reproduce "$F"
assert_stdout_contains "simulated 100 ms (+0.0%); by construction (identity), within ±1%"
assert_stdout_contains "1 figure: 0 within tolerance (evidence), 1 by construction (0 inputs, 1 identity, 0 solved for), 0 outside"
figures 130 "" "$IDENTITY"
run_status 3 "$SONICSIM" reproduce "$F"
assert_stdout_contains "OUTSIDE ±1%: by construction (identity), so a bug"
assert_stdout_contains "0 by construction, 1 outside"
figures 100 "" ', "by_construction": "an identity"'
RESULTS="$TMP/bad.json"
refused "figures.json: figures[0].by_construction: found \"an identity\"; expected {\"kind\": \"input\", \"identity\" or \"solved\", \"why\": one sentence}" \
  "$SONICSIM" reproduce "$F" --json "$RESULTS"
unset RESULTS

# The pages: written, then checked; a hand edit or a changed figure is stale.
figures 100
(cd "$G" && bash scripts/validate.sh --binary "$SONICSIM" >"$TMP/v.out" 2>&1) ||
  fail "validate.sh on the scratch gallery: $(cat "$TMP/v.out")"
pass "validate.sh writes the scratch gallery's pages"
grep -q '^| \[knee\](../scenarios/gallery/knee/README.md) | thread time per event at 10 threads | 100 ms |' \
  "$G/docs/validation.md" || fail "docs/validation.md lacks the figure's row"
pass "validation.md holds the figure's row"
grep -q '^| 2 | 62.0 ms | 62.0 ms |$' "$G/scenarios/gallery/knee/README.md" ||
  fail "the README lacks the sweep over GPUs"
pass "the README holds the sweep over GPUs"
grep -q '^<svg xmlns="http://www.w3.org/2000/svg"' "$G/scenarios/gallery/knee/plot.svg" ||
  fail "plot.svg is not a standalone SVG"
pass "plot.svg is a standalone SVG"
grep -q '^tail$' "$G/docs/validation.md" || fail "validation.md lost what follows the block"
pass "validation.md keeps what follows the block"
(cd "$G" && bash scripts/validate.sh --check --binary "$SONICSIM" >"$TMP/v.out" 2>&1) ||
  fail "validate.sh --check right after writing: $(cat "$TMP/v.out")"
pass "validate.sh --check passes on pages it just wrote"
sed -i 's/| 62.0 ms | 62.0 ms |$/| 61.0 ms | 62.0 ms |/' "$G/scenarios/gallery/knee/README.md"
(cd "$G" && bash scripts/validate.sh --check --binary "$SONICSIM" >"$TMP/v.out" 2>&1)
(($? == 1)) || fail "validate.sh --check on a hand-edited README: not exit 1"
grep -q "README.md is stale" "$TMP/v.out" || fail "validate.sh does not name the stale README"
pass "validate.sh --check fails on a hand-edited README and names it"
figures 130
(cd "$G" && bash scripts/validate.sh --binary "$SONICSIM" >"$TMP/v.out" 2>&1)
(($? == 3)) || fail "validate.sh with a figure outside its tolerance: not exit 3"
pass "validate.sh exits 3 when a figure leaves its tolerance"
figures 100 "" "$IDENTITY"
(cd "$G" && bash scripts/validate.sh --binary "$SONICSIM" >"$TMP/v.out" 2>&1) ||
  fail "validate.sh with a figure by construction: $(cat "$TMP/v.out")"
grep -qF '| by construction (identity), within ±1%: saturated, it is t_GPU N_CPU / N_GPU |' \
  "$G/docs/validation.md" || fail "validation.md does not word the figure as by construction"
grep -F '1 figure: 0 within tolerance (evidence), 1 by construction (0 inputs, 1 identity, 0 solved for), 0 outside, 0 known misses, 0 predictions (' \
  "$G/docs/validation.md" | grep -q '^1 figure' || fail "validation.md's roll-up counts the figure as evidence"
pass "validation.md words and counts a figure by construction apart from evidence"
figures 130 "" "$IDENTITY"
(cd "$G" && bash scripts/validate.sh --binary "$SONICSIM" >"$TMP/v.out" 2>&1)
(($? == 3)) || fail "validate.sh with a figure by construction outside its tolerance: not exit 3"
grep -qF '| **OUTSIDE** ±1%: by construction (identity), so a bug |' "$G/docs/validation.md" ||
  fail "validation.md does not show the figure by construction as OUTSIDE"
pass "validate.sh exits 3 when a figure by construction leaves its tolerance, and shows it OUTSIDE"

# Bad input: the file and the JSON path named, exit 2, no output left.
RESULTS="$TMP/bad.json"
echo '{"system": "s", "source": "x", "figures": [{"id": "a"}]}' >"$TMP/bad-figures.json"
refused "bad-figures.json: figures[0].figure: missing; expected a string" \
  "$SONICSIM" reproduce "$TMP/bad-figures.json" --json "$RESULTS"
assert_stderr_contains "figures[0].simulated: missing; expected an expression"
assert_stderr_contains "figures[0].scenario: missing here and at the top of the file"
figures 100
refused "no figure \`saturate\`; did you mean \`saturated\`?" \
  "$SONICSIM" reproduce "$F" --figure saturate --json "$RESULTS"
sed -i 's/events.thread_time_per_event_s/events.thread_time_per_evnt_s/' "$F"
refused "figures[0].simulated.product[0].metric: \"events.thread_time_per_evnt_s\" is not a figure" \
  "$SONICSIM" reproduce "$F" --json "$RESULTS"
echo '[1, 2]' >"$TMP/array.json"
refused "array.json: not a JSON object; expected a figures file" "$SONICSIM" reproduce "$TMP/array.json"
unset RESULTS

# The shipped gallery: every published figure within its tolerance, every page up to date.
# (Skipped under ASan, where its simulations would take many minutes and test nothing new.)
if [[ $QUICK == 1 ]]; then
  pass "the shipped gallery is checked by the Release pass"
else
  bash scripts/validate.sh --check --binary "$SONICSIM" >"$TMP/v.out" 2>&1
  status=$?
  ((status == 0)) || { cat "$TMP/v.out"; fail "scripts/validate.sh --check: exit $status"; }
  pass "the shipped gallery reproduces its figures and its pages are up to date"
fi
finish
