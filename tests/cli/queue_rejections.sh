# Requests Triton's queue policy rejects, per model in the results: a model past saturation with
# max_queue_size, next to one that never waits. Its `rejected` count is the run's failed
# requests (no other model fails), split by reason, and conservation still holds.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

# 40 threads each wanting a 10 ms execution every ~10 ms from one device: 40 times what it
# serves, so the queue of 4 is always full. The other model has a device of its own.
cat >"$TMP/q.json" <<'JSON'
{"name": "queue-full", "seed": 3, "duration": "20s", "warmup": "2s",
 "workload": {"jobs": 40, "threads_per_job": 1, "cpu_time_per_event": "10ms",
              "requests": [{"model": "busy", "offload_fraction": 0},
                           {"model": "idle", "offload_fraction": 0}]},
 "models": {
   "busy": {"input_bytes_per_item": 0, "output_bytes_per_item": 0,
            "service_time": {"batch": [1], "seconds": ["10ms"]}, "max_batch_size": 1,
            "dynamic_batching": {"max_queue_size": 4}},
   "idle": {"input_bytes_per_item": 0, "output_bytes_per_item": 0,
            "service_time": {"batch": [1], "seconds": ["100us"]}}},
 "servers": [{"name": "a", "count": 1, "device": "GPU", "models": ["busy"]},
             {"name": "b", "count": 1, "device": "GPU", "models": ["idle"]}]}
JSON
CONSERVED='.requests.sent == .requests.completed + .requests.failed + .requests.fallback + .requests.in_flight_at_end'
SPLIT='[.models[] | .rejected == .rejected_by.queue_full + .rejected_by.timeout + .rejected_by.above_max_batch_size] | all'

run_ok "$SONICSIM" run "$TMP/q.json" -o "$TMP/full.json"
assert_json_has "$TMP/full.json" .models.busy rejected rejected_by requests executions
assert_jq "$TMP/full.json" '.models.busy.rejected > 1000' "past saturation, busy rejects requests"
assert_jq "$TMP/full.json" '.models.busy.rejected == .requests.failed' \
  "busy's rejected count is the run's failed requests"
assert_jq "$TMP/full.json" '.models.busy.rejected_by.queue_full == .models.busy.rejected' \
  "every one for a full queue"
assert_jq "$TMP/full.json" '.models.idle.rejected == 0' "the model with room rejects nothing"
assert_jq "$TMP/full.json" "$SPLIT" "the reasons add up to rejected"
assert_jq "$TMP/full.json" "$CONSERVED" "sent = completed + failed + fallback + in_flight_at_end"
assert_stdout_contains "rejected: "
assert_stdout_contains " queue full, 0 timed out, 0 above max_batch_size"

# A timeout under REJECT, and requests larger than max_batch_size (a lognormal item count has no
# upper end, so the loader cannot refuse it): each counted under its own reason.
run_ok "$SONICSIM" run "$TMP/q.json" --set 'models.busy.dynamic_batching={"default_timeout": "30ms"}' \
  --set 'workload.requests.0.items={"dist": "lognormal", "mean": 1.2, "cv": 0.5}' \
  -o "$TMP/timeout.json"
assert_jq "$TMP/timeout.json" \
  '.models.busy.rejected_by.timeout > 0 and .models.busy.rejected_by.above_max_batch_size > 0 and .models.busy.rejected_by.queue_full == 0' \
  "timeouts and oversized requests counted apart"
assert_jq "$TMP/timeout.json" '.models.busy.rejected == .requests.failed' \
  "rejected is still the run's failed requests"
assert_jq "$TMP/timeout.json" "$SPLIT" "the reasons add up to rejected"
assert_jq "$TMP/timeout.json" "$CONSERVED" "conservation with timeouts"

# Below saturation nothing is rejected and the keys are still there.
run_ok "$SONICSIM" run "$TMP/q.json" --set workload.jobs=1 -o "$TMP/light.json"
assert_jq "$TMP/light.json" '[.models[].rejected] == [0, 0] and .requests.failed == 0' \
  "no rejections below saturation"
finish
