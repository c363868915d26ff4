# cli_progress: `run` and `plan` show their progress on stderr on a terminal, and never when
# stderr is a file or with -q; the progress changes no output byte. A terminal comes from
# script(1) (util-linux), which runs the command under a pseudo-terminal.
source "$(dirname "$0")/lib.sh" "$@"

command -v script >/dev/null || skip "script (util-linux) is not installed"
# A run long enough for the progress to be drawn (it draws after 65536 events at the earliest).
SCEN=scenarios/default.json
SETS=(--set duration=600 --set warmup=10)
need_json_tool
# same_json A B: the same document but for the wall-clock timings (`perf`).
same_json() {
  diff <(json_canon "$1" perf) <(json_canon "$2" perf) >/dev/null || fail "${1##*/} and ${2##*/} differ"
  pass "${1##*/} == ${2##*/} (perf aside)"
}

# on_tty FILE CMD...: runs CMD with stdin, stdout and stderr on a pseudo-terminal, its whole
# terminal output in FILE.
on_tty() {
  local file="$1"; shift
  local cmd; printf -v cmd '%q ' "$@"
  echo "\$ script -qec '$(_label "$@")' (a terminal)"
  STATUS=0
  timeout 300 script -qec "$cmd" "$file" >/dev/null </dev/null || STATUS=$?
  ((STATUS == 0)) || fail "exit status $STATUS on a terminal: $(_label "$@")"
}

on_tty "$TMP/tty.txt" "$SONICSIM" run "$SCEN" "${SETS[@]}" -o "$TMP/tty.json"
grep -q 'simulated .* of 10.0 min, .* events/s' "$TMP/tty.txt" || { cat "$TMP/tty.txt"; fail "no run progress on a terminal"; }
pass "run: progress on a terminal"
grep -q 'ETA' "$TMP/tty.txt" || fail "no time left in the progress"
pass "run: the progress has the time left"

# stderr a file: not a byte of progress; the same results.
run_ok "$SONICSIM" run "$SCEN" "${SETS[@]}" -o "$TMP/file.json"
grep -q 'events/s\|ETA' "$ERR" && fail "progress written to a file"
pass "run: no progress when stderr is a file"
[[ ! -s "$ERR" ]] || fail "stderr not empty: $(head -c 300 "$ERR")"
pass "run: stderr empty"
same_json "$TMP/tty.json" "$TMP/file.json"

# -q on a terminal: nothing at all.
on_tty "$TMP/quiet.txt" "$SONICSIM" run "$SCEN" "${SETS[@]}" -q -o "$TMP/quiet.json"
grep -q 'events/s\|ETA' "$TMP/quiet.txt" && { cat "$TMP/quiet.txt"; fail "progress with -q"; }
pass "run -q: no progress on a terminal"
same_json "$TMP/tty.json" "$TMP/quiet.json"

# plan: values done of about how many, the bracket; none with -q or on a file.
PLAN=(plan tests/data/plan_knee.json max-cpu --replications 1 --workers 2)
on_tty "$TMP/plan.txt" "$SONICSIM" "${PLAN[@]}" -o "$TMP/plan-tty.json"
grep -q 'values [0-9]*/~[0-9]*' "$TMP/plan.txt" || { cat "$TMP/plan.txt"; fail "no plan progress on a terminal"; }
pass "plan: progress on a terminal"
grep -q 'bracket \[' "$TMP/plan.txt" || { cat "$TMP/plan.txt"; fail "no bracket in the plan progress"; }
pass "plan: the bracket in the progress"
run_ok "$SONICSIM" "${PLAN[@]}" -o "$TMP/plan-file.json"
grep -q 'values [0-9]*/~' "$ERR" && fail "plan progress written to a file"
pass "plan: no progress when stderr is a file"
same_json "$TMP/plan-tty.json" "$TMP/plan-file.json"
on_tty "$TMP/plan-quiet.txt" "$SONICSIM" "${PLAN[@]}" -q -o "$TMP/plan-quiet.json"
grep -q 'values [0-9]*/~\|planning:' "$TMP/plan-quiet.txt" && { cat "$TMP/plan-quiet.txt"; fail "plan progress with -q"; }
pass "plan -q: no progress on a terminal"
same_json "$TMP/plan-tty.json" "$TMP/plan-quiet.json"

finish
