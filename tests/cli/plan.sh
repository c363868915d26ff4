# cli_plan: `sonicsim plan` answers capacity questions by search. On the deterministic knee
# scenario max-cpu finds the formula's knee with fewer simulations than values searched, writes
# every documented key, reports an unsatisfiable constraint as an answer (exit 0), and turns every
# bad input into exit 2 with a message and no output file.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

KNEE=tests/data/plan_knee.json
UPLINK=tests/data/plan_narrow_uplink.json

run_ok "$SONICSIM" plan "$KNEE" max-cpu --slowdown 0.5 --replications 2 --workers 2 \
  -o "$TMP/max.json"
assert_stdout_contains "answer       workload.jobs = 53"
assert_stdout_contains "simulations  "
assert_json_paths "$TMP/max.json" question vary constraint.metric constraint.threshold \
  constraint.reference_s replications seeds range base.t_ideal_s analytic.formula analytic.mva \
  analytic.mva_batched \
  analytic.first_bracket answer.status answer.value answer.interval answer.fail_value \
  answer.metric.mean answer.metric.ci95 answer.n_cpu_per_gpu simulations.count simulations.points \
  points.0.value points.0.seeds points.0.metric.mean points.0.metric.ci95 points.0.ok \
  points.0.certain points.0.summary.throughput_per_s
[[ "$(json_get "$TMP/max.json" answer.value)" == 53 ]] || fail "max-cpu: expected 53"
pass "max-cpu: 53 threads per device (knee 53.0016)"
count="$(json_get "$TMP/max.json" simulations.count)"
points="$(json_get "$TMP/max.json" simulations.points)"
((count == 2 * points)) || fail "count $count is not 2 x $points points"
((points < 53)) || fail "max-cpu used $points values, no better than a sweep"
pass "max-cpu: $count simulations ($points values x 2)"

run_ok "$SONICSIM" plan "$KNEE" min-devices --set workload.jobs=200 --slowdown 0.5 \
  --replications 1 --json
[[ "$(json_get "$OUT" answer.value)" == 4 ]] || fail "min-devices: expected 4"
[[ "$(json_get "$OUT" set.0)" == workload.jobs=200 ]] || fail "min-devices: set not recorded"
pass "min-devices: 4 devices for 200 threads"
# Every point reproduces with `run`: same metric, bit for bit.
cp "$OUT" "$TMP/min.json"
value="$(json_get "$TMP/min.json" points.0.value)"
seed="$(json_get "$TMP/min.json" points.0.seeds.0)"
run_ok "$SONICSIM" run "$KNEE" --set workload.jobs=200 --set servers.0.count="$value" \
  --set seed="$seed" --json
[[ "$(json_get "$OUT" events.thread_time_per_event_s)" == \
  "$(json_get "$TMP/min.json" points.0.metric.values.0)" ]] || fail "point not reproduced by run"
pass "a plan point reproduces with sonicsim run"

run_ok "$SONICSIM" plan "$UPLINK" min-bandwidth --replications 1 -o "$TMP/bw.json"
assert_stdout_contains "network.site_uplink.bandwidth = "
bw="$(json_get "$TMP/bw.json" answer.value)"
float_cmp "$bw" ">=" 3.77e8 && float_cmp "$bw" "<=" 3.9e8 || fail "min-bandwidth $bw B/s"
pass "min-bandwidth: $bw B/s (hand: 3.777e8)"

run_ok "$SONICSIM" plan "$KNEE" cost --gpu-hour-price 1 --core-hour-price 0.02 --replications 1 \
  -o "$TMP/cost.json"
assert_stdout_contains "per million events"
[[ "$(json_get "$TMP/cost.json" answer.value)" == 53 ]] || fail "cost: expected 53"
assert_json_paths "$TMP/cost.json" answer.cost_per_million_events answer.hourly_cost prices.gpu_hour
pass "cost: 53 threads per GPU"

# The analytic answers alone, nothing simulated.
run_ok "$SONICSIM" plan "$KNEE" max-cpu --slowdown 0.5 --analytic-only -o "$TMP/an.json"
assert_stdout_contains "not simulated"
[[ "$(json_get "$TMP/an.json" analytic.formula)" == 53 ]] || fail "analytic-only: formula 53"
[[ "$(json_get "$TMP/an.json" simulations.count)" == 0 ]] || fail "analytic-only simulated"
[[ "$(json_get "$TMP/an.json" answer.status)" == analytic_only ]] || fail "analytic-only status"
pass "--analytic-only: formula 53, no simulation"

# Break-even against direct inference: within 10% of t_CPU = 100 ms, 110 threads per GPU.
run_ok "$SONICSIM" plan "$KNEE" max-cpu --reference cpu-only --slowdown 10 --replications 1 --json
[[ "$(json_get "$OUT" answer.value)" == 110 ]] || fail "cpu-only reference: expected 110"
[[ "$(json_get "$OUT" constraint.reference_s)" == 0.1 ]] || fail "cpu-only reference is t_CPU"
pass "max-cpu against the CPU-only baseline: 110"

# Unsatisfiable: one job alone makes 18.9 events/s.
run_ok "$SONICSIM" plan "$KNEE" max-cpu --min-per-job-throughput 100 --replications 1 \
  -o "$TMP/none.json"
assert_stdout_contains "NONE"
[[ "$(json_get "$TMP/none.json" answer.status)" == unsatisfiable ]] || fail "status"
[[ "$(json_get "$TMP/none.json" answer.value)" == null ]] || fail "value should be null"
pass "unsatisfiable is an answer"

# Job flows: the formula and MVA see the threads the flow runs on average, and each point the
# threads its run really had (time-weighted), next to the nominal jobs x threads_per_job.
FLOW=tests/data/plan_flow.json
run_ok "$SONICSIM" plan "$FLOW" min-devices --slowdown 0.5 --replications 1 -o "$TMP/flow.json"
assert_stdout_contains "run on average after the warm-up"
assert_stdout_contains "running (time-weighted; nominal 30)"
assert_json_paths "$TMP/flow.json" flow.mean_running_threads flow.most_starts base.n_cpu_nominal \
  answer.n_cpu answer.n_cpu_nominal points.0.summary.n_cpu_nominal
n_cpu="$(json_get "$TMP/flow.json" answer.n_cpu)"
float_cmp "$n_cpu" ">=" 4.2 && float_cmp "$n_cpu" "<=" 4.7 || fail "flow: N_CPU $n_cpu, expected ~4.46"
[[ "$(json_get "$TMP/flow.json" answer.n_cpu_nominal)" == 30 ]] || fail "flow: nominal N_CPU"
pass "a job flow's plan reports the threads running, time-weighted ($n_cpu of 30)"
# The gallery's Tier-2 flow (waves of 50 four-thread jobs every 10 min over 30 min): 2,000 jobs
# would be a plan for the 150 it starts.
TIER2=scenarios/gallery/cms-run2-tier2/tier2-run2.json
run_status 2 "$SONICSIM" plan "$TIER2" min-devices --set workload.jobs=2000 -o "$TMP/bad.json"
assert_stderr_contains "starts at most 150 jobs in the 30.0 min run"
assert_stderr_contains "1850 never start"
assert_no_file "$TMP/bad.json"
run_ok "$SONICSIM" plan "$TIER2" min-devices --set servers.0.autoscaler.max_replicas=null \
  --analytic-only --json
running="$(json_get "$OUT" flow.mean_running_threads)"
float_cmp "$running" "<" 300 || fail "tier2: $running threads running on average"
pass "a flow that never starts the jobs asked about is refused; 150 jobs run $running threads"

# An autoscaled pool (docs/plan.md, "Autoscaled pools"). The Tier-2 pool's max_replicas (10) caps
# what runs whatever servers.0.count is, so min-devices refuses it and names both ways out.
run_status 2 "$SONICSIM" plan "$TIER2" min-devices --analytic-only -o "$TMP/bad.json"
assert_stderr_contains "servers.0.autoscaler.max_replicas: found 10, set by the scenario"
assert_stderr_contains "--set servers.0.autoscaler.max_replicas=null"
assert_stderr_contains "--set servers.0.autoscaler=null"
assert_no_file "$TMP/bad.json"
# Without it the ceiling follows the count, and no count below min_replicas is a valid pool: the
# fixed pool needs 4 devices (above), but 5 always up already meet the constraint.
AUTO='{"metric": "queue_time", "threshold": "5ms", "min_replicas": 5}'
run_ok "$SONICSIM" plan "$KNEE" min-devices --set workload.jobs=200 --slowdown 0.5 \
  --set servers.0.count=8 --set "servers.0.autoscaler=$AUTO" --replications 1 -o "$TMP/auto.json"
assert_stdout_contains "autoscaler   servers.0.autoscaler scales the pool"
[[ "$(json_get "$TMP/auto.json" answer.status)" == at_range_min ]] || fail "autoscaled: status"
[[ "$(json_get "$TMP/auto.json" answer.value)" == 5 ]] || fail "autoscaled: expected 5"
[[ "$(json_get "$TMP/auto.json" range.0)" == 5 ]] || fail "autoscaled: range from min_replicas"
[[ "$(json_get "$TMP/auto.json" autoscaler)" == servers.0.autoscaler ]] || fail "autoscaled: key"
pass "an autoscaled pool: a fixed max_replicas refused, the search starts at min_replicas"

# Every analytic none explained: default.json at 8,000 threads overloads its 100 Gbps uplink,
# which no number of T4s changes.
run_ok "$SONICSIM" plan scenarios/default.json min-devices --set workload.jobs=2000 \
  --analytic-only -o "$TMP/none.json"
assert_stdout_contains "no answer    formula and MVA: site_uplink at"
assert_stdout_contains "min-bandwidth --link site_uplink"
[[ "$(json_get "$TMP/none.json" analytic.none.formula.kind)" == link ]] || fail "none: kind"
pass "an analytic none names the overloaded uplink"

# An open loop is planned by its arrival rate (--range takes rates), several workloads together.
run_ok "$SONICSIM" plan tests/data/plan_open_loop.json max-cpu --slowdown 50 \
  --range 100/s:4000/s --replications 1 -o "$TMP/open.json"
assert_stdout_contains "events in flight, Little's law"
[[ "$(json_get "$TMP/open.json" vary)" == workload.arrivals.rate ]] || fail "open: vary"
rate="$(json_get "$TMP/open.json" answer.value)"
float_cmp "$rate" "<" 1000 || fail "open loop: $rate/s on one 1 ms device"
run_ok "$SONICSIM" plan tests/data/plan_two_workloads.json min-devices --workload slow \
  --set workloads.0.jobs=100 --analytic-only -o "$TMP/two.json"
assert_stdout_contains "the constraint on \`slow\`"
[[ "$(json_get "$TMP/two.json" workloads.constrained)" == slow ]] || fail "two: constrained"
pass "an open loop planned by its rate ($rate/s), several workloads by the shared formula"

# Bad input: exit 2, a message, no file.
bad() {
  local want="$1"; shift
  run_status 2 "$SONICSIM" plan "$@" -o "$TMP/bad.json"
  assert_stderr_contains "$want"
  assert_no_file "$TMP/bad.json"
}
bad "unknown question \`max-gpu\`" "$KNEE" max-gpu
bad "no such link" "$KNEE" min-bandwidth --link wan
bad "workload.jbos" "$KNEE" max-cpu --vary workload.jbos
bad "is not met anywhere in the range" "$KNEE" min-devices --set workload.jobs=200 --range 1:2 \
  --replications 1
bad "--gpu-hour-price" "$KNEE" cost
bad "give one constraint" "$KNEE" max-cpu --slowdown 5 --max-p99-latency 10ms
bad "--max-p99-latency" "$KNEE" min-devices --max-p99-latency 10parsecs
bad "--reference" "$KNEE" max-cpu --reference gpu
bad "does-not-exist.json" does-not-exist.json max-cpu
bad "an open loop has no jobs" tests/data/plan_open_loop.json max-cpu --min-per-job-throughput 1
bad "did you mean \`fast\`" tests/data/plan_two_workloads.json min-devices --workload fats
bad "expected a positive rate" tests/data/plan_open_loop.json max-cpu --range 0/s:100/s
bad "which is not an arrival rate" "$KNEE" max-cpu --range 10/s:20/s
bad "expected LO:HI" "$KNEE" max-cpu --range 10
bad "expected a positive integer" "$KNEE" max-cpu --range 0:x
bad "still holds at the top of the range" "$KNEE" max-cpu --range 1:20 --replications 1
bad "starts at most 30 jobs" "$FLOW" max-cpu --range 1:64
bad "jobs above 30 never start" "$FLOW" max-cpu --replications 1
bad "pool gpu past its knee" "$KNEE" min-bandwidth --set workload.jobs=200 --replications 1
bad "below the autoscaler's min_replicas 5" "$KNEE" min-devices --set workload.jobs=200 \
  --set servers.0.count=8 --set "servers.0.autoscaler=$AUTO" --range 2:8
# One that never scales up in time: the refusal names the autoscaler as a suspect.
bad "the pool's autoscaler (servers.0.autoscaler) decides" "$KNEE" min-devices \
  --set workload.jobs=200 --slowdown 0.5 --set servers.0.count=8 --replications 1 \
  --set 'servers.0.autoscaler={"metric": "queue_time", "threshold": "5ms"}'
finish
