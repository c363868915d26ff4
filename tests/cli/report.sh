# sonicsim report: two real runs (8 and 10 T4s) side by side, the difference in words, Markdown,
# and bad input.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 -o "$TMP/a.json" -q
run_ok "$SONICSIM" run scenarios/default.json --set duration=60 --set warmup=6 \
  --set servers.0.count=10 -o "$TMP/b.json" -q
run_ok "$SONICSIM" report "$TMP/a.json" "$TMP/b.json"
assert_stdout_contains "adding 2 devices (8 -> 10)"
knee_a=$(jq -r '.analytic.saturation_n_cpu_per_gpu * .analytic.n_gpu' "$TMP/a.json")
knee_b=$(jq -r '.analytic.saturation_n_cpu_per_gpu * .analytic.n_gpu' "$TMP/b.json")
read -r said_a said_b < <(sed -nE 's/.*moves the knee from ([0-9.]+) to ([0-9.]+) threads.*/\1 \2/p' "$OUT")
near "${said_a:-0}" "$knee_a" 0.001 && near "${said_b:-0}" "$knee_b" 0.001 ||
  fail "the knee sentence ($said_a -> $said_b) does not match the analytic blocks ($knee_a -> $knee_b)"
pass "the knee moves as the results say"
grep -q "client_nic peaks" "$OUT" && fail "a link whose peak moved by less than a point is reported"
pass "unchanged links are not reported"

run_ok "$SONICSIM" report "$TMP/a.json" "$TMP/b.json" --format md -o "$TMP/report.md"
grep -q '^| figure | baseline: ' "$TMP/report.md" || fail "no Markdown table"
pass "Markdown table"

run_status 2 "$SONICSIM" report "$TMP/a.json" scenarios/default.json
assert_stderr_contains "default.json (a sonicsim results file"
assert_stderr_contains "/events/throughput_per_s"
run_status 2 "$SONICSIM" report "$TMP/a.json" --format pdf
assert_stderr_contains "--format: found \"pdf\", expected text, md or html"
run_status 2 "$SONICSIM" report "$TMP/missing.json"
assert_stderr_contains "cannot read the file"

finish
