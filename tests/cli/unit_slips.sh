# cli_unit_slips: issue 33's slips as a new user made them on the default scenario. Each is a valid
# scenario that `validate` and `run` accept with a warning and a did-you-mean on stderr (exit 0);
# --strict-units refuses the bare numbers (exit 2). A bad unit lists every accepted spelling.
source "$(dirname "$0")/lib.sh" "$@"

S=scenarios/default.json
SHORT=(--set duration=1min --set warmup=0)

# warns SUBSTRING ARGS...: `validate` exits 0 with SUBSTRING among its warnings, and so does `run`.
warns() {
  local message="$1"; shift
  run_ok "$SONICSIM" validate "$S" "$@"
  assert_stdout_contains "valid"
  assert_stderr_contains "$message"
  assert_stderr_contains "warning: "
  run_ok "$SONICSIM" run "$S" "$@" "${SHORT[@]}" -q
  assert_stderr_contains "$message"
  run_status 2 "$SONICSIM" validate "$S" "$@" --strict-units
  assert_stderr_contains "(--strict-units)"
}

# 1. A bare bandwidth is bytes per second: 100 B/s.
warns 'default.json: network.site_uplink.bandwidth: warning: 100 is 100 B/s (800 bps): a bandwidth under 1 Mbps; did you mean "100Gbps" or "100MB/s"?' \
  --set network.site_uplink.bandwidth=100
# The run it warns about is the issue's: no event finishes in a minute.
run_ok "$SONICSIM" run "$S" --set network.site_uplink.bandwidth=100 "${SHORT[@]}" --json
assert_stdout_contains '"completed": 0'

# 2. A bare CPU time per event is seconds: 993.3 s.
warns 'workload.cpu_time_per_event.mean: warning: 993.3 is 993.3 s (16.6 min): a CPU time per event over 10 min; did you mean "993.3ms"?' \
  --set workload.cpu_time_per_event.mean=993.3

# 3. Service times typed as milliseconds: a curve of 5.2 s beside ones of about a millisecond.
warns 'models.deepmet.service_time.seconds[0]: warning: 5.2 is 5.2 s: 1841x the next largest service time (2.82 ms, models.deeptau.service_time.seconds[0]); did you mean "5.2ms"?' \
  --set 'models.deepmet.service_time={"batch": [1], "seconds": [5.2]}'
# A whole table in milliseconds: its first point against the others, and each point over 10 s.
run_ok "$SONICSIM" validate "$S" \
  --set 'models.deeptau.service_time.seconds=[2.825, 3.321, 3.549, 6.124, 11.074, 22.321, 41.152]'
assert_stderr_contains 'models.deeptau.service_time.seconds[0]: warning: 2.825 is 2.825 s: 2278x the next largest service time'
assert_stderr_contains 'models.deeptau.service_time.seconds[4]: warning: 11.074 is 11.074 s: a service time over 10 s; did you mean "11.074ms"?'
assert_stderr_contains '4 warnings'

# A latency over a second, and a warning credited to the --set that made it.
warns 'network.wan.latency: warning: 50 is 50 s: a link latency over 1 s; did you mean "50us" or "50ms"?' \
  --set 'network.wan={"bandwidth": "100Gbps", "latency": 50}'
run_ok "$SONICSIM" validate "$S" --set 'network.wan={"bandwidth": "100Gbps", "latency": 50}'
assert_stderr_contains 'did you mean "50us" or "50ms"? (value from --set network.wan={"bandwidth": "100Gbps", "latency": 50})'

# The other commands that read a scenario warn too, before their work.
run_ok "$SONICSIM" analytic "$S" --set network.site_uplink.bandwidth=100
assert_stderr_contains 'network.site_uplink.bandwidth: warning: 100 is 100 B/s'

# --strict-units: the message names the file, the path, what was found and the unit to write;
# 0 may stay bare, and so may rates and powers.
run_status 2 "$SONICSIM" validate "$S" --strict-units
assert_stderr_contains 'default.json: models.particlenet_ak4.service_time.seconds[0]: found 0.00124, expected a time with its unit, such as "1.24ms" (--strict-units)'
cat >"$TMP/units.json" <<'JSON'
{"duration": "10min", "workload": {"jobs": 1, "threads_per_job": 1, "cpu_time_per_event": "1s",
 "requests": [{"model": "m", "offload_fraction": 0.1}]},
 "models": {"m": {"input_bytes_per_item": "1kB", "service_time": {"batch": [1], "seconds": ["2ms"]},
                  "dynamic_batching": {"max_queue_delay": 0}}},
 "servers": [{"name": "gpu", "count": 1, "device": "T4", "models": ["m"]}],
 "network": {"site_uplink": {"bandwidth": "10Gbps", "latency": 0}}}
JSON
run_ok "$SONICSIM" validate "$TMP/units.json" --strict-units
[[ ! -s $ERR ]] || fail "a scenario with every unit written warned: $(cat "$ERR")"
pass "no warning for a plausible scenario"
run_status 2 "$SONICSIM" run "$TMP/units.json" --strict-units --set models.m.input_bytes_per_item=1000
assert_stderr_contains 'models.m.input_bytes_per_item: found 1000, expected a size with its unit, such as "1kB" (--strict-units)'
run_status 2 "$SONICSIM" analytic "$TMP/units.json" --strict-units --set network.site_uplink.bandwidth=1.25e9
assert_stderr_contains 'network.site_uplink.bandwidth: found 1250000000, expected a bandwidth with its unit, such as "10Gbps" (--strict-units)'

# 4. A bad unit lists every spelling the parser accepts, GB/s among them.
run_status 2 "$SONICSIM" validate "$S" --set 'network.site_uplink.bandwidth="100 Gbits"'
cp "$ERR" "$TMP/units.err"
for unit in bps kbps Mbps Gbps Tbps b/s kb/s Mb/s Gb/s Tb/s B/s kB/s MB/s GB/s TB/s Bps kBps MBps GBps TBps; do
  grep -qE "[ ,]$unit[,; ]" "$TMP/units.err" || fail "the units message lacks $unit: $(cat "$TMP/units.err")"
  pass "the units message lists $unit"
  run_ok "$SONICSIM" validate "$S" --set "network.site_uplink.bandwidth=\"100$unit\""
done
run_status 2 "$SONICSIM" validate "$S" --set 'workload.cpu_time_per_event.mean="1 sec"'
assert_stderr_contains 'ns, us, µs, ms, s, min, h'

finish
