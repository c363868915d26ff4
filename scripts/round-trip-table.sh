#!/usr/bin/env bash
# Prints the round-trip tables (markdown) of docs/calibration.md from calibration files: one
# summary row per configuration, then every replayed row.
#
#   scripts/round-trip-table.sh [CALIBRATION_DIR]     (default calibration/cms-t4)
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"
DIR="${1:-calibration/cms-t4}"
command -v jq >/dev/null || die "jq is required (apt-get install jq)"
files=("$DIR"/*.json)
[[ -e "${files[0]}" ]] || die "no calibration files in $DIR"

echo "| configuration | device | curve (held-out rms) | correction factors | overhead jitter cv | rows consistent | max \\|Inf/s error\\| | max \\|p50 error\\| | within 5% / 10% |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  jq -r '
    def pct: . * 1000 | round / 10 | tostring + "%";
    [.round_trip[] | select(.consistent)] as $ok
    | (.fit.chosen) as $k
    | (.fit.candidates[] | select(.kind == $k) | .loo_rms_rel_error) as $loo
    | "| \(.model) | \(.device) | \($k) (\($loo | pct)) | "
      + "\(.fit.refinement.anchors | map(.factor) | min * 100 | round / 100) to "
      + "\(.fit.refinement.anchors | map(.factor) | max * 100 | round / 100) | "
      + "\(.fit.overhead_jitter.cv) | \($ok | length)/\(.round_trip | length) | "
      + "\([$ok[] | .inferences_per_s_error | fabs] | max | pct) | "
      + "\([$ok[] | .p50_error | fabs] | max | pct) | "
      + "\([$ok[] | select((.inferences_per_s_error | fabs) < 0.05 and (.p50_error | fabs) < 0.10)] | length)/\($ok | length) rows |"
  ' "$f"
done
echo
echo "| configuration | batch | measured Inf/s | simulated | error | measured p50 (us) | simulated | error | requests per execution | row |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  jq -r '
    def pct: . * 1000 | round / 10 | if . > 0 then "+" + tostring else tostring end + "%";
    def r1: . * 10 | round / 10;
    .model as $m | .round_trip[]
    | "| \($m) | \(.batch_size) | \(.measured_inferences_per_s | r1) | "
      + "\(.simulated_inferences_per_s | r1) | \(.inferences_per_s_error | pct) | "
      + "\(.measured_p50_us | round) | \(.simulated_p50_us | round) | \(.p50_error | pct) | "
      + "\(.simulated_requests_per_execution * 100 | round / 100) | "
      + "\(if .consistent then "" else "breaks Little'"'"'s law: not fitted" end) |"
  ' "$f"
done
