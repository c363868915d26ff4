# cli_plan_oracle: the differential oracle of `sonicsim plan` (scripts/plan-oracle.sh,
# docs/plan.md#the-oracle) on a short seeded set: one case of each kind (latency-bound,
# bandwidth-bound, batching, two pools, a job flow, two sites), each plan's answer checked
# against simulations with every payload a flow, and auto against flow at the answer. Its own
# verdict logic is tested in tests/python/test_plan_oracle.py. Release pass only (minutes under
# ASan; scripts/test.sh).
source "$(dirname "$0")/lib.sh" "$@"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

run python3 scripts/plan_oracle.py --binary "$SONICSIM" --cases 6 --seed 33 --workers 2 \
  --out "$TMP/oracle"
cat "$OUT"
((STATUS == 0)) || fail "the oracle found disagreements (exit $STATUS): $(grep -A3 PROBLEM "$OUT" | head -20)"
assert_stdout_contains "6 cases (seed 33)"
assert_stdout_contains "0 disagree"
[[ -s "$TMP/oracle/cases.jsonl" ]] || fail "no cases.jsonl"
(($(wc -l <"$TMP/oracle/cases.jsonl") == 6)) || fail "cases.jsonl has not 6 cases"
pass "6 seeded cases: every plan agrees with the flows' reference"
finish
