# Sourced by tests/golden/generate.sh and scripts/memory-estimate.sh: how each long site-scale
# shipped scenario is shortened when it is run in bulk (the behaviour over a shorter span is the
# same code, and the memory that grows with the duration is part of the estimate either way).
# Keys are paths under scenarios/ without .json; values are --set flags.
declare -A SHORT=(
  [bench/bandwidth-bound-100k]="--set duration=5s --set warmup=1s"
  [bench/bandwidth-bound-10k]="--set duration=10s --set warmup=1s"
  [bench/bandwidth-saturated-10k]="--set duration=10s --set warmup=1s"
  [bench/latency-bound-100k]="--set duration=10s --set warmup=1s"
  [bench/latency-bound-10k]="--set duration=30s --set warmup=3s"
  [bench/latency-bound-1m]="--set duration=1s --set warmup=0.2s"
  [bench/servers-10k]="--set duration=30s --set warmup=3s"
  [bench/sites-3-10k-analytic]="--set duration=30s --set warmup=3s"
  [bench/sites-3-10k-flow]="--set duration=10s --set warmup=1s"
  [default]="--set duration=5min --set warmup=30s"
  [examples/columnar-coffea]="--set duration=10min --set warmup=2min"
  [examples/job-waves]="--set duration=1h"
  [examples/cpu-only-baseline]="--set duration=10min"
  [sites/tier2-keda]="--set duration=1h"
)
