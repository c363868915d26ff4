# cli_hostile_numbers: numbers that once passed validation and produced nonsense (issue 16,
# class 3). Each must now end fast with exit status 2, a message naming the file and the JSON
# path (or line and column), what was found and what is expected, and no output file left.
source "$(dirname "$0")/lib.sh" "$@"

RESULTS="$TMP/out.json"
DEFAULT=scenarios/default.json
FIX=tests/data/perf_analyzer
# Scenario quantities: a latency whose round trip overflows once wrote nulls, exit 0.
refused "network.client_nic.latency: found 1e+308, expected a time at most 1e9 s" \
  "$SONICSIM" run "$DEFAULT" --set network.client_nic.latency=1e308 -o "$RESULTS"
refused "network.client_nic.latency: found \"1e300h\", expected a time at most 1e9 s" \
  "$SONICSIM" run "$DEFAULT" --set 'network.client_nic.latency="1e300h"' -o "$RESULTS"
refused "expected a bandwidth from 1 bps to 8 Pbps" \
  "$SONICSIM" run "$DEFAULT" --set 'network.site_uplink.bandwidth="0.001bps"' -o "$RESULTS"
refused "expected a size at most 1e15 bytes" \
  "$SONICSIM" run "$DEFAULT" --set 'models.particlenet_ak4.input_bytes_per_item=1e300' -o "$RESULTS"
run_status 2 "$SONICSIM" validate "$DEFAULT" --set network.client_nic.latency=1e308
assert_stderr_contains "network.client_nic.latency: found 1e+308"

# A Triton config's uint64 of microseconds (1.8e13 s) is held to the same range as a time.
cp -r scenarios/examples/triton-models "$TMP/models"
sed -i 's/max_queue_delay_microseconds: 100/max_queue_delay_microseconds: 18446744073709551615/' \
  "$TMP/models/particlenet_ak4/config.pbtxt"
sed 's#"triton-models/#"models/#' scenarios/examples/triton-config.json >"$TMP/triton.json"
refused "max_queue_delay_microseconds: found 18446744073709551615 microseconds, expected a time at most 1e9 s" \
  "$SONICSIM" run "$TMP/triton.json" -o "$RESULTS"

# perf_analyzer CSVs: every cell strict, every message with file, line, column and header.
pa() {  # pa NAME: a copy of the native fixture as NAME, for one cell to be spoilt by sed
  cp "$FIX/native_batch4.csv" "$TMP/$1"
  echo "$TMP/$1"
}
CSV=$(pa huge_batch4.csv); sed -i '2s/^2,/1e18,/' "$CSV"
refused "huge_batch4.csv: line 2, column 1 (\`Concurrency\`): found \"1e18\", expected a whole number of concurrent requests from 1 to 10000000" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"
CSV=$(pa half_batch4.csv); sed -i '2s/^2,/1.5,/' "$CSV"
refused "half_batch4.csv: line 2, column 1 (\`Concurrency\`): found \"1.5\"" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"
CSV=$(pa hex_batch4.csv); sed -i '2s/^2,/0x9,/' "$CSV"
refused "hex_batch4.csv: line 2, column 1 (\`Concurrency\`): found \"0x9\"" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"
CSV=$(pa hexcell_batch4.csv); sed -i '2s/,10,600,/,0x10,600,/' "$CSV"
refused "hexcell_batch4.csv: line 2, column 3 (\`Client Send\`): found \"0x10\", expected a time in microseconds" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"
CSV=$(pa trailing_batch4.csv); sed -i '2s/,10,600,/,10us,600,/' "$CSV"
refused "trailing_batch4.csv: line 2, column 3 (\`Client Send\`): found \"10us\"" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"
CSV=$(pa dup_batch4.csv); sed -i '1s/,Client Recv,/,Client Send,/' "$CSV"
refused "dup_batch4.csv: line 1, column 9 (\`Client Send\`): found the column a second time (first in column 3)" \
  "$SONICSIM" calibrate perf-analyzer "$CSV" --model m -o "$RESULTS"

# Measurement CSVs (calibrate scan): the same strict cells.
SCAN="$TMP/scan.csv"
printf 'jobs,per_job_throughput_per_s\n100,0x5\n200,1e400\n300,1.5\n' >"$SCAN"
refused "scan.csv: line 2, column 2 (\`per_job_throughput_per_s\`): found \`0x5\`, expected a number" \
  "$SONICSIM" calibrate scan "$SCAN" --scenario tests/data/plan_knee.json --vary workload.jobs -o "$RESULTS"
assert_stderr_contains "line 3, column 2 (\`per_job_throughput_per_s\`): found \`1e400\`"
printf 'jobs,jobs,per_job_throughput_per_s\n100,100,1.5\n' >"$SCAN"
refused "line 1, column 2 (\`jobs\`): found the column a second time (first in column 1)" \
  "$SONICSIM" calibrate scan "$SCAN" --scenario tests/data/plan_knee.json --vary workload.jobs -o "$RESULTS"

finish
