# cli_write_failures: every write is checked. A full disk (/dev/full) or a closed standard output
# is exit 1 naming the path and the system's reason, never a success; a run writes all its
# outputs or none; two outputs of one command may not name the same file (exit 2); a device
# given as an output is written in place, never replaced by a file.
source "$(dirname "$0")/lib.sh" "$@"
bound_every_run
[[ -c /dev/full && -c /dev/null ]] || skip "no /dev/full here"
S=(tests/data/valid_minimal.json)

# A full disk is a failed write: exit 1, the path and errno's text; /dev/full stays a device.
run_status 1 "$SONICSIM" run "${S[@]}" -o /dev/full
assert_stderr_contains "/dev/full: write failed: No space left on device"
[[ -c /dev/full ]] || fail "/dev/full is no longer a device"
if grep -q "written to" "$OUT"; then fail "run claimed to have written its results"; fi
pass "run -o /dev/full: exit 1, nothing claimed"

run_ok "$SONICSIM" run "${S[@]}" -o /dev/null
[[ -c /dev/null ]] || fail "/dev/null was replaced by a file"
pass "run -o /dev/null: written in place, still a device"

# Standard output is checked too.
run "$SONICSIM" run "${S[@]}" --json
[[ $STATUS == 0 ]] || fail "run --json failed: $(cat "$ERR")"
"$SONICSIM" run "${S[@]}" --json >/dev/full 2>"$TMP/err"
status=$?
[[ $status == 1 ]] || fail "run --json > /dev/full: exit $status, expected 1"
grep -qF "standard output: write failed: No space left on device" "$TMP/err" ||
  fail "run --json > /dev/full: $(cat "$TMP/err")"
pass "run --json > /dev/full: exit 1"
"$SONICSIM" run "${S[@]}" >/dev/full 2>"$TMP/err"
[[ $? == 1 ]] || fail "run > /dev/full (the summary) did not fail"
pass "run > /dev/full: exit 1"

# All or none: the metrics file fails, so the results file is not left behind.
run_status 1 "$SONICSIM" run "${S[@]}" -o "$TMP/r.json" --prometheus /dev/full
assert_stderr_contains "/dev/full: write failed"
assert_no_file "$TMP/r.json"
run_status 1 "$SONICSIM" run "${S[@]}" -o "$TMP/r.json" --trace /dev/full
assert_no_file "$TMP/r.json"
compgen -G "$TMP/.r.json.*" >/dev/null && fail "a temporary results file was left behind"
pass "no temporary files left"

# Two outputs naming one file: refused before the run.
run_status 2 "$SONICSIM" run "${S[@]}" -o "$TMP/same" --prometheus "$TMP/./same"
assert_stderr_contains "the same file as -o"
assert_no_file "$TMP/same"

# Other commands' outputs.
run_status 1 "$SONICSIM" analytic "${S[@]}" -o /dev/full
assert_stderr_contains "/dev/full: write failed"
run_ok "$SONICSIM" perf-analyzer --scenario scenarios/default.json -m particlenet_ak4 \
  --concurrency-range 1:3 -b 16 --requests 2000 -o "$TMP/pa.csv"
run_status 1 "$SONICSIM" perf-analyzer --scenario scenarios/default.json -m particlenet_ak4 \
  --concurrency-range 1:3 -b 16 --requests 2000 -o /dev/full
run_status 1 "$SONICSIM" calibrate perf-analyzer "$TMP/pa.csv" -b 16 --model pn -o /dev/full
assert_stderr_contains "/dev/full: write failed"
# A sweep keeps what it finished for --resume, and says so.
run_status 1 "$SONICSIM" sweep "${S[@]}" --param workload.jobs=1,2 -o "$TMP/s.csv" \
  --jsonl /dev/full
assert_stderr_contains "/dev/full: write failed: No space left on device; the runs finished"
assert_stderr_contains "--resume"

# A closed pipe is not a success either (the reader went away).
"$SONICSIM" run "${S[@]}" --json 2>"$TMP/err" | head -c 1 >/dev/null
pass "a closed pipe does not hang"

finish
