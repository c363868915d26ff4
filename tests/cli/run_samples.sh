# cli_run_samples: `run --samples N` runs a scenario once per sample of its uncertainty block
# (docs/uncertainty-samples.md): the samples document, its quantiles, its seed; --sobol; bad
# flags and blocks refused with exit 2; `sweep --samples` as a grid dimension with its quantiles.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
command -v jq >/dev/null || skip "jq not installed"

S=tests/data/uncertain_tiny.json
DOC="$TMP/samples.json"

run_ok "$SONICSIM" run "$S" --samples 4 --workers 2 -o "$DOC"
assert_stdout_contains "sampled 4 runs of 2 uncertain inputs (lhs"
assert_stdout_contains "events.throughput_per_s"
assert_stdout_contains "samples    written to"
assert_jq "$DOC" '.runs | length == 4' "4 samples"
assert_jq "$DOC" '.sampling.samples == 4 and .sampling.method == "lhs" and .sampling.sobol == false' \
  "the sampling block"
assert_jq "$DOC" '[.inputs[].name] == ["cpu_time", "jobs"]' "the inputs, by name"
assert_jq "$DOC" '[.inputs[] | .path, .dist, .nominal] | all(. != null)' \
  "every input has its path, distribution and nominal value"
assert_jq "$DOC" '[.runs[].inputs | length] | all(. == 2)' "every sample has its two input values"
assert_jq "$DOC" '[.metrics[] | select(.n > 0)] | length >= 5' "at least five metrics with values"
assert_jq "$DOC" \
  '[.metrics[] | select(.n > 0) | .min <= .p05 and .p05 <= .p50 and .p50 <= .p95 and .p95 <= .max and .min <= .mean and .mean <= .max] | all' \
  "min <= p05 <= p50 <= p95 <= max, and the mean within [min, max], for every metric"
assert_jq "$DOC" '.metrics["events.throughput_per_s"].stddev > 0' \
  "the uncertain inputs spread the throughput"
assert_jq "$DOC" \
  '[.runs[].metrics["events.throughput_per_s"]] as $v | .metrics["events.throughput_per_s"] | .min == ($v | min) and .max == ($v | max)' \
  "the throughput's min and max are the samples'"
assert_jq "$DOC" '[.runs[].inputs[0]] | all(. >= 0.07 and . <= 0.13)' \
  "cpu_time's samples lie in its range (70 to 130 ms)"

# Same seed, same bytes; another seed, other samples.
run_ok "$SONICSIM" run "$S" --samples 4 --workers 1 -o "$TMP/again.json"
same_bytes "$DOC" "$TMP/again.json"
run_ok "$SONICSIM" run "$S" --samples 4 --seed 9 -o "$TMP/seed9.json"
cmp -s "$DOC" "$TMP/seed9.json" && fail "--seed 9 gave the same samples document"
pass "another seed, another document"
# The design's seed: the scenario's (3) unless --sampling-seed; the block's seed wins over both.
run_ok "$SONICSIM" run "$S" --samples 4 --sampling-seed 3 -o "$TMP/ss3.json"
same_bytes "$DOC" "$TMP/ss3.json"
run_ok "$SONICSIM" run "$S" --samples 4 --sampling-seed 4 -o "$TMP/ss4.json"
assert_jq "$TMP/ss4.json" '.sampling.seed == 4' "--sampling-seed 4 is the design's seed"
run_ok "$SONICSIM" run "$S" --samples 4 --set uncertainty.seed=4 -o "$TMP/block4.json"
cmp -s <(jq '.runs | map(.inputs)' "$TMP/ss4.json") <(jq '.runs | map(.inputs)' "$TMP/block4.json") ||
  fail "the block's seed 4 and --sampling-seed 4 gave different samples"
pass "the block's seed is the design's seed"
# Without --samples, run is the run it was: the uncertainty block changes nothing.
run_ok "$SONICSIM" run "$S" -o "$TMP/plain.json"
assert_jq "$TMP/plain.json" 'has("events") and (has("runs") | not)' "a plain run writes results"

# --json prints the document; --sampling sobol is another design.
run_ok "$SONICSIM" run "$S" --samples 4 --sampling sobol --json
jq -e '.sampling.method == "sobol" and (.runs | length == 4)' "$OUT" >/dev/null ||
  fail "--sampling sobol --json: not a sobol samples document"
pass "--sampling sobol --json prints the document"

# --sobol: N (inputs + 2) runs, indices with intervals, inputs ranked by total index.
run_ok "$SONICSIM" run "$S" --samples 8 --sobol -o "$TMP/sobol.json"
assert_stdout_contains "Sobol indices"
assert_stdout_contains "inputs by total index"
assert_jq "$TMP/sobol.json" '.runs | length == 32' "8 base rows x (2 inputs + 2) = 32 runs"
assert_jq "$TMP/sobol.json" '[.runs[].row] | (map(select(. == "A")) | length) == 8' "8 rows A"
assert_jq "$TMP/sobol.json" \
  '.metrics["events.throughput_per_s"].sobol | length == 2 and all(has("first") and has("total") and has("first_ci95") and has("total_ci95"))' \
  "first and total indices with their intervals per input"

# Bad flags and blocks: exit 2, the flag or the JSON path named, what was found and expected.
refused "found no \`uncertainty\` block" "$SONICSIM" run tests/data/valid_minimal.json --samples 4
assert_stderr_contains "uncertainty"
refused "--samples" "$SONICSIM" run "$S" --samples 0
refused "--samples" "$SONICSIM" run "$S" --samples 100001
refused "--samples" "$SONICSIM" run "$S" --samples 40000 --sobol
assert_stderr_contains "expected at most"
refused "--sampling" "$SONICSIM" run "$S" --samples 4 --sampling halton
assert_stderr_contains "halton"
refused "--sobol without --samples" "$SONICSIM" run "$S" --sobol
refused "--sampling-seed without --samples" "$SONICSIM" run "$S" --sampling-seed 2
refused "--trace with --samples" "$SONICSIM" run "$S" --samples 4 --trace "$TMP/t.json"
RESULTS="$TMP/bad.json" refused "uncertainty.inputs[0]" \
  "$SONICSIM" run "$S" --samples 4 --uncertainty tests/data/uncertain_bad_block.json -o "$TMP/bad.json"
assert_stderr_contains "uncertain_bad_block.json"

# sweep --samples: the samples at every point, a param.sample column, the quantiles beside.
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 --workers 2 \
  -o "$TMP/sweep.csv"
[[ $(($(wc -l <"$TMP/sweep.csv") - 1)) == 6 ]] || fail "expected 2 points x 3 samples = 6 rows"
pass "2 points x 3 samples = 6 rows"
[[ -n $(col "$TMP/sweep.csv" param.sample) ]] || fail "no param.sample column"
pass "the sweep CSV has a param.sample column"
Q="$TMP/sweep.quantiles.csv"
assert_file "$Q"
[[ $(($(wc -l <"$Q") - 1)) == 2 ]] || fail "expected one quantile row per grid point"
pass "one quantile row per grid point"
c05=$(col "$Q" events.throughput_per_s.p05)
c95=$(col "$Q" events.throughput_per_s.p95)
[[ -n $c05 && -n $c95 ]] || fail "no throughput quantile columns"
awk -F, -v a="$c05" -v b="$c95" 'NR > 1 && !($a <= $b) { bad = 1 } END { exit bad }' "$Q" ||
  fail "p05 above p95 in $Q"
pass "p05 <= p95 at every point"
# Shards of the same sweep merge into the same table and quantiles.
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 --shard 1/2 -o "$TMP/s1.csv"
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 --shard 2/2 -o "$TMP/s2.csv"
run_ok "$SONICSIM" merge "$TMP/s1.csv" "$TMP/s2.csv" -o "$TMP/merged.csv"
same_bytes "$TMP/sweep.csv" "$TMP/merged.csv"
same_bytes "$Q" "$TMP/merged.quantiles.csv"
# --resume after the first shard finishes the same sweep, byte for byte.
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 --shard 1/2 -o "$TMP/r.csv"
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 -o "$TMP/r.csv" --resume
assert_stdout_contains "3 kept from before"
same_bytes "$TMP/sweep.csv" "$TMP/r.csv"
same_bytes "$Q" "$TMP/r.quantiles.csv"
# Another design is another sweep: its identity holds the sampled values.
run_ok "$SONICSIM" sweep "$S" --param servers.0.count=1,2 --samples 3 --sampling sobol --dry-run -o "$TMP/d.csv"
id_other=$(head -1 "$OUT" | cut -d' ' -f2)
[[ -n $id_other && $id_other != "$(sed -n 2p "$TMP/sweep.csv" | cut -d, -f1)" ]] ||
  fail "--sampling sobol kept the sweep id"
pass "another design, another sweep id"
refused "--uncertainty without --samples" "$SONICSIM" sweep "$S" --param servers.0.count=1,2 \
  --uncertainty tests/data/uncertain_bad_block.json -o "$TMP/no.csv"

finish
