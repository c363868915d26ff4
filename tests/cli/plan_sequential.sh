# cli_plan_sequential: sequential stopping (docs/plan.md, "Searches that simulate less"). On the
# stochastic random-routing example, the default search gives the answer, the interval and the
# verdicts of --exhaustive-replications with fewer simulations; a value stopped early used the
# first seeds and is certain, and the values next to the threshold got every replication. Bad
# --min-replications is exit 2.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

RR=scenarios/examples/random-routing-mva.json
ARGS=(max-cpu --slowdown 10 --set workload.threads_per_job=1 --set duration=5min
  --replications 3 --workers 2 --probes 1)

run_ok "$SONICSIM" plan "$RR" "${ARGS[@]}" --exhaustive-replications -o "$TMP/all.json"
run_ok "$SONICSIM" plan "$RR" "${ARGS[@]}" -o "$TMP/seq.json"
assert_stdout_contains "stopped early; "
assert_json_paths "$TMP/seq.json" stopping.sequential stopping.min_replications \
  stopping.max_replications simulations.simulated_s simulations.run_s points.0.stopped
for key in answer.value answer.fail_value answer.interval.0 answer.interval.1; do
  [[ "$(json_get "$TMP/seq.json" "$key")" == "$(json_get "$TMP/all.json" "$key")" ]] ||
    fail "$key: sequential $(json_get "$TMP/seq.json" "$key"), exhaustive $(json_get "$TMP/all.json" "$key")"
done
pass "same answer, miss and interval as the exhaustive search"
[[ "$(json_get "$TMP/all.json" stopping.sequential)" == false ]] || fail "exhaustive: stopping"
all="$(json_get "$TMP/all.json" simulations.count)"
seq="$(json_get "$TMP/seq.json" simulations.count)"
((seq < all)) || fail "sequential used $seq simulations, exhaustive $all"
pass "fewer simulations: $seq against $all"

# Every value: the verdict of the exhaustive search; early stops certain on seeds 1, 2; every
# uncertain value (the CI straddles the threshold) with all three seeds.
python3 - "$TMP/all.json" "$TMP/seq.json" <<'PY' || fail "per-value checks"
import json, sys
a = {p["value"]: p for p in json.load(open(sys.argv[1]))["points"]}
s = json.load(open(sys.argv[2]))["points"]
assert a.keys() == {p["value"] for p in s}, "different values searched"
early = 0
for p in s:
    q = a[p["value"]]
    assert p["ok"] == q["ok"], p["value"]
    assert p["certain"] == q["certain"], p["value"]
    assert p["seeds"] == [1, 2, 3][: len(p["seeds"])], p["seeds"]
    if p["stopped"] == "certain":
        early += 1
        assert len(p["seeds"]) == 2 and p["certain"], p
    else:
        assert len(p["seeds"]) == 3 and p["stopped"] == "max", p
    if not q["certain"]:
        assert len(p["seeds"]) == 3, p
assert early > 0, "nothing stopped early"
print("values", len(s), "stopped early", early)
PY
pass "early stops certain on the first seeds, open values with every seed"

# --min-replications 3 of 3 is the exhaustive search, point for point.
run_ok "$SONICSIM" plan "$RR" "${ARGS[@]}" --min-replications 3 -o "$TMP/three.json"
[[ "$(json_get "$TMP/three.json" simulations.count)" == "$all" ]] || fail "M = R"
pass "--min-replications 3 of 3 simulates like --exhaustive-replications"

run_status 2 "$SONICSIM" plan "$RR" "${ARGS[@]}" --min-replications 0 -o "$TMP/bad.json"
assert_stderr_contains "--min-replications"
assert_no_file "$TMP/bad.json"

# Adaptive run length: shortened runs (a quarter of the measured span after the whole warm-up)
# decide the values far from the threshold; the answer stays.
run_ok "$SONICSIM" plan "$RR" "${ARGS[@]}" --short-run 0.25 -o "$TMP/short.json"
assert_stdout_contains "short runs   "
for key in answer.value answer.fail_value; do
  [[ "$(json_get "$TMP/short.json" "$key")" == "$(json_get "$TMP/all.json" "$key")" ]] ||
    fail "--short-run: $key differs from the exhaustive search"
done
[[ "$(json_get "$TMP/short.json" stopping.short_run.fraction)" == 0.25 ]] || fail "short: fraction"
assert_json_paths "$TMP/short.json" stopping.short_run.run_s stopping.short_run.simulations \
  points.0.run_s
pass "--short-run 0.25: the same answer"
# A job flow changes its load over the run: off, and said why.
run_ok "$SONICSIM" plan tests/data/plan_flow.json min-devices --slowdown 0.5 --replications 1 \
  --short-run 0.5 -o "$TMP/flow.json"
[[ "$(json_get "$TMP/flow.json" stopping.short_run.simulations)" == 0 ]] || fail "flow: short runs"
assert_stdout_contains "short runs   off: a job flow"
run_status 2 "$SONICSIM" plan "$RR" "${ARGS[@]}" --short-run 1.5 -o "$TMP/bad.json"
assert_stderr_contains "--short-run: found 1.5"
assert_no_file "$TMP/bad.json"
finish
