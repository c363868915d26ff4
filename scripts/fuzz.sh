#!/usr/bin/env bash
# Build the libFuzzer targets (clang, build type Fuzz, in build-fuzz/) and fuzz each one in turn
# for its share of SECONDS (default 60 in all). Exits non-zero when a target finds a crash, a hang
# or a broken contract: the input, minimized, is saved as tests/fuzz/corpus/TARGET/crash-SHA1, and
# from then on ctest replays it (fuzz_replay_TARGET). docs/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#   scripts/fuzz.sh --long DURATION [TARGET...]   # DURATION: 90s, 45m, 2h, 1h30m
#
# --long: round-robin over the targets in slices (SONICSIM_FUZZ_SLICE seconds, default the
# duration over twice the targets, within 60..600) until DURATION of wall time is spent, each
# slice resuming the target's corpus; a target that finds a problem leaves the rotation and the
# others go on. At the end a table per target: CPU seconds, executions, executions per CPU
# second, findings. Nice 19 unless SONICSIM_FUZZ_NICE says otherwise. One libFuzzer process at
# a time, one core (no -jobs, no -fork).
#
# Environment: SONICSIM_FUZZ_BUILD_DIR (default build-fuzz), SONICSIM_FUZZ_RSS_MB (memory limit
# of a target, default 2048), SONICSIM_FUZZ_NICE (default 10), SONICSIM_FUZZ_SKIP_BUILD=1.
# What each target learned stays in BUILD_DIR/corpus/TARGET (used again by the next run); the
# seeds come from tests/fuzz/corpus/TARGET, the repository's scenarios, test data and calibration
# files, and ../shared/reference when it exists. A log line per target and slice is appended to
# BUILD_DIR/fuzz-log.tsv (target, seconds, CPU seconds, executions, crashes).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

# "90s", "45m", "2h", "1h30m" or plain seconds -> seconds; empty when it is none of those.
duration_seconds() {
  local text="$1" total=0 n unit
  [[ "$text" =~ ^[0-9]+$ ]] && { echo "$text"; return; }
  [[ "$text" =~ ^([0-9]+[hms])+$ ]] || return 0
  while [[ "$text" =~ ^([0-9]+)([hms])(.*)$ ]]; do
    n="${BASH_REMATCH[1]}" unit="${BASH_REMATCH[2]}" text="${BASH_REMATCH[3]}"
    case "$unit" in h) total=$((total + n * 3600)) ;; m) total=$((total + n * 60)) ;;
      s) total=$((total + n)) ;; esac
  done
  echo "$total"
}

LONG=0
case "${1:-}" in
  -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
  --long)
    LONG=1
    SECONDS_ALL="$(duration_seconds "${2:-}")"
    [[ -n "$SECONDS_ALL" ]] || die "--long DURATION: found '${2:-}', expected e.g. 45m, 2h, 1h30m"
    shift 2
    ;;
  *)
    SECONDS_ALL="${1:-60}"
    [[ "$SECONDS_ALL" =~ ^[0-9]+$ ]] || die "SECONDS must be a whole number, found '$SECONDS_ALL'"
    shift $(($# > 0 ? 1 : 0))
    ;;
esac
ALL_TARGETS=(scenario units perf_analyzer measurements triton_config calibration results sweep figures
  prometheus supersonic sites hosts calibrate_overlap calibrate_prometheus reproduce plan_report
  calibrate_nodes uncertainty)
TARGETS=("$@")
((${#TARGETS[@]} > 0)) || TARGETS=("${ALL_TARGETS[@]}")
BUILD_DIR="${SONICSIM_FUZZ_BUILD_DIR:-build-fuzz}"
RSS_MB="${SONICSIM_FUZZ_RSS_MB:-2048}"
NICE="${SONICSIM_FUZZ_NICE:-$((LONG ? 19 : 10))}"

ensure_packages "${BUILD_PKGS[@]}" clang libclang-rt-14-dev
if [[ "${SONICSIM_FUZZ_SKIP_BUILD:-0}" != 1 ]]; then
  CXX=clang++ configure_build "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Fuzz \
    -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  build "$BUILD_DIR" sonicsim_fuzz_targets
fi

# The repository's own files of each target's format, and the reference data beside the checkout.
seeds_of() {
  local dirs=("tests/fuzz/corpus/$1")
  case "$1" in
    scenario) dirs+=(scenarios tests/data) ;;
    perf_analyzer) dirs+=(tests/data/perf_analyzer ../shared/reference/perf_analyzer) ;;
    triton_config) dirs+=(tests/data/triton scenarios/examples/triton-models
      ../shared/reference/triton-configs) ;;
    calibration) dirs+=(calibration tests/data/calibration) ;;
    calibrate_overlap) dirs+=(tests/fuzz/corpus/perf_analyzer) ;;
    reproduce) dirs+=(tests/fuzz/corpus/figures) ;;
    plan_report) dirs+=(tests/data/report) ;;
  esac
  local d
  for d in "${dirs[@]}"; do [[ -d "$d" ]] && printf '%s\n' "$d"; done
  return 0
}

log="$BUILD_DIR/fuzz-log.tsv"
[[ -f "$log" ]] || printf 'date\ttarget\tseconds\tcpu_s\texecutions\tcrashes\n' >"$log"

# fuzz_one TARGET SECONDS: one libFuzzer run of the target, resuming its corpus. Sets rc, execs,
# cpu (user + system seconds) and new (findings saved under tests/fuzz/corpus/TARGET/), and
# appends its line to the log.
fuzz_one() {
  local t="$1" secs="$2"
  local bin="$BUILD_DIR/tests/fuzz/fuzz_$t"
  [[ -x "$bin" ]] || die "no fuzz target '$t' ($bin; targets: ${ALL_TARGETS[*]})"
  local work="$BUILD_DIR/corpus/$t"
  mkdir -p "$work" "$BUILD_DIR/logs"
  local max_len=32768
  [[ $t == units ]] && max_len=1024
  [[ $t == results || $t == plan_report ]] && max_len=65536
  local seeds
  mapfile -t seeds < <(seeds_of "$t")
  local before
  before=$(ls tests/fuzz/corpus/$t | grep -c '^crash-\|^timeout-\|^oom-\|^leak-' || true)
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb/-malloc_limit_mb: memory that
  # grows with the input is a finding, not a reason to swap.
  rc=0
  local timer=()
  rm -f "$BUILD_DIR/logs/$t.cpu"
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f '%U %S' -o "$BUILD_DIR/logs/$t.cpu")
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" UBSAN_OPTIONS="print_stacktrace=1" \
    "${timer[@]}" nice -n "$NICE" "$bin" -max_total_time="$secs" -max_len="$max_len" \
    -rss_limit_mb="$RSS_MB" -malloc_limit_mb="$RSS_MB" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="tests/fuzz/corpus/$t/" "$work" "${seeds[@]}" \
    >"$BUILD_DIR/logs/$t.log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD_DIR/logs/$t.log" |
    grep -o '[0-9]*$' || echo 0)
  execs="${execs:-0}"
  found=()
  local f
  for f in tests/fuzz/corpus/$t/{crash,timeout,oom,leak}-*; do
    [[ -f "$f" && "$f" != *.min ]] || continue
    found+=("$f")
  done
  new=$((${#found[@]} - before))
  cpu=$(tail -n 1 "$BUILD_DIR/logs/$t.cpu" 2>/dev/null | awk 'NF == 2 { print $1 + $2 }')
  cpu="${cpu:-0}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$secs" "$cpu" "$execs" "$new" \
    >>"$log"
  if ((rc != 0)); then
    tail -n 40 "$BUILD_DIR/logs/$t.log" >&2
    # Keep the smallest input that still breaks the contract. libFuzzer runs a child per step,
    # each with its own time limit: `timeout` bounds the whole (it once took the five minutes
    # a long run had left).
    for f in "${found[@]}"; do
      case "$f" in *crash-*) ;; *) continue ;; esac
      timeout 60 nice -n "$NICE" "$bin" -minimize_crash=1 -max_total_time=30 -runs=100000 \
        -exact_artifact_path="$f.min" "$f" >/dev/null 2>&1 || true
      [[ -s "$f.min" ]] && mv "$f.min" "$f"
      rm -f "$f.min"
    done
    cp "$BUILD_DIR/logs/$t.log" "$BUILD_DIR/logs/$t.finding-$(date -u +%H%M%S).log"
    log "$t: FOUND a problem (rc $rc); input saved under tests/fuzz/corpus/$t/, log $BUILD_DIR/logs/$t.log"
  fi
  return 0
}

failed=()
if ((LONG == 0)); then
  per_target=$((SECONDS_ALL / ${#TARGETS[@]}))
  ((per_target >= 1)) || per_target=1
  for t in "${TARGETS[@]}"; do
    log "fuzzing $t for ${per_target}s"
    fuzz_one "$t" "$per_target"
    if ((rc != 0)); then failed+=("$t"); else log "$t: $execs executions, no crash"; fi
  done
  ((${#failed[@]} == 0)) || die "fuzzing found problems in: ${failed[*]}"
  log "fuzzed ${#TARGETS[@]} targets for ${per_target}s each: no crash"
  exit 0
fi

# Long mode: slices round-robin until the deadline, totals per target.
slice="${SONICSIM_FUZZ_SLICE:-$((SECONDS_ALL / (2 * ${#TARGETS[@]})))}"
[[ "$slice" =~ ^[0-9]+$ ]] || die "SONICSIM_FUZZ_SLICE must be whole seconds, found '$slice'"
[[ -n "${SONICSIM_FUZZ_SLICE:-}" ]] || { ((slice >= 60)) || slice=60; ((slice <= 600)) || slice=600; }
((slice >= 1)) || slice=1
declare -A total_cpu total_execs total_found
for t in "${TARGETS[@]}"; do total_cpu[$t]=0 total_execs[$t]=0 total_found[$t]=0; done
rotation=("${TARGETS[@]}")
deadline=$(($(date +%s) + SECONDS_ALL))
log "long run: ${SECONDS_ALL}s over ${#TARGETS[@]} targets in slices of ${slice}s, nice $NICE"
round=0
while ((${#rotation[@]} > 0 && $(date +%s) < deadline)); do
  round=$((round + 1))
  next=()
  for t in "${rotation[@]}"; do
    left=$((deadline - $(date +%s)))
    ((left >= 5)) || break 2
    secs=$((slice < left ? slice : left))
    log "round $round: $t for ${secs}s (${left}s left)"
    fuzz_one "$t" "$secs"
    total_cpu[$t]=$(awk -v a="${total_cpu[$t]}" -v b="$cpu" 'BEGIN { print a + b }')
    total_execs[$t]=$((total_execs[$t] + execs))
    # A finding not saved as a file (a crash libFuzzer could not write) still counts.
    found_now=$new
    ((found_now > 0 || rc == 0)) || found_now=1
    total_found[$t]=$((total_found[$t] + found_now))
    if ((rc != 0)); then failed+=("$t"); else next+=("$t"); fi
  done
  rotation=("${next[@]}")
done

all_cpu=0 all_execs=0
printf '\n%-22s %10s %14s %10s %9s\n' target "CPU s" executions "exec/s" findings
for t in "${TARGETS[@]}"; do
  rate=$(awk -v e="${total_execs[$t]}" -v c="${total_cpu[$t]}" \
    'BEGIN { if (c > 0) printf "%.0f", e / c; else print "-" }')
  printf '%-22s %10.0f %14d %10s %9d\n' "$t" "${total_cpu[$t]}" "${total_execs[$t]}" "$rate" \
    "${total_found[$t]}"
  all_cpu=$(awk -v a="$all_cpu" -v b="${total_cpu[$t]}" 'BEGIN { print a + b }')
  all_execs=$((all_execs + total_execs[$t]))
done
printf '%-22s %10.0f %14d %10s %9d   (%.2f CPU hours)\n' all "$all_cpu" "$all_execs" \
  "$(awk -v e="$all_execs" -v c="$all_cpu" 'BEGIN { if (c > 0) printf "%.0f", e / c; else print "-" }')" \
  "${#failed[@]}" "$(awk -v c="$all_cpu" 'BEGIN { print c / 3600 }')"
((${#failed[@]} == 0)) || die "fuzzing found problems in: ${failed[*]}"
log "long run over ${#TARGETS[@]} targets: no finding"
