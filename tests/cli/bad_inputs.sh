# cli_bad_inputs: a catalogue of bad scenarios and bad command lines, run through the binary.
# Every case must exit with status 2 (bad input), name the file and the JSON path on stderr, and
# leave no output file behind: neither OUT.json nor a temporary `.OUT.json.*` next to it.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

BAD="$TMP/bad"
mkdir -p "$BAD"
CASES=0

# A valid base scenario touching most of the format; every bad file is one small edit of it.
BASE="$BAD/base.json"
cat >"$BASE" <<'JSON'
{
  "name": "bad-inputs-base",
  "description": "valid base of tests/cli/bad_inputs.sh",
  "seed": 1,
  "duration": "20s",
  "warmup": "2s",
  "workload": {
    "jobs": 4,
    "threads_per_job": 2,
    "jobs_per_node": 2,
    "mode": "sync",
    "cpu_time_per_event": {"dist": "lognormal", "mean": "100ms", "cv": 0.3},
    "requests": [
      {"model": "pn", "offload_fraction": 0.1, "per_event": 1,
       "items": {"dist": "empirical", "values": [2, 4, 8], "weights": [1, 2, 1]}}
    ]
  },
  "models": {
    "pn": {
      "input_bytes_per_item": "2.86kB",
      "output_bytes_per_item": "32B",
      "service_time": {"batch": [1, 16, 64], "seconds": [0.00124, 0.00339, 0.01182]},
      "max_batch_size": 64,
      "dynamic_batching": {"preferred_batch_size": [32], "max_queue_delay": "100us"},
      "instances": 1
    }
  },
  "servers": [
    {"name": "t4", "count": 2, "device": "T4", "models": ["pn"]}
  ],
  "network": {
    "client_nic": {"bandwidth": "10Gbps", "latency": "50us"},
    "site_uplink": {"bandwidth": "100Gbps", "latency": "100us"},
    "server_nic": {"bandwidth": "25Gbps", "latency": "50us"}
  }
}
JSON
run_ok "$SONICSIM" validate "$BASE"
run_ok "$SONICSIM" run "$BASE" -q -o "$TMP/base-results.json"
assert_file "$TMP/base-results.json"

# no_output_left DIR NAME: DIR holds neither NAME nor a temporary .NAME.* (it is otherwise empty).
no_output_left() {
  local dir="$1" name="$2"
  [[ ! -e "$dir/$name" ]] || fail "$name was written although the run failed"
  local left
  left="$(find "$dir" -mindepth 1 -maxdepth 1 -name ".$name.*" -print -quit)"
  [[ -z "$left" ]] || fail "temporary file left behind: ${left##*/}"
  [[ -z "$(ls -A "$dir")" ]] || fail "unexpected files left in the output folder: $(ls -A "$dir")"
  pass "no $name and no temporary .$name.* left"
}

# expect_bad NAME WHERE [TEXT...]: `sonicsim run $BAD/NAME.json -o OUT` exits with 2 (within
# 10 s), stderr has "$BAD/NAME.json: WHERE" (the file, then the JSON path or the position) and
# every TEXT, and no output is left behind.
expect_bad() {
  local name="$1" where="$2"; shift 2
  local file="$BAD/$name.json" out="$TMP/out-$name"
  CASES=$((CASES + 1))
  echo "# case $CASES: $name"
  mkdir -p "$out"
  run_status 2 timeout 10 "$SONICSIM" run "$file" -o "$out/results.json"
  assert_stderr_contains "$file: $where"
  local t
  for t in "$@"; do assert_stderr_contains "$t"; done
  no_output_left "$out" results.json
}

# bad NAME EDIT... : writes $BAD/NAME.json = the base with json_edit EDITs (PATH=JSON or -PATH).
bad() {
  local name="$1"; shift
  json_edit "$BASE" "$BAD/$name.json" "$@" || fail "cannot write the bad scenario $name"
}
# bad_raw NAME EDIT RAW: like bad with one edit PATH="__RAW__", then the JSON string "__RAW__"
# is replaced by RAW text that JSON tools cannot produce (1e400, NaN).
bad_raw() {
  bad "$1" "$2=\"__RAW__\""
  sed -i "s/\"__RAW__\"/$3/" "$BAD/$1.json"
  grep -qF -- "$3" "$BAD/$1.json" || fail "could not put $3 into $1.json"
}

# ---- malformed JSON ----------------------------------------------------------------------
head -c 200 "$BASE" >"$BAD/truncated.json"
expect_bad truncated "line " "invalid JSON"

printf '{"duration": "1min", "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": 1},}\n' \
  >"$BAD/trailing_comma.json"
expect_bad trailing_comma "line 1, column" "invalid JSON"

: >"$BAD/empty_file.json"
expect_bad empty_file "line 1, column 1" "invalid JSON"

printf '[]\n' >"$BAD/top_level_array.json"
expect_bad top_level_array "found an" "array" "expected a JSON object"

printf '{"duration": "1min", "duration": "2min", "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": 1}}\n' \
  >"$BAD/duplicate_key.json"
expect_bad duplicate_key "duration:" "duplicate key"

# ---- wrong types ---------------------------------------------------------------------------
bad jobs_string 'workload.jobs="many"'
expect_bad jobs_string "workload.jobs:" '"many"' "integer"

bad servers_object 'servers={"t4": 1}'
expect_bad servers_object "servers:" "expected an array"

bad max_batch_fraction 'models.pn.max_batch_size=4.5'
expect_bad max_batch_fraction "models.pn.max_batch_size:" "4.5" "integer"

bad mode_unknown 'workload.mode="parallel"'
expect_bad mode_unknown "workload.mode:" '"parallel"' '"sync"'

bad duration_missing -duration
expect_bad duration_missing "duration:" "missing"

bad request_model_missing -workload.requests.0.model
expect_bad request_model_missing "workload.requests[0].model:" "missing"

# ---- out of range: negative, zero, above one ---------------------------------------------
bad offload_negative 'workload.requests.0.offload_fraction=-0.1'
expect_bad offload_negative "workload.requests[0].offload_fraction:" "-0.1" "[0, 1]"

bad offload_above_one 'workload.requests.0.offload_fraction=1.5'
expect_bad offload_above_one "workload.requests[0].offload_fraction:" "1.5"

bad offload_sum_above_one 'workload.requests.1={"model": "pn", "offload_fraction": 0.95}'
expect_bad offload_sum_above_one "workload.requests:" "1.05"

bad jobs_zero 'workload.jobs=0'
expect_bad jobs_zero "workload.jobs:" "found 0"

bad duration_zero 'duration=0'
expect_bad duration_zero "duration:" "found 0"

bad warmup_negative 'warmup="-5s"'
expect_bad warmup_negative "warmup:" '"-5s"'

bad warmup_after_end 'warmup="1min"'
expect_bad warmup_after_end "warmup:" '"1min"'

bad bandwidth_zero 'network.site_uplink.bandwidth=0'
expect_bad bandwidth_zero "network.site_uplink.bandwidth:" "found 0"

bad latency_negative 'network.client_nic.latency="-1ms"'
expect_bad latency_negative "network.client_nic.latency:" '"-1ms"'

bad count_zero 'servers.0.count=0'
expect_bad count_zero "servers[0].count:" "found 0"

# ---- NaN and infinities ------------------------------------------------------------------
bad_raw duration_1e400 duration 1e400
expect_bad duration_1e400 "duration:" "1e400" "finite"

bad_raw cpu_mean_1e400 workload.cpu_time_per_event.mean 1e400
expect_bad cpu_mean_1e400 "workload.cpu_time_per_event.mean:" "1e400"

bad_raw nan_literal workload.requests.0.offload_fraction NaN
expect_bad nan_literal "line " "invalid JSON"

bad nan_string 'duration="NaN"'
expect_bad nan_string "duration:" '"NaN"'

bad inf_string 'workload.cpu_time_per_event="inf"'
expect_bad inf_string "workload.cpu_time_per_event:" '"inf"'

# ---- bad units ---------------------------------------------------------------------------
bad unit_time 'duration="10 parsecs"'
expect_bad unit_time "duration:" "parsecs" "ms"

bad unit_bandwidth 'network.site_uplink.bandwidth="10Gb"'
expect_bad unit_bandwidth "network.site_uplink.bandwidth:" '"10Gb"' "Gbps"

bad unit_size 'models.pn.input_bytes_per_item="5mb"'
expect_bad unit_size "models.pn.input_bytes_per_item:" '"5mb"' "MB"

# ---- unknown keys, with a did-you-mean hint ----------------------------------------------
bad unknown_key_workload 'workload.jbos=4'
expect_bad unknown_key_workload "workload.jbos:" "unknown key" "did you mean \`jobs\`"

bad unknown_key_top 'servres=[]'
expect_bad unknown_key_top "servres:" "did you mean \`servers\`"

bad unknown_key_model 'models.pn.max_batch=8'
expect_bad unknown_key_model "models.pn.max_batch:" "did you mean \`max_batch_size\`"

bad unknown_key_link 'network.site_uplink.latncy="1ms"'
expect_bad unknown_key_link "network.site_uplink.latncy:" "did you mean \`latency\`"

bad unknown_key_request 'workload.requests.0.offload=0.1'
expect_bad unknown_key_request "workload.requests[0].offload:" "did you mean \`offload_fraction\`"

# ---- cross-references --------------------------------------------------------------------
bad request_unknown_model 'workload.requests.0.model="particlenet"'
expect_bad request_unknown_model "workload.requests[0].model:" '"particlenet"' "pn"

bad server_unknown_model 'servers.0.models=["pn", "deepmet"]'
expect_bad server_unknown_model "servers[0].models[1]:" '"deepmet"'

bad device_without_curve 'servers.0.device="A100"' 'models.pn.service_time={"T4": {"batch": [1], "seconds": [0.001]}}'
expect_bad device_without_curve "servers[0]" "A100"

bad duplicate_pool 'servers.1={"name": "t4", "count": 1, "device": "T4", "models": ["pn"]}'
expect_bad duplicate_pool "servers[1].name:" '"t4"'

bad calibration_missing 'models.pn.service_time={"calibration": "no/such/calibration.json"}'
expect_bad calibration_missing "models.pn.service_time.calibration:" "calibration.json"

# ---- distributions, curves, tensors, batching --------------------------------------------
bad empirical_empty 'workload.requests.0.items={"dist": "empirical", "values": []}'
expect_bad empirical_empty "workload.requests[0].items.values:" "empty"

bad empirical_weights 'workload.requests.0.items={"dist": "empirical", "values": [1, 2], "weights": [1]}'
expect_bad empirical_weights "workload.requests[0].items.weights:"

bad dist_unknown 'workload.cpu_time_per_event={"dist": "weibull", "mean": "100ms"}'
expect_bad dist_unknown "workload.cpu_time_per_event.dist:" '"weibull"'

bad dist_foreign_key 'workload.cpu_time_per_event={"dist": "uniform", "min": 0.1, "max": 0.2, "cv": 0.1}'
expect_bad dist_foreign_key "workload.cpu_time_per_event.cv:"

bad batch_table_decreasing 'models.pn.service_time={"batch": [4, 2], "seconds": [0.002, 0.001]}'
expect_bad batch_table_decreasing "models.pn.service_time.batch[1]:"

bad items_above_max_batch 'workload.requests.0.items=100'
expect_bad items_above_max_batch "workload.requests[0].items:" "max_batch_size"

bad preferred_above_max_batch 'models.pn.dynamic_batching.preferred_batch_size=[128]'
expect_bad preferred_above_max_batch "models.pn.dynamic_batching.preferred_batch_size[0]:" "128"

bad tensor_dtype -models.pn.input_bytes_per_item 'models.pn.inputs=[{"name": "x", "shape": [2, 100], "dtype": "FP8"}]'
expect_bad tensor_dtype "models.pn.inputs[0].dtype:" '"FP8"'

bad tensor_variable_dim -models.pn.input_bytes_per_item 'models.pn.inputs=[{"name": "x", "shape": [-1, 100], "dtype": "FP32"}]'
expect_bad tensor_variable_dim "models.pn.inputs[0].shape[0]:" "-1"

bad no_work 'workload.cpu_time_per_event=0' 'workload.requests=[]'
expect_bad no_work "workload.cpu_time_per_event:"

# ---- Triton configs (triton_config) and queue policies -----------------------------------
# The configs sit next to the bad scenarios, which name them relative to their own folder.
cat >"$BAD/ensemble.pbtxt" <<'PBTXT'
name: "pipeline"
platform: "ensemble"
input [ { name: "raw", data_type: TYPE_FP32, dims: [ 16 ] } ]
ensemble_scheduling { step [ { model_name: "prep" }, { model_name: "tagger" } ] }
PBTXT
bad triton_ensemble 'models.pn.triton_config="ensemble.pbtxt"'
expect_bad triton_ensemble "models.pn.triton_config:" "ensemble.pbtxt" "ensemble" '`prep`, `tagger`' \
  "each step as its own model"

printf 'max_batch_size: 8\nsequence_batching { }\n' >"$BAD/sequence.pbtxt"
bad triton_sequence 'models.pn.triton_config="sequence.pbtxt"'
expect_bad triton_sequence "models.pn.triton_config:" "sequence.pbtxt" "sequence_batching"

printf 'max_batch_size: 8\ninput [ { name: "x" dims: [ 4 } ]\n' >"$BAD/malformed.pbtxt"
bad triton_malformed 'models.pn.triton_config="malformed.pbtxt"'
expect_bad triton_malformed "models.pn.triton_config:" "malformed.pbtxt" "line 2, column"

printf 'max_batch_size: 64\ninput [ { name: "pf_points", data_type: TYPE_FP32, dims: [ 2, -1 ] } ]\noutput [ { name: "y", data_type: TYPE_FP32, dims: [ 8 ] } ]\n' \
  >"$BAD/variable.pbtxt"
bad triton_variable_dim -models.pn.input_bytes_per_item 'models.pn.triton_config="variable.pbtxt"'
expect_bad triton_variable_dim "models.pn.inputs:" "variable.pbtxt" '`pf_points`' "dims [2, -1]"

bad triton_unknown_tensor -models.pn.input_bytes_per_item 'models.pn.triton_config="variable.pbtxt"' \
  'models.pn.inputs=[{"name": "pf_point", "shape": [2, 100]}]'
expect_bad triton_unknown_tensor "models.pn.inputs[0].name:" '"pf_point"' "did you mean \`pf_points\`"

bad triton_missing 'models.pn.triton_config="no/such/config.pbtxt"'
expect_bad triton_missing "models.pn.triton_config:" "no/such/config.pbtxt"

bad timeout_action_unknown 'models.pn.dynamic_batching.timeout_action="DROP"'
expect_bad timeout_action_unknown "models.pn.dynamic_batching.timeout_action:" '"DROP"' '"DELAY"'

bad max_queue_size_negative 'models.pn.dynamic_batching.max_queue_size=-1'
expect_bad max_queue_size_negative "models.pn.dynamic_batching.max_queue_size:" "-1"

# ---- absurd sizes: refused at once, never attempted (each case runs under `timeout 10`) ---
bad jobs_absurd 'workload.jobs=1000000000000'
expect_bad jobs_absurd "workload.jobs:" "1000000000000"

bad threads_absurd 'workload.jobs=10000000' 'workload.threads_per_job=10'
expect_bad threads_absurd "workload.jobs:" "100000000"

bad count_absurd 'servers.0.count=1000000000000'
expect_bad count_absurd "servers[0].count:" "1000000000000"

bad items_absurd 'workload.requests.0.items=1000000000000' 'models.pn.max_batch_size=0' \
  -models.pn.dynamic_batching
expect_bad items_absurd "workload.requests[0].items:" "1000000000000"

bad per_event_absurd 'workload.requests.0.per_event=1000000000000'
expect_bad per_event_absurd "workload.requests[0].per_event:" "1000000000000"

bad instances_absurd 'models.pn.instances=1000000000000'
expect_bad instances_absurd "models.pn.instances:" "1000000000000"

bad duration_absurd 'duration="1000000h"'
expect_bad duration_absurd "duration:" '"1000000h"'

# ---- bad files and flags -----------------------------------------------------------------
echo "# case: nonexistent scenario file"
mkdir -p "$TMP/out-nofile"
run_status 2 "$SONICSIM" run "$BAD/no-such-scenario.json" -o "$TMP/out-nofile/results.json"
assert_stderr_contains "$BAD/no-such-scenario.json"
no_output_left "$TMP/out-nofile" results.json

# expect_bad_cli NAME TEXT... -- ARGS...: `sonicsim ARGS -o OUT` exits 2 with every TEXT on
# stderr and no output left.
expect_bad_cli() {
  local name="$1"; shift
  local texts=()
  while [[ $1 != -- ]]; do texts+=("$1"); shift; done
  shift
  local out="$TMP/out-$name"
  CASES=$((CASES + 1))
  echo "# case $CASES: $name"
  mkdir -p "$out"
  run_status 2 timeout 10 "$SONICSIM" "$@" -o "$out/results.json"
  local t
  for t in "${texts[@]}"; do assert_stderr_contains "$t"; done
  no_output_left "$out" results.json
}

expect_bad_cli set_bad_path "$BASE: workload.nope.x" "workload.nope" \
  -- run "$BASE" --set workload.nope.x=3
expect_bad_cli set_index_out_of_range "$BASE: servers.5.count" "out of range" \
  -- run "$BASE" --set servers.5.count=2
expect_bad_cli set_invalid_value "$BASE: workload.jobs:" "found -3" "--set workload.jobs=-3" \
  -- run "$BASE" --set workload.jobs=-3
expect_bad_cli set_invalid_string "$BASE: workload.jobs:" '"lots"' \
  -- run "$BASE" --set workload.jobs=lots
expect_bad_cli set_unknown_key "$BASE: workload.jbos:" "did you mean \`jobs\`" \
  -- run "$BASE" --set workload.jbos=4
expect_bad_cli set_no_equals "--set" "servers" \
  -- run "$BASE" --set servers
expect_bad_cli unknown_flag "--frobnicate" \
  -- run "$BASE" --frobnicate
expect_bad_cli seed_not_a_number "--seed" \
  -- run "$BASE" --seed abc
expect_bad_cli analytic_bad_scenario "$BAD/offload_above_one.json: workload.requests[0].offload_fraction:" \
  -- analytic "$BAD/offload_above_one.json"

echo "# case: output into a nonexistent directory"
run_status 2 timeout 60 "$SONICSIM" run "$BASE" -q -o "$TMP/no/such/dir/results.json"
assert_stderr_contains "$TMP/no/such/dir/results.json"
[[ ! -e "$TMP/no" ]] || fail "the missing output directory was created"
pass "no directory created"

echo "# case: output path is a directory"
mkdir -p "$TMP/out-isdir/results.json"
run_status 2 timeout 60 "$SONICSIM" run "$BASE" -q -o "$TMP/out-isdir/results.json"
assert_stderr_contains "$TMP/out-isdir/results.json"
[[ -z "$(ls -A "$TMP/out-isdir/results.json")" ]] || fail "files left in the output directory"
[[ "$(ls -A "$TMP/out-isdir")" == results.json ]] || fail "temporary file left: $(ls -A "$TMP/out-isdir")"
pass "nothing left next to it"

# ---- several workloads -----------------------------------------------------------------------
bad two_workload_keys 'workloads=[{"name": "a", "jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s"}]'
expect_bad two_workload_keys "workloads:" "found both \`workload\` and \`workloads\`"
bad workload_names 'workloads=[{"name": "a", "jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s"}, {"name": "a", "jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s"}]' '-workload'
expect_bad workload_names "workloads[1].name:" 'found "a" again' "unique name"
bad bad_priority 'workload.priority=0'
expect_bad bad_priority "workload.priority:" "found 0" "1 the highest"

# ---- server hosts (docs/servers.md) ------------------------------------------------------
bad host_devices_divisor 'servers.0.host={"devices": 3}'
expect_bad host_devices_divisor "servers[0].host.devices:" "found 3 devices per host in a pool of 2" "divisor"
bad host_cores_zero 'servers.0.host={"cores": 0}'
expect_bad host_cores_zero "servers[0].host.cores:" "found 0"
bad host_cost_negative 'models.pn.host_cost={"per_request": "-1ms"}'
expect_bad host_cost_negative "models.pn.host_cost.per_request:"
bad host_unknown_key 'servers.0.host={"cores": 4, "core": 2}'
expect_bad host_unknown_key "servers[0].host.core:" "did you mean"
bad host_shared_crash_device 'servers.0.host={"devices": 2}' 'faults=[{"kind": "crash", "pool": "t4", "device": 1, "at": "5s"}]'
expect_bad host_shared_crash_device "faults[0].device:" "share one Triton server" "whole pool"
bad host_shared_autoscaler 'servers.0.host={"devices": 2}' 'servers.0.autoscaler={"threshold": "20ms"}'
expect_bad host_shared_autoscaler "servers[0].autoscaler:" "devices per host"

# ---- devices: overlap curves and pipelines (docs/servers.md) -------------------------------
bad overlap_not_monotone 'devices={"T4": {"overlap": {"executions": [1, 2, 4], "throughput": [1.0, 1.6, 1.5]}}}'
expect_bad overlap_not_monotone "devices.T4.overlap.throughput[2]:" "found 1.5 after 1.6" "non-decreasing"

bad overlap_superlinear 'devices={"T4": {"overlap": {"executions": [1, 2], "throughput": [1.0, 2.5]}}}'
expect_bad overlap_superlinear "devices.T4.overlap.throughput[1]:" "superlinear"

bad overlap_not_from_one 'devices={"T4": {"overlap": {"executions": [2, 4], "throughput": [1.0, 1.5]}}}'
expect_bad overlap_not_from_one "devices.T4.overlap.executions[0]:" "start at executions 1"

bad overlap_lengths 'devices={"T4": {"overlap": {"executions": [1, 2], "throughput": [1.0]}}}'
expect_bad overlap_lengths "devices.T4.overlap.throughput:" "one per count"

bad device_kind_unknown 'devices={"T4": {"kind": "asic"}}'
expect_bad device_kind_unknown "devices.T4.kind:" '"asic"'

bad pipeline_without_latency 'devices={"FPGA": {"kind": "pipeline"}}' 'servers.0.device="FPGA"' \
  'models.pn.service_time={"FPGA": {"interval": "1.6ms"}}'
expect_bad pipeline_without_latency "models.pn.service_time.FPGA.latency:" "missing"

bad pipeline_batch_curve 'devices={"FPGA": {"kind": "pipeline"}}' 'servers.0.device="FPGA"' \
  'models.pn.service_time={"FPGA": {"batch": [1], "seconds": [0.002]}}'
expect_bad pipeline_batch_curve "models.pn.service_time.FPGA:" "batch curve for pipeline device"

bad pipeline_timing_on_gpu 'models.pn.service_time={"T4": {"latency": "1.8ms", "interval": "1.6ms"}}'
expect_bad pipeline_timing_on_gpu "models.pn.service_time.T4:" "not a pipeline"

bad pipeline_interval_and_throughput 'devices={"FPGA": {"kind": "pipeline"}}' 'servers.0.device="FPGA"' \
  'models.pn.service_time={"FPGA": {"latency": "1.8ms", "interval": "1.6ms", "throughput": "600/s"}}'
expect_bad pipeline_interval_and_throughput "models.pn.service_time.FPGA.throughput:" "one of them"

bad pipeline_latency_below_interval 'devices={"FPGA": {"kind": "pipeline"}}' 'servers.0.device="FPGA"' \
  'models.pn.service_time={"FPGA": {"latency": "1ms", "throughput": "600/s"}}'
expect_bad pipeline_latency_below_interval "models.pn.service_time.FPGA.latency:" "latency >= interval"

bad pipeline_with_overlap 'devices={"T4": {"kind": "pipeline", "overlap": {"executions": [1], "throughput": [1]}}}'
expect_bad pipeline_with_overlap "devices.T4.overlap:" "pipeline"

bad pipeline_shared_host 'devices={"FPGA": {"kind": "pipeline"}}' 'servers.0.device="FPGA"' \
  'models.pn.service_time={"FPGA": {"latency": "1.8ms", "interval": "1.6ms"}}' 'servers.0.host={"devices": 2}'
expect_bad pipeline_shared_host "servers[0].host.devices:" "pipeline devices" "expected 1"

# ---- power and prices (docs/servers.md) ---------------------------------------------------
bad power_negative 'devices={"T4": {"power": {"idle": "-5W", "busy": "70W"}}}'
expect_bad power_negative "devices.T4.power.idle:" '"-5W"' "non-negative power"
bad power_busy_below_idle 'devices={"T4": {"power": {"idle": "36W", "busy": "30W"}}}'
expect_bad power_busy_below_idle "devices.T4.power.busy:" "expected busy >= idle"
bad power_curve_not_increasing \
  'devices={"T4": {"power": {"utilization": [0, 0.6, 0.5, 1], "watts": [36, 50, 55, 70]}}}'
expect_bad power_curve_not_increasing "devices.T4.power.utilization[2]:" "increasing from 0 to 1"
bad power_curve_not_to_one 'devices={"T4": {"power": {"utilization": [0, 0.9], "watts": [36, 70]}}}'
expect_bad power_curve_not_to_one "devices.T4.power.utilization:" "from 0 (idle) to 1"
bad power_unit 'servers.0.host={"power": {"idle": "100 horsepower", "busy": "300W"}}'
expect_bad power_unit "servers[0].host.power.idle:" "mW, W, kW, MW"
bad core_power_busy_below_idle 'workload.core_power={"idle": 10, "busy": 4}'
expect_bad core_power_busy_below_idle "workload.core_power.busy:" "expected busy >= idle"
bad price_unused_device 'prices={"device_hour": {"T4": 0.35, "A100": 1.2}}'
expect_bad price_unused_device "prices.device_hour.A100:" "which no pool uses"
bad price_missing_device 'prices={"device_hour": {}}'
expect_bad price_missing_device "prices.device_hour:" 'no price for device "T4"'
bad price_negative 'prices={"kwh": -0.25}'
expect_bad price_negative "prices.kwh:" "found -0.25"

# ---- device memory and model placement (docs/servers.md) ---------------------------------
# pn holds 1 x (1 GB + 1 MB x 64) = 1064000000 B: a device of exactly that runs, one byte less
# is refused with the pool, the footprint, the sum and the device's memory.
bad memory_fits 'models.pn.memory={"weights": "1GB", "per_item": "1MB"}' \
  'devices={"T4": {"memory": 1064000000}}'
run_ok "$SONICSIM" validate "$BAD/memory_fits.json"
mv "$BAD/memory_fits.json" "$TMP/memory_fits.json"  # not a bad file: kept out of the loop below
bad memory_one_byte_over 'models.pn.memory={"weights": "1GB", "per_item": "1MB"}' \
  'devices={"T4": {"memory": 1063999999}}'
expect_bad memory_one_byte_over "servers[0].models:" 'pool "t4"' \
  "pn 1 x (1.00 GB + 1.00 MB x 64) = 1.06 GB (1064000000 B)" "(1063999999 B)" \
  "expected at most the device's memory"
bad memory_no_batch_limit 'models.pn.memory={"per_item": "1MB"}' 'models.pn.max_batch_size=0' \
  'workload.requests.0.items=1'
expect_bad memory_no_batch_limit "models.pn.memory.per_item:" "without max_batch_size"
bad model_control_unknown 'servers.0.model_control="lazy"'
expect_bad model_control_unknown "servers[0].model_control:" '"lazy"' '"explicit"'

# ---- calibrating the host (docs/calibration.md#the-host-stage) --------------------------------
bad host_cost_in_overhead_text 'models.pn.host_cost={"per_request": "1ms", "in_server_overhead": "yes"}'
expect_bad host_cost_in_overhead_text "models.pn.host_cost.in_server_overhead:" 'found "yes"' \
  "expected true"
# A calibration file without a host block (written without --host-cores).
bad host_cost_calibration_without_block \
  "models.pn.host_cost={\"calibration\": \"$SRC/tests/data/calibration/pn_t4.json\"}"
expect_bad host_cost_calibration_without_block "models.pn.host_cost.calibration:" \
  "host_cost: missing" "--host-cores N"
bad host_cost_calibration_and_costs \
  "models.pn.host_cost={\"calibration\": \"$SRC/tests/data/calibration/pn_t4.json\", \"per_request\": 1}"
expect_bad host_cost_calibration_and_costs "models.pn.host_cost.per_request:" "unknown key"

# ---- validate reports every problem at once ----------------------------------------------
bad three_problems 'workload.jobs=0' 'models.pn.max_batch_size=-1' 'servers.0.devcie="T4"'
run_status 2 "$SONICSIM" validate "$BAD/three_problems.json"
assert_stderr_contains "$BAD/three_problems.json: workload.jobs:"
assert_stderr_contains "$BAD/three_problems.json: models.pn.max_batch_size:"
assert_stderr_contains "$BAD/three_problems.json: servers[0].devcie:"
assert_stderr_contains "did you mean \`device\`"
n="$(grep -c -F "$BAD/three_problems.json: " "$ERR")"
((n == 3)) || fail "expected exactly 3 problem lines, got $n"
pass "validate printed the 3 problems"

# validate on each bad scenario file also exits 2 (and never writes anything). validate goes
# through the same loader as run above, so the sanitizer pass (QUICK) checks every fourth file:
# each start of a sanitized binary costs half a second, and run already took every file.
k=0
for f in "$BAD"/*.json; do
  [[ $f == "$BASE" ]] && continue
  k=$((k + 1))
  [[ $QUICK == 1 ]] && ((k % 4 != 0)) && continue
  "$SONICSIM" validate "$f" >/dev/null 2>"$ERR"
  st=$?
  ((st == 2)) || fail "validate ${f##*/}: exit status $st (expected 2)"
done
pass "validate exits 2 on every bad scenario$([[ $QUICK == 1 ]] && echo " (every fourth: QUICK)")"

((CASES >= 25)) || fail "only $CASES cases"
pass "$CASES bad-input cases"
finish
