# cli_smoke: the binary starts, prints help, and runs a minimal scenario to a results file.
source "$(dirname "$0")/lib.sh" "$@"

run_ok "$SONICSIM" --help
assert_stdout_contains "run"

run_ok "$SONICSIM" run tests/data/valid_minimal.json -o "$TMP/x.json"
assert_json "$TMP/x.json"
assert_json_has "$TMP/x.json" events

finish
