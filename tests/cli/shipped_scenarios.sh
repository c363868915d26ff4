# cli_shipped_scenarios: every scenario shipped under scenarios/ passes `sonicsim validate` and the
# JSON Schema docs/scenario.schema.json; every example in scenarios/examples/ runs end to end.
# The schema check needs Debian's python3-jsonschema (scripts/test.sh installs it); without it
# the other checks still run and the test then ends as skipped.
source "$(dirname "$0")/lib.sh" "$@"

# (A gallery folder's figures.json is not a scenario: cli_gallery checks it. NAME.uncertainty.json
# is an uncertainty block for `plan --uncertainty`: cli_plan_robust reads one.)
mapfile -t SCENARIOS < <(find scenarios -name '*.json' ! -name figures.json ! -name '*.uncertainty.json' \
  -type f | LC_ALL=C sort)
((${#SCENARIOS[@]} > 0)) || fail "no scenarios found under $SRC/scenarios"
mapfile -t EXAMPLES < <(find scenarios/examples -maxdepth 1 -name '*.json' \
  ! -name '*.uncertainty.json' -type f | LC_ALL=C sort)
((${#EXAMPLES[@]} >= 10)) || fail "expected at least 10 examples in scenarios/examples, found ${#EXAMPLES[@]}"
pass "${#SCENARIOS[@]} shipped scenarios, ${#EXAMPLES[@]} examples"

# 1. The simulator's own validation.
for s in "${SCENARIOS[@]}"; do
  run_ok "$SONICSIM" validate "$s"
done

# 2. Every example runs, quietly, to a results file; each has a name and a description saying
#    what to look at, and the README lists it.
for s in "${EXAMPLES[@]}"; do
  b="$(basename "$s" .json)"
  grep -q '"description": *"[^"]\{80,\}' "$s" || fail "$s: no (or a too short) description"
  grep -qF "($b.json)" scenarios/examples/README.md || fail "scenarios/examples/README.md does not list $b.json"
  start=$(date +%s%N)
  run_ok timeout 120 "$SONICSIM" run "$s" -q -o "$TMP/$b.results.json"
  ms=$((($(date +%s%N) - start) / 1000000))
  [[ ! -s "$OUT" ]] || fail "run -q printed something on stdout"
  assert_file "$TMP/$b.results.json"
  echo "# $b: ${ms} ms"
done

# 3. The JSON Schema: it must exist and be a valid schema, and accept every shipped scenario.
SCHEMA=docs/scenario.schema.json
[[ -f $SCHEMA ]] || fail "$SCHEMA does not exist: the scenario format must ship a JSON Schema (SPEC section 5)"
PY=/usr/bin/python3
[[ -x $PY ]] || PY="$(command -v python3 || true)"
if [[ -z $PY ]] || ! "$PY" -c 'import jsonschema' 2>/dev/null; then
  skip "python3-jsonschema is not installed: $SCHEMA not checked (sonicsim validate and the runs passed)"
fi
cat >"$TMP/check_schema.py" <<'PY'
import json, sys
import jsonschema

schema_path, files = sys.argv[1], sys.argv[2:]
with open(schema_path) as f:
    schema = json.load(f)
cls = jsonschema.validators.validator_for(schema)
try:
    cls.check_schema(schema)
except jsonschema.exceptions.SchemaError as e:
    print(f"{schema_path}: not a valid {cls.__name__} schema: {e.message}")
    sys.exit(1)
validator = cls(schema)
problems = 0
for path in files:
    with open(path) as f:
        doc = json.load(f)
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        where = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in e.absolute_path)
        print(f"{path}: {where.lstrip('.') or '(document)'}: {e.message[:400]}")
        problems += 1
print(f"{len(files)} scenarios checked against {schema_path} ({cls.__name__}): {problems} problems")
sys.exit(1 if problems else 0)
PY
run_ok "$PY" "$TMP/check_schema.py" "$SCHEMA" "${SCENARIOS[@]}"
assert_stdout_contains ": 0 problems"

# The shipped calibrations are the same wherever they are regenerated: they name their sources by
# paths relative to the repository, never the absolute paths of the machine that made them.
if grep -rlE '"(/|[A-Za-z]:\\)[^"]*\.(csv|pbtxt)"|(^| )/[^ ]*/shared/reference' "$SRC/calibration"; then
  fail "a shipped calibration records an absolute path (scripts/calibrate-cms.sh makes them relative)"
fi
pass "shipped calibrations record relative paths"

finish
