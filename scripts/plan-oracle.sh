#!/usr/bin/env bash
# A differential oracle for `sonicsim plan` (docs/plan.md#the-oracle): seeded random scenarios,
# a question each, the answer checked against simulations with every payload a flow, and auto
# against flow at the answer. Exit 1 when a case disagrees.
#
#   scripts/plan-oracle.sh                      12 cases, seed 33 (what ctest runs)
#   scripts/plan-oracle.sh --cases 200 --seed 7 --out out/oracle-long
#   scripts/plan-oracle.sh --help               every option
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"
exec python3 scripts/plan_oracle.py "$@"
