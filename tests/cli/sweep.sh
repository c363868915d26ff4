# cli_sweep: `sonicsim sweep` and `sonicsim merge`. The swept N_CPU reproduces the formula's
# knee; bad flags exit 2 naming the flag; a failing point is isolated; an interrupted or truncated
# sweep resumes to the same bytes; shards merge to the same bytes and shards of different sweeps
# are refused; replication intervals cover a known mean at about their 95% rate.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
command -v jq >/dev/null || skip "jq is required to compare JSONL files (scripts/test.sh installs it)"

KNEE=scenarios/examples/formula-knee.json
POISSON=tests/data/sweep_poisson.json

# --- Bad flags: exit 2, the flag, what was found and what is expected; no file left -----------
mkdir -p "$TMP/bad"
bad() {  # bad "STDERR TEXT" ARGS...
  local expect="$1"; shift
  run_status 2 "$SONICSIM" sweep "$KNEE" -o "$TMP/bad/s.csv" "$@"
  assert_stderr_contains "$expect"
  [[ -z "$(ls -A "$TMP/bad")" ]] || fail "an output file was left behind: $(ls -A "$TMP/bad")"
}
bad "--param: \`workload.jobs=50:600\`: found a range of 2 parts, expected A:B:STEP" \
  --param workload.jobs=50:600
bad "--param: \`workload.jobs=1:8:0\`: found STEP = 0, expected a non-zero STEP" \
  --param workload.jobs=1:8:0
bad "found units \"ms\" and \"s\", expected the same unit" --param duration=1ms:1s:1ms
bad "--param: \`x=log:1:64:1\`: found N = \"1\", expected an integer N >= 2" --param x=log:1:64:1
bad "--param: \`workload.jobs\`: found no PATH=" --param workload.jobs
bad "--param: \`workload.jobz=1,2\`: the scenario accepts none of its values" \
  --param workload.jobz=1,2
bad "did you mean" --param workload.jobz=1,2
bad "--zip: \`workload.jobs,servers.0.count\`: found \`servers.0.count\`, which no --param sets" \
  --param workload.jobs=1,2 --zip workload.jobs,servers.0.count
bad "found 2 values of \`workload.jobs\` and 3 of \`servers.0.count\`" --param workload.jobs=1,2 \
  --param servers.0.count=1,2,4 --zip workload.jobs,servers.0.count
bad "--shard: found \"0/3\", expected I/N" --shard 0/3 --param workload.jobs=1,2
bad "--replications" --replications 0
run_status 2 "$SONICSIM" sweep "$TMP/missing.json" -o "$TMP/bad/s.csv"
assert_stderr_contains "$TMP/missing.json: cannot read the scenario file"

# --- The knee: N_CPU/N_GPU from 1 to 20 on 2 GPUs (deterministic scenario) --------------------
run_ok "$SONICSIM" sweep "$KNEE" --set workload.threads_per_job=1 --set servers.0.count=2 \
  --param workload.jobs=2:40:2 -o "$TMP/knee.csv"
(($(wc -l <"$TMP/knee.csv") == 21)) || fail "knee.csv: expected a header and 20 rows"
pass "knee.csv has a header and 20 rows"
read -r knee formula < <(awk -F, -v n="$(col "$TMP/knee.csv" param.workload.jobs)" \
  -v x="$(col "$TMP/knee.csv" events.throughput_per_s.mean)" \
  -v k="$(col "$TMP/knee.csv" analytic.saturation_n_cpu_per_gpu.mean)" '
  NR == 1 { next }
  { r = $n / 2; f = $k }
  r <= 4 { slope += $x / $n; ns++ }    # below the knee: X = N / t_ideal
  r >= 10 { top += $x; nt++ }          # saturated: X = N_GPU / t_GPU
  END { print (top / nt) / (slope / ns) / 2, f }' "$TMP/knee.csv")
near "$knee" "$formula" 0.02 || fail "simulated knee $knee per GPU, formula $formula (> 2% apart)"
pass "simulated knee $knee threads per GPU, formula t_ideal/t_GPU = $formula (within 2%)"

# --- Failure isolation: one invalid point fails, the others run; exit 3 ------------------------
run_status 3 "$SONICSIM" sweep "$KNEE" --param workload.jobs=2,0,4 -o "$TMP/fail.csv"
assert_stderr_contains "point 1: "
status_col="$(col "$TMP/fail.csv" status)"
[[ "$(cut -d, -f"$status_col" "$TMP/fail.csv" | tr '\n' ' ')" == "status ok failed ok " ]] ||
  fail "fail.csv: statuses $(cut -d, -f"$status_col" "$TMP/fail.csv" | tr '\n' ' ')"
pass "fail.csv: points 0 and 2 ok, point 1 failed"
grep -q '^[0-9a-f]*,1,3,0,0,failed,".*workload.jobs: found 0, expected an integer' "$TMP/fail.csv" ||
  fail "fail.csv: the failed row does not carry the loader's error"
pass "the failed row carries the error naming workload.jobs"
# Every row has the header's number of fields once quoting is understood (what pandas sees).
PY3=/usr/bin/python3
[[ -x $PY3 ]] || PY3=python3
$PY3 - "$TMP/fail.csv" <<'PY' || fail "fail.csv: rows with another number of fields"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
sys.exit(0 if len({len(r) for r in rows}) == 1 and len(rows) == 4 else 1)
PY
pass "fail.csv: 4 rows of equal width for a CSV reader"
[[ "$(jq -s -c '[.[] | .ok]' "$TMP/fail.jsonl")" == "[true,false,true]" ]] &&
  jq -s -e '.[1].error | contains("workload.jobs")' "$TMP/fail.jsonl" >/dev/null ||
  fail "fail.jsonl: expected runs ok, failed (naming workload.jobs), ok"
pass "fail.jsonl: the failed run carries its error, the others their results"

# --- Resume: Ctrl-C mid-sweep, then --resume: the same bytes as an uninterrupted sweep ---------
# The sanitizer pass (SONICSIM_TEST_QUICK=1) simulates 2 min a run instead of 10: the same
# resume, cut and shard code on a fifth of the events (this part was 90 s of the ASan pass).
DUR=10min
[[ $QUICK == 1 ]] && DUR=2min
ARGS=("$KNEE" --param workload.jobs=1:16:1 --param servers.0.count=1,2 --set duration=$DUR
  --replications 2)
run_ok "$SONICSIM" sweep "${ARGS[@]}" -o "$TMP/ref.csv"
"$SONICSIM" sweep "${ARGS[@]}" --workers 1 -o "$TMP/int.csv" >/dev/null 2>"$TMP/int.err" &
pid=$!
for _ in $(seq 400); do
  [[ -f "$TMP/int.csv" ]] && (($(wc -l <"$TMP/int.csv") >= 5)) && break
  sleep 0.05
done
kill -INT "$pid"
status=0
wait "$pid" || status=$?
((status == 130)) || fail "interrupted sweep: exit $status, expected 130 ($(cat "$TMP/int.err"))"
pass "interrupted sweep: exit 130"
grep -q "run the same command with --resume" "$TMP/int.err" || fail "no --resume hint"
rows=$(($(wc -l <"$TMP/int.csv") - 1))
((rows >= 4 && rows < 32)) || fail "interrupted sweep: $rows rows, expected a part of 32"
awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$TMP/int.csv" || fail "int.csv: ragged rows"
pass "interrupted sweep left $rows whole rows"
run_ok "$SONICSIM" sweep "${ARGS[@]}" -o "$TMP/int.csv" --resume
assert_stdout_contains "kept from before"
same_bytes "$TMP/int.csv" "$TMP/ref.csv"
same_results "$TMP/int.jsonl" "$TMP/ref.jsonl"

# A file cut mid-line (a killed writer) resumes too.
head -c 20000 "$TMP/ref.csv" >"$TMP/cut.csv"
head -n 9 "$TMP/ref.jsonl" >"$TMP/cut.jsonl"
sed -n 10p "$TMP/ref.jsonl" | head -c 300 >>"$TMP/cut.jsonl"
run_ok "$SONICSIM" sweep "${ARGS[@]}" -o "$TMP/cut.csv" --resume
assert_stdout_contains "4 kept from before"
same_bytes "$TMP/cut.csv" "$TMP/ref.csv"
same_results "$TMP/cut.jsonl" "$TMP/ref.jsonl"
# Resuming into another sweep's file is refused.
run_status 2 "$SONICSIM" sweep "$KNEE" --param workload.jobs=1:4:1 -o "$TMP/cut.csv" --resume
assert_stderr_contains "cut.jsonl: line 1: found sweep_id"
assert_stderr_contains "resume only the same sweep"

# --- Shards: three slices merge to the unsharded bytes ----------------------------------------
for i in 1 2 3; do run_ok "$SONICSIM" sweep "${ARGS[@]}" --shard "$i/3" -o "$TMP/shard$i.csv"; done
run_ok "$SONICSIM" merge "$TMP/shard1.csv" "$TMP/shard2.csv" "$TMP/shard3.csv" -o "$TMP/all.csv"
same_bytes "$TMP/all.csv" "$TMP/ref.csv"
same_results "$TMP/all.jsonl" "$TMP/ref.jsonl"
run_status 3 "$SONICSIM" merge "$TMP/shard1.csv" "$TMP/shard3.csv" -o "$TMP/part.csv"
assert_stderr_contains "11 of 32 points missing: 1, 4, 7"
# A shard of another sweep (other replications) is refused, and nothing is written.
run_ok "$SONICSIM" sweep "$KNEE" --param workload.jobs=1:16:1 --param servers.0.count=1,2 \
  --set duration=$DUR --shard 2/3 -o "$TMP/other.csv"
run_status 2 "$SONICSIM" merge "$TMP/shard1.csv" "$TMP/other.csv" -o "$TMP/mixed.csv"
assert_stderr_contains "merge refuses to mix them"
assert_no_file "$TMP/mixed.csv"

# Files that are not sweep tables: exit 2 naming the file, the line and the column.
sed '3s/^\([0-9a-f]*\),\([0-9]*\),32,/\1,\2,x,/' "$TMP/shard1.csv" >"$TMP/bad-n.csv"
run_status 2 "$SONICSIM" merge "$TMP/bad-n.csv" "$TMP/shard2.csv" -o "$TMP/mixed.csv"
assert_stderr_contains "bad-n.csv: line 3, column n_points: found \"x\", expected the number of points"
run_status 2 "$SONICSIM" merge "$SRC/scenarios/examples/scan-measurements.csv" -o "$TMP/mixed.csv"
assert_stderr_contains "scan-measurements.csv: line 1: found a header starting"
assert_no_file "$TMP/mixed.csv"

# --- Zipped parameters move together -----------------------------------------------------------
run_ok "$SONICSIM" sweep "$KNEE" --param workload.jobs=2,4,8 --param servers.0.count=1,2,4 \
  --zip workload.jobs,servers.0.count -o "$TMP/zip.csv"
[[ "$(cut -d, -f4,5 "$TMP/zip.csv" | tr '\n' ' ')" == "param.workload.jobs,param.servers.0.count 2,1 4,2 8,4 " ]] ||
  fail "zip.csv: $(cut -d, -f4,5 "$TMP/zip.csv" | tr '\n' ' ')"
pass "zipped parameters: 3 points (2,1) (4,2) (8,4)"

# --- Replications: the 95% CI covers the known mean (400 events/s) about 95% of the time ------
if [[ $QUICK == 1 ]]; then
  echo "# quick: the coverage of 100 intervals is left to the Release pass"
  finish
fi
run_ok "$SONICSIM" sweep "$POISSON" --param seed=1:100:1 --replications 5 -o "$TMP/cov.csv"
read -r rate n < <(awk -F, -v m="$(col "$TMP/cov.csv" events.throughput_per_s.mean)" '
  NR == 1 { next }
  { d = $m - 400; if (d < 0) d = -d; if (d <= $(m + 1)) h++; n++ }
  END { print h / n, n }' "$TMP/cov.csv")
((n == 100)) || fail "cov.csv: $n points, expected 100"
float_cmp "$rate" ">=" 0.88 && float_cmp "$rate" "<=" 0.995 ||
  fail "95% intervals covered the true mean in $rate of 100 points"
pass "95% intervals (5 replications) covered the true mean in $rate of 100 points"
seeds="$(jq -r 'select(.point == 0) | .seed' "$TMP/cov.jsonl" | sort -u | wc -l)"
((seeds == 5)) || fail "point 0: $seeds distinct seeds over 5 replications"
pass "5 replications, 5 distinct seeds"

finish
