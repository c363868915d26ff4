# cli_hostile_memory: memory proportional to something the user did not mean to ask for (issue 16,
# class 2). Each case once read until memory ran out, aborted on std::bad_alloc (exit 134) or took
# gigabytes; now it ends at once with exit 2 (bad input: a file over its cap, JSON nested too
# deep, a run over the memory budget) or, when memory runs out all the same, exit 1 with a clear
# message; never a signal, and no output file left behind. Every run is bounded (timeout,
# address space) so that a regression fails here instead of eating the machine.
source "$(dirname "$0")/lib.sh" "$@"

RESULTS="$TMP/out.json"
DEFAULT=scenarios/default.json
TRITON=scenarios/examples/triton-config.json
MODEL=particlenet_ak4

# Input files: at most 16 MiB (scenario, config.pbtxt, calibration file, CSVs) are read, and only
# regular files: a device that never ends is refused before a byte is read (cli_hostile_files).
DEVICE="found a character device, expected a regular file"
refused "/dev/zero: $DEVICE" "$SONICSIM" run /dev/zero -o "$RESULTS"
refused "/dev/zero: $DEVICE" "$SONICSIM" validate /dev/zero
refused "cannot read Triton config \`/dev/zero\`: $DEVICE" \
  "$SONICSIM" run "$TRITON" --set "models.$MODEL.triton_config=\"/dev/zero\"" -o "$RESULTS"
refused "cannot read calibration file \`/dev/zero\`: $DEVICE" \
  "$SONICSIM" run "$TRITON" --set "models.$MODEL.service_time={\"calibration\":\"/dev/zero\"}" -o "$RESULTS"
refused "/dev/zero: $DEVICE" \
  "$SONICSIM" calibrate perf-analyzer /dev/zero --model m -b 1 -o "$RESULTS"
truncate -s 17M "$TMP/big.json"
refused "big.json: found a file of 17.0 MiB, expected at most 16.0 MiB" "$SONICSIM" run "$TMP/big.json" -o "$RESULTS"

# JSON nesting: 40,000 nested arrays once took 3 GB in the loader.
python3 -c "print('[' * 40000 + ']' * 40000)" >"$TMP/deep.json"
refused "deep.json: line 1, column 65: found arrays and objects nested 40000 deep, expected at most 64" \
  "$SONICSIM" run "$TMP/deep.json" -o "$RESULTS"
python3 -c "print('{\"a\":' * 40000 + '1' + '}' * 40000)" >"$TMP/deep-results.json"
refused "deep-results.json: line 1, column 321: found arrays and objects nested 40000 deep" \
  "$SONICSIM" report "$TMP/deep-results.json"
deep_value=$(python3 -c "print('[' * 100 + ']' * 100)")
refused "workload.jobs: --set workload.jobs=[[[[[[[[[[[[[[[[[[[[...: the value's line 1, column 65: found arrays and objects nested 100 deep" \
  "$SONICSIM" run "$DEFAULT" --set "workload.jobs=$deep_value" -o "$RESULTS"

# config.pbtxt values go through the scenario's limits.
mkdir -p "$TMP/pb"
sed 's/dynamic_batching {/dynamic_batching {\n  priority_levels: 10000000\n  default_priority_level: 1/' \
  "scenarios/examples/triton-models/$MODEL/config.pbtxt" >"$TMP/pb/config.pbtxt"
refused "dynamic_batching: found priority_levels 10000000, expected at most 1000" \
  "$SONICSIM" run "$TRITON" --set "models.$MODEL.triton_config=\"$TMP/pb/config.pbtxt\"" -o "$RESULTS"

# The memory budget: refused before anything is allocated, with the estimate and its largest part.
refused "the run would need about 5.39 GB of memory, above a budget of 2.00 GiB; the largest parts: 1,000,000 servers ~ 5.34 GB" \
  "$SONICSIM" run "$DEFAULT" --set servers.0.count=1000000 --memory-budget 2GiB -o "$RESULTS"
assert_stderr_contains "raise the budget with --memory-budget SIZE"
refused "1,000,000 client threads holding 1,000,000,000 events in flight" \
  "$SONICSIM" run "$DEFAULT" --set workload.mode=async --set 'workload.async={"events_in_flight":1000}' \
  --set workload.jobs=250000 -o "$RESULTS"
refused "1,000,000 time-series windows of 266 values" \
  "$SONICSIM" run "$DEFAULT" --set duration=100000 --set 'timeseries={"interval":0.1}' --set servers.0.count=100 -o "$RESULTS"
assert_stderr_contains "the time series in the results (244,000,000 values as JSON and text)"
refused "7,176,080 traced requests ~ 135 GB" \
  "$SONICSIM" run "$DEFAULT" --trace "$TMP/trace.json" --trace-every 1 --trace-max 10000000 -o "$RESULTS"
assert_no_file "$TMP/trace.json"
refused "1,000,000 servers" "$SONICSIM" validate "$DEFAULT" --set servers.0.count=1000000 --memory-budget 2GiB
refused "--memory-budget: found \"lots\", expected a size such as 512MiB" \
  "$SONICSIM" run "$DEFAULT" --memory-budget lots -o "$RESULTS"
# Children (a sweep's points) refuse alike; the sweep goes on and reports the failed point.
run timeout 60 "${MEMORY_LIMIT[@]}" "$SONICSIM" sweep "$DEFAULT" --set duration=10s --set warmup=0 \
  --param servers.0.count=8,1000000 --memory-budget 1GiB -o "$TMP/sweep.csv"
((STATUS == 3)) || fail "sweep: exit status $STATUS (expected 3: some points failed)"
pass "sweep: the point over the budget failed, exit 3"
grep -q "1,000,000 servers" "$TMP/sweep.jsonl" || fail "the failed point's error lacks the estimate"
pass "the failed point names its estimate"

# Memory that runs out all the same (an address-space limit below the budget): exit 1 and a
# clear message, not an abort (134), and no output. A million servers of three models peak at
# about 2.3 GB resident (the estimate's 5.39 GB is a bound), so the limit here is 1.5 GB.
if asan_build; then
  pass "skipped under AddressSanitizer: an address-space limit cannot be set"
else
  saved_limit=("${MEMORY_LIMIT[@]}")
  MEMORY_LIMIT=(prlimit --as=1500000000)
  ends 1 "sonicsim run: memory ran out (the run's estimate was 5.39 GB against an unlimited budget" \
    "$SONICSIM" run "$DEFAULT" --set servers.0.count=1000000 --set duration=10s --set warmup=0 \
    --memory-budget unlimited -o "$RESULTS"
  assert_stderr_contains "no output was written"
  MEMORY_LIMIT=("${saved_limit[@]}")
fi
finish
