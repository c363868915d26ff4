#!/usr/bin/env bash
# Build the libFuzzer targets (clang, build type Fuzz, in build-fuzz/) and fuzz each one in turn
# for its share of SECONDS (default 60 in all). Exits non-zero when a target finds a crash, a hang
# or a broken contract: the input, minimized, is saved as tests/fuzz/corpus/TARGET/crash-SHA1, and
# from then on ctest replays it (fuzz_replay_TARGET). docs/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Environment: SONICSIM_FUZZ_BUILD_DIR (default build-fuzz), SONICSIM_FUZZ_RSS_MB (memory limit
# of a target, default 2048), SONICSIM_FUZZ_NICE (default 10), SONICSIM_FUZZ_SKIP_BUILD=1.
# What each target learned stays in BUILD_DIR/corpus/TARGET (used again by the next run); the
# seeds come from tests/fuzz/corpus/TARGET, the repository's scenarios, test data and calibration
# files, and ../shared/reference when it exists. A log line per target is appended to
# BUILD_DIR/fuzz-log.tsv (target, seconds, CPU seconds, executions, crashes).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$SONICSIM_ROOT"

case "${1:-}" in
  -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
esac
SECONDS_ALL="${1:-60}"
[[ "$SECONDS_ALL" =~ ^[0-9]+$ ]] || die "SECONDS must be a whole number, found '$SECONDS_ALL'"
shift $(($# > 0 ? 1 : 0))
ALL_TARGETS=(scenario units perf_analyzer measurements triton_config calibration results sweep figures
  prometheus supersonic)
TARGETS=("$@")
((${#TARGETS[@]} > 0)) || TARGETS=("${ALL_TARGETS[@]}")
BUILD_DIR="${SONICSIM_FUZZ_BUILD_DIR:-build-fuzz}"
RSS_MB="${SONICSIM_FUZZ_RSS_MB:-2048}"
NICE="${SONICSIM_FUZZ_NICE:-10}"

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
  esac
  local d
  for d in "${dirs[@]}"; do [[ -d "$d" ]] && printf '%s\n' "$d"; done
  return 0
}

per_target=$((SECONDS_ALL / ${#TARGETS[@]}))
((per_target >= 1)) || per_target=1
log="$BUILD_DIR/fuzz-log.tsv"
[[ -f "$log" ]] || printf 'date\ttarget\tseconds\tcpu_s\texecutions\tcrashes\n' >"$log"
failed=()
for t in "${TARGETS[@]}"; do
  bin="$BUILD_DIR/tests/fuzz/fuzz_$t"
  [[ -x "$bin" ]] || die "no fuzz target '$t' ($bin; targets: ${ALL_TARGETS[*]})"
  work="$BUILD_DIR/corpus/$t"
  mkdir -p "$work" "$BUILD_DIR/logs"
  max_len=32768
  [[ $t == units ]] && max_len=1024
  [[ $t == results ]] && max_len=65536
  mapfile -t seeds < <(seeds_of "$t")
  before=$(ls tests/fuzz/corpus/$t | grep -c '^crash-\|^timeout-\|^oom-\|^leak-' || true)
  log "fuzzing $t for ${per_target}s"
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb/-malloc_limit_mb: memory that
  # grows with the input is a finding, not a reason to swap.
  rc=0
  timer=()
  [[ -x /usr/bin/time ]] && timer=(/usr/bin/time -f %U -o "$BUILD_DIR/logs/$t.cpu")
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" UBSAN_OPTIONS="print_stacktrace=1" \
    "${timer[@]}" nice -n "$NICE" "$bin" -max_total_time="$per_target" -max_len="$max_len" \
    -rss_limit_mb="$RSS_MB" -malloc_limit_mb="$RSS_MB" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="tests/fuzz/corpus/$t/" "$work" "${seeds[@]}" \
    >"$BUILD_DIR/logs/$t.log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$BUILD_DIR/logs/$t.log" |
    grep -o '[0-9]*$' || echo 0)
  found=()
  for f in tests/fuzz/corpus/$t/{crash,timeout,oom,leak}-*; do
    [[ -f "$f" && "$f" != *.min ]] || continue
    found+=("$f")
  done
  new=$((${#found[@]} - before))
  cpu=$(tail -n 1 "$BUILD_DIR/logs/$t.cpu" 2>/dev/null || echo "")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$per_target" "${cpu:-?}" \
    "${execs:-0}" "$new" >>"$log"
  if ((rc != 0)); then
    failed+=("$t")
    tail -n 40 "$BUILD_DIR/logs/$t.log" >&2
    # Keep the smallest input that still breaks the contract.
    for f in "${found[@]}"; do
      case "$f" in *crash-*) ;; *) continue ;; esac
      nice -n "$NICE" "$bin" -minimize_crash=1 -max_total_time=30 -runs=100000 \
        -exact_artifact_path="$f.min" "$f" >/dev/null 2>&1 || true
      [[ -s "$f.min" ]] && mv "$f.min" "$f"
      rm -f "$f.min"
    done
    log "$t: FOUND a problem (rc $rc); input saved under tests/fuzz/corpus/$t/, log $BUILD_DIR/logs/$t.log"
  else
    log "$t: ${execs:-0} executions, no crash"
  fi
done
((${#failed[@]} == 0)) || die "fuzzing found problems in: ${failed[*]}"
log "fuzzed ${#TARGETS[@]} targets for ${per_target}s each: no crash"
