# cli_sites_tools: plan, sweep and report on a scenario with sites (docs/sites.md, "Planning
# with sites"). plan min-bandwidth finds a WAN link by its results name and gives the hand
# computation's bandwidth; a one-site link name is refused with the scenario's links; a sweep
# over the GPUs at a site, a WAN link's and a site uplink's bandwidth runs and slows down where
# the WAN narrows; the report draws per-site and per-WAN-link figures from runs and sweeps.
source "$(dirname "$0")/lib.sh" "$@"
need_json_tool

TWO=tests/data/plan_two_sites.json
WIDE_UPLINK=(--set sites.0.network.site_uplink.bandwidth=800Tbps)

run_ok "$SONICSIM" plan "$TWO" min-bandwidth --link wan/esnet "${WIDE_UPLINK[@]}" \
  --replications 1 --workers 2 -o "$TMP/plan.json"
assert_stdout_contains "wan.links.0.bandwidth = "
[[ "$(json_get "$TMP/plan.json" link)" == wan/esnet ]] || fail "plan: link not recorded"
[[ "$(json_get "$TMP/plan.json" vary)" == wan.links.0.bandwidth ]] || fail "plan: vary"
bw="$(json_get "$TMP/plan.json" answer.value)"
float_cmp "$bw" ">=" 3.77e8 && float_cmp "$bw" "<=" 3.9e8 || fail "min-bandwidth of wan/esnet $bw B/s"
pass "min-bandwidth --link wan/esnet: $bw B/s (hand: 3.777e8)"
json_has "$TMP/plan.json" points.0.summary.link_mean_utilization ||
  fail "plan: no link utilization read back for wan/esnet"
pass "plan: the WAN link's utilization read back by its name"

run_status 2 "$SONICSIM" plan "$TWO" min-bandwidth --link site_uplink -o "$TMP/bad.json"
assert_stderr_contains "plan_two_sites.json"
assert_stderr_contains "its links: purdue/site_uplink, fnal/site_uplink, fnal/server_nic, wan/esnet"
assert_no_file "$TMP/bad.json"
run_status 2 "$SONICSIM" plan "$TWO" min-bandwidth --link wan/esnett -o "$TMP/bad.json"
assert_stderr_contains "did you mean \`wan/esnet\`?"
assert_no_file "$TMP/bad.json"

# GPUs at fnal x the WAN's bandwidth, purdue's uplink out of the way: 1 MB per event over
# 1 Gbps adds 8 ms to the 53 ms of an event.
run_ok "$SONICSIM" sweep "$TWO" --param servers.0.count=1,2 \
  --param wan.links.0.bandwidth=1Gbps,10Gbps,100Gbps "${WIDE_UPLINK[@]}" --set duration=20s \
  --replications 1 --workers 2 -o "$TMP/sweep.csv"
for c in param.servers.0.count param.wan.links.0.bandwidth sites.0.events.throughput_per_s.mean \
  sites.0.bytes_out.mean sites.1.bytes_in.mean; do
  [[ -n "$(col "$TMP/sweep.csv" "$c")" ]] || fail "sweep: no column $c"
done
pass "sweep: per-site columns"
x="$(col "$TMP/sweep.csv" sites.0.events.throughput_per_s.mean)"
slow="$(awk -F, -v c="$x" 'NR == 2 { print $c }' "$TMP/sweep.csv")"
fast="$(awk -F, -v c="$x" 'NR == 4 { print $c }' "$TMP/sweep.csv")"
near "$slow" "$(awk 'BEGIN { print 4 / 0.061 }')" 0.01 || fail "purdue at 1 Gbps: $slow events/s"
near "$fast" "$(awk 'BEGIN { print 4 / 0.05308 }')" 0.01 || fail "purdue at 100 Gbps: $fast events/s"
pass "sweep: purdue's events/s $slow at 1 Gbps of WAN, $fast at 100 Gbps"
run_ok "$SONICSIM" sweep "$TWO" --param sites.0.network.site_uplink.bandwidth=2Gbps,20Gbps \
  --set duration=20s --replications 1 --workers 2 -o "$TMP/uplink.csv"
[[ "$(awk -F, -v c="$(col "$TMP/uplink.csv" status)" 'NR > 1 && $c != "ok"' "$TMP/uplink.csv")" == "" ]] ||
  fail "sweep over a site's uplink: a point failed"
pass "sweep over a site's uplink bandwidth"

run_ok "$SONICSIM" run "$TWO" --set duration=20s -o "$TMP/run.json"
run_ok "$SONICSIM" report "$TMP/run.json"
assert_stdout_contains "site purdue: events/s, time per event, latency p99"
assert_stdout_contains "site purdue: egress cost"
assert_stdout_contains "wan/esnet: bytes, mean / peak utilization"
run_ok "$SONICSIM" report "$TMP/run.json" "$TMP/sweep.csv" -o "$TMP/report.html"
for want in "sites and the WAN</h4>" "Events per second by site" "Egress cost by site" \
  "WAN links: utilization, mean and peak window" "Throughput by site" ">purdue<" ">wan/esnet<"; do
  grep -qF -- "$want" "$TMP/report.html" || fail "report.html lacks \"$want\""
done
pass "report: per-site and per-WAN-link panels for a run and a sweep"
finish
