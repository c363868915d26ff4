# sonicsim calibrate perf-analyzer --triton-config: the measured server's settings come from its
# config.pbtxt, read as a scenario's triton_config is; flags override single fields and
# `server.from` says which; what the config reader refuses is refused here too (exit 2, the file
# named, no output left behind).
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool
CONFIGS="$SRC/tests/data/triton"
REF="$SRC/../shared/reference/triton-configs"

# A scan consistent with Little's law, made by the emulation: 4-item requests at concurrency 1-4.
cat >"$TMP/s.json" <<'JSON'
{"name": "m", "duration": "10s",
 "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": 0,
              "requests": [{"model": "m", "offload_fraction": 0}]},
 "models": {"m": {"input_bytes_per_item": 0, "output_bytes_per_item": 0,
   "service_time": {"batch": [1, 256], "seconds": ["1ms", "11.2ms"]},
   "max_batch_size": 256, "dynamic_batching": {"preferred_batch_size": [64, 128]}}},
 "servers": [{"name": "g", "count": 1, "device": "GPU", "models": ["m"]}]}
JSON
for b in 4 8; do
  run_ok "$SONICSIM" perf-analyzer --scenario "$TMP/s.json" -m m --concurrency-range 1:4 -b $b \
    -o "$TMP/m_batch$b.csv"
done
SCAN="$TMP/m_batch4.csv"

# The config's settings (batching.pbtxt: 256, preferred 64 and 128, 250 us, 2 instances per GPU).
CONFIG="$CONFIGS/batching.pbtxt"
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  -o "$TMP/cfg.json"
assert_jq "$TMP/cfg.json" '.server.max_batch_size == 256' "max_batch_size from the config"
assert_jq "$TMP/cfg.json" '.server.dynamic_batching.preferred_batch_size == [64, 128]' \
  "preferred_batch_size from the config"
assert_jq "$TMP/cfg.json" '.server.dynamic_batching.max_queue_delay == 0.00025' \
  "max_queue_delay_microseconds 250 from the config"
assert_jq "$TMP/cfg.json" '.server.instances == 2' "instance_group count from the config"
assert_jq "$TMP/cfg.json" ".server.from == \"$CONFIG\"" "server.from is the config"
assert_jq "$TMP/cfg.json" \
  ".server.triton_config.path == \"$CONFIG\" and (.server.triton_config.sha256 | length == 64)" \
  "the config's path and checksum are recorded"
assert_jq "$TMP/cfg.json" '.command | contains("--triton-config")' "the command is recorded"

# A flag overrides one field; the others stay the config's, and server.from says which.
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  --max-batch-size 0 -o "$TMP/over.json"
assert_jq "$TMP/over.json" '.server.max_batch_size == 0' "--max-batch-size 0 wins"
assert_jq "$TMP/over.json" \
  '.server.instances == 2 and .server.dynamic_batching.preferred_batch_size == [64, 128]' \
  "the other fields are still the config's"
assert_jq "$TMP/over.json" \
  ".server.from == \"$CONFIG (max_batch_size overridden by --max-batch-size 0)\"" \
  "server.from names the overridden field and the flag"
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  --instances 1 --preferred-batch-size 8 --json
assert_stdout_contains '"instances": 1,'
assert_stdout_contains "(preferred_batch_size overridden by --preferred-batch-size 8; instance_group overridden by --instances 1)"
# A server measured without the config's preferred sizes (DeepMET's and DeepTau's scans).
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  --no-preferred-batch-size -o "$TMP/nopref.json"
assert_jq "$TMP/nopref.json" \
  '.server.dynamic_batching.preferred_batch_size == null and .server.max_batch_size == 256' \
  "--no-preferred-batch-size drops the preferred sizes only"
assert_jq "$TMP/nopref.json" \
  '.server.from | endswith("(preferred_batch_size removed by --no-preferred-batch-size)")' \
  "server.from says the preferred sizes were removed"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  --no-preferred-batch-size --preferred-batch-size 8
assert_stderr_contains "--no-preferred-batch-size: found with --preferred-batch-size"

# Batching flags over a config without dynamic_batching turn it on, and say so. (Without
# batching every execution is one request, so the curve needs a second batch size.)
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" "$TMP/m_batch8.csv" --model m \
  --triton-config "$CONFIGS/no_batching.pbtxt" -o "$TMP/nb.json"
assert_jq "$TMP/nb.json" '.server.dynamic_batching == null and .server.max_batch_size == 8' \
  "no dynamic_batching block: no dynamic batching"
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/no_batching.pbtxt" --preferred-batch-size 4 -o "$TMP/nb2.json"
assert_jq "$TMP/nb2.json" '.server.dynamic_batching.preferred_batch_size == [4]' \
  "--preferred-batch-size turns batching on"
assert_jq "$TMP/nb2.json" '.server.from | contains("dynamic_batching, absent there, set by --preferred-batch-size 4")' \
  "server.from says the flag turned batching on"

# Instance groups a pool cannot represent: refused, unless --instances says what ran.
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/instance_groups_mixed.pbtxt" -o "$TMP/bad.json"
assert_stderr_contains "instance_groups_mixed.pbtxt"
assert_stderr_contains "give --instances"
assert_no_file "$TMP/bad.json"
# (These fixtures allow 4 items and no batching: the flags lift that so the scans calibrate.)
LIFT=(--max-batch-size 0 --preferred-batch-size 8)
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" "$TMP/m_batch8.csv" --model m \
  --triton-config "$CONFIGS/instance_groups_mixed.pbtxt" --instances 3 "${LIFT[@]}" \
  -o "$TMP/mixed.json"
assert_jq "$TMP/mixed.json" '.server.instances == 3' "--instances replaces the groups"
assert_jq "$TMP/mixed.json" '.server.from | endswith("instance_group overridden by --instances 3)")' \
  "server.from says --instances replaced the groups"
# Host groups add up per server (1 KIND_CPU + 3 KIND_MODEL); GPU groups count per GPU.
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" "$TMP/m_batch8.csv" --model m \
  --triton-config "$CONFIGS/instance_groups_cpu.pbtxt" "${LIFT[@]}" -o "$TMP/cpu.json"
assert_jq "$TMP/cpu.json" '.server.instances == 4' "KIND_CPU and KIND_MODEL counts summed"
run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" "$TMP/m_batch8.csv" --model m \
  --triton-config "$CONFIGS/instance_groups.pbtxt" "${LIFT[@]}" -o "$TMP/gpu.json"
assert_jq "$TMP/gpu.json" '.server.instances == 2' "2 per listed GPU, the passive group skipped"

# What the config reader refuses: exit 2, the flag and the file named, nothing written.
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/ensemble.pbtxt" -o "$TMP/bad.json"
assert_stderr_contains "--triton-config: in Triton config \`$CONFIGS/ensemble.pbtxt\`"
assert_stderr_contains "is an ensemble of the steps \`preprocess\`, \`classifier\`"
assert_no_file "$TMP/bad.json"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$TMP/missing/config.pbtxt" -o "$TMP/bad.json"
assert_stderr_contains "cannot read Triton config \`$TMP/missing/config.pbtxt\`"
assert_no_file "$TMP/bad.json"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/sequence.pbtxt"
assert_stderr_contains "sequence.pbtxt"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/malformed.pbtxt"
assert_stderr_contains "malformed.pbtxt\`: line 5, column 46"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIGS"
assert_stderr_contains "expected a config.pbtxt file"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config ""
assert_stderr_contains "--triton-config: found an empty path"

# Settings that contradict each other: exit 2, naming where each came from.
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --triton-config "$CONFIG" \
  --max-batch-size 100
assert_stderr_contains "below the preferred_batch_size 128 of $CONFIG"
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m --no-dynamic-batching \
  --preferred-batch-size 4
assert_stderr_contains "--no-dynamic-batching: found with --preferred-batch-size"
# Triton's max_batch_size 0 (no batch dimension) allows one item per request.
run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model m \
  --triton-config "$CONFIGS/no_batch_dimension.pbtxt"
assert_stderr_contains "above max_batch_size 1 of $CONFIGS/no_batch_dimension.pbtxt (max_batch_size 0 read as 1 item per execution"

# The real CMS configs: DeepMET's documented override, and the DeepTau ensemble refused.
if [[ -d "$REF" ]]; then
  run_ok "$SONICSIM" calibrate perf-analyzer "$SCAN" --model deepmet \
    --triton-config "$REF/deepmet/config.pbtxt" --max-batch-size 0 -o "$TMP/deepmet.json"
  assert_jq "$TMP/deepmet.json" \
    '.server.max_batch_size == 0 and .server.dynamic_batching.preferred_batch_size == [8, 16]' \
    "deepmet: preferred sizes from its config, no batch limit"
  assert_jq "$TMP/deepmet.json" \
    '.server.from | endswith("deepmet/config.pbtxt (max_batch_size overridden by --max-batch-size 0)")' \
    "deepmet: server.from records the override"
  run_status 2 "$SONICSIM" calibrate perf-analyzer "$SCAN" --model deeptau \
    --triton-config "$REF/deeptau_ensemble/config.pbtxt"
  assert_stderr_contains "deeptau_ensemble/config.pbtxt"
  assert_stderr_contains "is an ensemble"
else
  echo "# reference configs not found at $REF: checks on them skipped"
fi
finish
