# cli_import_supersonic: `sonicsim import supersonic` turns SuperSONIC Helm values into a scenario
# that sonicsim runs as it is; bad values are refused (exit 2) naming the file, the key path and
# the line; --strict refuses unknown and not-mapped keys; a failed write is said.
source "$(dirname "$0")/lib.sh" "$@"
bound_every_run
need_json_tool
D=tests/data/supersonic
SC="$TMP/scenario.json"

# The happy path: the scenario, the report, and the scenario runs.
run_ok "$SONICSIM" import supersonic "$D/keda.yaml" --overlay "$D/overlay.json" -o "$SC" \
  --report "$TMP/report.json"
assert_json "$SC"
[[ $(json_get "$SC" servers.0.autoscaler.threshold) == 20ms ]] || fail "threshold: $(json_get "$SC" servers.0.autoscaler.threshold)"
[[ $(json_get "$SC" servers.0.count) == 6 ]] || fail "count"
[[ $(json_get "$SC" load_balancer.policy) == random ]] || fail "policy: RING_HASH without a hash_policy is random"
[[ $(json_get "$SC" workload.client.timeout) == 5s ]] || fail "timeout"
pass "the mapped keys are in the scenario"
assert_stdout_contains "servers[0].autoscaler.threshold <- serverLoadThreshold = 20"
assert_stdout_contains "servers[0].autoscaler.polling_interval = 30s  (chart 0.3.1 keda/so.yaml: pollingInterval 30)"
assert_stdout_contains "not relevant to the simulation"
assert_stdout_contains "scenario written to $SC"
assert_json "$TMP/report.json"
assert_json_has "$TMP/report.json" filled defaulted not_mapped not_relevant unknown notes
run_ok "$SONICSIM" validate "$SC"
run_ok "$SONICSIM" run "$SC" --set duration=30s -o "$TMP/results.json"
assert_json "$TMP/results.json"

# Several files: the later wins; -f adds files after the positional ones.
run_ok "$SONICSIM" import supersonic "$D/keda.yaml" -f "$D/later.yaml" --overlay "$D/overlay.json" -o "$SC"
[[ $(json_get "$SC" servers.0.autoscaler.threshold) == 50ms ]] || fail "later file did not win"
pass "-f later.yaml wins"

# --release names the pool when nameOverride is empty; --device names the device.
run_ok "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" -o "$SC" --release cms-prod
[[ $(json_get "$SC" servers.0.name) == cms-prod ]] || fail "--release"
pass "--release names the pool"

# Refusals: exit 2, the file, the key path, the line; nothing written.
RESULTS="$TMP/refused.json"
# values.schema.json's types, as Helm refuses the install; then what Envoy would refuse.
refused "$D/wrong_types.yaml: triton.replicas: line 2, column 13: found \"five\" (string), expected an integer" \
  "$SONICSIM" import supersonic "$D/wrong_types.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
assert_stderr_contains "keda.enabled: line 10, column 12: found maybe (string), expected a boolean"
assert_stderr_contains "Invalid type. Expected: integer, given: string"
assert_stderr_contains "did you mean \`LEAST_REQUEST\`?"
refused "$D/malformed.yaml: line " "$SONICSIM" import supersonic "$D/malformed.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
assert_stderr_contains "malformed YAML"
refused "nested deeper than 64" "$SONICSIM" import supersonic "$D/deep.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
refused "more than 100000 values" "$SONICSIM" import supersonic "$D/alias_bomb.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
printf 'triton:\n  replicas: -3\n' >"$TMP/negative.yaml"
refused "triton.replicas: line 2, column 13: found \"-3\"" \
  "$SONICSIM" import supersonic "$TMP/negative.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
head -c 1100000 /dev/zero | tr '\0' 'x' >"$TMP/huge.yaml"
refused "$TMP/huge.yaml" "$SONICSIM" import supersonic "$TMP/huge.yaml" --overlay "$D/overlay.json" -o "$RESULTS"
refused "duration: missing" "$SONICSIM" import supersonic "$D/minimal.yaml" -o "$RESULTS"
assert_stderr_contains "give it with --overlay"
refused "do not load as a scenario" "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" --device T4 -o "$RESULTS"

# Unknown keys: reported with a hint; --strict makes them (and not-mapped keys) exit 2.
run_ok "$SONICSIM" import supersonic "$D/typos.yaml" --overlay "$D/overlay.json" -o "$SC"
assert_stdout_contains "triton.replica = 4: did you mean \`replicas\`?"
refused "$D/typos.yaml: triton.replica: line 3: found an unknown key (did you mean \`replicas\`?) (--strict)" \
  "$SONICSIM" import supersonic "$D/typos.yaml" --overlay "$D/overlay.json" --strict -o "$RESULTS"
run_ok "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" --strict -o "$SC"
refused "triton.affinity: line 28: found NVIDIA-A100-80GB-PCIe, not mapped: other GPU products" \
  "$SONICSIM" import supersonic "$D/keda.yaml" --overlay "$D/overlay.json" --strict -o "$RESULTS"
unset RESULTS

# Relative paths the overlay holds (a calibration file) must resolve from where the scenario is
# written, as `run` will resolve them there.
mkdir -p "$TMP/site" "$TMP/elsewhere"
printf '{"service_time": {"batch": [1, 64], "seconds": [0.001, 0.01]}}\n' >"$TMP/site/pn.json"
sed 's|"Tesla-T4": {"batch": \[1, 16, 64\], "seconds": \[0.0012, 0.0034, 0.0118\]}|"Tesla-T4": {"calibration": "pn.json"}|' \
  "$D/overlay.json" >"$TMP/site/overlay.json"
grep -q '"calibration": "pn.json"' "$TMP/site/overlay.json" || fail "the overlay was not rewritten"
run_ok "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$TMP/site/overlay.json" -o "$TMP/site/twin.json"
run_ok "$SONICSIM" validate "$TMP/site/twin.json"
RESULTS="$TMP/elsewhere/twin.json"
refused "pn.json" "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$TMP/site/overlay.json" -o "$RESULTS"
unset RESULTS
# Bytes that are not UTF-8 (YAML is UTF-8; every key ends in JSON): refused with their place
# (found by the fuzzer: tests/fuzz/corpus/supersonic/crash-6d66d0...).
printf 'triton:\n  replicas: 2\nenvoy: caf\xc3\xa9 \xc4\xc4\n' > "$TMP/latin1.yaml"
refused "latin1.yaml: line 3, column 14: found the byte 0xC4, which is not UTF-8, expected UTF-8 text" \
  "$SONICSIM" import supersonic "$TMP/latin1.yaml" --overlay "$D/overlay.json" -o "$TMP/latin1.json"

# Output paths: a folder that does not exist is refused before the work (exit 2); a full disk
# is a failed write (exit 1); -o and --report may not name the same file.
run_status 2 "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" -o "$TMP/no/such/dir/s.json"
assert_stderr_contains "$TMP/no/such/dir/s.json"
if [[ -c /dev/full ]]; then
  run_status 1 "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" -o /dev/full
  assert_stderr_contains "/dev/full: write failed"
  run_status 1 "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" -o "$TMP/s2.json" --report /dev/full
  assert_no_file "$TMP/s2.json"
fi
run_status 2 "$SONICSIM" import supersonic "$D/minimal.yaml" --overlay "$D/overlay.json" -o "$TMP/same.json" --report "$TMP/same.json"
finish
