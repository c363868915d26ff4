# cli_plan_robust: `sonicsim plan --confidence` and `plan timeline` as a planner uses them. On the
# deterministic knee scenario with an uncertain GPU time, the robust answer and its keys, the
# same bytes from the same seed, --check, a timeline whose purchases keep up with a doubling, and
# every bad input refused with exit 2, a message naming the flag or JSON path, and no output.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

KNEE=tests/data/plan_knee.json
BLOCK='{"inputs": [{"name": "GPU time", "path": "models.toy.service_time.seconds.0", "dist": "lognormal", "sigma": 0.3}]}'
COMMON=(--set workload.jobs=200 --slowdown 0.5 --replications 1 --workers 2 -q)

run_ok "$SONICSIM" plan "$KNEE" min-devices "${COMMON[@]}" --set "uncertainty=$BLOCK" \
  --confidence 0.9 --samples 16 --check servers.0.count=4 -o "$TMP/robust.json"
assert_stdout_contains "robust       servers.0.count = "
assert_stdout_contains "of the plausible cases"
assert_stdout_contains "tornado      GPU time"
assert_stdout_contains "check        servers.0.count = 4 is enough in"
assert_json_paths "$TMP/robust.json" answer.value robust.confidence robust.samples robust.seed \
  robust.inputs.0.name robust.inputs.0.low robust.answers.15 robust.distribution.0.count \
  robust.answer.value robust.answer.fraction_met robust.answer.fraction_met_ci95 robust.median \
  robust.central95 robust.nominal robust.check.probability robust.tornado.0.answer_at_low \
  robust.tornado.0.swing robust.simulations.count robust.text
answer="$(json_get "$TMP/robust.json" robust.answer.value)"
nominal="$(json_get "$TMP/robust.json" robust.nominal)"
((answer >= nominal)) || fail "the 90% answer $answer is below the answer as written $nominal"
met="$(jq '[.robust.answers[] | select(. != null and . <= '"$answer"')] | length' "$TMP/robust.json")"
((met >= 15)) || fail "the answer $answer is enough for $met of 16 samples, expected >= 15 (90%)"
pass "robust: $answer devices meet the constraint in $met of 16 samples (as written: $nominal)"

# The same seed gives the same bytes; another seed other samples.
run_ok "$SONICSIM" plan "$KNEE" min-devices "${COMMON[@]}" --set "uncertainty=$BLOCK" \
  --confidence 0.9 --samples 16 --check servers.0.count=4 -o "$TMP/again.json"
cmp -s "$TMP/robust.json" "$TMP/again.json" || fail "the same seed gave different bytes"
pass "robust: same seed, same bytes"
run_ok "$SONICSIM" plan "$KNEE" min-devices "${COMMON[@]}" --set "uncertainty=$BLOCK" \
  --confidence 0.9 --samples 16 --sampling-seed 9 --no-tornado -o "$TMP/other.json"
[[ "$(jq -c .robust.sample_inputs "$TMP/other.json")" != "$(jq -c .robust.sample_inputs "$TMP/robust.json")" ]] ||
  fail "another seed gave the same samples"
pass "robust: another seed, other samples"

# The block from a file of its own; a plan without --confidence is the plain plan.
echo "$BLOCK" > "$TMP/block.json"
run_ok "$SONICSIM" plan "$KNEE" min-devices "${COMMON[@]}" --uncertainty "$TMP/block.json" \
  --confidence 0.9 --samples 16 --no-tornado --json
[[ "$(json_get "$OUT" robust.answer.value)" == "$answer" ]] || fail "--uncertainty FILE differs"
pass "robust: --uncertainty FILE gives the block's answer"
run_ok "$SONICSIM" plan "$KNEE" min-devices "${COMMON[@]}" --set "uncertainty=$BLOCK" --json
json_missing "$OUT" robust || fail "a plain plan has a robust block"
pass "plain plan: no robust block"

# A timeline: jobs double over three years; the fleet grows with them.
run_ok "$SONICSIM" plan "$KNEE" timeline --set workload.jobs=100 --slowdown 0.5 --replications 1 \
  --growth workload.jobs=x2/3y --start 2027-01 --period 1y --lead-time 6mo -q -o "$TMP/tl.json"
assert_stdout_contains "stops meeting the constraint at 2027-01"
[[ "$(jq '.timeline.periods | length' "$TMP/tl.json")" == 4 ]] || fail "expected 4 dates"
first="$(json_get "$TMP/tl.json" timeline.periods.0.required)"
last="$(json_get "$TMP/tl.json" timeline.periods.3.required)"
((last > first)) || fail "the requirement did not grow: $first -> $last"
bought="$(jq '[.timeline.purchases[].add] | add' "$TMP/tl.json")"
fleet="$(json_get "$TMP/tl.json" timeline.fleet)"
((fleet + bought == last)) || fail "fleet $fleet + purchases $bought != the last requirement $last"
[[ "$(json_get "$TMP/tl.json" timeline.purchases.0.order_by)" == 2026-07 ]] || fail "order date"
pass "timeline: $first -> $last devices, $bought bought, the first ordered 6 months ahead"

# Bad input: exit 2, the flag or the JSON path named, no output file.
RESULTS="$TMP/bad.json"
refused "add --confidence" "$SONICSIM" plan "$KNEE" min-devices --samples 8 -o "$RESULTS"
refused "--confidence: found 1.5" "$SONICSIM" plan "$KNEE" min-devices --confidence 1.5 -o "$RESULTS"
refused "uncertainty: missing" "$SONICSIM" plan "$KNEE" min-devices --confidence 0.9 -o "$RESULTS"
refused "cost has no constraint" "$SONICSIM" plan "$KNEE" cost --gpu-hour-price 1 \
  --core-hour-price 0.1 --confidence 0.9 -o "$RESULTS"
refused "uncertainty.inputs[0].path" "$SONICSIM" plan "$KNEE" min-devices --confidence 0.9 \
  --set 'uncertainty={"inputs": [{"path": "workload.jbos", "dist": "uniform", "low": 1, "high": 2}]}' \
  -o "$RESULTS"
refused "uncertainty.inputs[0].dist" "$SONICSIM" plan "$KNEE" min-devices --confidence 0.9 \
  --set 'uncertainty={"inputs": [{"path": "workload.jobs", "dist": "gauss"}]}' -o "$RESULTS"
refused "--check: found" "$SONICSIM" plan "$KNEE" min-devices --confidence 0.9 \
  --set "uncertainty=$BLOCK" --check workload.jobs=3 --samples 2 --no-tornado -o "$RESULTS"
refused "--growth: found" "$SONICSIM" plan "$KNEE" timeline --growth workload.jobs=2 -o "$RESULTS"
refused "growth: missing" "$SONICSIM" plan "$KNEE" timeline -o "$RESULTS"
refused "belong to" "$SONICSIM" plan "$KNEE" min-devices --growth workload.jobs=x2/1y -o "$RESULTS"
refused "growth.paths[0].factor" "$SONICSIM" plan "$KNEE" timeline \
  --set 'growth={"paths": [{"path": "workload.jobs", "factor": -1, "over": "1y"}]}' -o "$RESULTS"
# `validate` checks the blocks a run ignores.
refused "uncertainty.inputs[0].path" "$SONICSIM" validate "$KNEE" \
  --set 'uncertainty={"inputs": [{"path": "workload.jbos", "dist": "uniform", "low": 1, "high": 2}]}'
refused "growth.paths[0].factor" "$SONICSIM" validate "$KNEE" \
  --set 'growth={"paths": [{"path": "workload.jobs", "factor": 0, "over": "1y"}]}'
run_ok "$SONICSIM" validate scenarios/examples/robust-plan-cms-t4.json
finish
