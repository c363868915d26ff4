# cli_devices: `sonicsim devices` lists the device catalogue as a table and as JSON, shows one
# entry by any of its names, refuses an unknown name with exit 2 and a did-you-mean; a run of a T4
# scenario without power or memory reports both from the catalogue, its device energy is the
# catalogue's idle-to-limit line integrated over the pool's utilization, the same seed gives the
# same bytes, and "catalogue": false takes the figures away.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

run_ok "$SONICSIM" devices
for text in "T4" "Tesla-T4" "A100-SXM4-80GB" "NVIDIA-A100-80GB-PCIe" "MI100" "Alveo-U250" \
  "Brainwave" "70 W" "17.5 W (est.)" "16.0 GiB" "NVIDIA T4 datasheet" "25% of the power limit"; do
  assert_stdout_contains "$text"
done

run_ok "$SONICSIM" devices --json
cp "$OUT" "$TMP/devices.json"
assert_json "$TMP/devices.json"
assert_jq "$TMP/devices.json" 'length == 19' "19 entries"
assert_jq "$TMP/devices.json" '.[0].name == "T4" and .[0].power_limit_w == 70 and .[0].idle_power_w == 17.5'
assert_jq "$TMP/devices.json" \
  'all(.[]; (.idle_power_w == null) or (.idle_power_estimate and (.idle_power_source | startswith("estimate:"))))' \
  "every idle power is marked an estimate"
assert_jq "$TMP/devices.json" 'all(.[]; (.power_limit_source | length) > 0 and (.memory_source | length) > 0)' \
  "every figure has a source"

run_ok "$SONICSIM" devices tesla-t4
assert_stdout_contains "T4: NVIDIA T4"
assert_stdout_contains "17179869184 B"
assert_stdout_contains "estimate: no vendor publishes an idle power"
run_ok "$SONICSIM" devices NVIDIA-A100-SXM4-80GB --json
cp "$OUT" "$TMP/a100.json"
assert_jq "$TMP/a100.json" '.name == "A100-SXM4-80GB" and .memory_bytes == 85899345920 and .power_limit_w == 400'

refused 'did you mean `T4`?' "$SONICSIM" devices T5
assert_stderr_contains 'found "T5", which the device catalogue does not know'
refused 'did you mean `MI100`?' "$SONICSIM" devices MI10O --json

# A short default scenario (8 T4s, no `devices`): power and memory from the catalogue.
SHORT=(--set duration=5min --set warmup=1min)
run_ok "$SONICSIM" run scenarios/default.json "${SHORT[@]}" -o "$TMP/a.json"
assert_stdout_contains "device     T4                   catalogue T4: memory 16.0 GiB (catalogue), power 17.5 W idle (catalogue estimate) to 70 W busy (catalogue)"
assert_stdout_contains "energy     "
assert_jq "$TMP/a.json" '.devices.T4.catalogue == "T4" and .devices.T4.power_idle_from == "catalogue-estimate"'
assert_jq "$TMP/a.json" '.servers[0].memory_capacity_bytes == 17179869184'
# By hand: each of the pool's devices draws 17.5 W, plus 52.5 W while busy, over 4 minutes.
assert_jq "$TMP/a.json" '
  (.simulated_time_s - .warmup_s) as $t | .servers[0] as $p
  | ($p.count * $t * 17.5 + 52.5 * $t * $p.count * $p.utilization) as $hand
  | ((.energy.components.devices - $hand) | fabs) < 1e-9 * $hand' \
  "device energy = count x T x (17.5 W + 52.5 W x utilization)"

run_ok "$SONICSIM" run scenarios/default.json "${SHORT[@]}" -o "$TMP/b.json"
strip_perf() { sed '/^  "perf": {/,/^  }/d' "$1"; }
cmp -s <(strip_perf "$TMP/a.json") <(strip_perf "$TMP/b.json") ||
  fail "the same seed gave different results outside perf"
pass "same seed, same bytes"

run_ok "$SONICSIM" run scenarios/default.json "${SHORT[@]}" --set 'devices={"T4": {"catalogue": false}}' \
  -o "$TMP/off.json"
assert_jq "$TMP/off.json" '(has("energy") or has("devices") or (.servers[0] | has("memory_capacity_bytes"))) | not' \
  "catalogue false: no energy, no device figures, no memory"
run_ok "$SONICSIM" run scenarios/default.json "${SHORT[@]}" --set 'devices={"T4": {"power": {"idle": "36W"}}}' \
  -o "$TMP/idle.json"
assert_jq "$TMP/idle.json" '.devices.T4.power_idle_w == 36 and .devices.T4.power_idle_from == "scenario" and .devices.T4.power_busy_from == "catalogue"'

refused 'devices.T4.catalogue: found "T44"' "$SONICSIM" validate scenarios/default.json \
  --set 'devices={"T4": {"catalogue": "T44"}}'
assert_stderr_contains 'did you mean `T4`?'
finish
